#ifndef TTGNN_MODELS_LR_SCHEDULE_HPP
#define TTGNN_MODELS_LR_SCHEDULE_HPP
/// \file lr_schedule.hpp
/// \brief Learning-rate schedule of the trainers: linear warm-up, then reduce-on-plateau on a
/// validation metric that should increase (accuracy), as torch's LinearLR + ReduceLROnPlateau
/// (mode "max", relative threshold, no cooldown).
///
/// The learning rate of epoch e (from 1) is base_lr · scale(e) with
///   scale(e) = warmup(e) · plateau,   warmup(e) = min(1, e / warmup_epochs) (1 without warm-up).
/// After each epoch past the warm-up, observe(metric): a metric above best·(1 + threshold)
/// (or the first one) becomes the best; otherwise the count of bad epochs grows, and when it
/// exceeds `patience` the plateau factor is multiplied by `factor` (not below min_scale) and
/// the count restarts.

#include "core/error.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace ttgnn {

/// \brief Settings of an LrSchedule.
struct LrScheduleOptions {
  int warmup_epochs = 0;           ///< linear warm-up length (0 = none)
  double plateau_factor = 1.0;     ///< multiply on a plateau, in (0, 1]; 1 = no reduction
  int plateau_patience = 10;       ///< bad epochs tolerated before a reduction
  double plateau_threshold = 1e-4; ///< relative improvement that counts
  double min_scale = 0.0;          ///< the plateau factor never goes below this
};

/// \brief Warm-up + reduce-on-plateau; its state is three numbers (see state()).
class LrSchedule {
public:
  LrSchedule() = default;
  explicit LrSchedule(LrScheduleOptions const &options) : options_(options) {
    if (options.warmup_epochs < 0 || !(options.plateau_factor > 0 && options.plateau_factor <= 1) ||
        options.plateau_patience < 0 || !(options.plateau_threshold >= 0) ||
        !(options.min_scale >= 0))
      throw ConfigError("learning-rate schedule: need warmup >= 0, plateau factor in (0, 1], "
                        "patience >= 0, threshold >= 0, min scale >= 0");
  }

  /// Multiplier of the base learning rate in epoch \p epoch (1-based).
  double scale(int epoch) const {
    double w = 1.0;
    if (options_.warmup_epochs > 0 && epoch < options_.warmup_epochs)
      w = static_cast<double>(std::max(epoch, 1)) / options_.warmup_epochs;
    return w * plateau_;
  }

  /// Records the metric of epoch \p epoch (ignored during the warm-up).
  void observe(int epoch, double metric) {
    if (epoch < options_.warmup_epochs || options_.plateau_factor >= 1.0)
      return;
    if (!seen_ || metric > best_ * (1.0 + options_.plateau_threshold) ||
        (best_ <= 0 && metric > best_)) {
      best_ = metric;
      seen_ = true;
      bad_ = 0;
      return;
    }
    if (++bad_ > options_.plateau_patience) {
      plateau_ = std::max(plateau_ * options_.plateau_factor, options_.min_scale);
      bad_ = 0;
    }
  }

  /// The plateau factor now.
  double plateau_scale() const { return plateau_; }
  /// State for checkpoints: {plateau factor, best metric, bad epochs, seen}.
  std::vector<double> state() const { return {plateau_, best_, double(bad_), seen_ ? 1.0 : 0.0}; }
  void set_state(std::vector<double> const &s) {
    if (s.size() != 4)
      throw InputError("learning-rate schedule state: expected 4 values, got " +
                       std::to_string(s.size()));
    plateau_ = s[0];
    best_ = s[1];
    bad_ = static_cast<int>(s[2]);
    seen_ = s[3] != 0;
  }
  LrScheduleOptions const &options() const { return options_; }

private:
  LrScheduleOptions options_;
  double plateau_ = 1.0, best_ = 0.0;
  int bad_ = 0;
  bool seen_ = false;
};

} // namespace ttgnn

#endif
