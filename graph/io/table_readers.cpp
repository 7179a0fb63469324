// The text side of the table readers (plain or gzip, streamed, parsed in parallel blocks).
#include "graph/io/table_readers.hpp"

#include "core/error.hpp"
#include "graph/io/line_reader.hpp"
#include "graph/io/detail/text_parse.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

namespace ttgnn::io {

namespace {

/// Splits an edge line into its two id tokens; false when it has not exactly two.
bool split_pair(std::string_view line, bool any_separator, std::string_view &a,
                std::string_view &b) {
  char sep = ',';
  if (any_separator && line.find(',') == std::string_view::npos)
    sep = line.find('\t') != std::string_view::npos ? '\t' : ' ';
  if (sep == ' ') {
    line = trim(line);
    const std::size_t gap = line.find_first_of(" \t");
    if (gap == std::string_view::npos)
      return false;
    a = line.substr(0, gap);
    b = trim(line.substr(gap));
    return !b.empty() && b.find_first_of(" \t") == std::string_view::npos;
  }
  const std::size_t at = line.find(sep);
  if (at == std::string_view::npos || line.find(sep, at + 1) != std::string_view::npos)
    return false;
  a = line.substr(0, at);
  b = line.substr(at + 1);
  return true;
}

template <class Ordinal> struct EdgeLineParser {
  std::int64_t num_nodes;
  EdgeTextFormat format;
  std::int64_t max_id = static_cast<std::int64_t>(std::numeric_limits<Ordinal>::max()) - 1;

  bool skip(std::string_view line) const {
    const std::string_view t = trim(line);
    return t.empty() || (format.comments && t.front() == '#');
  }
  /// Parses one line into (out_src, out_dst); returns "" or what was wrong.
  std::string parse(std::string_view line, std::vector<Ordinal> &out_src,
                    std::vector<Ordinal> &out_dst, std::int64_t &seen_max) const {
    std::string_view a, b;
    if (!split_pair(line, format.any_separator, a, b))
      return std::string("expected two node ids separated by ") +
             (format.any_separator ? "',', a tab or spaces" : "','") + ", got " +
             text::quoted(line);
    std::int64_t u = -1, v = -1;
    std::string msg = text::check_node_id(a, num_nodes, max_id, u);
    if (msg.empty())
      msg = text::check_node_id(b, num_nodes, max_id, v);
    if (!msg.empty())
      return msg;
    out_src.push_back(static_cast<Ordinal>(u));
    out_dst.push_back(static_cast<Ordinal>(v));
    seen_max = std::max(seen_max, std::max(u, v));
    return "";
  }
};

/// Parses one label token: -1 for nan, the class otherwise; "" or what was wrong in \p msg.
std::int32_t parse_label(std::string_view token, std::string &msg) {
  token = trim(token);
  if (token == "nan" || token == "NaN" || token == "NAN")
    return -1;
  std::int64_t v = -1;
  bool ok = try_parse_int(token, v);
  if (!ok) {
    double d = 0;
    ok = try_parse_real(token, d) && std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 1e9;
    v = ok ? static_cast<std::int64_t>(d) : -1;
  }
  if (!ok || v < 0 || v > std::numeric_limits<std::int32_t>::max()) {
    msg = "expected a non-negative integer label or nan, got '" + std::string(token) + "'";
    return -1;
  }
  return static_cast<std::int32_t>(v);
}

} // namespace

namespace {

/// The edges parsed from one piece of a block (one cache line or more apart: threads appending
/// to vectors whose headers share a line would contend for it on every edge).
template <class Ordinal> struct alignas(64) PieceEdges {
  std::vector<Ordinal> src, dst;
  std::int64_t max_id = -1;
};

/// \brief Streams the edge lines of \p path: parses each block of lines in parallel pieces and
/// calls `on_block(pieces)` with the pieces of the block, in file order (the prelude line of a
/// header / comment format comes as a block of its own). Holds one block, never the file.
template <class Ordinal, class OnBlock>
void stream_edges_text(std::string const &path, std::int64_t num_nodes,
                       EdgeTextFormat const &format, OnBlock &&on_block) {
  LineReader in(path);
  EdgeLineParser<Ordinal> parser{num_nodes, format};
  std::string_view line;
  if (format.header || format.comments) { // serial prelude: comments, then a possible header
    std::vector<PieceEdges<Ordinal>> first(1);
    while (in.next(line)) {
      if (parser.skip(line))
        continue;
      const std::string msg = parser.parse(line, first[0].src, first[0].dst, first[0].max_id);
      // a header is text: letters, and no control bytes (binary garbage is not a header)
      const bool has_letter =
          std::any_of(line.begin(), line.end(),
                      [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }) &&
          std::none_of(line.begin(), line.end(), [](char c) {
            const auto u = static_cast<unsigned char>(c);
            return (u < 0x20 && u != '\t') || u == 0x7f;
          });
      if (!msg.empty() && !(format.header && has_letter))
        in.fail(msg);
      break;
    }
    on_block(first);
  }
  const int pieces = text::host_pieces();
  std::vector<PieceEdges<Ordinal>> piece(pieces);
  text::FirstError error;
  std::string_view block;
  std::int64_t first_line = 0;
  while (in.next_block(block, first_line)) {
    for (auto &e : piece) {
      e.src.clear();
      e.dst.clear();
    }
    text::for_each_piece(block, first_line, pieces,
                         [&](int p, std::int64_t line0, std::int64_t, std::string_view text) {
                           std::int64_t ln = line0;
                           PieceEdges<Ordinal> &e = piece[p];
                           text::for_each_line(text, [&](std::string_view l) {
                             if (!parser.skip(l)) {
                               std::string msg = parser.parse(l, e.src, e.dst, e.max_id);
                               if (!msg.empty()) {
                                 error.record(ln, std::move(msg));
                                 return false;
                               }
                             }
                             ++ln;
                             return true;
                           });
                         });
    error.throw_if_any(path);
    on_block(piece);
  }
}

} // namespace

template <class Ordinal>
EdgeList<Ordinal> read_edges_text(std::string const &path, std::int64_t num_nodes,
                                  EdgeTextFormat const &format, std::int64_t expected_edges) {
  EdgeList<Ordinal> out;
  if (expected_edges > 0) {
    out.src.reserve(expected_edges);
    out.dst.reserve(expected_edges);
  }
  stream_edges_text<Ordinal>(path, num_nodes, format,
                             [&](std::vector<PieceEdges<Ordinal>> const &pieces) {
                               for (auto const &e : pieces) {
                                 out.src.insert(out.src.end(), e.src.begin(), e.src.end());
                                 out.dst.insert(out.dst.end(), e.dst.begin(), e.dst.end());
                                 out.max_id = std::max(out.max_id, e.max_id);
                               }
                             });
  return out;
}

template <class Ordinal>
CsrGraph<Ordinal, Kokkos::HostSpace>
read_edges_text_csr(std::string const &path, std::int64_t num_nodes, EdgeTextFormat const &format,
                    CsrBuildOptions const &options, std::int64_t *num_edges,
                    ProgressLog const &progress, std::int64_t expected_edges) {
  using Host = Kokkos::DefaultHostExecutionSpace;
  using Offset = std::int64_t;
  if (num_nodes <= 0)
    throw ConfigError(path + ": read_edges_text_csr needs the number of nodes (> 0) up front");
  const std::int64_t n = num_nodes;
  const bool sym = options.symmetrize;
  CsrGraph<Ordinal, Kokkos::HostSpace> g;
  // Pass 1: arcs per row, counted at row_map(u + 1).
  g.row_map = decltype(g.row_map)("ttgnn::csr_stream::row_map", n + 1);
  auto row_map = g.row_map;
  std::int64_t edges = 0;
  const ProgressLog log = expected_edges > 0 ? progress : ProgressLog();
  ProgressMeter meter1(log, "read " + path + ", pass 1/2", expected_edges, "edges");
  auto for_pieces = [](std::vector<PieceEdges<Ordinal>> const &pieces, auto const &arc) {
    const auto np = static_cast<std::int64_t>(pieces.size());
    Kokkos::parallel_for("ttgnn::csr_stream::pieces", Kokkos::RangePolicy<Host>(0, np),
                         [&](std::int64_t p) {
                           auto const &e = pieces[p];
                           for (std::size_t k = 0; k < e.src.size(); ++k)
                             if (e.src[k] != e.dst[k])
                               arc(e.src[k], e.dst[k]);
                         });
  };
  stream_edges_text<Ordinal>(path, n, format, [&](std::vector<PieceEdges<Ordinal>> const &pieces) {
    for (auto const &e : pieces)
      edges += static_cast<std::int64_t>(e.src.size());
    for_pieces(pieces, [&](Ordinal u, Ordinal v) {
      Kokkos::atomic_add(&row_map(u + 1), Offset(1));
      if (sym)
        Kokkos::atomic_add(&row_map(v + 1), Offset(1));
    });
    meter1.update(std::min(edges, expected_edges));
  });
  const Offset loops = options.self_loops ? 1 : 0;
  for (std::int64_t i = 0; i < n; ++i) // inclusive scan in place: row_map(i + 1) = end of row i
    row_map(i + 1) += row_map(i) + loops;
  const Offset raw_arcs = row_map(n);
  // Pass 2: every arc at the next free slot of its row (one cursor per row).
  Kokkos::View<Ordinal *, Kokkos::HostSpace> entries(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::csr_stream::entries"), raw_arcs);
  {
    Kokkos::View<Offset *, Kokkos::HostSpace> cursor(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::csr_stream::cursor"), n);
    Kokkos::parallel_for("ttgnn::csr_stream::cursor", Kokkos::RangePolicy<Host>(0, n),
                         [=](std::int64_t i) { cursor(i) = row_map(i); });
    std::int64_t edges2 = 0, overflow = 0;
    ProgressMeter meter2(log, "read " + path + ", pass 2/2", expected_edges, "edges");
    stream_edges_text<Ordinal>(
        path, n, format, [&](std::vector<PieceEdges<Ordinal>> const &pieces) {
          for (auto const &e : pieces)
            edges2 += static_cast<std::int64_t>(e.src.size());
          for_pieces(pieces, [&](Ordinal u, Ordinal v) {
            auto put = [&](Ordinal a, Ordinal b) {
              const Offset at = Kokkos::atomic_fetch_add(&cursor(a), Offset(1));
              if (at < row_map(a + 1) - loops)
                entries(at) = b;
              else
                Kokkos::atomic_add(&overflow, std::int64_t(1));
            };
            put(u, v);
            if (sym)
              put(v, u);
          });
          meter2.update(std::min(edges2, expected_edges));
        });
    if (edges2 != edges || overflow != 0)
      throw InputError(path + ": the file changed while it was read (" + std::to_string(edges) +
                       " edges in the first pass, " + std::to_string(edges2) + " in the second)");
    if (loops)
      for (std::int64_t v = 0; v < n; ++v)
        entries(row_map(v + 1) - 1) = static_cast<Ordinal>(v);
  }
  // Sort every row in place, then squeeze duplicates out in one serial in-place pass (rows only
  // move left, so no row overwrites one not yet read).
  Kokkos::parallel_for("ttgnn::csr_stream::sort_rows",
                       Kokkos::RangePolicy<Host, Kokkos::Schedule<Kokkos::Dynamic>>(0, n),
                       [=](std::int64_t i) {
                         std::sort(entries.data() + row_map(i), entries.data() + row_map(i + 1));
                       });
  Offset out = 0, begin = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const Offset end = row_map(i + 1);
    row_map(i) = out;
    for (Offset k = begin; k < end; ++k)
      if (k == begin || entries(k) != entries(k - 1))
        entries(out++) = entries(k);
    begin = end;
  }
  row_map(n) = out;
  // Duplicates leave room at the end: kept (a copy would double the peak), not addressed.
  g.entries = Kokkos::subview(entries, std::make_pair(Offset(0), out));
  if (num_edges)
    *num_edges = edges;
  return g;
}

std::int64_t read_count_text(std::string const &path) {
  LineReader in(path);
  std::string_view line;
  if (!in.next(line))
    throw InputError(path + ": empty file (expected one integer)");
  std::int64_t v = -1;
  const bool parsed = try_parse_int(line, v);
  if (!parsed || v < 0)
    in.fail("expected one non-negative integer, got " + text::quoted(trim(line)) +
            (!parsed && text::is_integer_text(line) ? " (does not fit 64 bits)" : ""));
  while (in.next(line))
    if (!trim(line).empty())
      in.fail("expected one integer (one graph) but the file has more lines");
  return v;
}

Kokkos::View<std::int32_t *, Kokkos::HostSpace> read_labels_text(std::string const &path,
                                                                 std::int64_t num_nodes) {
  Kokkos::View<std::int32_t *, Kokkos::HostSpace> labels(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::load::labels"), num_nodes);
  LineReader in(path);
  std::string_view line;
  std::int64_t row = 0;
  std::string msg;
  while (in.next(line)) {
    if (line.find(',') != std::string_view::npos)
      in.fail("expected one label per line; multi-label files (one column per class) are not "
              "supported");
    if (row >= num_nodes)
      in.fail("more label lines than the " + std::to_string(num_nodes) + " nodes");
    labels(row++) = parse_label(line, msg);
    if (!msg.empty())
      in.fail(msg);
  }
  if (row != num_nodes)
    throw InputError(path + ": " + std::to_string(row) + " label lines for " +
                     std::to_string(num_nodes) + " nodes");
  return labels;
}

std::vector<std::int64_t> read_ints_text(std::string const &path, std::int64_t num_nodes,
                                         std::function<std::string(std::int64_t)> const &check) {
  LineReader in(path);
  std::string_view line;
  std::vector<std::int64_t> ids;
  std::vector<bool> seen(static_cast<std::size_t>(std::max<std::int64_t>(num_nodes, 0)));
  while (in.next(line)) {
    if (trim(line).empty())
      continue;
    std::int64_t id = -1;
    if (num_nodes < 0) {
      if (!try_parse_int(line, id))
        in.fail("expected an integer, got '" + std::string(trim(line)) + "'");
    } else if (std::string msg = text::check_node_id(line, num_nodes, num_nodes, id);
               !msg.empty()) {
      in.fail(msg);
    }
    if (num_nodes >= 0) {
      if (seen[static_cast<std::size_t>(id)])
        in.fail("node " + std::to_string(id) + " is listed twice (a split lists each node once)");
      seen[static_cast<std::size_t>(id)] = true;
    }
    if (check)
      if (std::string msg = check(id); !msg.empty())
        in.fail(msg);
    ids.push_back(id);
  }
  return ids;
}

std::map<std::string, std::string> read_key_values(std::string const &path) {
  LineReader in(path);
  std::string_view line;
  std::map<std::string, std::string> kv;
  while (in.next(line)) {
    if (trim(line).empty())
      continue;
    const std::size_t comma = line.find(',');
    if (comma == std::string_view::npos)
      in.fail("expected 'key,value', got '" + std::string(line) + "'");
    std::string key(trim(line.substr(0, comma)));
    if (in.line_number() == 1 && key == "key")
      continue;
    kv[key] = std::string(trim(line.substr(comma + 1)));
  }
  return kv;
}

#define TTGNN_INSTANTIATE_READERS(ORDINAL)                                                         \
  template EdgeList<ORDINAL> read_edges_text<ORDINAL>(std::string const &, std::int64_t,           \
                                                      EdgeTextFormat const &, std::int64_t);       \
  template CsrGraph<ORDINAL, Kokkos::HostSpace> read_edges_text_csr<ORDINAL>(                      \
      std::string const &, std::int64_t, EdgeTextFormat const &, CsrBuildOptions const &,          \
      std::int64_t *, ProgressLog const &, std::int64_t);
TTGNN_INSTANTIATE_READERS(std::int32_t)
TTGNN_INSTANTIATE_READERS(std::int64_t)

} // namespace ttgnn::io
