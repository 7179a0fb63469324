// write_sbm_dataset: a generated dataset in the OGB raw layout, through OgbWriter.
#include "core/detail/instantiate.hpp"
#include "core/error.hpp"
#include "core/counter_rng.hpp"
#include "graph/io/ogb_writer.hpp"
#include "graph/synth/detail/sbm_detail.hpp"
#include "graph/synth/sbm_generator.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace ttgnn {

namespace {

/// Slack at the end of a block's text: put() hands std::to_chars a 32-byte window.
constexpr std::size_t kWindow = 32;
/// Most bytes of one value of an integer column: 20 characters of an int64, and the newline.
constexpr std::size_t kColumnBytes = 21;
/// Most bytes of one edge line: two int32 of at most 11 characters, each with its separator.
constexpr std::size_t kEdgeLineBytes = 24;
/// Bytes of one edge feature, "0.ddd" and its separator.
constexpr std::size_t kEdgeFeatureBytes = 6;
/// Most bytes of one node feature: put_quantum's 26 and the separator.
constexpr std::size_t kFeatureBytes = 27;
/// Values per block of the wide files, per line of an edge-file block: 4 binary labels or 2
/// features. A label with its separator is 2 bytes, a (node or edge) feature 6 to 8 and an
/// edge line 12 to 16 for most graph sizes, so every file's blocks hold about as many bytes.
constexpr std::int64_t kLabelsPerLine = 4;
constexpr std::int64_t kFeaturesPerLine = 2;

/// Appends \p v and then \p sep at \p p (enough room assumed); returns the new end.
template <class T> char *put(char *p, T v, char sep) {
  p = std::to_chars(p, p + kWindow, v).ptr;
  *p++ = sep;
  return p;
}

/// A block formatter for one integer column (labels, node ids of a split).
template <class View> OgbWriter::BlockFormatter column(View values, std::int64_t rows_per_block) {
  return [=](std::int64_t block, std::string &out) {
    const std::int64_t first = block * rows_per_block;
    const std::int64_t last = std::min<std::int64_t>(first + rows_per_block, values.extent(0));
    out.resize(static_cast<std::size_t>(last - first) * kColumnBytes + kWindow);
    char *p = out.data();
    for (std::int64_t i = first; i < last; ++i)
      p = put(p, values(i), '\n');
    out.resize(p - out.data());
  };
}

std::int64_t blocks(std::int64_t rows, std::int64_t per_block) {
  return (rows + per_block - 1) / per_block;
}

std::string strip_quotes(std::string s) {
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"')
    s = s.substr(1, s.size() - 2);
  return s;
}

void say(SbmGenerator::Progress const &progress, std::string const &what) {
  if (progress)
    progress("write: " + what);
}

/// Throws ConfigError unless \p name can be one folder under split/.
void check_split_name(std::string const &name) {
  if (name.empty() || name.find('/') != std::string::npos || name.front() == '.')
    throw ConfigError("--split-name must be a plain folder name, got '" + name + "'");
}

/// raw/edge.csv: one "u,v" line per edge.
template <class ExecutionSpace>
void write_edge_list(ExecutionSpace const &space, OgbWriter &writer,
                     SbmGenerator::Edges const &edges, std::int64_t lines_per_block) {
  const std::int64_t e = edges.size();
  auto keys = edges.keys;
  writer.write_blocks(
      space, "raw/edge.csv", blocks(e, lines_per_block), [=](std::int64_t block, std::string &out) {
        const std::int64_t first = block * lines_per_block;
        const std::int64_t last = std::min(first + lines_per_block, e);
        out.resize(static_cast<std::size_t>(last - first) * kEdgeLineBytes + kWindow);
        char *p = out.data();
        for (std::int64_t i = first; i < last; ++i) {
          p = put(p, SbmGenerator::Edges::source(keys(i)), ',');
          p = put(p, SbmGenerator::Edges::target(keys(i)), '\n');
        }
        out.resize(p - out.data());
      });
}

/// raw/node-label.csv with one binary column per task ("nan" where unknown).
template <class ExecutionSpace>
void write_multilabels(ExecutionSpace const &space, OgbWriter &writer,
                       SbmGenerator const &generator, SbmMultilabelOptions const &options,
                       std::int64_t lines_per_block) {
  SbmConfig const &c = generator.config();
  const std::int64_t n = generator.num_nodes();
  const int tasks = options.tasks;
  const auto y = sbm_multilabels(generator.communities(),
                                 std::int64_t{c.num_classes} * c.communities, options);
  const std::int64_t rows_per_block =
      std::max<std::int64_t>(1, kLabelsPerLine * lines_per_block / tasks);
  writer.write_blocks(space, "raw/node-label.csv", blocks(n, rows_per_block),
                      [=](std::int64_t block, std::string &out) {
                        const std::int64_t first = block * rows_per_block;
                        const std::int64_t last = std::min(first + rows_per_block, n);
                        out.clear();
                        for (std::int64_t v = first; v < last; ++v)
                          for (int t = 0; t < tasks; ++t) {
                            out += y(v, t) < 0 ? "nan" : y(v, t) ? "1" : "0";
                            out += t + 1 < tasks ? ',' : '\n';
                          }
                      });
}

/// raw/edge-feat.csv: \p k features per edge, uniform multiples of 0.001 in [0, 1), drawn
/// from the edge's own stream.
template <class ExecutionSpace>
void write_edge_features(ExecutionSpace const &space, OgbWriter &writer, std::uint64_t seed,
                         std::int64_t e, int k, std::int64_t lines_per_block) {
  const std::int64_t rows_per_block =
      std::max<std::int64_t>(1, kFeaturesPerLine * lines_per_block / k);
  writer.write_blocks(
      space, "raw/edge-feat.csv", blocks(e, rows_per_block),
      [=](std::int64_t block, std::string &out) {
        const std::int64_t first = block * rows_per_block;
        const std::int64_t last = std::min(first + rows_per_block, e);
        out.resize(static_cast<std::size_t>(last - first) * k * kEdgeFeatureBytes + kWindow);
        char *p = out.data();
        for (std::int64_t i = first; i < last; ++i) {
          CounterRng rng(seed, sbm_detail::stream::edge_features, static_cast<std::uint64_t>(i));
          for (int j = 0; j < k; ++j) {
            const auto milli = static_cast<int>(rng.below(1000));
            *p++ = '0';
            *p++ = '.';
            *p++ = static_cast<char>('0' + milli / 100);
            *p++ = static_cast<char>('0' + milli / 10 % 10);
            *p++ = static_cast<char>('0' + milli % 10);
            *p++ = j + 1 < k ? ',' : '\n';
          }
        }
        out.resize(p - out.data());
      });
}

/// raw/node-feat.csv: the generator's features, each written exactly as its 1e-4 multiple.
template <class ExecutionSpace>
void write_node_features(ExecutionSpace const &space, OgbWriter &writer,
                         SbmGenerator const &generator, std::int64_t lines_per_block) {
  const std::int64_t n = generator.num_nodes();
  const int f = generator.config().num_features;
  const std::int64_t rows_per_block =
      std::max<std::int64_t>(1, kFeaturesPerLine * lines_per_block / f);
  const auto labels = generator.labels();
  writer.write_blocks(
      space, "raw/node-feat.csv", blocks(n, rows_per_block),
      [=](std::int64_t block, std::string &out) {
        const std::int64_t first = block * rows_per_block;
        const std::int64_t rows = std::min(rows_per_block, n - first);
        std::vector<float> x(static_cast<std::size_t>(rows) * f);
        generator.node_features(labels, first, rows, x.data());
        out.resize(x.size() * kFeatureBytes + kWindow);
        char *p = out.data();
        for (std::int64_t i = 0; i < rows; ++i)
          for (int j = 0; j < f; ++j) {
            // exact: the value is the float nearest to k / 10^4
            p = sbm_detail::put_quantum(
                p, std::llround(static_cast<double>(x[i * f + j]) * sbm_detail::kQuantum));
            *p++ = j + 1 < f ? ',' : '\n';
          }
        out.resize(p - out.data());
      },
      OgbWriter::Compression::huffman);
}

/// split/<dir>/{train,valid,test}.csv.
template <class ExecutionSpace>
void write_split(ExecutionSpace const &space, OgbWriter &writer, SbmGenerator::Split const &split,
                 std::string const &dir, std::int64_t lines_per_block) {
  writer.write_blocks(space, dir + "train.csv", blocks(split.train.extent(0), lines_per_block),
                      column(split.train, lines_per_block));
  writer.write_blocks(space, dir + "valid.csv", blocks(split.valid.extent(0), lines_per_block),
                      column(split.valid, lines_per_block));
  writer.write_blocks(space, dir + "test.csv", blocks(split.test.extent(0), lines_per_block),
                      column(split.test, lines_per_block));
}

/// meta.csv: the keys of the bundled datasets, then the generation record (sbm_*).
std::string meta_csv(SbmConfig const &c, std::int64_t n, std::int64_t e,
                     SbmWriteOptions const &options,
                     std::vector<std::pair<std::string, std::string>> const &record) {
  const int tasks = options.multilabel.tasks;
  std::string meta = "key,value\n";
  auto row = [&](std::string const &k, std::string const &v) { meta += k + "," + v + "\n"; };
  row("num_nodes", std::to_string(n));
  row("num_edges", std::to_string(e));
  row("num_classes", tasks > 0 ? "2" : std::to_string(c.num_classes));
  row("num_features", std::to_string(c.num_features));
  row("add_inverse_edge", "True");
  row("is_directed", "False");
  row("splits", options.split_name);
  row("source", "ttgnn generate");
  row("num tasks", std::to_string(tasks > 0 ? tasks : 1));
  row("task type", tasks > 0 ? "binary classification" : "multiclass classification");
  row("eval metric", tasks > 0 ? "rocauc" : "acc");
  row("multilabel", tasks > 0 ? "True" : "False");
  row("num_unlabeled", "0");
  row("version", "1");
  row("has_node_attr", c.num_features > 0 ? "True" : "False");
  row("has_edge_attr", options.edge_features > 0 ? "True" : "False");
  row("split", options.split_name);
  row("additional node files", "None");
  row("additional edge files", "None");
  row("is hetero", "False");
  row("binary", "False");
  for (auto const &[key, value] : record)
    row("sbm_" + key, strip_quotes(value));
  return meta;
}

} // namespace

template <class ExecutionSpace, HostOnly<ExecutionSpace> host_only>
std::vector<std::pair<std::string, std::string>>
write_sbm_dataset(ExecutionSpace const &space, SbmGenerator const &generator,
                  SbmGenerator::Edges const &edges, std::string const &out_dir,
                  SbmWriteOptions const &options, SbmGenerator::Progress const &progress) {
  check_split_name(options.split_name);
  OgbWriter writer(out_dir, options.gzip, options.force);
  writer.set_progress(progress);
  SbmConfig const &c = generator.config();
  const std::int64_t n = generator.num_nodes(), e = edges.size();
  writer.write_table("raw/num-node-list.csv", std::to_string(n) + "\n");
  writer.write_table("raw/num-edge-list.csv", std::to_string(e) + "\n");

  const std::int64_t lines_per_block = std::max<std::int64_t>(1, options.block_lines);
  write_edge_list(space, writer, edges, lines_per_block);
  say(progress, "raw/edge.csv: " + std::to_string(e) + " edges");
  if (const int tasks = options.multilabel.tasks; tasks > 0) {
    write_multilabels(space, writer, generator, options.multilabel, lines_per_block);
    say(progress, "raw/node-label.csv: " + std::to_string(tasks) + " binary tasks");
  } else {
    writer.write_blocks(space, "raw/node-label.csv", blocks(n, lines_per_block),
                        column(generator.labels(), lines_per_block));
    say(progress, "raw/node-label.csv");
  }
  if (const int k = options.edge_features; k > 0) {
    write_edge_features(space, writer, c.seed, e, k, lines_per_block);
    say(progress, "raw/edge-feat.csv: " + std::to_string(e) + " x " + std::to_string(k));
  }
  if (const int f = c.num_features; f > 0) {
    write_node_features(space, writer, generator, lines_per_block);
    say(progress, "raw/node-feat.csv: " + std::to_string(n) + " x " + std::to_string(f));
  }
  const std::string dir = "split/" + options.split_name + "/";
  write_split(space, writer, generator.split(), dir, lines_per_block);
  say(progress, dir + "{train,valid,test}.csv");

  auto record = generator.record(edges);
  writer.write_plain("meta.csv", meta_csv(c, n, e, options, record));
  writer.write_plain("RELEASE_v1.txt", "Synthetic dataset written by ttgnn generate "
                                       "(degree-corrected SBM); see meta.csv.\n");
  writer.commit();
  say(progress, "done: " + writer.out_dir());
  return record;
}

#define TTGNN_INSTANTIATE_WRITE_SBM(SPACE)                                                         \
  template std::vector<std::pair<std::string, std::string>> write_sbm_dataset<SPACE>(              \
      SPACE const &, SbmGenerator const &, SbmGenerator::Edges const &, std::string const &,       \
      SbmWriteOptions const &, SbmGenerator::Progress const &);
TTGNN_INSTANTIATE_SERIAL(TTGNN_INSTANTIATE_WRITE_SBM)
TTGNN_INSTANTIATE_OPENMP(TTGNN_INSTANTIATE_WRITE_SBM)
#undef TTGNN_INSTANTIATE_WRITE_SBM

} // namespace ttgnn
