// The data end of the pipeline (models/pipeline/pipeline.hpp): settings checks, split choice,
// loading, feature normalisation, the data fingerprint of checkpoints.
#include "models/pipeline/pipeline.hpp"

#include "core/io/checksum.hpp"
#include "core/error.hpp"
#include "core/io/path_checks.hpp"
#include "graph/io/ogb_loader.hpp"

#include <Kokkos_Core.hpp>
#include <Kokkos_Profiling_ScopedRegion.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>

namespace ttgnn {

namespace fs = std::filesystem;

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
  range(c.embedding.dim >= 1, "--emb-dim must be >= 1");
  range(c.embedding.tt_rank >= 0, "--tt-rank must be >= 1 (or 0: chosen from the split)");
  range(c.embedding.tt_slack >= 1, "--tt-slack must be >= 1");
  range(c.embedding.init_std > 0, "--init-std must be > 0");
  // a negative exponent would divide by the zero eigenvalues of isolated nodes' columns
  range(c.embedding.spectral_exponent >= 0, "--spectral-exponent must be >= 0");
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
  require_output_file("--checkpoint", c.checkpoint);
  require_output_file("--export-embeddings", c.export_embeddings);
  require_output_file("--metrics-out", c.metrics_out);
  require_output_file("--predictions", c.predictions_out);
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
  const auto t0 = std::chrono::steady_clock::now();
  const bool feat = uses_features(c.input);
  LoadOptions load;
  load.split = choose_split(c.data.dataset, c.data.split);
  load.features = feat;
  load.cache_dir = c.data.cache_dir;
  if (log)
    log("loading " + c.data.dataset + " (split " + load.split + ")");
  LoadedData out;
  out.split = load.split;
  out.data = load_ogb<std::int32_t>(c.data.dataset, load);
  Dataset<std::int32_t> &d = out.data;
  if (d.train.extent(0) == 0)
    throw InputError(c.data.dataset + ": split " + load.split + " has no training nodes");
  if (feat && !d.has_feature_values())
    throw InputError(c.data.dataset + ": no node features (raw/node-feat); use --input emb or tt");
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
