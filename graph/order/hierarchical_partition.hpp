#ifndef TTGNN_GRAPH_HIERARCHICAL_PARTITION_HPP
#define TTGNN_GRAPH_HIERARCHICAL_PARTITION_HPP
/// \file hierarchical_partition.hpp
/// \brief METIS partition aligned to the row factors (n_1, ..., n_K) of a TT shape, so that the
/// TT digits of a node's row id are its partition path (METHOD.md §3).
///
/// Level 1 splits the graph into n_1 parts, level 2 splits each part (its induced subgraph)
/// into n_2 parts, ..., level K-1 into n_{K-1} parts. Node v gets the row id
///   row(v) = mixed radix (p_1, ..., p_{K-1}, position)   with radices (n_1, ..., n_K),
/// where p_l is its part at level l and `position` its rank, by original id, inside its last
/// part. Row ids range over [0, n_1·...·n_K) and are injective; ids with no node are holes.
///
/// Capacity and spill-over: a level-l part becomes a slot of capacity n_{l+1}·...·n_K rows.
/// METIS balances only approximately, so an overfull part moves its excess nodes to other
/// parts of the same parent that still have room. Which nodes: those with the fewest edges
/// inside the overfull part relative to their edges into a part with room (boundary nodes first).
/// Where to: the part with room with which the moving node shares most edges (the point of the
/// order is that edges share digits, so locality comes first), ties to the least loaded, then the
/// nearest index; a node with no edge into any part with room goes to the part with room that
/// shares most edges with the whole overfull part (ties: least loaded, nearest index); if the
/// overfull part has no such edge either, to the least-loaded part with room. Index adjacency
/// itself has no meaning for the TT cores (slices i and i+1 share nothing), so it only breaks ties.

#include "core/host_only.hpp"
#include "graph/csr_graph.hpp"
#include "graph/order/metis_partition.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <vector>

namespace ttgnn {

/// \brief Result of hierarchical_partition.
struct HierarchicalPartition {
  std::vector<std::int64_t> n_factors; ///< (n_1, ..., n_K)
  /// TT row id of each node (indexed by original id), injective, in [0, product of n_factors).
  Kokkos::View<std::int64_t *, Kokkos::HostSpace> old_to_row;
  /// spilled[l]: nodes moved out of an overfull part at level l+1 (l = 0 .. K-2).
  std::vector<std::int64_t> spilled;
  std::int64_t metis_calls = 0; ///< METIS runs (trivial splits excluded)
  bool sparsified = false;      ///< some METIS input was sparsified (MetisOptions)
  std::int64_t arcs_dropped = 0;
};

/// \brief Row factors (n_1, ..., n_K) as equal as possible, non-decreasing, with product >=
/// slack·N (default slack 1.05 leaves 5% free rows for spill-over, about 2.5% per level).
/// E.g. N = 169,343, K = 3 -> (56, 56, 57).
std::vector<std::int64_t> default_n_factors(std::int64_t num_nodes, int num_cores = 3,
                                            double slack = 1.05);

/// \brief The hierarchical partition of a symmetric graph for row factors \p n_factors
/// (2 to 4 factors, product >= N).
///
/// options.imbalance_permille caps the METIS imbalance; at each split the imbalance allowed is
/// the part of the remaining slack that this level may use (slack^(1/levels left)), at least
/// 1 per mille. options.seed seeds every METIS call. Deterministic for a seed.
/// \throws ConfigError bad factors or product < N; the errors of metis_partition.
template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only = 0>
HierarchicalPartition hierarchical_partition(ExecutionSpace const &space,
                                             CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                                             std::vector<std::int64_t> const &n_factors,
                                             MetisOptions const &options = {});

/// \brief Moves the excess nodes of overfull parts to parts with room (rule in the file
/// comment). \p part is updated in place; returns the number of nodes moved.
/// \param graph the (sub)graph the parts live in; \param capacity rows per part; requires
/// num_nodes <= num_parts·capacity.
template <class Ordinal>
std::int64_t spill_overfull_parts(CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                                  std::vector<std::int32_t> &part, std::int64_t num_parts,
                                  std::int64_t capacity);

} // namespace ttgnn

#endif
