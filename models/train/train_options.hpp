#ifndef TTGNN_MODELS_TRAIN_TRAIN_OPTIONS_HPP
#define TTGNN_MODELS_TRAIN_TRAIN_OPTIONS_HPP
/// \file train_options.hpp
/// \brief The settings every trainer takes (TrainOptions; mini-batch training adds its own in
/// MinibatchTrainOptions), the per-epoch record and the outcome of a training run.

#include "core/error.hpp"
#include "core/optim/optimizer_kind.hpp"
#include "models/train/lr_schedule.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ttgnn {

/// \brief One epoch of training (full batch: one step; mini-batch: every batch of the epoch).
struct EpochRecord {
  int epoch = 0;
  double loss = 0; ///< training loss (training mode: dropout on; mean over the batches)
  /// The dataset's metric (accuracy, or ROC-AUC / F1 for multi-label targets) in evaluation
  /// mode after the epoch's update; -1 when not computed (an epoch without evaluation, or a
  /// node set that evaluation leaves out).
  double train_acc = -1;
  double valid_acc = -1;
  double test_acc = -1;
  double valid_loss = -1;    ///< evaluation-mode loss on the validation nodes (-1: not computed)
  double lr = 0;             ///< learning rate of the GNN parameters in this epoch
  double seconds = 0;        ///< wall time of the epoch (update + evaluation + model selection)
  double train_seconds = 0;  ///< of which the training steps (forward, backward, update)
  double eval_seconds = 0;   ///< of which the evaluation pass (forward, metric, loss)
  bool evaluated = false;    ///< evaluation ran after this epoch
  double sample_seconds = 0; ///< of train_seconds: building the batches (sampling blocks)
  std::int64_t batches = 0;  ///< optimizer steps
  std::int64_t sampled_edges = 0; ///< edges of the batches' blocks (0 for the whole graph)
  std::int64_t input_rows = 0;    ///< input rows gathered / looked up over the batches
  /// Fields of to_vector / from (checkpoint history).
  static constexpr int num_fields = 15;
  std::vector<double> to_vector() const {
    return {double(epoch),
            loss,
            train_acc,
            valid_acc,
            test_acc,
            valid_loss,
            lr,
            seconds,
            train_seconds,
            eval_seconds,
            evaluated ? 1.0 : 0.0,
            sample_seconds,
            double(batches),
            double(sampled_edges),
            double(input_rows)};
  }
  static EpochRecord from(double const *v) {
    EpochRecord r;
    r.epoch = static_cast<int>(v[0]);
    r.loss = v[1];
    r.train_acc = v[2];
    r.valid_acc = v[3];
    r.test_acc = v[4];
    r.valid_loss = v[5];
    r.lr = v[6];
    r.seconds = v[7];
    r.train_seconds = v[8];
    r.eval_seconds = v[9];
    r.evaluated = v[10] != 0;
    r.sample_seconds = v[11];
    r.batches = static_cast<std::int64_t>(v[12]);
    r.sampled_edges = static_cast<std::int64_t>(v[13]);
    r.input_rows = static_cast<std::int64_t>(v[14]);
    return r;
  }
};

/// \brief The metric (accuracy, or the multi-label metric) on the three node sets and the
/// validation loss of an evaluation pass; -1 for what it does not compute.
struct EvalResult {
  double train_acc = -1, valid_acc = -1, test_acc = -1, valid_loss = -1;
};

/// Called after every epoch (progress output).
using EpochCallback = std::function<void(EpochRecord const &)>;

/// Why training ended.
enum class StopReason { completed, early_stopping, nonfinite };
inline std::string to_string(StopReason r) {
  return r == StopReason::completed        ? "completed"
         : r == StopReason::early_stopping ? "early_stopping"
                                           : "nonfinite";
}

/// \brief Settings of a trainer.
struct TrainOptions {
  int epochs = 200;
  OptimizerKind optimizer = OptimizerKind::adam;
  double lr = 0.01;
  double weight_decay = 5e-4;
  double embedding_lr = -1;           ///< < 0: lr (separate optimizer for the embedding)
  double embedding_weight_decay = -1; ///< < 0: weight_decay
  LrScheduleOptions schedule;
  /// Early stopping: stop after this many epochs without a better validation accuracy
  /// (0 = never).
  int patience = 0;
  std::string checkpoint_path; ///< "" = no checkpoints
  int checkpoint_every = 1;    ///< epochs between checkpoints (the last epoch is always saved)
  bool resume = false;         ///< continue from checkpoint_path when it exists
  /// Extra text stored in checkpoints that must match on resume (e.g. data and model settings).
  std::string fingerprint;
  /// Settings of the whole run (models/pipeline/run_config.hpp, `key=value` lines), stored in
  /// checkpoints unchecked so that a checkpoint can be evaluated alone (`ttgnn predict`).
  std::string run_config;
  /// Snapshot the parameters of the selected epoch and restore them at the end (costs one
  /// copy of the model and of the embedding; off: the last epoch's parameters stay).
  bool keep_best = true;
  /// Called after every epoch (progress output).
  EpochCallback on_epoch;
  /// Called before every epoch with its number (tests use it to inject faults).
  std::function<void(int)> before_epoch;

  /// The embedding's learning rate: embedding_lr, or lr when embedding_lr < 0.
  double resolved_embedding_lr() const { return embedding_lr >= 0 ? embedding_lr : lr; }
  /// The embedding's weight decay: embedding_weight_decay, or weight_decay when it is < 0.
  double resolved_embedding_weight_decay() const {
    return embedding_weight_decay >= 0 ? embedding_weight_decay : weight_decay;
  }
};

/// \brief Outcome of a training run.
struct TrainResult {
  std::vector<EpochRecord> history; ///< every epoch, including those before a resume
  int best_epoch = 0;               ///< epoch of the selected parameters (0: none)
  double train_acc = -1, valid_acc = -1, test_acc = -1; ///< at best_epoch (-1: not computed)
  double valid_loss = -1;                               ///< at best_epoch
  int first_epoch = 1; ///< first epoch run by this call (> 1 after a resume)
  int last_epoch = 0;  ///< last epoch completed
  StopReason stop = StopReason::completed;
  std::string message;      ///< why it stopped, for non-finite losses
  int checkpoint_epoch = 0; ///< epoch stored in the checkpoint file now (0: none)
  /// Mean wall time of the epochs run by this call (update + evaluation + selection).
  double epoch_seconds() const {
    double s = 0;
    int n = 0;
    for (auto const &r : history)
      if (r.epoch >= first_epoch) {
        s += r.seconds;
        ++n;
      }
    return n ? s / n : 0.0;
  }
  /// Median training-step time of the epochs run by this call (what other tools call the
  /// epoch time: forward, backward and update, no evaluation).
  double median_train_seconds() const { return median_of(&EpochRecord::train_seconds); }
  /// Median evaluation time of the evaluated epochs run by this call.
  double median_eval_seconds() const { return median_of(&EpochRecord::eval_seconds, true); }

private:
  double median_of(double EpochRecord::*field, bool evaluated_only = false) const {
    std::vector<double> v;
    for (auto const &r : history)
      if (r.epoch >= first_epoch && (r.evaluated || !evaluated_only))
        v.push_back(r.*field);
    return median_value(v);
  }

public:
  /// Median of \p v (mean of the two middle values for an even count; 0 when empty).
  static double median_value(std::vector<double> v) {
    if (v.empty())
      return 0;
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
  }
};

} // namespace ttgnn

#endif
