// ttgnn info: statistics of a dataset.
#include "apps/cli_options.hpp"
#include "apps/commands.hpp"
#include "core/json_writer.hpp"
#include "graph/ogb_summary.hpp"

#include <iostream>

namespace ttgnn::cli {

int run_info(int argc, char const *const *argv) {
  Options opts("info");
  opts.value("dataset", "dataset folder in the OGB raw layout", "", true);
  opts.flag("json", "print one JSON line instead of text");
  if (!opts.parse(argc, argv))
    return 0;
  const OgbSummary s = read_ogb_summary(opts.get("dataset"));
  JsonWriter json;
  json.field("dataset", opts.get("dataset"));
  json.field("num_nodes", static_cast<long long>(s.num_nodes));
  json.field("num_edges", static_cast<long long>(s.num_edges));
  json.field("num_classes", s.num_classes);
  json.field("num_labelled", static_cast<long long>(s.num_labelled));
  json.field("num_features", static_cast<long long>(s.num_features));
  json.field("class_counts", s.class_counts);
  if (opts.get_flag("json")) {
    std::cout << json.str() << "\n";
    return 0;
  }
  std::cout << "dataset        " << opts.get("dataset") << "\n"
            << "nodes          " << s.num_nodes << "\n"
            << "edges (stored) " << s.num_edges << "\n"
            << "classes        " << s.num_classes << " (" << s.num_labelled << " labelled)\n"
            << "features       " << s.num_features << "\n";
  return 0;
}

} // namespace ttgnn::cli
