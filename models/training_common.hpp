#ifndef TTGNN_MODELS_TRAINING_COMMON_HPP
#define TTGNN_MODELS_TRAINING_COMMON_HPP
/// \file training_common.hpp
/// \brief What the trainers share: options, per-epoch records and the result, the optimizer
/// (Adam/AdamW whose step count can be restored from a checkpoint), finiteness checks and
/// helpers that save/restore lists of flat Views in a Checkpoint.

#include "core/adam.hpp"
#include "core/error.hpp"
#include "core/kokkos_compat.hpp"
#include "models/checkpoint.hpp"
#include "models/lr_schedule.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ttgnn {

/// Optimizer of the trainers.
enum class OptimizerKind { adam, adamw };
inline std::string to_string(OptimizerKind k) {
  return k == OptimizerKind::adam ? "adam" : "adamw";
}
inline OptimizerKind parse_optimizer_kind(std::string const &name) {
  if (name == "adam")
    return OptimizerKind::adam;
  if (name == "adamw")
    return OptimizerKind::adamw;
  throw ConfigError("unknown optimizer '" + name + "': expected adam or adamw");
}

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
  /// Settings of the whole run (models/run_config.hpp, `key=value` lines), stored in
  /// checkpoints unchecked so that a checkpoint can be evaluated alone (`ttgnn predict`).
  std::string run_config;
  /// Snapshot the parameters of the selected epoch and restore them at the end (costs one
  /// copy of the model and of the embedding; off: the last epoch's parameters stay).
  bool keep_best = true;
  /// Called after every epoch (progress output).
  EpochCallback on_epoch;
  /// Called before every epoch with its number (tests use it to inject faults).
  std::function<void(int)> before_epoch;
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

/// \brief Adam / AdamW whose step count can be restored (resume from a checkpoint).
template <class Scalar, class ExecutionSpace>
class TrainerAdam : public Adam<Scalar, ExecutionSpace> {
public:
  using typename Adam<Scalar, ExecutionSpace>::view_type;
  TrainerAdam(ExecutionSpace const &space, std::vector<view_type> params,
              std::vector<view_type> grads, AdamOptions const &options, OptimizerKind kind)
      : Adam<Scalar, ExecutionSpace>(space, std::move(params), std::move(grads), options,
                                     kind == OptimizerKind::adamw,
                                     kind == OptimizerKind::adamw ? "adamw" : "adam") {}
  void set_step_count(std::int64_t steps) { this->steps_ = steps; }

  /// Saves moments and the step count under "<prefix>.".
  void save(Checkpoint &ck, std::string const &prefix) const {
    for (std::size_t i = 0; i < this->exp_avg().size(); ++i) {
      ck.put_view(prefix + ".m." + std::to_string(i), this->exp_avg()[i]);
      ck.put_view(prefix + ".v." + std::to_string(i), this->exp_avg_sq()[i]);
    }
    ck.put(prefix + ".steps", std::vector<std::int64_t>{this->step_count()});
  }
  void load(Checkpoint const &ck, std::string const &prefix) {
    for (std::size_t i = 0; i < this->exp_avg().size(); ++i) {
      ck.get_view(prefix + ".m." + std::to_string(i), this->exp_avg()[i]);
      ck.get_view(prefix + ".v." + std::to_string(i), this->exp_avg_sq()[i]);
    }
    set_step_count(ck.get_i64(prefix + ".steps").at(0));
  }
};

/// \brief True when every entry of every View is finite.
template <class ExecutionSpace, class View>
bool all_finite(ExecutionSpace const &space, std::vector<View> const &views) {
  for (auto const &v : views) {
    std::int64_t bad = 0;
    Kokkos::parallel_reduce(
        "ttgnn::train::finite_check",
        Kokkos::RangePolicy<ExecutionSpace>(space, 0, static_cast<std::int64_t>(v.extent(0))),
        KOKKOS_LAMBDA(std::int64_t i, std::int64_t & b) { b += compat::isfinite(v(i)) ? 0 : 1; },
        bad);
    if (bad)
      return false;
  }
  return true;
}

/// \brief Stores views[i] as "<prefix>.<i>".
template <class View>
void save_views(Checkpoint &ck, std::string const &prefix, std::vector<View> const &views) {
  for (std::size_t i = 0; i < views.size(); ++i)
    ck.put_view(prefix + "." + std::to_string(i), views[i]);
}
/// \brief Restores views[i] from "<prefix>.<i>" (extents must match).
template <class View>
void load_views(Checkpoint const &ck, std::string const &prefix, std::vector<View> const &views) {
  for (std::size_t i = 0; i < views.size(); ++i)
    ck.get_view(prefix + "." + std::to_string(i), views[i]);
}

/// \brief Device copies of a list of Views (a parameter snapshot), allocated on first use.
template <class View> void snapshot_views(std::vector<View> const &from, std::vector<View> &to) {
  if (to.size() != from.size()) {
    to.clear();
    for (auto const &v : from)
      to.emplace_back(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::train::snapshot"),
                      v.extent(0));
  }
  for (std::size_t i = 0; i < from.size(); ++i)
    Kokkos::deep_copy(to[i], from[i]);
}

/// \brief Copies a snapshot back (inverse of snapshot_views).
template <class View>
void restore_views(std::vector<View> const &from, std::vector<View> const &to) {
  if (from.size() != to.size())
    throw ConfigError("restore_views: " + std::to_string(from.size()) + " saved Views for " +
                      std::to_string(to.size()));
  for (std::size_t i = 0; i < from.size(); ++i)
    Kokkos::deep_copy(to[i], from[i]);
}

/// \brief The best model so far (model selection / early stopping): copies of the model's
/// parameters and buffers (BatchNorm statistics) and of the input's trainable parameters, kept
/// and checkpointed ("best.model.param", "best.model.buffer", "best.input.param") the same way
/// by both trainers.
template <class View> struct BestSnapshot {
  std::vector<View> model, buffers, input;

  /// True before the first take() or load().
  bool empty() const { return model.empty(); }
  /// Copies the current state of \p m and \p in.
  template <class Model, class Input> void take(Model const &m, Input const &in) {
    snapshot_views(m.parameters(), model);
    snapshot_views(m.buffers(), buffers);
    snapshot_views(in.parameters(), input);
  }
  /// Copies the snapshot back into \p m and \p in.
  template <class Model, class Input> void restore(Model &m, Input &in) const {
    restore_views(model, m.parameters());
    restore_views(buffers, m.buffers());
    restore_views(input, in.parameters());
  }
  void save(Checkpoint &ck) const {
    save_views(ck, "best.model.param", model);
    save_views(ck, "best.model.buffer", buffers);
    save_views(ck, "best.input.param", input);
  }
  /// Restores what save() saved (extents taken from \p m and \p in).
  template <class Model, class Input>
  void load(Checkpoint const &ck, Model const &m, Input const &in) {
    take(m, in);
    load_views(ck, "best.model.param", model);
    load_views(ck, "best.model.buffer", buffers);
    load_views(ck, "best.input.param", input);
  }
};

/// \brief Writes the records every trainer checkpoint starts with: its format name, the
/// fingerprint a resuming run must match, and the epoch it was written after.
inline void put_checkpoint_header(Checkpoint &ck, std::string const &format,
                                  std::string const &fingerprint, int epoch) {
  ck.put_string("format", format);
  ck.put_string("fingerprint", fingerprint);
  ck.put("epoch", std::vector<std::int64_t>{epoch});
}

/// \brief Checks the header of a checkpoint loaded from \p path and returns its epoch.
/// InputError when it is not a checkpoint of \p format (\p what names the trainer),
/// ConfigError when it was written for another model or data (fingerprints differ).
inline int check_checkpoint_header(Checkpoint const &ck, std::string const &path,
                                   std::string const &format, std::string const &what,
                                   std::string const &fingerprint) {
  if (!ck.has("format") || ck.get_string("format") != format)
    throw InputError(path + ": not a checkpoint of the " + what);
  const std::string theirs = ck.get_string("fingerprint");
  if (theirs != fingerprint)
    throw ConfigError(path +
                      ": the checkpoint was written for another model or data set\n"
                      "  checkpoint: " +
                      theirs + "\n  this run:   " + fingerprint);
  return static_cast<int>(ck.get_i64("epoch").at(0));
}

/// \brief Saves a GnnModel's parameters, BatchNorm statistics and dropout counters.
template <class Model> void save_model_state(Checkpoint &ck, Model const &model) {
  save_views(ck, "model.param", model.parameters());
  save_views(ck, "model.buffer", model.buffers());
  ck.put("model.rng", model.rng_state());
}
/// \brief Restores what save_model_state saved.
template <class Model> void load_model_state(Checkpoint const &ck, Model &model) {
  load_views(ck, "model.param", model.parameters());
  load_views(ck, "model.buffer", model.buffers());
  model.set_rng_state(ck.get_u64("model.rng"));
}

/// True when \p path can be opened for reading.
inline bool checkpoint_exists(std::string const &path) {
  std::FILE *f = std::fopen(path.c_str(), "rb");
  if (f)
    std::fclose(f);
  return f != nullptr;
}

/// "8 x 16, 16, ..." : the extents of a View list (for checkpoint fingerprints).
template <class View> std::string extents_string(std::vector<View> const &views) {
  std::string s;
  for (auto const &v : views)
    s += (s.empty() ? "" : ",") + std::to_string(v.extent(0));
  return "[" + s + "]";
}

} // namespace ttgnn

#endif
