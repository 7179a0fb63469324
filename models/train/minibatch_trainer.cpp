// Mini-batch GraphSAGE training with neighbour sampling (see minibatch_trainer.hpp).
#include "models/train/minibatch_trainer.hpp"

#include "core/optim/adam.hpp"
#include "core/runtime/byte_ledger.hpp"
#include "core/runtime/grow_only.hpp"
#include "core/error.hpp"
#include "core/counter_rng.hpp"
#include "core/detail/instantiate.hpp"
#include "core/runtime/allocation_tracker.hpp"
#include "graph/neighbor_sampler.hpp"
#include "graph/sampled_block_bounds.hpp"
#include "core/io/atomic_file.hpp"
#include "models/layers/block_operator.hpp"
#include "core/io/checkpoint.hpp"
#include "models/train/dataset_memory.hpp"
#include "models/embedding/embedding_export.hpp"
#include "models/gnn_model.hpp"
#include "models/train/gradient_allreduce.hpp"
#include "models/train/layerwise_inference.hpp"
#include "models/train/sampled_block_source.hpp"
#include "models/train/subset_inference.hpp"
#include "models/loss/node_targets.hpp"
#include "models/train/training_common.hpp"
#include "models/train/training_loop.hpp"
#include "models/train/training_report.hpp"

#include <Kokkos_Profiling_ScopedRegion.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <type_traits>

namespace ttgnn {

namespace {

void check_options(Dataset<std::int32_t> const &data, MinibatchTrainOptions const &o) {
  if (!o.eval_fanouts.empty() && static_cast<int>(o.eval_fanouts.size()) != o.model.num_layers)
    throw ConfigError("mini-batch training: " + std::to_string(o.eval_fanouts.size()) +
                      " evaluation fan-outs for " + std::to_string(o.model.num_layers) +
                      " layers (give one per layer, or none for all neighbours)");
  if (o.eval_batch_size < 0)
    throw ConfigError("mini-batch training: the evaluation batch size must be >= 0");
  if (static_cast<int>(o.fanouts.size()) != o.model.num_layers)
    throw ConfigError("mini-batch training: " + std::to_string(o.fanouts.size()) +
                      " fan-outs for " + std::to_string(o.model.num_layers) +
                      " layers (give one fan-out per layer, e.g. --fanout 5,10,15)");
  if (o.batch_size < 1 || o.epochs < 0 || o.eval_every < 1 || o.model.hidden < 1 ||
      o.checkpoint_every < 1)
    throw ConfigError("mini-batch training: need batch size >= 1, epochs >= 0, eval-every >= 1, "
                      "checkpoint-every >= 1");
  if (data.train.extent(0) == 0 ||
      (o.evaluate && (data.valid.extent(0) == 0 || data.test.extent(0) == 0)))
    throw ConfigError("mini-batch training: the dataset '" + data.name +
                      "' needs a split with train, valid and test nodes");
  if (data.num_classes < 1 || data.labels.extent(0) != static_cast<std::size_t>(data.num_nodes()))
    throw ConfigError("mini-batch training: the dataset '" + data.name + "' has no labels");
  if (o.evaluate_only && o.checkpoint_path.empty())
    throw ConfigError("mini-batch evaluation of a checkpoint: no checkpoint given");
  if (o.model.batch_norm && o.communicator.distributed())
    throw ConfigError("mini-batch training on " + std::to_string(o.communicator.size()) +
                      " ranks: BatchNorm (--batch-norm) normalises by per-batch statistics, which "
                      "each rank would compute over its own slice only; train on one rank or "
                      "drop --batch-norm");
}

/// The embedding optimizer: Adam with the embedding's learning rate and weight decay.
AdamOptions embedding_optimizer_options(MinibatchTrainOptions const &o) {
  AdamOptions embedding_optimizer;
  embedding_optimizer.lr = o.resolved_embedding_lr();
  embedding_optimizer.weight_decay = o.resolved_embedding_weight_decay();
  return embedding_optimizer;
}

/// The options' GraphSAGE stack on \p in_features input columns, one output per class.
GnnConfig sage_config(MinibatchTrainOptions const &o, Dataset<std::int32_t> const &data,
                      std::int64_t in_features) {
  GnnConfig cfg = o.model;
  cfg.kind = GnnKind::sage;
  cfg.in_features = in_features;
  cfg.out_features = data.num_classes;
  cfg.seed = o.seed;
  return cfg;
}

} // namespace

namespace minibatch_detail {

/// Everything later epochs depend on (see the header); the shuffle and the sampled blocks
/// are functions of (seed, epoch, batch) and need no state.
template <class Model, class Input>
std::string minibatch_fingerprint(Dataset<std::int32_t> const &data, MinibatchTrainOptions const &o,
                                  Model const &model, Input const &input, NodeMetric metric) {
  std::string fanouts;
  for (auto k : o.fanouts)
    fanouts += (fanouts.empty() ? "" : ",") + std::to_string(k);
  return training_fingerprint(model, to_string(o.input) + " tt=" + input.shape_string(),
                              input.parameters(), o.optimizer) +
         " batch=" + std::to_string(o.batch_size) +
         " max_batches=" + std::to_string(o.max_batches) + " fanouts=" + fanouts +
         " seed=" + std::to_string(o.seed) + " metric=" + to_string(metric) +
         " nodes=" + std::to_string(data.num_nodes()) + "/" + std::to_string(data.train.extent(0)) +
         "/" + std::to_string(data.valid.extent(0)) + "/" + std::to_string(data.test.extent(0)) +
         (o.fingerprint.empty() ? "" : " | " + o.fingerprint);
}

/// Communication totals before the run, for the per-step figures.
struct CommStart {
  std::int64_t bytes = 0;
  double seconds = 0;
};

/// The run's sizes, times and per-step communication (since \p start) into \p result.
template <class ExecutionSpace, class Model, class Input, class Loop>
void record_run_figures(MinibatchResult &result, Communicator const &comm, CommStart start,
                        NodeMetric metric, Model const &model, Input const &input,
                        SampledBlockSource<ExecutionSpace> const &source, Loop const &loop) {
  std::int64_t steps = 0;
  for (auto const &r : result.history)
    if (r.epoch >= result.first_epoch)
      steps += r.batches;
  result.metric = to_string(metric);
  result.gnn_params = model.num_parameters();
  result.embedding_params = input.num_parameters();
  result.compression = input.compression();
  result.tt_shape = input.shape_string();
  result.batches_per_epoch = source.batches_per_epoch();
  result.batch_time_s = TrainResult::median_value(loop.batch_seconds());
  result.peak_rss_mb = peak_rss_mb();
  result.ranks = comm.size();
  result.allreduce_values = source.allreduce_values();
  if (comm.distributed() && steps > 0) {
    result.comm_bytes_per_step = double(comm.bytes() - start.bytes) / double(steps);
    result.comm_seconds_per_step = (comm.seconds() - start.seconds) / double(steps);
  }
}

/// The memory breakdown of the run into result.memory (after record_run_figures: it reads
/// result.peak_rss_mb).
template <class ExecutionSpace, class Model, class Input, class Loop>
void record_run_memory(MinibatchResult &result, Dataset<std::int32_t> const &data,
                       NodeTargets<ExecutionSpace> const &targets, Model const &model,
                       Input const &input, SampledBlockSource<ExecutionSpace> const &source,
                       Loop const &loop) {
  // the dataset (labels and splits: host arrays, and device copies when distinct)
  ByteLedger graph, features, nodes;
  add_dataset_memory(data, graph, features, nodes);
  source.add_graph_memory(graph);
  nodes.add(targets.labels).add(targets.multilabels);
  source.add_node_memory(nodes);
  // the input's workspace now, or the largest one freed before an evaluation
  MemoryBreakdown &m = result.memory;
  m = training_memory(model, input, loop, graph, features,
                      std::max(model.peak_input_bytes(), source.input_bytes()),
                      source.released_input_bytes());
  m.peak_rss_mb = result.peak_rss_mb;
  m.sampler_mb = to_mb(source.sampler_bytes());
  m.eval_mb = to_mb(source.eval_bytes());
  m.nodes_mb = to_mb(nodes.bytes());
}

/// Bytes of a batch bounded by \p b outside the model: its input rows of width \p dim, logits
/// and their gradient of width \p classes, and its blocks (offsets, local ids, mean weights).
std::int64_t batch_rows_bytes(SampledBlockBounds const &b, std::int64_t dim, std::int64_t classes) {
  const std::size_t L = b.edges.size();
  std::int64_t bytes = (b.rows[0] * dim + 2 * b.rows[L] * classes) * std::int64_t(sizeof(float));
  for (std::size_t l = 0; l < L; ++l)
    bytes += (b.rows[l + 1] + 1) * std::int64_t(sizeof(std::int64_t)) +
             b.edges[l] * std::int64_t(sizeof(std::int32_t) + sizeof(float));
  return bytes;
}

/// \brief Sets the model's activation budget from o.memory_budget for every batch: the resident
/// memory now and a bound on any batch (graph/sampled_block_bounds.hpp) plan the largest step.
/// Evaluation needs, above that, layer-wise inference's two largest N x width matrices and the
/// mean operator's 1/deg (all nodes), or a bounded evaluation batch (subsets). ConfigError when
/// no schedule fits.
template <class ExecutionSpace>
MemoryPlan plan_memory(GnnModel<float, ExecutionSpace, std::int32_t> &model,
                       MinibatchInput<float, ExecutionSpace> const &input,
                       Dataset<std::int32_t> const &data, MinibatchTrainOptions const &o) {
  const int L = model.num_layers();
  const std::int64_t classes = model.width(L), n = data.graph.num_nodes();
  const SampledBlockBounds b = sampled_block_bounds(data.graph, o.batch_size, o.fanouts);
  const std::int64_t step_rows = batch_rows_bytes(b, input.dim(), classes);
  std::int64_t eval = 0;
  if (o.evaluate && o.eval_nodes == EvalNodes::all) {
    for (int l = 0; l < L; ++l)
      eval = std::max(eval, n * (model.width(l + 1) + (l > 0 ? model.width(l) : 0)));
    eval = (eval + n) * std::int64_t(sizeof(float));
  } else if (o.evaluate) {
    const SampledBlockBounds e = sampled_block_bounds(
        data.graph, o.eval_batch_size > 0 ? o.eval_batch_size : o.batch_size,
        o.eval_fanouts.empty() ? std::vector<std::int64_t>(L, -1) : o.eval_fanouts);
    eval = gnn_eval_peak_bytes(model.step_shape(e.rows, e.edges, false)) +
           batch_rows_bytes(e, input.dim(), classes);
  }
  model.set_overwrite_input(true); // a batch's input rows are its own (x_scratch)
  model.set_input_gradient(input.trainable());
  GnnStepShape shape = model.step_shape(b.rows, b.edges, input.trainable());
  shape.in_place_gradients = false; // the rows vary from batch to batch
  return apply_memory_plan(model, shape, eval, o.memory_budget, step_rows, o.log_plan);
}

} // namespace minibatch_detail

template <class ExecutionSpace> struct MinibatchTrainer<ExecutionSpace>::Impl {
  using source_type = minibatch_detail::SampledBlockSource<ExecutionSpace>;
  using loop_type = TrainingLoop<Scalar, ExecutionSpace, std::int32_t, input_type>;

  Impl(ExecutionSpace const &space, Dataset<std::int32_t> const &data, model_type &model,
       input_type &input, targets_type targets, MinibatchTrainOptions options)
      : space(space), data(data), o(checked(data, model, input, std::move(options))), model(model),
        input(input), targets(targets), source(space, data, o, model, input, targets),
        loop(space, model, input, o,
             o.eval_nodes == EvalNodes::test ? Selection::every : Selection::valid,
             CheckpointIdentity{
                 "ttgnn-minibatch-trainer", "mini-batch trainer",
                 minibatch_detail::minibatch_fingerprint(data, o, model, input, targets.metric)},
             o.communicator),
        comm_start{o.communicator.bytes(), o.communicator.seconds()} {
    input.set_optimizer(space, embedding_optimizer_options(o), o.optimizer);
  }

  /// The options with the model's own stack, checked against the data and the objects.
  static MinibatchTrainOptions checked(Dataset<std::int32_t> const &data, model_type const &model,
                                       input_type const &input, MinibatchTrainOptions o) {
    if (model.config().kind != GnnKind::sage)
      throw ConfigError("mini-batch training trains GraphSAGE (a sage model)");
    if (input.dim() != model.config().in_features)
      throw ConfigError("mini-batch training: the input gives " + std::to_string(input.dim()) +
                        " columns, the model expects " +
                        std::to_string(model.config().in_features));
    if (input.kind() != o.input)
      throw ConfigError("mini-batch training: the input is '" + to_string(input.kind()) +
                        "', the options say '" + to_string(o.input) + "'");
    o.model = model.config();
    check_options(data, o);
    return o;
  }

  ExecutionSpace space;
  Dataset<std::int32_t> const &data;
  MinibatchTrainOptions o;
  model_type &model;
  input_type &input;
  targets_type targets;
  source_type source;
  loop_type loop;
  minibatch_detail::CommStart comm_start;
  MemoryPlan memory_plan;
};

template <class ExecutionSpace>
MinibatchTrainer<ExecutionSpace>::MinibatchTrainer(ExecutionSpace const &space,
                                                   Dataset<std::int32_t> const &data,
                                                   model_type &model, input_type &input,
                                                   targets_type targets,
                                                   MinibatchTrainOptions options)
    : impl_(std::make_unique<Impl>(space, data, model, input, targets, std::move(options))) {}

template <class ExecutionSpace> MinibatchTrainer<ExecutionSpace>::~MinibatchTrainer() = default;

template <class ExecutionSpace>
MinibatchTrainOptions const &MinibatchTrainer<ExecutionSpace>::options() const {
  return impl_->o;
}

template <class ExecutionSpace> MemoryPlan MinibatchTrainer<ExecutionSpace>::plan_memory() {
  Impl &m = *impl_;
  if (m.o.memory_budget > 0)
    m.memory_plan = minibatch_detail::plan_memory(m.model, m.input, m.data, m.o);
  return m.memory_plan;
}

template <class ExecutionSpace> TrainResult MinibatchTrainer<ExecutionSpace>::train() {
  Impl &m = *impl_;
  std::optional<AllocationTracker> allocations; // what training allocates, under a budget
  if (m.o.memory_budget > 0)
    allocations.emplace();
  TrainResult r = m.loop.run(m.source);
  if (allocations) {
    m.memory_plan.recompute_s = m.model.recompute_seconds();
    m.memory_plan.training_allocations_mb = double(allocations->peak_bytes()) / 1048576.0;
  }
  return r;
}

template <class ExecutionSpace>
TrainResult MinibatchTrainer<ExecutionSpace>::evaluate_checkpoint(std::string const &path) {
  return impl_->loop.evaluate_checkpoint(impl_->source, path);
}

template <class ExecutionSpace>
typename MinibatchTrainer<ExecutionSpace>::matrix_type MinibatchTrainer<ExecutionSpace>::predict() {
  return impl_->source.all_logits(impl_->space);
}

template <class ExecutionSpace>
MinibatchResult MinibatchTrainer<ExecutionSpace>::report(TrainResult const &r) const {
  Impl const &m = *impl_;
  MinibatchResult result;
  static_cast<TrainResult &>(result) = r;
  result.memory_plan = m.memory_plan;
  minibatch_detail::record_run_figures(result, m.o.communicator, m.comm_start, m.targets.metric,
                                       m.model, m.input, m.source, m.loop);
  minibatch_detail::record_run_memory(result, m.data, m.targets, m.model, m.input, m.source,
                                      m.loop);
  return result;
}

template <class ExecutionSpace>
MinibatchResult train_minibatch(ExecutionSpace const &space, Dataset<std::int32_t> const &data,
                                MinibatchTrainOptions const &o,
                                Kokkos::View<const std::int64_t *, Kokkos::HostSpace> rows,
                                std::int64_t num_rows) {
  using Scalar = float;
  check_options(data, o);
  // the input's initialisation (tables, spectral init) and the model's: ends once both exist
  std::optional<Kokkos::Profiling::ScopedRegion> init_region(std::in_place,
                                                             "ttgnn::minibatch::init");
  EmbeddingConfig spec = o.embedding;
  spec.tt_rank = resolved_tt_rank(spec, data.num_nodes(), data.train.extent(0));
  MinibatchInput<Scalar, ExecutionSpace> input(space, data, o.input, spec, o.seed, rows, num_rows);
  GnnModel<Scalar, ExecutionSpace, std::int32_t> model(sage_config(o, data, input.dim()));
  init_region.reset();
  const auto targets = device_targets<ExecutionSpace>(data, choose_metric(o.metric, data));
  MinibatchTrainer<ExecutionSpace> trainer(space, data, model, input, targets, o);
  if (!o.evaluate_only)
    trainer.plan_memory();
  const TrainResult r =
      o.evaluate_only ? trainer.evaluate_checkpoint(o.checkpoint_path) : trainer.train();
  if (o.communicator.rank() == 0)
    write_node_outputs(
        space, o.predictions_path, o.embeddings_path, o.output_order, input,
        [&trainer] { return trainer.predict(); },
        o.eval_chunk > 0 ? o.eval_chunk : layerwise_default_chunk);
  else if (!o.predictions_path.empty())
    trainer.predict(); // every rank runs the (collective-free) inference, as rank 0
  return trainer.report(r);
}

#define TTGNN_INSTANTIATE_MINIBATCH(SPACE)                                                         \
  template class MinibatchTrainer<SPACE>;                                                          \
  template MinibatchResult train_minibatch<SPACE>(                                                 \
      SPACE const &, Dataset<std::int32_t> const &, MinibatchTrainOptions const &,                 \
      Kokkos::View<const std::int64_t *, Kokkos::HostSpace>, std::int64_t);
TTGNN_INSTANTIATE_SERIAL(TTGNN_INSTANTIATE_MINIBATCH)
TTGNN_INSTANTIATE_OPENMP(TTGNN_INSTANTIATE_MINIBATCH)
TTGNN_INSTANTIATE_CUDA(TTGNN_INSTANTIATE_MINIBATCH)
#undef TTGNN_INSTANTIATE_MINIBATCH

} // namespace ttgnn
