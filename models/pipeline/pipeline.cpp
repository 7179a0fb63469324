// Order -> input -> model -> train (full batch or mini-batch) -> outputs
// (models/pipeline/pipeline.hpp).
#include "models/pipeline/pipeline.hpp"

#include "models/pipeline/node_order.hpp"
#include "models/pipeline/run_components.hpp"

#include "core/runtime/byte_ledger.hpp"
#include "core/runtime/communicator.hpp"
#include "core/error.hpp"
#include "core/parse_number.hpp"
#include "core/runtime/allocation_tracker.hpp"
#include "core/runtime/memory_check.hpp"
#include "core/runtime/peak_memory.hpp"
#include "graph/permutation.hpp"
#include "core/io/checkpoint.hpp"
#include "models/train/dataset_memory.hpp"
#include "models/embedding/embedding_export.hpp"
#include "models/train/full_batch_trainer.hpp"
#include "models/layers/gcn_norm.hpp"
#include "models/train/layerwise_inference.hpp"
#include "models/train/minibatch_trainer.hpp"
#include "models/loss/node_targets.hpp"
#include "graph/io/npy_writer.hpp"

#include <Kokkos_Core.hpp>
#include <Kokkos_Profiling_ScopedRegion.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace ttgnn {

namespace {

using Space = Kokkos::DefaultExecutionSpace;
using Mem = Space::memory_space;
using Scalar = float;
using Clock = std::chrono::steady_clock;
using HostIds = Kokkos::View<std::int64_t *, Kokkos::HostSpace>;

void record_init(EmbeddingInitInfo const &info, RunResult &out) {
  out.init_scale = info.scale;
  out.tt_svd_error = info.tt_svd_error;
  out.eigen_residual = info.eigenpairs > 0 ? info.eigen_residual : -1;
  out.init_slots = info.slot_nodes;
}

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// One progress line per epoch, with the ETA from the mean epoch time so far.
class EpochLog {
public:
  EpochLog(RunLog log, int epochs, NodeMetric metric)
      : log_(std::move(log)), epochs_(epochs), metric_(metric) {}
  /// \p extra is appended to the line (mini-batch: batches and sampling time).
  void operator()(EpochRecord const &r, std::string const &extra = "") {
    if (!log_)
      return;
    total_ += r.seconds;
    ++count_;
    const double eta = total_ / count_ * (epochs_ - r.epoch);
    char line[256];
    int k = std::snprintf(line, sizeof line, "epoch %4d/%d  loss %.4f  ", r.epoch, epochs_, r.loss);
    if (r.evaluated) { // the scores evaluation computed (-1: a node set it leaves out)
      k += std::snprintf(line + k, sizeof line - k, "%s: ", to_string(metric_).c_str());
      char const *names[] = {"train", "valid", "test"};
      const double scores[] = {r.train_acc, r.valid_acc, r.test_acc};
      for (int i = 0; i < 3; ++i)
        if (scores[i] >= 0)
          k += std::snprintf(line + k, sizeof line - k, "%s %.4f  ", names[i], scores[i]);
    }
    std::snprintf(line + k, sizeof line - k, "lr %.2e  %.3f s  ETA %.1f s", r.lr, r.seconds, eta);
    log_(line + extra);
  }

private:
  RunLog log_;
  int epochs_;
  NodeMetric metric_;
  double total_ = 0;
  int count_ = 0;
};

/// What the training loop reports, on either path: history, stop, selected scores, times.
void take_training(RunResult &out, TrainResult const &r, NodeMetric metric) {
  out.history = r.history;
  out.stop = r.stop;
  out.message = r.message;
  out.metric = metric;
  out.train_score = r.train_acc;
  out.valid_score = r.valid_acc;
  out.test_score = r.test_acc;
  out.best_epoch = r.best_epoch;
  out.first_epoch = r.first_epoch;
  out.last_epoch = r.last_epoch;
  out.checkpoint_epoch = r.checkpoint_epoch;
  out.epoch_time_s = r.median_train_seconds();
  out.eval_time_s = r.median_eval_seconds();
  out.epoch_time_mean_s = r.epoch_seconds();
}

void fill_sizes(RunResult &r, Dataset<std::int32_t> const &d) {
  r.num_nodes = d.num_nodes();
  r.num_arcs = d.graph.num_arcs();
  r.num_features = d.num_features();
  r.num_classes = d.num_classes;
  r.num_train = static_cast<std::int64_t>(d.train.extent(0));
  r.num_valid = static_cast<std::int64_t>(d.valid.extent(0));
  r.num_test = static_cast<std::int64_t>(d.test.extent(0));
  r.multilabel = d.is_multilabel();
}

/// \brief Sets the model's activation budget from the run's --memory-budget: what the resident
/// memory now (the dataset, graph, input and optimizer state, measured) and a step's input rows,
/// logits and logits gradient leave. ConfigError before any training when no schedule fits, naming
/// the least budget that does. Logs the schedule once.
template <class Scalar, class Space>
MemoryPlan plan_full_batch_memory(GnnModel<Scalar, Space> &model,
                                  NodeInput<Scalar, Space> const &input,
                                  GraphOperator<Scalar, Space> const &a, RunConfig const &c,
                                  RunLog const &log) {
  const auto n = static_cast<std::int64_t>(a.num_rows);
  const bool looked_up = input.has_embedding() && !input.table_is_input();
  // the logits gradient, the logits the loss holds until the next step, the looked-up rows
  const std::int64_t step_rows =
      (2 * n * model.width(model.num_layers()) + (looked_up ? n * input.dim() : 0)) *
      std::int64_t(sizeof(Scalar));
  model.set_overwrite_input(looked_up); // as the trainer's steps run
  model.set_input_gradient(input.trainable());
  const GnnStepShape shape = model.step_shape({a}, input.trainable());
  return apply_memory_plan(model, shape, gnn_eval_peak_bytes(shape), c.memory_budget, step_rows,
                           log);
}

/// The run's per-node outputs, with the selected parameters (restored by training), in the
/// original node order: both paths write them here. On several ranks only rank 0 writes (every
/// rank holds the same replica).
/// A run stopped on non-finite values writes none (its parameters are not a result).
template <class Input, class LogitsFn>
void write_outputs(Space const &space, RunConfig const &c, NodeOrder const &o, Input &input,
                   LogitsFn &&logits, TrainResult const &r, RunLog const &log) {
  if (Communicator::world().rank() != 0 || r.stop == StopReason::nonfinite)
    return;
  StageScope stage("writing the outputs");
  write_node_outputs(space, c.predictions_out, c.export_embeddings, o.relabel.old_to_new, input,
                     logits,
                     c.minibatch.eval_chunk > 0 ? c.minibatch.eval_chunk : layerwise_default_chunk);
  for (std::string const *path : {&c.export_embeddings, &c.predictions_out})
    if (log && !path->empty())
      log("wrote " + *path);
}

/// \p data: the dataset as loaded (empty once released: see run), \p data_print its
/// data_fingerprint.
RunResult run_full_batch(Space const &space, Dataset<std::int32_t> const &data,
                         std::string const &data_print, RunConfig const &c, NodeOrder const &o,
                         RunLog const &log, bool evaluate_only) {
  RunResult out;
  Dataset<std::int32_t> const &pdata = o.data;
  const auto t_init = Clock::now();
  EmbeddingInitInfo info;
  std::optional<StageScope> stage(std::in_place, "initialising the input");
  NodeInput<Scalar, Space> input = make_node_input(space, data, c, o, log, info);
  stage.emplace("setting up training");
  out.init_time_s = since(t_init);
  out.prepare_peak_rss_mb = peak_rss_mb();
  record_init(info, out);

  const NodeMetric metric = run_metric(c, pdata);
  const auto a = c.model == GnnKind::gcn ? gcn_norm<Scalar>(space, pdata.graph)
                                         : mean_aggregation<Scalar>(space, pdata.graph);
  const NodeTargets<Space> targets = device_targets<Space>(pdata, metric);
  using DeviceIds = Kokkos::View<const std::int64_t *, Mem>;
  const DeviceIds train =
      Kokkos::create_mirror_view_and_copy(Mem(), pdata.train, "ttgnn::pipeline::train");
  const DeviceIds valid =
      Kokkos::create_mirror_view_and_copy(Mem(), pdata.valid, "ttgnn::pipeline::valid");
  const DeviceIds test =
      Kokkos::create_mirror_view_and_copy(Mem(), pdata.test, "ttgnn::pipeline::test");
  GnnModel<Scalar, Space> model(gnn_config(c, input.dim(), pdata.num_classes));

  TrainOptions to;
  set_train_options(to, data_print, c, o);
  to.on_epoch = [epoch_log = EpochLog(log, c.epochs, metric)](EpochRecord const &r) mutable {
    epoch_log(r);
  };
  FullBatchTrainer<Scalar, Space> trainer(space, model, input, a, targets, train, valid, test, to);
  if (o.ordered_ids.extent(0) > 0) // the masks of the nodes' ids without the locality order
    trainer.set_dropout_keys(
        Kokkos::create_mirror_view_and_copy(Mem(), o.ordered_ids, "ttgnn::pipeline::dropout_keys"));
  if (c.memory_budget > 0 && !evaluate_only)
    out.memory_plan = plan_full_batch_memory(model, input, a, c, log);
  out.gnn_params = model.num_parameters();
  out.embedding_params = input.num_parameters();
  out.embedding_dim = input.embedding_dim();
  if (log && !evaluate_only)
    log("training: " + to_string(c.model) + ", input " + to_string(c.input) + ", " +
        std::to_string(c.epochs) + " epochs, " + std::to_string(out.gnn_params) +
        " GNN parameters, " + std::to_string(out.embedding_params) + " embedding parameters");
  std::optional<AllocationTracker> allocations; // what training allocates, under a budget
  if (c.memory_budget > 0 && !evaluate_only)
    allocations.emplace();
  stage.emplace(evaluate_only ? "evaluating the checkpoint" : "training");
  const auto t_train = Clock::now();
  const TrainResult r = evaluate_only ? trainer.evaluate_checkpoint(c.checkpoint) : trainer.train();
  stage.reset();
  out.train_time_s = since(t_train);
  out.memory_plan.recompute_s = model.recompute_seconds();
  if (allocations)
    out.memory_plan.training_allocations_mb = double(allocations->peak_bytes()) / 1048576.0;
  allocations.reset();
  write_outputs(
      space, c, o, input, [&trainer] { return trainer.predict(); }, r, log);
  take_training(out, r, metric);
  ByteLedger graph, features, nodes; // the host dataset: both orders while the loaded one is held
  for (Dataset<std::int32_t> const *d : {&data, &pdata}) // (aliases count once)
    add_dataset_memory(*d, graph, features, nodes);
  nodes.add(targets.labels).add(targets.multilabels).add(train).add(valid).add(test);
  out.memory = trainer.memory(graph, features);
  out.memory.nodes_mb = to_mb(nodes.bytes() + order_map_bytes(o));
  return out;
}

RunResult run_minibatch(Space const &space, Dataset<std::int32_t> const &data,
                        std::string const &data_print, RunConfig const &c, NodeOrder const &o,
                        RunLog const &log, bool evaluate_only) {
  MinibatchTrainOptions m = minibatch_options(data_print, c, o, evaluate_only);
  Dataset<std::int32_t> const &pdata = o.data;
  const NodeMetric metric = run_metric(c, pdata);
  m.log_plan = log;
  m.on_epoch = [epoch_log = EpochLog(log, c.epochs, metric)](EpochRecord const &e) mutable {
    char extra[96];
    std::snprintf(extra, sizeof extra, "  (%lld batches, sampling %.3f s)",
                  static_cast<long long>(e.batches), e.sample_seconds);
    epoch_log(e, extra);
  };
  RunResult out;
  const auto t_init = Clock::now();
  EmbeddingInitInfo info;
  std::optional<StageScope> stage(std::in_place, "initialising the input");
  MinibatchInput<Scalar, Space> input = make_minibatch_input(space, c, o, log, info);
  stage.emplace("setting up training");
  out.init_time_s = since(t_init);
  out.prepare_peak_rss_mb = peak_rss_mb();
  record_init(info, out);
  GnnModel<Scalar, Space, std::int32_t> model(gnn_config(c, input.dim(), pdata.num_classes));
  MinibatchTrainer<Space> trainer(space, pdata, model, input, device_targets<Space>(pdata, metric),
                                  m);
  if (!evaluate_only)
    trainer.plan_memory();
  stage.emplace(evaluate_only ? "evaluating the checkpoint" : "training");
  const auto t_train = Clock::now();
  const TrainResult tr =
      evaluate_only ? trainer.evaluate_checkpoint(c.checkpoint) : trainer.train();
  stage.reset();
  out.train_time_s = since(t_train);
  write_outputs(
      space, c, o, input, [&trainer] { return trainer.predict(); }, tr, log);
  const MinibatchResult r = trainer.report(tr);
  take_training(out, r, metric);
  out.gnn_params = r.gnn_params;
  out.embedding_params = r.embedding_params;
  out.embedding_dim = input.embedding_dim();
  out.batch_time_s = r.batch_time_s;
  out.batches_per_epoch = r.batches_per_epoch;
  out.memory_plan = r.memory_plan;
  out.memory = r.memory; // the trainer's arrays (it holds the permuted dataset)
  if (pdata.graph.entries.data() != data.graph.entries.data()) {
    // a permuted copy: the dataset as loaded is held too, unless the run took it over
    ByteLedger graph, features, nodes;
    add_dataset_memory(data, graph, features, nodes);
    out.memory.graph_mb += to_mb(graph.bytes());
    out.memory.features_mb += to_mb(features.bytes());
    out.memory.nodes_mb += to_mb(nodes.bytes());
  }
  out.memory.nodes_mb += to_mb(order_map_bytes(o));
  out.ranks = r.ranks;
  out.comm_bytes_per_step = r.comm_bytes_per_step;
  out.comm_seconds_per_step = r.comm_seconds_per_step;
  return out;
}

/// \p release: \p data holds the only references to the dataset, and the run relabels it in its
/// own arrays, so that one copy of the graph is held throughout (a full table keeps the loaded
/// dataset: its init reads the loaded graph).
RunResult run(Space const &space, Dataset<std::int32_t> &data, RunConfig const &config,
              RunLog const &log, bool evaluate_only, bool release) {
  Kokkos::Profiling::ScopedRegion region("ttgnn::pipeline::run");
  const auto t0 = Clock::now();
  check_run_config(config);
  RunConfig c = config;
  if (c.embedding.tt_rank == 0) {
    c.embedding.tt_rank = default_tt_rank(data);
    if (log && uses_tt(c.input))
      log("TT rank " + std::to_string(c.embedding.tt_rank) + " (" +
          std::to_string(data.train.extent(0)) + " of " + std::to_string(data.num_nodes()) +
          " nodes are training nodes; 16 from a quarter on; --tt-rank sets it)");
  }
  const Communicator world = Communicator::world();
  if (world.distributed() && !c.minibatch_mode())
    throw ConfigError("full-batch training does not run on several MPI ranks (every rank would "
                      "repeat the whole-graph forward); add --batch-size B for data-parallel "
                      "mini-batch training");
  if (log) {
    const NodeMetric metric = run_metric(c, data);
    log("evaluator: " + display_name(metric) + " (" + to_string(metric) + ") on " +
        std::to_string(data.num_classes) +
        (data.is_multilabel() ? " binary tasks (multi-label; sigmoid + binary cross-entropy)"
                              : " classes (softmax cross-entropy)"));
  }
  check_run_sizes(c, data);
  const std::string data_print = data_fingerprint(data);
  std::optional<StageScope> stage(std::in_place, "ordering the nodes");
  // Released: relabelled in its own arrays, and data is left empty.
  const NodeOrder o = release && !uses_full_table(c.input) ? order_nodes(std::move(data), c, log)
                                                           : order_nodes(data, c, log);
  stage.reset();
  RunResult r = c.minibatch_mode()
                    ? run_minibatch(space, data, data_print, c, o, log, evaluate_only)
                    : run_full_batch(space, data, data_print, c, o, log, evaluate_only);
  fill_sizes(r, o.data);
  r.table_rows = uses_tt(c.input) || uses_full_table(c.input) ? o.table_rows : 0;
  r.has_tt = uses_tt(c.input);
  r.tt_shape = o.shape;
  r.metis_cut = o.ordering.metis_cut;
  r.order_time_s = o.ordering.seconds;
  r.locality = to_string(Locality{false, o.locality});
  r.locality_before = o.locality_before;
  r.locality_after = o.locality_after;
  r.locality_time_s = o.locality_seconds;
  r.peak_rss_mb = peak_rss_mb();
  r.memory.peak_rss_mb = r.peak_rss_mb;
  r.total_time_s = since(t0);
  // every rank holds the same history; a run stopped on non-finite values writes no outputs
  if (!c.metrics_out.empty() && world.rank() == 0 && r.stop != StopReason::nonfinite)
    write_metrics_csv(c.metrics_out, r);
  return r;
}

} // namespace

std::int64_t default_tt_rank(Dataset<std::int32_t> const &data) {
  return resolved_tt_rank(EmbeddingConfig{}, data.num_nodes(),
                          static_cast<std::int64_t>(data.train.extent(0)));
}

RunResult run_training(Space const &space, Dataset<std::int32_t> const &data,
                       RunConfig const &config, RunLog const &log) {
  Dataset<std::int32_t> shared = data;
  return run(space, shared, config, log, false, false);
}

RunResult run_training(Space const &space, Dataset<std::int32_t> &&data, RunConfig const &config,
                       RunLog const &log) {
  // Moving a View copies its reference: the caller's are cleared here.
  Dataset<std::int32_t> owned = data;
  data = Dataset<std::int32_t>();
  return run(space, owned, config, log, false, true);
}

RunResult evaluate_checkpoint(Space const &space, Dataset<std::int32_t> const &data,
                              RunConfig const &config, RunLog const &log) {
  if (config.checkpoint.empty())
    throw ConfigError("evaluate_checkpoint: no checkpoint given");
  Dataset<std::int32_t> shared = data;
  return run(space, shared, config, log, true, false);
}

RunConfig checkpoint_run_config(std::string const &path) {
  const Checkpoint ck = Checkpoint::load(path);
  if (!ck.has("run_config"))
    throw ConfigError(path + ": the checkpoint holds no run settings (written by a trainer "
                             "used directly, or by an older ttgnn); ttgnn predict reads "
                             "checkpoints of ttgnn train / ogb runs");
  return run_config_from_text(ck.get_string("run_config"));
}

} // namespace ttgnn
