#ifndef TTGNN_MODELS_MINIBATCH_TRAINER_HPP
#define TTGNN_MODELS_MINIBATCH_TRAINER_HPP
/// \file minibatch_trainer.hpp
/// \brief Mini-batch GraphSAGE training with neighbour sampling (the ogbn-products and
/// ogbn-papers100M recipe of METHOD.md §4): each epoch shuffles the training nodes (seeded),
/// cuts them into batches, samples one block per layer (graph/neighbor_sampler.hpp), runs
/// SampledSage forward/backward on the blocks with only the batch's input rows gathered or
/// looked up (models/embedding/minibatch_input.hpp), and steps Adam/AdamW on the GNN and the
/// embedding's own optimizer. Evaluation is layer-wise full-neighbour inference over all nodes
/// (models/train/layerwise_inference.hpp: the input rows are produced per chunk, never as an N x d
/// matrix), or inference of the valid and/or test nodes only from their L-hop neighbourhoods
/// (models/train/subset_inference.hpp: exact with all neighbours, or sampled with eval_fanouts).
///
/// Targets as the full-batch trainer's (models/loss/node_targets.hpp): single-label classes or,
/// when the dataset has multilabels, binary tasks with sigmoid binary cross-entropy; the
/// `*_acc` fields hold the dataset's metric (MinibatchTrainOptions::metric).
///
/// The epochs, model selection (the evaluated epoch with the best validation metric; ties keep
/// the earlier epoch; with test-only evaluation every evaluation), early stopping (`patience`
/// evaluations without improvement), the learning-rate schedule, the stop on non-finite values
/// and checkpoints are the training loop's (models/train/training_loop.hpp), shared with full-batch
/// training; this file is its batch source: each epoch's shuffle and sampled blocks are
/// functions of (seed, epoch, batch), so a run resumed from epoch k reaches bitwise the result
/// of an uninterrupted one (same seed and thread count). The embedding's optimizer is the
/// input's (MinibatchInput: row-sparse Adam for a full table, Adam on the TT cores).
///
/// Data parallelism (MinibatchTrainOptions::communicator with P > 1 ranks, docs/DISTRIBUTED.md):
/// every rank holds the whole graph, the model and the embedding; rank r takes the r-th of P
/// contiguous slices of each global batch of seeds, samples and runs its slice, and scales its
/// loss gradient by (its seeds / batch seeds); the dense gradients (GNN and TT cores) are
/// summed with one all-reduce per step, the full table's touched rows are exchanged and summed
/// per row, then every rank takes the same optimizer step. The sampler's streams are per
/// (epoch, batch, layer, node) and the dropout masks are keyed by global node id (also on one
/// rank), so P ranks reach the parameters of one process with the same batch size and seed up
/// to floating-point summation order. BatchNorm (batch statistics) is refused with P > 1.
/// The training loss is reduced over the ranks; evaluation runs on every rank (identical
/// replicas give identical scores); only rank 0 writes checkpoints, and on resume every rank
/// reads the checkpoint file (it must be visible to all ranks).

#include "core/runtime/communicator.hpp"
#include "core/runtime/memory_breakdown.hpp"
#include "core/runtime/peak_memory.hpp" // peak_rss_mb, reported in MinibatchResult
#include "graph/dataset.hpp"
#include "models/gnn_model.hpp"
#include "models/layers/gnn_config.hpp"
#include "models/memory/memory_plan.hpp"
#include "models/embedding/minibatch_input.hpp"
#include "models/loss/node_metric.hpp"
#include "models/loss/node_targets.hpp"
#include "models/train/eval_nodes.hpp"
#include "models/train/train_options.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ttgnn {

/// \brief Settings of train_minibatch: those of every trainer (TrainOptions: epochs, optimizer,
/// learning rates and weight decays of the GNN and of the embedding, schedule, patience,
/// checkpoints, model selection), here with the defaults of the mini-batch recipe, and what only
/// mini-batch training has: the GraphSAGE stack, the input, sampling, evaluation and outputs.
struct MinibatchTrainOptions : TrainOptions {
  MinibatchTrainOptions() {
    epochs = 20;
    lr = 0.003;
    weight_decay = 0;
  }
  /// The GraphSAGE stack: num_layers (= number of fan-outs), hidden, dropout (after each hidden
  /// ReLU), input_dropout, batch_norm, residual. Its kind, in_features, out_features and seed are
  /// set by train_minibatch (sage, the input's width, the classes, `seed`).
  GnnConfig model = default_model();
  InputKind input = InputKind::features; ///< feat, emb, tt or feat+tt
  /// The embedding table of emb / tt / feat+tt (width, TT shape, initialisation, backward
  /// mode); its learning rate and weight decay are TrainOptions' embedding_lr and
  /// embedding_weight_decay. tt_rank 0 is resolved_tt_rank's default for the split.
  EmbeddingConfig embedding;
  // Sampling.
  std::vector<std::int64_t> fanouts{5, 10, 15}; ///< input layer first (DGL order)
  std::int64_t batch_size = 1000;
  // Evaluation.
  int eval_every = 1;          ///< evaluate every this many epochs (and after the last)
  std::int64_t eval_chunk = 0; ///< rows per chunk of layer-wise inference (0: layerwise_auto_chunk)
  /// all: layer-wise over every node (train, valid, test metrics); valid_test / test: those
  /// nodes only (the train metric is -1; with test only the valid metric too, and each
  /// evaluation is selected: the last one is kept, early stopping is off).
  EvalNodes eval_nodes = EvalNodes::all;
  /// Fan-outs of subset evaluation, input layer first (empty, or every entry <= 0: all
  /// neighbours, exact: equal to layer-wise inference on those nodes).
  std::vector<std::int64_t> eval_fanouts;
  std::int64_t eval_batch_size = 0; ///< nodes per batch of subset evaluation (0: batch_size)
  bool evaluate = true;             ///< false: train only (benchmarks)
  /// Batches per epoch (0: all). Benchmarks time a prefix of the epoch and extrapolate.
  std::int64_t max_batches = 0;
  /// Bytes the whole run may hold (0: no budget): every training step is planned within what
  /// is resident before the first one and a bound on any batch's blocks
  /// (graph/sampled_block_bounds.hpp) leave (models/memory/memory_plan.hpp); ConfigError
  /// before training when no schedule fits.
  std::int64_t memory_budget = 0;
  /// Called once before training with the memory plan's lines (under memory_budget).
  std::function<void(std::string const &)> log_plan;
  std::uint64_t seed = 0; ///< shuffles, sampled blocks, weights and dropout masks
  /// Metric of evaluation and selection: empty (the dataset's eval_metric when it fits, else
  /// accuracy, or ROC-AUC for multi-label targets: dataset_metric), or one that fits the
  /// targets (resolve_metric, models/loss/node_metric.hpp).
  std::optional<NodeMetric> metric;
  /// No training: load checkpoint_path, restore its selected parameters, evaluate them once
  /// (the history is the checkpoint's) and write the outputs below.
  bool evaluate_only = false;
  // Outputs of the selected model, float32 .npy in the order of output_order (row v = node
  // output_order(v); empty: node v). Written by rank 0.
  std::string predictions_path; ///< logits of every node (layer-wise inference), "" = none
  std::string embeddings_path;  ///< embedding rows of every node (emb, tt, feat+tt), "" = none
  Kokkos::View<const std::int64_t *, Kokkos::HostSpace> output_order;
  /// Ranks of data-parallel training (see the file comment); serial by default.
  Communicator communicator;

  /// The recipe's GraphSAGE stack: 3 layers of width 256, dropout 0.5 between them.
  static GnnConfig default_model() {
    GnnConfig m;
    m.kind = GnnKind::sage;
    m.num_layers = 3;
    m.hidden = 256;
    m.dropout = 0.5;
    m.input_dropout = 0;
    return m;
  }
};

/// \brief Result of train_minibatch: the history and selected scores of the training loop
/// (models/train/training_loop.hpp; the records carry batches, sampling time, sampled edges and
/// input rows; TrainResult gives the median epoch and evaluation times), and what the run measured.
struct MinibatchResult : TrainResult {
  std::int64_t gnn_params = 0, embedding_params = 0;
  double compression = 0;             ///< embedding compression (0 without an embedding)
  std::string tt_shape;               ///< TT shape, "" without TT
  std::int64_t batches_per_epoch = 0; ///< full epoch (before max_batches)
  std::string metric = "acc";         ///< the metric of the *_acc fields
  double batch_time_s = 0;            ///< median over all batches of all epochs
  double peak_rss_mb = 0;
  /// Peak RSS and what the run held, by part (core/runtime/memory_breakdown.hpp): graph (CSR and
  /// the evaluation operator), features, table or TT cores, optimizer moments, GNN parameters,
  /// activations (the largest training-batch workspace of the model, its largest input
  /// rows, the loss and input gradients and the input's lookup buffers), sampler (scratch and
  /// largest batch), evaluation (the capacity of its workspaces, kept between evaluations:
  /// layer-wise inference's N-row matrices and chunk buffers, or subset inference's batches and
  /// output; the evaluated nodes' targets, the metric's and the validation loss's buffers).
  MemoryBreakdown memory;
  MemoryPlan memory_plan; ///< under memory_budget (budget_mb > 0)
  // Data parallelism (0 on one rank, where nothing is communicated).
  int ranks = 1;                     ///< ranks of the communicator
  double comm_bytes_per_step = 0;    ///< bytes this rank handed to MPI per optimizer step
  double comm_seconds_per_step = 0;  ///< time in those collectives per step (waits included)
  std::int64_t allreduce_values = 0; ///< dense gradient values summed per step
};

/// \brief Mini-batch training of built objects, as FullBatchTrainer: a GraphSAGE model and a
/// MinibatchInput trained in place on the graph and split of \p data, scored against given
/// targets. The batch source (sampled_block_source.hpp) and the training loop live inside.
template <class ExecutionSpace> class MinibatchTrainer {
public:
  using Scalar = float;
  using model_type = GnnModel<Scalar, ExecutionSpace, std::int32_t>;
  using input_type = MinibatchInput<Scalar, ExecutionSpace>;
  using targets_type = NodeTargets<ExecutionSpace>;
  using matrix_type = Matrix<Scalar, ExecutionSpace>;

  /// \param data the graph the batches are sampled from and the split (kept by reference, as
  /// \p model and \p input: they must outlive the trainer)
  /// \param model a GraphSAGE stack with one fan-out per layer (options.model is replaced by
  /// its config)
  /// \param input its first-layer rows; its optimizer is (re)set from \p options
  /// (embedding_lr, embedding_weight_decay, optimizer)
  /// \param targets of every node (device_targets), with the metric of evaluation and selection
  /// Throws ConfigError for inconsistent options (fan-outs vs layers, empty split ...).
  MinibatchTrainer(ExecutionSpace const &space, Dataset<std::int32_t> const &data,
                   model_type &model, input_type &input, targets_type targets,
                   MinibatchTrainOptions options);
  ~MinibatchTrainer();
  MinibatchTrainer(MinibatchTrainer const &) = delete;
  MinibatchTrainer &operator=(MinibatchTrainer const &) = delete;

  MinibatchTrainOptions const &options() const;
  /// \brief Under options.memory_budget: sets the model's activation budget for every batch
  /// (what is resident now and a bound on any batch's blocks leave) and returns the plan;
  /// ConfigError when no schedule fits. Nothing without a budget.
  MemoryPlan plan_memory();
  /// \brief Trains (resuming first when asked and a checkpoint exists), then restores the
  /// selected parameters. Returns the history and the selected epoch's scores.
  TrainResult train();
  /// \brief No training: the selected parameters of checkpoint \p path evaluated once (the
  /// history is the checkpoint's); they stay in the model.
  TrainResult evaluate_checkpoint(std::string const &path);
  /// \brief Logits of every node in evaluation mode (layer-wise full-neighbour inference).
  matrix_type predict();
  /// \brief \p r with what the run measured: sizes, batch times, memory by part, the memory
  /// plan, communication per step.
  MinibatchResult report(TrainResult const &r) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// \brief Builds the input (options.input, options.embedding, \p rows), the GraphSAGE model
/// (options.model) and the targets, trains them with MinibatchTrainer, and writes
/// options.predictions_path / embeddings_path; see the file comment.
/// \param data dataset with a split (train/valid/test non-empty; labels of those nodes set)
/// \param rows optional node -> embedding row map (ordering with holes), \param num_rows its range
/// Progress: options.on_epoch after every epoch.
/// Throws ConfigError for inconsistent options (fan-outs vs layers, empty split ...).
template <class ExecutionSpace>
MinibatchResult train_minibatch(ExecutionSpace const &space, Dataset<std::int32_t> const &data,
                                MinibatchTrainOptions const &options,
                                Kokkos::View<const std::int64_t *, Kokkos::HostSpace> rows = {},
                                std::int64_t num_rows = 0);

} // namespace ttgnn

#endif
