// Fuzzes read_graph_cache (the binary dataset cache). The first input byte is a mode: bit 0
// set means "recompute the trailing checksum" (so mutations reach the size and structure
// checks), bit 1 reads with the other node id width than the file says (the stale path); the
// rest is the file. The key passed is the one stored in
// the file, so the reader never stops at "stale key". read_graph_cache promises never to throw
// for a bad file, so no exception is caught here: any one is a finding.
#include "fuzz_common.hpp"

#include "core/io/checksum.hpp"
#include "graph/io/graph_cache.hpp"

#include <cstring>
#include <vector>

namespace {
/// Reads the header fields the way the cache reader does; false when the bytes are too short.
struct Walk {
  std::vector<std::uint8_t> const &b;
  std::size_t pos = 0;
  bool get(void *p, std::size_t n) {
    if (b.size() - pos < n)
      return false;
    std::memcpy(p, b.data() + pos, n);
    pos += n;
    return true;
  }
  bool string(std::string &s) {
    std::uint64_t n = 0;
    if (!get(&n, 8) || n > b.size() - pos)
      return false;
    s.assign(reinterpret_cast<char const *>(b.data() + pos), n);
    pos += n;
    return true;
  }
};

/// Stored key (or "") and, when \p fix, the checksum rewritten to match the content.
std::string prepare(std::vector<std::uint8_t> &b, bool fix, bool flip_width, bool &wide) {
  Walk w{b};
  char magic[8];
  std::uint32_t ver = 0, ord = 0;
  wide = flip_width;
  std::string key, name, split;
  std::int64_t z[11];
  if (!w.get(magic, 8) || !w.get(&ver, 4) || !w.get(&ord, 4) || !w.string(key) || !w.string(name) ||
      !w.string(split))
    return key;
  wide = (ord == 8) != flip_width; // read with the width it was written for, unless flipped
  const std::size_t ordinal_bytes = ord == 8 ? 8 : 4;
  if (!fix || !w.get(z, sizeof z))
    return key;
  const std::int64_t limit = static_cast<std::int64_t>(b.size());
  for (int i : {0, 1, 2, 4, 6, 7, 8, 9, 10}) // feat_cols and classes take no bytes of their own
    if (z[i] < -1 || z[i] > limit)
      return key;
  if (z[5] < 0)
    return key;
  // nodes, arcs, labels, classes, feat_rows, feat_cols, feat_nnz, years, train, valid, test
  std::vector<std::int64_t> sections{(z[0] + 1) * 8, z[1] * std::int64_t(ordinal_bytes), z[2] * 4};
  if (z[6] >= 0)
    sections.insert(sections.end(), {(z[4] + 1) * 8, z[6] * 4, z[6] * 4});
  else if (z[4] < 0 || (z[4] > 0 && z[5] > limit / z[4]))
    return key;
  else
    sections.push_back(z[4] * z[5] * 4);
  sections.insert(sections.end(), {z[7] * 4, z[8] * 8, z[9] * 8, z[10] * 8});
  std::int64_t at = static_cast<std::int64_t>(w.pos);
  for (auto s : sections)
    at += s;
  if (at + 8 != limit)
    return key;
  std::uint64_t sum = ttgnn::checksum64(b.data(), w.pos, 0);
  std::size_t pos = w.pos;
  for (auto s : sections) {
    sum = ttgnn::parallel_checksum64(b.data() + pos, static_cast<std::size_t>(s), sum);
    pos += static_cast<std::size_t>(s);
  }
  std::memcpy(b.data() + pos, &sum, 8);
  return key;
}

template <class Ordinal> void run(std::string const &path, std::string const &key) {
  ttgnn::Dataset<Ordinal> d;
  std::string detail;
  const auto status = ttgnn::read_graph_cache(path, key, d, &detail);
  static const bool verbose = std::getenv("TTGNN_FUZZ_VERBOSE") != nullptr;
  if (verbose)
    std::fprintf(stderr, "cache: %s %s\n", ttgnn::to_string(status), detail.c_str());
  if (status == ttgnn::CacheStatus::hit) {
    const std::int64_t n = d.num_nodes();
    if (d.graph.row_map(n) != d.graph.num_arcs())
      std::abort();
  } else if (detail.empty()) {
    std::abort(); // a rejected cache always says why
  }
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const *data, std::size_t size) {
  static ttgnn::fuzz::ScratchFile file(".ttgnn");
  if (size < 1)
    return 0;
  std::vector<std::uint8_t> bytes(data + 1, data + size);
  bool wide = false;
  const std::string key = prepare(bytes, (data[0] & 1) != 0, (data[0] & 2) != 0, wide);
  file.write(bytes.data(), bytes.size());
  if (wide)
    run<std::int64_t>(file.path(), key);
  else
    run<std::int32_t>(file.path(), key);
  return 0;
}
