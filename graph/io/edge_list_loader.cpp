#include "graph/io/edge_list_loader.hpp"

#include "core/runtime/memory_check.hpp"
#include "core/error.hpp"
#include "graph/io/table_readers.hpp"

#include <chrono>
#include <filesystem>
#include <limits>

namespace ttgnn {

namespace fs = std::filesystem;

namespace {

/// N from the largest id alone is only doubted past this many nodes: a smaller graph is cheap
/// to allocate whatever its ids.
constexpr std::int64_t sparse_ids_min_nodes = std::int64_t(1) << 20;
/// ... and only when there are more than this many nodes per arc (2 arcs per edge): then
/// almost every node would have no edge at all.
constexpr std::int64_t sparse_ids_nodes_per_arc = 16;

/// The files of the dataset (edges, then labels and features when given), each checked to
/// exist; the options checked too.
std::vector<std::string> source_files(std::string const &edges_path,
                                      GenericOptions const &options) {
  std::vector<std::string> sources{edges_path};
  for (auto const *p : {&options.labels_npy, &options.features_npy})
    if (!p->empty())
      sources.push_back(*p);
  for (auto const &p : sources)
    if (!fs::is_regular_file(p))
      throw InputError(p + ": missing required file");
  if (options.num_nodes < 0 || options.num_classes < 0)
    throw ConfigError("load_edge_list: num_nodes and num_classes must be >= 0");
  // an int64 row offset and an int32 label per node at the least, before anything is read
  require_memory("num_nodes (--num-nodes) " + std::to_string(options.num_nodes) +
                     ": the row offsets and labels",
                 12.0 * static_cast<double>(options.num_nodes));
  return sources;
}

/// What names the cache entry: the canonical source files and every option.
template <class Ordinal>
std::string cache_identity(std::vector<std::string> const &sources, GenericOptions const &options) {
  std::string identity = "ttgnn edge list\n";
  for (auto const &p : sources)
    identity += "file " + fs::canonical(p).string() + "\n";
  identity +=
      "ordinal " + std::to_string(sizeof(Ordinal)) + "\nnum_nodes " +
      std::to_string(options.num_nodes) + "\nnum_classes " + std::to_string(options.num_classes) +
      "\ndirected " + std::to_string(options.directed) + "\nself_loops " +
      std::to_string(options.self_loops) + "\nlabels " + options.labels_npy + "\nfeatures " +
      options.features_npy + "\nfeature_layout " + to_string(options.feature_layout) + "\n";
  return identity;
}

/// N before the edges are read: the option, else the rows of the .npy files (which must
/// agree), else 0 (max id + 1, known once the edges are read).
std::int64_t nodes_from_files(GenericOptions const &options) {
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
  return n;
}

/// N from the largest id of \p edges; refuses ids that leave almost every node without an edge
/// (with no labels or features to give those nodes meaning they are not 0-based contiguous
/// ids: no graph of that size is allocated on the strength of one stray number).
template <class Ordinal>
std::int64_t nodes_from_edges(io::EdgeList<Ordinal> const &edges, std::string const &edges_path) {
  const std::int64_t n = edges.max_id + 1;
  const auto e = static_cast<std::int64_t>(edges.src.size());
  if (n > sparse_ids_min_nodes && n / sparse_ids_nodes_per_arc > 2 * e)
    throw InputError(edges_path + ": largest node id " + std::to_string(edges.max_id) +
                     " but only " + std::to_string(e) +
                     " edges: ids must be 0-based and contiguous (renumber them), or give the "
                     "number of nodes explicitly (num_nodes / --num-nodes)");
  return n;
}

/// Reads the labels (or marks all N unlabelled) and the features of the options into \p d.
template <class Ordinal>
void read_node_data(GenericOptions const &options, std::int64_t n, Dataset<Ordinal> &d,
                    LoadInfo &li) {
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
}

/// The load without the cache: N, edges, labels and features, then the CSR.
template <class Ordinal>
Dataset<Ordinal> read_edge_list_dataset(std::string const &edges_path,
                                        GenericOptions const &options, std::string const &name,
                                        LoadInfo &li) {
  std::int64_t n = nodes_from_files(options);
  io::EdgeList<Ordinal> edges =
      io::read_edges_text<Ordinal>(edges_path, n, io::EdgeTextFormat{true, true, true});
  if (n == 0)
    n = nodes_from_edges(edges, edges_path);
  if (n > 0 && n - 1 > static_cast<std::int64_t>(std::numeric_limits<Ordinal>::max()))
    throw ConfigError(edges_path + ": " + std::to_string(n) + " nodes do not fit a " +
                      std::to_string(8 * sizeof(Ordinal)) + "-bit node id; load with int64");
  Dataset<Ordinal> d;
  read_node_data(options, n, d, li);
  d.graph = io::edges_to_csr(edges, n, CsrBuildOptions{!options.directed, options.self_loops});
  d.name = name;
  return d;
}

} // namespace

template <class Ordinal>
Dataset<Ordinal> load_edge_list(std::string const &edges_path, GenericOptions const &options,
                                LoadInfo *info) {
  const auto start = std::chrono::steady_clock::now();
  LoadInfo local;
  LoadInfo &li = info ? *info : local;
  li = LoadInfo{};
  li.symmetrized = !options.directed;
  const std::vector<std::string> sources = source_files(edges_path, options);
  const std::string name = fs::path(edges_path).stem().string();
  const std::string identity =
      options.cache_dir.empty() ? "" : cache_identity<Ordinal>(sources, options);
  Dataset<Ordinal> d =
      load_with_cache<Ordinal>({options.cache_dir, identity, name, sources}, li, [&] {
        return read_edge_list_dataset<Ordinal>(edges_path, options, name, li);
      });
  li.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return d;
}

template Dataset<std::int32_t> load_edge_list<std::int32_t>(std::string const &,
                                                            GenericOptions const &, LoadInfo *);
template Dataset<std::int64_t> load_edge_list<std::int64_t>(std::string const &,
                                                            GenericOptions const &, LoadInfo *);

} // namespace ttgnn
