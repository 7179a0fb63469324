#ifndef TTGNN_GRAPH_TEXT_PARSE_HPP
#define TTGNN_GRAPH_TEXT_PARSE_HPP
/// \file text_parse.hpp
/// \brief Small helpers shared by the text loaders (numbers: core/parse_number.hpp): quoting,
/// token splitting, and parsing a block of lines in parallel on the host while reporting the
/// first error by file and line.

#include "core/error.hpp"
#include "core/parse_number.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace ttgnn::text {

/// \p s (at most \p max bytes, then "...") in single quotes, with every byte that is not
/// printable ASCII written as \xNN, so binary garbage in an input gives a readable message.
inline std::string quoted(std::string_view s, std::size_t max = 80) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out = "'";
  for (std::size_t i = 0; i < s.size() && i < max; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out + (s.size() > max ? "...'" : "'");
}

/// True when \p s (trimmed) is an optional sign and digits only: an integer, perhaps too large.
inline bool is_integer_text(std::string_view s) {
  s = trim(s);
  if (!s.empty() && (s.front() == '+' || s.front() == '-'))
    s.remove_prefix(1);
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// Checks a node id token: a non-negative integer below \p num_nodes (no bound when
/// num_nodes <= 0, except that it must fit \p max_id). Returns "" or what was wrong.
inline std::string check_node_id(std::string_view token, std::int64_t num_nodes,
                                 std::int64_t max_id, std::int64_t &id) {
  if (!try_parse_int(token, id))
    return is_integer_text(token) ? "node id " + quoted(trim(token)) + " does not fit 64 bits"
                                  : "expected an integer node id, got " + quoted(trim(token));
  if (id < 0)
    return "node id " + std::to_string(id) + " is negative";
  if (num_nodes > 0 && id >= num_nodes)
    return "node id " + std::to_string(id) + " >= number of nodes " + std::to_string(num_nodes);
  if (id > max_id)
    return "node id " + std::to_string(id) + " does not fit the ordinal type";
  return "";
}

/// \brief The earliest error found by parallel workers, as "file:line: what".
class FirstError {
public:
  void record(std::int64_t line, std::string what) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (line < line_) {
      line_ = line;
      what_ = std::move(what);
    }
  }
  bool any() const { return line_ != std::numeric_limits<std::int64_t>::max(); }
  /// Throws InputError "<path>:<line>: <what>" when an error was recorded.
  void throw_if_any(std::string const &path) const {
    if (any())
      throw InputError(path + ":" + std::to_string(line_) + ": " + what_);
  }

private:
  std::mutex mutex_;
  std::int64_t line_ = std::numeric_limits<std::int64_t>::max();
  std::string what_;
};

/// Work (elements touched) below which host loops run without a parallel region: starting one
/// costs more than small work, and much more on a machine shared with other jobs.
constexpr std::int64_t parallel_threshold = std::int64_t(1) << 18;

/// Calls f(i) for i in [0, n) on the host, in parallel when \p work >= parallel_threshold.
template <class F> void host_for(char const *label, std::int64_t n, std::int64_t work, F const &f) {
  if (work < parallel_threshold) {
    for (std::int64_t i = 0; i < n; ++i)
      f(i);
    return;
  }
  Kokkos::parallel_for(label, Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, n), f);
}

/// Sums f(i, acc) contributions over [0, n) on the host, in parallel when work is large.
template <class F>
std::int64_t host_sum(char const *label, std::int64_t n, std::int64_t work, F const &f) {
  std::int64_t total = 0;
  if (work < parallel_threshold) {
    for (std::int64_t i = 0; i < n; ++i)
      f(i, total);
    return total;
  }
  Kokkos::parallel_reduce(label, Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, n), f,
                          total);
  return total;
}

/// \brief Splits \p block (whole lines) into up to \p num_pieces pieces at line ends and calls
/// `fn(piece, first_line_of_piece, first_line_index_of_piece, text)` for each, in parallel on the
/// host. `first_line_index_of_piece` counts lines from the start of the block (0-based), so a
/// parser that maps line k of a block to row `row0 + k` can write straight to its output.
/// \p fn must not throw: record errors in a FirstError instead.
template <class Fn>
void for_each_piece(std::string_view block, std::int64_t first_line, int num_pieces, Fn &&fn) {
  num_pieces = std::max(1, std::min<int>(num_pieces, static_cast<int>(block.size() >> 16) + 1));
  std::vector<std::size_t> cut(num_pieces + 1, block.size());
  cut[0] = 0;
  for (int p = 1; p < num_pieces; ++p) {
    const std::size_t at = std::max(cut[p - 1], block.size() * p / num_pieces);
    const std::size_t nl = block.find('\n', at);
    cut[p] = nl == std::string_view::npos ? block.size() : nl + 1;
  }
  if (num_pieces == 1) { // no parallel region for a small block
    fn(0, first_line, std::int64_t(0), block);
    return;
  }
  std::vector<std::int64_t> lines_before(num_pieces + 1, 0);
  using Host = Kokkos::DefaultHostExecutionSpace;
  Kokkos::parallel_for("ttgnn::text::count_lines", Kokkos::RangePolicy<Host>(0, num_pieces),
                       [&](int p) {
                         lines_before[p + 1] = static_cast<std::int64_t>(
                             std::count(block.begin() + cut[p], block.begin() + cut[p + 1], '\n'));
                       });
  for (int p = 0; p < num_pieces; ++p)
    lines_before[p + 1] += lines_before[p];
  Kokkos::parallel_for("ttgnn::text::parse_lines", Kokkos::RangePolicy<Host>(0, num_pieces),
                       [&](int p) {
                         fn(p, first_line + lines_before[p], lines_before[p],
                            block.substr(cut[p], cut[p + 1] - cut[p]));
                       });
}

/// Calls `fn(line)` for each line of \p text (a piece from for_each_piece), without the '\n'.
template <class Fn> void for_each_line(std::string_view text, Fn &&fn) {
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    if (!fn(line))
      return;
    if (nl == std::string_view::npos)
      return;
    text.remove_prefix(nl + 1);
  }
}

/// Number of pieces to cut a block into: the host concurrency.
inline int host_pieces() {
  return std::max(1, static_cast<int>(Kokkos::DefaultHostExecutionSpace().concurrency()));
}

} // namespace ttgnn::text

#endif
