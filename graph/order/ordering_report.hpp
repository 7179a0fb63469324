#ifndef TTGNN_GRAPH_ORDERING_REPORT_HPP
#define TTGNN_GRAPH_ORDERING_REPORT_HPP
/// \file ordering_report.hpp
/// \brief How well an ordering serves a TT embedding: how many edges join nodes whose TT row
/// ids share digits (and so share TT core slices), per level, and how full the slots are.
///
/// With row factors (n_1, ..., n_K), the first l digits of row r are r / (n_{l+1}·...·n_K).
/// A *level-l slot* is one value of those l digits (n_1·...·n_l slots of n_{l+1}·...·n_K rows).

#include "core/host_only.hpp"
#include "graph/csr_graph.hpp"
#include "graph/order/ordering.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ttgnn {

/// \brief Fill of the level-l slots (number of nodes whose row lies in the slot).
struct SlotOccupancy {
  int level = 0;              ///< l >= 1: slots are prefixes of l digits
  std::int64_t num_slots = 0; ///< n_1·...·n_l
  std::int64_t capacity = 0;  ///< rows per slot, n_{l+1}·...·n_K
  std::int64_t min_fill = 0, max_fill = 0;
  double mean_fill = 0;         ///< N / num_slots
  std::int64_t empty_slots = 0; ///< slots without a node
};

/// \brief The report of one ordering (see to_json for the field names).
struct OrderingReport {
  std::string method;
  std::vector<std::int64_t> n_factors;
  std::int64_t num_nodes = 0;
  std::int64_t num_edges = 0; ///< undirected edges, self loops excluded
  std::int64_t num_rows = 0;  ///< product of n_factors
  /// shared_edges[l-1]: edges whose end rows share the first l digits, l = 1 .. K-1.
  std::vector<std::int64_t> shared_edges;
  /// shared_fraction[l-1] = shared_edges[l-1] / num_edges (1 when there are no edges).
  std::vector<double> shared_fraction;
  /// edge_cut[l-1]: edges whose rows agree on the first l-1 digits but not on digit l, i.e. the
  /// cut of the level-l split alone (within the level-(l-1) slots); not cumulative.
  std::vector<std::int64_t> edge_cut;
  /// cumulative_cut[l-1]: edges cut at level l or above, i.e. whose rows differ somewhere in
  /// the first l digits = num_edges - shared_edges[l-1] = edge_cut[0] + ... + edge_cut[l-1].
  std::vector<std::int64_t> cumulative_cut;
  std::vector<SlotOccupancy> occupancy;         ///< levels 1 .. K-1
  std::vector<std::int64_t> spilled;            ///< metis-hier: nodes spilled per level
  std::int64_t metis_parts = 0, metis_cut = -1; ///< flat METIS: K and its own edge cut
  bool sparsified = false;
  std::int64_t arcs_dropped = 0;
  std::int64_t lp_clusters = 0; ///< lp-hier: clusters found (0 for the other orders)
  int lp_sweeps = 0;            ///< lp-hier: label-propagation sweeps run
  std::string path;             ///< metis, metis-hier: "direct" or "multilevel" (NodeOrdering)
  int coarse_levels = 0;        ///< multilevel: coarsening levels
  double seconds = 0;           ///< time to compute the ordering

  /// One JSON object: method, n_factors, num_nodes, num_edges, num_rows, share_i1, share_i1i2
  /// (and share_i1i2i3 for 4 cores), shared_edges, edge_cut, cumulative_cut, occupancy [{level,
  /// slots, capacity, min, max, mean, empty}], spilled, metis_parts, metis_cut, sparsified,
  /// arcs_dropped, lp_clusters, lp_sweeps, path, coarse_levels, seconds.
  std::string to_json() const;
  /// A few lines of text for people.
  std::string to_text() const;
};

/// \brief Counts, for l = 1 .. K-1, the undirected edges whose end rows share l leading digits.
/// Parallel over nodes on \p space (a host space).
template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only = 0>
std::vector<std::int64_t>
count_shared_prefix_edges(ExecutionSpace const &space,
                          CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                          Kokkos::View<std::int64_t *, Kokkos::HostSpace> old_to_row,
                          std::vector<std::int64_t> const &n_factors);

/// \brief Occupancy of the level-l slots for rows \p old_to_row, l = 1 .. K-1.
std::vector<SlotOccupancy>
slot_occupancy(Kokkos::View<std::int64_t *, Kokkos::HostSpace> old_to_row,
               std::vector<std::int64_t> const &n_factors);

/// \brief The report of \p ordering on \p graph.
template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only = 0>
OrderingReport make_ordering_report(ExecutionSpace const &space,
                                    CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                                    NodeOrdering const &ordering);

} // namespace ttgnn

#endif
