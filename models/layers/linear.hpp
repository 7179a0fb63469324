#ifndef TTGNN_MODELS_LINEAR_HPP
#define TTGNN_MODELS_LINEAR_HPP
/// \file linear.hpp
/// \brief Dense layer y = x W + b (W is in x out, row-major), through ttgnn::gemm
/// (KokkosBlas::gemm: OpenBLAS on the host).

#include "core/linalg/column_sums.hpp"
#include "core/linalg/dense_gemm.hpp"
#include "core/linalg/for_each_entry.hpp"
#include "models/layers/dense_layer.hpp"
#include "models/layers/layer.hpp"
#include "models/layers/parameter_init.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <vector>

namespace ttgnn {

namespace detail {

/// y(i, c) += b(c) for every row.
template <class ExecutionSpace, class Scalar>
void add_bias(ExecutionSpace const &space, Matrix<Scalar, ExecutionSpace> const &y,
              Kokkos::View<Scalar *, typename ExecutionSpace::memory_space> const &b) {
  const std::int64_t n = static_cast<std::int64_t>(y.extent(0));
  const std::int64_t m = static_cast<std::int64_t>(y.extent(1));
  for_each_entry(
      space, "ttgnn::layer::add_bias", n, m,
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t j) { y(i, j) += b(j); });
}

} // namespace detail

/// \brief y = x W + b.
template <class Scalar, class ExecutionSpace>
class Linear : public DenseLayer<Scalar, ExecutionSpace> {
  using Base = DenseLayer<Scalar, ExecutionSpace>;
  using Base::in_;
  using Base::out_;

public:
  using typename Base::matrix_type;

  /// \param in_features, out_features shape of W
  /// \param bias whether b exists
  /// \param init weight scheme (torch.nn.Linear's default: kaiming); b ~ U(+-1/sqrt(in)) for
  /// kaiming, zero for glorot (PyG's convention)
  /// \param seed initialisation seed (reset_parameters)
  Linear(std::int64_t in_features, std::int64_t out_features, bool bias = true,
         Init init = Init::kaiming, std::uint64_t seed = 0)
      : Base("linear", {"weight"}, in_features, out_features, bias), init_(init) {
    reset_parameters(seed);
  }

  void reset_parameters(std::uint64_t seed) override {
    uniform_fill(this->flat_weight(), init_bound(init_, in_, out_), layer_rng::mix64(seed) ^ 1);
    if (this->has_bias()) {
      if (init_ == Init::kaiming)
        uniform_fill(this->bias(), init_bound(Init::kaiming, in_, out_),
                     layer_rng::mix64(seed) ^ 2);
      else
        Kokkos::deep_copy(this->bias(), Scalar(0));
    }
  }

  /// \brief y = x W + b; x is n x in, y is n x out. Keeps x for backward.
  void forward(ExecutionSpace const &space, matrix_type const &x, matrix_type const &y) {
    detail::require_extents(x, x.extent(0), in_, "ttgnn::Linear::forward: x");
    detail::require_extents(y, x.extent(0), out_, "ttgnn::Linear::forward: y");
    x_ = x;
    gemm(space, 'N', 'N', Scalar(1), x, this->weight(), Scalar(0), y);
    if (this->has_bias())
      detail::add_bias(space, y, this->bias());
  }

  /// \brief dW += x^T gy, db += column sums of gy, gx = gy W^T (skipped if gx is empty).
  void backward(ExecutionSpace const &space, matrix_type const &grad_y, matrix_type const &grad_x) {
    detail::require_extents(grad_y, x_.extent(0), out_, "ttgnn::Linear::backward: grad_y");
    gemm(space, 'T', 'N', Scalar(1), x_, grad_y, Scalar(1), this->weight_grad());
    if (this->has_bias())
      column_sums(space, grad_y, this->bias_grad(), Scalar(1), this->sums_);
    if (detail::wanted(grad_x)) {
      detail::require_extents(grad_x, x_.extent(0), in_, "ttgnn::Linear::backward: grad_x");
      gemm(space, 'N', 'T', Scalar(1), grad_y, this->weight(), Scalar(0), grad_x);
    }
  }

private:
  Init init_;
  matrix_type x_;
};

} // namespace ttgnn

#endif
