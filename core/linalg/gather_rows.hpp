#ifndef TTGNN_CORE_GATHER_ROWS_HPP
#define TTGNN_CORE_GATHER_ROWS_HPP
/// \file gather_rows.hpp
/// \brief out(b, :) = src(ids(b), :) for row-major matrices.
///
/// On host spaces one iteration copies one row (contiguous, vectorised); on a device one
/// iteration copies one entry, so neighbouring threads read neighbouring entries of a row.

#include "core/linalg/for_each_entry.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace ttgnn {

/// \brief out(b, c) = src(ids(b), c) for b < ids.extent(0), c < src.extent(1). \p src and
/// \p out are rank-2 Views of the space (out at least ids.extent(0) x src.extent(1)).
template <class ExecutionSpace, class Src, class Ids, class Out>
void gather_rows(ExecutionSpace const &space, Src const &src, Ids const &ids, Out const &out) {
  const std::int64_t rows = static_cast<std::int64_t>(ids.extent(0));
  const std::int64_t cols = static_cast<std::int64_t>(src.extent(1));
  if constexpr (runs_on_host<ExecutionSpace>) {
    Kokkos::parallel_for(
        "ttgnn::gather_rows", Kokkos::RangePolicy<ExecutionSpace>(space, 0, rows),
        KOKKOS_LAMBDA(std::int64_t b) {
          const std::int64_t v = ids(b);
          for (std::int64_t c = 0; c < cols; ++c)
            out(b, c) = src(v, c);
        });
  } else {
    Kokkos::parallel_for(
        "ttgnn::gather_rows", Kokkos::RangePolicy<ExecutionSpace>(space, 0, rows * cols),
        KOKKOS_LAMBDA(std::int64_t i) {
          const std::int64_t b = i / cols, c = i - b * cols;
          out(b, c) = src(ids(b), c);
        });
  }
}

} // namespace ttgnn

#endif
