#ifndef TTGNN_MODELS_TRAINING_LOOP_HPP
#define TTGNN_MODELS_TRAINING_LOOP_HPP
/// \file training_loop.hpp
/// \brief The one training skeleton: epochs of optimizer steps over the batches of a batch
/// source, evaluation, model selection, early stopping, the learning-rate schedule, the stop on
/// non-finite values, checkpoints, history and progress. Full-batch training runs it over the
/// whole graph (models/train/whole_graph_source.hpp, one batch per epoch), mini-batch training over
/// sampled blocks (models/train/minibatch_trainer.cpp); nothing of this file exists twice.
///
/// A batch source `S` provides
///
///     std::int64_t num_batches(int epoch);  // steps of the epoch (may draw its shuffle)
///     TrainingBatch<...> batch(ExecutionSpace const &, int epoch, std::int64_t b,
///                              EpochRecord &rec);  // batch b with its input rows; adds its
///                                                  // sampling time, edges and rows to rec
///     void prepare(int epoch, std::int64_t b, EpochRecord &rec); // called after step b - 1 is
///                                                  // queued: may sample batch b meanwhile
///     void sum_gradients(ExecutionSpace const &);  // after backward: the data-parallel sum
///     bool evaluates(int epoch) const;             // evaluate after this epoch?
///     EvalResult evaluate(ExecutionSpace const &); // evaluation-mode scores (-1: not computed)
///
/// One step: forward of the input rows through the model with the batch's operators, the loss
/// over the batch's loss rows (on P ranks: the batch mean over all ranks' rows), backward into
/// the GNN and the input, the source's gradient sum, then the GNN's optimizer (owned here) and
/// the embedding's (owned by the input: NodeInput::step, MinibatchInput::step) step.
///
/// Selection: an evaluation is selected when its score (valid or train metric, see Selection)
/// is strictly better than the selected one's (ties keep the earlier epoch, as OGB's Logger
/// and PyG's examples); with Selection::every every evaluation is. Early stopping: `patience`
/// evaluations without a selection. Learning rate: lr · LrSchedule::scale(epoch) for the GNN
/// and embedding_lr · scale for the input, the schedule observing the selection score of each
/// evaluation. Non-finite values: a NaN/Inf training loss stops before that update; a
/// non-finite validation loss or parameters after an update stop before the epoch is recorded
/// or saved; the checkpoint keeps the last good epoch and TrainResult::message says so.
///
/// Checkpoints (TrainOptions::checkpoint_path, every checkpoint_every epochs, the last and an
/// early-stopped one) hold everything later epochs depend on: parameters, BatchNorm statistics,
/// dropout counters, both optimizers' moments and step counts, the schedule, the selection and
/// early-stopping state, the selected parameters and the history; batches are functions of
/// (seed, epoch, batch), so a resumed run reaches bitwise the parameters of an uninterrupted one
/// (same thread count). On P ranks rank 0 writes, every rank reads on resume.

#include "core/io/atomic_file.hpp"
#include "core/runtime/byte_ledger.hpp"
#include "core/runtime/communicator.hpp"
#include "core/error.hpp"
#include "core/io/checkpoint.hpp"
#include "models/gnn_model.hpp"
#include "models/layers/graph_operator.hpp"
#include "models/loss/node_targets.hpp"
#include "models/train/training_common.hpp"

#include <Kokkos_Core.hpp>
#include <Kokkos_Profiling_ScopedRegion.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ttgnn {

/// \brief One optimizer step's data, as a batch source hands it to the TrainingLoop.
template <class Scalar, class ExecutionSpace, class Ordinal = std::int32_t> struct TrainingBatch {
  using memory_space = typename ExecutionSpace::memory_space;
  using ids_type = Kokkos::View<const std::int64_t *, memory_space>;
  std::vector<GraphOperator<Scalar, ExecutionSpace, Ordinal>> ops; ///< one, or one per layer
  Matrix<Scalar, ExecutionSpace> x;                                ///< the first layer's input rows
  NodeTargets<ExecutionSpace> targets;                             ///< targets of the logits' rows
  ids_type loss_rows;                 ///< logits rows the loss averages over
  std::vector<ids_type> dropout_keys; ///< row keys per layer (empty: unkeyed dropout)
  std::int64_t seeds = 0;             ///< loss rows here (0: this rank sits the batch out)
  std::int64_t batch_seeds = 0;       ///< loss rows of the batch over all ranks
  /// x is this step's own copy (recomputed every step, not read after the step): the model
  /// drops it out in place and dL/dx is written over it, so neither needs a buffer of x's size.
  bool x_scratch = false;
  /// Where dL/dx goes when the input owns a buffer for it (x is a full table's own rows and
  /// this its dense gradient: no copy of x, no separate gradient); empty: a buffer of the loop's
  /// (or x itself when x_scratch).
  Matrix<Scalar, ExecutionSpace> grad_x;
};

/// How the TrainingLoop compares evaluations.
enum class Selection {
  valid, ///< the validation metric
  train, ///< the training metric (no validation nodes)
  every, ///< every evaluation is selected (no validation metric: the last one is kept)
};

/// \brief What names a checkpoint: its format (one per trainer), the trainer's name for
/// messages, and the fingerprint a resuming run must match.
struct CheckpointIdentity {
  std::string format, what, fingerprint;
};

namespace detail {
/// a *= f (a rank's share of the batch's loss gradient).
template <class ExecutionSpace, class MatrixView, class Scalar>
void scale_rows(ExecutionSpace const &space, MatrixView const &a, Scalar f) {
  const std::int64_t c = static_cast<std::int64_t>(a.extent(1));
  Kokkos::parallel_for(
      "ttgnn::train::scale_grad_logits",
      Kokkos::RangePolicy<ExecutionSpace>(space, 0, static_cast<std::int64_t>(a.extent(0)) * c),
      KOKKOS_LAMBDA(std::int64_t k) { a(k / c, k % c) *= f; });
}
} // namespace detail

/// \brief The training skeleton (see the file comment) of a GnnModel over an input that owns
/// its embedding optimizer (NodeInput or MinibatchInput).
template <class Scalar, class ExecutionSpace, class Ordinal, class Input> class TrainingLoop {
public:
  using memory_space = typename ExecutionSpace::memory_space;
  using model_type = GnnModel<Scalar, ExecutionSpace, Ordinal>;
  using matrix_type = Matrix<Scalar, ExecutionSpace>;
  using view_type = Kokkos::View<Scalar *, memory_space>;
  using batch_type = TrainingBatch<Scalar, ExecutionSpace, Ordinal>;
  using optimizer_type = TrainerAdam<Scalar, ExecutionSpace>;

  /// \param model, input trained in place (they must outlive the loop); the input's optimizer
  /// is set up by its owner, the GNN's here from \p options.
  TrainingLoop(ExecutionSpace const &space, model_type &model, Input &input, TrainOptions options,
               Selection selection, CheckpointIdentity id, Communicator comm = {})
      : space_(space), model_(model), input_(input), options_(std::move(options)),
        selection_(selection), id_(std::move(id)), comm_(std::move(comm)),
        schedule_(options_.schedule) {
    if (options_.epochs < 0 || options_.patience < 0 || options_.checkpoint_every < 1)
      throw ConfigError("training: need epochs >= 0, patience >= 0, checkpoint_every >= 1");
    AdamOptions gnn;
    gnn.lr = options_.lr;
    gnn.weight_decay = options_.weight_decay;
    gnn_opt_ = std::make_unique<optimizer_type>(space, model.parameters(), model.gradients(), gnn,
                                                options_.optimizer);
  }

  TrainOptions const &options() const { return options_; }
  double embedding_lr() const { return options_.resolved_embedding_lr(); }

  /// \brief Trains over \p source (resuming first when asked and a checkpoint exists), then
  /// restores the selected parameters (keep_best). Returns the history and the selected scores.
  template <class Source> TrainResult run(Source &source) {
    TrainResult result;
    const int start = resume();
    result.checkpoint_epoch = start;
    result.first_epoch = start + 1;
    result.last_epoch = start;
    for (int epoch = start + 1; epoch <= options_.epochs && !stopped_; ++epoch) {
      Kokkos::Profiling::ScopedRegion epoch_region("ttgnn::train::epoch");
      if (options_.before_epoch)
        options_.before_epoch(epoch);
      EpochRecord rec;
      rec.epoch = epoch;
      const auto t0 = clock::now();
      const double scale = schedule_.scale(epoch);
      rec.lr = options_.lr * scale;
      gnn_opt_->set_learning_rate(rec.lr);
      input_.set_learning_rate(embedding_lr() * scale);
      model_.set_training(true);
      double loss_sum = 0, loss = 0;
      const std::int64_t batches = source.num_batches(epoch);
      {
        Kokkos::Profiling::ScopedRegion step_region("ttgnn::train::step");
        for (std::int64_t b = 0; b < batches; ++b) {
          const auto t_batch = clock::now();
          loss = step(source, source.batch(space_, epoch, b, rec));
          if (!std::isfinite(loss))
            break;
          if (b + 1 < batches) // overlaps the rest of this step on a device
            source.prepare(epoch, b + 1, rec);
          space_.fence();
          loss_sum += loss;
          ++rec.batches;
          batch_seconds_.push_back(seconds_since(t_batch));
        }
      }
      if (!std::isfinite(loss)) {
        stop_nonfinite(result, epoch, "the training loss is " + describe(loss));
        break;
      }
      rec.loss = rec.batches > 0 ? loss_sum / double(rec.batches) : 0.0;
      rec.train_seconds = seconds_since(t0);
      if (comm_.distributed()) { // the slowest rank's time; work summed over the ranks
        rec.train_seconds = comm_.max(rec.train_seconds);
        rec.sample_seconds = comm_.max(rec.sample_seconds);
        rec.sampled_edges = comm_.sum(rec.sampled_edges);
        rec.input_rows = comm_.sum(rec.input_rows);
      }
      if (source.evaluates(epoch)) {
        const auto t_eval = clock::now();
        Kokkos::Profiling::ScopedRegion eval_region("ttgnn::train::evaluate");
        const EvalResult ev = source.evaluate(space_);
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
        rec.eval_seconds = seconds_since(t_eval);
        rec.evaluated = true;
        rec.train_acc = ev.train_acc;
        rec.valid_acc = ev.valid_acc;
        rec.test_acc = ev.test_acc;
        rec.valid_loss = ev.valid_loss;
        select(rec);
        if (selection_ != Selection::every)
          schedule_.observe(epoch, score(ev));
      }
      rec.seconds = seconds_since(t0);
      history_.push_back(rec);
      if (options_.patience > 0 && bad_evaluations_ >= options_.patience)
        stopped_ = true;
      result.last_epoch = epoch;
      if (!options_.checkpoint_path.empty() &&
          (epoch % options_.checkpoint_every == 0 || epoch == options_.epochs || stopped_)) {
        save_checkpoint(options_.checkpoint_path, epoch);
        result.checkpoint_epoch = epoch;
      }
      if (options_.on_epoch)
        options_.on_epoch(rec);
    }
    if (stopped_ && result.stop == StopReason::completed)
      result.stop = StopReason::early_stopping;
    restore_best();
    result.history = history_;
    result.best_epoch = best_epoch_;
    result.train_acc = best_.train_acc;
    result.valid_acc = best_.valid_acc;
    result.test_acc = best_.test_acc;
    result.valid_loss = best_.valid_loss;
    return result;
  }

  /// \brief No training: loads \p path, restores its selected parameters and evaluates them
  /// once over \p source; the history is the checkpoint's, the scores this evaluation's.
  template <class Source> TrainResult evaluate_checkpoint(Source &source, std::string const &path) {
    TrainResult r;
    r.checkpoint_epoch = load_checkpoint(path);
    restore_best();
    const EvalResult e = source.evaluate(space_);
    r.history = history_;
    r.best_epoch = best_epoch_;
    r.first_epoch = r.checkpoint_epoch + 1;
    r.last_epoch = r.checkpoint_epoch;
    r.train_acc = e.train_acc;
    r.valid_acc = e.valid_acc;
    r.test_acc = e.test_acc;
    r.valid_loss = e.valid_loss;
    return r;
  }

  /// \brief One optimizer step on \p b (training mode): returns the loss (on P ranks the
  /// batch's mean over all ranks); when it is finite, the gradients are computed, summed by
  /// the source and both optimizers step. NaN/Inf: nothing is updated.
  template <class Source> double step(Source &source, batch_type const &b) {
    double loss = 0;
    matrix_type logits;
    if (b.seeds > 0) {
      model_.set_dropout_row_keys(b.dropout_keys);
      model_.set_overwrite_input(b.x_scratch);
      logits = model_.forward(space_, b.ops, b.x);
      loss = loss_.forward(space_, logits, b.targets, b.loss_rows);
    }
    if (comm_.distributed()) // the batch's mean loss: slices weighted by their rows
      loss = comm_.sum(loss * double(b.seeds)) / double(b.batch_seeds);
    if (!std::isfinite(loss))
      return loss;
    gnn_opt_->zero_grad(space_);
    input_.zero_grad(space_);
    if (b.seeds > 0) {
      grad_logits_ =
          grad_logits_ws_.rows("ttgnn::train::grad_logits", logits.extent(0), logits.extent(1));
      loss_.backward(space_, grad_logits_);
      if (b.seeds != b.batch_seeds) // d(batch mean)/d(slice mean) = slice rows / batch rows
        detail::scale_rows(space_, grad_logits_, Scalar(double(b.seeds) / double(b.batch_seeds)));
      matrix_type gx;
      if (input_.trainable() && b.grad_x.data() != nullptr) {
        gx = b.grad_x;
      } else if (input_.trainable() && b.x_scratch) {
        gx = b.x; // GnnModel::backward reads x before it writes dL/dx
      } else if (input_.trainable()) {
        grad_x_ = grad_x_ws_.rows("ttgnn::train::grad_x", b.x.extent(0), b.x.extent(1));
        gx = grad_x_;
      }
      model_.backward(space_, grad_logits_, gx);
      if (input_.trainable())
        input_.backward(space_, gx);
    } else {
      skip_dropout_masks();
    }
    source.sum_gradients(space_);
    gnn_opt_->step(space_);
    input_.step(space_);
    return loss;
  }

  /// \brief Writes the whole training state after epoch \p epoch (atomically; rank 0 only).
  void save_checkpoint(std::string const &path, int epoch) const {
    Kokkos::Profiling::ScopedRegion region("ttgnn::train::checkpoint");
    Checkpoint ck;
    put_checkpoint_header(ck, id_.format, id_.fingerprint, epoch);
    if (!options_.run_config.empty())
      ck.put_string("run_config", options_.run_config);
    save_model_state(ck, model_);
    gnn_opt_->save(ck, "opt.gnn");
    input_.save(ck, "input");
    ck.put("schedule", schedule_.state());
    ck.put("select",
           std::vector<double>{have_best_ ? 1.0 : 0.0, double(best_epoch_), best_.train_acc,
                               best_.valid_acc, best_.test_acc, best_.valid_loss,
                               double(bad_evaluations_), stopped_ ? 1.0 : 0.0});
    if (!best_state_.empty())
      best_state_.save(ck);
    std::vector<double> hist;
    for (auto const &r : history_) {
      const auto v = r.to_vector();
      hist.insert(hist.end(), v.begin(), v.end());
    }
    ck.put("history", hist);
    if (comm_.rank() == 0) // replicas are identical: one writer
      ck.save(path);
  }

  /// \brief Restores the state saved by save_checkpoint; returns its epoch. InputError when
  /// the file is damaged, ConfigError when it belongs to another model or data.
  int load_checkpoint(std::string const &path) {
    const Checkpoint ck = Checkpoint::load(path);
    const int epoch = check_checkpoint_header(ck, path, id_.format, id_.what, id_.fingerprint);
    load_model_state(ck, model_);
    gnn_opt_->load(ck, "opt.gnn");
    input_.load(space_, ck, "input");
    schedule_.set_state(ck.get_f64("schedule"));
    const auto sel = ck.get_f64("select");
    const auto hist = ck.get_f64("history");
    if (sel.size() != 8 || hist.size() % EpochRecord::num_fields != 0)
      throw InputError(path + ": bad selection or history record (a checkpoint of an older "
                              "ttgnn? train again without --resume)");
    have_best_ = sel[0] != 0;
    best_epoch_ = static_cast<int>(sel[1]);
    best_ = EvalResult{sel[2], sel[3], sel[4], sel[5]};
    bad_evaluations_ = static_cast<int>(sel[6]);
    stopped_ = sel[7] != 0;
    if (have_best_ && ck.has("best.model.param.0"))
      best_state_.load(ck, model_, input_);
    history_.clear();
    for (std::size_t i = 0; i < hist.size(); i += EpochRecord::num_fields)
      history_.push_back(EpochRecord::from(hist.data() + i));
    return epoch;
  }

  /// \brief Puts the selected parameters (and BatchNorm statistics) back (nothing before a
  /// selection, or without keep_best).
  void restore_best() {
    if (!best_state_.empty())
      best_state_.restore(model_, input_);
  }

  /// Every epoch so far (those of a loaded checkpoint included).
  std::vector<EpochRecord> const &history() const { return history_; }
  /// Epoch of the selected parameters (0: none yet).
  int best_epoch() const { return best_epoch_; }
  /// Wall time of every step run by this object.
  std::vector<double> const &batch_seconds() const { return batch_seconds_; }

  /// \brief Adds the GNN optimizer's moments to \p optimizer and the loss and input gradient
  /// buffers to \p workspace (memory reports).
  void add_memory(ByteLedger &optimizer, ByteLedger &workspace) const {
    optimizer.add_all(gnn_opt_->exp_avg()).add_all(gnn_opt_->exp_avg_sq());
    workspace.add(grad_logits_ws_.storage()).add(grad_x_ws_.storage());
  }

private:
  using clock = std::chrono::steady_clock;
  static double seconds_since(clock::time_point t) {
    return std::chrono::duration<double>(clock::now() - t).count();
  }
  static std::string describe(double v) { return std::isnan(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf"; }

  double score(EvalResult const &e) const {
    return selection_ == Selection::train ? e.train_acc : e.valid_acc;
  }

  /// Clears leftovers of killed checkpoint writes; loads the checkpoint when resuming.
  int resume() {
    std::string const &path = options_.checkpoint_path;
    if (path.empty())
      return 0;
    if (comm_.rank() == 0) // leftovers of writes killed mid-way are never read
      remove_stale_temporaries(path);
    const int start = options_.resume && checkpoint_exists(path) ? load_checkpoint(path) : 0;
    if (comm_.distributed() && options_.resume &&
        comm_.min(std::int64_t(start)) != comm_.max(std::int64_t(start)))
      throw InputError(path + ": the ranks resume from different epochs (" + comm_.describe() +
                       " from epoch " + std::to_string(start) +
                       "); the checkpoint file must be visible to every rank");
    return start;
  }

  /// Keeps the evaluation when it is selected (see the file comment).
  void select(EpochRecord const &r) {
    const EvalResult e{r.train_acc, r.valid_acc, r.test_acc, r.valid_loss};
    if (have_best_ && selection_ != Selection::every && !(score(e) > score(best_))) {
      ++bad_evaluations_;
      return;
    }
    have_best_ = true;
    best_epoch_ = r.epoch;
    best_ = e;
    bad_evaluations_ = 0;
    if (options_.keep_best)
      best_state_.take(model_, input_);
  }

  /// A rank without rows in a batch: its dropout counters advance as if it had run the
  /// forward, so every replica draws the same masks afterwards.
  void skip_dropout_masks() {
    std::vector<std::uint64_t> steps = model_.rng_state();
    auto const &c = model_.config();
    for (std::size_t l = 0; l < steps.size(); ++l)
      if ((l == 0 ? c.input_dropout : c.dropout) > 0.0)
        ++steps[l];
    model_.set_rng_state(steps);
  }

  void stop_nonfinite(TrainResult &result, int epoch, std::string const &what) {
    result.stop = StopReason::nonfinite;
    std::string const &path = options_.checkpoint_path;
    const bool saved = !path.empty() && result.checkpoint_epoch > 0;
    result.message =
        "epoch " + std::to_string(epoch) + ": " + what + "; training stopped" +
        (saved ? ", the checkpoint " + path + " keeps epoch " +
                     std::to_string(result.checkpoint_epoch)
               : std::string(path.empty() ? "" : ", no checkpoint was written")) +
        (have_best_ ? "; the reported model is the one of epoch " + std::to_string(best_epoch_)
                    : "");
    stopped_ = true;
  }

  ExecutionSpace space_;
  model_type &model_;
  Input &input_;
  TrainOptions options_;
  Selection selection_;
  CheckpointIdentity id_;
  Communicator comm_;
  LrSchedule schedule_;
  std::unique_ptr<optimizer_type> gnn_opt_;
  NodeLoss<Scalar, ExecutionSpace> loss_;
  matrix_type grad_logits_, grad_x_;
  GrowingMatrix<matrix_type> grad_logits_ws_, grad_x_ws_;
  std::vector<EpochRecord> history_;
  std::vector<double> batch_seconds_;
  bool have_best_ = false, stopped_ = false;
  int best_epoch_ = 0, bad_evaluations_ = 0;
  EvalResult best_;
  BestSnapshot<view_type> best_state_;
};

} // namespace ttgnn

#endif
