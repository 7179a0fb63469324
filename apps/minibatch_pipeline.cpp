// `ttgnn train --batch-size B --fanout ...`: mini-batch GraphSAGE (see minibatch_pipeline.hpp).
#include "apps/minibatch_pipeline.hpp"

#include "apps/cli_options.hpp"
#include "apps/gnn_experiment.hpp"
#include "apps/svg_plot.hpp"
#include "core/error.hpp"
#include "core/atomic_file.hpp"
#include "core/json_writer.hpp"
#include "core/kokkos_compat.hpp"
#include "graph/neighbor_sampler.hpp"
#include "graph/ogb_loader.hpp"
#include "models/classification_metrics.hpp"
#include "models/minibatch_trainer.hpp"

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

namespace ttgnn::cli {

namespace fs = std::filesystem;

namespace {

void check_supported(TrainSettings const &s, bool minibatch) {
  auto refuse = [&](std::string const &what) {
    throw ConfigError(what + " is not implemented " +
                      (minibatch
                           ? "for mini-batch training (--batch-size); drop it or train full batch"
                           : "by this command; use ttgnn train"));
  };
  if (minibatch && s.model != "sage")
    throw ConfigError("mini-batch training (--batch-size) trains GraphSAGE: add --model sage");
  if (!minibatch && (!s.checkpoint.empty() || s.resume))
    refuse("--checkpoint/--resume");
  if (!s.export_embeddings.empty())
    refuse("--export-embeddings");
  if (s.lr_warmup > 0 || s.plateau_factor < 1.0)
    refuse("a learning-rate schedule (--lr-warmup, --plateau-factor)");
  if (s.feature_norm != "none")
    refuse("--feature-norm");
  if (minibatch && s.input == "feat+emb")
    refuse("--input feat+emb");
  if (minibatch && s.emb_weight_decay != 0)
    refuse("--emb-weight-decay (the table's optimizer has no weight decay)");
}

} // namespace

void declare_minibatch_options(Options &opts) {
  opts.value("batch-size", "mini-batch GraphSAGE: seed nodes per batch (0 = full batch)", "0")
      .value("fanout", "mini-batch: sampled neighbours per layer, input layer first (DGL order; "
                       "-1 = all), e.g. 5,10,15 (default 10 per layer)")
      .value("eval-every", "mini-batch: layer-wise full-neighbour evaluation every N epochs", "1")
      .value("max-batches", "mini-batch: batches per epoch (0 = all; for timing)", "0")
      .value("eval-nodes",
             "mini-batch: evaluate all nodes (layer-wise), or only valid+test or test nodes "
             "from their L-hop neighbourhoods (no train metric; test: no valid metric, the "
             "last evaluation is kept)",
             "all")
      .value("eval-fanout",
             "mini-batch, --eval-nodes valid+test|test: neighbours per layer, input layer first "
             "(default all: exact, equal to layer-wise inference)")
      .value("eval-batch-size",
             "mini-batch: nodes per batch of subset evaluation (0 = --batch-size)", "0")
      .value("eval-chunk",
             "mini-batch: layer-wise evaluation computes at most this many input rows at once",
             "65536");
}

MinibatchCliSettings minibatch_settings_from(Options const &opts) {
  MinibatchCliSettings m;
  m.batch_size = opts.get_int("batch-size");
  if (m.batch_size < 0)
    throw ConfigError("--batch-size must be >= 0, got " + std::to_string(m.batch_size));
  if (opts.has("fanout"))
    m.fanouts = parse_fanouts(opts.get("fanout"));
  m.eval_every = static_cast<int>(opts.get_int("eval-every"));
  if (m.eval_every < 1)
    throw ConfigError("--eval-every must be >= 1");
  m.max_batches = opts.get_int("max-batches");
  if (m.max_batches < 0)
    throw ConfigError("--max-batches must be >= 0");
  m.eval_nodes = opts.get("eval-nodes");
  parse_eval_nodes(m.eval_nodes); // ConfigError for an unknown value
  if (opts.has("eval-fanout"))
    m.eval_fanouts = parse_fanouts(opts.get("eval-fanout"));
  m.eval_batch_size = opts.get_int("eval-batch-size");
  m.eval_chunk = opts.get_int("eval-chunk");
  if (m.eval_batch_size < 0 || m.eval_chunk < 1)
    throw ConfigError("--eval-batch-size must be >= 0 and --eval-chunk >= 1");
  return m;
}

TrainRunSummary run_minibatch_training(TrainSettings const &s, MinibatchCliSettings const &mb,
                                       std::FILE *progress) {
  if (mb.batch_size < 1)
    throw ConfigError("run_minibatch_training: --batch-size must be >= 1");
  return run_preset_training(s, mb, progress);
}

TrainRunSummary run_preset_training(TrainSettings const &s, MinibatchCliSettings const &mb,
                                    std::FILE *progress) {
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  auto since = [](clock::time_point t) {
    return std::chrono::duration<double>(clock::now() - t).count();
  };
  const bool minibatch = mb.batch_size > 0;
  check_supported(s, minibatch);
  check_train_paths(s); // before any work: a bad path fails now, not after training
  ExperimentSettings e;
  e.model = s.model;
  e.minibatch = minibatch;
  e.layers = s.layers;
  e.hidden = s.hidden;
  e.dropout = s.dropout;
  e.input_dropout = s.input_dropout >= 0 ? s.input_dropout : s.dropout;
  e.batch_norm = s.batch_norm;
  e.residual = s.residual;
  e.input = s.input;
  e.order = s.order;
  e.emb_dim = s.emb_dim;
  e.tt_rank = s.tt_rank;
  e.tt_n = s.tt_shape;
  e.tt_d = s.tt_dims;
  e.init = s.init;
  e.init_std = s.init_std;
  e.optimizer = s.optimizer;
  e.lr = s.lr;
  e.weight_decay = s.weight_decay;
  e.emb_lr = s.emb_lr;
  e.emb_weight_decay = s.emb_weight_decay;
  e.epochs = s.epochs;
  e.patience = s.patience;
  e.batch_size = mb.batch_size;
  e.fanouts = mb.fanouts.empty() ? std::vector<std::int64_t>(s.layers, 10) : mb.fanouts;
  if (minibatch && static_cast<int>(e.fanouts.size()) != s.layers)
    throw ConfigError("--fanout gives " + std::to_string(e.fanouts.size()) + " fan-outs for " +
                      std::to_string(s.layers) + " layers (--layers)");
  e.eval_every = mb.eval_every;
  e.max_batches = mb.max_batches;
  e.eval_nodes = mb.eval_nodes;
  e.eval_fanouts = mb.eval_fanouts;
  e.eval_batch_size = mb.eval_batch_size;
  e.eval_chunk = mb.eval_chunk;
  e.seed = s.seed;
  e.metric = s.metric;

  LoadOptions load;
  load.split = choose_split(s.dataset, s.split);
  e.checkpoint = s.checkpoint;
  e.checkpoint_every = s.checkpoint_every;
  e.resume = s.resume;
  load.features = s.input == "feat" || s.input == "feat+tt";
  load.cache_dir = s.cache_dir;
  if (progress && s.progress) // --quiet: errors and the JSON line only
    std::fprintf(progress, "loading %s (split %s)\n", s.dataset.c_str(), load.split.c_str());
  LoadInfo info;
  const Dataset<std::int32_t> data = load_ogb<std::int32_t>(s.dataset, load, &info);
  // what the data is, not where it lives: a copy of the folder resumes the checkpoint
  e.fingerprint = data_fingerprint(data) + " split=" + load.split + " order=" + s.order;
  if (data.num_classes < 2 && !data.is_multilabel())
    throw InputError(s.dataset + ": need at least 2 classes");
  if (progress && s.progress) {
    const NodeMetric metric = resolve_metric(s.metric, data.is_multilabel());
    std::fprintf(progress, "evaluator: %s (%s) on %d %s\n", display_name(metric).c_str(),
                 to_string(metric).c_str(), data.num_classes,
                 data.is_multilabel() ? "binary tasks (multi-label; sigmoid + binary cross-entropy)"
                                      : "classes (softmax cross-entropy)");
  }
  std::function<void(std::string const &)> report;
  if (progress && s.progress)
    report = [&](std::string const &line) { std::fprintf(progress, "%s\n", line.c_str()); };
  const ExperimentResult r = run_experiment(data, e, report);

  if (!s.metrics_out.empty()) {
    std::string csv =
        "epoch,loss,train_" + r.metric + ",valid_" + r.metric + ",test_" + r.metric + ",seconds\n";
    for (auto const &h : r.history)
      csv += std::to_string(h.epoch) + "," + JsonWriter::number(h.loss) + "," +
             JsonWriter::number(h.train_acc) + "," + JsonWriter::number(h.valid_acc) + "," +
             JsonWriter::number(h.test_acc) + "," + JsonWriter::number(h.seconds) + "\n";
    write_file_atomic(s.metrics_out, csv);
  }
  if (!s.curve_svg.empty()) {
    PlotPanel loss, acc;
    loss.title = "training loss";
    const std::string metric_name = display_name(parse_node_metric(r.metric));
    acc.title = minibatch ? metric_name + " (layer-wise full-neighbour inference)" : metric_name;
    loss.x_label = acc.x_label = "epoch";
    loss.y_label = "loss";
    acc.y_label = metric_name;
    acc.fixed_y = true;
    PlotSeries l{"loss", {}, {}, "#1f77b4"}, tr{"train", {}, {}, "#2ca02c"},
        va{"valid", {}, {}, "#ff7f0e"}, te{"test", {}, {}, "#d62728"};
    for (auto const &h : r.history) {
      l.x.push_back(h.epoch);
      l.y.push_back(h.loss);
      if (h.valid_acc >= 0) {
        tr.x.push_back(h.epoch);
        tr.y.push_back(h.train_acc);
        va.x.push_back(h.epoch);
        va.y.push_back(h.valid_acc);
        te.x.push_back(h.epoch);
        te.y.push_back(h.test_acc);
      }
    }
    loss.series = {l};
    acc.series = {tr, va, te};
    if (r.best_epoch > 0) {
      acc.vlines = {double(r.best_epoch)};
      acc.vline_label = "selected epoch";
    }
    write_file_atomic(s.curve_svg,
                      render_svg("ttgnn: " + s.model + (minibatch ? " (mini-batch)" : "") +
                                     ", input " + s.input + ", order " + s.order,
                                 {loss, acc}));
  }

  TrainRunSummary sum;
  sum.status = r.stop_reason == "non_finite_loss"  ? "nonfinite"
               : r.stop_reason == "early_stopping" ? "early_stopping"
                                                   : "completed";
  if (sum.status == "nonfinite")
    sum.message = "the training loss was NaN/Inf; training stopped before that update";
  sum.test_acc = r.test_acc;
  sum.valid_acc = r.valid_acc;
  sum.train_acc = r.train_acc;
  sum.best_epoch = r.best_epoch;
  sum.gnn_params = r.gnn_params;
  sum.embedding_params = r.embedding_params;
  sum.compression = r.embedding_params > 0 ? r.compression : std::nan("");
  sum.epoch_seconds = r.epoch_time_s;
  sum.metric = r.metric;
  JsonWriter j;
  j.field("status", sum.status);
  if (!sum.message.empty())
    j.field("message", sum.message);
  j.field("metric", r.metric);
  j.field("test_metric", sum.test_acc);
  j.field("valid_metric", sum.valid_acc);
  j.field("train_metric", sum.train_acc);
  if (r.metric == "acc") { // the *_acc keys hold accuracies only
    j.field("test_acc", sum.test_acc);
    j.field("valid_acc", sum.valid_acc);
    j.field("train_acc", sum.train_acc);
  }
  j.field("multilabel", data.is_multilabel());
  j.field("best_epoch", sum.best_epoch);
  j.field("last_epoch", r.epochs_run);
  j.field("gnn_params", static_cast<long long>(sum.gnn_params));
  j.field("embedding_params", static_cast<long long>(sum.embedding_params));
  j.field("compression", sum.compression);
  j.field("tt_shape", r.tt_shape);
  j.field("epoch_time_s", sum.epoch_seconds);
  j.field("eval_time_s", r.eval_time_s);
  j.field("epoch_time_mean_s", r.epoch_time_mean_s);
  if (minibatch) {
    j.field("batches_per_epoch", static_cast<long long>(r.batches_per_epoch));
    j.field("batch_time_s", r.batch_time_s);
    j.field("first_epoch", r.first_epoch);
    j.field("checkpoint", s.checkpoint);
    j.field("checkpoint_every", s.checkpoint_every);
    j.field("checkpoint_epoch", r.checkpoint_epoch);
    j.field("resume", s.resume);
  }
  j.field("train_time_s", r.train_seconds);
  j.field("load_time_s", info.seconds);
  j.field("order_time_s", r.order_seconds);
  j.field("total_time_s", since(t0));
  j.field("peak_rss_mb", r.peak_rss_mb);
  j.raw("memory", to_json(r.memory));
  j.field("threads", compat::concurrency(Kokkos::DefaultHostExecutionSpace()));
  j.field("num_nodes", static_cast<long long>(data.num_nodes()));
  j.field("num_arcs", static_cast<long long>(data.graph.num_arcs()));
  j.field("num_classes", data.num_classes);
  j.field("dataset", s.dataset);
  j.field("split", load.split);
  j.field("metrics_out", s.metrics_out);
  j.field("curve_svg", s.curve_svg);
  j.raw("settings", "{" + settings_json(e) + "}");
  sum.json = j.str();
  return sum;
}

} // namespace ttgnn::cli
