#include "graph/io/graph_cache.hpp"

#include "core/io/atomic_file.hpp"
#include "core/error.hpp"
#include "core/io/checksum.hpp"
#include "graph/io/detail/text_parse.hpp"

#include <Kokkos_Core.hpp>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <optional>

namespace ttgnn {

namespace fs = std::filesystem;

namespace {

constexpr char magic[8] = {'T', 'T', 'G', 'N', 'N', 'D', 'C', '\n'};
constexpr std::uint32_t version = 2;

struct Section {
  void *data;
  std::size_t bytes;
};

/// The sizes stored in the header. feat_nnz < 0: dense features (feat_rows x feat_cols
/// floats); else sparse rows (Dataset::sparse_features): feat_rows + 1 int64 offsets, feat_nnz
/// int32 columns and feat_nnz floats.
struct Sizes {
  std::int64_t nodes, arcs, labels, classes, feat_rows, feat_cols, feat_nnz, years, train, valid,
      test;
};

template <class V> Section section(V const &v) {
  using T = typename V::value_type;
  return Section{const_cast<void *>(static_cast<void const *>(v.data())), v.size() * sizeof(T)};
}

void put(std::string &out, void const *p, std::size_t n) {
  out.append(static_cast<char const *>(p), n);
}
void put_string(std::string &out, std::string const &s) {
  const std::uint64_t n = s.size();
  put(out, &n, 8);
  out += s;
}

/// Sequential reader of the header that keeps every byte for the checksum.
struct HeaderReader {
  std::FILE *f;
  std::string bytes;
  bool get(void *p, std::size_t n) {
    if (std::fread(p, 1, n, f) != n)
      return false;
    put(bytes, p, n);
    return true;
  }
  bool get_string(std::string &s, std::uint64_t limit) {
    std::uint64_t n = 0;
    if (!get(&n, 8) || n > limit)
      return false;
    s.resize(n);
    return n == 0 || get(s.data(), n);
  }
};

/// pread()s exactly \p len bytes at \p offset (retrying short reads); false on an error or at
/// the end of the file. \p len 0 touches nothing (an empty section's pointer may be null).
bool read_fully(int fd, char *out, std::size_t len, off_t offset) {
  while (len > 0) {
    const ssize_t got = ::pread(fd, out, len, offset);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return false;
    out += got;
    len -= static_cast<std::size_t>(got);
    offset += got;
  }
  return true;
}

struct FileCloser {
  std::FILE *f;
  ~FileCloser() {
    if (f)
      std::fclose(f);
  }
};

template <class Ordinal> std::string check_structure(Dataset<Ordinal> const &d) {
  const std::int64_t n = d.num_nodes();
  auto row_map = d.graph.row_map;
  auto entries = d.graph.entries;
  const std::int64_t arcs = d.graph.num_arcs();
  if (row_map(0) != 0 || row_map(n) != d.graph.num_arcs())
    return "row_map does not span the entries";
  const std::int64_t bad =
      text::host_sum("ttgnn::graph_cache::check_rows", n, n + d.graph.num_arcs(),
                     [=](std::int64_t i, std::int64_t &acc) {
                       // every row inside [0, arcs) on its own: rows are checked in
                       // parallel, so an earlier bad row does not protect this one
                       if (row_map(i) < 0 || row_map(i + 1) < row_map(i) || row_map(i + 1) > arcs)
                         ++acc;
                       else
                         for (std::int64_t k = row_map(i); k < row_map(i + 1); ++k)
                           acc += (entries(k) < 0 || entries(k) >= n) ? 1 : 0;
                     });
  if (bad)
    return "CSR rows out of order or neighbour ids out of range";
  for (std::size_t i = 0; i < d.labels.extent(0); ++i)
    if (d.labels(i) < -1 || d.labels(i) >= d.num_classes)
      return "label out of range";
  for (auto const *split : {&d.train, &d.valid, &d.test})
    for (std::size_t i = 0; i < split->extent(0); ++i)
      if ((*split)(i) < 0 || (*split)(i) >= n)
        return "split id out of range";
  return "";
}

/// Why a cache file is not used: its status (never hit) and the reason.
struct Rejection {
  CacheStatus status;
  std::string reason;
};
using MaybeRejection = std::optional<Rejection>;

/// What the header holds after the key: the dataset's names and the array sizes.
struct Header {
  std::string name, split_name, eval_metric;
  Sizes sizes{};
};

/// Reads the header (magic, version, node id width, key, names, sizes) through \p in; a
/// rejection when it is short, another version or width, or made for another key.
template <class Ordinal>
MaybeRejection read_header(HeaderReader &in, std::uint64_t file_size, std::string const &key,
                           Header &h) {
  const Rejection short_header{CacheStatus::truncated, "shorter than its header"};
  char m[8];
  std::uint32_t ver = 0, ordinal_bytes = 0;
  if (!in.get(m, sizeof m))
    return short_header;
  if (std::memcmp(m, magic, sizeof magic) != 0)
    return Rejection{CacheStatus::corrupt, "bad magic"};
  if (!in.get(&ver, sizeof ver) || !in.get(&ordinal_bytes, sizeof ordinal_bytes))
    return short_header;
  if (ver != version)
    return Rejection{CacheStatus::stale, "cache format version " + std::to_string(ver)};
  if (ordinal_bytes != sizeof(Ordinal))
    return Rejection{CacheStatus::stale, "written for another node id width"};
  std::string stored_key;
  if (!in.get_string(stored_key, file_size) || !in.get_string(h.name, file_size) ||
      !in.get_string(h.split_name, file_size) || !in.get_string(h.eval_metric, file_size))
    return short_header;
  if (stored_key != key)
    return Rejection{CacheStatus::stale, "made from other sources or options"};
  if (!in.get(&h.sizes, sizeof h.sizes))
    return short_header;
  return std::nullopt;
}

/// A rejection (corrupt) when a size in the header is negative, larger than the file, or
/// disagrees with the node count.
MaybeRejection check_sizes(Sizes const &z, std::uint64_t file_size) {
  const std::int64_t limit = static_cast<std::int64_t>(file_size);
  for (std::int64_t v :
       {z.nodes, z.arcs, z.labels, z.feat_rows, z.feat_cols, z.years, z.train, z.valid, z.test})
    if (v < 0 || v > limit)
      return Rejection{CacheStatus::corrupt, "implausible sizes in the header"};
  const bool sparse = z.feat_nnz >= 0;
  if ((z.labels != 0 && z.labels != z.nodes) || (z.years != 0 && z.years != z.nodes) ||
      (z.feat_rows != 0 && z.feat_rows != z.nodes) || z.classes < 0 || z.classes > limit ||
      (z.feat_rows > 0 && !sparse && z.feat_cols > limit / z.feat_rows) || z.feat_nnz > limit ||
      z.feat_cols > std::numeric_limits<std::int32_t>::max())
    return Rejection{CacheStatus::corrupt, "inconsistent sizes in the header"};
  return std::nullopt;
}

/// The arrays of \p d in file order; \p sparse: the features are sparse rows.
template <class Ordinal> std::vector<Section> sections_of(Dataset<Ordinal> const &d, bool sparse) {
  std::vector<Section> sections{section(d.graph.row_map), section(d.graph.entries),
                                section(d.labels)};
  if (sparse) {
    SparseFeatures const &x = d.sparse_features;
    sections.insert(sections.end(), {section(x.row_map), section(x.cols), section(x.values)});
  } else {
    sections.push_back(section(d.features));
  }
  sections.insert(sections.end(),
                  {section(d.node_year), section(d.train), section(d.valid), section(d.test)});
  return sections;
}

/// Allocates (uninitialised) the arrays of \p d with the sizes \p z.
template <class Ordinal> void allocate_arrays(Sizes const &z, Dataset<Ordinal> &d) {
  auto alloc = [](auto &v, char const *label, auto... extents) {
    using V = std::decay_t<decltype(v)>;
    v = V(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), extents...);
  };
  alloc(d.graph.row_map, "ttgnn::load::row_map", z.nodes + 1);
  alloc(d.graph.entries, "ttgnn::load::entries", z.arcs);
  alloc(d.labels, "ttgnn::load::labels", z.labels);
  alloc(d.node_year, "ttgnn::load::node_year", z.years);
  alloc(d.train, "ttgnn::load::train", z.train);
  alloc(d.valid, "ttgnn::load::valid", z.valid);
  alloc(d.test, "ttgnn::load::test", z.test);
  if (z.feat_nnz >= 0) {
    SparseFeatures &x = d.sparse_features;
    x.num_cols = z.feat_cols;
    alloc(x.row_map, "ttgnn::load::features_row_map", z.feat_rows + 1);
    alloc(x.cols, "ttgnn::load::features_cols", z.feat_nnz);
    alloc(x.values, "ttgnn::load::features_values", z.feat_nnz);
  } else {
    alloc(d.features, "ttgnn::load::features", z.feat_rows, z.feat_cols);
  }
}

/// Reads \p sections from \p fd after the \p header bytes and checks the trailing checksum; a
/// rejection when the file is not exactly as long as the sections say, ends early or its
/// checksum differs.
MaybeRejection read_sections(int fd, std::string const &header,
                             std::vector<Section> const &sections, std::uint64_t file_size) {
  std::uint64_t expected = header.size() + sizeof(std::uint64_t);
  for (auto const &s : sections)
    expected += s.bytes;
  if (expected != file_size)
    return Rejection{CacheStatus::truncated, std::to_string(file_size) +
                                                 " bytes where the header says " +
                                                 std::to_string(expected)};
  // each section read in blocks by several threads (pread), each block hashed as it arrives
  std::uint64_t sum = checksum64(header.data(), header.size(), 0);
  off_t offset = static_cast<off_t>(header.size());
  for (auto const &s : sections) {
    auto *base = static_cast<char *>(s.data);
    const auto read_at = [&](std::size_t begin, std::size_t len) {
      return read_fully(fd, base + begin, len, offset + static_cast<off_t>(begin));
    };
    if (!parallel_fill_checksum64(s.data, s.bytes, sum, read_at, sum))
      return Rejection{CacheStatus::truncated, "data end early"};
    offset += static_cast<off_t>(s.bytes);
  }
  std::uint64_t stored_sum = 0;
  if (!read_fully(fd, reinterpret_cast<char *>(&stored_sum), sizeof stored_sum, offset))
    return Rejection{CacheStatus::truncated, "checksum missing"};
  if (stored_sum != sum)
    return Rejection{CacheStatus::corrupt, "checksum mismatch"};
  return std::nullopt;
}

/// Reads the cache file \p file (of \p file_size bytes) written for \p key into \p d.
template <class Ordinal>
MaybeRejection read_cache_file(std::FILE *file, std::uint64_t file_size, std::string const &key,
                               Dataset<Ordinal> &d) {
  HeaderReader in{file, {}};
  Header h;
  if (auto no = read_header<Ordinal>(in, file_size, key, h))
    return no;
  if (auto no = check_sizes(h.sizes, file_size))
    return no;
  const bool sparse = h.sizes.feat_nnz >= 0;
  allocate_arrays(h.sizes, d);
  if (auto no = read_sections(::fileno(file), in.bytes, sections_of(d, sparse), file_size))
    return no;
  if (sparse)
    if (std::string bad = check_sparse_features(Kokkos::DefaultHostExecutionSpace(),
                                                d.sparse_features, h.sizes.feat_rows);
        !bad.empty())
      return Rejection{CacheStatus::corrupt, bad};
  d.name = h.name;
  d.split_name = h.split_name;
  d.eval_metric = h.eval_metric;
  d.num_classes = static_cast<int>(h.sizes.classes);
  if (std::string bad = check_structure(d); !bad.empty())
    return Rejection{CacheStatus::corrupt, bad};
  return std::nullopt;
}

} // namespace

char const *to_string(CacheStatus status) {
  switch (status) {
  case CacheStatus::disabled:
    return "disabled";
  case CacheStatus::hit:
    return "hit";
  case CacheStatus::missing:
    return "missing";
  case CacheStatus::stale:
    return "stale";
  case CacheStatus::truncated:
    return "truncated";
  case CacheStatus::corrupt:
    return "corrupt";
  }
  return "?";
}

std::string file_fingerprint(std::vector<std::string> const &paths) {
  std::string out;
  for (auto const &p : paths) {
    std::error_code ec;
    const auto size = fs::file_size(p, ec);
    const auto mtime = fs::last_write_time(p, ec).time_since_epoch();
    out += p + " " + std::to_string(ec ? -1 : static_cast<long long>(size)) + " " +
           std::to_string(std::chrono::duration_cast<std::chrono::nanoseconds>(mtime).count()) +
           "\n";
  }
  return out;
}

std::string graph_cache_path(std::string const &cache_dir, std::string const &identity,
                             std::string const &name) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(checksum64(identity.data(), identity.size())));
  std::string safe;
  for (char c : name)
    safe += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-') ? c : '_';
  return (fs::path(cache_dir) / (safe + "-" + hex + ".ttgnn")).string();
}

template <class Ordinal>
CacheStatus read_graph_cache(std::string const &path, std::string const &key, Dataset<Ordinal> &out,
                             std::string *detail) {
  auto why = [&](CacheStatus s, std::string const &msg) {
    if (detail)
      *detail = path + ": " + msg;
    return s;
  };
  std::error_code ec;
  if (!fs::exists(path, ec))
    return why(CacheStatus::missing, "no cache file");
  const std::uint64_t file_size = fs::file_size(path, ec);
  FileCloser file{std::fopen(path.c_str(), "rb")};
  if (ec || !file.f)
    return why(CacheStatus::missing, "cannot open the cache file");
  Dataset<Ordinal> d;
  if (auto no = read_cache_file(file.f, file_size, key, d))
    return why(no->status, no->reason);
  out = std::move(d);
  return CacheStatus::hit;
}

template <class Ordinal>
void write_graph_cache(std::string const &path, std::string const &key, Dataset<Ordinal> const &d) {
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  std::string header;
  put(header, magic, sizeof magic);
  const std::uint32_t ordinal_bytes = sizeof(Ordinal);
  put(header, &version, sizeof version);
  put(header, &ordinal_bytes, sizeof ordinal_bytes);
  put_string(header, key);
  put_string(header, d.name);
  put_string(header, d.split_name);
  put_string(header, d.eval_metric);
  const SparseFeatures &x = d.sparse_features;
  const bool sparse = x.has_values();
  const Sizes z{d.num_nodes(),
                d.graph.num_arcs(),
                static_cast<std::int64_t>(d.labels.extent(0)),
                d.num_classes,
                sparse ? x.num_rows() : static_cast<std::int64_t>(d.features.extent(0)),
                d.num_features(),
                sparse ? x.nnz() : -1,
                static_cast<std::int64_t>(d.node_year.extent(0)),
                static_cast<std::int64_t>(d.train.extent(0)),
                static_cast<std::int64_t>(d.valid.extent(0)),
                static_cast<std::int64_t>(d.test.extent(0))};
  put(header, &z, sizeof z);
  const std::vector<Section> sections = sections_of(d, sparse);
  // a temporary file next to path, renamed by commit() at once: a cache, kept by a failed run
  AtomicFileWriter out(path, AtomicFileWriter::Commit::immediate);
  out.write(header.data(), header.size());
  std::uint64_t sum = checksum64(header.data(), header.size(), 0);
  for (auto const &s : sections) {
    out.write(s.data, s.bytes);
    sum = parallel_checksum64(s.data, s.bytes, sum);
  }
  out.write(&sum, sizeof sum);
  out.commit();
}

template <class Ordinal>
Dataset<Ordinal> load_with_cache(CacheRequest const &request, LoadInfo &info,
                                 std::function<Dataset<Ordinal>()> const &load,
                                 std::function<void(Dataset<Ordinal> &)> const &on_hit) {
  if (request.cache_dir.empty())
    return load();
  const std::string key = request.identity + file_fingerprint(request.sources);
  info.cache_path = graph_cache_path(request.cache_dir, request.identity, request.name);
  Dataset<Ordinal> d;
  info.cache = read_graph_cache(info.cache_path, key, d, &info.cache_detail);
  if (info.cache == CacheStatus::hit) {
    if (on_hit)
      on_hit(d);
    return d;
  }
  d = load();
  try {
    write_graph_cache(info.cache_path, key, d);
    info.cache_written = true;
  } catch (InputError const &err) {
    info.cache_detail = err.what();
  }
  return d;
}

#define TTGNN_INSTANTIATE_CACHE(ORDINAL)                                                           \
  template CacheStatus read_graph_cache<ORDINAL>(std::string const &, std::string const &,         \
                                                 Dataset<ORDINAL> &, std::string *);               \
  template void write_graph_cache<ORDINAL>(std::string const &, std::string const &,               \
                                           Dataset<ORDINAL> const &);                              \
  template Dataset<ORDINAL> load_with_cache<ORDINAL>(                                              \
      CacheRequest const &, LoadInfo &, std::function<Dataset<ORDINAL>()> const &,                 \
      std::function<void(Dataset<ORDINAL> &)> const &);
TTGNN_INSTANTIATE_CACHE(std::int32_t)
TTGNN_INSTANTIATE_CACHE(std::int64_t)

} // namespace ttgnn
