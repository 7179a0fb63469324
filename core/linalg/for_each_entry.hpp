#ifndef TTGNN_CORE_FOR_EACH_ENTRY_HPP
#define TTGNN_CORE_FOR_EACH_ENTRY_HPP
/// \file for_each_entry.hpp
/// \brief Element-wise kernels over a rows x cols row-major matrix, shaped for the space: on
/// host spaces one iteration runs one row (the loop over its columns is contiguous and
/// vectorises), on a device one iteration runs one entry (neighbouring threads touch
/// neighbouring entries of a row: coalesced). for_each_span runs flat index ranges.

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace ttgnn {

/// Whether host code can read the space's memory (kernels then take one row an iteration).
template <class ExecutionSpace>
inline constexpr bool runs_on_host =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                               typename ExecutionSpace::memory_space>::accessible;

/// Entries per piece of for_each_span on host spaces (with a grain that divides it).
inline constexpr std::int64_t host_piece = 4096;

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

/// \brief f(begin, end) over [0, n) in contiguous pieces that start at multiples of \p grain
/// (every piece but the last holds a multiple of it): on host spaces pieces of about 4096
/// indices, whose loop vectorises when the body reads its captures into locals first (a store
/// through a Scalar pointer may alias a captured Scalar, so the compiler reloads captures it
/// reads in the loop); on a device one piece of \p grain indices per thread.
template <class ExecutionSpace, class F>
void for_each_span(ExecutionSpace const &space, char const *label, std::int64_t n, F const &f,
                   std::int64_t grain = 1) {
  if constexpr (runs_on_host<ExecutionSpace>) {
    // A host lambda: f may be host-only code (in a CUDA build too, where KOKKOS_LAMBDA is
    // __host__ __device__ and nvcc refuses a host-only call inside it).
    const std::int64_t piece = (host_piece + grain - 1) / grain * grain;
    const std::int64_t pieces = (n + piece - 1) / piece;
    Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecutionSpace>(space, 0, pieces),
                         [=](std::int64_t p) {
                           const std::int64_t begin = p * piece;
                           f(begin, begin + piece < n ? begin + piece : n);
                         });
  } else {
    const std::int64_t pieces = (n + grain - 1) / grain;
    Kokkos::parallel_for(
        label, Kokkos::RangePolicy<ExecutionSpace>(space, 0, pieces),
        KOKKOS_LAMBDA(std::int64_t p) {
          const std::int64_t begin = p * grain;
          f(begin, begin + grain < n ? begin + grain : n);
        });
  }
}

} // namespace ttgnn

#endif
