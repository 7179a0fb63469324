// Mini-batch GraphSAGE training with neighbour sampling (see minibatch_trainer.hpp).
#include "models/minibatch_trainer.hpp"

#include "core/adam.hpp"
#include "core/byte_ledger.hpp"
#include "core/error.hpp"
#include "core/counter_rng.hpp"
#include "graph/neighbor_sampler.hpp"
#include "core/atomic_file.hpp"
#include "models/block_operator.hpp"
#include "models/checkpoint.hpp"
#include "models/gnn_model.hpp"
#include "models/gradient_allreduce.hpp"
#include "models/layerwise_inference.hpp"
#include "models/subset_inference.hpp"
#include "models/node_targets.hpp"
#include "models/training_common.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <type_traits>

namespace ttgnn {

namespace {

constexpr std::uint64_t kShuffleDomain = 0x73687566666C65ULL; // "shuffle"
/// Names the sampler's streams of subset evaluation (training epochs are 1, 2, ...): the same
/// blocks at every evaluation.
constexpr std::uint64_t kEvalStream = 0x6576616C756174ULL; // "evaluat"

using HostIds = Kokkos::View<std::int64_t *, Kokkos::HostSpace>;

/// The training nodes of epoch \p epoch in a seeded random order (Fisher-Yates).
HostIds shuffled(HostIds const &train, std::uint64_t seed, std::uint64_t epoch) {
  const std::int64_t n = static_cast<std::int64_t>(train.extent(0));
  HostIds out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::minibatch::order"), n);
  Kokkos::deep_copy(out, train);
  CounterRng rng(seed, kShuffleDomain, epoch);
  for (std::int64_t i = n - 1; i > 0; --i)
    std::swap(out(i), out(static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(i + 1)))));
  return out;
}

double median(std::vector<double> v) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

constexpr char const *kCheckpointFormat = "ttgnn-minibatch-trainer";

/// MinibatchEpoch as doubles (checkpoint history) and back.
constexpr std::size_t kEpochFields = 13;
void append(std::vector<double> &out, MinibatchEpoch const &e) {
  const double v[kEpochFields] = {double(e.epoch),
                                  e.loss,
                                  e.evaluated ? 1.0 : 0.0,
                                  e.train_acc,
                                  e.valid_acc,
                                  e.test_acc,
                                  e.valid_loss,
                                  e.seconds,
                                  e.sample_seconds,
                                  e.eval_seconds,
                                  double(e.batches),
                                  double(e.sampled_edges),
                                  double(e.input_rows)};
  out.insert(out.end(), v, v + kEpochFields);
}
MinibatchEpoch epoch_from(double const *v) {
  MinibatchEpoch e;
  e.epoch = static_cast<int>(v[0]);
  e.loss = v[1];
  e.evaluated = v[2] != 0;
  e.train_acc = v[3];
  e.valid_acc = v[4];
  e.test_acc = v[5];
  e.valid_loss = v[6];
  e.seconds = v[7];
  e.sample_seconds = v[8];
  e.eval_seconds = v[9];
  e.batches = static_cast<std::int64_t>(v[10]);
  e.sampled_edges = static_cast<std::int64_t>(v[11]);
  e.input_rows = static_cast<std::int64_t>(v[12]);
  return e;
}

void check_options(Dataset<std::int32_t> const &data, MinibatchTrainOptions const &o) {
  if (!o.eval_fanouts.empty() && static_cast<int>(o.eval_fanouts.size()) != o.num_layers)
    throw ConfigError("mini-batch training: " + std::to_string(o.eval_fanouts.size()) +
                      " evaluation fan-outs for " + std::to_string(o.num_layers) +
                      " layers (give one per layer, or none for all neighbours)");
  if (o.eval_batch_size < 0)
    throw ConfigError("mini-batch training: the evaluation batch size must be >= 0");
  if (static_cast<int>(o.fanouts.size()) != o.num_layers)
    throw ConfigError("mini-batch training: " + std::to_string(o.fanouts.size()) +
                      " fan-outs for " + std::to_string(o.num_layers) +
                      " layers (give one fan-out per layer, e.g. --fanout 5,10,15)");
  if (o.batch_size < 1 || o.epochs < 0 || o.eval_every < 1 || o.hidden < 1 ||
      o.checkpoint_every < 1)
    throw ConfigError("mini-batch training: need batch size >= 1, epochs >= 0, eval-every >= 1, "
                      "checkpoint-every >= 1");
  if (data.train.extent(0) == 0 ||
      (o.evaluate && (data.valid.extent(0) == 0 || data.test.extent(0) == 0)))
    throw ConfigError("mini-batch training: the dataset '" + data.name +
                      "' needs a split with train, valid and test nodes");
  if (data.num_classes < 1 || data.labels.extent(0) != static_cast<std::size_t>(data.num_nodes()))
    throw ConfigError("mini-batch training: the dataset '" + data.name + "' has no labels");
  if (o.batch_norm && o.communicator.distributed())
    throw ConfigError("mini-batch training on " + std::to_string(o.communicator.size()) +
                      " ranks: BatchNorm (--batch-norm) normalises by per-batch statistics, which "
                      "each rank would compute over its own slice only; train on one rank or "
                      "drop --batch-norm");
}

} // namespace

EvalNodes parse_eval_nodes(std::string const &name) {
  if (name == "all")
    return EvalNodes::all;
  if (name == "valid+test")
    return EvalNodes::valid_test;
  if (name == "test")
    return EvalNodes::test;
  throw ConfigError("unknown evaluation nodes '" + name + "': expected all, valid+test or test");
}

std::string to_string(EvalNodes nodes) {
  switch (nodes) {
  case EvalNodes::all:
    return "all";
  case EvalNodes::valid_test:
    return "valid+test";
  default:
    return "test";
  }
}

// Named, not anonymous: nvcc wants the enclosing function of a device lambda to be addressable.
namespace minibatch_detail {

/// a *= f (the loss gradient of a rank's slice, scaled to the global batch).
template <class ExecutionSpace, class MatrixView, class Scalar>
void scale_matrix(ExecutionSpace const &space, MatrixView const &a, Scalar f) {
  const std::int64_t c = static_cast<std::int64_t>(a.extent(1));
  Kokkos::parallel_for(
      "ttgnn::minibatch::scale_grad_logits",
      Kokkos::RangePolicy<ExecutionSpace>(space, 0, static_cast<std::int64_t>(a.extent(0)) * c),
      KOKKOS_LAMBDA(std::int64_t k) { a(k / c, k % c) *= f; });
}

/// A rank with no seeds in a batch (more ranks than seeds): zero gradients, and the dropout
/// counters advance as if it had run the forward, so every replica stays in step.
template <class ExecutionSpace, class Model, class Input>
void empty_share_step(ExecutionSpace const &space, Model &model, Input &input,
                      MinibatchTrainOptions const &o) {
  model.zero_grad(space);
  input.zero_grad(space);
  std::vector<std::uint64_t> steps = model.rng_state();
  for (std::size_t l = 0; l < steps.size(); ++l)
    if ((l == 0 ? o.input_dropout : o.dropout) > 0.0)
      ++steps[l];
  model.set_rng_state(steps);
}

} // namespace minibatch_detail

template <class ExecutionSpace>
MinibatchResult train_minibatch(ExecutionSpace const &space, Dataset<std::int32_t> const &data,
                                MinibatchTrainOptions const &o,
                                Kokkos::View<const std::int64_t *, Kokkos::HostSpace> rows,
                                std::int64_t num_rows, MinibatchProgress const &progress) {
  using Scalar = float;
  using memory_space = typename ExecutionSpace::memory_space;
  using matrix_type = Matrix<Scalar, ExecutionSpace>;
  using HostExec =
      std::conditional_t<Kokkos::SpaceAccessibility<ExecutionSpace, Kokkos::HostSpace>::accessible,
                         ExecutionSpace, Kokkos::DefaultHostExecutionSpace>;
  using clock = std::chrono::steady_clock;
  auto since = [](clock::time_point t) {
    return std::chrono::duration<double>(clock::now() - t).count();
  };
  check_options(data, o);
  HostExec host_space;
  if constexpr (std::is_same<HostExec, ExecutionSpace>::value)
    host_space = space;

  NeighborSampler<std::int32_t> sampler(data.graph, o.fanouts, o.seed);
  MinibatchInput<Scalar, ExecutionSpace> input(space, data, o.input, rows, num_rows);
  GnnConfig cfg;
  cfg.kind = GnnKind::sage;
  cfg.in_features = input.dim();
  cfg.hidden = o.hidden;
  cfg.out_features = data.num_classes;
  cfg.num_layers = o.num_layers;
  cfg.dropout = o.dropout;
  cfg.input_dropout = o.input_dropout;
  cfg.batch_norm = o.batch_norm;
  cfg.residual = o.residual;
  cfg.seed = o.seed;
  GnnModel<Scalar, ExecutionSpace, std::int32_t> model(cfg);
  AdamOptions ao;
  ao.lr = o.lr;
  ao.weight_decay = o.weight_decay;
  auto optimizer = std::make_unique<TrainerAdam<Scalar, ExecutionSpace>>(
      space, model.parameters(), model.gradients(), ao,
      o.adamw ? OptimizerKind::adamw : OptimizerKind::adam);
  using view_type = Kokkos::View<Scalar *, memory_space>;
  BestSnapshot<view_type> best;
  // Data parallelism (see the header): this rank's slice of every batch, one all-reduce of the
  // dense gradients (GNN + TT cores) per step.
  Communicator const &comm = o.communicator;
  const std::int64_t num_ranks = comm.size(), my_rank = comm.rank();
  GradientAllreduce<Scalar, ExecutionSpace> gradient_sum;
  if (comm.distributed()) {
    std::vector<view_type> dense = model.gradients();
    for (auto const &g : input.dense_gradients())
      dense.push_back(g);
    gradient_sum = GradientAllreduce<Scalar, ExecutionSpace>(dense);
  }

  const NodeMetric metric = resolve_metric(o.metric, data.is_multilabel());
  NodeTargets<ExecutionSpace> targets;
  if (data.is_multilabel())
    targets = NodeTargets<ExecutionSpace>(
        Kokkos::create_mirror_view_and_copy(memory_space(), data.multilabels,
                                            "ttgnn::minibatch::multilabels"),
        metric);
  else
    targets = NodeTargets<ExecutionSpace>(Kokkos::create_mirror_view_and_copy(
        memory_space(), data.labels, "ttgnn::minibatch::labels"));
  auto train_d =
      Kokkos::create_mirror_view_and_copy(memory_space(), data.train, "ttgnn::minibatch::train");
  auto valid_d =
      Kokkos::create_mirror_view_and_copy(memory_space(), data.valid, "ttgnn::minibatch::valid");
  auto test_d =
      Kokkos::create_mirror_view_and_copy(memory_space(), data.test, "ttgnn::minibatch::test");
  std::unique_ptr<FullGraphMean<ExecutionSpace, std::int32_t>> full;
  std::unique_ptr<NeighborSampler<std::int32_t>> eval_sampler; // subset evaluation
  LayerwiseMemory eval_memory;                                 // largest evaluation buffers so far
  NodeLoss<Scalar, ExecutionSpace> loss_fn;

  MinibatchResult result;
  result.metric = to_string(metric);
  result.gnn_params = model.num_parameters();
  result.embedding_params = input.num_parameters();
  result.compression = input.compression();
  result.tt_shape = input.shape_string();
  const std::int64_t num_train = static_cast<std::int64_t>(data.train.extent(0));
  result.batches_per_epoch = (num_train + o.batch_size - 1) / o.batch_size;
  const std::int64_t run_batches = o.max_batches > 0
                                       ? std::min(o.max_batches, result.batches_per_epoch)
                                       : result.batches_per_epoch;
  // of the epochs run by this call: training, evaluation, both
  std::vector<double> epoch_times, batch_times, eval_times, total_times;
  int evaluations_without_gain = 0;
  bool stopped = false; // early stopping (kept in checkpoints)

  // Everything later epochs depend on (see the header); the shuffle and the sampled blocks
  // are functions of (seed, epoch, batch) and need no state.
  const std::string fingerprint =
      "sage layers=" + std::to_string(o.num_layers) + " widths=" + std::to_string(input.dim()) +
      "/" + std::to_string(o.hidden) + "/" + std::to_string(data.num_classes) +
      " residual=" + std::to_string(o.residual) + " bn=" + std::to_string(o.batch_norm) +
      " input=" + to_string(o.input.kind) + " tt=" + input.shape_string() +
      " params=" + extents_string(model.parameters()) +
      " emb=" + extents_string(input.parameters()) + " optimizer=" + (o.adamw ? "adamw" : "adam") +
      " batch=" + std::to_string(o.batch_size) + " max_batches=" + std::to_string(o.max_batches) +
      " fanouts=" +
      [&] {
        std::string f;
        for (auto k : o.fanouts)
          f += (f.empty() ? "" : ",") + std::to_string(k);
        return f;
      }() +
      " seed=" + std::to_string(o.seed) + " metric=" + to_string(metric) +
      " nodes=" + std::to_string(data.num_nodes()) + "/" + std::to_string(num_train) + "/" +
      std::to_string(data.valid.extent(0)) + "/" + std::to_string(data.test.extent(0)) +
      (o.fingerprint.empty() ? "" : " | " + o.fingerprint);
  auto save_checkpoint = [&](int epoch) {
    Checkpoint ck;
    put_checkpoint_header(ck, kCheckpointFormat, fingerprint, epoch);
    save_model_state(ck, model);
    optimizer->save(ck, "opt.gnn");
    input.save(ck, "input");
    ck.put("select", std::vector<double>{double(result.best_epoch), result.train_acc,
                                         result.valid_acc, result.test_acc, result.valid_loss,
                                         double(evaluations_without_gain), stopped ? 1.0 : 0.0});
    if (!best.empty())
      best.save(ck);
    std::vector<double> hist;
    for (auto const &e : result.epochs)
      append(hist, e);
    ck.put("history", hist);
    if (my_rank == 0) // replicas are identical: one writer
      ck.save(o.checkpoint_path);
    result.checkpoint_epoch = epoch;
  };
  int start = 0;
  if (!o.checkpoint_path.empty()) {
    // Leftovers of checkpoint writes killed mid-way are never read; clear them.
    if (my_rank == 0)
      remove_stale_temporaries(o.checkpoint_path);
    if (o.resume && checkpoint_exists(o.checkpoint_path)) {
      const std::string &path = o.checkpoint_path;
      const Checkpoint ck = Checkpoint::load(path);
      start =
          check_checkpoint_header(ck, path, kCheckpointFormat, "mini-batch trainer", fingerprint);
      load_model_state(ck, model);
      optimizer->load(ck, "opt.gnn");
      input.load(space, ck, "input");
      const auto sel = ck.get_f64("select");
      const auto hist = ck.get_f64("history");
      if (sel.size() != 7 || hist.size() % kEpochFields != 0)
        throw InputError(path + ": bad selection or history record");
      result.best_epoch = static_cast<int>(sel[0]);
      result.train_acc = sel[1];
      result.valid_acc = sel[2];
      result.test_acc = sel[3];
      result.valid_loss = sel[4];
      evaluations_without_gain = static_cast<int>(sel[5]);
      stopped = sel[6] != 0;
      if (ck.has("best.model.param.0"))
        best.load(ck, model, input);
      for (std::size_t i = 0; i < hist.size(); i += kEpochFields)
        result.epochs.push_back(epoch_from(hist.data() + i));
      result.checkpoint_epoch = start;
      if (stopped)
        result.stop = StopReason::early_stopping;
    }
    if (comm.distributed() && o.resume &&
        comm.min(std::int64_t(start)) != comm.max(std::int64_t(start)))
      throw InputError(o.checkpoint_path + ": the ranks resume from different epochs (" +
                       comm.describe() + " from epoch " + std::to_string(start) +
                       "); the checkpoint file must be visible to every rank");
  }
  result.first_epoch = start + 1;
  result.ranks = static_cast<int>(num_ranks);
  result.allreduce_values = gradient_sum.size();
  std::int64_t comm_steps = 0, comm_bytes = 0;
  double comm_seconds = 0;
  // every rank's gradients = their sum over the ranks (nothing on one rank)
  auto sum_gradients = [&] {
    if (!comm.distributed())
      return;
    gradient_sum.allreduce(space, comm);
    if (auto const *table = input.full()) {
      const auto summed = allreduce_sparse_rows<Scalar>(space, comm, table->sparse_ids(),
                                                        table->sparse_rows(), input.options().dim);
      input.set_sparse_gradient(summed.ids, summed.rows);
    }
  };

  for (int epoch = start + 1; epoch <= o.epochs && !stopped; ++epoch) {
    MinibatchEpoch rec;
    rec.epoch = epoch;
    const auto t_epoch = clock::now();
    const HostIds order = shuffled(data.train, o.seed, static_cast<std::uint64_t>(epoch));
    model.set_training(true);
    double loss_sum = 0;
    bool finite = true;
    const std::int64_t comm_bytes_before = comm.bytes();
    const double comm_seconds_before = comm.seconds();
    for (std::int64_t b = 0; b < run_batches; ++b) {
      const auto t_batch = clock::now();
      const std::int64_t batch_first = b * o.batch_size;
      const std::int64_t batch_seeds =
          std::min(num_train, batch_first + o.batch_size) - batch_first;
      // this rank's contiguous slice of the batch (the whole batch on one rank)
      const std::int64_t first = batch_first + batch_seeds * my_rank / num_ranks;
      const std::int64_t last = batch_first + batch_seeds * (my_rank + 1) / num_ranks;
      const std::int64_t m = last - first;
      if (m == 0) { // more ranks than seeds in this batch: contribute nothing, stay in step
        minibatch_detail::empty_share_step(space, model, input, o);
        double loss = comm.sum(0.0) / double(batch_seeds);
        if (!std::isfinite(loss)) {
          finite = false;
          break;
        }
        loss_sum += loss;
        sum_gradients();
        optimizer->step(space);
        input.step(space);
        space.fence();
        ++rec.batches;
        batch_times.push_back(since(t_batch));
        continue;
      }
      Kokkos::View<const std::int64_t *, Kokkos::HostSpace> seeds =
          Kokkos::subview(order, std::make_pair(first, last));
      const auto t_sample = clock::now();
      const SampledBatch batch = sampler.sample(
          host_space, seeds, static_cast<std::uint64_t>(epoch), static_cast<std::uint64_t>(b));
      rec.sample_seconds += since(t_sample);
      std::vector<GraphOperator<Scalar, ExecutionSpace, std::int32_t>> ops;
      for (auto const &blk : batch.blocks)
        ops.push_back(block_mean_operator<Scalar>(space, blk));
      rec.sampled_edges += batch.num_edges();
      auto ids = Kokkos::create_mirror_view_and_copy(memory_space(), batch.input_nodes(),
                                                     "ttgnn::minibatch::input_nodes");
      const std::int64_t n_in = static_cast<std::int64_t>(ids.extent(0));
      rec.input_rows += n_in;
      matrix_type x0(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::minibatch::x0"), n_in,
                     input.dim());
      input.forward(space, ids, x0);
      {
        // dropout masks keyed by global node ids: the same whichever rank or position holds a
        // node (the layer-l nodes are a prefix of the input nodes)
        std::vector<typename decltype(model)::key_view> keys;
        for (int l = 0; l < o.num_layers; ++l)
          keys.push_back(Kokkos::subview(
              ids, std::make_pair(std::int64_t(0),
                                  static_cast<std::int64_t>(batch.nodes[l].extent(0)))));
        model.set_dropout_row_keys(keys);
      }
      matrix_type const &logits = model.forward(space, ops, x0);
      // the seeds are the first input nodes: their targets become rows 0 .. m-1
      const NodeTargets<ExecutionSpace> batch_targets = gather_targets(space, targets, ids, m);
      Kokkos::View<std::int64_t *, memory_space> subset(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::minibatch::subset"), m);
      Kokkos::parallel_for(
          "ttgnn::minibatch::subset", Kokkos::RangePolicy<ExecutionSpace>(space, 0, m),
          KOKKOS_LAMBDA(std::int64_t i) { subset(i) = i; });
      double loss = loss_fn.forward(space, logits, batch_targets, subset);
      if (comm.distributed()) // the batch's mean loss: slices weighted by their seeds
        loss = comm.sum(loss * double(m)) / double(batch_seeds);
      if (!std::isfinite(loss)) {
        finite = false;
        break;
      }
      loss_sum += loss;
      matrix_type grad_logits(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::minibatch::grad_logits"),
          logits.extent(0), logits.extent(1));
      loss_fn.backward(space, grad_logits);
      if (m != batch_seeds) // d(batch mean)/d(slice mean) = slice seeds / batch seeds
        minibatch_detail::scale_matrix(space, grad_logits, Scalar(double(m) / double(batch_seeds)));
      optimizer->zero_grad(space);
      input.zero_grad(space);
      matrix_type grad_x0;
      if (input.trainable())
        grad_x0 = matrix_type(
            Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::minibatch::grad_x0"), n_in,
            input.dim());
      model.backward(space, grad_logits, grad_x0);
      input.backward(space, grad_x0);
      sum_gradients();
      optimizer->step(space);
      input.step(space);
      space.fence();
      ++rec.batches;
      batch_times.push_back(since(t_batch));
    }
    rec.seconds = since(t_epoch);
    comm_bytes += comm.bytes() - comm_bytes_before;
    comm_seconds += comm.seconds() - comm_seconds_before;
    comm_steps += rec.batches;
    if (comm.distributed()) { // the slowest rank's time; work summed over the ranks
      rec.seconds = comm.max(rec.seconds);
      rec.sample_seconds = comm.max(rec.sample_seconds);
      rec.sampled_edges = comm.sum(rec.sampled_edges);
      rec.input_rows = comm.sum(rec.input_rows);
    }
    rec.loss = rec.batches > 0 ? loss_sum / rec.batches : 0.0;
    if (!finite) {
      result.stop = StopReason::nonfinite;
      result.epochs.push_back(rec);
      if (progress)
        progress(rec, result);
      break;
    }
    epoch_times.push_back(rec.seconds);
    total_times.push_back(rec.seconds); // + the evaluation time below, when evaluated
    if (o.evaluate && (epoch % o.eval_every == 0 || epoch == o.epochs)) {
      const auto t_eval = clock::now();
      model.set_training(false);
      auto input_rows = [&input](ExecutionSpace const &s,
                                 Kokkos::View<const std::int64_t *, memory_space> const &ids,
                                 matrix_type const &out) { input.forward(s, ids, out); };
      if (o.eval_nodes == EvalNodes::all) {
        if (!full)
          full = std::make_unique<FullGraphMean<ExecutionSpace, std::int32_t>>(
              FullGraphMean<ExecutionSpace, std::int32_t>::build(space, data.graph));
        const matrix_type logits =
            sage_layerwise_inference(space, model, *full, input_rows, o.eval_chunk, &eval_memory);
        const std::vector<double> scores =
            node_scores(space, logits, targets, {train_d, valid_d, test_d});
        rec.train_acc = scores[0];
        rec.valid_acc = scores[1];
        rec.test_acc = scores[2];
        NodeLoss<Scalar, ExecutionSpace> eval_loss;
        rec.valid_loss = eval_loss.forward(space, logits, targets, valid_d);
      } else {
        // the valid nodes (unless test only), then the test nodes
        if (!eval_sampler)
          eval_sampler = std::make_unique<NeighborSampler<std::int32_t>>(
              data.graph,
              o.eval_fanouts.empty() ? std::vector<std::int64_t>(o.num_layers, -1) : o.eval_fanouts,
              o.seed);
        const bool with_valid = o.eval_nodes == EvalNodes::valid_test;
        const std::int64_t nv = with_valid ? static_cast<std::int64_t>(data.valid.extent(0)) : 0;
        const std::int64_t nt = static_cast<std::int64_t>(data.test.extent(0));
        HostIds nodes(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::minibatch::eval"),
                      nv + nt);
        for (std::int64_t i = 0; i < nv; ++i)
          nodes(i) = data.valid(i);
        for (std::int64_t i = 0; i < nt; ++i)
          nodes(nv + i) = data.test(i);
        SubsetInferenceMemory sm;
        const matrix_type logits = sage_subset_inference(
            space, model, *eval_sampler, input_rows, nodes,
            o.eval_batch_size > 0 ? o.eval_batch_size : o.batch_size, kEvalStream, &sm);
        eval_memory.chunk_buffer_bytes =
            std::max(eval_memory.chunk_buffer_bytes, sm.max_batch_bytes);
        eval_memory.max_input_rows = std::max(eval_memory.max_input_rows, sm.max_input_rows);
        eval_memory.node_matrix_bytes =
            std::max<std::int64_t>(eval_memory.node_matrix_bytes,
                                   static_cast<std::int64_t>(logits.span() * sizeof(Scalar)));
        auto nodes_d = Kokkos::create_mirror_view_and_copy(memory_space(), nodes,
                                                           "ttgnn::minibatch::eval_nodes");
        const NodeTargets<ExecutionSpace> local_targets =
            gather_targets(space, targets, nodes_d, nv + nt);
        Kokkos::View<std::int64_t *, memory_space> local(
            Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::minibatch::eval_local"),
            nv + nt);
        Kokkos::parallel_for(
            "ttgnn::minibatch::eval_local", Kokkos::RangePolicy<ExecutionSpace>(space, 0, nv + nt),
            KOKKOS_LAMBDA(std::int64_t i) { local(i) = i; });
        const Kokkos::View<const std::int64_t *, memory_space> local_valid =
            Kokkos::subview(local, std::make_pair(std::int64_t(0), nv));
        const Kokkos::View<const std::int64_t *, memory_space> local_test =
            Kokkos::subview(local, std::make_pair(nv, nv + nt));
        const std::vector<double> scores =
            node_scores(space, logits, local_targets, {local_valid, local_test});
        rec.test_acc = scores[1];
        if (with_valid) {
          rec.valid_acc = scores[0];
          NodeLoss<Scalar, ExecutionSpace> eval_loss;
          rec.valid_loss = eval_loss.forward(space, logits, local_targets, local_valid);
        }
      }
      rec.evaluated = true;
      space.fence();
      rec.eval_seconds = since(t_eval);
      eval_times.push_back(rec.eval_seconds);
      // The full-batch trainer's rule: a strictly better validation metric (ties keep the
      // earlier epoch); the selected parameters are restored at the end.
      // Without a validation metric (test nodes only) every evaluation is selected.
      if (result.best_epoch == 0 || rec.valid_acc > result.valid_acc ||
          o.eval_nodes == EvalNodes::test) {
        result.best_epoch = epoch;
        result.train_acc = rec.train_acc;
        result.valid_acc = rec.valid_acc;
        result.test_acc = rec.test_acc;
        result.valid_loss = rec.valid_loss;
        evaluations_without_gain = 0;
        if (o.keep_best)
          best.take(model, input);
      } else {
        ++evaluations_without_gain;
      }
    }
    total_times.back() += rec.eval_seconds;
    result.epochs.push_back(rec);
    if (o.patience > 0 && evaluations_without_gain >= o.patience) {
      result.stop = StopReason::early_stopping;
      stopped = true;
    }
    if (!o.checkpoint_path.empty() &&
        (epoch % o.checkpoint_every == 0 || epoch == o.epochs || stopped))
      save_checkpoint(epoch);
    if (progress)
      progress(rec, result);
  }
  if (!best.empty())
    best.restore(model, input);
  result.epoch_time_s = median(epoch_times);
  result.batch_time_s = median(batch_times);
  result.eval_time_s = median(eval_times);
  double total = 0;
  for (double t : total_times)
    total += t;
  result.epoch_time_mean_s = total_times.empty() ? 0.0 : total / double(total_times.size());
  result.peak_rss_mb = peak_rss_mb();
  if (comm_steps > 0) {
    result.comm_bytes_per_step = double(comm_bytes) / double(comm_steps);
    result.comm_seconds_per_step = comm_seconds / double(comm_steps);
  }
  {
    ByteLedger graph, features, table, opt, params, work, eval;
    graph.add(data.graph.row_map).add(data.graph.entries);
    if (full)
      graph.add(full->row_map).add(full->entries).add(full->inv_degree);
    features.add(data.features)
        .add(data.sparse_features.row_map)
        .add(data.sparse_features.cols)
        .add(data.sparse_features.values);
    input.add_memory(features, table, opt, work);
    opt.add_all(optimizer->exp_avg()).add_all(optimizer->exp_avg_sq());
    params.add_all(model.parameters()).add_all(model.gradients()).add_all(model.buffers());
    MemoryBreakdown &m = result.memory;
    m.peak_rss_mb = result.peak_rss_mb;
    m.graph_mb = to_mb(graph.bytes());
    m.features_mb = to_mb(features.bytes());
    m.table_mb = to_mb(table.bytes());
    m.optimizer_mb = to_mb(opt.bytes());
    m.parameters_mb = to_mb(params.bytes());
    m.activations_mb =
        to_mb(model.peak_workspace_bytes() + model.peak_input_bytes() + work.bytes());
    m.sampler_mb = to_mb(sampler.scratch_bytes() + sampler.peak_batch_bytes());
    m.eval_mb = to_mb(
        eval_memory.node_matrix_bytes + eval_memory.chunk_buffer_bytes +
        (eval_sampler ? eval_sampler->scratch_bytes() + eval_sampler->peak_batch_bytes() : 0));
  }
  return result;
}

#define TTGNN_INSTANTIATE_MINIBATCH(SPACE)                                                         \
  template MinibatchResult train_minibatch<SPACE>(                                                 \
      SPACE const &, Dataset<std::int32_t> const &, MinibatchTrainOptions const &,                 \
      Kokkos::View<const std::int64_t *, Kokkos::HostSpace>, std::int64_t,                         \
      MinibatchProgress const &);
#ifdef KOKKOS_ENABLE_SERIAL
TTGNN_INSTANTIATE_MINIBATCH(Kokkos::Serial)
#endif
#ifdef KOKKOS_ENABLE_OPENMP
TTGNN_INSTANTIATE_MINIBATCH(Kokkos::OpenMP)
#endif
#ifdef KOKKOS_ENABLE_CUDA
TTGNN_INSTANTIATE_MINIBATCH(Kokkos::Cuda)
#endif
#undef TTGNN_INSTANTIATE_MINIBATCH

} // namespace ttgnn
