#ifndef TTGNN_CORE_OPTIMIZER_HPP
#define TTGNN_CORE_OPTIMIZER_HPP
/// \file optimizer.hpp
/// \brief Base of the dense first-order optimizers (Sgd, Adam, AdamW, Adagrad).
///
/// An optimizer holds a list of parameters, each a flat 1-D View, and a matching list of
/// gradient Views of the same extents (both alias the model's storage: the embedding
/// classes' `parameters()` and `gradients()`). `step(space)` updates every parameter in place
/// from its gradient; `zero_grad(space)` sets every gradient to zero. The learning rate can
/// be changed between steps (schedules); per-parameter state (moments, accumulators) and
/// the step count belong to the optimizer. Semantics follow torch.optim (see each class).

#include "core/error.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ttgnn {

/// \brief Common part of the dense optimizers: the parameter and gradient lists, the learning
/// rate and the step count.
/// \tparam Scalar float or double.
/// \tparam ExecutionSpace where the update kernels run; Views live in its memory space.
template <class Scalar, class ExecutionSpace> class Optimizer {
public:
  using execution_space = ExecutionSpace;
  using memory_space = typename ExecutionSpace::memory_space;
  /// A flat parameter or gradient.
  using view_type = Kokkos::View<Scalar *, memory_space>;

  /// \param params parameters, updated in place by step().
  /// \param grads gradients, grads[i] with the extent of params[i].
  /// \param learning_rate initial learning rate (>= 0).
  /// \param name used in error messages ("adam", ...).
  /// Throws ttgnn::ConfigError when the lists do not match or the learning rate is negative.
  Optimizer(std::vector<view_type> params, std::vector<view_type> grads, double learning_rate,
            std::string name)
      : params_(std::move(params)), grads_(std::move(grads)), name_(std::move(name)) {
    if (params_.size() != grads_.size())
      throw ConfigError("ttgnn::" + name_ + ": " + std::to_string(params_.size()) +
                        " parameters but " + std::to_string(grads_.size()) + " gradients");
    for (std::size_t i = 0; i < params_.size(); ++i)
      if (params_[i].extent(0) != grads_[i].extent(0))
        throw ConfigError("ttgnn::" + name_ + ": parameter " + std::to_string(i) + " has " +
                          std::to_string(params_[i].extent(0)) + " entries but its gradient has " +
                          std::to_string(grads_[i].extent(0)));
    set_learning_rate(learning_rate);
  }
  virtual ~Optimizer() = default;
  Optimizer(Optimizer const &) = delete; // the state Views would be shared silently
  Optimizer &operator=(Optimizer const &) = delete;
  Optimizer(Optimizer &&) noexcept = default;
  Optimizer &operator=(Optimizer &&) noexcept = default;

  /// \brief One update of every parameter from its current gradient.
  virtual void step(ExecutionSpace const &space) = 0;

  /// \brief Sets every gradient to zero.
  void zero_grad(ExecutionSpace const &space) {
    for (auto const &g : grads_)
      Kokkos::deep_copy(space, g, Scalar(0));
  }

  /// \brief The learning rate the next step() uses.
  double learning_rate() const { return lr_; }
  /// \brief Sets the learning rate of the following steps (>= 0, else ttgnn::ConfigError).
  void set_learning_rate(double lr) {
    if (!(lr >= 0))
      throw ConfigError("ttgnn::" + name_ + ": learning rate must be >= 0, got " +
                        std::to_string(lr));
    lr_ = lr;
  }
  /// \brief Number of step() calls so far.
  std::int64_t step_count() const { return steps_; }
  /// \brief Name of the method ("sgd", "adam", "adamw", "adagrad").
  std::string const &name() const { return name_; }
  /// \brief The parameter Views.
  std::vector<view_type> const &parameters() const { return params_; }
  /// \brief The gradient Views.
  std::vector<view_type> const &gradients() const { return grads_; }

protected:
  /// Allocates one zero-filled state View per parameter, labelled "ttgnn::<name>::<what>".
  std::vector<view_type> make_state(ExecutionSpace const &space, std::string const &what,
                                    Scalar value = Scalar(0)) const {
    std::vector<view_type> state;
    state.reserve(params_.size());
    for (auto const &p : params_) {
      view_type s(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::" + name_ + "::" + what),
                  p.extent(0));
      Kokkos::deep_copy(space, s, value);
      state.push_back(s);
    }
    return state;
  }
  /// Throws ttgnn::ConfigError unless lo <= value (< hi or <= hi).
  void check_range(char const *what, double value, double lo, double hi, bool hi_open) const {
    if (!(value >= lo && (hi_open ? value < hi : value <= hi)))
      throw ConfigError("ttgnn::" + name_ + ": " + what + " must be in [" + std::to_string(lo) +
                        ", " + std::to_string(hi) + (hi_open ? ")" : "]") + ", got " +
                        std::to_string(value));
  }

  std::vector<view_type> params_;
  std::vector<view_type> grads_;
  double lr_ = 0;
  std::int64_t steps_ = 0;
  std::string name_;
};

/// \brief Range policy over the entries of a flat parameter (64-bit index).
template <class ExecutionSpace>
Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>
optimizer_policy(ExecutionSpace const &space, std::size_t n) {
  return Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(
      space, 0, static_cast<std::int64_t>(n));
}

} // namespace ttgnn

#endif
