// The data end of the pipeline (models/pipeline/pipeline.hpp): settings checks, split choice,
// loading, feature normalisation, the data fingerprint of checkpoints.
#include "models/pipeline/pipeline.hpp"

#include "core/io/checksum.hpp"
#include "core/error.hpp"
#include "core/io/path_checks.hpp"
#include "core/runtime/memory_check.hpp"
#include "core/tt/tt_shape.hpp"
#include "graph/io/ogb_loader.hpp"

#include <Kokkos_Core.hpp>
#include <Kokkos_Profiling_ScopedRegion.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace ttgnn {

namespace fs = std::filesystem;

namespace {

std::string factors_text(std::vector<std::int64_t> const &v) {
  std::string s;
  for (auto x : v)
    s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

/// The TT options as the user would have typed them, for messages about the shape.
std::string tt_options(EmbeddingConfig const &e) {
  std::string s = "--tt-rank " + std::to_string(e.tt_rank) + ", --emb-dim " + std::to_string(e.dim);
  if (!e.tt_n.empty())
    s += ", --tt-shape " + factors_text(e.tt_n);
  if (!e.tt_d.empty())
    s += ", --tt-dims " + factors_text(e.tt_d);
  if (e.tt_n.empty()) {
    std::ostringstream slack;
    slack << e.tt_slack;
    s += ", --tt-slack " + slack.str();
  }
  return s;
}

/// TT row and column factors given as options: 2 to 4 factors >= 1, as many of each.
void check_tt_factors(EmbeddingConfig const &e) {
  auto check = [](std::string const &option, std::vector<std::int64_t> const &f) {
    if (f.empty())
      return;
    if (f.size() < 2 || f.size() > 4)
      throw ConfigError(option + " " + factors_text(f) + ": give 2 to 4 factors, got " +
                        std::to_string(f.size()));
    for (auto x : f)
      if (x < 1)
        throw ConfigError(option + " " + factors_text(f) + ": every factor must be >= 1");
  };
  check("--tt-shape", e.tt_n);
  check("--tt-dims", e.tt_d);
  if (!e.tt_n.empty() && !e.tt_d.empty() && e.tt_n.size() != e.tt_d.size())
    throw ConfigError("--tt-shape " + factors_text(e.tt_n) + " has " +
                      std::to_string(e.tt_n.size()) + " factors but --tt-dims " +
                      factors_text(e.tt_d) + " has " + std::to_string(e.tt_d.size()) +
                      ": give one of each per TT core");
}

} // namespace

void check_run_config(RunConfig const &c) {
  auto range = [](bool ok, std::string const &what) {
    if (!ok)
      throw ConfigError(what);
  };
  range(c.layers >= 1 && c.hidden >= 1, "--layers and --hidden must be >= 1");
  range(c.epochs >= 0 && c.patience >= 0 && c.checkpoint_every >= 1 && c.lr_warmup >= 0,
        "--epochs, --patience and --lr-warmup must be >= 0, --checkpoint-every >= 1");
  range(c.dropout >= 0 && c.dropout < 1 && c.input_dropout >= 0 && c.input_dropout < 1,
        "--dropout and --input-dropout must be in [0, 1)");
  range(c.lr >= 0 && c.weight_decay >= 0, "--lr and --weight-decay must be >= 0");
  range(c.plateau_factor > 0 && c.plateau_factor <= 1,
        "--plateau-factor must be in (0, 1] (1: no reduction)");
  range(c.multilevel_min_nodes >= -1, "--multilevel-min-nodes must be >= -1");
  range(c.lp_sweeps >= 1 && c.lp_sweeps <= 1000, "--lp-sweeps must be in [1, 1000]");
  check_tt_factors(c.embedding); // before --emb-dim, which --tt-dims sets
  range(c.embedding.dim >= 1, "--emb-dim must be >= 1");
  range(c.embedding.tt_rank >= 0, "--tt-rank must be >= 1 (or 0: chosen from the split)");
  range(c.embedding.tt_slack >= 1, "--tt-slack must be >= 1");
  range(c.embedding.init_std > 0, "--init-std must be > 0");
  // a negative exponent would divide by the zero eigenvalues of isolated nodes' columns
  range(c.embedding.spectral_exponent >= 0, "--spectral-exponent must be >= 0");
  range(c.embedding.spectral_max_entries >= 1, "--spectral-max-entries must be >= 1");
  range(!c.resume || !c.checkpoint.empty(), "--resume needs --checkpoint PATH");
  const bool table = uses_tt(c.input) || uses_full_table(c.input);
  if (!c.export_embeddings.empty() && !table)
    throw ConfigError("--export-embeddings: the input (--input " + to_string(c.input) +
                      ") has no embedding table; use --input emb, tt or feat+tt");
  if (c.minibatch_mode()) {
    auto refuse = [](std::string const &what) {
      throw ConfigError(what + " is not implemented for mini-batch training (--batch-size); "
                               "drop it or train full batch");
    };
    if (c.model != GnnKind::sage)
      throw ConfigError("mini-batch training (--batch-size) trains GraphSAGE: add --model sage");
    if (!c.minibatch.fanouts.empty() && static_cast<int>(c.minibatch.fanouts.size()) != c.layers)
      throw ConfigError("--fanout gives " + std::to_string(c.minibatch.fanouts.size()) +
                        " fan-outs for " + std::to_string(c.layers) + " layers (--layers)");
    range(c.minibatch.eval_every >= 1 && c.minibatch.max_batches >= 0,
          "--eval-every must be >= 1 and --max-batches >= 0");
    range(c.minibatch.eval_batch_size >= 0 && c.minibatch.eval_chunk >= 0,
          "--eval-batch-size and --eval-chunk must be >= 0");
    if (c.input == InputKind::features_embedding)
      refuse("--input feat+emb");
    if (!c.locality.automatic && c.locality.method != OrderMethod::original)
      refuse("--locality " + to_string(c.locality));
    if (c.plateau_factor < 1.0 && c.minibatch.eval_nodes == EvalNodes::test)
      throw ConfigError("--plateau-factor decays on a validation plateau; --eval-nodes test "
                        "computes no validation metric (use valid+test or all)");
    // a full table keeps a row-sparse gradient: merged by a sort, stepped by row-sparse Adam
    if (c.input == InputKind::embedding && c.embedding.weight_decay != 0)
      refuse("--emb-weight-decay with --input emb (row-sparse Adam has no weight decay)");
    if (c.input == InputKind::embedding && c.embedding.backward != TtBackwardMode::deterministic)
      refuse("--tt-backward atomic with --input emb (the row-sparse gradient is merged by a sort)");
  }
  if (!c.data.dataset.empty())
    require_dataset_folder("--dataset", c.data.dataset);
  for (NamedPath const &out : run_outputs(c))
    require_output_file(out.option, out.path);
  require_distinct_paths(run_inputs(c), run_outputs(c));
}

void check_run_sizes(RunConfig const &c, Dataset<std::int32_t> const &data) {
  const double n = static_cast<double>(data.num_nodes()), f = sizeof(float);
  EmbeddingConfig const &e = c.embedding;
  const double dim = static_cast<double>(e.dim), hidden = static_cast<double>(c.hidden);
  // what every parameter holds at the least: the value, its gradient and two Adam moments
  const double per_parameter = 4 * f;
  if (uses_tt(c.input)) {
    if (!e.tt_n.empty())
      check_row_factors(e.tt_n, data.num_nodes(), "--tt-shape", 2);
    TtShape shape;
    try {
      shape = embedding_tt_shape(e, data.num_nodes());
    } catch (ConfigError const &err) {
      throw ConfigError("the TT shape of " + tt_options(e) + ": " + err.what());
    }
    double params = 0;
    for (int k = 0; k < shape.num_cores(); ++k)
      params += double(shape.n[k]) * double(shape.ranks[k]) * double(shape.d[k]) *
                double(shape.ranks[k + 1]);
    require_memory("--tt-rank " + std::to_string(e.tt_rank) + ": the TT cores (" + tt_options(e) +
                       ")",
                   per_parameter * params);
    // the row maps of the order span every row of the table, the free ones included
    require_memory("the TT table's rows (" + tt_options(e) + "; " +
                       std::to_string(shape.padded_rows()) + " rows)",
                   2 * sizeof(std::int64_t) * double(shape.padded_rows()));
  }
  if (uses_full_table(c.input))
    require_memory("--emb-dim " + std::to_string(e.dim) + ": the embedding table of " +
                       std::to_string(data.num_nodes()) + " nodes",
                   per_parameter * n * dim);
  const bool table = uses_tt(c.input) || uses_full_table(c.input);
  const double width =
      (uses_features(c.input) ? double(data.num_features()) : 0) + (table ? dim : 0);
  const std::string width_option = table ? ", --emb-dim " + std::to_string(e.dim) : "";
  // The input rows of every node are looked up each full-batch step; a mini-batch run looks
  // up a batch's rows (layer-wise evaluation: a chunk's rows) and never holds all of them.
  const bool full_batch = !c.minibatch_mode();
  require_memory("--emb-dim " + std::to_string(e.dim) + ": the input rows of " +
                     std::to_string(data.num_nodes()) + " nodes",
                 table && full_batch ? f * n * dim : 0.0);
  const double weights =
      width * hidden + hidden * hidden * double(c.layers - 1) + hidden * data.num_classes;
  require_memory("--hidden " + std::to_string(c.hidden) + ", --layers " + std::to_string(c.layers) +
                     width_option + ": the GNN weights",
                 per_parameter * weights);
  // the hidden rows of all nodes, one layer at a time at the least: each full-batch step, and
  // the layer-wise evaluation of a mini-batch run (--eval-nodes all); an evaluation of the
  // valid / test nodes only works on their neighbourhoods
  const bool all_rows = full_batch || c.minibatch.eval_nodes == EvalNodes::all;
  require_memory("--hidden " + std::to_string(c.hidden) + ": one hidden layer of " +
                     std::to_string(data.num_nodes()) + " nodes",
                 all_rows ? f * n * hidden : 0.0);
}

std::vector<NamedPath> run_inputs(RunConfig const &c) {
  return {{"--dataset", c.data.dataset},
          {"--cache", c.data.cache_dir},
          {"--checkpoint", c.resume ? c.checkpoint : std::string()}};
}

std::vector<NamedPath> run_outputs(RunConfig const &c) {
  return {{"--checkpoint", c.checkpoint},
          {"--export-embeddings", c.export_embeddings},
          {"--predictions", c.predictions_out},
          {"--metrics-out", c.metrics_out}};
}

std::string choose_split(std::string const &dir, std::string const &requested) {
  require_dataset_folder("--dataset", dir);
  if (!requested.empty())
    return requested;
  std::ifstream meta(fs::path(dir) / "meta.csv");
  for (std::string line; std::getline(meta, line);) {
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    if (line.rfind("split,", 0) == 0) {
      const std::string name = line.substr(6);
      if (!name.empty() && fs::is_directory(fs::path(dir) / "split" / name))
        return name;
    }
  }
  std::vector<std::string> names;
  std::error_code ec;
  if (fs::is_directory(fs::path(dir) / "split"))
    for (auto const &e : fs::directory_iterator(fs::path(dir) / "split", ec))
      if (e.is_directory())
        names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  if (names.size() == 1)
    return names[0];
  std::string list;
  for (auto const &n : names)
    list += (list.empty() ? "" : ", ") + n;
  throw ConfigError(dir + ": choose a split with --split (" +
                    (names.empty() ? std::string("the dataset has none") : "available: " + list) +
                    ")");
}

void normalize_feature_rows(Dataset<std::int32_t> &data) {
  auto scale_rows = [](std::int64_t n, auto row_begin, auto row_end, float *v) {
    for (std::int64_t i = 0; i < n; ++i) {
      double s = 0;
      for (std::int64_t k = row_begin(i); k < row_end(i); ++k)
        s += std::fabs(double(v[k]));
      if (s > 0)
        for (std::int64_t k = row_begin(i); k < row_end(i); ++k)
          v[k] = static_cast<float>(double(v[k]) / s);
    }
  };
  if (data.sparse_features.has_values()) {
    auto const &rm = data.sparse_features.row_map;
    scale_rows(
        data.sparse_features.num_rows(), [&](std::int64_t i) { return rm(i); },
        [&](std::int64_t i) { return rm(i + 1); }, data.sparse_features.values.data());
  } else {
    const std::int64_t f = static_cast<std::int64_t>(data.features.extent(1));
    scale_rows(
        static_cast<std::int64_t>(data.features.extent(0)), [f](std::int64_t i) { return i * f; },
        [f](std::int64_t i) { return (i + 1) * f; }, data.features.data());
  }
}

namespace {

/// OGB's evaluator refuses a ROC-AUC with no task that has both a positive and a negative
/// known target among the nodes of a set; so does ttgnn, before any training. A binary
/// single-label dataset is one task (class 1 positive).
void check_rocauc_defined(Dataset<std::int32_t> const &d, std::string const &where) {
  if (!d.is_multilabel()) {
    auto y = d.labels;
    Kokkos::View<std::int8_t **, Kokkos::LayoutRight, Kokkos::HostSpace> as_task(
        "ttgnn::pipeline::binary_task", y.extent(0), 1);
    for (std::size_t i = 0; i < y.extent(0); ++i)
      as_task(i, 0) = static_cast<std::int8_t>(y(i) < 0 ? -1 : y(i) == 1 ? 1 : 0);
    Dataset<std::int32_t> task = d;
    task.multilabels = as_task;
    check_rocauc_defined(task, where);
    return;
  }
  auto y = d.multilabels;
  const std::int64_t tasks = static_cast<std::int64_t>(y.extent(1));
  auto defined = [&](Kokkos::View<std::int64_t *, Kokkos::HostSpace> const &ids) {
    for (std::int64_t t = 0; t < tasks; ++t) {
      bool pos = false, neg = false;
      for (std::size_t q = 0; q < ids.extent(0) && !(pos && neg); ++q) {
        pos = pos || y(ids(q), t) == 1;
        neg = neg || y(ids(q), t) == 0;
      }
      if (pos && neg)
        return true;
    }
    return false;
  };
  char const *names[] = {"train", "valid", "test"};
  const Kokkos::View<std::int64_t *, Kokkos::HostSpace> sets[] = {d.train, d.valid, d.test};
  for (int i = 0; i < 3; ++i)
    if (sets[i].extent(0) > 0 && !defined(sets[i]))
      throw InputError(where + ": no task has both a positive and a negative target among the " +
                       std::to_string(sets[i].extent(0)) + " " + names[i] +
                       " nodes: ROC-AUC is undefined there (choose --metric f1_micro or another "
                       "split)");
}

} // namespace

LoadedData load_run_data(RunConfig const &c, RunLog const &log) {
  Kokkos::Profiling::ScopedRegion region("ttgnn::pipeline::load");
  StageScope stage("loading the dataset");
  const auto t0 = std::chrono::steady_clock::now();
  const bool feat = uses_features(c.input);
  LoadOptions load;
  load.split = choose_split(c.data.dataset, c.data.split);
  load.features = feat;
  load.cache_dir = c.data.cache_dir;
  load.progress = log;
  if (log)
    log("loading " + c.data.dataset + " (split " + load.split + ")");
  LoadedData out;
  out.split = load.split;
  out.data = load_ogb<std::int32_t>(c.data.dataset, load);
  Dataset<std::int32_t> &d = out.data;
  if (d.train.extent(0) == 0)
    throw InputError(c.data.dataset + ": split " + load.split + " has no training nodes");
  // the loader checks the split's nodes against a label file, when there is one
  if (!d.is_multilabel() && (d.labels.extent(0) == 0 || d.labels(d.train(0)) < 0))
    throw InputError(c.data.dataset + ": no node labels (raw/node-label.csv or .csv.gz, or "
                                      "node-label.npz, is missing)");
  if (feat && !d.has_feature_values())
    throw InputError(c.data.dataset + ": no node features (raw/node-feat.csv or .csv.gz, or "
                                      "node_feat in data.npz, is missing); use --input emb or tt");
  if (d.num_classes < 2 && !d.is_multilabel())
    throw InputError(c.data.dataset + ": need at least 2 classes, found " +
                     std::to_string(d.num_classes));
  if (run_metric(c, d) == NodeMetric::rocauc)
    check_rocauc_defined(d, c.data.dataset + ": split " + load.split);
  if (feat && c.data.feature_norm == FeatureNorm::row)
    normalize_feature_rows(d);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

std::string data_fingerprint(Dataset<std::int32_t> const &d) {
  std::uint64_t sum = 0x7467676e; // "ttgn"
  auto add = [&sum](auto const &view) {
    if (view.size() > 0)
      sum = parallel_checksum64(view.data(), view.size() * sizeof(*view.data()), sum);
    else
      sum = checksum64(&sum, sizeof sum, 1);
  };
  add(d.graph.row_map);
  add(d.graph.entries);
  add(d.labels);
  add(d.multilabels);
  add(d.train);
  add(d.valid);
  add(d.test);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(sum));
  return "data=" + std::to_string(d.num_nodes()) + "n/" + std::to_string(d.graph.num_arcs()) +
         "a/" + std::to_string(d.num_features()) + "f/" + std::to_string(d.num_classes) + "c/" +
         hex;
}

} // namespace ttgnn
