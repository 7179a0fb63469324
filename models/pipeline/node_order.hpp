#ifndef TTGNN_MODELS_PIPELINE_NODE_ORDER_HPP
#define TTGNN_MODELS_PIPELINE_NODE_ORDER_HPP
/// \file node_order.hpp
/// \brief The node-order policy of a run: the order the TT rows follow (config.order: original,
/// random, METIS, hierarchical METIS aligned with the TT row factors, label propagation), the
/// locality order full-batch propagation runs in (config.locality, chosen automatically from
/// measured block locality), and the default TT factors of the order (default_column_factors).
/// The pipeline (pipeline.hpp) orders the nodes with order_nodes before it builds the input.

#include "graph/dataset.hpp"
#include "graph/order/ordering.hpp"
#include "graph/permutation.hpp"
#include "models/pipeline/run_config.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <vector>

namespace ttgnn {

/// The ordered dataset and the rows of the embedding table.
struct NodeOrder {
  /// The order computed; its old_to_row is released once node_rows holds the TT rows.
  NodeOrdering ordering;
  /// How `data` is relabelled from the dataset as loaded: the ordering's permutation, or the
  /// locality order's (empty maps: not at all). Results map back with relabel.old_to_new.
  Permutation relabel;
  Dataset<std::int32_t> data; ///< relabelled
  Kokkos::View<std::int64_t *, Kokkos::HostSpace>
      node_rows; ///< TT row of node i of `data` (empty: row i)
  /// Node i's id under the ordering alone (empty: i, no locality order): the dropout masks it
  /// draws and the full-table row it starts from.
  Kokkos::View<std::int64_t *, Kokkos::HostSpace> ordered_ids;
  OrderMethod locality = OrderMethod::original;     ///< the locality order applied (original: none)
  double locality_before = -1, locality_after = -1; ///< block_locality, when measured
  double locality_seconds = 0;
  TtShape shape; ///< TT inputs
  std::int64_t table_rows = 0;
};

/// \brief The default column factors of a TT table whose rows follow \p order, from \p d (the
/// width factored as evenly as possible, largest first): on an order whose first digit is a
/// cluster of the graph (metis-hier, lp-hier) the last core's factor moves onto the first, so
/// the last core (the finest level, whose digit unrelated nodes of every cluster share) carries
/// no columns: 64 -> 16,4,1. On the featureless graphs this gains 0.03-0.08 test accuracy on
/// Cora, CiteSeer, Chameleon and PubMed and costs at most 0.008 elsewhere (docs/RESULTS.md,
/// "Where the TT table's columns go"). Other orders keep \p d.
std::vector<std::int64_t> default_column_factors(std::vector<std::int64_t> d, OrderMethod order);

/// \brief Orders \p data (original ids) as \p config asks: for TT inputs the row factors come
/// first (config.embedding.tt_n, or balanced with tt_slack; metis-hier aligns to them) and
/// NodeOrder::shape is the table's shape (tt_rank must be resolved, > 0); then the locality order
/// of a full-batch run (choose_locality). Progress lines go to \p log.
NodeOrder order_nodes(Dataset<std::int32_t> const &data, RunConfig const &config,
                      RunLog const &log = {});

/// \brief As above for a dataset given up by the caller: NodeOrder::data takes its arrays over
/// and is relabelled in them (apply_permutation of graph/permute_in_place.hpp), so one graph
/// and a buffer of a quarter of its arcs are held instead of two graphs. \p data is left empty.
NodeOrder order_nodes(Dataset<std::int32_t> &&data, RunConfig const &config,
                      RunLog const &log = {});

/// \brief Bytes of the order's maps the pipeline keeps beside the trainer (none for the
/// original order): old_to_row, old_to_new, new_to_old (one allocation when they alias), the
/// TT rows, the ordered ids and \p rows.
std::int64_t order_map_bytes(NodeOrder const &order,
                             Kokkos::View<std::int64_t *, Kokkos::HostSpace> const &rows = {});

} // namespace ttgnn

#endif
