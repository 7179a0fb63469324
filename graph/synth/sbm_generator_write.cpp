// write_sbm_dataset: a generated dataset in the OGB raw layout, through OgbWriter.
#include "core/error.hpp"
#include "core/counter_rng.hpp"
#include "graph/io/ogb_writer.hpp"
#include "graph/synth/detail/sbm_detail.hpp"
#include "graph/synth/sbm_generator.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <vector>

namespace ttgnn {

namespace {

/// Appends \p v and then \p sep at \p p (enough room assumed); returns the new end.
template <class T> char *put(char *p, T v, char sep) {
  p = std::to_chars(p, p + 32, v).ptr;
  *p++ = sep;
  return p;
}

/// A block formatter for one integer column (labels, node ids of a split).
template <class View> OgbWriter::BlockFormatter column(View values, std::int64_t rows_per_block) {
  return [=](std::int64_t block, std::string &out) {
    const std::int64_t first = block * rows_per_block;
    const std::int64_t last = std::min<std::int64_t>(first + rows_per_block, values.extent(0));
    out.resize(static_cast<std::size_t>(last - first) * 21 + 32);
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

} // namespace

template <class ExecutionSpace, HostOnly<ExecutionSpace> host_only>
std::vector<std::pair<std::string, std::string>>
write_sbm_dataset(ExecutionSpace const &space, SbmGenerator const &generator,
                  SbmGenerator::Edges const &edges, std::string const &out_dir,
                  SbmWriteOptions const &options, SbmGenerator::Progress const &progress) {
  if (options.split_name.empty() || options.split_name.find('/') != std::string::npos ||
      options.split_name.front() == '.')
    throw ConfigError("--split-name must be a plain folder name, got '" + options.split_name + "'");
  OgbWriter writer(out_dir, options.gzip, options.force);
  auto say = [&](std::string const &what) {
    if (progress)
      progress("write: " + what);
  };
  SbmConfig const &c = generator.config();
  const std::int64_t n = generator.num_nodes(), e = edges.size();
  writer.write_table("raw/num-node-list.csv", std::to_string(n) + "\n");
  writer.write_table("raw/num-edge-list.csv", std::to_string(e) + "\n");

  const std::int64_t lines_per_block = std::max<std::int64_t>(1, options.block_lines);
  auto keys = edges.keys;
  writer.write_blocks(space, "raw/edge.csv", blocks(e, lines_per_block),
                      [=](std::int64_t block, std::string &out) {
                        const std::int64_t first = block * lines_per_block;
                        const std::int64_t last = std::min(first + lines_per_block, e);
                        out.resize(static_cast<std::size_t>(last - first) * 24 + 32);
                        char *p = out.data();
                        for (std::int64_t i = first; i < last; ++i) {
                          p = put(p, SbmGenerator::Edges::source(keys(i)), ',');
                          p = put(p, SbmGenerator::Edges::target(keys(i)), '\n');
                        }
                        out.resize(p - out.data());
                      });
  say("raw/edge.csv: " + std::to_string(e) + " edges");
  const int tasks = options.multilabel.tasks;
  if (tasks > 0) {
    const auto y = sbm_multilabels(generator.communities(),
                                   std::int64_t{c.num_classes} * c.communities, options.multilabel);
    const std::int64_t rows_per_block = std::max<std::int64_t>(1, 4 * lines_per_block / tasks);
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
    say("raw/node-label.csv: " + std::to_string(tasks) + " binary tasks");
  } else {
    writer.write_blocks(space, "raw/node-label.csv", blocks(n, lines_per_block),
                        column(generator.labels(), lines_per_block));
    say("raw/node-label.csv");
  }
  if (const int k = options.edge_features; k > 0) {
    const std::int64_t rows_per_block = std::max<std::int64_t>(1, 2 * lines_per_block / k);
    const std::uint64_t seed = c.seed;
    writer.write_blocks(space, "raw/edge-feat.csv", blocks(e, rows_per_block),
                        [=](std::int64_t block, std::string &out) {
                          const std::int64_t first = block * rows_per_block;
                          const std::int64_t last = std::min(first + rows_per_block, e);
                          out.resize(static_cast<std::size_t>(last - first) * k * 6 + 32);
                          char *p = out.data();
                          for (std::int64_t i = first; i < last; ++i) {
                            CounterRng rng(seed, 0x656467655F66ULL /* "edge_f" */,
                                           static_cast<std::uint64_t>(i));
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
    say("raw/edge-feat.csv: " + std::to_string(e) + " x " + std::to_string(k));
  }
  if (const int f = c.num_features; f > 0) {
    const std::int64_t rows_per_block = std::max<std::int64_t>(1, 2 * lines_per_block / f);
    const auto labels = generator.labels();
    writer.write_blocks(
        space, "raw/node-feat.csv", blocks(n, rows_per_block),
        [=](std::int64_t block, std::string &out) {
          const std::int64_t first = block * rows_per_block;
          const std::int64_t rows = std::min(rows_per_block, n - first);
          std::vector<float> x(static_cast<std::size_t>(rows) * f);
          generator.node_features(labels, first, rows, x.data());
          out.resize(x.size() * 27 + 32);
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
    say("raw/node-feat.csv: " + std::to_string(n) + " x " + std::to_string(f));
  }
  const SbmGenerator::Split split = generator.split();
  const std::string dir = "split/" + options.split_name + "/";
  writer.write_blocks(space, dir + "train.csv", blocks(split.train.extent(0), lines_per_block),
                      column(split.train, lines_per_block));
  writer.write_blocks(space, dir + "valid.csv", blocks(split.valid.extent(0), lines_per_block),
                      column(split.valid, lines_per_block));
  writer.write_blocks(space, dir + "test.csv", blocks(split.test.extent(0), lines_per_block),
                      column(split.test, lines_per_block));
  say(dir + "{train,valid,test}.csv");

  // meta.csv: the keys of the bundled datasets, then the generation record (sbm_*).
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
  auto record = generator.record(edges);
  for (auto const &[key, value] : record)
    row("sbm_" + key, strip_quotes(value));
  writer.write_plain("meta.csv", meta);
  writer.write_plain("RELEASE_v1.txt", "Synthetic dataset written by ttgnn generate "
                                       "(degree-corrected SBM); see meta.csv.\n");
  writer.commit();
  say("done: " + writer.out_dir());
  return record;
}

#ifdef KOKKOS_ENABLE_SERIAL
template std::vector<std::pair<std::string, std::string>>
write_sbm_dataset<Kokkos::Serial>(Kokkos::Serial const &, SbmGenerator const &,
                                  SbmGenerator::Edges const &, std::string const &,
                                  SbmWriteOptions const &, SbmGenerator::Progress const &);
#endif
#ifdef KOKKOS_ENABLE_OPENMP
template std::vector<std::pair<std::string, std::string>>
write_sbm_dataset<Kokkos::OpenMP>(Kokkos::OpenMP const &, SbmGenerator const &,
                                  SbmGenerator::Edges const &, std::string const &,
                                  SbmWriteOptions const &, SbmGenerator::Progress const &);
#endif

} // namespace ttgnn
