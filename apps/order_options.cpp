#include "apps/order_options.hpp"

#include <string>

namespace ttgnn::cli {

void declare_order_tuning(Options &opts, MetisAlgorithm algorithm,
                          std::int64_t multilevel_min_nodes, std::int64_t lp_sweeps) {
  opts.value("metis-algorithm", "metis and metis-hier: kway | rb (recursive bisection)",
             to_string(algorithm))
      .value("multilevel-min-nodes",
             "metis-hier: graphs of more nodes take the multilevel order (coarsening, one METIS "
             "call on the coarse graph); graphs with more arcs than METIS indexes always do "
             "(-1: only those, 0: always)",
             std::to_string(multilevel_min_nodes))
      .value("lp-sweeps", "lp-hier: maximal label-propagation sweeps per level",
             std::to_string(lp_sweeps));
}

void refuse_order_tuning(Options const &opts, OrderMethod order) {
  if (order != OrderMethod::metis && order != OrderMethod::metis_hier)
    opts.refuse({"metis-algorithm"}, "is an option of METIS: add --order metis or metis-hier");
  if (order != OrderMethod::metis_hier)
    opts.refuse({"multilevel-min-nodes"}, "is an option of metis-hier: add --order metis-hier");
  if (order != OrderMethod::lp_hier)
    opts.refuse({"lp-sweeps"}, "is an option of label propagation: add --order lp-hier");
}

} // namespace ttgnn::cli
