#include "apps/train_pipeline.hpp"

#include "apps/cli_options.hpp"
#include "apps/path_checks.hpp"
#include "apps/svg_plot.hpp"
#include "core/atomic_file.hpp"
#include "core/byte_ledger.hpp"
#include "core/checksum.hpp"
#include "core/error.hpp"
#include "core/json_writer.hpp"
#include "core/kokkos_compat.hpp"
#include "core/memory_breakdown.hpp"
#include "core/peak_memory.hpp"
#include "core/tt_shape.hpp"
#include "graph/hierarchical_partition.hpp"
#include "graph/ogb_loader.hpp"
#include "graph/ordering.hpp"
#include "graph/permutation.hpp"
#include "models/embedding_export.hpp"
#include "models/embedding_init.hpp"
#include "models/full_batch_trainer.hpp"
#include "models/gcn_norm.hpp"
#include "models/node_targets.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

namespace ttgnn::cli {

namespace {

namespace fs = std::filesystem;
using Space = Kokkos::DefaultExecutionSpace;
using HostSpace = Kokkos::DefaultHostExecutionSpace;
using Scalar = float;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

template <class HostView> auto to_device(HostView const &h, std::string const &label) {
  return Kokkos::create_mirror_view_and_copy(Space::memory_space(), h, label);
}

/// Node features on the device, optionally row-normalised (each row divided by its L1 norm,
/// as PyG's NormalizeFeatures / Kipf & Welling's preprocessing; zero rows stay zero).
Matrix<Scalar, Space> device_features(Dataset<std::int32_t> const &data, std::string const &norm) {
  const std::int64_t n = data.num_nodes(), f = data.num_features();
  const DenseFeatures x = dense_features(Kokkos::DefaultHostExecutionSpace(), data);
  auto host = Kokkos::View<Scalar **, Kokkos::LayoutRight, Kokkos::HostSpace>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::train::features_host"), n, f);
  for (std::int64_t i = 0; i < n; ++i) {
    double s = 0;
    if (norm == "row")
      for (std::int64_t j = 0; j < f; ++j)
        s += std::fabs(double(x(i, j)));
    const double scale = s > 0 ? 1.0 / s : 1.0;
    for (std::int64_t j = 0; j < f; ++j)
      host(i, j) = static_cast<Scalar>(double(x(i, j)) * scale);
  }
  Matrix<Scalar, Space> dev(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::train::features"), n, f);
  Kokkos::deep_copy(dev, host);
  return dev;
}

std::string list_string(std::vector<std::int64_t> const &v) {
  std::string s;
  for (auto x : v)
    s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

void write_metrics_csv(std::string const &path, std::vector<EpochRecord> const &history,
                       std::string const &metric) {
  std::ostringstream out;
  out << "epoch,loss,train_" << metric << ",valid_" << metric << ",test_" << metric
      << ",valid_loss,lr,epoch_time_s,train_time_s,eval_time_s\n";
  out.precision(9);
  for (auto const &r : history)
    out << r.epoch << "," << r.loss << "," << r.train_acc << "," << r.valid_acc << "," << r.test_acc
        << "," << r.valid_loss << "," << r.lr << "," << r.seconds << "," << r.train_seconds << ","
        << r.eval_seconds << "\n";
  write_file_atomic(path, out.str());
}

void write_curve_svg(std::string const &path, std::string const &title,
                     std::vector<EpochRecord> const &history, int best_epoch,
                     std::string const &metric) {
  PlotPanel loss{"loss", "epoch", "cross-entropy", {}, false, 0, 1, {}, ""};
  PlotPanel acc{metric, "epoch", metric, {}, true, 0, 1, {}, ""};
  PlotSeries tl{"train loss", {}, {}, "#1f77b4"}, vl{"valid loss", {}, {}, "#ff7f0e", true};
  PlotSeries ta{"train", {}, {}, "#1f77b4"}, va{"valid", {}, {}, "#ff7f0e"},
      te{"test", {}, {}, "#2ca02c"};
  for (auto const &r : history) {
    for (auto *s : {&tl, &vl, &ta, &va, &te})
      s->x.push_back(r.epoch);
    tl.y.push_back(r.loss);
    vl.y.push_back(r.valid_loss);
    ta.y.push_back(r.train_acc);
    va.y.push_back(r.valid_acc);
    te.y.push_back(r.test_acc);
  }
  loss.series = {tl, vl};
  acc.series = {ta, va, te};
  if (best_epoch > 0) {
    acc.vlines = loss.vlines = {double(best_epoch)};
    acc.vline_label = "selected epoch";
  }
  acc.legend_bottom = true; // accuracies rise towards the top
  write_file_atomic(path, render_svg(title, {loss, acc}));
}

} // namespace

/// The split to load: the requested one, else meta.csv's `split`, else the only folder.
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

void check_train_paths(TrainSettings const &s) {
  require_dataset_folder("--dataset", s.dataset);
  require_output_file("--checkpoint", s.checkpoint);
  require_output_file("--export-embeddings", s.export_embeddings);
  require_output_file("--metrics-out", s.metrics_out);
  require_output_file("--curve-svg", s.curve_svg);
  const InputKind kind = parse_input_kind(s.input);
  if (!s.export_embeddings.empty() && !uses_tt(kind) && !uses_full_table(kind))
    throw ConfigError("--export-embeddings: the input (--input " + s.input +
                      ") has no embedding table; use --input emb, tt or feat+tt");
}

void declare_train_options(Options &opts) {
  const TrainSettings d;
  auto num = [](double v) {
    std::ostringstream s;
    s << v;
    return s.str();
  };
  opts.value("dataset", "dataset folder in the OGB raw layout", "", true)
      .value("split", "split folder under split/ (default: meta.csv's split, or the only one)")
      .value("cache", "binary cache folder of the loader", "")
      .value("feature-norm", "none | row (divide each feature row by its L1 norm)", d.feature_norm)
      .value("model", "gcn | sage", d.model)
      .value("input", "feat | emb | tt | feat+tt | feat+emb", d.input)
      .value("order", "node order: original | random | metis | metis-hier | rcm", d.order)
      .value("init", "embedding init: gaussian | ortho | spectral", d.init)
      .value("init-std", "root-mean-square entry of the initial embedding table", num(d.init_std))
      .value("spectral-exponent", "spectral init: column j scaled by |lambda_j|^exponent",
             num(d.spectral_exponent))
      .value("emb-dim", "embedding dimension d", std::to_string(d.emb_dim))
      .value("tt-rank", "TT rank R", std::to_string(d.tt_rank))
      .value("tt-shape", "TT row factors n1,n2,n3 (default: balanced, product >= slack*N)")
      .value("tt-dims", "TT column factors d1,d2,d3 (default: from --emb-dim, largest first)")
      .value("tt-slack", "free rows of the default TT row factors (product >= slack*N)",
             num(d.tt_slack))
      .value("hidden", "hidden width", std::to_string(d.hidden))
      .value("layers", "graph layers", std::to_string(d.layers))
      .value("dropout", "dropout before every hidden graph layer", num(d.dropout))
      .value("input-dropout",
             "dropout on the input rows before the first layer (0 as in OGB's examples; "
             "Kipf & Welling's GCN uses 0.5)",
             num(d.input_dropout))
      .flag("residual", "residual connections between hidden layers of equal width")
      .flag("batch-norm", "BatchNorm after every hidden graph layer")
      .value("epochs", "training epochs", std::to_string(d.epochs))
      .value("optimizer", "adam | adamw", d.optimizer)
      .value("lr", "learning rate of the GNN", num(d.lr))
      .value("weight-decay", "weight decay of the GNN (L2 for adam, decoupled for adamw)",
             num(d.weight_decay))
      .value("emb-lr", "learning rate of the embedding table (default: --lr)", "")
      .value("emb-weight-decay",
             "weight decay of the embedding table (< 0: as --weight-decay; decaying the table "
             "costs accuracy)",
             num(d.emb_weight_decay))
      .value("patience",
             "early stopping after this many epochs without a better valid "
             "metric (0 = off)",
             std::to_string(d.patience))
      .value("metric",
             "evaluation and model selection: acc | rocauc | f1_micro | f1_macro (default: acc "
             "for single-label, rocauc for multi-label datasets)")
      .value("lr-warmup", "linear learning-rate warm-up epochs", std::to_string(d.lr_warmup))
      .value("warmup", "removed: use --lr-warmup (a learning-rate warm-up); epoch_time_s is a "
                       "median, so timing needs no untimed epochs")
      .value("plateau-factor",
             "multiply the learning rate by this on a valid-accuracy plateau "
             "(1 = off)",
             num(d.plateau_factor))
      .value("plateau-patience", "epochs without improvement before a reduction",
             std::to_string(d.plateau_patience))
      .value("seed", "seed of weights, dropout, embedding init and the random/METIS order", "0")
      .value("tt-backward",
             "embedding backward (TT and full table): deterministic (sort-and-reduce, "
             "bitwise reproducible at a fixed thread count) | atomic (atomic adds, faster on "
             "GPUs, not reproducible)",
             d.tt_backward)
      .value("checkpoint", "checkpoint file (written every --checkpoint-every epochs)")
      .value("checkpoint-every", "epochs between checkpoints", std::to_string(d.checkpoint_every))
      .flag("resume", "continue from --checkpoint when it exists")
      .value("export-embeddings", "write the learned embeddings (N x d float32 .npy, rows in "
                                  "original node order)")
      .value("metrics-out", "write per-epoch metrics as CSV")
      .value("curve-svg", "write the training curves (loss, accuracy) as SVG")
      .flag("quiet", "no per-epoch progress lines");
}

TrainSettings train_settings_from(Options const &opts) {
  TrainSettings s;
  auto nonneg_int = [&](std::string const &name, std::int64_t lo) {
    const std::int64_t v = opts.get_int(name);
    if (v < lo || v > (1ll << 31))
      throw ConfigError("--" + name + " must be an integer >= " + std::to_string(lo) + ", got " +
                        std::to_string(v));
    return v;
  };
  s.dataset = opts.get("dataset");
  s.split = opts.get("split");
  s.cache_dir = opts.get("cache");
  s.feature_norm = opts.get("feature-norm");
  s.model = opts.get("model");
  s.input = opts.get("input");
  s.order = opts.get("order");
  s.init = opts.get("init");
  s.init_std = opts.get_double("init-std");
  s.spectral_exponent = opts.get_double("spectral-exponent");
  s.emb_dim = nonneg_int("emb-dim", 1);
  s.tt_rank = nonneg_int("tt-rank", 1);
  if (opts.has("tt-shape"))
    s.tt_shape = opts.get_int_list("tt-shape");
  if (opts.has("tt-dims")) {
    s.tt_dims = opts.get_int_list("tt-dims");
    std::int64_t prod = 1;
    for (auto x : s.tt_dims)
      prod *= x;
    if (opts.has("emb-dim") && prod != s.emb_dim)
      throw ConfigError("--tt-dims " + list_string(s.tt_dims) + " multiply to " +
                        std::to_string(prod) + ", not --emb-dim " + std::to_string(s.emb_dim));
    s.emb_dim = prod;
  }
  s.tt_slack = opts.get_double("tt-slack");
  s.hidden = nonneg_int("hidden", 1);
  s.layers = static_cast<int>(nonneg_int("layers", 1));
  s.dropout = opts.get_double("dropout");
  s.input_dropout = opts.get_double("input-dropout");
  s.residual = opts.get_flag("residual");
  s.batch_norm = opts.get_flag("batch-norm");
  s.epochs = static_cast<int>(nonneg_int("epochs", 0));
  s.optimizer = opts.get("optimizer");
  s.lr = opts.get_double("lr");
  s.weight_decay = opts.get_double("weight-decay");
  s.emb_lr = opts.has("emb-lr") ? opts.get_double("emb-lr") : -1;
  s.emb_weight_decay = opts.get_double("emb-weight-decay");
  s.patience = static_cast<int>(nonneg_int("patience", 0));
  if (opts.has("warmup"))
    throw ConfigError("--warmup was renamed --lr-warmup (it is a learning-rate warm-up, not "
                      "untimed epochs: epoch_time_s is already the median epoch)");
  s.lr_warmup = static_cast<int>(nonneg_int("lr-warmup", 0));
  s.metric = opts.get("metric");
  s.plateau_factor = opts.get_double("plateau-factor");
  s.plateau_patience = static_cast<int>(nonneg_int("plateau-patience", 0));
  const std::int64_t seed = opts.get_int("seed");
  if (seed < 0)
    throw ConfigError("--seed must be >= 0, got " + std::to_string(seed));
  s.seed = static_cast<std::uint64_t>(seed);
  s.tt_backward = opts.get("tt-backward");
  parse_tt_backward_mode(s.tt_backward); // ConfigError naming the choices
  s.checkpoint = opts.get("checkpoint");
  s.checkpoint_every = static_cast<int>(nonneg_int("checkpoint-every", 1));
  s.resume = opts.get_flag("resume");
  if (s.resume && s.checkpoint.empty())
    throw ConfigError("--resume needs --checkpoint PATH");
  s.export_embeddings = opts.get("export-embeddings");
  s.metrics_out = opts.get("metrics-out");
  s.curve_svg = opts.get("curve-svg");
  s.progress = !opts.get_flag("quiet");
  return s;
}

TrainRunSummary run_full_batch_training(TrainSettings const &s, std::FILE *progress) {
  const auto t_start = Clock::now();
  const InputKind kind = parse_input_kind(s.input);
  const GnnKind gnn_kind = parse_gnn_kind(s.model);
  const OrderMethod order = parse_order_method(s.order);
  const InitMethod init = parse_init_method(s.init);
  const OptimizerKind optimizer = parse_optimizer_kind(s.optimizer);
  if (s.feature_norm != "none" && s.feature_norm != "row")
    throw ConfigError("--feature-norm: expected none or row, got '" + s.feature_norm + "'");
  if (!(s.dropout >= 0 && s.dropout < 1) || !(s.input_dropout < 1))
    throw ConfigError("--dropout and --input-dropout must be in [0, 1)");
  if (!(s.lr >= 0) || !(s.weight_decay >= 0))
    throw ConfigError("--lr and --weight-decay must be >= 0");
  if (!(s.tt_slack >= 1))
    throw ConfigError("--tt-slack must be >= 1, got " + std::to_string(s.tt_slack));
  check_train_paths(s); // before any work: a bad path fails now, not after training
  const bool tt = uses_tt(kind), full = uses_full_table(kind), feat = uses_features(kind);
  Space space;
  HostSpace host;
  auto note = [&](std::string const &what) { // loading notes; --quiet drops them
    if (progress && s.progress)
      std::fprintf(progress, "[%7.2fs] %s\n", since(t_start), what.c_str());
  };

  // ---- data
  LoadOptions load;
  load.split = choose_split(s.dataset, s.split);
  load.features = feat;
  load.cache_dir = s.cache_dir;
  LoadInfo load_info;
  note("loading " + s.dataset + " (split " + load.split + ")");
  Dataset<std::int32_t> data = load_ogb<std::int32_t>(s.dataset, load, &load_info);
  const std::int64_t feature_dim = data.num_features();
  if (!feat) // 0 x F when not loaded
    data.drop_features();
  const std::int64_t n = data.num_nodes();
  if (data.train.extent(0) == 0)
    throw InputError(s.dataset + ": split " + load.split + " has no training nodes");
  if (feat && !data.has_feature_values())
    throw InputError(s.dataset + ": no node features (raw/node-feat); use --input emb or tt");
  if (data.num_classes < 2 && !data.is_multilabel())
    throw InputError(s.dataset + ": need at least 2 classes, found " +
                     std::to_string(data.num_classes));
  const NodeMetric metric = resolve_metric(s.metric, data.is_multilabel());
  note(std::string("evaluator: ") + display_name(metric) + " (" + to_string(metric) + ") on " +
       (data.is_multilabel()
            ? std::to_string(data.num_classes) +
                  " binary tasks (multi-label; sigmoid + binary cross-entropy)"
            : std::to_string(data.num_classes) + " classes (softmax cross-entropy)"));

  // ---- TT factors, then the ordering (metis-hier aligns to the row factors)
  std::vector<std::int64_t> n_factors = s.tt_shape, d_factors = s.tt_dims;
  if (tt) {
    const int cores = static_cast<int>(!n_factors.empty()   ? n_factors.size()
                                       : !d_factors.empty() ? d_factors.size()
                                                            : 3);
    const TtShape base = make_tt_shape(n, s.emb_dim, s.tt_rank, cores, s.tt_slack);
    if (n_factors.empty())
      n_factors = base.n;
    if (d_factors.empty())
      d_factors = base.d;
  }
  OrderingOptions order_options;
  order_options.method = order;
  order_options.seed = s.seed;
  order_options.n_factors = tt ? n_factors : default_n_factors(n, 3, s.tt_slack);
  note("ordering nodes: " + s.order);
  const NodeOrdering ordering = compute_ordering(host, data.graph, order_options);
  const Dataset<std::int32_t> pdata =
      order == OrderMethod::original ? data : apply_permutation(host, data, ordering.permutation);

  // ---- input
  const auto t_init = Clock::now();
  NodeInput<Scalar, Space> input(n);
  if (feat)
    input.set_features(device_features(pdata, s.feature_norm));
  EmbeddingInitOptions init_options;
  init_options.method = init;
  init_options.init_std = s.init_std;
  init_options.spectral_exponent = s.spectral_exponent;
  init_options.seed = s.seed;
  EmbeddingInitInfo init_info;
  TtShape shape;
  if (tt) {
    std::int64_t rows = 0;
    for (std::int64_t v = 0; v < n; ++v)
      rows = std::max(rows, ordering.old_to_row(v) + 1);
    shape = make_tt_shape(rows, s.emb_dim, n_factors, d_factors, s.tt_rank);
    note("TT table " + shape.to_string() + ", init " + s.init);
    TtEmbeddingOptions tt_options;
    tt_options.mode = parse_tt_backward_mode(s.tt_backward);
    auto table = std::make_shared<TtEmbedding<Scalar, Space>>(shape, tt_options);
    table->set_cores_from_host(
        space, initial_tt_cores(shape, data.graph, ordering.old_to_row, init_options, &init_info));
    input.set_tt_embedding(table, ordering.new_to_row());
  } else if (full) {
    note("full table " + std::to_string(n) + " x " + std::to_string(s.emb_dim) + ", init " +
         s.init);
    FullEmbeddingOptions fo;
    fo.gradient = FullGradient::dense;
    fo.mode = parse_tt_backward_mode(s.tt_backward);
    auto table = std::make_shared<FullEmbedding<Scalar, Space>>(n, s.emb_dim, fo);
    const auto values = initial_full_table(
        n, s.emb_dim, data.graph, ordering.permutation.old_to_new, init_options, &init_info);
    auto h = Kokkos::create_mirror_view(table->table());
    for (std::size_t i = 0; i < values.size(); ++i)
      h.data()[i] = static_cast<Scalar>(values[i]);
    Kokkos::deep_copy(table->table(), h);
    input.set_full_embedding(table);
  }
  const double init_seconds = since(t_init);

  // ---- graph operator, labels, split, model
  const auto a = gnn_kind == GnnKind::gcn ? gcn_norm<Scalar>(space, pdata.graph)
                                          : mean_aggregation<Scalar>(space, pdata.graph);
  const NodeTargets<Space> targets =
      pdata.is_multilabel()
          ? NodeTargets<Space>(to_device(pdata.multilabels, "ttgnn::train::multilabels"), metric)
          : NodeTargets<Space>(to_device(pdata.labels, "ttgnn::train::labels"));
  Kokkos::View<const std::int64_t *, Space::memory_space> train =
      to_device(pdata.train, "ttgnn::train::train");
  Kokkos::View<const std::int64_t *, Space::memory_space> valid =
      to_device(pdata.valid, "ttgnn::train::valid");
  Kokkos::View<const std::int64_t *, Space::memory_space> test =
      to_device(pdata.test, "ttgnn::train::test");
  GnnConfig config;
  config.kind = gnn_kind;
  config.in_features = input.dim();
  config.hidden = s.hidden;
  config.out_features = data.num_classes;
  config.num_layers = s.layers;
  config.dropout = s.dropout;
  config.input_dropout = s.input_dropout >= 0 ? s.input_dropout : s.dropout;
  config.residual = s.residual;
  config.batch_norm = s.batch_norm;
  config.seed = s.seed;
  GnnModel<Scalar, Space> model(config);

  TrainOptions to;
  to.epochs = s.epochs;
  to.optimizer = optimizer;
  to.lr = s.lr;
  to.weight_decay = s.weight_decay;
  to.embedding_lr = s.emb_lr;
  to.embedding_weight_decay = s.emb_weight_decay;
  to.schedule.warmup_epochs = s.lr_warmup;
  to.schedule.plateau_factor = s.plateau_factor;
  to.schedule.plateau_patience = s.plateau_patience;
  to.patience = s.patience;
  to.checkpoint_path = s.checkpoint;
  to.checkpoint_every = s.checkpoint_every;
  to.resume = s.resume;
  // what the data is, not where it lives: a copy of the folder resumes the checkpoint
  to.fingerprint = data_fingerprint(data) + " split=" + load.split + " order=" + s.order +
                   " seed=" + std::to_string(s.seed) + (tt ? " tt=" + shape.to_string() : "") +
                   " feature_norm=" + s.feature_norm + " metric=" + to_string(metric);
  std::vector<double> epoch_times;
  if (progress && s.progress)
    to.on_epoch = [&](EpochRecord const &r) {
      epoch_times.push_back(r.seconds);
      double mean = 0;
      for (double t : epoch_times)
        mean += t;
      mean /= static_cast<double>(epoch_times.size());
      std::fprintf(progress,
                   "epoch %4d/%d  loss %.4f  %strain %.4f  valid %.4f  test %.4f  lr %.2e  "
                   "%.4f s  ETA %.1f s\n",
                   r.epoch, s.epochs, r.loss,
                   metric == NodeMetric::accuracy ? "" : (to_string(metric) + ": ").c_str(),
                   r.train_acc, r.valid_acc, r.test_acc, r.lr, r.seconds,
                   mean * (s.epochs - r.epoch));
    };
  FullBatchTrainer<Scalar, Space> trainer(space, model, input, a, targets, train, valid, test, to);
  note("training: " + s.model + ", input " + s.input + ", " + std::to_string(s.epochs) +
       " epochs, " + std::to_string(model.num_parameters()) + " GNN parameters, " +
       std::to_string(input.num_parameters()) + " embedding parameters");
  const auto t_train = Clock::now();
  const TrainResult result = trainer.train();
  const double train_seconds = since(t_train);
  if (result.stop == StopReason::nonfinite && progress)
    std::fprintf(progress, "ttgnn train: %s\n", result.message.c_str());

  // ---- outputs (with the selected parameters, restored by train())
  if (!s.export_embeddings.empty()) {
    export_embeddings_npy(space, input, ordering.permutation.old_to_new, s.export_embeddings);
    note("wrote " + s.export_embeddings);
  }
  if (!s.metrics_out.empty())
    write_metrics_csv(s.metrics_out, result.history, to_string(metric));
  if (!s.curve_svg.empty())
    write_curve_svg(s.curve_svg,
                    "ttgnn train: " + s.model + ", input " + s.input + ", order " + s.order + " (" +
                        fs::path(s.dataset).filename().string() + ")",
                    result.history, result.best_epoch, display_name(metric));

  TrainRunSummary sum;
  sum.status = to_string(result.stop);
  sum.message = result.message;
  sum.test_acc = result.test_acc;
  sum.valid_acc = result.valid_acc;
  sum.train_acc = result.train_acc;
  sum.best_epoch = result.best_epoch;
  sum.gnn_params = model.num_parameters();
  sum.embedding_params = input.num_parameters();
  sum.compression = input.has_embedding()
                        ? double(n) * double(input.embedding_dim()) / double(sum.embedding_params)
                        : std::nan("");
  sum.epoch_seconds = result.median_train_seconds();
  sum.metric = to_string(metric);

  JsonWriter j;
  j.field("status", sum.status);
  if (!sum.message.empty())
    j.field("message", sum.message);
  j.field("metric", sum.metric);
  j.field("test_metric", sum.test_acc);
  j.field("valid_metric", sum.valid_acc);
  j.field("train_metric", sum.train_acc);
  if (metric == NodeMetric::accuracy) { // the *_acc keys hold accuracies only
    j.field("test_acc", sum.test_acc);
    j.field("valid_acc", sum.valid_acc);
    j.field("train_acc", sum.train_acc);
  }
  j.field("multilabel", data.is_multilabel());
  j.field("best_epoch", sum.best_epoch);
  j.field("first_epoch", result.first_epoch);
  j.field("last_epoch", result.last_epoch);
  j.field("gnn_params", static_cast<long long>(sum.gnn_params));
  j.field("embedding_params", static_cast<long long>(sum.embedding_params));
  j.field("full_table_params",
          static_cast<long long>(input.has_embedding() ? n * input.embedding_dim() : 0));
  j.field("compression", sum.compression);
  j.field("epoch_time_s", sum.epoch_seconds);
  j.field("eval_time_s", result.median_eval_seconds());
  j.field("epoch_time_mean_s", result.epoch_seconds());
  j.field("train_time_s", train_seconds);
  j.field("load_time_s", load_info.seconds);
  j.field("order_time_s", ordering.seconds);
  j.field("init_time_s", init_seconds);
  j.field("total_time_s", since(t_start));
  j.field("peak_rss_mb", peak_rss_mb());
  {
    ByteLedger graph, features; // the host dataset, in both orders when they differ
    for (Dataset<std::int32_t> const *d :
         {static_cast<Dataset<std::int32_t> const *>(&data), &pdata}) {
      graph.add(d->graph.row_map).add(d->graph.entries);
      features.add(d->features)
          .add(d->sparse_features.row_map)
          .add(d->sparse_features.cols)
          .add(d->sparse_features.values);
    }
    j.raw("memory", to_json(trainer.memory(graph, features)));
  }
  j.field("threads", compat::concurrency(Kokkos::DefaultHostExecutionSpace()));
  j.field("num_nodes", static_cast<long long>(n));
  j.field("num_arcs", static_cast<long long>(data.graph.num_arcs()));
  j.field("num_features", static_cast<long long>(feature_dim));
  j.field("num_classes", data.num_classes);
  j.field("num_train", static_cast<long long>(data.train.extent(0)));
  j.field("num_valid", static_cast<long long>(data.valid.extent(0)));
  j.field("num_test", static_cast<long long>(data.test.extent(0)));
  if (tt) {
    j.field("tt_n", shape.n);
    j.field("tt_d", shape.d);
    j.field("tt_ranks", shape.ranks);
    j.field("tt_rows", static_cast<long long>(shape.num_rows));
  }
  if (tt || full) {
    j.field("init_scale", init_info.scale);
    if (init_info.tt_svd_error >= 0)
      j.field("tt_svd_error", init_info.tt_svd_error);
    if (init == InitMethod::spectral) {
      j.field("spectral_components", static_cast<long long>(init_info.components));
      j.field("spectral_eigenpairs", static_cast<long long>(init_info.eigenpairs));
      j.field("spectral_lambda_first", init_info.lambda_first);
      j.field("spectral_lambda_last", init_info.lambda_last);
    }
  }
  if (ordering.metis_cut >= 0)
    j.field("metis_cut", static_cast<long long>(ordering.metis_cut));
  if (!ordering.spilled.empty())
    j.field("spilled", ordering.spilled);
  // every setting
  j.field("dataset", s.dataset);
  j.field("split", load.split);
  j.field("model", s.model);
  j.field("input", s.input);
  j.field("order", s.order);
  j.field("init", s.init);
  j.field("init_std", s.init_std);
  j.field("spectral_exponent", s.spectral_exponent);
  j.field("emb_dim", static_cast<long long>(s.emb_dim));
  j.field("tt_rank", static_cast<long long>(s.tt_rank));
  j.field("tt_shape", n_factors);
  j.field("tt_dims", d_factors);
  j.field("tt_slack", s.tt_slack);
  j.field("feature_norm", s.feature_norm);
  j.field("hidden", static_cast<long long>(s.hidden));
  j.field("layers", s.layers);
  j.field("dropout", s.dropout);
  j.field("input_dropout", config.input_dropout);
  j.field("residual", s.residual);
  j.field("batch_norm", s.batch_norm);
  j.field("epochs", s.epochs);
  j.field("optimizer", s.optimizer);
  j.field("lr", s.lr);
  j.field("weight_decay", s.weight_decay);
  j.field("emb_lr", trainer.embedding_lr());
  j.field("emb_weight_decay", s.emb_weight_decay >= 0 ? s.emb_weight_decay : s.weight_decay);
  j.field("patience", s.patience);
  j.field("lr_warmup", s.lr_warmup);
  j.field("plateau_factor", s.plateau_factor);
  j.field("plateau_patience", s.plateau_patience);
  j.field("seed", static_cast<unsigned long long>(s.seed));
  j.field("tt_backward", s.tt_backward);
  j.field("checkpoint", s.checkpoint);
  j.field("checkpoint_every", s.checkpoint_every);
  j.field("checkpoint_epoch", result.checkpoint_epoch);
  j.field("resume", s.resume);
  j.field("export_embeddings", s.export_embeddings);
  j.field("metrics_out", s.metrics_out);
  j.field("curve_svg", s.curve_svg);
  sum.json = j.str();
  return sum;
}

} // namespace ttgnn::cli
