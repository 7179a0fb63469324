#ifndef TTGNN_CORE_COLUMN_SUMS_HPP
#define TTGNN_CORE_COLUMN_SUMS_HPP
/// \file column_sums.hpp
/// \brief Column reductions of row-major matrices: out(c) = beta * out(c) + sum_i a(i, c)
/// [* b(i, c)]. Used for bias gradients and BatchNorm statistics.
///
/// Deterministic: rows are cut into a fixed number of blocks (independent of the thread
/// count), each block sums its rows in order, then the block sums are added in block order.
/// The same input gives the same bits at 1, 2 or 64 threads.

#include "core/error.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace ttgnn {

/// \brief Grow-only scratch of the block sums, so that repeated column reductions (every
/// training step's bias gradients and BatchNorm statistics) allocate nothing once it holds the
/// largest shape seen.
template <class Scalar, class MemorySpace> class ColumnSumsWorkspace {
public:
  using matrix_type =
      Kokkos::View<Scalar **, Kokkos::LayoutRight, MemorySpace, Kokkos::MemoryUnmanaged>;
  /// A blocks x cols matrix over the scratch, reallocated only when it needs more entries.
  matrix_type matrix(std::int64_t blocks, std::int64_t cols) {
    if (static_cast<std::int64_t>(flat_.extent(0)) < blocks * cols)
      flat_ = Kokkos::View<Scalar *, MemorySpace>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::column_sums::partial"),
          blocks * cols);
    return matrix_type(flat_.data(), blocks, cols);
  }

private:
  Kokkos::View<Scalar *, MemorySpace> flat_;
};

namespace detail {

/// One team per row block: partial(block, c) = sum over the block's rows.
template <class ExecutionSpace, class AMatrix, class BMatrix, class Partial, bool HasB>
struct ColumnBlockSums {
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  AMatrix a;
  BMatrix b;
  Partial partial;
  std::int64_t num_rows, rows_per_block;
  int num_cols;

  KOKKOS_INLINE_FUNCTION void operator()(member_type const &member) const {
    const std::int64_t block = member.league_rank();
    const std::int64_t first = block * rows_per_block;
    const std::int64_t last = first + rows_per_block < num_rows ? first + rows_per_block : num_rows;
    constexpr bool host =
        Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                   typename ExecutionSpace::memory_space>::accessible;
    if constexpr (host) { // rows outer, columns inner (contiguous, vectorised)
      for (int c = 0; c < num_cols; ++c)
        partial(block, c) = 0;
      for (std::int64_t i = first; i < last; ++i)
        for (int c = 0; c < num_cols; ++c)
          partial(block, c) += HasB ? a(i, c) * b(i, c) : a(i, c);
    } else { // one column per thread: neighbouring threads read neighbouring entries
      Kokkos::parallel_for(Kokkos::TeamThreadRange(member, num_cols), [&](int c) {
        typename Partial::non_const_value_type s = 0;
        for (std::int64_t i = first; i < last; ++i)
          s += HasB ? a(i, c) * b(i, c) : a(i, c);
        partial(block, c) = s;
      });
    }
  }
};

template <class ExecutionSpace, class AMatrix, class BMatrix, class Out, bool HasB>
void column_reduce(ExecutionSpace const &space, AMatrix const &a, BMatrix const &b, Out const &out,
                   typename Out::non_const_value_type beta,
                   ColumnSumsWorkspace<typename Out::non_const_value_type,
                                       typename ExecutionSpace::memory_space> &workspace) {
  using scalar_type = typename Out::non_const_value_type;
  using memory_space = typename ExecutionSpace::memory_space;
  const std::int64_t n = static_cast<std::int64_t>(a.extent(0));
  const int m = static_cast<int>(a.extent(1));
  if (out.extent(0) != a.extent(1) ||
      (HasB && (b.extent(0) != a.extent(0) || b.extent(1) != a.extent(1))))
    throw ConfigError("ttgnn::column_sums: shapes do not agree (" + std::to_string(n) + "x" +
                      std::to_string(m) + " matrix, " + std::to_string(out.extent(0)) +
                      " outputs)");
  // Fixed block count: ~64 rows per block for small matrices, at most 256 blocks.
  const std::int64_t blocks = n == 0 ? 1 : (n < 256 * 64 ? (n + 63) / 64 : 256);
  const std::int64_t rows_per_block = n == 0 ? 1 : (n + blocks - 1) / blocks;
  const auto partial = workspace.matrix(blocks, m);
  using Policy = Kokkos::TeamPolicy<ExecutionSpace>;
  constexpr bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible;
  const Policy policy = host ? Policy(space, static_cast<int>(blocks), 1)
                             : Policy(space, static_cast<int>(blocks), Kokkos::AUTO);
  Kokkos::parallel_for("ttgnn::column_sums::blocks", policy,
                       ColumnBlockSums<ExecutionSpace, AMatrix, BMatrix, decltype(partial), HasB>{
                           a, b, partial, n, rows_per_block, m});
  Kokkos::parallel_for(
      "ttgnn::column_sums::total", Kokkos::RangePolicy<ExecutionSpace>(space, 0, m),
      KOKKOS_LAMBDA(int c) {
        scalar_type s = 0;
        for (std::int64_t q = 0; q < blocks; ++q)
          s += partial(q, c);
        out(c) = beta == scalar_type(0) ? s : beta * out(c) + s;
      });
}

} // namespace detail

namespace detail {
template <class ExecutionSpace, class Out>
using column_workspace_type =
    ColumnSumsWorkspace<typename Out::non_const_value_type, typename ExecutionSpace::memory_space>;
} // namespace detail

/// \brief out(c) = beta * out(c) + sum_i a(i, c). beta == 0 does not read out.
/// \param a rank-2 View (any layout), \param out rank-1 View with a.extent(1) entries
/// \param workspace the block sums' scratch, kept by the caller across calls
template <class ExecutionSpace, class AMatrix, class Out>
void column_sums(ExecutionSpace const &space, AMatrix const &a, Out const &out,
                 typename Out::non_const_value_type beta,
                 detail::column_workspace_type<ExecutionSpace, Out> &workspace) {
  detail::column_reduce<ExecutionSpace, AMatrix, AMatrix, Out, false>(space, a, a, out, beta,
                                                                      workspace);
}

/// \brief As above with a scratch of its own (allocated by this call).
template <class ExecutionSpace, class AMatrix, class Out>
void column_sums(ExecutionSpace const &space, AMatrix const &a, Out const &out,
                 typename Out::non_const_value_type beta = 0) {
  detail::column_workspace_type<ExecutionSpace, Out> workspace;
  column_sums(space, a, out, beta, workspace);
}

/// \brief out(c) = beta * out(c) + sum_i a(i, c) * b(i, c) (column-wise dot products).
template <class ExecutionSpace, class AMatrix, class BMatrix, class Out>
void column_dots(ExecutionSpace const &space, AMatrix const &a, BMatrix const &b, Out const &out,
                 typename Out::non_const_value_type beta,
                 detail::column_workspace_type<ExecutionSpace, Out> &workspace) {
  detail::column_reduce<ExecutionSpace, AMatrix, BMatrix, Out, true>(space, a, b, out, beta,
                                                                     workspace);
}

/// \brief As above with a scratch of its own (allocated by this call).
template <class ExecutionSpace, class AMatrix, class BMatrix, class Out>
void column_dots(ExecutionSpace const &space, AMatrix const &a, BMatrix const &b, Out const &out,
                 typename Out::non_const_value_type beta = 0) {
  detail::column_workspace_type<ExecutionSpace, Out> workspace;
  column_dots(space, a, b, out, beta, workspace);
}

} // namespace ttgnn

#endif
