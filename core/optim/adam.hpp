#ifndef TTGNN_CORE_ADAM_HPP
#define TTGNN_CORE_ADAM_HPP
/// \file adam.hpp
/// \brief Adam with L2 weight decay (torch.optim.Adam) and AdamW with decoupled weight decay
/// (torch.optim.AdamW).

#include "core/kokkos_compat.hpp"
#include "core/linalg/for_each_entry.hpp"
#include "core/optim/optimizer.hpp"

#include <cmath>
#include <limits>

namespace ttgnn {

/// \brief Hyper-parameters of Adam and AdamW (torch's names; torch's defaults except that
/// AdamW's default weight decay, 0.01, is set by AdamW::default_options()).
struct AdamOptions {
  double lr = 1e-3;        ///< learning rate
  double beta1 = 0.9;      ///< decay of the first moment, in [0, 1)
  double beta2 = 0.999;    ///< decay of the second moment, in [0, 1)
  double eps = 1e-8;       ///< added to the denominator, >= 0
  double weight_decay = 0; ///< Adam: L2 added to the gradient; AdamW: decoupled decay
};

/// \brief The element-wise Adam/AdamW update (one parameter View).
template <class Scalar, class MemorySpace> struct AdamUpdate {
  Kokkos::View<Scalar *, MemorySpace> w, g, m, v;
  Scalar one_minus_beta1, beta2, one_minus_beta2;
  Scalar step_size;    // lr / (1 - beta1^t)
  Scalar inv_sqrt_bc2; // 1 / sqrt(1 - beta2^t)
  Scalar eps;
  Scalar l2;    // Adam: weight_decay; AdamW: 0
  Scalar decay; // AdamW: 1 - lr·weight_decay; Adam: 1

  /// Entries [begin, end) (for_each_span): the coefficients are read into locals first, so
  /// that the loop vectorises (a store to w(i) could alias a Scalar member); the four arrays
  /// are distinct (restrict).
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t begin, std::int64_t end) const {
    const Scalar b1c = one_minus_beta1, b2 = beta2, b2c = one_minus_beta2, lr = step_size,
                 bc2 = inv_sqrt_bc2, e = eps, wd = l2, dec = decay;
    Scalar *__restrict__ wp = w.data();
    Scalar *__restrict__ mp = m.data();
    Scalar *__restrict__ vp = v.data();
    Scalar const *__restrict__ gp = g.data();
    for (std::int64_t i = begin; i < end; ++i) {
      const Scalar wi = wp[i];
      const Scalar gi = gp[i] + wd * wi;
      const Scalar mi = mp[i] + b1c * (gi - mp[i]); // torch: exp_avg.lerp_(grad, 1-b1)
      const Scalar vi = b2 * vp[i] + b2c * gi * gi;
      mp[i] = mi;
      vp[i] = vi;
      const Scalar denom = compat::sqrt(vi) * bc2 + e;
      wp[i] = wi * dec - lr * mi / denom;
    }
  }
};

/// \brief Adam (Kingma & Ba) as torch.optim.Adam (amsgrad off). At step t (from 1), with
/// g = grad + lambda·w (L2 weight decay):
///   m <- beta1·m + (1-beta1)·g,  v <- beta2·v + (1-beta2)·g²,
///   w <- w - lr/(1-beta1^t) · m / (sqrt(v)/sqrt(1-beta2^t) + eps).
/// The first step moves every weight by lr·g/(|g| + eps) ≈ lr·sign(g).
/// With `decoupled` (AdamW) the gradient is not changed and the weight decays instead:
///   w <- w·(1 - lr·lambda) - lr/(1-beta1^t) · m / (...).
template <class Scalar, class ExecutionSpace>
class Adam : public Optimizer<Scalar, ExecutionSpace> {
  using Base = Optimizer<Scalar, ExecutionSpace>;

public:
  using typename Base::view_type;

  /// \brief Binds the parameters and their gradients and allocates both moments (zero).
  /// Throws ttgnn::ConfigError for out-of-range hyper-parameters.
  Adam(ExecutionSpace const &space, std::vector<view_type> params, std::vector<view_type> grads,
       AdamOptions const &options)
      : Adam(space, std::move(params), std::move(grads), options, false, "adam") {}

  void step(ExecutionSpace const &space) override {
    const std::int64_t t = this->steps_ + 1;
    const double bc1 = 1 - std::pow(options_.beta1, double(t));
    const double bc2 = 1 - std::pow(options_.beta2, double(t));
    const double wd = options_.weight_decay;
    for (std::size_t p = 0; p < this->params_.size(); ++p) {
      AdamUpdate<Scalar, typename Base::memory_space> f{
          this->params_[p],
          this->grads_[p],
          exp_avg_[p],
          exp_avg_sq_[p],
          Scalar(1 - options_.beta1),
          Scalar(options_.beta2),
          Scalar(1 - options_.beta2),
          Scalar(this->lr_ / bc1),
          Scalar(1 / std::sqrt(bc2)),
          Scalar(options_.eps),
          Scalar(decoupled_ ? 0 : wd),
          Scalar(decoupled_ ? 1 - this->lr_ * wd : 1)};
      for_each_span(space, decoupled_ ? "ttgnn::adamw::step" : "ttgnn::adam::step",
                    static_cast<std::int64_t>(this->params_[p].extent(0)), f);
    }
    ++this->steps_;
  }

  /// \brief The hyper-parameters (lr as given at construction; see learning_rate()).
  AdamOptions const &options() const { return options_; }
  /// \brief First moments m, one per parameter.
  std::vector<view_type> const &exp_avg() const { return exp_avg_; }
  /// \brief Second moments v, one per parameter.
  std::vector<view_type> const &exp_avg_sq() const { return exp_avg_sq_; }

protected:
  Adam(ExecutionSpace const &space, std::vector<view_type> params, std::vector<view_type> grads,
       AdamOptions const &options, bool decoupled, char const *name)
      : Base(std::move(params), std::move(grads), options.lr, name), options_(options),
        decoupled_(decoupled) {
    const double inf = std::numeric_limits<double>::infinity();
    this->check_range("beta1", options.beta1, 0, 1, true);
    this->check_range("beta2", options.beta2, 0, 1, true);
    this->check_range("eps", options.eps, 0, inf, true);
    this->check_range("weight_decay", options.weight_decay, 0, inf, true);
    exp_avg_ = this->make_state(space, "exp_avg");
    exp_avg_sq_ = this->make_state(space, "exp_avg_sq");
  }

private:
  AdamOptions options_;
  bool decoupled_;
  std::vector<view_type> exp_avg_, exp_avg_sq_;
};

/// \brief AdamW (Loshchilov & Hutter) as torch.optim.AdamW: Adam with decoupled weight decay
/// w <- w·(1 - lr·lambda) before the Adam update of the undecayed gradient.
template <class Scalar, class ExecutionSpace> class AdamW : public Adam<Scalar, ExecutionSpace> {
public:
  using typename Adam<Scalar, ExecutionSpace>::view_type;

  /// \brief torch.optim.AdamW's defaults (weight decay 0.01).
  static AdamOptions default_options() {
    AdamOptions o;
    o.weight_decay = 0.01;
    return o;
  }

  /// \brief Binds the parameters and their gradients and allocates both moments (zero).
  AdamW(ExecutionSpace const &space, std::vector<view_type> params, std::vector<view_type> grads,
        AdamOptions const &options)
      : Adam<Scalar, ExecutionSpace>(space, std::move(params), std::move(grads), options, true,
                                     "adamw") {}
};

} // namespace ttgnn

#endif
