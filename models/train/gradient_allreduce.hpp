#ifndef TTGNN_MODELS_GRADIENT_ALLREDUCE_HPP
#define TTGNN_MODELS_GRADIENT_ALLREDUCE_HPP
/// \file gradient_allreduce.hpp
/// \brief Gradient sums of data-parallel training (docs/DISTRIBUTED.md): the dense gradients
/// (GNN weights and biases, TT cores) are packed into one flat buffer and summed over the ranks
/// with one all-reduce per step; a row-sparse gradient (full embedding table) is exchanged as
/// (row id, row) pairs only for the touched rows and summed per id, in rank order, on every
/// rank, so every replica applies the same sparse update.

#include "core/runtime/communicator.hpp"
#include "core/error.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

namespace ttgnn {

namespace detail {

/// buffer(offset + i) = g(i) (to_buffer) or g(i) = buffer(offset + i).
template <class ExecutionSpace, class Vector>
void copy_flat(ExecutionSpace const &space, Vector const &g, Vector const &buffer,
               std::int64_t offset, bool to_buffer) {
  Kokkos::parallel_for(
      "ttgnn::gradient_allreduce::copy",
      Kokkos::RangePolicy<ExecutionSpace>(space, 0, static_cast<std::int64_t>(g.extent(0))),
      KOKKOS_LAMBDA(std::int64_t i) {
        if (to_buffer)
          buffer(offset + i) = g(i);
        else
          g(i) = buffer(offset + i);
      });
}

} // namespace detail

/// \brief Sums a fixed list of dense gradient Views over the ranks through one flat buffer.
template <class Scalar, class ExecutionSpace> class GradientAllreduce {
public:
  using memory_space = typename ExecutionSpace::memory_space;
  using vector_type = Kokkos::View<Scalar *, memory_space>;

  GradientAllreduce() = default;
  /// \param gradients the Views summed by allreduce (kept: the model's own gradient Views)
  explicit GradientAllreduce(std::vector<vector_type> gradients)
      : gradients_(std::move(gradients)) {
    std::int64_t n = 0;
    for (auto const &g : gradients_)
      n += static_cast<std::int64_t>(g.extent(0));
    buffer_ = vector_type(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::gradient_allreduce::buffer"), n);
  }

  /// Values in the flat buffer (= values summed per step).
  std::int64_t size() const { return static_cast<std::int64_t>(buffer_.extent(0)); }

  /// \brief Every gradient = its sum over the ranks of \p comm (nothing on a serial one).
  void allreduce(ExecutionSpace const &space, Communicator const &comm) const {
    if (!comm.distributed() || size() == 0)
      return;
    std::int64_t offset = 0;
    for (auto const &g : gradients_) {
      detail::copy_flat(space, g, buffer_, offset, true);
      offset += static_cast<std::int64_t>(g.extent(0));
    }
    allreduce_sum(space, comm, buffer_);
    offset = 0;
    for (auto const &g : gradients_) {
      detail::copy_flat(space, g, buffer_, offset, false);
      offset += static_cast<std::int64_t>(g.extent(0));
    }
  }

private:
  std::vector<vector_type> gradients_;
  vector_type buffer_;
};

/// \brief A row-sparse gradient: distinct row ids (ascending) and their gradient rows.
template <class Scalar, class ExecutionSpace> struct SparseGradient {
  using memory_space = typename ExecutionSpace::memory_space;
  Kokkos::View<std::int64_t *, memory_space> ids;
  Kokkos::View<Scalar **, Kokkos::LayoutRight, memory_space> rows;
};

/// \brief The sum over the ranks of row-sparse gradients: every rank sends its (id, row) pairs
/// to every other (all-gather) and adds the rows of equal ids in rank order, so all ranks get
/// the same ids (ascending, distinct: the union of the ranks' ids) and the same rows.
/// \param ids distinct row ids of this rank, \param rows their gradient rows (ids.extent(0) x d)
/// \param dim d (needed when this rank has no rows)
template <class Scalar, class ExecutionSpace, class Ids, class Rows>
SparseGradient<Scalar, ExecutionSpace>
allreduce_sparse_rows(ExecutionSpace const &space, Communicator const &comm, Ids const &ids,
                      Rows const &rows, std::int64_t dim) {
  using memory_space = typename ExecutionSpace::memory_space;
  const std::int64_t n = static_cast<std::int64_t>(ids.extent(0));
  if (n > 0 && (static_cast<std::int64_t>(rows.extent(0)) != n ||
                static_cast<std::int64_t>(rows.extent(1)) != dim))
    throw ConfigError("ttgnn::allreduce_sparse_rows: " + std::to_string(n) + " ids need " +
                      std::to_string(n) + "x" + std::to_string(dim) + " rows");
  std::vector<std::int64_t> local_ids(static_cast<std::size_t>(n));
  std::vector<Scalar> local_rows(static_cast<std::size_t>(n * dim));
  if (n > 0) {
    auto h_ids = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ids);
    auto h_rows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rows);
    for (std::int64_t i = 0; i < n; ++i) {
      local_ids[i] = h_ids(i);
      for (std::int64_t j = 0; j < dim; ++j)
        local_rows[i * dim + j] = h_rows(i, j);
    }
  }
  const std::vector<std::int64_t> all_ids = comm.allgather(local_ids);
  const std::vector<Scalar> all_rows = comm.allgather(local_rows);
  // rank order within equal ids (stable sort of the concatenation)
  std::vector<std::int64_t> order(all_ids.size());
  std::iota(order.begin(), order.end(), std::int64_t(0));
  std::stable_sort(order.begin(), order.end(),
                   [&](std::int64_t a, std::int64_t b) { return all_ids[a] < all_ids[b]; });
  std::int64_t groups = 0;
  for (std::size_t k = 0; k < order.size(); ++k)
    groups += (k == 0 || all_ids[order[k]] != all_ids[order[k - 1]]) ? 1 : 0;
  SparseGradient<Scalar, ExecutionSpace> out;
  out.ids = Kokkos::View<std::int64_t *, memory_space>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::allreduce_sparse_rows::ids"), groups);
  out.rows = Kokkos::View<Scalar **, Kokkos::LayoutRight, memory_space>(
      "ttgnn::allreduce_sparse_rows::rows", groups, dim);
  auto h_ids = Kokkos::create_mirror_view(out.ids);
  auto h_rows = Kokkos::create_mirror_view(out.rows);
  Kokkos::deep_copy(h_rows, Scalar(0));
  std::int64_t g = -1;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::int64_t src = order[k];
    if (k == 0 || all_ids[src] != all_ids[order[k - 1]])
      h_ids(++g) = all_ids[src];
    for (std::int64_t j = 0; j < dim; ++j)
      h_rows(g, j) += all_rows[src * dim + j];
  }
  Kokkos::deep_copy(space, out.ids, h_ids);
  Kokkos::deep_copy(space, out.rows, h_rows);
  space.fence(); // the host mirrors end here
  return out;
}

} // namespace ttgnn

#endif
