// Multi-label node targets (one column per task, OGB's ogbn-proteins layout) from text or .npy.
#include "graph/io/table_readers.hpp"

#include "core/error.hpp"
#include "graph/io/line_reader.hpp"
#include "graph/io/npy_reader.hpp"
#include "graph/io/detail/text_parse.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ttgnn::io {

namespace {

/// One entry: 1, 0, or -1 for unknown (-1, nan, empty); false when it is none of them.
bool parse_entry(std::string_view token, std::int8_t &out) {
  token = trim(token);
  if (token.empty() || token == "nan" || token == "NaN" || token == "NAN") {
    out = -1;
    return true;
  }
  double v = 0;
  if (!try_parse_real(token, v))
    return false;
  if (v == 0.0 || v == 1.0 || v == -1.0) {
    out = static_cast<std::int8_t>(v);
    return true;
  }
  return false;
}

std::int64_t count_columns(std::string_view line) {
  return static_cast<std::int64_t>(std::count(line.begin(), line.end(), ',')) + 1;
}

} // namespace

std::int64_t peek_label_columns_text(std::string const &path) {
  LineReader in(path);
  std::string_view line;
  while (in.next(line))
    if (!trim(line).empty())
      return count_columns(line);
  return 0;
}

MultiLabels read_multilabels_text(std::string const &path, std::int64_t num_nodes) {
  LineReader in(path);
  std::string_view line;
  std::int64_t row = 0, tasks = 0;
  MultiLabels out;
  while (in.next(line)) {
    if (row == 0) {
      tasks = count_columns(line);
      out = MultiLabels(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::load::multilabels"),
                        num_nodes, tasks);
    }
    if (row >= num_nodes)
      in.fail("more label rows than the " + std::to_string(num_nodes) + " nodes");
    if (count_columns(line) != tasks)
      in.fail("expected " + std::to_string(tasks) + " comma-separated labels (as on line 1), got " +
              std::to_string(count_columns(line)));
    std::size_t at = 0;
    for (std::int64_t t = 0; t < tasks; ++t) {
      const std::size_t comma = std::min(line.find(',', at), line.size());
      const std::string_view token = line.substr(at, comma - at);
      if (!parse_entry(token, out(row, t)))
        in.fail("label " + std::to_string(t + 1) + " is " + text::quoted(trim(token)) +
                ", expected 0, 1, or -1 / nan / an empty field for unknown");
      at = comma + 1;
    }
    ++row;
  }
  if (row != num_nodes)
    throw InputError(path + ": " + std::to_string(row) + " label rows for " +
                     std::to_string(num_nodes) + " nodes");
  return out;
}

MultiLabels read_multilabels_npy(std::string const &path, std::string const &member,
                                 std::int64_t num_nodes) {
  NpyReader r =
      member.empty() ? NpyReader::open_file(path) : NpyReader::open_npz_member(path, member);
  auto const &h = r.header();
  if (h.shape.size() != 2 || h.shape[0] != num_nodes || h.shape[1] < 1)
    throw InputError(r.where() + ": expected multi-label targets of shape (" +
                     std::to_string(num_nodes) + ", T)");
  const std::int64_t tasks = h.shape[1];
  MultiLabels out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::load::multilabels"),
                  num_nodes, tasks);
  const std::int64_t total = num_nodes * tasks;
  std::vector<double> buffer(static_cast<std::size_t>(std::min<std::int64_t>(total, 1 << 20)));
  for (std::int64_t at = 0; at < total;) {
    const std::int64_t n = std::min<std::int64_t>(total - at, buffer.size());
    r.read(buffer.data(), n);
    for (std::int64_t k = 0; k < n; ++k) {
      const std::int64_t flat = at + k;
      // C order: flat = row * T + task; Fortran order: flat = task * N + row
      const std::int64_t row = h.fortran_order ? flat % num_nodes : flat / tasks;
      const std::int64_t task = h.fortran_order ? flat / num_nodes : flat % tasks;
      const double v = buffer[k];
      if (std::isnan(v) || v == -1.0)
        out(row, task) = -1;
      else if (v == 0.0 || v == 1.0)
        out(row, task) = static_cast<std::int8_t>(v);
      else
        throw InputError(r.where() + ": label (" + std::to_string(row) + ", " +
                         std::to_string(task) + ") is " + std::to_string(v) +
                         ", expected 0, 1, -1 or NaN");
    }
    at += n;
  }
  return out;
}

} // namespace ttgnn::io
