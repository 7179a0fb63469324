#ifndef TTGNN_GRAPH_SAMPLED_BLOCK_BOUNDS_HPP
#define TTGNN_GRAPH_SAMPLED_BLOCK_BOUNDS_HPP
/// \file sampled_block_bounds.hpp
/// \brief Upper bounds on the blocks NeighborSampler (graph/neighbor_sampler.hpp) draws for any
/// batch: what a memory plan for every step of mini-batch training needs before the first.

#include "graph/csr_graph.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace ttgnn {

/// \brief rows[l]: source nodes of block l at most (rows[L]: the seeds); edges[l]: its sampled
/// edges at most.
struct SampledBlockBounds {
  std::vector<std::int64_t> rows;
  std::vector<std::int64_t> edges;
};

/// \brief Bounds for batches of up to \p batch seeds of \p graph sampled with \p fanouts (input
/// layer first; <= 0: all neighbours). A destination node keeps at most min(fanout, d_max)
/// neighbours (d_max the largest degree) and its block's sources are the destinations followed
/// by the neighbours reached; no layer holds more than the graph's nodes, no block more than its
/// arcs.
template <class Ordinal>
SampledBlockBounds sampled_block_bounds(CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                                        std::int64_t batch,
                                        std::vector<std::int64_t> const &fanouts) {
  const std::int64_t n = graph.num_nodes();
  std::int64_t d_max = 0;
  for (std::int64_t v = 0; v < n; ++v)
    d_max = std::max(d_max, graph.row_map(v + 1) - graph.row_map(v));
  const auto L = static_cast<std::int64_t>(fanouts.size());
  SampledBlockBounds b;
  b.rows.assign(L + 1, 0);
  b.edges.assign(L, 0);
  b.rows[L] = std::min(batch, n);
  for (std::int64_t l = L - 1; l >= 0; --l) {
    const std::int64_t per_row = fanouts[l] > 0 ? std::min(fanouts[l], d_max) : d_max;
    b.edges[l] = std::min(b.rows[l + 1] * per_row, graph.num_arcs());
    b.rows[l] = std::min(b.rows[l + 1] + b.edges[l], n);
  }
  return b;
}

} // namespace ttgnn

#endif
