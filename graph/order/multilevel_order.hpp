#ifndef TTGNN_GRAPH_MULTILEVEL_ORDER_HPP
#define TTGNN_GRAPH_MULTILEVEL_ORDER_HPP
/// \file multilevel_order.hpp
/// \brief A multilevel hierarchical node order aligned to TT row factors (n_1, ..., n_K): the
/// order of hierarchical_partition.hpp for graphs of any size, parallel and deterministic.
///
///   1. coarsen (multilevel_coarsen.hpp): clusters of at most n_K nodes (one last-digit slot),
///      then clusters of clusters of weight at most max(n_K, n_2·...·n_K / 8), until the coarse
///      graph has at most max(2048, 32·n_1) nodes and no more arcs than METIS takes;
///   2. partition the coarse graph with METIS (node weights = cluster sizes, arc weights =
///      fine edges between clusters) into n_1 parts of n_2·...·n_K rows, project it back level
///      by level with label-propagation refinement at each level (moves into parts with room,
///      exchanges in pairs between full parts: refine_partition), and spill the excess of
///      overfull parts on the fine graph (spill_overfull_parts). With levels below (K >= 3)
///      whose slots will grow (step 3), a part fills only 85% of the slack (as an exponent of the
///      slack factor: level_capacity), so that the slots keep room to move nodes;
///   3. inside each core-1 slice (K >= 3): METIS splits the graph of the first-level clusters
///      in it into n_2 parts of n_3·...·n_K rows when the slice holds at most 8·n_2 clusters;
///      each part fills its own slot, cluster by cluster, and what does not fit fills the free
///      rows of the slice's other slots in order. A slice of more clusters (label propagation
///      leaves thousands of tiny ones on graphs without local clustering, and METIS would be
///      slow on them) grows its slots greedily instead, node by node, the slices in parallel:
///      slot after slot, from the first node left in the order of the nodes' second-level
///      clusters, add the node with the most edges into the slot until the slot holds an even
///      share of the nodes left. Then label propagation refines the (i_1, i_2) slots on the
///      fine graph, inside each slice, and in the slices that grew their slots FM passes
///      (slot_fm.hpp) follow. K = 2: the slice's clusters follow each other.
/// Profiling regions: ttgnn::order::multilevel around ttgnn::order::coarsen (step 1),
/// ttgnn::order::partition_coarse and ttgnn::order::project (step 2), ttgnn::order::layout and
/// ttgnn::order::slot_fm (step 3).
/// Row ids are injective, in [0, n_1·...·n_K) (holes allowed), like
/// HierarchicalPartition::old_to_row. METIS only ever sees coarse graphs (its 32-bit arc
/// limit does not bound the input), the fine-graph work is O(E) per sweep in parallel kernels,
/// and the result is the same at every thread count for a seed. Memory: a coarse level with
/// more than max_stored_arcs arcs (default an eighth of the input's) is read through its clusters
/// of input nodes instead of stored, with the same result; stored, a coarse arc takes 16 bytes.

#include "core/host_only.hpp"
#include "core/runtime/progress.hpp"
#include "graph/csr_graph.hpp"
#include "graph/order/metis_partition.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <vector>

namespace ttgnn {

/// \brief Settings of multilevel_order and multilevel_partition.
struct MultilevelOptions {
  /// Seeds, imbalance (upper bound of each METIS call's) and arc_limit (the coarse graph is
  /// coarsened until it fits) of the METIS calls; max_arcs_per_node is not used.
  MetisOptions metis;
  int coarsen_sweeps = 3; ///< label-propagation sweeps per coarsening level
  int refine_sweeps = 2;  ///< refinement sweeps per level on the way back
  int slot_fm_passes = 4; ///< FM passes per slice after the slot refinement (0: none)
  /// Coarsen until at most max(min_coarse_nodes, coarse_nodes_per_part · parts) nodes remain.
  std::int64_t coarse_nodes_per_part = 32;
  std::int64_t min_coarse_nodes = 2048;
  /// Coarse levels with more arcs are not stored but read through their clusters of input
  /// nodes (CoarsenOptions::max_stored_arcs; the same order either way); -1: an eighth of the
  /// input graph's arcs.
  std::int64_t max_stored_arcs = -1;
  ProgressLog progress; ///< lines on the coarsening and, with an ETA, the levels projected back
};

/// \brief What multilevel_partition / multilevel_order did.
struct MultilevelStats {
  int levels = 0;                        ///< coarsening levels
  std::vector<std::int64_t> level_nodes; ///< nodes of each coarse graph
  std::int64_t coarse_arcs = 0;          ///< arcs of the graph METIS partitioned
  std::int64_t refine_moves = 0;         ///< nodes moved by refinement (all levels)
  std::int64_t slot_fm_edges = 0;        ///< edges the slots' FM passes brought inside slots
  std::vector<std::int64_t> spilled;     ///< nodes spilled per level (as HierarchicalPartition)
  std::int64_t metis_calls = 0;
};

/// \brief Parts in [0, num_parts) of every node, each part holding at most \p capacity nodes
/// (requires num_parts·capacity >= N): steps 1 and 2 of the file comment (the flat METIS
/// order's fallback for graphs with more arcs than METIS takes). Deterministic for a seed.
template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only = 0>
std::vector<std::int32_t>
multilevel_partition(ExecutionSpace const &space, CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                     std::int64_t num_parts, std::int64_t capacity,
                     MultilevelOptions const &options, MultilevelStats *stats = nullptr);

/// \brief The multilevel hierarchical order of a symmetric graph for row factors
/// \p n_factors (2 to 4, product >= N): TT row of every node (injective, holes allowed).
/// \throws ConfigError bad factors; the errors of metis_partition.
template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only = 0>
Kokkos::View<std::int64_t *, Kokkos::HostSpace>
multilevel_order(ExecutionSpace const &space, CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                 std::vector<std::int64_t> const &n_factors, MultilevelOptions const &options,
                 MultilevelStats *stats = nullptr);

} // namespace ttgnn

#endif
