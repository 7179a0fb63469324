#ifndef TTGNN_MODELS_TRAIN_SAMPLED_BLOCK_SOURCE_HPP
#define TTGNN_MODELS_TRAIN_SAMPLED_BLOCK_SOURCE_HPP
/// \file sampled_block_source.hpp
/// \brief The batch source of mini-batch training (models/train/training_loop.hpp): each epoch
/// shuffles the training nodes (seeded by (seed, epoch)), cuts them into batches, takes this
/// rank's slice of each, samples its blocks on the training space (graph/neighbor_sampler.hpp:
/// the sampler, its scratch and the blocks live in the space's memory; on a device the next
/// batch is sampled on a stream of its own while the current one trains), builds the blocks'
/// mean operators and looks up the batch's input rows. Evaluation: layer-wise full-neighbour
/// inference over every node (layerwise_inference.hpp), or the valid/test nodes from their
/// L-hop neighbourhoods (subset_inference.hpp). Every buffer is grow-only, evaluation's
/// included (kept from one evaluation to the next): once the batches' sizes are covered an
/// epoch allocates nothing. Under a memory budget, whose plan counts a training step and an
/// evaluation as not resident together, evaluation frees its buffers (and the input its last
/// batch's lookup plan) instead, and allocates them again the next time.

#include "core/counter_rng.hpp"
#include "core/runtime/byte_ledger.hpp"
#include "core/runtime/grow_only.hpp"
#include "graph/dataset.hpp"
#include "graph/neighbor_sampler.hpp"
#include "models/embedding/minibatch_input.hpp"
#include "models/gnn_model.hpp"
#include "models/layers/block_operator.hpp"
#include "models/loss/node_targets.hpp"
#include "models/train/gradient_allreduce.hpp"
#include "models/train/layerwise_inference.hpp"
#include "models/train/minibatch_trainer.hpp"
#include "models/train/subset_inference.hpp"
#include "models/train/training_loop.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace ttgnn {

// Named, not anonymous: nvcc wants the enclosing function of a device lambda to be addressable.
namespace minibatch_detail {

constexpr std::uint64_t kShuffleDomain = 0x73687566666C65ULL; // "shuffle"
/// Names the sampler's streams of subset evaluation (training epochs are 1, 2, ...): the same
/// blocks at every evaluation.
constexpr std::uint64_t kEvalStream = 0x6576616C756174ULL; // "evaluat"

using HostIds = Kokkos::View<std::int64_t *, Kokkos::HostSpace>;

/// \p out = the training nodes of epoch \p epoch in a seeded random order (Fisher-Yates);
/// allocated on the first call only.
inline void shuffle_into(HostIds const &train, std::uint64_t seed, std::uint64_t epoch,
                         HostIds &out) {
  const std::int64_t n = static_cast<std::int64_t>(train.extent(0));
  reserve_entries(out, n, "ttgnn::minibatch::order");
  Kokkos::deep_copy(out, train);
  CounterRng rng(seed, kShuffleDomain, epoch);
  for (std::int64_t i = n - 1; i > 0; --i)
    std::swap(out(i), out(static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(i + 1)))));
}

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
      const auto summed = allreduce_sparse_rows<Scalar>(
          space, comm, table->sparse_ids(), table->sparse_rows(), input_.embedding_dim());
      input_.set_sparse_gradient(summed.ids, summed.rows);
    }
  }

  bool evaluates(int epoch) const {
    return o_.evaluate && (epoch % o_.eval_every == 0 || epoch == o_.epochs);
  }

  EvalResult evaluate(ExecutionSpace const &space) {
    const bool budget = o_.memory_budget > 0; // see the file comment
    if (budget) // the last batch's lookup plan is not needed again: evaluation runs without it
      released_input_bytes_ = std::max(released_input_bytes_, input_.release_workspace());
    model_.set_training(false);
    const EvalResult r =
        o_.eval_nodes == EvalNodes::all ? evaluate_all(space) : evaluate_subset(space);
    model_.set_training(true);
    eval_peak_bytes_ = std::max(eval_peak_bytes_, eval_workspace_bytes());
    if (budget) {
      layerwise_ws_.release();
      subset_ws_.release();
      scores_ws_ = {};
      eval_loss_ = {};
    }
    return r;
  }

  std::int64_t allreduce_values() const { return gradient_sum_.size(); }

  /// Logits of every node in evaluation mode (layer-wise full-neighbour inference), in the
  /// layer-wise workspace: valid until the next evaluation or call.
  matrix_type all_logits(ExecutionSpace const &space) {
    if (!full_)
      full_ = std::make_unique<FullGraphMean<ExecutionSpace, std::int32_t>>(
          FullGraphMean<ExecutionSpace, std::int32_t>::build(space, data_.graph, &graph_));
    const bool training = model_.training();
    model_.set_training(false);
    matrix_type logits = sage_layerwise_inference(space, model_, *full_, input_rows(),
                                                  o_.eval_chunk, nullptr, &layerwise_ws_);
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
  /// Evaluation's buffers: the most their capacity reached (layer-wise or subset inference's
  /// workspace, the evaluated nodes and their targets, the metric's and the validation loss's
  /// buffers), and the model's workspace beyond its training peak when evaluation batches grew
  /// it. The evaluation sampler's per-node scratch is the training sampler's (sampler_bytes()).
  std::int64_t eval_bytes() const {
    return std::max(eval_peak_bytes_, eval_workspace_bytes()) + eval_model_bytes_;
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
        node_scores(space, logits, targets_, {train_, valid_, test_}, &scores_ws_);
    EvalResult r{scores[0], scores[1], scores[2], -1};
    r.valid_loss = eval_loss_.forward(space, logits, targets_, valid_);
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
    if (!subset_nodes_ready_) { // the same nodes at every evaluation
      HostIds nodes(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::minibatch::eval"),
                    nv + nt);
      for (std::int64_t i = 0; i < nv; ++i)
        nodes(i) = data_.valid(i);
      for (std::int64_t i = 0; i < nt; ++i)
        nodes(nv + i) = data_.test(i);
      subset_nodes_ = Kokkos::create_mirror_view_and_copy(memory_space(), nodes,
                                                          "ttgnn::minibatch::eval_nodes");
      subset_targets_ = gather_targets(space, targets_, subset_nodes_, nv + nt);
      subset_local_ = Kokkos::View<std::int64_t *, memory_space>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::minibatch::eval_local"), nv + nt);
      detail::fill_iota(space, subset_local_);
      subset_nodes_ready_ = true;
    }
    SubsetInferenceMemory sm;
    const matrix_type logits = sage_subset_inference(
        space, model_, *eval_sampler_, input_rows(), subset_nodes_,
        o_.eval_batch_size > 0 ? o_.eval_batch_size : o_.batch_size, kEvalStream, &sm, &subset_ws_);
    // the model's buffers are resized in place: the part the training peak (activations_mb)
    // already counts is not counted twice
    eval_model_bytes_ =
        std::max(eval_model_bytes_, sm.max_model_bytes - model_.peak_workspace_bytes());
    const ids_type local_valid =
        Kokkos::subview(subset_local_, std::make_pair(std::int64_t(0), nv));
    const ids_type local_test = Kokkos::subview(subset_local_, std::make_pair(nv, nv + nt));
    const std::vector<double> scores =
        node_scores(space, logits, subset_targets_, {local_valid, local_test}, &scores_ws_);
    EvalResult r;
    r.test_acc = scores[1];
    if (with_valid) {
      r.valid_acc = scores[0];
      r.valid_loss = eval_loss_.forward(space, logits, subset_targets_, local_valid);
    }
    return r;
  }

  /// Bytes evaluation's buffers hold now (see eval_bytes).
  std::int64_t eval_workspace_bytes() const {
    ByteLedger ledger;
    layerwise_ws_.add_workspace(ledger);
    subset_ws_.add_workspace(ledger);
    scores_ws_.add_workspace(ledger);
    eval_loss_.add_workspace(ledger);
    ledger.add(subset_nodes_).add(subset_local_);
    if (subset_targets_.is_multilabel()) // the gathered ones (the other is the dataset's)
      ledger.add(subset_targets_.multilabels);
    else
      ledger.add(subset_targets_.labels);
    return ledger.bytes();
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
  // evaluation's buffers, kept from one evaluation to the next (grow-only)
  LayerwiseWorkspace<Scalar, ExecutionSpace> layerwise_ws_;
  SubsetInferenceWorkspace<Scalar, ExecutionSpace> subset_ws_;
  NodeScoresWorkspace<Scalar, ExecutionSpace> scores_ws_;
  NodeLoss<Scalar, ExecutionSpace> eval_loss_;
  // subset evaluation's nodes (valid, then test), their targets and their rows 0 .. n-1
  bool subset_nodes_ready_ = false;
  ids_type subset_nodes_;
  NodeTargets<ExecutionSpace> subset_targets_;
  Kokkos::View<std::int64_t *, memory_space> subset_local_;
  std::int64_t eval_peak_bytes_ = 0;  // the most eval_workspace_bytes() after an evaluation
  std::int64_t eval_model_bytes_ = 0; // the model's workspace beyond its training peak
  std::int64_t released_input_bytes_ = 0;
  // grow-only batch buffers: sampled blocks, their operators, input rows, device ids, targets,
  // loss rows 0 .. seeds-1 (a batch's arrays live until the next batch)
  SamplerWorkspace<memory_space> sampler_ws_[2]; // by batch parity
  std::vector<BlockOperatorWorkspace<Scalar, memory_space>> block_ws_;
  GrowingMatrix<matrix_type> x_ws_;
  Kokkos::View<std::int64_t *, memory_space> loss_rows_;
  TargetsWorkspace<ExecutionSpace> targets_ws_;
};

} // namespace minibatch_detail

} // namespace ttgnn

#endif
