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
/// is a pure function of (graph, fan-outs, seed, epoch, batch, seeds): identical on every
/// execution space (host or device) and thread count.
///
/// Fan-out order is DGL's: `fanouts[l]` is the fan-out of block l, input layer first; the
/// seeds' own neighbours are sampled with `fanouts.back()` (so "5,10,15" samples 15 neighbours
/// of each seed, 10 of each of those, 5 at the input layer). PyG's num_neighbors lists the
/// same numbers in the reverse order.

#include "core/runtime/byte_ledger.hpp"
#include "graph/csr_graph.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace ttgnn {

/// \brief One bipartite block: num_dst destination rows over num_src source columns (local
/// ids), destination i is source i for i < num_dst. Its arrays live in \p MemorySpace (the
/// sampler's).
template <class MemorySpace = Kokkos::HostSpace> struct SampledBlock {
  std::int64_t num_dst = 0; ///< output nodes of the layer
  std::int64_t num_src = 0; ///< input nodes of the layer (>= num_dst)
  /// num_dst + 1 offsets into entries.
  Kokkos::View<std::int64_t *, MemorySpace> row_map;
  /// Local source id (in [0, num_src)) of each sampled edge; each row sorted by global id
  /// order of the graph's CSR row and free of duplicates.
  Kokkos::View<std::int32_t *, MemorySpace> entries;
  /// Number of sampled edges.
  std::int64_t num_edges() const { return static_cast<std::int64_t>(entries.extent(0)); }
};

/// \brief The blocks of one mini-batch and the global ids of every layer's nodes, in
/// \p MemorySpace.
template <class MemorySpace = Kokkos::HostSpace> struct SampledBatch {
  using ids_type = Kokkos::View<std::int64_t *, MemorySpace>;
  /// nodes[l] = global ids of the source nodes of block l (l < L); nodes[L] = the seeds.
  /// nodes[l + 1] is a prefix of nodes[l].
  std::vector<ids_type> nodes;
  /// blocks[0] is the input layer's block, blocks[L - 1] produces the seeds' rows.
  std::vector<SampledBlock<MemorySpace>> blocks;

  int num_layers() const { return static_cast<int>(blocks.size()); }
  /// Global ids of the rows the input layer reads (features / embedding rows to look up).
  ids_type input_nodes() const { return nodes.front(); }
  /// The batch's seed nodes (the rows of the output).
  ids_type seeds() const { return nodes.back(); }
  /// Sum of the sampled edges over the blocks.
  std::int64_t num_edges() const {
    std::int64_t total = 0;
    for (auto const &b : blocks)
      total += b.num_edges();
    return total;
  }
  /// Bytes of the node lists and blocks (memory reports).
  std::int64_t bytes() const {
    ByteLedger ledger;
    ledger.add_all(nodes);
    for (auto const &b : blocks)
      ledger.add(b.row_map).add(b.entries);
    return ledger.bytes();
  }
};

/// \brief Grow-only buffers of NeighborSampler::sample, for one batch after another: a batch
/// sampled into them is valid until the next one (per layer: its nodes, offsets and local
/// ids; shared: the sampled neighbours and the numbering of new nodes).
template <class MemorySpace = Kokkos::HostSpace> struct SamplerWorkspace {
  std::vector<Kokkos::View<std::int64_t *, MemorySpace>> nodes, row_maps;
  std::vector<Kokkos::View<std::int32_t *, MemorySpace>> entries;
  Kokkos::View<std::int64_t *, MemorySpace> picked, new_rank;

  /// \brief Grows every buffer to at least the capacity of \p other's (exactly that, no
  /// slack): two workspaces used in turn then grow when one workspace would, not later.
  void reserve_like(SamplerWorkspace const &other) {
    match(nodes, other.nodes);
    match(row_maps, other.row_maps);
    match(entries, other.entries);
    match(picked, other.picked);
    match(new_rank, other.new_rank);
  }
  /// Bytes of the buffers (their capacity).
  std::int64_t bytes() const {
    ByteLedger ledger;
    ledger.add_all(nodes).add_all(row_maps).add_all(entries).add(picked).add(new_rank);
    return ledger.bytes();
  }

private:
  template <class View> static void match(View &v, View const &o) {
    if (v.extent(0) < o.extent(0))
      v = View(Kokkos::view_alloc(Kokkos::WithoutInitializing, o.label()), o.extent(0));
  }
  template <class View> static void match(std::vector<View> &v, std::vector<View> const &o) {
    v.resize(std::max(v.size(), o.size()));
    for (std::size_t i = 0; i < o.size(); ++i)
      match(v[i], o[i]);
  }
};

/// \brief Parses "5,10,15" into fan-outs: each a number of neighbours >= 1, or -1 for all of
/// them. ConfigError naming \p what (the option) on an empty list, a malformed number or a
/// fan-out below 1 other than -1.
std::vector<std::int64_t> parse_fanouts(std::string const &text,
                                        std::string const &what = "fan-outs");

/// \brief Uniform neighbour sampler over a CSR graph in \p MemorySpace (rows = the nodes whose
/// features flow into the row's node; for symmetric graphs, the neighbours).
/// \tparam Ordinal node id type of the graph.
/// \tparam MemorySpace where the graph, the scratch and the batches live; sample() runs on any
/// execution space that can access it (a device sampler samples on the device).
///
/// Holds one int32 scratch mark per node (4 bytes x N); sample() uses it, so one sampler must
/// not run two sample() calls at the same time.
template <class Ordinal = std::int32_t, class MemorySpace = Kokkos::HostSpace>
class NeighborSampler {
public:
  using memory_space = MemorySpace;
  using graph_type = CsrGraph<Ordinal, MemorySpace>;
  using batch_type = SampledBatch<MemorySpace>;
  using workspace_type = SamplerWorkspace<MemorySpace>;
  using seeds_type = Kokkos::View<const std::int64_t *, MemorySpace>;

  /// \param graph the graph (kept by reference semantics: its Views are shared)
  /// \param fanouts fan-out of each layer, input layer first (see the file comment)
  /// \param seed the user's seed
  /// Throws ConfigError for an empty fan-out list.
  NeighborSampler(graph_type graph, std::vector<std::int64_t> fanouts, std::uint64_t seed);

  std::vector<std::int64_t> const &fanouts() const { return fanouts_; }
  int num_layers() const { return static_cast<int>(fanouts_.size()); }
  std::uint64_t seed() const { return seed_; }
  graph_type const &graph() const { return graph_; }
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

  /// \brief Samples the blocks of one batch on \p space, an execution space that can access
  /// MemorySpace. Kernels run in the instance's order; the host waits on \p space (not on the
  /// others) only to read sizes (the sampled edges and new nodes of each layer), and the batch
  /// is complete on return.
  /// \param seeds distinct node ids in [0, N) (the batch's output nodes, in output order)
  /// \param epoch, batch name the random streams together with the seed
  /// \param workspace when given, the batch lives in its buffers (valid until its next use);
  ///   else in new ones
  /// Throws InputError for an out-of-range or repeated seed id, ConfigError when a layer would
  /// exceed 2^31 - 1 local ids.
  template <class ExecutionSpace>
  batch_type sample(ExecutionSpace const &space, seeds_type seeds, std::uint64_t epoch,
                    std::uint64_t batch, workspace_type *workspace = nullptr);

private:
  graph_type graph_;
  std::vector<std::int64_t> fanouts_;
  std::uint64_t seed_;
  /// Scratch: per node, the smallest position at which the node occurs in the current layer
  /// (INT32_MAX when untouched; reset after every layer).
  Kokkos::View<std::int32_t *, MemorySpace> mark_;
  std::int64_t peak_batch_bytes_ = 0;
};

} // namespace ttgnn

#endif
