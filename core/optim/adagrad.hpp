#ifndef TTGNN_CORE_ADAGRAD_HPP
#define TTGNN_CORE_ADAGRAD_HPP
/// \file adagrad.hpp
/// \brief Adagrad as torch.optim.Adagrad.

#include "core/kokkos_compat.hpp"
#include "core/optim/optimizer.hpp"

#include <limits>

namespace ttgnn {

/// \brief Hyper-parameters of Adagrad (torch.optim.Adagrad's names and defaults).
struct AdagradOptions {
  double lr = 0.01;                     ///< learning rate
  double lr_decay = 0;                  ///< step t uses lr / (1 + (t-1)·lr_decay)
  double weight_decay = 0;              ///< L2 penalty added to the gradient
  double initial_accumulator_value = 0; ///< starting value of the sum of squares
  double eps = 1e-10;                   ///< added to the denominator
};

/// \brief The element-wise Adagrad update (one parameter View).
template <class Scalar, class MemorySpace> struct AdagradUpdate {
  Kokkos::View<Scalar *, MemorySpace> w, g, sum;
  Scalar clr, eps, weight_decay;

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    const Scalar gi = g(i) + weight_decay * w(i);
    const Scalar s = sum(i) + gi * gi;
    sum(i) = s;
    w(i) -= clr * gi / (compat::sqrt(s) + eps);
  }
};

/// \brief Adagrad: at step t (from 1), g = grad + lambda·w, s <- s + g²,
/// w <- w - lr/(1 + (t-1)·lr_decay) · g / (sqrt(s) + eps).
template <class Scalar, class ExecutionSpace>
class Adagrad : public Optimizer<Scalar, ExecutionSpace> {
  using Base = Optimizer<Scalar, ExecutionSpace>;

public:
  using typename Base::view_type;

  /// \brief Binds the parameters and gradients; allocates the sums of squares.
  /// Throws ttgnn::ConfigError for out-of-range hyper-parameters.
  Adagrad(ExecutionSpace const &space, std::vector<view_type> params, std::vector<view_type> grads,
          AdagradOptions const &options)
      : Base(std::move(params), std::move(grads), options.lr, "adagrad"), options_(options) {
    const double inf = std::numeric_limits<double>::infinity();
    this->check_range("lr_decay", options.lr_decay, 0, inf, true);
    this->check_range("weight_decay", options.weight_decay, 0, inf, true);
    this->check_range("initial_accumulator_value", options.initial_accumulator_value, 0, inf, true);
    this->check_range("eps", options.eps, 0, inf, true);
    sum_ = this->make_state(space, "sum", Scalar(options.initial_accumulator_value));
  }

  void step(ExecutionSpace const &space) override {
    const double clr = this->lr_ / (1 + double(this->steps_) * options_.lr_decay);
    for (std::size_t p = 0; p < this->params_.size(); ++p) {
      AdagradUpdate<Scalar, typename Base::memory_space> f{
          this->params_[p], this->grads_[p],      sum_[p],
          Scalar(clr),      Scalar(options_.eps), Scalar(options_.weight_decay)};
      Kokkos::parallel_for("ttgnn::adagrad::step",
                           optimizer_policy(space, this->params_[p].extent(0)), f);
    }
    ++this->steps_;
  }

  /// \brief The hyper-parameters (lr as given at construction; see learning_rate()).
  AdagradOptions const &options() const { return options_; }
  /// \brief Sums of squared gradients, one per parameter.
  std::vector<view_type> const &sum_of_squares() const { return sum_; }

private:
  AdagradOptions options_;
  std::vector<view_type> sum_;
};

} // namespace ttgnn

#endif
