#include "graph/io/edge_list_loader.hpp"

#include "core/error.hpp"
#include "graph/io/table_readers.hpp"

#include <chrono>
#include <filesystem>
#include <limits>

namespace ttgnn {

namespace fs = std::filesystem;

template <class Ordinal>
Dataset<Ordinal> load_edge_list(std::string const &edges_path, GenericOptions const &options,
                                LoadInfo *info) {
  const auto start = std::chrono::steady_clock::now();
  LoadInfo local;
  LoadInfo &li = info ? *info : local;
  li = LoadInfo{};
  li.symmetrized = !options.directed;
  auto finish = [&] {
    li.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::vector<std::string> sources{edges_path};
  for (auto const *p : {&options.labels_npy, &options.features_npy})
    if (!p->empty())
      sources.push_back(*p);
  for (auto const &p : sources)
    if (!fs::is_regular_file(p))
      throw InputError(p + ": missing required file");
  if (options.num_nodes < 0 || options.num_classes < 0)
    throw ConfigError("load_edge_list: num_nodes and num_classes must be >= 0");

  const std::string name = fs::path(edges_path).stem().string();
  Dataset<Ordinal> d;
  std::string key;
  if (!options.cache_dir.empty()) {
    std::string identity = "ttgnn edge list\n";
    for (auto const &p : sources)
      identity += "file " + fs::canonical(p).string() + "\n";
    identity +=
        "ordinal " + std::to_string(sizeof(Ordinal)) + "\nnum_nodes " +
        std::to_string(options.num_nodes) + "\nnum_classes " + std::to_string(options.num_classes) +
        "\ndirected " + std::to_string(options.directed) + "\nself_loops " +
        std::to_string(options.self_loops) + "\nlabels " + options.labels_npy + "\nfeatures " +
        options.features_npy + "\nfeature_layout " + to_string(options.feature_layout) + "\n";
    key = identity + file_fingerprint(sources);
    li.cache_path = graph_cache_path(options.cache_dir, identity, name);
    li.cache = read_graph_cache(li.cache_path, key, d, &li.cache_detail);
    if (li.cache == CacheStatus::hit) {
      finish();
      return d;
    }
  }

  // N: the option, else the rows of the .npy files (which must agree), else max id + 1.
  std::int64_t n = options.num_nodes;
  for (auto const *p : {&options.labels_npy, &options.features_npy}) {
    if (p->empty())
      continue;
    const auto shape = io::npy_shape(*p, "");
    const std::int64_t rows = shape.empty() ? 1 : shape[0];
    if (n == 0)
      n = rows;
    else if (rows != n)
      throw InputError(*p + ": " + std::to_string(rows) + " rows, expected " + std::to_string(n) +
                       (options.num_nodes > 0 ? " (num_nodes)" : " (as in the labels file)"));
  }
  io::EdgeList<Ordinal> edges =
      io::read_edges_text<Ordinal>(edges_path, n, io::EdgeTextFormat{true, true, true});
  if (n == 0) {
    n = edges.max_id + 1;
    // N from the largest id alone: ids that leave almost every node without an edge (and there
    // are no labels or features to give those nodes meaning) are not 0-based contiguous ids; do
    // not allocate a graph of that size on the strength of one stray number.
    const auto e = static_cast<std::int64_t>(edges.src.size());
    if (n > (std::int64_t(1) << 20) && n / 16 > 2 * e)
      throw InputError(edges_path + ": largest node id " + std::to_string(edges.max_id) +
                       " but only " + std::to_string(e) +
                       " edges: ids must be 0-based and contiguous (renumber them), or give the "
                       "number of nodes explicitly (num_nodes / --num-nodes)");
  }
  if (n > 0 && n - 1 > static_cast<std::int64_t>(std::numeric_limits<Ordinal>::max()))
    throw ConfigError(edges_path + ": " + std::to_string(n) + " nodes do not fit a " +
                      std::to_string(8 * sizeof(Ordinal)) + "-bit node id; load with int64");

  if (!options.labels_npy.empty()) {
    d.labels = io::read_labels_npy(options.labels_npy, "", n);
    d.num_classes = io::check_labels(d.labels, options.num_classes, options.labels_npy,
                                     "the num_classes option");
    li.num_classes_source = options.num_classes > 0 ? "option" : "max label + 1";
  } else {
    d.labels = Kokkos::View<std::int32_t *, Kokkos::HostSpace>("ttgnn::load::labels", n);
    Kokkos::deep_copy(d.labels, -1);
    d.num_classes = options.num_classes;
    li.num_classes_source = options.num_classes > 0 ? "option" : "none";
  }
  if (!options.features_npy.empty()) {
    io::FeatureTable t = io::choose_feature_layout(
        io::read_features_npy(options.features_npy, "", n), options.feature_layout);
    d.features = t.dense;
    d.sparse_features = t.sparse;
  }

  d.graph = io::edges_to_csr(edges, n, CsrBuildOptions{!options.directed, options.self_loops});
  d.name = name;
  if (!options.cache_dir.empty()) {
    try {
      write_graph_cache(li.cache_path, key, d);
      li.cache_written = true;
    } catch (InputError const &err) {
      li.cache_detail = err.what();
    }
  }
  finish();
  return d;
}

template Dataset<std::int32_t> load_edge_list<std::int32_t>(std::string const &,
                                                            GenericOptions const &, LoadInfo *);
template Dataset<std::int64_t> load_edge_list<std::int64_t>(std::string const &,
                                                            GenericOptions const &, LoadInfo *);

} // namespace ttgnn
