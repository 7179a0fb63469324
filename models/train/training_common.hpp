#ifndef TTGNN_MODELS_TRAINING_COMMON_HPP
#define TTGNN_MODELS_TRAINING_COMMON_HPP
/// \file training_common.hpp
/// \brief What the trainers share besides their options (train_options.hpp): the optimizer
/// (Adam/AdamW whose step count can be restored from a checkpoint), finiteness checks and
/// helpers that save/restore lists of flat Views in a Checkpoint.

#include "core/optim/trainer_adam.hpp"
#include "core/error.hpp"
#include "core/kokkos_compat.hpp"
#include "core/io/checkpoint.hpp"
#include "models/train/lr_schedule.hpp"
#include "models/train/train_options.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ttgnn {

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

} // namespace ttgnn

#endif
