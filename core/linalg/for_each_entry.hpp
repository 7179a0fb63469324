#ifndef TTGNN_CORE_FOR_EACH_ENTRY_HPP
#define TTGNN_CORE_FOR_EACH_ENTRY_HPP
/// \file for_each_entry.hpp
/// \brief Element-wise kernels over a rows x cols row-major matrix, shaped for the space: on
/// host spaces one iteration runs one row (the loop over its columns is contiguous and
/// vectorises), on a device one iteration runs one entry (neighbouring threads touch
/// neighbouring entries of a row: coalesced).

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace ttgnn {

/// Whether host code can read the space's memory (kernels then take one row an iteration).
template <class ExecutionSpace>
inline constexpr bool runs_on_host =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                               typename ExecutionSpace::memory_space>::accessible;

/// \brief f(i, j) for every i < rows, j < cols, on \p space, under \p label. f must not depend
/// on the order of the entries (each entry is written by its own call).
template <class ExecutionSpace, class F>
void for_each_entry(ExecutionSpace const &space, char const *label, std::int64_t rows,
                    std::int64_t cols, F const &f) {
  if constexpr (runs_on_host<ExecutionSpace>) {
    Kokkos::parallel_for(
        label, Kokkos::RangePolicy<ExecutionSpace>(space, 0, rows), KOKKOS_LAMBDA(std::int64_t i) {
          for (std::int64_t j = 0; j < cols; ++j)
            f(i, j);
        });
  } else {
    Kokkos::parallel_for(
        label, Kokkos::RangePolicy<ExecutionSpace>(space, 0, rows * cols),
        KOKKOS_LAMBDA(std::int64_t k) {
          const std::int64_t i = k / cols;
          f(i, k - i * cols);
        });
  }
}

} // namespace ttgnn

#endif
