#include "graph/ogb_summary.hpp"

#include "graph/line_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>

namespace ttgnn {

namespace {

std::string require_file(std::string const &dir, std::string const &name) {
  std::string path = find_ogb_file(dir, name);
  if (path.empty())
    throw InputError(dir + "/raw/" + name + ".csv[.gz]: missing required file");
  return path;
}

std::int64_t read_single_count(std::string const &path) {
  LineReader in(path);
  std::string_view line;
  if (!in.next(line))
    throw InputError(path + ": empty file (expected one integer)");
  std::int64_t v = -1;
  auto [p, ec] = std::from_chars(line.data(), line.data() + line.size(), v);
  if (ec != std::errc() || p != line.data() + line.size() || v < 0)
    in.fail("expected one non-negative integer, got '" + std::string(line) + "'");
  return v;
}

} // namespace

std::string find_ogb_file(std::string const &dir, std::string const &name) {
  namespace fs = std::filesystem;
  for (char const *ext : {".csv.gz", ".csv"}) {
    fs::path p = fs::path(dir) / "raw" / (name + ext);
    if (fs::exists(p))
      return p.string();
  }
  return "";
}

OgbSummary read_ogb_summary(std::string const &dir) {
  OgbSummary s;
  s.num_nodes = read_single_count(require_file(dir, "num-node-list"));
  s.num_edges = read_single_count(require_file(dir, "num-edge-list"));

  if (auto path = find_ogb_file(dir, "node-label"); !path.empty()) {
    LineReader in(path);
    std::string_view line;
    std::int64_t rows = 0;
    while (in.next(line)) {
      ++rows;
      if (line == "nan" || line == "NaN")
        continue;
      std::int64_t label = -1;
      auto [p, ec] = std::from_chars(line.data(), line.data() + line.size(), label);
      if (ec != std::errc() || p != line.data() + line.size() || label < 0)
        in.fail("expected a non-negative integer label or nan, got '" + std::string(line) + "'");
      if (label >= static_cast<std::int64_t>(s.class_counts.size()))
        s.class_counts.resize(label + 1, 0);
      ++s.class_counts[label];
      ++s.num_labelled;
    }
    if (rows != s.num_nodes)
      throw InputError(path + ": " + std::to_string(rows) + " labels for " +
                       std::to_string(s.num_nodes) + " nodes");
    s.num_classes = static_cast<int>(s.class_counts.size());
  }
  if (auto path = find_ogb_file(dir, "node-feat"); !path.empty()) {
    LineReader in(path);
    std::string_view line;
    if (in.next(line))
      s.num_features = 1 + static_cast<std::int64_t>(std::count(line.begin(), line.end(), ','));
  }
  return s;
}

} // namespace ttgnn
