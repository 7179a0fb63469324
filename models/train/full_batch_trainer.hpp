#ifndef TTGNN_MODELS_FULL_BATCH_TRAINER_HPP
#define TTGNN_MODELS_FULL_BATCH_TRAINER_HPP
/// \file full_batch_trainer.hpp
/// \brief Full-batch training of a GnnModel over a NodeInput on one graph operator: the
/// training skeleton (models/train/training_loop.hpp: selection, early stopping, schedule,
/// non-finite stops, checkpoints) over the whole graph (models/train/whole_graph_source.hpp).
///
/// Every epoch: one training step (training mode, loss on the training nodes, backward into the
/// GNN and the embedding, one Adam/AdamW step each: the GNN's optimizer is the loop's, the
/// embedding's is the input's, set up here from TrainOptions so that the embedding may have its
/// own learning rate and weight decay), then an evaluation pass (evaluation mode) giving the
/// dataset's metric on train/valid/test and the validation loss. The targets
/// (models/loss/node_targets.hpp) are single-label classes (softmax cross-entropy, accuracy) or
/// multi-label binary tasks (sigmoid binary cross-entropy, ROC-AUC or micro/macro-F1); the
/// `*_acc` fields of the records hold that metric. Model selection on the validation metric
/// (the training metric without validation nodes).

#include "core/error.hpp"
#include "core/runtime/byte_ledger.hpp"
#include "core/runtime/memory_breakdown.hpp"
#include "models/gnn_model.hpp"
#include "models/embedding/node_input.hpp"
#include "models/loss/node_targets.hpp"
#include "models/train/training_common.hpp"
#include "models/train/training_loop.hpp"
#include "models/train/training_report.hpp"
#include "models/train/whole_graph_source.hpp"

#include <Kokkos_Core.hpp>

#include <string>
#include <vector>

namespace ttgnn {

/// \brief Full-batch trainer (see the file comment).
template <class Scalar, class ExecutionSpace, class Ordinal = std::int32_t> class FullBatchTrainer {
public:
  using memory_space = typename ExecutionSpace::memory_space;
  using model_type = GnnModel<Scalar, ExecutionSpace, Ordinal>;
  using input_type = NodeInput<Scalar, ExecutionSpace>;
  using operator_type = GraphOperator<Scalar, ExecutionSpace, Ordinal>;
  using matrix_type = Matrix<Scalar, ExecutionSpace>;
  using targets_type = NodeTargets<ExecutionSpace>;
  using ids_type = Kokkos::View<const std::int64_t *, memory_space>;
  using source_type = WholeGraphSource<Scalar, ExecutionSpace, Ordinal>;
  using loop_type = TrainingLoop<Scalar, ExecutionSpace, Ordinal, input_type>;

  /// \param model, input trained in place (they must outlive the trainer); the input's
  /// optimizer is (re)set from \p options (embedding_lr, embedding_weight_decay)
  /// \param a the aggregation operator of every layer (gcn_norm or mean_aggregation)
  /// \param targets class of every node (a labels View converts) or multi-label targets
  /// \param train, valid, test node ids (train non-empty)
  FullBatchTrainer(ExecutionSpace const &space, model_type &model, input_type &input,
                   operator_type const &a, targets_type targets, ids_type train, ids_type valid,
                   ids_type test, TrainOptions options)
      : space_(space), model_(model), input_(input),
        source_(model, input, a, targets, train, valid, test),
        loop_(space, model, input, checked(model, input, train, options),
              valid.extent(0) > 0 ? Selection::valid : Selection::train,
              CheckpointIdentity{"ttgnn-full-batch-trainer", "full-batch trainer",
                                 make_fingerprint(model, input, source_, options)}) {
    AdamOptions emb;
    emb.lr = options.resolved_embedding_lr();
    emb.weight_decay = options.resolved_embedding_weight_decay();
    input.set_optimizer(space, emb, options.optimizer);
  }

  TrainOptions const &options() const { return loop_.options(); }
  double embedding_lr() const { return loop_.embedding_lr(); }

  /// \brief Trains (resuming first when asked and a checkpoint exists), then restores the
  /// selected parameters. Returns the history and the selected epoch's scores.
  TrainResult train() { return loop_.run(source_); }

  /// \brief No training: the selected parameters of checkpoint \p path evaluated once (the
  /// history is the checkpoint's); they stay in the model.
  TrainResult evaluate_checkpoint(std::string const &path) {
    return loop_.evaluate_checkpoint(source_, path);
  }

  /// \brief One training step (training mode): returns the loss; when it is finite, the
  /// gradients are computed and both optimizers step.
  double train_step() {
    model_.set_training(true);
    EpochRecord rec;
    return loop_.step(source_, source_.batch(space_, 0, 0, rec));
  }

  /// \brief Node i draws the dropout masks of node keys(i) (N entries, each < N; empty: its
  /// own). A relabelled graph trained with keys = the ids before the relabelling draws the
  /// masks of the graph as it was.
  void set_dropout_keys(ids_type keys) {
    if (keys.extent(0) > 0 &&
        static_cast<std::int64_t>(keys.extent(0)) != source_.graph_operator().num_rows)
      throw ConfigError("FullBatchTrainer::set_dropout_keys: " + std::to_string(keys.extent(0)) +
                        " keys for " + std::to_string(source_.graph_operator().num_rows) +
                        " nodes");
    source_.set_dropout_keys(keys);
  }

  /// \brief Evaluation-mode forward: the metric on the three node sets, validation loss.
  EvalResult evaluate() { return source_.evaluate(space_); }

  /// \brief Logits of every node in evaluation mode (N x classes; owned by the model).
  matrix_type const &predict() { return source_.predict(space_); }

  /// \brief What the trainer and the objects it trains hold, from the sizes of their Views
  /// (core/runtime/memory_breakdown.hpp): graph (the operator and its transpose, when distinct),
  /// features, table or TT cores with gradients, optimizer moments, GNN parameters and
  /// gradients, activations (the model's largest workspace after a training step, the input's
  /// rows, the loss gradient), evaluation (the metric's and the validation loss's buffers; the
  /// logits are the model's). The host graph and features the caller holds go into \p graph
  /// and \p features first (each allocation counts once); peak_rss_mb is set.
  MemoryBreakdown memory(ByteLedger graph = {}, ByteLedger features = {}) const {
    operator_type const &a = source_.graph_operator();
    graph.add(a.row_map).add(a.entries).add(a.values);
    graph.add(a.t_row_map).add(a.t_entries).add(a.t_values);
    // the model's input rows are the features (counted there) or the input's rows
    MemoryBreakdown m = training_memory(model_, input_, loop_, graph, features);
    m.eval_mb = to_mb(source_.eval_bytes());
    return m;
  }

  /// \brief Writes the whole training state after epoch \p epoch (atomically).
  void save_checkpoint(std::string const &path, int epoch) const {
    loop_.save_checkpoint(path, epoch);
  }
  /// \brief Restores the state saved by save_checkpoint; returns its epoch. InputError when
  /// the file is damaged, ConfigError when it belongs to another model or data.
  int load_checkpoint(std::string const &path) { return loop_.load_checkpoint(path); }
  /// \brief Puts the selected parameters (and BatchNorm statistics) back into the model.
  void restore_best() { loop_.restore_best(); }

  /// Every epoch so far (those of a loaded checkpoint included).
  std::vector<EpochRecord> const &history() const { return loop_.history(); }
  /// Epoch of the selected parameters (0: none yet).
  int best_epoch() const { return loop_.best_epoch(); }

  /// What must match between a checkpoint and the run resuming it.
  std::string fingerprint() const { return make_fingerprint(model_, input_, source_, options()); }

private:
  static std::string make_fingerprint(model_type const &model, input_type const &input,
                                      source_type const &source, TrainOptions const &options) {
    return training_fingerprint(model, to_string(input.kind()), input.parameters(),
                                options.optimizer) +
           " nodes=" + std::to_string(source.graph_operator().num_rows) + "/" +
           std::to_string(source.train_nodes().extent(0)) + "/" +
           std::to_string(source.valid_nodes().extent(0)) + "/" +
           std::to_string(source.test_nodes().extent(0)) +
           (options.fingerprint.empty() ? "" : " | " + options.fingerprint);
  }

  static TrainOptions checked(model_type const &model, input_type const &input,
                              ids_type const &train, TrainOptions options) {
    if (train.extent(0) == 0)
      throw ConfigError("FullBatchTrainer: no training nodes");
    if (input.dim() != model.config().in_features)
      throw ConfigError("FullBatchTrainer: the input gives " + std::to_string(input.dim()) +
                        " columns, the model expects " +
                        std::to_string(model.config().in_features));
    return options;
  }

  ExecutionSpace space_;
  model_type &model_;
  input_type &input_;
  source_type source_;
  loop_type loop_;
};

} // namespace ttgnn

#endif
