#include "apps/run_options.hpp"

#include "apps/cli_options.hpp"
#include "apps/svg_plot.hpp"
#include "core/io/atomic_file.hpp"
#include "core/runtime/communicator.hpp"
#include "core/error.hpp"
#include "core/io/json_writer.hpp"
#include "core/io/path_checks.hpp"
#include "graph/neighbor_sampler.hpp"

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>
#include <sstream>

namespace ttgnn::cli {

namespace {

std::string num(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

std::string list_string(std::vector<std::int64_t> const &v) {
  std::string s;
  for (auto x : v)
    s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

} // namespace

void declare_run_options(Options &opts, RunConfig const *defaults) {
  const RunConfig base;
  RunConfig const &d = defaults ? *defaults : base;
  // the default shown by --help ("preset" when the defaults come from ttgnn ogb's --name)
  auto def = [&](std::string const &text) { return defaults ? text : std::string("preset"); };
  auto i = [&](std::int64_t v) { return def(std::to_string(v)); };
  auto x = [&](double v) { return def(num(v)); };
  opts.value("split", "split folder under split/ (default: meta.csv's split, or the only one)")
      .value("cache", "binary cache folder of the loader", "")
      .value("feature-norm", "none | row (divide each feature row by its L1 norm)",
             to_string(d.data.feature_norm))
      .value("model", "gcn | sage", def(to_string(d.model)))
      .value("input", "feat | emb | tt | feat+tt | feat+emb", def(to_string(d.input)))
      .value("order", "node order: original | random | metis | metis-hier | rcm | lp-hier",
             def(to_string(d.order)))
      .value("init", "embedding init: gaussian | ortho | spectral", to_string(d.embedding.init))
      .value("init-std", "root-mean-square entry of the initial embedding table",
             num(d.embedding.init_std))
      .value("spectral-exponent", "spectral init: column j scaled by |lambda_j|^exponent",
             num(d.embedding.spectral_exponent))
      .value("emb-dim", "embedding dimension d", i(d.embedding.dim))
      .value("tt-rank", "TT rank R", i(d.embedding.tt_rank))
      .value("tt-shape", "TT row factors n1,n2,n3 (default: balanced, product >= slack*N)")
      .value("tt-dims", "TT column factors d1,d2,d3 (default: from --emb-dim, largest first)")
      .value("tt-slack", "free rows of the default TT row factors (product >= slack*N)",
             num(d.embedding.tt_slack))
      .value("hidden", "hidden width", i(d.hidden))
      .value("layers", "graph layers", i(d.layers))
      .value("dropout", "dropout before every hidden graph layer", x(d.dropout))
      .value("input-dropout",
             "dropout on the input rows before the first layer (0 as in OGB's examples; "
             "Kipf & Welling's GCN uses 0.5)",
             x(d.input_dropout))
      .flag("residual", "residual connections between hidden layers of equal width")
      .flag("batch-norm", "BatchNorm after every hidden graph layer")
      .value("epochs", "training epochs", i(d.epochs))
      .value("optimizer", "adam | adamw", def(to_string(d.optimizer)))
      .value("lr", "learning rate of the GNN", x(d.lr))
      .value("weight-decay", "weight decay of the GNN (L2 for adam, decoupled for adamw)",
             x(d.weight_decay))
      .value("emb-lr", "learning rate of the embedding table (default: --lr)", "")
      .value("emb-weight-decay",
             "weight decay of the embedding table (< 0: as --weight-decay; decaying the table "
             "costs accuracy)",
             num(d.embedding.weight_decay))
      .value("patience",
             "early stopping after this many epochs without a better valid metric "
             "(0 = off)",
             std::to_string(d.patience))
      .value("metric",
             "evaluation and model selection: acc | rocauc | f1_micro | f1_macro (default: acc "
             "for single-label, rocauc for multi-label datasets)")
      .value("lr-warmup", "linear learning-rate warm-up epochs", std::to_string(d.lr_warmup))
      .value("warmup", "removed: use --lr-warmup (a learning-rate warm-up); epoch_time_s is a "
                       "median, so timing needs no untimed epochs")
      .value("plateau-factor",
             "multiply the learning rate by this on a valid-accuracy plateau (1 = off)",
             num(d.plateau_factor))
      .value("plateau-patience", "epochs without improvement before a reduction",
             std::to_string(d.plateau_patience))
      .value("seed",
             "seed of weights, dropout, sampling, embedding init and the random/METIS "
             "order",
             std::to_string(d.seed))
      .value("tt-backward",
             "embedding backward (TT and full table): deterministic (sort-and-reduce, "
             "bitwise reproducible at a fixed thread count) | atomic (atomic adds, faster on "
             "GPUs, not reproducible)",
             to_string(d.embedding.backward))
      .value("batch-size", "mini-batch GraphSAGE: seed nodes per batch (0 = full batch)",
             i(d.minibatch.batch_size))
      .value("fanout", "mini-batch: sampled neighbours per layer, input layer first (DGL order; "
                       "-1 = all), e.g. 5,10,15 (default 10 per layer)")
      .value("eval-every", "mini-batch: layer-wise full-neighbour evaluation every N epochs",
             std::to_string(d.minibatch.eval_every))
      .value("max-batches", "mini-batch: batches per epoch (0 = all; for timing)",
             std::to_string(d.minibatch.max_batches))
      .value("eval-nodes",
             "mini-batch: evaluate all nodes (layer-wise), or only valid+test or test nodes "
             "from their L-hop neighbourhoods (no train metric; test: no valid metric, the "
             "last evaluation is kept)",
             to_string(d.minibatch.eval_nodes))
      .value("eval-fanout",
             "mini-batch, --eval-nodes valid+test|test: neighbours per layer, input layer first "
             "(default all: exact, equal to layer-wise inference)")
      .value("eval-batch-size",
             "mini-batch: nodes per batch of subset evaluation (0 = --batch-size)",
             std::to_string(d.minibatch.eval_batch_size))
      .value("eval-chunk",
             "mini-batch: layer-wise evaluation computes at most this many input rows at once",
             std::to_string(d.minibatch.eval_chunk))
      .value("checkpoint", "checkpoint file (written every --checkpoint-every epochs)")
      .value("checkpoint-every", "epochs between checkpoints", std::to_string(d.checkpoint_every))
      .flag("resume", "continue from --checkpoint when it exists")
      .value("export-embeddings", "write the learned embeddings (N x d float32 .npy, rows in "
                                  "original node order)")
      .value("predictions", "write the logits of every node (N x C float32 .npy, original "
                            "node order; full batch)")
      .value("metrics-out", "write per-epoch metrics as CSV")
      .value("curve-svg", "write the training curves (loss, metric) as SVG")
      .flag("quiet", "no loading notes or per-epoch lines on stderr (errors and the JSON line "
                     "only)")
      .flag("json", "print only the JSON line on stdout (no summary lines)");
}

void apply_run_options(Options const &o, RunConfig &c) {
  auto given = [&](char const *name) { return o.has(name); };
  auto int_at_least = [&](char const *name, std::int64_t lo) {
    const std::int64_t v = o.get_int(name);
    if (v < lo || v > (1ll << 31))
      throw ConfigError(std::string("--") + name + " must be an integer >= " + std::to_string(lo) +
                        ", got " + std::to_string(v));
    return v;
  };
  if (given("split"))
    c.data.split = o.get("split");
  if (given("cache"))
    c.data.cache_dir = o.get("cache");
  if (given("feature-norm"))
    c.data.feature_norm = parse_feature_norm(o.get("feature-norm"));
  if (given("model"))
    c.model = parse_gnn_kind(o.get("model"));
  if (given("input"))
    c.input = parse_input_kind(o.get("input"));
  if (given("order"))
    c.order = parse_order_method(o.get("order"));
  EmbeddingConfig &e = c.embedding;
  if (given("init"))
    e.init = parse_init_method(o.get("init"));
  if (given("init-std"))
    e.init_std = o.get_double("init-std");
  if (given("spectral-exponent"))
    e.spectral_exponent = o.get_double("spectral-exponent");
  if (given("emb-dim")) {
    e.dim = int_at_least("emb-dim", 1);
    e.tt_d.clear(); // a preset's column factors are for its width
  }
  if (given("tt-rank"))
    e.tt_rank = int_at_least("tt-rank", 1);
  if (given("tt-shape"))
    e.tt_n = o.get_int_list("tt-shape");
  if (given("tt-dims")) {
    e.tt_d = o.get_int_list("tt-dims");
    std::int64_t prod = 1;
    for (auto v : e.tt_d)
      prod *= v;
    if (given("emb-dim") && prod != e.dim)
      throw ConfigError("--tt-dims " + list_string(e.tt_d) + " multiply to " +
                        std::to_string(prod) + ", not --emb-dim " + std::to_string(e.dim));
    e.dim = prod;
  }
  if (given("tt-slack"))
    e.tt_slack = o.get_double("tt-slack");
  if (given("tt-backward"))
    e.backward = parse_tt_backward_mode(o.get("tt-backward"));
  if (given("emb-lr"))
    e.lr = o.get_double("emb-lr");
  if (given("emb-weight-decay"))
    e.weight_decay = o.get_double("emb-weight-decay");
  if (given("hidden"))
    c.hidden = int_at_least("hidden", 1);
  if (given("layers"))
    c.layers = static_cast<int>(int_at_least("layers", 1));
  if (given("dropout"))
    c.dropout = o.get_double("dropout");
  if (given("input-dropout"))
    c.input_dropout = o.get_double("input-dropout");
  c.residual = c.residual || o.get_flag("residual");
  c.batch_norm = c.batch_norm || o.get_flag("batch-norm");
  if (given("epochs"))
    c.epochs = static_cast<int>(int_at_least("epochs", 0));
  if (given("optimizer"))
    c.optimizer = parse_optimizer_kind(o.get("optimizer"));
  if (given("lr"))
    c.lr = o.get_double("lr");
  if (given("weight-decay"))
    c.weight_decay = o.get_double("weight-decay");
  if (given("patience"))
    c.patience = static_cast<int>(int_at_least("patience", 0));
  if (given("metric"))
    c.metric = parse_node_metric(o.get("metric"));
  if (given("warmup"))
    throw ConfigError("--warmup was renamed --lr-warmup (it is a learning-rate warm-up, not "
                      "untimed epochs: epoch_time_s is already the median epoch)");
  if (given("lr-warmup"))
    c.lr_warmup = static_cast<int>(int_at_least("lr-warmup", 0));
  if (given("plateau-factor"))
    c.plateau_factor = o.get_double("plateau-factor");
  if (given("plateau-patience"))
    c.plateau_patience = static_cast<int>(int_at_least("plateau-patience", 0));
  if (given("seed")) {
    const std::int64_t seed = o.get_int("seed");
    if (seed < 0)
      throw ConfigError("--seed must be >= 0, got " + std::to_string(seed));
    c.seed = static_cast<std::uint64_t>(seed);
  }
  if (given("batch-size")) {
    c.minibatch.batch_size = o.get_int("batch-size");
    if (c.minibatch.batch_size < 0)
      throw ConfigError("--batch-size must be >= 0, got " + std::to_string(c.minibatch.batch_size));
  }
  if (given("fanout"))
    c.minibatch.fanouts = parse_fanouts(o.get("fanout"), "--fanout");
  if (given("eval-every"))
    c.minibatch.eval_every = static_cast<int>(int_at_least("eval-every", 1));
  if (given("max-batches"))
    c.minibatch.max_batches = int_at_least("max-batches", 0);
  if (given("eval-nodes"))
    c.minibatch.eval_nodes = parse_eval_nodes(o.get("eval-nodes"));
  if (given("eval-fanout"))
    c.minibatch.eval_fanouts = parse_fanouts(o.get("eval-fanout"), "--eval-fanout");
  if (given("eval-batch-size"))
    c.minibatch.eval_batch_size = int_at_least("eval-batch-size", 0);
  if (given("eval-chunk"))
    c.minibatch.eval_chunk = int_at_least("eval-chunk", 1);
  if (given("checkpoint"))
    c.checkpoint = o.get("checkpoint");
  if (given("checkpoint-every"))
    c.checkpoint_every = static_cast<int>(int_at_least("checkpoint-every", 1));
  c.resume = c.resume || o.get_flag("resume");
  if (given("export-embeddings"))
    c.export_embeddings = o.get("export-embeddings");
  if (given("predictions"))
    c.predictions_out = o.get("predictions");
  if (given("metrics-out"))
    c.metrics_out = o.get("metrics-out");
}

FrontEnd front_end_from(Options const &opts) {
  FrontEnd f;
  f.curve_svg = opts.get("curve-svg");
  f.quiet = opts.get_flag("quiet");
  f.json_only = opts.get_flag("json");
  return f;
}

RunLog stderr_log(FrontEnd const &f) {
  if (f.quiet)
    return {};
  auto t0 =
      std::make_shared<std::chrono::steady_clock::time_point>(std::chrono::steady_clock::now());
  return [t0](std::string const &line) {
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - *t0).count();
    std::fprintf(stderr, "[%7.2fs] %s\n", t, line.c_str());
  };
}

int train_and_report(RunConfig c, FrontEnd const &front, std::string const &title,
                     std::string const &json_prefix) {
  check_run_config(c); // before any work: a bad value or path fails now, not after training
  require_output_file("--curve-svg", front.curve_svg);
  // Under mpirun (data-parallel mini-batches, docs/DISTRIBUTED.md) rank 0 speaks and writes.
  const bool speaker = Communicator::world().rank() == 0;
  const RunLog log = speaker ? stderr_log(front) : RunLog();
  const LoadedData loaded = load_run_data(c, log);
  c.data.split = loaded.split;
  RunResult r = run_training(Kokkos::DefaultExecutionSpace(), loaded.data, c, log);
  r.load_time_s = loaded.seconds;
  if (!speaker)
    return r.stop == StopReason::nonfinite ? 4 : 0;
  if (r.stop == StopReason::nonfinite) // said even with --quiet: the exit code is 4
    std::fprintf(stderr, "ttgnn: %s\n", r.message.c_str());
  if (!front.curve_svg.empty())
    write_curve_svg(front.curve_svg, title, r);
  if (!front.json_only) {
    std::printf("test %s %.4f (valid %.4f, train %.4f) at epoch %d of %d [%s]\n",
                display_name(r.metric).c_str(), r.test_score, r.valid_score, r.train_score,
                r.best_epoch, c.epochs, to_string(r.stop).c_str());
    std::printf("parameters: GNN %lld, embedding %lld", static_cast<long long>(r.gnn_params),
                static_cast<long long>(r.embedding_params));
    if (r.embedding_params > 0)
      std::printf(" (compression %.1fx against a full table)", r.compression());
    std::printf("; %.2f ms per epoch (median training step)\n", 1e3 * r.epoch_time_s);
  }
  JsonWriter front_fields; // what the front-end adds: where the curves went
  front_fields.field("curve_svg", front.curve_svg);
  const std::string f = front_fields.str(), json = run_json(r, c);
  std::cout << "{" << json_prefix << f.substr(1, f.size() - 2) << "," << json.substr(1)
            << std::endl;
  return r.stop == StopReason::nonfinite ? 4 : 0;
}

void write_curve_svg(std::string const &path, std::string const &title, RunResult const &r) {
  const std::string metric = display_name(r.metric);
  PlotPanel loss{"loss", "epoch", "training loss", {}, false, 0, 1, {}, ""};
  PlotPanel score{metric, "epoch", metric, {}, true, 0, 1, {}, ""};
  PlotSeries tl{"train loss", {}, {}, "#1f77b4"}, vl{"valid loss", {}, {}, "#ff7f0e", true};
  PlotSeries ta{"train", {}, {}, "#1f77b4"}, va{"valid", {}, {}, "#ff7f0e"},
      te{"test", {}, {}, "#2ca02c"};
  for (auto const &e : r.history) {
    tl.x.push_back(e.epoch);
    tl.y.push_back(e.loss);
    if (e.valid_acc < 0) // a mini-batch epoch that was not evaluated
      continue;
    for (auto *s : {&vl, &ta, &va, &te})
      s->x.push_back(e.epoch);
    vl.y.push_back(e.valid_loss);
    ta.y.push_back(e.train_acc);
    va.y.push_back(e.valid_acc);
    te.y.push_back(e.test_acc);
  }
  loss.series = {tl, vl};
  score.series = {ta, va, te};
  if (r.best_epoch > 0) {
    score.vlines = loss.vlines = {double(r.best_epoch)};
    score.vline_label = "selected epoch";
  }
  score.legend_bottom = true; // scores rise towards the top
  write_file_atomic(path, render_svg(title, {loss, score}));
}

} // namespace ttgnn::cli
