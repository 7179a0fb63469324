#ifndef TTGNN_CORE_SGD_HPP
#define TTGNN_CORE_SGD_HPP
/// \file sgd.hpp
/// \brief Stochastic gradient descent with optional momentum, dampening, Nesterov momentum
/// and L2 weight decay, as torch.optim.SGD.

#include "core/optim/optimizer.hpp"

#include <limits>

namespace ttgnn {

/// \brief Hyper-parameters of Sgd (torch.optim.SGD's names and defaults).
struct SgdOptions {
  double lr = 0.01;        ///< learning rate
  double momentum = 0;     ///< momentum factor mu in [0, 1); 0 = plain SGD
  double dampening = 0;    ///< dampening tau in [0, 1] of the momentum buffer
  double weight_decay = 0; ///< L2 penalty lambda >= 0, added to the gradient
  bool nesterov = false;   ///< Nesterov momentum (needs momentum > 0 and dampening == 0)
};

/// \brief The element-wise SGD update (one parameter View).
template <class Scalar, class MemorySpace> struct SgdUpdate {
  Kokkos::View<Scalar *, MemorySpace> w, g, buf;
  Scalar lr, momentum, one_minus_dampening, weight_decay;
  bool use_momentum, first, nesterov;

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    Scalar d = g(i) + weight_decay * w(i);
    if (use_momentum) {
      const Scalar b = first ? d : momentum * buf(i) + one_minus_dampening * d;
      buf(i) = b;
      d = nesterov ? d + momentum * b : b;
    }
    w(i) -= lr * d;
  }
};

/// \brief SGD as torch.optim.SGD. With g = grad + lambda·w:
///   without momentum  w <- w - lr·g;
///   with momentum     b <- g on the first step, else b <- mu·b + (1 - tau)·g;
///                     w <- w - lr·(g + mu·b) if nesterov, else w <- w - lr·b.
template <class Scalar, class ExecutionSpace> class Sgd : public Optimizer<Scalar, ExecutionSpace> {
  using Base = Optimizer<Scalar, ExecutionSpace>;

public:
  using typename Base::view_type;

  /// \brief Binds the parameters and their gradients; allocates the momentum buffers (when
  /// momentum > 0). Throws ttgnn::ConfigError for out-of-range hyper-parameters.
  Sgd(ExecutionSpace const &space, std::vector<view_type> params, std::vector<view_type> grads,
      SgdOptions const &options)
      : Base(std::move(params), std::move(grads), options.lr, "sgd"), options_(options) {
    const double inf = std::numeric_limits<double>::infinity();
    this->check_range("momentum", options.momentum, 0, 1, true);
    this->check_range("dampening", options.dampening, 0, 1, false);
    this->check_range("weight_decay", options.weight_decay, 0, inf, true);
    if (options.nesterov && (options.momentum <= 0 || options.dampening != 0))
      throw ConfigError("ttgnn::sgd: nesterov needs momentum > 0 and dampening == 0");
    if (options.momentum > 0)
      momentum_buffer_ = this->make_state(space, "momentum_buffer");
  }

  void step(ExecutionSpace const &space) override {
    const bool use_momentum = options_.momentum > 0;
    for (std::size_t p = 0; p < this->params_.size(); ++p) {
      SgdUpdate<Scalar, typename Base::memory_space> f{this->params_[p],
                                                       this->grads_[p],
                                                       use_momentum ? momentum_buffer_[p]
                                                                    : view_type(),
                                                       Scalar(this->lr_),
                                                       Scalar(options_.momentum),
                                                       Scalar(1 - options_.dampening),
                                                       Scalar(options_.weight_decay),
                                                       use_momentum,
                                                       this->steps_ == 0,
                                                       options_.nesterov};
      Kokkos::parallel_for("ttgnn::sgd::step", optimizer_policy(space, this->params_[p].extent(0)),
                           f);
    }
    ++this->steps_;
  }

  /// \brief The hyper-parameters (lr as given at construction; see learning_rate()).
  SgdOptions const &options() const { return options_; }
  /// \brief Momentum buffers, one per parameter (empty without momentum).
  std::vector<view_type> const &momentum_buffer() const { return momentum_buffer_; }

private:
  SgdOptions options_;
  std::vector<view_type> momentum_buffer_;
};

} // namespace ttgnn

#endif
