#ifndef TTGNN_APPS_ORDER_OPTIONS_HPP
#define TTGNN_APPS_ORDER_OPTIONS_HPP
/// \file order_options.hpp
/// \brief The ordering's tuning options, the same on every command that orders nodes
/// (partition, train, ogb): --metis-algorithm, --multilevel-min-nodes, --lp-sweeps
/// (graph/order/ordering.hpp, OrderingOptions). `ttgnn partition` also takes --metis-max-degree:
/// in a run, a graph with more arcs than METIS indexes takes the multilevel order instead.

#include "apps/cli_options.hpp"
#include "graph/order/metis_partition.hpp"
#include "graph/order/order_method.hpp"

#include <cstdint>

namespace ttgnn::cli {

/// Declares the three options with these defaults.
void declare_order_tuning(Options &opts, MetisAlgorithm algorithm,
                          std::int64_t multilevel_min_nodes, std::int64_t lp_sweeps);

/// Refuses those that \p order does not use, with the reason.
void refuse_order_tuning(Options const &opts, OrderMethod order);

} // namespace ttgnn::cli

#endif
