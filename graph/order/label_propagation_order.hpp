#ifndef TTGNN_GRAPH_LABEL_PROPAGATION_ORDER_HPP
#define TTGNN_GRAPH_LABEL_PROPAGATION_ORDER_HPP
/// \file label_propagation_order.hpp
/// \brief A cheap hierarchical node order for graphs too large for METIS, aligned with the TT
/// row digits. With row factors (n_1, ..., n_K):
///   1. size-constrained label propagation groups the nodes into super clusters of at most
///      n_2·...·n_K nodes (one core-1 slice): every node in turn joins the label most of its
///      neighbours carry, among labels whose cluster still has room;
///   2. the same again inside every super cluster (only edges within it count) into clusters
///      of at most n_K nodes (one slot of the last digit);
///   3. super clusters are packed into the core-1 slices in order (one that does not fit the
///      room left in a slice starts the next slice while the spare rows allow it); inside, its
///      clusters follow each other, each laid out breadth-first over its own edges.
/// So neighbours tend to share i1 (same super cluster) and i2 (same cluster, contiguous rows).
///
/// Cost: O(N + E) per sweep (at most `sweeps` sweeps per level, stopping early when fewer
/// than 1% of the nodes move), and O(N) memory besides the graph: at most eight arrays of node
/// ids (labels and sizes of both levels, bucket starts, members, a scratch copy, the cluster
/// order), then the result and its inverse (int64) and a visited byte: about 49 bytes per node
/// at the peak for int32 ids.
/// Serial and deterministic for a seed (which only sets the visiting order and breaks ties).

#include "graph/csr_graph.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <vector>

namespace ttgnn {

/// \brief The result of label_propagation_order.
struct LabelPropagationOrder {
  /// TT row of original node v: injective, in [0, product of n_factors); holes where a
  /// cluster moved on to the next slice.
  Kokkos::View<std::int64_t *, Kokkos::HostSpace> old_to_row;
  /// Nodes in increasing row order (new -> old of the compact relabelling).
  Kokkos::View<std::int64_t *, Kokkos::HostSpace> new_to_old;
  std::int64_t clusters = 0;   ///< clusters found (isolated nodes count as their own)
  int sweeps = 0;              ///< label-propagation sweeps run (both levels)
  std::int64_t moved_last = 0; ///< nodes that changed cluster in the last sweep
  std::int64_t holes = 0;      ///< rows left empty by the packing
};

/// \brief Computes the order of a symmetric graph for TT row factors \p n_factors (at least
/// two, product >= N).
/// \param sweeps maximal number of label-propagation sweeps (>= 1)
/// \throws ConfigError for bad factors or sweeps
template <class Ordinal>
LabelPropagationOrder label_propagation_order(CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                                              std::vector<std::int64_t> const &n_factors,
                                              std::uint64_t seed, int sweeps = 10);

} // namespace ttgnn

#endif
