#ifndef TTGNN_MODELS_WHOLE_GRAPH_SOURCE_HPP
#define TTGNN_MODELS_WHOLE_GRAPH_SOURCE_HPP
/// \file whole_graph_source.hpp
/// \brief The batch source of full-batch training (models/train/training_loop.hpp): one batch per
/// epoch, the whole graph — every layer aggregates with the same operator, the first reads the
/// input rows of all nodes (NodeInput::forward_all), the loss averages over the training nodes —
/// and an evaluation-mode forward over the whole graph after every epoch giving the metric on
/// train/valid/test and the validation loss.

#include "core/runtime/byte_ledger.hpp"
#include "models/gnn_model.hpp"
#include "models/layers/graph_operator.hpp"
#include "models/embedding/node_input.hpp"
#include "models/loss/node_targets.hpp"
#include "models/train/training_loop.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <vector>

namespace ttgnn {

/// \brief The whole graph as the one batch of every epoch (see the file comment).
template <class Scalar, class ExecutionSpace, class Ordinal = std::int32_t> class WholeGraphSource {
public:
  using memory_space = typename ExecutionSpace::memory_space;
  using model_type = GnnModel<Scalar, ExecutionSpace, Ordinal>;
  using input_type = NodeInput<Scalar, ExecutionSpace>;
  using operator_type = GraphOperator<Scalar, ExecutionSpace, Ordinal>;
  using matrix_type = Matrix<Scalar, ExecutionSpace>;
  using targets_type = NodeTargets<ExecutionSpace>;
  using ids_type = Kokkos::View<const std::int64_t *, memory_space>;
  using batch_type = TrainingBatch<Scalar, ExecutionSpace, Ordinal>;

  /// \param model, input read in place (they must outlive the source)
  /// \param a the aggregation operator of every layer (gcn_norm or mean_aggregation)
  WholeGraphSource(model_type &model, input_type &input, operator_type const &a,
                   targets_type targets, ids_type train, ids_type valid, ids_type test)
      : model_(model), input_(input), a_(a), targets_(targets), train_(train), valid_(valid),
        test_(test) {}

  std::int64_t num_batches(int) const { return 1; }

  /// The whole graph, its input rows computed now (the features themselves without a table).
  batch_type batch(ExecutionSpace const &space, int, std::int64_t, EpochRecord &rec) {
    batch_type b;
    b.ops = {a_};
    b.x = input_.forward_all(space);
    // a looked-up copy is looked up again every step; a table that is the input is not scratch
    b.x_scratch = input_.has_embedding() && !input_.table_is_input();
    b.grad_x = input_.input_gradient();
    b.targets = targets_;
    if (dropout_keys_.extent(0) > 0)
      b.dropout_keys.assign(model_.config().num_layers, dropout_keys_);
    b.loss_rows = train_;
    b.seeds = b.batch_seeds = static_cast<std::int64_t>(train_.extent(0));
    rec.input_rows += input_.has_embedding() ? input_.num_nodes() : 0;
    return b;
  }

  /// Nothing to prepare: the one batch is the whole graph.
  void prepare(int, std::int64_t, EpochRecord &) const {}
  void sum_gradients(ExecutionSpace const &) const {}
  bool evaluates(int) const { return true; }

  /// \brief Evaluation-mode forward: the metric on the three node sets, validation loss
  /// (-1 without validation nodes).
  EvalResult evaluate(ExecutionSpace const &space) {
    matrix_type const &logits = predict(space);
    EvalResult r;
    const std::vector<double> m =
        node_scores(space, logits, targets_, {train_, valid_, test_}, &scores_ws_);
    r.train_acc = m[0];
    r.valid_acc = m[1];
    r.test_acc = m[2];
    if (valid_.extent(0) > 0)
      r.valid_loss = eval_loss_.forward(space, logits, targets_, valid_);
    return r;
  }

  /// \brief Logits of every node in evaluation mode (N x classes; owned by the model).
  matrix_type const &predict(ExecutionSpace const &space) {
    model_.set_training(false);
    matrix_type const &logits = model_.forward(space, a_, input_.forward_all(space));
    model_.set_training(true);
    return logits;
  }

  /// Node i draws the dropout masks of node keys(i) (N entries; empty: node i's own), e.g. its
  /// id before a relabelling, so that relabelling the graph leaves the masks unchanged.
  void set_dropout_keys(ids_type keys) { dropout_keys_ = keys; }

  /// Bytes of the evaluation's own buffers (the metric's gathered rows, the validation loss's);
  /// the logits are the model's.
  std::int64_t eval_bytes() const {
    ByteLedger ledger;
    scores_ws_.add_workspace(ledger);
    eval_loss_.add_workspace(ledger);
    return ledger.bytes();
  }

  operator_type const &graph_operator() const { return a_; }
  ids_type const &train_nodes() const { return train_; }
  ids_type const &valid_nodes() const { return valid_; }
  ids_type const &test_nodes() const { return test_; }

private:
  model_type &model_;
  input_type &input_;
  operator_type a_;
  targets_type targets_;
  ids_type train_, valid_, test_;
  ids_type dropout_keys_;
  // kept: evaluation allocates nothing after the first
  NodeLoss<Scalar, ExecutionSpace> eval_loss_;
  NodeScoresWorkspace<Scalar, ExecutionSpace> scores_ws_;
};

} // namespace ttgnn

#endif
