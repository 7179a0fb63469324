#include "apps/run_options.hpp"

#include "apps/cli_options.hpp"
#include "apps/order_options.hpp"
#include "apps/svg_plot.hpp"
#include "core/io/atomic_file.hpp"
#include "core/runtime/communicator.hpp"
#include "core/error.hpp"
#include "core/io/json_writer.hpp"
#include "core/io/path_checks.hpp"
#include "core/parse_number.hpp"
#include "graph/neighbor_sampler.hpp"
#include "models/pipeline/run_preset.hpp"

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>
#include <sstream>
#include <utility>

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

/// \brief The defaults --help shows: the values of a RunConfig, or "preset" where they come
/// from ttgnn ogb's --name.
struct ShownDefaults {
  RunConfig const &d;
  bool preset;
  RunConfig table = default_run_config(InputKind::tt); ///< the defaults with a learned table
  std::string text(std::string const &value) const {
    return preset ? std::string("preset") : value;
  }
  std::string integer(std::int64_t v) const { return text(std::to_string(v)); }
  std::string real(double v) const { return text(num(v)); }
  /// "feat: A, emb/tt: B" where the learned-table preset changes the default.
  std::string by_input(std::string const &feat, std::string const &learned) const {
    return text(feat == learned ? feat : "feat: " + feat + ", emb/tt: " + learned);
  }
};

void declare_data_options(Options &opts, ShownDefaults const &s) {
  opts.value("split", "split folder under split/ (default: meta.csv's split, or the only one)")
      .value("cache", "binary cache folder of the loader", "")
      .value("feature-norm", "none | row (divide each feature row by its L1 norm)",
             to_string(s.d.data.feature_norm));
}

void declare_model_options(Options &opts, ShownDefaults const &s) {
  opts.value("model", "gcn | sage", s.text(to_string(s.d.model)))
      .value("input", "feat | emb | tt | feat+tt | feat+emb", s.text(to_string(s.d.input)))
      .value("order", "node order: original | random | metis | metis-hier | rcm | lp-hier",
             s.text(to_string(s.d.order)))
      .value("locality",
             "full batch: relabelling of the propagation, invisible in results: auto | none | "
             "an order (lp-hier, rcm, metis, random)",
             s.text(to_string(s.d.locality)));
  declare_order_tuning(opts, s.d.metis_algorithm, s.d.multilevel_min_nodes, s.d.lp_sweeps);
}

void declare_embedding_options(Options &opts, ShownDefaults const &s) {
  EmbeddingConfig const &e = s.d.embedding;
  opts.value("init", "embedding init: gaussian | ortho | spectral",
             s.by_input(to_string(e.init), to_string(s.table.embedding.init)))
      .value("init-std", "root-mean-square entry of the initial embedding table", num(e.init_std))
      .value("spectral-exponent", "spectral init: column j scaled by |lambda_j|^exponent",
             num(e.spectral_exponent))
      .value("spectral-max-entries",
             "spectral init of a TT table: above this many eigenvector entries (nodes x "
             "--emb-dim) it solves the slot graph of the row prefixes instead of the graph",
             std::to_string(e.spectral_max_entries))
      .value("emb-dim", "embedding dimension d", s.integer(e.dim))
      .value("tt-rank", "TT rank R (default: 16 when a quarter or more of the nodes are "
                        "training nodes, else 8)")
      .value("tt-shape", "TT row factors n1,n2,n3 (default: balanced, product >= slack*N)")
      .value("tt-dims",
             "TT column factors d1,d2,d3 (default: from --emb-dim, balanced, largest first; on "
             "metis-hier and lp-hier the last core's moved onto the first: 64 -> 16,4,1)")
      .value("tt-slack", "free rows of the default TT row factors (product >= slack*N)",
             num(e.tt_slack));
}

void declare_network_options(Options &opts, ShownDefaults const &s) {
  opts.value("hidden", "hidden width",
             s.by_input(std::to_string(s.d.hidden), std::to_string(s.table.hidden)))
      .value("layers", "graph layers", s.integer(s.d.layers))
      .value("dropout", "dropout before every hidden graph layer", s.real(s.d.dropout))
      .value("input-dropout",
             "dropout on the input rows before the first layer (0 as in OGB's examples; "
             "Kipf & Welling's GCN uses 0.5)",
             s.by_input(num(s.d.input_dropout), num(s.table.input_dropout)))
      .flag("residual", "residual connections between hidden layers of equal width")
      .flag("batch-norm", "BatchNorm after every hidden graph layer")
      .value("memory-budget",
             "training within SIZE of memory in all (e.g. 12GiB): activations are "
             "recomputed where they do not fit, at the least extra work (0: no budget)",
             "0");
}

void declare_training_options(Options &opts, ShownDefaults const &s) {
  RunConfig const &d = s.d;
  opts.value("epochs", "training epochs",
             s.by_input(std::to_string(d.epochs), std::to_string(s.table.epochs)))
      .value("optimizer", "adam | adamw", s.text(to_string(d.optimizer)))
      .value("lr", "learning rate of the GNN", s.real(d.lr))
      .value("weight-decay", "weight decay of the GNN (L2 for adam, decoupled for adamw)",
             s.by_input(num(d.weight_decay), num(s.table.weight_decay)))
      .value("emb-lr", "learning rate of the embedding table (default: --lr)", "")
      .value("emb-weight-decay",
             "weight decay of the embedding table (< 0: as --weight-decay; decaying the table "
             "costs accuracy)",
             num(d.embedding.weight_decay))
      .value("patience",
             "early stopping after this many epochs without a better valid metric "
             "(0 = off)",
             s.by_input(std::to_string(d.patience), std::to_string(s.table.patience)))
      .value("metric",
             "evaluation and model selection: acc | rocauc | f1_micro | f1_macro (default: acc "
             "for single-label, rocauc for multi-label datasets; rocauc also for 2 classes)")
      .value("lr-warmup", "linear learning-rate warm-up epochs", std::to_string(d.lr_warmup))
      .value("warmup", "refused: the learning-rate warm-up is --lr-warmup, and epoch_time_s is "
                       "a median, so timing needs no untimed epochs")
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
             to_string(d.embedding.backward));
}

void declare_minibatch_options(Options &opts, ShownDefaults const &s) {
  MinibatchConfig const &m = s.d.minibatch;
  opts.value("batch-size", "mini-batch GraphSAGE: seed nodes per batch (0 = full batch)",
             s.integer(m.batch_size))
      .value("fanout", "mini-batch: sampled neighbours per layer, input layer first (DGL order; "
                       "-1 = all), e.g. 5,10,15 (default 10 per layer)")
      .value("eval-every", "mini-batch: layer-wise full-neighbour evaluation every N epochs",
             std::to_string(m.eval_every))
      .value("max-batches", "mini-batch: batches per epoch (0 = all; for timing)",
             std::to_string(m.max_batches))
      .value("eval-nodes",
             "mini-batch: evaluate all nodes (layer-wise), or only valid+test or test nodes "
             "from their L-hop neighbourhoods (no train metric; test: no valid metric, the "
             "last evaluation is kept)",
             to_string(m.eval_nodes))
      .value("eval-fanout",
             "mini-batch, --eval-nodes valid+test|test: neighbours per layer, input layer first "
             "(default all: exact, equal to layer-wise inference)")
      .value("eval-batch-size",
             "mini-batch: nodes per batch of subset evaluation (0 = --batch-size)",
             std::to_string(m.eval_batch_size))
      .value("eval-chunk",
             "mini-batch: layer-wise evaluation computes at most this many input rows at once "
             "(0 = sized for the space: 65536 on the CPU, a 1/16 share of a GPU's memory)",
             std::to_string(m.eval_chunk));
}

void declare_output_options(Options &opts, ShownDefaults const &s) {
  opts.value("checkpoint", "checkpoint file (written every --checkpoint-every epochs)")
      .value("checkpoint-every", "epochs between checkpoints", std::to_string(s.d.checkpoint_every))
      .flag("resume", "continue from --checkpoint when it exists")
      .value("export-embeddings", "write the learned embeddings (N x d float32 .npy, rows in "
                                  "original node order)")
      .value("predictions", "write the logits of every node (N x C float32 .npy, original "
                            "node order; mini-batch: by layer-wise inference)")
      .value("metrics-out", "write per-epoch metrics as CSV")
      .value("curve-svg", "write the training curves (loss, metric) as SVG")
      .flag("quiet", "no loading notes or per-epoch lines on stderr (errors and the JSON line "
                     "only)")
      .flag("json", "print only the JSON line on stdout (no summary lines)");
}

/// Integer options above this are refused as typos: counts, widths and epochs stay in the
/// range of a 32-bit int (several are stored in int fields).
constexpr std::int64_t kIntOptionLimit = std::int64_t{1} << 31;

std::int64_t int_at_least(Options const &o, char const *name, std::int64_t lo) {
  const std::int64_t v = o.get_int(name);
  if (v < lo || v > kIntOptionLimit)
    throw ConfigError(std::string("--") + name + " must be an integer >= " + std::to_string(lo) +
                      ", got " + std::to_string(v));
  return v;
}

void apply_data_options(Options const &o, RunConfig &c) {
  if (o.has("split"))
    c.data.split = o.get("split");
  if (o.has("cache"))
    c.data.cache_dir = o.get("cache");
  if (o.has("feature-norm"))
    c.data.feature_norm = o.parsed("feature-norm", parse_feature_norm);
}

void apply_model_options(Options const &o, RunConfig &c) {
  if (o.has("model"))
    c.model = o.parsed("model", parse_gnn_kind);
  if (o.has("input"))
    c.input = o.parsed("input", parse_input_kind);
  if (o.has("order"))
    c.order = o.parsed("order", parse_order_method);
  if (o.has("locality"))
    c.locality = o.parsed("locality", parse_locality);
  if (o.has("metis-algorithm"))
    c.metis_algorithm = o.parsed("metis-algorithm", parse_metis_algorithm);
  if (o.has("multilevel-min-nodes"))
    c.multilevel_min_nodes = o.get_int("multilevel-min-nodes");
  if (o.has("lp-sweeps"))
    c.lp_sweeps = o.get_int("lp-sweeps");
}

/// --tt-dims sets the width to their product; with --emb-dim too they must agree.
void apply_tt_dims(Options const &o, EmbeddingConfig &e) {
  e.tt_d = o.get_int_list("tt-dims");
  std::int64_t prod = 1;
  for (auto v : e.tt_d)
    prod *= v;
  if (o.has("emb-dim") && prod != e.dim)
    throw ConfigError("--tt-dims " + list_string(e.tt_d) + " multiply to " + std::to_string(prod) +
                      ", not --emb-dim " + std::to_string(e.dim));
  e.dim = prod;
}

void apply_embedding_options(Options const &o, EmbeddingConfig &e) {
  if (o.has("init"))
    e.init = o.parsed("init", parse_init_method);
  if (o.has("init-std"))
    e.init_std = o.get_double("init-std");
  if (o.has("spectral-exponent"))
    e.spectral_exponent = o.get_double("spectral-exponent");
  if (o.has("spectral-max-entries"))
    e.spectral_max_entries = int_at_least(o, "spectral-max-entries", 1);
  if (o.has("emb-dim")) {
    e.dim = int_at_least(o, "emb-dim", 1);
    e.tt_d.clear(); // a preset's column factors are for its width
  }
  if (o.has("tt-rank"))
    e.tt_rank = int_at_least(o, "tt-rank", 1);
  if (o.has("tt-shape"))
    e.tt_n = o.get_int_list("tt-shape");
  if (o.has("tt-dims"))
    apply_tt_dims(o, e);
  if (o.has("tt-slack"))
    e.tt_slack = o.get_double("tt-slack");
  if (o.has("tt-backward"))
    e.backward = o.parsed("tt-backward", parse_tt_backward_mode);
  if (o.has("emb-lr"))
    e.lr = o.get_double("emb-lr");
  if (o.has("emb-weight-decay"))
    e.weight_decay = o.get_double("emb-weight-decay");
}

void apply_network_options(Options const &o, RunConfig &c) {
  if (o.has("hidden"))
    c.hidden = int_at_least(o, "hidden", 1);
  if (o.has("layers"))
    c.layers = static_cast<int>(int_at_least(o, "layers", 1));
  if (o.has("dropout"))
    c.dropout = o.get_double("dropout");
  if (o.has("input-dropout"))
    c.input_dropout = o.get_double("input-dropout");
  c.residual = c.residual || o.get_flag("residual");
  c.batch_norm = c.batch_norm || o.get_flag("batch-norm");
  if (o.has("memory-budget"))
    c.memory_budget = parse_byte_size(o.get("memory-budget"), "--memory-budget");
}

void apply_training_options(Options const &o, RunConfig &c) {
  if (o.has("epochs"))
    c.epochs = static_cast<int>(int_at_least(o, "epochs", 0));
  if (o.has("optimizer"))
    c.optimizer = o.parsed("optimizer", parse_optimizer_kind);
  if (o.has("lr"))
    c.lr = o.get_double("lr");
  if (o.has("weight-decay"))
    c.weight_decay = o.get_double("weight-decay");
  if (o.has("patience"))
    c.patience = static_cast<int>(int_at_least(o, "patience", 0));
  if (o.has("metric"))
    c.metric = o.parsed("metric", parse_node_metric);
  if (o.has("warmup"))
    throw ConfigError("--warmup is not an option of a run: the learning-rate warm-up is "
                      "--lr-warmup, and epoch_time_s is the median epoch, so timing needs no "
                      "untimed epochs");
  if (o.has("lr-warmup"))
    c.lr_warmup = static_cast<int>(int_at_least(o, "lr-warmup", 0));
  if (o.has("plateau-factor"))
    c.plateau_factor = o.get_double("plateau-factor");
  if (o.has("plateau-patience"))
    c.plateau_patience = static_cast<int>(int_at_least(o, "plateau-patience", 0));
  if (o.has("seed")) {
    const std::int64_t seed = o.get_int("seed");
    if (seed < 0)
      throw ConfigError("--seed must be >= 0, got " + std::to_string(seed));
    c.seed = static_cast<std::uint64_t>(seed);
  }
}

void apply_minibatch_options(Options const &o, MinibatchConfig &m) {
  if (o.has("batch-size")) {
    m.batch_size = o.get_int("batch-size");
    if (m.batch_size < 0)
      throw ConfigError("--batch-size must be >= 0, got " + std::to_string(m.batch_size));
  }
  if (o.has("fanout"))
    m.fanouts = parse_fanouts(o.get("fanout"), "--fanout");
  if (o.has("eval-every"))
    m.eval_every = static_cast<int>(int_at_least(o, "eval-every", 1));
  if (o.has("max-batches"))
    m.max_batches = int_at_least(o, "max-batches", 0);
  if (o.has("eval-nodes"))
    m.eval_nodes = o.parsed("eval-nodes", parse_eval_nodes);
  if (o.has("eval-fanout"))
    m.eval_fanouts = parse_fanouts(o.get("eval-fanout"), "--eval-fanout");
  if (o.has("eval-batch-size"))
    m.eval_batch_size = int_at_least(o, "eval-batch-size", 0);
  if (o.has("eval-chunk"))
    m.eval_chunk = int_at_least(o, "eval-chunk", 0);
}

void apply_output_options(Options const &o, RunConfig &c) {
  if (o.has("checkpoint"))
    c.checkpoint = o.get("checkpoint");
  if (o.has("checkpoint-every"))
    c.checkpoint_every = static_cast<int>(int_at_least(o, "checkpoint-every", 1));
  c.resume = c.resume || o.get_flag("resume");
  if (o.has("export-embeddings"))
    c.export_embeddings = o.get("export-embeddings");
  if (o.has("predictions"))
    c.predictions_out = o.get("predictions");
  if (o.has("metrics-out"))
    c.metrics_out = o.get("metrics-out");
}

/// Options given on the command line that the rest of the settings leave without effect: each
/// is refused with the reason, never silently ignored.
void refuse_meaningless_options(Options const &o, RunConfig const &c) {
  refuse_order_tuning(o, c.order);
  const std::string input = "(--input " + to_string(c.input) + ")";
  const bool tt = uses_tt(c.input), table = tt || uses_full_table(c.input);
  if (!table)
    o.refuse({"init", "init-std", "spectral-exponent", "spectral-max-entries", "emb-dim", "emb-lr",
              "emb-weight-decay", "tt-backward", "tt-rank", "tt-shape", "tt-dims", "tt-slack"},
             "sets the embedding table, and the input " + input +
                 " has none: use --input emb, tt, feat+tt or feat+emb");
  if (!tt)
    o.refuse({"tt-rank", "tt-shape", "tt-dims", "tt-slack", "spectral-max-entries"},
             "sets the TT table, and the input " + input + " is a full table: use --input tt");
  if (o.has("tt-shape"))
    o.refuse({"tt-slack"}, "sizes the default TT row factors, and --tt-shape gives them");
  if (c.embedding.init != InitMethod::spectral)
    o.refuse({"spectral-exponent"}, "scales the spectral init, and --init is " +
                                        to_string(c.embedding.init) + ": add --init spectral");
  if (c.embedding.init != InitMethod::spectral)
    o.refuse({"spectral-max-entries"}, "bounds the spectral init, and --init is " +
                                           to_string(c.embedding.init) + ": add --init spectral");
  if (c.checkpoint.empty())
    o.refuse({"checkpoint-every"}, "spaces the checkpoints: add --checkpoint PATH");
  if (c.plateau_factor >= 1.0)
    o.refuse({"plateau-patience"}, "waits for a plateau, and --plateau-factor " +
                                       num(c.plateau_factor) +
                                       " never reduces the learning rate: give a factor < 1");
  if (!c.minibatch_mode()) {
    o.refuse(
        {"fanout", "eval-every", "max-batches", "eval-nodes", "eval-fanout", "eval-batch-size"},
        "is an option of mini-batch training: add --batch-size B (with --model sage)");
    return;
  }
  if (c.minibatch.eval_nodes == EvalNodes::all)
    o.refuse({"eval-fanout", "eval-batch-size"},
             "is for subset evaluation: add --eval-nodes valid+test or test (--eval-nodes all "
             "evaluates layer-wise, exactly)");
  if (c.minibatch.eval_nodes == EvalNodes::test)
    o.refuse({"patience"}, "stops on the validation metric, and --eval-nodes test computes none "
                           "(use valid+test or all)");
}

} // namespace

void declare_run_options(Options &opts, RunConfig const *defaults) {
  const RunConfig base;
  const ShownDefaults shown{defaults ? *defaults : base, defaults == nullptr};
  declare_data_options(opts, shown);
  declare_model_options(opts, shown);
  declare_embedding_options(opts, shown);
  declare_network_options(opts, shown);
  declare_training_options(opts, shown);
  declare_minibatch_options(opts, shown);
  declare_output_options(opts, shown);
}

void apply_run_options(Options const &o, RunConfig &c) {
  apply_data_options(o, c);
  apply_model_options(o, c);
  apply_embedding_options(o, c.embedding);
  apply_network_options(o, c);
  apply_training_options(o, c);
  apply_minibatch_options(o, c.minibatch);
  apply_output_options(o, c);
  refuse_meaningless_options(o, c);
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
  std::vector<NamedPath> outputs = run_outputs(c);
  outputs.push_back({"--curve-svg", front.curve_svg});
  require_distinct_paths(run_inputs(c), outputs);
  // Under mpirun (data-parallel mini-batches, docs/DISTRIBUTED.md) rank 0 speaks and writes.
  const bool speaker = Communicator::world().rank() == 0;
  const RunLog log = speaker ? stderr_log(front) : RunLog();
  // the outputs appear together when the run succeeds, and none when it fails or is stopped
  // (checkpoints are written as training goes, for --resume)
  OutputTransaction transaction;
  LoadedData loaded = load_run_data(c, log);
  c.data.split = loaded.split;
  // taken over: freed once the ordered copy exists
  RunResult r = run_training(Kokkos::DefaultExecutionSpace(), std::move(loaded.data), c, log);
  r.load_time_s = loaded.seconds;
  const bool failed = r.stop == StopReason::nonfinite;
  if (!speaker)
    return failed ? 4 : 0;
  if (failed) // said even with --quiet: the exit code is 4
    std::fprintf(stderr, "ttgnn: %s; no output file written\n", r.message.c_str());
  if (!failed && !front.curve_svg.empty())
    write_curve_svg(front.curve_svg, title, r);
  if (!failed)
    transaction.commit();
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
  front_fields.field("curve_svg", failed ? std::string() : front.curve_svg);
  const std::string f = front_fields.str(), json = run_json(r, c);
  std::cout << "{" << json_prefix << f.substr(1, f.size() - 2) << "," << json.substr(1)
            << std::endl;
  return failed ? 4 : 0;
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
