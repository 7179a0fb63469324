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
/// while the target's weight stays within the cap. Eight rounds (all colours) make a sweep.
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
};

/// \brief One coarsening level: the finer level's nodes map to the nodes of `coarse`.
struct CoarseLevel {
  Kokkos::View<std::int64_t *, Kokkos::HostSpace> coarse_of; ///< finer node -> coarse node
  CoarseGraph coarse;
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
/// overfull parts are only left, never entered). \p part is updated in place. Unit weights.
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

/// \brief The same on a weighted coarse graph.
template <class ExecutionSpace, HostOnly<ExecutionSpace> host_only = 0>
std::int64_t refine_partition(ExecutionSpace const &space, CoarseGraph const &graph,
                              Kokkos::View<std::int64_t *, Kokkos::HostSpace> part,
                              std::int64_t num_parts, std::int64_t capacity, int sweeps,
                              std::uint64_t seed);

} // namespace ttgnn

#endif
