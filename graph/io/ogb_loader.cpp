#include "graph/io/ogb_loader.hpp"

#include <unistd.h>

#include <cstdio>

#include "core/error.hpp"
#include "core/parse_number.hpp"
#include "graph/io/npy_reader.hpp"
#include "graph/io/table_readers.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <filesystem>
#include <limits>
#include <map>
#include <set>

namespace ttgnn {

namespace fs = std::filesystem;

namespace {

/// The files of one OGB folder, located (and checked to exist) before anything is parsed.
struct OgbFiles {
  bool binary = false;
  std::string meta, edge, num_nodes, num_edges, label, feat, year; // text layout
  std::string data_npz, label_npz;                                 // binary layout
  std::string train, valid, test;

  std::vector<std::string> all() const {
    std::vector<std::string> out;
    for (auto const *p : {&meta, &edge, &num_nodes, &num_edges, &label, &feat, &year, &data_npz,
                          &label_npz, &train, &valid, &test})
      if (!p->empty())
        out.push_back(*p);
    return out;
  }
};

std::string find_with_ext(fs::path const &base) {
  for (char const *ext : {".csv.gz", ".csv"}) {
    fs::path p = base;
    p += ext;
    if (fs::exists(p))
      return p.string();
  }
  return "";
}

std::string require(std::string const &dir, std::string const &name) {
  std::string path = find_ogb_file(dir, name);
  if (path.empty())
    throw InputError((fs::path(dir) / "raw" / name).string() + ".csv[.gz]: missing required file");
  return path;
}

OgbFiles locate(std::string const &dir, LoadOptions const &options) {
  if (!fs::is_directory(dir))
    throw InputError(dir + ": dataset folder not found");
  OgbFiles f;
  const fs::path root(dir);
  if (fs::exists(root / "meta.csv"))
    f.meta = (root / "meta.csv").string();
  const fs::path npz = root / "raw" / "data.npz";
  f.binary = fs::exists(npz) && find_ogb_file(dir, "edge").empty();
  if (f.binary) {
    f.data_npz = npz.string();
    if (fs::exists(root / "raw" / "node-label.npz"))
      f.label_npz = (root / "raw" / "node-label.npz").string();
  } else {
    if (!fs::is_directory(root / "raw"))
      throw InputError((root / "raw").string() + ": missing required folder (not an OGB layout)");
    f.edge = require(dir, "edge");
    f.num_nodes = require(dir, "num-node-list");
    f.num_edges = require(dir, "num-edge-list");
    f.label = find_ogb_file(dir, "node-label");
    f.feat = find_ogb_file(dir, "node-feat");
    f.year = find_ogb_file(dir, "node_year");
  }
  if (!options.split.empty()) {
    const fs::path sd = root / "split" / options.split;
    if (!fs::is_directory(sd)) {
      std::string available;
      std::error_code ec;
      if (fs::is_directory(root / "split"))
        for (auto const &e : fs::directory_iterator(root / "split", ec))
          available += (available.empty() ? "" : ", ") + e.path().filename().string();
      throw InputError(sd.string() + ": split folder not found (available: " +
                       (available.empty() ? "none" : available) + ")");
    }
    const std::pair<char const *, std::string *> parts[] = {
        {"train", &f.train}, {"valid", &f.valid}, {"test", &f.test}};
    for (auto [part, out] : parts) {
      *out = find_with_ext(sd / part);
      if (out->empty())
        throw InputError((sd / part).string() + ".csv[.gz]: missing required file");
    }
  }
  return f;
}

bool truthy(std::map<std::string, std::string> const &kv, std::string const &key, bool &value) {
  auto it = kv.find(key);
  if (it == kv.end())
    return false;
  std::string v = it->second;
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
  value = v == "true" || v == "1";
  return true;
}

std::int64_t meta_int(std::map<std::string, std::string> const &kv, std::string const &key,
                      std::string const &path) {
  auto it = kv.find(key);
  if (it == kv.end())
    return -1;
  std::int64_t v = -1;
  auto const &s = it->second;
  if (!try_parse_int(s, v) || v < 0)
    throw InputError(path + ": " + key + " is '" + s + "', expected a non-negative integer");
  return v;
}

std::int64_t npz_count(std::string const &npz, std::string const &member) {
  NpyReader r = NpyReader::open_npz_member(npz, member);
  if (r.header().num_elements() != 1)
    throw InputError(r.where() + ": expected one count (node datasets hold one graph)");
  std::int64_t v = -1;
  r.read(&v, 1);
  if (v < 0)
    throw InputError(r.where() + ": negative count");
  return v;
}

std::string dataset_name(std::string const &dir, std::map<std::string, std::string> const &meta) {
  if (auto it = meta.find("source"); it != meta.end() && !it->second.empty())
    return it->second;
  fs::path p = fs::absolute(dir).lexically_normal();
  if (!p.has_filename())
    p = p.parent_path();
  if (p.filename() == "ogb" && p.has_parent_path())
    return p.parent_path().filename().string();
  return p.filename().string();
}

Kokkos::View<std::int64_t *, Kokkos::HostSpace> to_view(std::vector<std::int64_t> const &v,
                                                        char const *label) {
  Kokkos::View<std::int64_t *, Kokkos::HostSpace> out(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), v.size());
  std::copy(v.begin(), v.end(), out.data());
  return out;
}

/// Number of label columns: T > 1 for a multi-label file (ogbn-proteins: 112), else 1 (0
/// when there is no label file).
std::int64_t label_columns(OgbFiles const &files) {
  if (files.binary) {
    if (files.label_npz.empty())
      return 0;
    const auto shape = io::npy_shape(files.label_npz, "node_label.npy");
    return shape.size() == 2 ? shape[1] : 1;
  }
  return files.label.empty() ? 0 : io::peek_label_columns_text(files.label);
}

/// Reads the multi-label targets of \p files into \p d (labels all -1, num_classes = T).
template <class Ordinal>
void load_multilabels(OgbFiles const &files, std::int64_t n, Dataset<Ordinal> &d) {
  d.multilabels = files.binary ? io::read_multilabels_npy(files.label_npz, "node_label.npy", n)
                               : io::read_multilabels_text(files.label, n);
  d.num_classes = static_cast<int>(d.multilabels.extent(1));
  d.labels = Kokkos::View<std::int32_t *, Kokkos::HostSpace>("ttgnn::load::labels", n);
  Kokkos::deep_copy(d.labels, -1);
}

/// Whether the CSR holds both directions of every edge: the option, or meta.csv's
/// add_inverse_edge / is_directed for Edges::from_meta (see LoadOptions::edges).
bool symmetrize_edges(std::map<std::string, std::string> const &meta, LoadOptions const &options) {
  if (options.edges != LoadOptions::Edges::from_meta)
    return options.edges == LoadOptions::Edges::symmetrize;
  bool inverse = true, directed = false;
  const bool has_inverse = truthy(meta, "add_inverse_edge", inverse);
  const bool has_directed = truthy(meta, "is_directed", directed);
  return !(has_inverse && !inverse && has_directed && directed);
}

/// What names the cache entry: the canonical folder and every option that shapes the result.
template <class Ordinal>
std::string cache_identity(std::string const &dir, LoadOptions const &options, bool symmetrize) {
  return "ttgnn ogb dataset\ndir " + fs::canonical(dir).string() + "\nordinal " +
         std::to_string(sizeof(Ordinal)) + "\nsymmetrize " + std::to_string(symmetrize) +
         "\nself_loops " + std::to_string(options.self_loops) + "\nfeatures " +
         std::to_string(options.features) + "\nfeature_layout " +
         to_string(options.feature_layout) + "\nsplit " + options.split + "\n";
}

/// The members of raw/data.npz (binary layout; empty for the text layout).
std::set<std::string> npz_member_set(OgbFiles const &files) {
  std::set<std::string> members;
  if (files.binary)
    for (auto &m : NpyReader::npz_members(files.data_npz))
      members.insert(m);
  return members;
}

/// Node and edge counts (edges -1: no edge count given).
struct Counts {
  std::int64_t nodes = 0, edges = -1;
};

/// Reads the node and edge counts: num_nodes_list / num_edges_list of data.npz, or the
/// num-node-list / num-edge-list files.
Counts read_counts(OgbFiles const &files, std::set<std::string> const &members) {
  Counts c;
  if (files.binary) {
    for (char const *m : {"edge_index.npy", "num_nodes_list.npy"})
      if (!members.count(m))
        throw InputError(files.data_npz + ": archive has no member '" + m + "'");
    c.nodes = npz_count(files.data_npz, "num_nodes_list.npy");
    if (members.count("num_edges_list.npy"))
      c.edges = npz_count(files.data_npz, "num_edges_list.npy");
  } else {
    c.nodes = io::read_count_text(files.num_nodes);
    c.edges = io::read_count_text(files.num_edges);
  }
  return c;
}

/// Bytes each node needs at the least: an int64 row offset and an int32 label.
constexpr double min_bytes_per_node = 12.0;

/// \p bytes in GB, three significant digits.
std::string gigabytes(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", bytes / 1e9);
  return std::string(text);
}

/// Checks the counts against meta.csv, \p Ordinal and the memory of this machine: an absurd
/// count is an input error, not an allocation failure halfway through the load.
template <class Ordinal>
void check_counts(std::string const &dir, OgbFiles const &files,
                  std::map<std::string, std::string> const &meta, Counts const &c) {
  const std::int64_t n = c.nodes, e = c.edges;
  const std::string counts_file = files.binary ? files.data_npz : files.num_nodes;
  if (auto mn = meta_int(meta, "num_nodes", files.meta); mn >= 0 && mn != n)
    throw InputError(files.meta + ": num_nodes " + std::to_string(mn) + " but " + counts_file +
                     " says " + std::to_string(n));
  if (auto me = meta_int(meta, "num_edges", files.meta); me >= 0 && e >= 0 && me != e)
    throw InputError(files.meta + ": num_edges " + std::to_string(me) +
                     " but the edge count file says " + std::to_string(e));
  if (n > 0 && n - 1 > static_cast<std::int64_t>(std::numeric_limits<Ordinal>::max()))
    throw ConfigError(dir + ": " + std::to_string(n) + " nodes do not fit a " +
                      std::to_string(8 * sizeof(Ordinal)) + "-bit node id; load with int64");
  const double memory = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE);
  if (const double need = min_bytes_per_node * static_cast<double>(n); memory > 0 && need > memory)
    throw InputError(counts_file + ": " + std::to_string(n) + " nodes need at least " +
                     gigabytes(need) + " GB (row offsets and labels), more than the " +
                     gigabytes(memory) + " GB of memory of this machine");
}

/// Reads the labels into \p d: multi-label targets, single labels checked against meta.csv's
/// num_classes, or (no label file) every node unlabelled.
template <class Ordinal>
void read_labels(OgbFiles const &files, std::map<std::string, std::string> const &meta,
                 std::int64_t n, Dataset<Ordinal> &d, LoadInfo &li) {
  const std::int64_t meta_classes = meta_int(meta, "num_classes", files.meta);
  if (label_columns(files) > 1) {
    load_multilabels(files, n, d);
    li.num_classes_source = "label columns (multi-label)";
  } else if (!files.label.empty() || !files.label_npz.empty()) {
    d.labels = files.binary ? io::read_labels_npy(files.label_npz, "node_label.npy", n)
                            : io::read_labels_text(files.label, n);
    li.num_classes_source = meta_classes > 0 ? "meta.csv" : "max label + 1";
    d.num_classes = io::check_labels(
        d.labels, static_cast<int>(std::max<std::int64_t>(meta_classes, 0)),
        files.binary ? files.label_npz : files.label, "meta.csv", files.binary ? 0 : 1);
  } else {
    d.labels = Kokkos::View<std::int32_t *, Kokkos::HostSpace>("ttgnn::load::labels", n);
    Kokkos::deep_copy(d.labels, -1);
    d.num_classes = static_cast<int>(std::max<std::int64_t>(meta_classes, 0));
    li.num_classes_source = meta_classes > 0 ? "meta.csv" : "none";
  }
}

/// Reads the split of the options (when one is asked for) into \p d. With single labels read
/// from a label file, a split node must have one.
template <class Ordinal>
void read_split(OgbFiles const &files, LoadOptions const &options, std::int64_t n,
                Dataset<Ordinal> &d) {
  if (options.split.empty())
    return;
  const bool has_labels = !d.is_multilabel() && (!files.label.empty() || !files.label_npz.empty());
  auto labelled = [&](std::int64_t id) -> std::string {
    if (!has_labels || d.labels(id) >= 0)
      return {};
    return "node " + std::to_string(id) +
           " is unlabelled in the label file; a split lists labelled nodes only";
  };
  // a node in two sets would be trained on and scored as unseen: refused, naming both files
  std::string const *set_files[] = {nullptr, &files.train, &files.valid, &files.test};
  std::vector<std::uint8_t> set_of(static_cast<std::size_t>(std::max<std::int64_t>(n, 0)), 0);
  auto check_in = [&](std::uint8_t set) {
    return [&, set](std::int64_t id) -> std::string {
      if (std::string msg = labelled(id); !msg.empty())
        return msg;
      if (const std::uint8_t other = set_of[static_cast<std::size_t>(id)]; other != 0)
        return "node " + std::to_string(id) + " is also listed in " + *set_files[other] +
               "; the train, valid and test sets must not overlap";
      set_of[static_cast<std::size_t>(id)] = set;
      return {};
    };
  };
  d.train = to_view(io::read_ints_text(files.train, n, check_in(1)), "ttgnn::load::train");
  d.valid = to_view(io::read_ints_text(files.valid, n, check_in(2)), "ttgnn::load::valid");
  d.test = to_view(io::read_ints_text(files.test, n, check_in(3)), "ttgnn::load::test");
  d.split_name = options.split;
}

/// Reads raw/node_year of the text layout (when present) into \p d: one year per node.
template <class Ordinal>
void read_years_text(OgbFiles const &files, std::int64_t n, Dataset<Ordinal> &d) {
  if (files.year.empty())
    return;
  auto years = io::read_ints_text(files.year, -1);
  if (static_cast<std::int64_t>(years.size()) != n)
    throw InputError(files.year + ": " + std::to_string(years.size()) + " lines for " +
                     std::to_string(n) + " nodes");
  d.node_year = Kokkos::View<std::int32_t *, Kokkos::HostSpace>("ttgnn::load::node_year", n);
  for (std::int64_t i = 0; i < n; ++i)
    d.node_year(i) = static_cast<std::int32_t>(years[i]);
}

/// Whether the edges are streamed twice straight into the CSR (text with N > 0), with no
/// edge list in memory.
bool streams_edges(OgbFiles const &files, Counts const &c) {
  return !files.binary && c.nodes > 0;
}

/// Reads the edges: streamed into d.graph (streams_edges), else returned as an edge list. The
/// count must match the edge count file when there is one.
template <class Ordinal>
io::EdgeList<Ordinal> read_edges(OgbFiles const &files, Counts const &c,
                                 CsrBuildOptions const &csr_options, Dataset<Ordinal> &d,
                                 ProgressLog const &progress) {
  io::EdgeList<Ordinal> edges;
  std::int64_t edges_read = 0;
  if (streams_edges(files, c)) {
    d.graph = io::read_edges_text_csr<Ordinal>(files.edge, c.nodes, io::EdgeTextFormat{},
                                               csr_options, &edges_read, progress, c.edges);
  } else {
    edges = files.binary
                ? io::read_edges_npz<Ordinal>(files.data_npz, "edge_index.npy", c.nodes)
                : io::read_edges_text<Ordinal>(files.edge, c.nodes, io::EdgeTextFormat{}, c.edges);
    edges_read = static_cast<std::int64_t>(edges.src.size());
  }
  if (c.edges >= 0 && edges_read != c.edges)
    throw InputError((files.binary ? files.data_npz : files.edge) + ": " +
                     std::to_string(edges_read) + " edges but the edge count file says " +
                     std::to_string(c.edges));
  return edges;
}

/// Reads node_year of data.npz (binary layout, when present) into \p d.
template <class Ordinal>
void read_years_npz(OgbFiles const &files, std::set<std::string> const &members, std::int64_t n,
                    Dataset<Ordinal> &d) {
  if (files.binary && members.count("node_year.npy"))
    d.node_year = io::read_node_ints_npy(files.data_npz, "node_year.npy", n);
}

/// Reads the features into \p d (only their dimension, as 0 x F, when the options say so).
template <class Ordinal>
void read_features(OgbFiles const &files, std::set<std::string> const &members,
                   LoadOptions const &options, std::int64_t n, Dataset<Ordinal> &d) {
  const bool has_feat = files.binary ? members.count("node_feat.npy") > 0 : !files.feat.empty();
  if (has_feat && options.features) {
    io::FeatureTable t =
        files.binary
            ? io::choose_feature_layout(io::read_features_npy(files.data_npz, "node_feat.npy", n),
                                        options.feature_layout)
            : io::read_features_text(files.feat, n, options.feature_layout);
    d.features = t.dense;
    d.sparse_features = t.sparse;
  } else if (has_feat) {
    std::int64_t f = 0;
    if (files.binary) {
      auto shape = io::npy_shape(files.data_npz, "node_feat.npy");
      f = shape.size() == 2 ? shape[1] : 1;
    } else {
      f = io::peek_feature_dim_text(files.feat);
    }
    d.features = decltype(d.features)("ttgnn::load::features", 0, f);
  }
}

/// The load without the cache: counts and meta.csv cross-checks, then the small per-node files
/// and the split (checked before the big ones), the edges and features, and the CSR.
template <class Ordinal>
Dataset<Ordinal> read_ogb_dataset(std::string const &dir, OgbFiles const &files,
                                  std::map<std::string, std::string> const &meta,
                                  LoadOptions const &options, bool symmetrize,
                                  std::string const &name, LoadInfo &li) {
  const std::set<std::string> members = npz_member_set(files);
  const Counts c = read_counts(files, members);
  check_counts<Ordinal>(dir, files, meta, c);
  Dataset<Ordinal> d;
  read_labels(files, meta, c.nodes, d, li);
  read_split(files, options, c.nodes, d);
  read_years_text(files, c.nodes, d);
  const CsrBuildOptions csr_options{symmetrize, options.self_loops};
  io::EdgeList<Ordinal> edges = read_edges(files, c, csr_options, d, options.progress);
  read_years_npz(files, members, c.nodes, d);
  read_features(files, members, options, c.nodes, d);
  if (const std::int64_t mf = meta_int(meta, "num_features", files.meta);
      mf >= 0 && d.num_features() > 0 && mf != d.num_features())
    throw InputError(files.meta + ": num_features " + std::to_string(mf) + " but " +
                     (files.binary ? files.data_npz : files.feat) + " has " +
                     std::to_string(d.num_features()) + " feature columns");
  if (!streams_edges(files, c))
    d.graph = io::edges_to_csr(edges, c.nodes, csr_options);
  d.name = name;
  if (auto it = meta.find("eval metric"); it != meta.end())
    d.eval_metric = it->second;
  return d;
}

} // namespace

std::string find_ogb_file(std::string const &dir, std::string const &name) {
  return find_with_ext(fs::path(dir) / "raw" / name);
}

template <class Ordinal>
Dataset<Ordinal> load_ogb(std::string const &dir, LoadOptions const &options, LoadInfo *info) {
  const auto start = std::chrono::steady_clock::now();
  LoadInfo local;
  LoadInfo &li = info ? *info : local;
  li = LoadInfo{};
  const OgbFiles files = locate(dir, options);
  const auto meta =
      files.meta.empty() ? std::map<std::string, std::string>{} : io::read_key_values(files.meta);
  const bool symmetrize = symmetrize_edges(meta, options);
  li.symmetrized = symmetrize;
  const std::string name = dataset_name(dir, meta);
  const std::string identity =
      options.cache_dir.empty() ? "" : cache_identity<Ordinal>(dir, options, symmetrize);
  Dataset<Ordinal> d = load_with_cache<Ordinal>(
      {options.cache_dir, identity, name, files.all()}, li,
      [&] { return read_ogb_dataset<Ordinal>(dir, files, meta, options, symmetrize, name, li); },
      [&](Dataset<Ordinal> &cached) {
        li.num_classes_source = "cache";
        // The cache keeps the graph, features and split; multi-label targets are read again.
        if (label_columns(files) > 1)
          load_multilabels(files, cached.num_nodes(), cached);
      });
  li.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return d;
}

template Dataset<std::int32_t> load_ogb<std::int32_t>(std::string const &, LoadOptions const &,
                                                      LoadInfo *);
template Dataset<std::int64_t> load_ogb<std::int64_t>(std::string const &, LoadOptions const &,
                                                      LoadInfo *);

} // namespace ttgnn
