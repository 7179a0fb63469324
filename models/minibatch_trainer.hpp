#ifndef TTGNN_MODELS_MINIBATCH_TRAINER_HPP
#define TTGNN_MODELS_MINIBATCH_TRAINER_HPP
/// \file minibatch_trainer.hpp
/// \brief Mini-batch GraphSAGE training with neighbour sampling (the ogbn-products and
/// ogbn-papers100M recipe of METHOD.md §4): each epoch shuffles the training nodes (seeded),
/// cuts them into batches, samples one block per layer (graph/neighbor_sampler.hpp), runs
/// SampledSage forward/backward on the blocks with only the batch's input rows gathered or
/// looked up (models/minibatch_input.hpp), and steps Adam/AdamW on the GNN and the embedding's
/// own optimizer. Evaluation is layer-wise full-neighbour inference over all nodes
/// (models/layerwise_inference.hpp: the input rows are produced per chunk, never as an N x d
/// matrix), or inference of the valid and/or test nodes only from their L-hop neighbourhoods
/// (models/subset_inference.hpp: exact with all neighbours, or sampled with eval_fanouts).
///
/// Targets as the full-batch trainer's (models/node_targets.hpp): single-label classes or,
/// when the dataset has multilabels, binary tasks with sigmoid binary cross-entropy; the
/// `*_acc` fields hold the dataset's metric (MinibatchTrainOptions::metric).
///
/// The epochs, model selection (the evaluated epoch with the best validation metric; ties keep
/// the earlier epoch; with test-only evaluation every evaluation), early stopping (`patience`
/// evaluations without improvement), the learning-rate schedule, the stop on non-finite values
/// and checkpoints are the training loop's (models/training_loop.hpp), shared with full-batch
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

#include "core/communicator.hpp"
#include "core/memory_breakdown.hpp"
#include "core/peak_memory.hpp" // peak_rss_mb, reported in MinibatchResult
#include "graph/dataset.hpp"
#include "models/minibatch_input.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ttgnn {

/// Which nodes evaluation computes: every node (layer-wise), or the valid and test nodes, or
/// the test nodes only (subset inference from their L-hop neighbourhoods).
enum class EvalNodes { all, valid_test, test };

/// "all", "valid+test", "test"; ConfigError otherwise.
EvalNodes parse_eval_nodes(std::string const &name);
std::string to_string(EvalNodes nodes);

/// \brief Settings of train_minibatch.
struct MinibatchTrainOptions {
  // Model.
  int num_layers = 3;         ///< SAGEConv layers (= number of fan-outs)
  std::int64_t hidden = 256;  ///< hidden width
  double dropout = 0.5;       ///< before every layer but the first (after each hidden ReLU)
  double input_dropout = 0.0; ///< before the first layer
  bool batch_norm = false;
  bool residual = false;       ///< hidden layers of equal width add their input
  MinibatchInputOptions input; ///< feat / emb / tt / feat+tt and the embedding's settings
  // Sampling.
  std::vector<std::int64_t> fanouts{5, 10, 15}; ///< input layer first (DGL order)
  std::int64_t batch_size = 1000;
  // Optimisation.
  int epochs = 20;
  double lr = 0.003;
  double weight_decay = 0;
  bool adamw = false;         ///< decoupled weight decay
  LrScheduleOptions schedule; ///< warm-up / plateau decay (observes the evaluations)
  // Evaluation and selection.
  int eval_every = 1; ///< evaluate every this many epochs (and after the last)
  int patience = 0;   ///< stop after this many evaluations without improvement (0: off)
  std::int64_t eval_chunk = 65536; ///< rows per chunk of layer-wise inference
  /// all: layer-wise over every node (train, valid, test metrics); valid_test / test: those
  /// nodes only (the train metric is -1; with test only the valid metric too, and each
  /// evaluation is selected: the last one is kept, early stopping is off).
  EvalNodes eval_nodes = EvalNodes::all;
  /// Fan-outs of subset evaluation, input layer first (empty, or every entry <= 0: all
  /// neighbours, exact: equal to layer-wise inference on those nodes).
  std::vector<std::int64_t> eval_fanouts;
  std::int64_t eval_batch_size = 0; ///< nodes per batch of subset evaluation (0: batch_size)
  bool evaluate = true;             ///< false: train only (benchmarks)
  /// Snapshot the parameters of the selected epoch and restore them at the end (costs one
  /// copy of the model and of the embedding).
  bool keep_best = true;
  /// Batches per epoch (0: all). Benchmarks time a prefix of the epoch and extrapolate.
  std::int64_t max_batches = 0;
  std::uint64_t seed = 0;
  /// Metric of evaluation and selection: "" (accuracy, or ROC-AUC for multi-label targets),
  /// acc, rocauc, f1_micro, f1_macro (models/classification_metrics.hpp).
  std::string metric;
  // Checkpoints (as TrainOptions of the full-batch trainer).
  std::string checkpoint_path; ///< "" = no checkpoints
  int checkpoint_every = 1;    ///< epochs between checkpoints (the last epoch is always saved)
  bool resume = false;         ///< continue from checkpoint_path when it exists
  /// Extra text stored in checkpoints that must match on resume (data and settings).
  std::string fingerprint;
  /// Settings of the whole run (models/run_config.hpp), stored in checkpoints unchecked so
  /// that a checkpoint can be evaluated alone (`ttgnn predict`).
  std::string run_config;
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
};

/// \brief Result of train_minibatch: the history and selected scores of the training loop
/// (models/training_loop.hpp; the records carry batches, sampling time, sampled edges and input
/// rows; TrainResult gives the median epoch and evaluation times), and what the run measured.
struct MinibatchResult : TrainResult {
  std::int64_t gnn_params = 0, embedding_params = 0;
  double compression = 0;             ///< embedding compression (0 without an embedding)
  std::string tt_shape;               ///< TT shape, "" without TT
  std::int64_t batches_per_epoch = 0; ///< full epoch (before max_batches)
  std::string metric = "acc";         ///< the metric of the *_acc fields
  double batch_time_s = 0;            ///< median over all batches of all epochs
  double peak_rss_mb = 0;
  /// Peak RSS and what the run held, by part (core/memory_breakdown.hpp): graph (CSR and the
  /// evaluation operator), features, table or TT cores, optimizer moments, GNN parameters,
  /// activations (the largest training-batch workspace of the model, its largest input
  /// rows, the loss and input gradients and the input's lookup buffers), sampler (scratch and
  /// largest batch), evaluation (largest N x width matrices and chunk buffers, the evaluation
  /// sampler).
  MemoryBreakdown memory;
  // Data parallelism (0 on one rank, where nothing is communicated).
  int ranks = 1;                     ///< ranks of the communicator
  double comm_bytes_per_step = 0;    ///< bytes this rank handed to MPI per optimizer step
  double comm_seconds_per_step = 0;  ///< time in those collectives per step (waits included)
  std::int64_t allreduce_values = 0; ///< dense gradient values summed per step
};

/// \brief Trains GraphSAGE on \p data with neighbour sampling; see the file comment.
/// \param data dataset with a split (train/valid/test non-empty; labels of those nodes set)
/// \param rows optional node -> embedding row map (ordering with holes), \param num_rows its range
/// Throws ConfigError for inconsistent options (fan-outs vs layers, empty split ...).
template <class ExecutionSpace>
MinibatchResult train_minibatch(ExecutionSpace const &space, Dataset<std::int32_t> const &data,
                                MinibatchTrainOptions const &options,
                                Kokkos::View<const std::int64_t *, Kokkos::HostSpace> rows = {},
                                std::int64_t num_rows = 0, EpochCallback const &progress = {});

} // namespace ttgnn

#endif
