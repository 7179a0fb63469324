// One training run: ordering, embedding rows, full-batch or mini-batch trainer (see
// gnn_experiment.hpp).
#include "apps/gnn_experiment.hpp"

#include "core/byte_ledger.hpp"
#include "core/error.hpp"
#include "core/json_writer.hpp"
#include "core/peak_memory.hpp"
#include "core/tt_shape.hpp"
#include "graph/ordering.hpp"
#include "graph/permutation.hpp"
#include "models/embedding_init.hpp"
#include "models/full_batch_trainer.hpp"
#include "models/gcn_norm.hpp"
#include "models/minibatch_trainer.hpp"
#include "models/node_input.hpp"
#include "models/node_targets.hpp"

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cstdio>
#include <memory>

namespace ttgnn::cli {

namespace {

using Space = Kokkos::DefaultExecutionSpace;
using HostSpaceExec = Kokkos::DefaultHostExecutionSpace;
using Scalar = float;
using HostIds = Kokkos::View<std::int64_t *, Kokkos::HostSpace>;

/// TT shape for num_rows rows: the settings' factors when given, else balanced.
TtShape tt_shape_for(ExperimentSettings const &s, std::int64_t num_rows,
                     std::vector<std::int64_t> const &n_from_order) {
  std::vector<std::int64_t> n = !n_from_order.empty() ? n_from_order : s.tt_n;
  if (n.empty())
    return s.tt_d.empty() ? make_tt_shape(num_rows, s.emb_dim, s.tt_rank, 3)
                          : make_tt_shape(num_rows, s.emb_dim,
                                          make_tt_shape(num_rows, s.emb_dim, s.tt_rank,
                                                        static_cast<int>(s.tt_d.size()))
                                              .n,
                                          s.tt_d, s.tt_rank);
  std::vector<std::int64_t> d = s.tt_d;
  if (d.empty())
    d = make_tt_shape(num_rows, s.emb_dim, s.tt_rank, static_cast<int>(n.size())).d;
  return make_tt_shape(num_rows, s.emb_dim, n, d, s.tt_rank);
}

std::string format_epoch(int epoch, int epochs, double loss, double train, double valid,
                         double test, double seconds, bool evaluated) {
  char line[256];
  if (evaluated)
    std::snprintf(line, sizeof line,
                  "epoch %4d/%d  loss %.4f  train %.4f  valid %.4f  test %.4f  %.2fs", epoch,
                  epochs, loss, train, valid, test, seconds);
  else
    std::snprintf(line, sizeof line, "epoch %4d/%d  loss %.4f  %.2fs", epoch, epochs, loss,
                  seconds);
  return line;
}

ExperimentResult run_full_batch(Dataset<std::int32_t> const &data, ExperimentSettings const &s,
                                HostIds rows, std::int64_t num_rows,
                                std::vector<std::int64_t> const &n_from_order,
                                std::function<void(std::string const &)> const &progress) {
  Space space;
  using Mem = Space::memory_space;
  const InputKind kind = parse_input_kind(s.input);
  NodeInput<Scalar, Space> input(data.num_nodes());
  if (uses_features(kind)) {
    if (!data.has_feature_values())
      throw ConfigError("input '" + s.input + "': the dataset has no node features");
    const DenseFeatures x = dense_features(Kokkos::DefaultHostExecutionSpace(), data);
    Matrix<Scalar, Space> f(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::experiment::features"), x.extent(0),
        x.extent(1));
    Kokkos::deep_copy(f, x);
    input.set_features(f);
  }
  ExperimentResult out;
  if (uses_tt(kind) || uses_full_table(kind)) {
    EmbeddingInitOptions init;
    init.method = parse_init_method(s.init);
    init.init_std = s.init_std;
    init.seed = s.seed;
    if (uses_tt(kind)) {
      const TtShape shape = tt_shape_for(s, num_rows, n_from_order);
      auto tt = std::make_shared<TtEmbedding<Scalar, Space>>(shape);
      tt->set_cores_from_host(space, initial_tt_cores(shape, data.graph, rows, init));
      input.set_tt_embedding(tt, rows);
      out.tt_shape = shape.to_string();
    } else {
      FullEmbeddingOptions fo;
      fo.gradient = FullGradient::dense;
      auto full = std::make_shared<FullEmbedding<Scalar, Space>>(num_rows, s.emb_dim, fo);
      const std::vector<double> table =
          initial_full_table(num_rows, s.emb_dim, data.graph, rows, init);
      auto h = Kokkos::create_mirror_view(full->table());
      for (std::size_t k = 0; k < table.size(); ++k)
        h.data()[k] = static_cast<Scalar>(table[k]);
      Kokkos::deep_copy(full->table(), h);
      input.set_full_embedding(full, rows);
    }
    out.compression = input.tt_embedding() ? input.tt_embedding()->compression() : 1.0;
  }
  GnnConfig cfg;
  cfg.kind = parse_gnn_kind(s.model);
  cfg.in_features = input.dim();
  cfg.hidden = s.hidden;
  cfg.out_features = data.num_classes;
  cfg.num_layers = s.layers;
  cfg.dropout = s.dropout;
  cfg.input_dropout = s.input_dropout;
  cfg.batch_norm = s.batch_norm;
  cfg.residual = s.residual;
  cfg.seed = s.seed;
  GnnModel<Scalar, Space> model(cfg);
  auto a = cfg.kind == GnnKind::gcn ? gcn_norm<Scalar>(space, data.graph)
                                    : mean_aggregation<Scalar>(space, data.graph);
  const NodeMetric metric = resolve_metric(s.metric, data.is_multilabel());
  const NodeTargets<Space> targets =
      data.is_multilabel()
          ? NodeTargets<Space>(Kokkos::create_mirror_view_and_copy(
                                   Mem(), data.multilabels, "ttgnn::experiment::multilabels"),
                               metric)
          : NodeTargets<Space>(Kokkos::create_mirror_view_and_copy(Mem(), data.labels,
                                                                   "ttgnn::experiment::labels"));
  auto train = Kokkos::create_mirror_view_and_copy(Mem(), data.train, "ttgnn::experiment::train");
  auto valid = Kokkos::create_mirror_view_and_copy(Mem(), data.valid, "ttgnn::experiment::valid");
  auto test = Kokkos::create_mirror_view_and_copy(Mem(), data.test, "ttgnn::experiment::test");
  TrainOptions t;
  t.epochs = s.epochs;
  t.optimizer = parse_optimizer_kind(s.optimizer);
  t.lr = s.lr;
  t.weight_decay = s.weight_decay;
  t.embedding_lr = s.emb_lr;
  t.embedding_weight_decay = s.emb_weight_decay;
  t.patience = s.patience;
  std::vector<ExperimentEpoch> history;
  t.on_epoch = [&](EpochRecord const &r) {
    history.push_back({r.epoch, r.loss, r.train_acc, r.valid_acc, r.test_acc, r.seconds});
    if (progress)
      progress(format_epoch(r.epoch, s.epochs, r.loss, r.train_acc, r.valid_acc, r.test_acc,
                            r.seconds, true));
  };
  FullBatchTrainer<Scalar, Space> trainer(space, model, input, a, targets, train, valid, test, t);
  const TrainResult r = trainer.train();
  out.history = history;
  out.train_acc = r.train_acc;
  out.valid_acc = r.valid_acc;
  out.test_acc = r.test_acc;
  out.best_epoch = r.best_epoch;
  out.epochs_run = r.last_epoch;
  out.stop_reason = to_string(r.stop);
  out.gnn_params = model.num_parameters();
  out.embedding_params = input.num_parameters();
  out.metric = to_string(metric);
  out.epoch_time_s = r.median_train_seconds();
  out.eval_time_s = r.median_eval_seconds();
  out.epoch_time_mean_s = r.epoch_seconds();
  out.peak_rss_mb = peak_rss_mb();
  {
    ByteLedger graph, features;
    graph.add(data.graph.row_map).add(data.graph.entries);
    features.add(data.features)
        .add(data.sparse_features.row_map)
        .add(data.sparse_features.cols)
        .add(data.sparse_features.values);
    out.memory = trainer.memory(graph, features);
  }
  return out;
}

ExperimentResult run_minibatch(Dataset<std::int32_t> const &data, ExperimentSettings const &s,
                               HostIds rows, std::int64_t num_rows,
                               std::vector<std::int64_t> const &n_from_order,
                               std::function<void(std::string const &)> const &progress) {
  if (s.model != "sage")
    throw ConfigError("mini-batch training (--batch-size) is implemented for GraphSAGE only "
                      "(--model sage), got '" +
                      s.model + "'");
  MinibatchTrainOptions o;
  o.num_layers = s.layers;
  o.hidden = s.hidden;
  o.dropout = s.dropout;
  o.input_dropout = s.input_dropout;
  o.batch_norm = s.batch_norm;
  o.residual = s.residual;
  o.fanouts = s.fanouts;
  o.batch_size = s.batch_size;
  o.epochs = s.epochs;
  o.lr = s.lr;
  o.weight_decay = s.weight_decay;
  o.adamw = parse_optimizer_kind(s.optimizer) == OptimizerKind::adamw;
  o.eval_every = s.eval_every;
  o.patience = s.patience;
  o.max_batches = s.max_batches;
  o.eval_nodes = parse_eval_nodes(s.eval_nodes);
  o.eval_fanouts = s.eval_fanouts;
  o.eval_batch_size = s.eval_batch_size;
  o.eval_chunk = s.eval_chunk;
  o.checkpoint_path = s.checkpoint;
  o.checkpoint_every = s.checkpoint_every;
  o.resume = s.resume;
  o.fingerprint = s.fingerprint;
  o.seed = s.seed;
  o.metric = s.metric;
  o.input.kind = parse_minibatch_input(s.input);
  o.input.dim = s.emb_dim;
  o.input.tt_rank = s.tt_rank;
  o.input.init = s.init;
  o.input.init_std = s.init_std;
  o.input.lr = s.emb_lr >= 0 ? s.emb_lr : s.lr;
  o.input.seed = s.seed;
  if (o.input.kind == MinibatchInputKind::tt || o.input.kind == MinibatchInputKind::feat_tt) {
    const TtShape shape = tt_shape_for(s, num_rows, n_from_order);
    o.input.tt_n = shape.n;
    o.input.tt_d = shape.d;
  }
  auto report = [&](MinibatchEpoch const &e, MinibatchResult const &) {
    if (progress)
      progress(format_epoch(e.epoch, s.epochs, e.loss, e.train_acc, e.valid_acc, e.test_acc,
                            e.seconds, e.evaluated) +
               (e.batches ? "  (" + std::to_string(e.batches) + " batches, sampling " +
                                std::to_string(e.sample_seconds) + "s)"
                          : std::string()));
  };
  const MinibatchResult r = train_minibatch(Space(), data, o, rows, num_rows, report);
  ExperimentResult out;
  for (auto const &e : r.epochs)
    out.history.push_back({e.epoch, e.loss, e.train_acc, e.valid_acc, e.test_acc, e.seconds});
  out.train_acc = r.train_acc;
  out.valid_acc = r.valid_acc;
  out.test_acc = r.test_acc;
  out.best_epoch = r.best_epoch;
  out.epochs_run = static_cast<int>(r.epochs.size());
  out.stop_reason = r.stop_reason;
  out.gnn_params = r.gnn_params;
  out.embedding_params = r.embedding_params;
  out.compression = r.compression;
  out.tt_shape = r.tt_shape;
  out.metric = r.metric;
  out.epoch_time_s = r.epoch_time_s;
  out.eval_time_s = r.eval_time_s;
  out.epoch_time_mean_s = r.epoch_time_mean_s;
  out.peak_rss_mb = r.peak_rss_mb;
  out.memory = r.memory;
  out.batches_per_epoch = r.batches_per_epoch;
  out.batch_time_s = r.batch_time_s;
  out.first_epoch = r.first_epoch;
  out.checkpoint_epoch = r.checkpoint_epoch;
  return out;
}

} // namespace

ExperimentResult run_experiment(Dataset<std::int32_t> const &data, ExperimentSettings const &s,
                                std::function<void(std::string const &)> const &progress) {
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  HostSpaceExec host;
  OrderingOptions oo;
  oo.method = parse_order_method(s.order);
  oo.seed = s.seed;
  oo.num_parts = s.metis_parts;
  if (!s.tt_n.empty())
    oo.n_factors = s.tt_n;
  const NodeOrdering ordering = compute_ordering(host, data.graph, oo);
  const Dataset<std::int32_t> permuted = oo.method == OrderMethod::original
                                             ? data
                                             : apply_permutation(host, data, ordering.permutation);
  const HostIds rows = ordering.new_to_row();
  const bool holes = oo.method == OrderMethod::metis_hier;
  const double order_seconds = std::chrono::duration<double>(clock::now() - t0).count();
  // Row ids of metis-hier refer to the ordering's factors; other orders have no holes.
  const std::vector<std::int64_t> n_from_order =
      holes ? ordering.n_factors : std::vector<std::int64_t>{};
  const std::int64_t num_rows = holes ? ordering.num_rows : data.num_nodes();
  const auto t1 = clock::now();
  ExperimentResult r = s.minibatch
                           ? run_minibatch(permuted, s, rows, num_rows, n_from_order, progress)
                           : run_full_batch(permuted, s, rows, num_rows, n_from_order, progress);
  r.order_seconds = order_seconds;
  r.metis_cut = ordering.metis_cut;
  r.train_seconds = std::chrono::duration<double>(clock::now() - t1).count();
  return r;
}

std::string settings_json(ExperimentSettings const &s) {
  JsonWriter j;
  j.field("model", s.model);
  j.field("minibatch", s.minibatch);
  j.field("layers", s.layers);
  j.field("hidden", static_cast<long long>(s.hidden));
  j.field("dropout", s.dropout);
  j.field("input_dropout", s.input_dropout);
  j.field("batch_norm", s.batch_norm);
  j.field("residual", s.residual);
  j.field("input", s.input);
  j.field("order", s.order);
  j.field("emb_dim", static_cast<long long>(s.emb_dim));
  j.field("tt_rank", static_cast<long long>(s.tt_rank));
  j.field("init", s.init);
  j.field("init_std", s.init_std);
  j.field("optimizer", s.optimizer);
  j.field("lr", s.lr);
  j.field("weight_decay", s.weight_decay);
  j.field("emb_lr", s.emb_lr >= 0 ? s.emb_lr : s.lr);
  j.field("emb_weight_decay", s.emb_weight_decay >= 0 ? s.emb_weight_decay : s.weight_decay);
  j.field("epochs", s.epochs);
  j.field("patience", s.patience);
  j.field("metric", s.metric.empty() ? std::string("dataset default") : s.metric);
  if (s.minibatch) {
    j.field("batch_size", static_cast<long long>(s.batch_size));
    j.field("fanouts", s.fanouts);
    j.field("eval_every", s.eval_every);
    j.field("max_batches", static_cast<long long>(s.max_batches));
    j.field("eval_nodes", s.eval_nodes);
    j.field("eval_fanouts", s.eval_fanouts);
    j.field("eval_batch_size", static_cast<long long>(s.eval_batch_size));
    j.field("eval_chunk", static_cast<long long>(s.eval_chunk));
  }
  j.field("seed", static_cast<unsigned long long>(s.seed));
  const std::string body = j.str();
  return body.substr(1, body.size() - 2);
}

} // namespace ttgnn::cli
