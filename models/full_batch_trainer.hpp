#ifndef TTGNN_MODELS_FULL_BATCH_TRAINER_HPP
#define TTGNN_MODELS_FULL_BATCH_TRAINER_HPP
/// \file full_batch_trainer.hpp
/// \brief Full-batch training of a GnnModel over a NodeInput on one graph operator.
///
/// Every epoch: a training step (training mode, loss on the training nodes, backward into the
/// GNN and the embedding, one Adam/AdamW step each: separate optimizers so the embedding may
/// have its own learning rate and weight decay), then an evaluation pass (evaluation mode)
/// giving the dataset's metric on train/valid/test and the validation loss. The targets
/// (models/node_targets.hpp) are single-label classes (softmax cross-entropy, accuracy) or
/// multi-label binary tasks (sigmoid binary cross-entropy, ROC-AUC or micro/macro-F1); the
/// `*_acc` fields of the records hold that metric.
///
/// Model selection: the parameters of the epoch with the best validation metric are kept and
/// restored at the end; ties keep the earlier epoch (OGB's Logger and PyG's examples: a
/// strictly better validation score replaces the best). Early stopping: `patience` epochs
/// without such an improvement. Learning rate: base · LrSchedule::scale(epoch) for both
/// optimizers, the schedule observing the validation metric.
///
/// Non-finite values: a NaN/Inf training loss stops before the update; non-finite parameters
/// or validation loss after the update stop before the epoch is recorded or saved. Either way
/// the checkpoint file keeps the last good epoch and TrainResult::message says what happened.
///
/// Checkpoints (TrainOptions::checkpoint_path) hold everything the next epoch depends on:
/// parameters, BatchNorm statistics, both optimizers' moments and step counts, dropout
/// counters, the schedule, the selection state, the best parameters and the history; so a run
/// resumed from epoch k reaches bitwise the same parameters as an uninterrupted one (with the
/// deterministic kernels, at the same thread count). Temporary files of checkpoint writes
/// interrupted by a kill (core/atomic_file.hpp) are removed when training starts.

#include "core/error.hpp"
#include "core/atomic_file.hpp"
#include "core/byte_ledger.hpp"
#include "core/memory_breakdown.hpp"
#include "core/peak_memory.hpp"
#include "models/checkpoint.hpp"
#include "models/gnn_model.hpp"
#include "models/node_input.hpp"
#include "models/node_targets.hpp"
#include "models/training_common.hpp"

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace ttgnn {

/// \brief The metric (accuracy, or the multi-label metric) on the three node sets and the
/// validation loss of an evaluation pass.
struct EvalResult {
  double train_acc = 0, valid_acc = 0, test_acc = 0, valid_loss = 0;
};

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
  using view_type = Kokkos::View<Scalar *, memory_space>;
  using optimizer_type = TrainerAdam<Scalar, ExecutionSpace>;

  /// \param model, input trained in place (they must outlive the trainer)
  /// \param a the aggregation operator of every layer (gcn_norm or mean_aggregation)
  /// \param targets class of every node (a labels View converts) or multi-label targets
  /// \param train, valid, test node ids (train non-empty)
  FullBatchTrainer(ExecutionSpace const &space, model_type &model, input_type &input,
                   operator_type const &a, targets_type targets, ids_type train, ids_type valid,
                   ids_type test, TrainOptions options)
      : space_(space), model_(model), input_(input), a_(a), targets_(targets), train_(train),
        valid_(valid), test_(test), options_(std::move(options)), schedule_(options_.schedule) {
    if (train.extent(0) == 0)
      throw ConfigError("FullBatchTrainer: no training nodes");
    if (options_.epochs < 0 || options_.patience < 0 || options_.checkpoint_every < 1)
      throw ConfigError("FullBatchTrainer: need epochs >= 0, patience >= 0, checkpoint_every >= 1");
    if (input.dim() != model.config().in_features)
      throw ConfigError("FullBatchTrainer: the input gives " + std::to_string(input.dim()) +
                        " columns, the model expects " +
                        std::to_string(model.config().in_features));
    AdamOptions gnn;
    gnn.lr = options_.lr;
    gnn.weight_decay = options_.weight_decay;
    gnn_opt_ = std::make_unique<optimizer_type>(space, model.parameters(), model.gradients(), gnn,
                                                options_.optimizer);
    if (input.has_embedding()) {
      AdamOptions emb;
      emb.lr = embedding_lr();
      emb.weight_decay = options_.embedding_weight_decay >= 0 ? options_.embedding_weight_decay
                                                              : options_.weight_decay;
      emb_opt_ = std::make_unique<optimizer_type>(space, input.parameters(), input.gradients(), emb,
                                                  options_.optimizer);
    }
  }

  TrainOptions const &options() const { return options_; }
  double embedding_lr() const {
    return options_.embedding_lr >= 0 ? options_.embedding_lr : options_.lr;
  }

  /// \brief Trains (resuming first when asked and a checkpoint exists), then restores the
  /// selected parameters. Returns the history and the selected epoch's accuracies.
  TrainResult train() {
    TrainResult result;
    int start = 0;
    // A run killed while writing a checkpoint leaves its temporary file (never read: load()
    // opens only the path itself); clear such leftovers of earlier runs.
    if (!options_.checkpoint_path.empty())
      remove_stale_temporaries(options_.checkpoint_path);
    if (options_.resume && !options_.checkpoint_path.empty() &&
        checkpoint_exists(options_.checkpoint_path)) {
      start = load_checkpoint(options_.checkpoint_path);
      result.checkpoint_epoch = start;
    }
    result.first_epoch = start + 1;
    result.last_epoch = start;
    const int last = options_.epochs;
    for (int epoch = start + 1; epoch <= last && !stopped_; ++epoch) {
      if (options_.before_epoch)
        options_.before_epoch(epoch);
      const auto t0 = std::chrono::steady_clock::now();
      using clock = std::chrono::steady_clock;
      const double lr = options_.lr * schedule_.scale(epoch);
      gnn_opt_->set_learning_rate(lr);
      if (emb_opt_)
        emb_opt_->set_learning_rate(embedding_lr() * schedule_.scale(epoch));
      const double loss = train_step();
      space_.fence();
      const auto t_eval = clock::now();
      const double step_seconds = std::chrono::duration<double>(t_eval - t0).count();
      if (!std::isfinite(loss)) {
        stop_nonfinite(result, epoch, "the training loss is " + describe(loss));
        break;
      }
      const EvalResult ev = evaluate();
      if (!std::isfinite(ev.valid_loss) || !all_finite(space_, model_.parameters()) ||
          !all_finite(space_, input_.parameters())) {
        stop_nonfinite(result, epoch,
                       "the update made the " +
                           std::string(std::isfinite(ev.valid_loss)
                                           ? "parameters non-finite"
                                           : "validation loss " + describe(ev.valid_loss)));
        break;
      }
      space_.fence();
      const auto t_end = clock::now();
      EpochRecord rec{epoch,        loss,
                      ev.train_acc, ev.valid_acc,
                      ev.test_acc,  ev.valid_loss,
                      lr,           std::chrono::duration<double>(t_end - t0).count()};
      rec.train_seconds = step_seconds;
      rec.eval_seconds = std::chrono::duration<double>(t_end - t_eval).count();
      history_.push_back(rec);
      select(rec);
      schedule_.observe(epoch, has_valid() ? ev.valid_acc : ev.train_acc);
      if (options_.patience > 0 && bad_epochs_ >= options_.patience)
        stopped_ = true;
      result.last_epoch = epoch;
      if (!options_.checkpoint_path.empty() &&
          (epoch % options_.checkpoint_every == 0 || epoch == last || stopped_)) {
        save_checkpoint(options_.checkpoint_path, epoch);
        result.checkpoint_epoch = epoch;
      }
      if (options_.on_epoch)
        options_.on_epoch(rec);
    }
    if (stopped_ && result.stop == StopReason::completed)
      result.stop = StopReason::early_stopping;
    if (have_best_)
      restore_best();
    result.history = history_;
    result.best_epoch = best_epoch_;
    result.train_acc = best_.train_acc;
    result.valid_acc = best_.valid_acc;
    result.test_acc = best_.test_acc;
    result.valid_loss = best_.valid_loss;
    return result;
  }

  /// \brief One training step (training mode): returns the loss; when it is finite, the
  /// gradients are computed and both optimizers step.
  double train_step() {
    model_.set_training(true);
    matrix_type const &x = input_.forward_all(space_);
    matrix_type const &logits = model_.forward(space_, a_, x);
    const double loss = loss_.forward(space_, logits, targets_, train_);
    if (!std::isfinite(loss))
      return loss;
    detail::ensure_extents(grad_logits_, "ttgnn::trainer::grad_logits", logits.extent(0),
                           logits.extent(1));
    loss_.backward(space_, grad_logits_);
    gnn_opt_->zero_grad(space_);
    matrix_type gx;
    if (input_.has_embedding()) {
      emb_opt_->zero_grad(space_);
      input_.zero_grad(space_);
      detail::ensure_extents(grad_x_, "ttgnn::trainer::grad_x", x.extent(0), x.extent(1));
      gx = grad_x_;
    }
    model_.backward(space_, grad_logits_, gx);
    if (input_.has_embedding()) {
      input_.backward(space_, gx);
      emb_opt_->step(space_);
    }
    gnn_opt_->step(space_);
    return loss;
  }

  /// \brief What the trainer and the objects it trains hold, from the sizes of their Views
  /// (core/memory_breakdown.hpp): graph (the operator and its transpose, when distinct),
  /// features, table or TT cores with gradients, optimizer moments, GNN parameters and
  /// gradients, activations (the model's largest workspace after a training step, the input's
  /// rows, the loss gradient). The host graph and features the caller holds go into \p graph
  /// and \p features first (each allocation counts once); peak_rss_mb is set.
  MemoryBreakdown memory(ByteLedger graph = {}, ByteLedger features = {}) const {
    ByteLedger table, opt, params, work;
    graph.add(a_.row_map).add(a_.entries).add(a_.values);
    graph.add(a_.t_row_map).add(a_.t_entries).add(a_.t_values);
    input_.add_memory(features, table, work);
    opt.add_all(gnn_opt_->exp_avg()).add_all(gnn_opt_->exp_avg_sq());
    if (emb_opt_)
      opt.add_all(emb_opt_->exp_avg()).add_all(emb_opt_->exp_avg_sq());
    params.add_all(model_.parameters()).add_all(model_.gradients()).add_all(model_.buffers());
    work.add(grad_logits_).add(grad_x_);
    MemoryBreakdown m;
    m.peak_rss_mb = peak_rss_mb();
    m.graph_mb = to_mb(graph.bytes());
    m.features_mb = to_mb(features.bytes());
    m.table_mb = to_mb(table.bytes());
    m.optimizer_mb = to_mb(opt.bytes());
    m.parameters_mb = to_mb(params.bytes());
    // the model's input rows are the features (counted there) or the input's rows (in work)
    m.activations_mb = to_mb(model_.peak_workspace_bytes() + work.bytes());
    return m;
  }

  /// \brief Evaluation-mode forward: the metric on the three node sets, validation loss.
  EvalResult evaluate() {
    model_.set_training(false);
    matrix_type const &logits = model_.forward(space_, a_, input_.forward_all(space_));
    EvalResult r;
    const std::vector<double> m = node_scores(space_, logits, targets_, {train_, valid_, test_});
    r.train_acc = m[0];
    r.valid_acc = m[1];
    r.test_acc = m[2];
    if (has_valid()) {
      NodeLoss<Scalar, ExecutionSpace> eval_loss;
      r.valid_loss = eval_loss.forward(space_, logits, targets_, valid_);
    }
    model_.set_training(true);
    return r;
  }

  /// \brief Logits of every node in evaluation mode (N x classes; owned by the model).
  matrix_type const &predict() {
    model_.set_training(false);
    matrix_type const &logits = model_.forward(space_, a_, input_.forward_all(space_));
    model_.set_training(true);
    return logits;
  }

  /// \brief Writes the whole training state after epoch \p epoch (atomically).
  void save_checkpoint(std::string const &path, int epoch) const {
    Checkpoint ck;
    put_checkpoint_header(ck, "ttgnn-full-batch-trainer", fingerprint(), epoch);
    if (!options_.run_config.empty())
      ck.put_string("run_config", options_.run_config);
    save_model_state(ck, model_);
    save_views(ck, "input.param", input_.parameters());
    gnn_opt_->save(ck, "opt.gnn");
    if (emb_opt_)
      emb_opt_->save(ck, "opt.emb");
    ck.put("schedule", schedule_.state());
    ck.put("select",
           std::vector<double>{have_best_ ? 1.0 : 0.0, double(best_epoch_), best_.train_acc,
                               best_.valid_acc, best_.test_acc, best_.valid_loss,
                               double(bad_epochs_), stopped_ ? 1.0 : 0.0});
    if (have_best_)
      best_state_.save(ck);
    std::vector<double> hist, times;
    for (auto const &r : history_) {
      auto v = r.to_vector();
      hist.insert(hist.end(), v.begin(), v.end());
      times.push_back(r.train_seconds);
      times.push_back(r.eval_seconds);
    }
    ck.put("history", hist);
    ck.put("history_times", times);
    ck.save(path);
  }

  /// \brief Restores the state saved by save_checkpoint; returns its epoch. InputError when
  /// the file is damaged, ConfigError when it belongs to another model or data.
  int load_checkpoint(std::string const &path) {
    const Checkpoint ck = Checkpoint::load(path);
    const int epoch = check_checkpoint_header(ck, path, "ttgnn-full-batch-trainer",
                                              "full-batch trainer", fingerprint());
    load_model_state(ck, model_);
    load_views(ck, "input.param", input_.parameters());
    gnn_opt_->load(ck, "opt.gnn");
    if (emb_opt_)
      emb_opt_->load(ck, "opt.emb");
    schedule_.set_state(ck.get_f64("schedule"));
    const auto sel = ck.get_f64("select");
    if (sel.size() != 8)
      throw InputError(path + ": bad selection record");
    have_best_ = sel[0] != 0;
    best_epoch_ = static_cast<int>(sel[1]);
    best_ = EvalResult{sel[2], sel[3], sel[4], sel[5]};
    bad_epochs_ = static_cast<int>(sel[6]);
    stopped_ = sel[7] != 0;
    if (have_best_)
      best_state_.load(ck, model_, input_);
    const auto hist = ck.get_f64("history");
    history_.clear();
    for (std::size_t i = 0; i + EpochRecord::num_fields <= hist.size();
         i += EpochRecord::num_fields)
      history_.push_back(EpochRecord::from(hist.data() + i));
    if (ck.has("history_times")) { // train / eval seconds per epoch (absent in older files)
      const auto times = ck.get_f64("history_times");
      for (std::size_t k = 0; k < history_.size() && 2 * k + 1 < times.size(); ++k) {
        history_[k].train_seconds = times[2 * k];
        history_[k].eval_seconds = times[2 * k + 1];
      }
    }
    return epoch;
  }

  /// \brief Puts the selected parameters (and BatchNorm statistics) back into the model.
  void restore_best() { best_state_.restore(model_, input_); }

  /// Every epoch so far (those of a loaded checkpoint included).
  std::vector<EpochRecord> const &history() const { return history_; }
  /// Epoch of the selected parameters (0: none yet).
  int best_epoch() const { return best_epoch_; }

  /// What must match between a checkpoint and the run resuming it.
  std::string fingerprint() const {
    auto const &c = model_.config();
    return to_string(c.kind) + " layers=" + std::to_string(c.num_layers) +
           " widths=" + std::to_string(c.in_features) + "/" + std::to_string(c.hidden) + "/" +
           std::to_string(c.out_features) + " residual=" + std::to_string(c.residual) +
           " bn=" + std::to_string(c.batch_norm) + " input=" + to_string(input_.kind()) +
           " params=" + extents_string(model_.parameters()) +
           " emb=" + extents_string(input_.parameters()) +
           " optimizer=" + to_string(options_.optimizer) + " nodes=" + std::to_string(a_.num_rows) +
           "/" + std::to_string(train_.extent(0)) + "/" + std::to_string(valid_.extent(0)) + "/" +
           std::to_string(test_.extent(0)) +
           (options_.fingerprint.empty() ? "" : " | " + options_.fingerprint);
  }

private:
  bool has_valid() const { return valid_.extent(0) > 0; }

  /// Keeps the parameters when the epoch strictly improves the validation metric (ties keep
  /// the earlier epoch, as OGB's Logger and PyG's examples do).
  void select(EpochRecord const &r) {
    const double acc = has_valid() ? r.valid_acc : r.train_acc;
    const double best_acc = has_valid() ? best_.valid_acc : best_.train_acc;
    const bool better = !have_best_ || acc > best_acc;
    if (!better) {
      ++bad_epochs_;
      return;
    }
    have_best_ = true;
    best_epoch_ = r.epoch;
    best_ = EvalResult{r.train_acc, r.valid_acc, r.test_acc, r.valid_loss};
    bad_epochs_ = 0;
    best_state_.take(model_, input_);
  }

  void stop_nonfinite(TrainResult &result, int epoch, std::string const &what) {
    result.stop = StopReason::nonfinite;
    const bool saved = !options_.checkpoint_path.empty() && result.checkpoint_epoch > 0;
    result.message =
        "epoch " + std::to_string(epoch) + ": " + what + "; training stopped" +
        (saved
             ? ", the checkpoint " + options_.checkpoint_path + " keeps epoch " +
                   std::to_string(result.checkpoint_epoch)
             : std::string(options_.checkpoint_path.empty() ? "" : ", no checkpoint was written")) +
        (have_best_ ? "; the reported model is the one of epoch " + std::to_string(best_epoch_)
                    : "");
    stopped_ = true;
  }

  static std::string describe(double v) { return std::isnan(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf"; }

  ExecutionSpace space_;
  model_type &model_;
  input_type &input_;
  operator_type a_;
  targets_type targets_;
  ids_type train_, valid_, test_;
  TrainOptions options_;
  LrSchedule schedule_;
  std::unique_ptr<optimizer_type> gnn_opt_, emb_opt_;
  NodeLoss<Scalar, ExecutionSpace> loss_;
  matrix_type grad_logits_, grad_x_;
  std::vector<EpochRecord> history_;
  bool have_best_ = false, stopped_ = false;
  int best_epoch_ = 0, bad_epochs_ = 0;
  EvalResult best_;
  BestSnapshot<view_type> best_state_;
};

} // namespace ttgnn

#endif
