#ifndef TTGNN_MODELS_BLOCK_OPERATOR_HPP
#define TTGNN_MODELS_BLOCK_OPERATOR_HPP
/// \file block_operator.hpp
/// \brief Aggregation operators of neighbour sampling: the mean operator of one sampled block
/// (what SAGEConv multiplies on a mini-batch) and the row-chunked sum operator of the whole
/// graph (what layer-wise full-neighbour inference multiplies).

#include "graph/csr_graph.hpp"
#include "core/linalg/csr_transpose.hpp"
#include "core/runtime/byte_ledger.hpp"
#include "core/runtime/grow_only.hpp"
#include "graph/neighbor_sampler.hpp"
#include "models/layers/graph_operator.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <utility>

namespace ttgnn {

/// \brief Grow-only buffers of block_mean_operator, for one block after another (one per
/// layer of a mini-batch): an operator built in them is valid until the next one.
template <class Scalar, class MemorySpace> struct BlockOperatorWorkspace {
  Kokkos::View<Scalar *, MemorySpace> values;
  CsrTransposeWorkspace<std::int32_t, Scalar, MemorySpace> transpose;

  /// Adds every buffer (its capacity) to \p ledger (memory reports).
  void add_workspace(ByteLedger &ledger) const {
    ledger.add(values).add(transpose.row_map).add(transpose.permutation).add(transpose.cursor);
    ledger.add(transpose.entries).add(transpose.values);
  }
};

/// \brief Mean over the sampled neighbours of each destination node of \p block: value of
/// (i, j) is 1 / (sampled neighbours of i); a row without neighbours aggregates to zero.
/// Rows are destination nodes, columns source nodes; the transpose (for backward) is built.
/// The block lives in the space's memory (a sampler of that space made it) and is shared, not
/// copied; the values and the transpose are kernels on \p space, nothing waits on the host.
/// With \p workspace the operator lives in its buffers, else in new ones.
template <class Scalar, class ExecutionSpace>
GraphOperator<Scalar, ExecutionSpace, std::int32_t> block_mean_operator(
    ExecutionSpace const &space, SampledBlock<typename ExecutionSpace::memory_space> const &block,
    BlockOperatorWorkspace<Scalar, typename ExecutionSpace::memory_space> *workspace = nullptr) {
  using memory_space = typename ExecutionSpace::memory_space;
  const std::int64_t m = block.num_dst, nnz = block.num_edges();
  BlockOperatorWorkspace<Scalar, memory_space> own;
  auto &ws = workspace ? *workspace : own;
  GraphOperator<Scalar, ExecutionSpace, std::int32_t> op;
  op.num_rows = m;
  op.num_cols = block.num_src;
  op.row_map = block.row_map;
  op.entries = block.entries;
  op.values = grow_entries(ws.values, "ttgnn::block_operator::values", nnz);
  auto row_map = op.row_map;
  auto values = op.values;
  Kokkos::parallel_for(
      "ttgnn::block_operator::mean_values", Kokkos::RangePolicy<ExecutionSpace>(space, 0, m),
      KOKKOS_LAMBDA(std::int64_t i) {
        const std::int64_t b = row_map(i), e = row_map(i + 1);
        for (std::int64_t k = b; k < e; ++k)
          values(k) = Scalar(1) / static_cast<Scalar>(e - b);
      });
  // the sampler's local ids are in [0, num_src) by construction
  auto t = transpose_csr(space, op.num_cols, op.row_map, op.entries, op.values, CsrEntries::trusted,
                         &ws.transpose);
  op.t_row_map = t.row_map;
  op.t_entries = t.entries;
  op.t_values = t.values;
  return op;
}

/// \brief The whole graph as an unweighted aggregation operator on the execution space, with
/// 1 / degree per row, for layer-wise inference: rows [a, b) of the neighbour mean of X are
/// inv_degree[a:b] * (sum over the rows' neighbours of X), computed by sum_rows.
template <class ExecutionSpace, class Ordinal = std::int32_t> struct FullGraphMean {
  using memory_space = typename ExecutionSpace::memory_space;
  std::int64_t num_nodes = 0;
  Kokkos::View<std::int64_t *, memory_space> row_map;
  Kokkos::View<Ordinal *, memory_space> entries;
  Kokkos::View<float *, memory_space> inv_degree; ///< 1 / deg(i), 0 for an isolated node
  /// The host graph's row offsets (shared, not a copy): host-side chunking reads them without
  /// copying row_map back from the device.
  Kokkos::View<const std::int64_t *, Kokkos::HostSpace> host_row_map;

  /// Uploads \p graph, or uses \p in_space, the same graph already in the space's memory
  /// (shares the host arrays when the space can read host memory).
  static FullGraphMean build(ExecutionSpace const &space,
                             CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                             CsrGraph<Ordinal, memory_space> const *in_space = nullptr) {
    FullGraphMean op;
    op.num_nodes = graph.num_nodes();
    op.host_row_map = graph.row_map;
    const CsrGraph<Ordinal, memory_space> g =
        in_space ? *in_space : graph_in_space<memory_space>(graph);
    op.row_map = g.row_map;
    op.entries = g.entries;
    op.inv_degree = Kokkos::View<float *, memory_space>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::full_graph_mean::inv_degree"),
        static_cast<std::size_t>(op.num_nodes));
    auto rm = op.row_map;
    auto inv = op.inv_degree;
    Kokkos::parallel_for(
        "ttgnn::full_graph_mean::inv_degree",
        Kokkos::RangePolicy<ExecutionSpace>(space, 0, op.num_nodes), KOKKOS_LAMBDA(std::int64_t i) {
          const std::int64_t d = rm(i + 1) - rm(i);
          inv(i) = d > 0 ? 1.0f / static_cast<float>(d) : 0.0f;
        });
    return op;
  }

  /// \brief y = mean over neighbours of x for the rows [first, first + y.extent(0)); x has
  /// num_nodes rows (all nodes), y is the chunk (LayoutRight, overwritten).
  template <class Scalar>
  void mean_rows(ExecutionSpace const &space, std::int64_t first,
                 Matrix<Scalar, ExecutionSpace> const &x,
                 Matrix<Scalar, ExecutionSpace> const &y) const {
    const std::int64_t rows = static_cast<std::int64_t>(y.extent(0));
    auto rm = Kokkos::subview(row_map, std::make_pair(first, first + rows + 1));
    Kokkos::View<Scalar *, memory_space> no_values;
    spmm(space, Scalar(1), rm, entries, no_values, x, Scalar(0), y);
    auto inv = Kokkos::subview(inv_degree, std::make_pair(first, first + rows));
    const std::int64_t c = static_cast<std::int64_t>(y.extent(1));
    Kokkos::parallel_for(
        "ttgnn::full_graph_mean::scale", Kokkos::RangePolicy<ExecutionSpace>(space, 0, rows * c),
        KOKKOS_LAMBDA(std::int64_t k) { y(k / c, k % c) *= static_cast<Scalar>(inv(k / c)); });
  }
};

} // namespace ttgnn

#endif
