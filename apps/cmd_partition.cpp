// ttgnn partition: computes a node ordering for TT embeddings and reports how many edges share
// TT digits under it (graph/order/ordering_report.hpp); optionally saves the TT row of every node.
#include "apps/cli_options.hpp"
#include "apps/order_options.hpp"
#include "apps/commands.hpp"
#include "core/io/path_checks.hpp"
#include "core/error.hpp"
#include "core/io/json_writer.hpp"
#include "core/tt/tt_shape.hpp"
#include "graph/order/hierarchical_partition.hpp"
#include "graph/io/ogb_loader.hpp"
#include "graph/order/ordering.hpp"
#include "graph/order/ordering_report.hpp"
#include "graph/io/npy_writer.hpp"

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <iostream>
#include <string>

namespace ttgnn::cli {

int run_partition(int argc, char const *const *argv) {
  Options opts("partition");
  opts.value("dataset", "dataset folder in the OGB raw layout", "", true);
  opts.value("order", "original | random | metis | metis-hier | rcm | lp-hier", "metis-hier");
  opts.value("tt-shape", "TT row factors n1,n2,n3 (default: balanced, product >= 1.05 N)");
  opts.value("parts", "flat METIS: number of parts K (default n1)", "0");
  opts.value("seed", "seed of the random order, METIS and the sparsification", "0");
  const OrderingOptions defaults;
  declare_order_tuning(opts, defaults.metis.algorithm, defaults.multilevel_min_nodes,
                       defaults.lp_sweeps);
  opts.value("metis-max-degree",
             "metis and metis-hier, graphs with more arcs than METIS indexes: keep at most this "
             "many arcs per node (0 = coarsen instead: the multilevel order)",
             "0");
  opts.value("cache", "binary cache folder of the loader", "");
  opts.value("split",
             "also load this split (split/<name>/), so the cache entry is the one `ttgnn train` "
             "reads (train loads the split; default: none)",
             "");
  opts.value("save", "write the TT row of every node (int64, indexed by original id) as .npy");
  opts.flag("json", "print one JSON line instead of text");
  opts.epilog(
      "output, per level l of the TT row digits (i1, i2, ...):\n"
      "  edges sharing the first l digits   both ends' rows agree on digits 1..l (share_i1, ...)\n"
      "  cut N at this level                edges split by the level-l split alone: their rows\n"
      "                                     agree on digits 1..l-1 but not on digit l (JSON\n"
      "                                     edge_cut); not cumulative\n"
      "  (M cumulative)                     edges whose rows differ somewhere in digits 1..l =\n"
      "                                     edges - shared; the sum of the cuts of levels 1..l\n"
      "                                     (JSON cumulative_cut)\n");
  if (!opts.parse(argc, argv))
    return 0;

  OrderingOptions o;
  o.method = opts.parsed("order", parse_order_method);
  o.seed = static_cast<std::uint64_t>(opts.get_int("seed"));
  o.num_parts = opts.get_int("parts");
  if (o.num_parts < 0)
    throw ConfigError("--parts must be >= 0 (got " + std::to_string(o.num_parts) + ")");
  o.metis.algorithm = opts.parsed("metis-algorithm", parse_metis_algorithm);
  o.metis.max_arcs_per_node = opts.get_int("metis-max-degree");
  if (o.metis.max_arcs_per_node < 0)
    throw ConfigError("--metis-max-degree must be >= 0 (0: no sparsification), got " +
                      opts.get("metis-max-degree"));
  const std::int64_t sweeps = opts.get_int("lp-sweeps");
  if (sweeps < 1 || sweeps > 1000)
    throw ConfigError("--lp-sweeps must be in [1, 1000] (got " + std::to_string(sweeps) + ")");
  o.lp_sweeps = static_cast<int>(sweeps);
  o.multilevel_min_nodes = opts.get_int("multilevel-min-nodes");
  if (o.multilevel_min_nodes < -1)
    throw ConfigError("--multilevel-min-nodes must be >= -1 (got " +
                      opts.get("multilevel-min-nodes") + ")");
  if (opts.has("tt-shape"))
    o.n_factors = opts.get_int_list("tt-shape");

  if (o.method != OrderMethod::metis)
    opts.refuse({"parts"}, "sets the parts of flat METIS: add --order metis");
  refuse_order_tuning(opts, o.method);
  if (o.method != OrderMethod::metis && o.method != OrderMethod::metis_hier)
    opts.refuse({"metis-max-degree"}, "is an option of METIS: add --order metis or metis-hier");
  if (!o.n_factors.empty())
    check_row_factors(o.n_factors, 0, "--tt-shape", 1); // the count and range, before loading
  if (opts.get_int("seed") < 0)
    throw ConfigError("--seed must be >= 0, got " + opts.get("seed"));
  require_dataset_folder("--dataset", opts.get("dataset"));
  require_output_file("--save", opts.get("save"));
  require_distinct_paths({{"--dataset", opts.get("dataset")}, {"--cache", opts.get("cache")}},
                         {{"--save", opts.get("save")}});

  LoadOptions load;
  load.edges = LoadOptions::Edges::symmetrize; // orderings need the undirected graph
  load.features = false;
  load.cache_dir = opts.get("cache");
  load.split = opts.get("split");
  load.progress = [](std::string const &line) { std::cerr << "partition: " << line << "\n"; };
  o.progress = load.progress;
  std::cerr << "partition: loading " << opts.get("dataset") << "\n";
  LoadInfo info;
  const auto data = load_ogb<std::int32_t>(opts.get("dataset"), load, &info);
  if (o.n_factors.empty())
    o.n_factors = default_n_factors(data.num_nodes());
  else
    check_row_factors(o.n_factors, data.num_nodes(), "--tt-shape", 1);
  std::cerr << "partition: " << data.num_nodes() << " nodes, " << data.graph.num_arcs()
            << " arcs; computing order " << to_string(o.method) << "\n";
  Kokkos::DefaultHostExecutionSpace space;
  const NodeOrdering ordering = compute_ordering(space, data.graph, o);
  const OrderingReport report = make_ordering_report(space, data.graph, ordering);
  if (opts.has("save")) {
    auto const &rows = ordering.old_to_row;
    NpyWriter npy(opts.get("save"), "<i8", {static_cast<std::int64_t>(rows.extent(0))});
    npy.write(rows.data(), rows.extent(0));
    npy.commit();
  }

  if (opts.get_flag("json")) {
    std::string head = "{\"dataset\":" + JsonWriter::quote(opts.get("dataset")) +
                       ",\"load_seconds\":" + JsonWriter::number(info.seconds);
    if (opts.has("save"))
      head += ",\"saved\":" + JsonWriter::quote(opts.get("save"));
    std::cout << head << "," << report.to_json().substr(1) << "\n";
  } else {
    std::cout << "dataset " << opts.get("dataset") << " (loaded in " << info.seconds << " s)\n"
              << report.to_text();
    if (opts.has("save"))
      std::cout << "saved TT rows (old id -> row) to " << opts.get("save") << "\n";
  }
  return 0;
}

} // namespace ttgnn::cli
