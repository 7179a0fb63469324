#ifndef TTGNN_GRAPH_NEIGHBOR_SAMPLER_HPP
#define TTGNN_GRAPH_NEIGHBOR_SAMPLER_HPP
/// \file neighbor_sampler.hpp
/// \brief Layer-wise uniform neighbour sampling for mini-batch GNN training (GraphSAGE), the
/// sampler behind DGL's MultiLayerNeighborSampler / PyG's NeighborLoader.
///
/// For a batch of seed nodes and L fan-outs it produces L bipartite *blocks* (DGL's
/// message-flow graphs). Block l maps its source nodes (the input rows of layer l) to its
/// destination nodes (the output rows of layer l); the destination nodes of block l are the
/// source nodes of block l + 1 and the destination nodes of the last block are the seeds.
/// Local ids follow the DGL/PyG convention the layers expect (models/layers/sage_conv.hpp): the
/// destination nodes are the *first* num_dst source nodes, in the same order, followed by the
/// newly reached nodes in order of first appearance (row by row, neighbours in CSR order).
///
/// Sampling is without replacement: destination node v gets min(deg(v), fanout) distinct
/// neighbours, all of them when deg(v) <= fanout (fanout <= 0 means all neighbours: the full
/// neighbourhood block of layer-wise inference). The sampled neighbours of v are drawn with
/// Floyd's algorithm (uniform over the k-subsets) from a counter-based stream named by
/// (seed, epoch, batch, layer, v) (core/counter_rng.hpp) and stored in CSR order. Relabelling
/// is parallel and order-independent (atomic-min of first positions, then a scan), so a batch
/// is a pure function of (graph, fan-outs, seed, epoch, batch, seeds): identical on every host
/// execution space and thread count.
///
/// Fan-out order is DGL's: `fanouts[l]` is the fan-out of block l, input layer first; the
/// seeds' own neighbours are sampled with `fanouts.back()` (so "5,10,15" samples 15 neighbours
/// of each seed, 10 of each of those, 5 at the input layer). PyG's num_neighbors lists the
/// same numbers in the reverse order.

#include "core/runtime/byte_ledger.hpp"
#include "graph/csr_graph.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ttgnn {

/// \brief One bipartite block: num_dst destination rows over num_src source columns (local
/// ids), destination i is source i for i < num_dst.
struct SampledBlock {
  std::int64_t num_dst = 0; ///< output nodes of the layer
  std::int64_t num_src = 0; ///< input nodes of the layer (>= num_dst)
  /// num_dst + 1 offsets into entries.
  Kokkos::View<std::int64_t *, Kokkos::HostSpace> row_map;
  /// Local source id (in [0, num_src)) of each sampled edge; each row sorted by global id
  /// order of the graph's CSR row and free of duplicates.
  Kokkos::View<std::int32_t *, Kokkos::HostSpace> entries;
  /// Number of sampled edges.
  std::int64_t num_edges() const { return static_cast<std::int64_t>(entries.extent(0)); }
};

/// \brief The blocks of one mini-batch and the global ids of every layer's nodes.
struct SampledBatch {
  /// nodes[l] = global ids of the source nodes of block l (l < L); nodes[L] = the seeds.
  /// nodes[l + 1] is a prefix of nodes[l].
  std::vector<Kokkos::View<std::int64_t *, Kokkos::HostSpace>> nodes;
  /// blocks[0] is the input layer's block, blocks[L - 1] produces the seeds' rows.
  std::vector<SampledBlock> blocks;

  int num_layers() const { return static_cast<int>(blocks.size()); }
  /// Global ids of the rows the input layer reads (features / embedding rows to look up).
  Kokkos::View<std::int64_t *, Kokkos::HostSpace> input_nodes() const { return nodes.front(); }
  /// The batch's seed nodes (the rows of the output).
  Kokkos::View<std::int64_t *, Kokkos::HostSpace> seeds() const { return nodes.back(); }
  /// Sum of the sampled edges over the blocks.
  std::int64_t num_edges() const;
  /// Bytes of the node lists and blocks (memory reports).
  std::int64_t bytes() const;
};

/// \brief Grow-only buffers of NeighborSampler::sample, for one batch after another: a batch
/// sampled into them is valid until the next one (per layer: its nodes, offsets and local
/// ids; shared: the sampled neighbours and the numbering of new nodes).
struct SamplerWorkspace {
  std::vector<Kokkos::View<std::int64_t *, Kokkos::HostSpace>> nodes, row_maps;
  std::vector<Kokkos::View<std::int32_t *, Kokkos::HostSpace>> entries;
  Kokkos::View<std::int64_t *, Kokkos::HostSpace> picked, new_rank;
};

/// \brief Parses "5,10,15" into fan-outs: each a number of neighbours >= 1, or -1 for all of
/// them. ConfigError naming \p what (the option) on an empty list, a malformed number or a
/// fan-out below 1 other than -1.
std::vector<std::int64_t> parse_fanouts(std::string const &text,
                                        std::string const &what = "fan-outs");

/// \brief Uniform neighbour sampler over a host CSR graph (rows = the nodes whose features
/// flow into the row's node; for symmetric graphs, the neighbours).
/// \tparam Ordinal node id type of the graph.
///
/// Holds one int32 scratch mark per node (4 bytes x N); sample() uses it, so one sampler must
/// not run two sample() calls at the same time.
template <class Ordinal = std::int32_t> class NeighborSampler {
public:
  /// \param graph the graph (kept by reference semantics: its Views are shared)
  /// \param fanouts fan-out of each layer, input layer first (see the file comment)
  /// \param seed the user's seed
  /// Throws ConfigError for an empty fan-out list.
  NeighborSampler(CsrGraph<Ordinal, Kokkos::HostSpace> graph, std::vector<std::int64_t> fanouts,
                  std::uint64_t seed);

  std::vector<std::int64_t> const &fanouts() const { return fanouts_; }
  int num_layers() const { return static_cast<int>(fanouts_.size()); }
  std::uint64_t seed() const { return seed_; }
  CsrGraph<Ordinal, Kokkos::HostSpace> const &graph() const { return graph_; }
  /// \brief A sampler over the same graph and the same per-node scratch, with other fan-outs:
  /// an evaluation sampler next to the training one holds the 4 x N bytes once. The two must
  /// not sample at the same time. Throws ConfigError for an empty fan-out list.
  NeighborSampler with_fanouts(std::vector<std::int64_t> fanouts) const;
  /// Whether \p other uses this sampler's per-node scratch (made by with_fanouts).
  bool shares_scratch(NeighborSampler const &other) const { return other.mark_ == mark_; }
  /// Bytes of the per-node scratch (4 x N).
  std::int64_t scratch_bytes() const { return view_bytes(mark_); }
  /// Largest SampledBatch::bytes() of the batches sampled so far.
  std::int64_t peak_batch_bytes() const { return peak_batch_bytes_; }

  /// \brief Samples the blocks of one batch on \p space (a host execution space).
  /// \param seeds distinct node ids in [0, N) (the batch's output nodes, in output order)
  /// \param epoch, batch name the random streams together with the seed
  /// \param workspace when given, the batch lives in its buffers (valid until its next use);
  ///   else in new ones
  /// Throws InputError for an out-of-range or repeated seed id, ConfigError when a layer would
  /// exceed 2^31 - 1 local ids.
  template <class ExecutionSpace>
  SampledBatch
  sample(ExecutionSpace const &space, Kokkos::View<const std::int64_t *, Kokkos::HostSpace> seeds,
         std::uint64_t epoch, std::uint64_t batch, SamplerWorkspace *workspace = nullptr);

private:
  CsrGraph<Ordinal, Kokkos::HostSpace> graph_;
  std::vector<std::int64_t> fanouts_;
  std::uint64_t seed_;
  /// Scratch: per node, the smallest position at which the node occurs in the current layer
  /// (INT32_MAX when untouched; reset after every layer).
  Kokkos::View<std::int32_t *, Kokkos::HostSpace> mark_;
  std::int64_t peak_batch_bytes_ = 0;
};

} // namespace ttgnn

#endif
