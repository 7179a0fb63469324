#ifndef TTGNN_GRAPH_ORDERING_HPP
#define TTGNN_GRAPH_ORDERING_HPP
/// \file ordering.hpp
/// \brief Node orderings for TT embeddings (METHOD.md §3): original, random, flat METIS,
/// hierarchical METIS, reverse Cuthill-McKee and label-propagation clusters packed into TT
/// slices (for graphs too large for METIS), behind one interface.
///
/// An ordering gives every original node a *TT row id* (`old_to_row`): the row of the TT
/// embedding table that holds its embedding. Row ids are injective but may leave holes: the
/// hierarchical order places node v at the mixed-radix id (part_1, part_2, position) in
/// [0, n_1·n_2·n_3), and slots that are not full leave unused rows. The dataset itself is never
/// padded: `permutation` is the compact relabelling that sorts nodes by row id (new id i = the
/// i-th smallest row id), so new ids stay in [0, N) and rows keep their order.
///
/// Two equally valid ways to use it:
///   - keep the dataset in original ids and look up embeddings at `old_to_row(v)`;
///   - apply_permutation(space, data, ordering.permutation) (graph, labels, features and splits
///     move together, for locality of the node arrays) and look up node i at `new_to_row()(i)`.
/// Results computed on the permuted dataset map back with unpermute_rows(.., permutation).
/// For every order but metis-hier and lp-hier, old_to_row == permutation.old_to_new (no holes).

#include "core/host_only.hpp"
#include "core/runtime/progress.hpp"
#include "graph/csr_graph.hpp"
#include "graph/order/metis_partition.hpp"
#include "graph/order/order_method.hpp"
#include "graph/permutation.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ttgnn {

/// \brief What to compute.
struct OrderingOptions {
  OrderMethod method = OrderMethod::original;
  std::uint64_t seed = 0; ///< random order, METIS seeds, sparsification
  /// TT row factors (n_1, ..., n_K): required for metis-hier, and the default K of flat METIS.
  /// Empty: default_n_factors(N, 3).
  std::vector<std::int64_t> n_factors;
  /// Flat METIS parts; 0 = n_1 (one part per core-1 slice, not aligned to slice boundaries).
  std::int64_t num_parts = 0;
  MetisOptions metis; ///< algorithm, imbalance, sparsification (its seed is replaced by `seed`)
  int lp_sweeps = 10; ///< lp-hier: maximal label-propagation sweeps per level
  /// metis-hier: graphs of more nodes than this take the multilevel order
  /// (multilevel_order.hpp: parallel coarsening, one METIS call on the coarse graph, n_1 small
  /// ones inside the slices) instead of 1 + n_1 METIS calls on the graph itself; so does every
  /// graph with more arcs than METIS takes (metis.arc_limit, idx_t), whatever this is. Flat
  /// metis falls back to multilevel_partition on such graphs unless metis.max_arcs_per_node
  /// asks for a sparsification. Negative: the size never decides.
  std::int64_t multilevel_min_nodes = 200000;
  ProgressLog progress; ///< progress lines of the multilevel order (multilevel_order.hpp)
  /// original order: true stores the identity maps (old_to_row, permutation: three N-entry
  /// int64 arrays); false stores none and sets NodeOrdering::implicit_identity (what
  /// ttgnn train does: at 10^8 nodes each array is 0.8 GB).
  bool materialize_identity = true;
};

/// \brief An ordering: the TT row of every node, and the compact relabelling.
struct NodeOrdering {
  OrderMethod method = OrderMethod::original;
  std::vector<std::int64_t> n_factors; ///< TT row factors the rows refer to
  std::int64_t num_rows = 0;           ///< row ids lie in [0, num_rows) (product of n_factors)
  std::int64_t num_nodes = 0;          ///< N
  /// The identity order, not stored (OrderingOptions::materialize_identity false): old_to_row,
  /// permutation and new_to_row() are empty Views and node v is at row v, new id v. Every
  /// consumer of an ordering in ttgnn reads an empty map as the identity.
  bool implicit_identity = false;
  /// TT row id of original node v (injective; holes only for metis-hier and lp-hier).
  Kokkos::View<std::int64_t *, Kokkos::HostSpace> old_to_row;
  /// Compact relabelling: new ids ordered by row id. old_to_new(v) < old_to_new(w) iff
  /// old_to_row(v) < old_to_row(w).
  Permutation permutation;
  double seconds = 0;                ///< time to compute the ordering
  std::int64_t metis_parts = 0;      ///< flat METIS: parts used
  std::int64_t metis_cut = -1;       ///< flat METIS: its edge cut (-1 when not METIS)
  std::vector<std::int64_t> spilled; ///< metis-hier: nodes spilled per level
  bool sparsified = false;           ///< some METIS input was sparsified
  std::int64_t arcs_dropped = 0;
  std::int64_t lp_clusters = 0; ///< lp-hier: clusters found
  int lp_sweeps = 0;            ///< lp-hier: sweeps run
  /// metis and metis-hier: "direct" (METIS on the graph itself) or "multilevel" (METIS on a
  /// coarsened graph, multilevel_order.hpp); empty for the other orders.
  std::string path;
  int coarse_levels = 0; ///< multilevel: coarsening levels

  /// Row id of new node i: old_to_row(permutation.new_to_old(i)), strictly increasing; empty
  /// under implicit_identity.
  Kokkos::View<std::int64_t *, Kokkos::HostSpace> new_to_row() const;
  /// Row id of original node v (v itself under implicit_identity).
  std::int64_t row_of(std::int64_t v) const { return implicit_identity ? v : old_to_row(v); }
  /// One more than the largest row id in use (N under implicit_identity).
  std::int64_t rows_used() const;
};

/// \brief Computes an ordering of a symmetric graph; deterministic for a seed.
/// \throws ConfigError product of n_factors < N, bad parts; the errors of metis_partition.
template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only = 0>
NodeOrdering compute_ordering(ExecutionSpace const &space,
                              CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                              OrderingOptions const &options);

/// \brief A seeded uniform random permutation of [0, n) as a new -> old array (Fisher-Yates
/// with splitmix64, the same on every platform).
Kokkos::View<std::int64_t *, Kokkos::HostSpace> random_new_to_old(std::int64_t n,
                                                                  std::uint64_t seed);

} // namespace ttgnn

#endif
