// ttgnn info: load a dataset (OGB raw layout, or a generic edge list) and print its statistics.
#include "apps/cli_options.hpp"
#include "apps/commands.hpp"
#include "core/error.hpp"
#include "core/io/json_writer.hpp"
#include "graph/io/edge_list_loader.hpp"
#include "graph/graph_stats.hpp"
#include "graph/io/ogb_loader.hpp"

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <filesystem>
#include <iostream>

namespace ttgnn::cli {

namespace {

/// How the feature values are held: "sparse", "dense", "not loaded" or "none".
std::string feature_layout(Dataset<std::int64_t> const &d) {
  if (d.num_features() == 0)
    return "none";
  if (!d.has_feature_values())
    return "not loaded";
  return d.sparse_features.has_values() ? "sparse" : "dense";
}

void print_text(std::string const &path, Dataset<std::int64_t> const &d, GraphStats const &s,
                LoadInfo const &li) {
  std::printf("dataset          %s (%s)\n", d.name.c_str(), path.c_str());
  std::printf("nodes            %lld\n", static_cast<long long>(s.num_nodes));
  std::printf("edges            %lld undirected, no self loops (%lld arcs stored: %s%s)\n",
              static_cast<long long>(s.num_edges), static_cast<long long>(s.num_arcs),
              s.symmetric ? "symmetric" : "directed",
              s.num_self_loops ? (", " + std::to_string(s.num_self_loops) + " self loops").c_str()
                               : "");
  std::printf("degree           min %lld, median %g, mean %.4f, max %lld\n",
              static_cast<long long>(s.degree.min), s.degree.median, s.degree.mean,
              static_cast<long long>(s.degree.max));
  std::printf("isolated nodes   %lld\n", static_cast<long long>(s.num_isolated));
  std::printf("components       %lld (largest %lld nodes)\n",
              static_cast<long long>(s.num_components),
              static_cast<long long>(s.largest_component));
  if (s.multilabel) {
    std::printf(
        "tasks            %d binary (%s), %lld labelled; positive rate per task:", s.num_classes,
        li.num_classes_source.c_str(), static_cast<long long>(s.num_labelled));
    for (double r : s.task_positive_rate)
      std::printf(" %.3f", r);
  } else {
    std::printf("classes          %d (%s), %lld labelled:", s.num_classes,
                li.num_classes_source.c_str(), static_cast<long long>(s.num_labelled));
    for (auto c : s.class_counts)
      std::printf(" %lld", static_cast<long long>(c));
  }
  std::printf("\nfeatures         %lld (%s", static_cast<long long>(s.num_features),
              feature_layout(d).c_str());
  if (d.sparse_features.has_values() && d.num_nodes() > 0)
    std::printf(" rows, %lld values stored, %.2f%%",
                static_cast<long long>(d.sparse_features.nnz()),
                100.0 * static_cast<double>(d.sparse_features.nnz()) /
                    (static_cast<double>(d.num_nodes()) * static_cast<double>(s.num_features)));
  std::printf(")\n");
  if (s.multilabel)
    std::printf("homophily        label-set Jaccard %.4f (mean over %lld labelled edges)\n",
                s.label_jaccard_homophily, static_cast<long long>(s.num_labelled_edges));
  else
    std::printf(
        "homophily        edge %.4f, node %.4f, class-insensitive %.4f (%lld labelled edges)\n",
        s.edge_homophily, s.node_homophily, s.class_insensitive_homophily,
        static_cast<long long>(s.num_labelled_edges));
  if (!d.split_name.empty())
    std::printf("split            %s: train %zu, valid %zu, test %zu\n", d.split_name.c_str(),
                d.train.extent(0), d.valid.extent(0), d.test.extent(0));
  std::printf("load             %.3f s (cache %s)\n", li.seconds, to_string(li.cache));
}

} // namespace

int run_info(int argc, char const *const *argv) {
  Options opts("info");
  opts.value("dataset", "dataset folder in the OGB raw layout, or an edge-list file", "", true);
  opts.value("split", "split to load (a folder under split/)", "");
  opts.flag("json", "print one JSON line instead of text");
  opts.flag("directed", "keep the arcs as stored (default: from meta.csv, else symmetrise)");
  opts.flag("symmetrize", "store both directions of every edge, whatever meta.csv says");
  opts.flag("features", "read and check every feature value (default: only the dimension)");
  opts.value("feature-layout",
             "with --features: auto (sparse rows for bag-of-words), dense or sparse", "auto");
  opts.value("cache", "binary cache folder (\"\" = no cache)", "");
  opts.value("labels", "edge-list datasets: labels .npy", "");
  opts.value("features-npy", "edge-list datasets: features .npy", "");
  opts.value("num-nodes", "edge-list datasets: number of nodes (0 = from the files)", "0");
  if (!opts.parse(argc, argv))
    return 0;
  if (opts.get_flag("directed") && opts.get_flag("symmetrize"))
    throw ConfigError("info: --directed and --symmetrize exclude each other");
  const std::string path = opts.get("dataset");
  const FeatureLayout layout = opts.parsed("feature-layout", parse_feature_layout);
  LoadInfo li;
  Dataset<std::int64_t> d;
  if (!std::filesystem::exists(path))
    throw InputError("--dataset " + path +
                     ": dataset folder not found (no such folder or edge-list file)");
  if (std::filesystem::is_regular_file(path)) {
    GenericOptions g;
    g.num_nodes = opts.get_int("num-nodes");
    g.labels_npy = opts.get("labels");
    g.features_npy = opts.get("features-npy");
    g.directed = opts.get_flag("directed");
    g.cache_dir = opts.get("cache");
    g.feature_layout = layout;
    if (!opts.get("split").empty())
      throw ConfigError("info: --split applies to OGB folders only");
    d = load_edge_list<std::int64_t>(path, g, &li);
  } else {
    opts.refuse({"num-nodes", "labels", "features-npy"},
                "applies to edge-list files, and --dataset " + path + " is a folder");
    LoadOptions o;
    o.split = opts.get("split");
    o.edges = opts.get_flag("directed")     ? LoadOptions::Edges::directed
              : opts.get_flag("symmetrize") ? LoadOptions::Edges::symmetrize
                                            : LoadOptions::Edges::from_meta;
    o.features = opts.get_flag("features");
    o.feature_layout = layout;
    o.cache_dir = opts.get("cache");
    d = load_ogb<std::int64_t>(path, o, &li);
  }
  // a rejected (stale, truncated, corrupt) cache is never used; say so, and whether it was
  // rebuilt, or why a new cache could not be written
  if (!li.cache_detail.empty() && (li.cache != CacheStatus::missing || !li.cache_written))
    std::fprintf(stderr, "ttgnn info: warning: cache %s, %s: %s\n", to_string(li.cache),
                 li.cache_written ? "rebuilt from the sources" : "not written",
                 li.cache_detail.c_str());
  GraphStatsOptions so;
  so.known_symmetric = li.symmetrized; // symmetrised on load (tests/graph/test_csr_build.cpp)
  const GraphStats s = compute_graph_stats(Kokkos::DefaultHostExecutionSpace(), d, so);
  if (!opts.get_flag("json")) {
    print_text(path, d, s, li);
    return 0;
  }
  JsonWriter json;
  json.field("dataset", path);
  json.field("name", d.name);
  add_to_json(json, s);
  if (!d.split_name.empty()) {
    json.field("split", d.split_name);
    json.field("num_train", static_cast<long long>(d.train.extent(0)));
    json.field("num_valid", static_cast<long long>(d.valid.extent(0)));
    json.field("num_test", static_cast<long long>(d.test.extent(0)));
  }
  json.field("feature_layout", feature_layout(d));
  if (d.sparse_features.has_values())
    json.field("feature_nnz", static_cast<long long>(d.sparse_features.nnz()));
  json.field("num_classes_source", li.num_classes_source);
  json.field("cache", to_string(li.cache));
  json.field("load_seconds", li.seconds);
  std::cout << json.str() << "\n";
  return 0;
}

} // namespace ttgnn::cli
