// Mini-batch GraphSAGE training with neighbour sampling (see minibatch_trainer.hpp).
#include "models/train/minibatch_trainer.hpp"

#include "core/optim/adam.hpp"
#include "core/runtime/byte_ledger.hpp"
#include "core/runtime/grow_only.hpp"
#include "core/error.hpp"
#include "core/counter_rng.hpp"
#include "core/runtime/allocation_tracker.hpp"
#include "graph/neighbor_sampler.hpp"
#include "graph/sampled_block_bounds.hpp"
#include "core/io/atomic_file.hpp"
#include "models/layers/block_operator.hpp"
#include "models/train/checkpoint.hpp"
#include "models/train/dataset_memory.hpp"
#include "models/embedding/embedding_export.hpp"
#include "models/gnn_model.hpp"
#include "models/train/gradient_allreduce.hpp"
#include "models/train/layerwise_inference.hpp"
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

constexpr std::uint64_t kShuffleDomain = 0x73687566666C65ULL; // "shuffle"
/// Names the sampler's streams of subset evaluation (training epochs are 1, 2, ...): the same
/// blocks at every evaluation.
constexpr std::uint64_t kEvalStream = 0x6576616C756174ULL; // "evaluat"

using HostIds = Kokkos::View<std::int64_t *, Kokkos::HostSpace>;

/// \p out = the training nodes of epoch \p epoch in a seeded random order (Fisher-Yates);
/// allocated on the first call only.
void shuffle_into(HostIds const &train, std::uint64_t seed, std::uint64_t epoch, HostIds &out) {
  const std::int64_t n = static_cast<std::int64_t>(train.extent(0));
  reserve_entries(out, n, "ttgnn::minibatch::order");
  Kokkos::deep_copy(out, train);
  CounterRng rng(seed, kShuffleDomain, epoch);
  for (std::int64_t i = n - 1; i > 0; --i)
    std::swap(out(i), out(static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(i + 1)))));
}

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

// Named, not anonymous: nvcc wants the enclosing function of a device lambda to be addressable.
namespace minibatch_detail {

/// \brief The batch source of mini-batch training (models/train/training_loop.hpp): this rank's
/// slice of each shuffled batch of training nodes with its sampled blocks and input rows;
/// layer-wise or subset evaluation.
template <class ExecutionSpace> class SampledBlockSource {
public:
  using Scalar = float;
  using memory_space = typename ExecutionSpace::memory_space;
  using matrix_type = Matrix<Scalar, ExecutionSpace>;
  using model_type = GnnModel<Scalar, ExecutionSpace, std::int32_t>;
  using input_type = MinibatchInput<Scalar, ExecutionSpace>;
  using batch_type = TrainingBatch<Scalar, ExecutionSpace, std::int32_t>;
  using ids_type = Kokkos::View<const std::int64_t *, memory_space>;
  using sampler_type = NeighborSampler<std::int32_t, memory_space>;

  SampledBlockSource(ExecutionSpace const &space, Dataset<std::int32_t> const &data,
                     MinibatchTrainOptions const &o, model_type &model, input_type &input,
                     NodeTargets<ExecutionSpace> targets)
      : data_(data), o_(o), model_(model), input_(input), targets_(targets),
        sample_space_(sampling_instance(space)), graph_(graph_in_space<memory_space>(data.graph)),
        sampler_(graph_, o.fanouts, o.seed),
        train_(Kokkos::create_mirror_view_and_copy(memory_space(), data.train,
                                                   "ttgnn::minibatch::train")),
        valid_(Kokkos::create_mirror_view_and_copy(memory_space(), data.valid,
                                                   "ttgnn::minibatch::valid")),
        test_(Kokkos::create_mirror_view_and_copy(memory_space(), data.test,
                                                  "ttgnn::minibatch::test")) {
    Communicator const &comm = o.communicator;
    if (comm.distributed()) { // GNN + TT cores: one all-reduce per step
      std::vector<Kokkos::View<Scalar *, memory_space>> dense = model.gradients();
      for (auto const &g : input.dense_gradients())
        dense.push_back(g);
      gradient_sum_ = GradientAllreduce<Scalar, ExecutionSpace>(dense);
    }
  }

  /// Training nodes per epoch over the batch size (before max_batches).
  std::int64_t batches_per_epoch() const {
    return (num_train() + o_.batch_size - 1) / o_.batch_size;
  }

  std::int64_t num_batches(int epoch) {
    shuffle_into(data_.train, o_.seed, static_cast<std::uint64_t>(epoch), order_);
    if constexpr (std::is_same<memory_space, Kokkos::HostSpace>::value) {
      order_in_space_ = order_;
    } else { // read by the sampler, so copied in its instance's order
      const auto order =
          grow_entries(order_storage_, "ttgnn::minibatch::order_in_space", num_train());
      Kokkos::deep_copy(sample_space_, order, order_);
      order_in_space_ = order;
    }
    prepared_ = -1;
    return o_.max_batches > 0 ? std::min(o_.max_batches, batches_per_epoch()) : batches_per_epoch();
  }

  /// \brief Samples batch \p b of \p epoch into the workspace batch \p b does not share with
  /// batch b - 1, on the sampling instance (a stream of its own on a device: called while
  /// batch b - 1 still trains, it overlaps that step's remaining kernels). batch() then uses it.
  void prepare(int epoch, std::int64_t b, EpochRecord &rec) {
    prepared_batch_ = sample_batch(epoch, b, rec);
    prepared_ = b;
  }

  batch_type batch(ExecutionSpace const &space, int epoch, std::int64_t b, EpochRecord &rec) {
    batch_type out;
    const BatchSlice slice = slice_of(b);
    out.batch_seeds = slice.batch_seeds;
    out.seeds = slice.last - slice.first;
    if (out.seeds == 0) // more ranks than seeds in this batch: contribute nothing, stay in step
      return out;
    const sampled_type sampled = prepared_ == b ? prepared_batch_ : sample_batch(epoch, b, rec);
    prepared_ = -1;
    prepared_batch_ = {};
    block_ws_.resize(sampled.blocks.size());
    for (std::size_t l = 0; l < sampled.blocks.size(); ++l)
      out.ops.push_back(block_mean_operator<Scalar>(space, sampled.blocks[l], &block_ws_[l]));
    rec.sampled_edges += sampled.num_edges();
    const std::int64_t n_in = static_cast<std::int64_t>(sampled.input_nodes().extent(0));
    const ids_type ids = sampled.input_nodes();
    rec.input_rows += n_in;
    out.x = x_ws_.rows("ttgnn::minibatch::x0", n_in, input_.dim());
    input_.forward(space, ids, out.x);
    out.x_scratch = true; // this batch's own rows
    // dropout masks keyed by global node ids: the same whichever rank or position holds a node
    // (the layer-l nodes are a prefix of the input nodes)
    for (int l = 0; l < o_.model.num_layers; ++l)
      out.dropout_keys.push_back(Kokkos::subview(
          ids,
          std::make_pair(std::int64_t(0), static_cast<std::int64_t>(sampled.nodes[l].extent(0)))));
    // the seeds are the first input nodes: their targets become rows 0 .. seeds-1
    out.targets = gather_targets(space, targets_, ids, out.seeds, &targets_ws_);
    if (static_cast<std::int64_t>(loss_rows_.extent(0)) < out.seeds) { // 0, 1, ...: grow-only
      loss_rows_ = Kokkos::View<std::int64_t *, memory_space>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::minibatch::loss_rows"),
          o_.batch_size);
      detail::fill_iota(space, loss_rows_);
    }
    out.loss_rows = Kokkos::subview(loss_rows_, std::make_pair(std::int64_t(0), out.seeds));
    return out;
  }

  /// The ranks' gradients summed (nothing on one rank).
  void sum_gradients(ExecutionSpace const &space) {
    Communicator const &comm = o_.communicator;
    if (!comm.distributed())
      return;
    gradient_sum_.allreduce(space, comm);
    if (auto const *table = input_.full()) {
      const auto summed = allreduce_sparse_rows<Scalar>(space, comm, table->sparse_ids(),
                                                        table->sparse_rows(), input_.options().dim);
      input_.set_sparse_gradient(summed.ids, summed.rows);
    }
  }

  bool evaluates(int epoch) const {
    return o_.evaluate && (epoch % o_.eval_every == 0 || epoch == o_.epochs);
  }

  EvalResult evaluate(ExecutionSpace const &space) {
    // the last batch's lookup plan is not needed again: evaluation runs without it
    released_input_bytes_ = std::max(released_input_bytes_, input_.release_workspace());
    model_.set_training(false);
    const EvalResult r =
        o_.eval_nodes == EvalNodes::all ? evaluate_all(space) : evaluate_subset(space);
    model_.set_training(true);
    return r;
  }

  std::int64_t allreduce_values() const { return gradient_sum_.size(); }

  /// Logits of every node in evaluation mode (layer-wise full-neighbour inference).
  matrix_type all_logits(ExecutionSpace const &space) {
    if (!full_)
      full_ = std::make_unique<FullGraphMean<ExecutionSpace, std::int32_t>>(
          FullGraphMean<ExecutionSpace, std::int32_t>::build(space, data_.graph, &graph_));
    const bool training = model_.training();
    model_.set_training(false);
    matrix_type logits =
        sage_layerwise_inference(space, model_, *full_, input_rows(), o_.eval_chunk, &eval_memory_);
    model_.set_training(training);
    return logits;
  }

  /// Adds the graph (CSR and the evaluation operator) to \p graph.
  void add_graph_memory(ByteLedger &graph) const {
    graph.add(data_.graph.row_map).add(data_.graph.entries).add(graph_.row_map).add(graph_.entries);
    if (full_)
      graph.add(full_->row_map).add(full_->entries).add(full_->inv_degree);
  }
  /// The device copies of the split ids (the host's own on host spaces).
  void add_node_memory(ByteLedger &nodes) const { nodes.add(train_).add(valid_).add(test_); }
  /// Bytes of the batches' input rows (a grow-only buffer).
  std::int64_t input_bytes() const { return view_bytes(x_ws_.storage()); }
  /// The largest input workspace freed before an evaluation (see MinibatchInput).
  std::int64_t released_input_bytes() const { return released_input_bytes_; }
  /// Sampler scratch and the two batch workspaces.
  std::int64_t sampler_bytes() const {
    return sampler_.scratch_bytes() + sampler_ws_[0].bytes() + sampler_ws_[1].bytes();
  }
  /// Largest evaluation buffers and the evaluation sampler's batches (its per-node scratch is
  /// the training sampler's, counted in sampler_bytes()).
  std::int64_t eval_bytes() const {
    return eval_memory_.node_matrix_bytes + eval_memory_.chunk_buffer_bytes +
           (eval_sampler_ ? eval_sampler_->peak_batch_bytes() : 0);
  }

private:
  using sampled_type = SampledBatch<memory_space>;

  std::int64_t num_train() const { return static_cast<std::int64_t>(data_.train.extent(0)); }

  /// The instance sampling runs on: a new one on a device (its own stream), the training
  /// space itself on the host (whose threads the training uses too).
  static ExecutionSpace sampling_instance(ExecutionSpace const &space) {
    if constexpr (Kokkos::SpaceAccessibility<ExecutionSpace, Kokkos::HostSpace>::accessible)
      return space;
    else
      return Kokkos::Experimental::partition_space(space, 1)[0];
  }

  /// This rank's contiguous slice [first, last) of the shuffled order in batch b (the whole
  /// batch on one rank), and the batch's size over all ranks.
  struct BatchSlice {
    std::int64_t first = 0, last = 0, batch_seeds = 0;
  };
  BatchSlice slice_of(std::int64_t b) const {
    const std::int64_t num_ranks = o_.communicator.size(), rank = o_.communicator.rank();
    const std::int64_t batch_first = b * o_.batch_size;
    BatchSlice s;
    s.batch_seeds = std::min(num_train(), batch_first + o_.batch_size) - batch_first;
    s.first = batch_first + s.batch_seeds * rank / num_ranks;
    s.last = batch_first + s.batch_seeds * (rank + 1) / num_ranks;
    return s;
  }

  /// The blocks of this rank's slice of batch \p b, sampled on the sampling instance into the
  /// workspace of b's parity (batch b - 1's arrays stay intact while it trains); an empty batch
  /// for an empty slice.
  sampled_type sample_batch(int epoch, std::int64_t b, EpochRecord &rec) {
    const BatchSlice slice = slice_of(b);
    if (slice.last == slice.first)
      return {};
    const auto t_sample = std::chrono::steady_clock::now();
    SamplerWorkspace<memory_space> &ws = sampler_ws_[b % 2];
    const sampled_type sampled = sampler_.sample(
        sample_space_, Kokkos::subview(order_in_space_, std::make_pair(slice.first, slice.last)),
        static_cast<std::uint64_t>(epoch), static_cast<std::uint64_t>(b), &ws);
    // The other workspace grows now, as one workspace would have. It may hold batch b - 1,
    // still training: its arrays stay alive, held by the model's operators and the input's ids.
    sampler_ws_[1 - b % 2].reserve_like(ws);
    rec.sample_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t_sample).count();
    return sampled;
  }

  /// The input rows of \p ids (evaluation asks per chunk / batch).
  auto input_rows() {
    return [this](ExecutionSpace const &s, ids_type const &ids, matrix_type const &out) {
      input_.forward(s, ids, out);
    };
  }

  /// Layer-wise full-neighbour inference over every node.
  EvalResult evaluate_all(ExecutionSpace const &space) {
    const matrix_type logits = all_logits(space);
    const std::vector<double> scores =
        node_scores(space, logits, targets_, {train_, valid_, test_});
    EvalResult r{scores[0], scores[1], scores[2], -1};
    NodeLoss<Scalar, ExecutionSpace> eval_loss;
    r.valid_loss = eval_loss.forward(space, logits, targets_, valid_);
    return r;
  }

  /// The valid nodes (unless test only), then the test nodes, from their L-hop neighbourhoods.
  EvalResult evaluate_subset(ExecutionSpace const &space) {
    if (!eval_sampler_)
      eval_sampler_ = std::make_unique<sampler_type>(sampler_.with_fanouts(
          o_.eval_fanouts.empty() ? std::vector<std::int64_t>(o_.model.num_layers, -1)
                                  : o_.eval_fanouts));
    const bool with_valid = o_.eval_nodes == EvalNodes::valid_test;
    const std::int64_t nv = with_valid ? static_cast<std::int64_t>(data_.valid.extent(0)) : 0;
    const std::int64_t nt = static_cast<std::int64_t>(data_.test.extent(0));
    HostIds nodes(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::minibatch::eval"),
                  nv + nt);
    for (std::int64_t i = 0; i < nv; ++i)
      nodes(i) = data_.valid(i);
    for (std::int64_t i = 0; i < nt; ++i)
      nodes(nv + i) = data_.test(i);
    const auto nodes_d =
        Kokkos::create_mirror_view_and_copy(memory_space(), nodes, "ttgnn::minibatch::eval_nodes");
    SubsetInferenceMemory sm;
    const matrix_type logits = sage_subset_inference(
        space, model_, *eval_sampler_, input_rows(), nodes_d,
        o_.eval_batch_size > 0 ? o_.eval_batch_size : o_.batch_size, kEvalStream, &sm);
    // the model's buffers are resized in place: the part the training peak (activations_mb)
    // already counts is not counted twice
    const std::int64_t shared = std::min(sm.max_model_bytes, model_.peak_workspace_bytes());
    eval_memory_.chunk_buffer_bytes =
        std::max(eval_memory_.chunk_buffer_bytes, sm.max_batch_bytes - shared);
    eval_memory_.max_input_rows = std::max(eval_memory_.max_input_rows, sm.max_input_rows);
    eval_memory_.node_matrix_bytes = std::max<std::int64_t>(
        eval_memory_.node_matrix_bytes, static_cast<std::int64_t>(logits.span() * sizeof(Scalar)));
    const NodeTargets<ExecutionSpace> local_targets =
        gather_targets(space, targets_, nodes_d, nv + nt);
    Kokkos::View<std::int64_t *, memory_space> local(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::minibatch::eval_local"), nv + nt);
    detail::fill_iota(space, local);
    const ids_type local_valid = Kokkos::subview(local, std::make_pair(std::int64_t(0), nv));
    const ids_type local_test = Kokkos::subview(local, std::make_pair(nv, nv + nt));
    const std::vector<double> scores =
        node_scores(space, logits, local_targets, {local_valid, local_test});
    EvalResult r;
    r.test_acc = scores[1];
    if (with_valid) {
      r.valid_acc = scores[0];
      NodeLoss<Scalar, ExecutionSpace> eval_loss;
      r.valid_loss = eval_loss.forward(space, logits, local_targets, local_valid);
    }
    return r;
  }

  Dataset<std::int32_t> const &data_;
  MinibatchTrainOptions const &o_;
  model_type &model_;
  input_type &input_;
  NodeTargets<ExecutionSpace> targets_;
  ExecutionSpace sample_space_;
  CsrGraph<std::int32_t, memory_space> graph_; // the dataset's graph in the space's memory
  sampler_type sampler_;
  ids_type train_, valid_, test_;
  HostIds order_;                                            // this epoch's shuffled training nodes
  Kokkos::View<std::int64_t *, memory_space> order_storage_; // their device copy (grow-only)
  Kokkos::View<const std::int64_t *, memory_space> order_in_space_;
  std::int64_t prepared_ = -1; // the batch in prepared_batch_ (-1: none)
  sampled_type prepared_batch_;
  GradientAllreduce<Scalar, ExecutionSpace> gradient_sum_;
  std::unique_ptr<FullGraphMean<ExecutionSpace, std::int32_t>> full_;
  std::unique_ptr<sampler_type> eval_sampler_; // subset evaluation
  LayerwiseMemory eval_memory_;                // largest evaluation buffers
  std::int64_t released_input_bytes_ = 0;
  // grow-only batch buffers: sampled blocks, their operators, input rows, device ids, targets,
  // loss rows 0 .. seeds-1 (a batch's arrays live until the next batch)
  SamplerWorkspace<memory_space> sampler_ws_[2]; // by batch parity
  std::vector<BlockOperatorWorkspace<Scalar, memory_space>> block_ws_;
  GrowingMatrix<matrix_type> x_ws_;
  Kokkos::View<std::int64_t *, memory_space> loss_rows_;
  TargetsWorkspace<ExecutionSpace> targets_ws_;
};

/// The device copy of the dataset's targets: multilabels when it has them, else labels.
template <class ExecutionSpace>
NodeTargets<ExecutionSpace> device_targets(Dataset<std::int32_t> const &data, NodeMetric metric) {
  using memory_space = typename ExecutionSpace::memory_space;
  if (data.is_multilabel())
    return NodeTargets<ExecutionSpace>(
        Kokkos::create_mirror_view_and_copy(memory_space(), data.multilabels,
                                            "ttgnn::minibatch::multilabels"),
        metric);
  NodeTargets<ExecutionSpace> out(
      Kokkos::create_mirror_view_and_copy(memory_space(), data.labels, "ttgnn::minibatch::labels"));
  out.metric = metric; // accuracy, or ROC-AUC of a binary task
  return out;
}

/// Everything later epochs depend on (see the header); the shuffle and the sampled blocks
/// are functions of (seed, epoch, batch) and need no state.
template <class Model, class Input>
std::string minibatch_fingerprint(Dataset<std::int32_t> const &data, MinibatchTrainOptions const &o,
                                  Model const &model, Input const &input, NodeMetric metric) {
  std::string fanouts;
  for (auto k : o.fanouts)
    fanouts += (fanouts.empty() ? "" : ",") + std::to_string(k);
  return training_fingerprint(model, to_string(o.input.kind) + " tt=" + input.shape_string(),
                              input.parameters(), o.optimizer) +
         " batch=" + std::to_string(o.batch_size) +
         " max_batches=" + std::to_string(o.max_batches) + " fanouts=" + fanouts +
         " seed=" + std::to_string(o.seed) + " metric=" + to_string(metric) +
         " nodes=" + std::to_string(data.num_nodes()) + "/" + std::to_string(data.train.extent(0)) +
         "/" + std::to_string(data.valid.extent(0)) + "/" + std::to_string(data.test.extent(0)) +
         (o.fingerprint.empty() ? "" : " | " + o.fingerprint);
}

/// The selected model's predictions and embedding rows, where the options ask for them.
template <class ExecutionSpace, class Input>
void write_minibatch_outputs(ExecutionSpace const &space, Dataset<std::int32_t> const &data,
                             MinibatchTrainOptions const &o,
                             SampledBlockSource<ExecutionSpace> &source, Input &input) {
  using Scalar = typename SampledBlockSource<ExecutionSpace>::Scalar;
  Communicator const &comm = o.communicator;
  const auto order = o.output_order; // empty: the identity (models/embedding/embedding_export.hpp)
  if (!o.predictions_path.empty()) {
    const auto logits = source.all_logits(space); // every rank: the inference is collective-free
    if (comm.rank() == 0)
      write_matrix_npy(o.predictions_path, logits, order);
  }
  if (!o.embeddings_path.empty() && comm.rank() == 0)
    write_node_rows_npy<Scalar>(
        space, o.embeddings_path, order, data.num_nodes(), input.options().dim,
        [&input](ExecutionSpace const &s, auto const &ids, auto const &out) {
          input.lookup_embedding(s, ids, out);
        },
        o.eval_chunk > 0 ? o.eval_chunk : layerwise_default_chunk);
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

template <class ExecutionSpace>
MinibatchResult train_minibatch(ExecutionSpace const &space, Dataset<std::int32_t> const &data,
                                MinibatchTrainOptions const &o,
                                Kokkos::View<const std::int64_t *, Kokkos::HostSpace> rows,
                                std::int64_t num_rows) {
  using Scalar = float;
  using input_type = MinibatchInput<Scalar, ExecutionSpace>;
  namespace md = minibatch_detail;
  check_options(data, o);
  const AdamOptions embedding_optimizer = embedding_optimizer_options(o);
  // the input's initialisation (tables, spectral init) and the model's: ends once both exist
  std::optional<Kokkos::Profiling::ScopedRegion> init_region(std::in_place,
                                                             "ttgnn::minibatch::init");
  input_type input(space, data, o.input, embedding_optimizer, rows, num_rows);
  GnnModel<Scalar, ExecutionSpace, std::int32_t> model(sage_config(o, data, input.dim()));
  init_region.reset();

  const NodeMetric metric =
      o.metric.empty() ? dataset_metric(data.eval_metric, data.is_multilabel(), data.num_classes)
                       : resolve_metric(o.metric, data.is_multilabel(), data.num_classes);
  const NodeTargets<ExecutionSpace> targets = md::device_targets<ExecutionSpace>(data, metric);
  md::SampledBlockSource<ExecutionSpace> source(space, data, o, model, input, targets);
  TrainingLoop<Scalar, ExecutionSpace, std::int32_t, input_type> loop(
      space, model, input, o, o.eval_nodes == EvalNodes::test ? Selection::every : Selection::valid,
      CheckpointIdentity{"ttgnn-minibatch-trainer", "mini-batch trainer",
                         md::minibatch_fingerprint(data, o, model, input, metric)},
      o.communicator);

  Communicator const &comm = o.communicator;
  const md::CommStart comm_start{comm.bytes(), comm.seconds()};
  MinibatchResult result;
  std::optional<AllocationTracker> allocations; // what training allocates, under a budget
  if (o.memory_budget > 0 && !o.evaluate_only) {
    result.memory_plan = md::plan_memory(model, input, data, o);
    allocations.emplace();
  }
  static_cast<TrainResult &>(result) =
      o.evaluate_only ? loop.evaluate_checkpoint(source, o.checkpoint_path) : loop.run(source);
  if (allocations) {
    result.memory_plan.recompute_s = model.recompute_seconds();
    result.memory_plan.training_allocations_mb = double(allocations->peak_bytes()) / 1048576.0;
    allocations.reset();
  }
  md::write_minibatch_outputs(space, data, o, source, input);
  md::record_run_figures(result, comm, comm_start, metric, model, input, source, loop);
  md::record_run_memory(result, data, targets, model, input, source, loop);
  return result;
}

#define TTGNN_INSTANTIATE_MINIBATCH(SPACE)                                                         \
  template MinibatchResult train_minibatch<SPACE>(                                                 \
      SPACE const &, Dataset<std::int32_t> const &, MinibatchTrainOptions const &,                 \
      Kokkos::View<const std::int64_t *, Kokkos::HostSpace>, std::int64_t);
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
