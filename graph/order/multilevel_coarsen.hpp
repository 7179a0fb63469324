#ifndef TTGNN_GRAPH_MULTILEVEL_COARSEN_HPP
#define TTGNN_GRAPH_MULTILEVEL_COARSEN_HPP
/// \file multilevel_coarsen.hpp
/// \brief Parallel, deterministic graph coarsening and partition refinement by size-constrained
/// label propagation in synchronous rounds (the building blocks of multilevel_order.hpp).
///
/// One *round* of label propagation: every node of one colour (a seeded hash of (sweep, node)
/// modulo 8, so that two neighbours rarely move in the same round) proposes,
/// in parallel and reading only the labels of the previous round, the label that most of its arc
/// weight points to among the labels whose weight plus its own stays within the cap (ties: its
/// own label, then a seeded hash of (sweep, node, label)). The proposals are then accepted one
/// by one in a fixed order, by target label, larger gain first, then a seeded hash of the node,
/// while the target's weight stays within the cap. In refinement a node proposes its best
/// label with room or without, and the proposals that find no room are then exchanged in pairs
/// between the same two labels, in the same fixed order (refine_partition). Eight rounds (all
/// colours) make a sweep.
/// Nothing depends on thread timing: the result is the same on every execution space and at
/// every thread count, for a seed.

#include "core/host_only.hpp"
#include "core/runtime/progress.hpp"
#include "graph/csr_graph.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <vector>

namespace ttgnn {

/// \brief A coarse graph: node c stands for a cluster of finer nodes of total weight
/// node_weight(c); the arc (c, d) carries the weight of the finer arcs between the two
/// clusters. Symmetric, sorted, no self loops.
struct CoarseGraph {
  CsrGraph<std::int64_t, Kokkos::HostSpace> graph;
  Kokkos::View<std::int64_t *, Kokkos::HostSpace> edge_weight; ///< aligned with graph.entries
  Kokkos::View<std::int64_t *, Kokkos::HostSpace> node_weight; ///< one per coarse node
  std::int64_t num_nodes() const { return static_cast<std::int64_t>(node_weight.extent(0)); }
};

/// \brief One coarsening level: the finer level's nodes map to the nodes of `coarse`. A level
/// whose arcs exceed CoarsenOptions::max_stored_arcs is not stored (`coarse` holds its node
/// weights only): the next level and the refinement read it through its clusters of input
/// nodes, with the same weights.
struct CoarseLevel {
  Kokkos::View<std::int64_t *, Kokkos::HostSpace> coarse_of; ///< finer node -> coarse node
  CoarseGraph coarse;
  std::int64_t num_arcs = 0; ///< arcs of the coarse graph, stored or not
  bool stored = false;       ///< coarse.graph and coarse.edge_weight hold the coarse graph
  /// Frees the stored arcs (the clusters and node weights stay).
  void release_arcs() {
    coarse.graph = CsrGraph<std::int64_t, Kokkos::HostSpace>();
    coarse.edge_weight = Kokkos::View<std::int64_t *, Kokkos::HostSpace>();
    stored = false;
  }
  std::int64_t cap = 0; ///< largest cluster weight allowed at this level
  int sweeps = 0;       ///< label-propagation sweeps run
};

/// \brief Settings of coarsen_graph.
struct CoarsenOptions {
  std::uint64_t seed = 0;
  int sweeps = 4;             ///< maximal label-propagation sweeps per level
  std::int64_t first_cap = 1; ///< largest cluster (in fine nodes) of the first level
  std::int64_t cap = 1;       ///< largest cluster of the later levels (>= first_cap)
  /// Stop once the coarse graph has at most this many nodes and at most arc_limit arcs ...
  std::int64_t target_nodes = 1;
  std::int64_t arc_limit = 0; ///< 0: no arc condition
  int max_levels = 12;        ///< ... or after this many levels, or when a level shrinks < 10%
  /// A level with more arcs is not stored (CoarseLevel): it costs no memory per arc, and each
  /// sweep over it reads the input graph's arcs. The last level is always stored. -1: store all.
  std::int64_t max_stored_arcs = -1;
  /// Per level, progress lines with an ETA once it runs long, in steps: a label-propagation
  /// round is one, the contraction as many as three sweeps.
  ProgressLog progress;
};

/// \brief Coarsens a symmetric graph level by level (see the file comment) until the stop rule
/// of \p options holds. Levels that do not shrink the graph are not kept; the result may be
/// empty (the graph is already small enough).
template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only = 0>
std::vector<CoarseLevel> coarsen_graph(ExecutionSpace const &space,
                                       CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                                       CoarsenOptions const &options);

/// \brief Refines a partition of a graph by label propagation over the part ids: nodes move to
/// the neighbouring part with most arc weight while it has room (part weight <= \p capacity;
/// overfull parts are only left, never entered); proposals that find no room are exchanged in
/// pairs, the best mover from part p to q with the best from q to p and so on, each pair with
/// positive gains (parts without slack still improve). \p part is updated in place. Unit weights.
/// \p group > 0 keeps every node in its group of parts: part p only moves to parts q with
/// q / group == p / group (the slots of one core-1 slice). \p progress: lines with an ETA
/// ("ordering: slot refinement", in label-propagation rounds) once it runs long. Returns the
/// number of moves.
template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only = 0>
std::int64_t
refine_partition(ExecutionSpace const &space, CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                 Kokkos::View<std::int64_t *, Kokkos::HostSpace> part, std::int64_t num_parts,
                 std::int64_t capacity, int sweeps, std::uint64_t seed, std::int64_t group = 0,
                 ProgressLog const &progress = {});

/// \brief Projects \p part, a partition of the last level of \p levels (coarsen_graph of
/// \p graph), back to the nodes of \p graph, refining it on every level on the way as
/// refine_partition does (\p sweeps sweeps; a seed per level from \p seed), on the stored
/// coarse graph or through the clusters of a level that is not stored, and frees each level's
/// stored arcs once refined on (the clusters stay). Progress lines ("ordering: projected", in
/// levels); \p moves (optional) adds the nodes moved.
template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only = 0>
Kokkos::View<std::int64_t *, Kokkos::HostSpace>
project_partition(ExecutionSpace const &space, CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                  std::vector<CoarseLevel> &levels,
                  Kokkos::View<std::int64_t *, Kokkos::HostSpace> part, std::int64_t num_parts,
                  std::int64_t capacity, int sweeps, std::uint64_t seed,
                  ProgressLog const &progress = {}, std::int64_t *moves = nullptr);

} // namespace ttgnn

#endif
