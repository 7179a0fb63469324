#ifndef TTGNN_MODELS_LINEAR_HPP
#define TTGNN_MODELS_LINEAR_HPP
/// \file linear.hpp
/// \brief Dense layer y = x W + b (W is in x out, row-major), through ttgnn::gemm
/// (KokkosBlas::gemm: OpenBLAS on the host).

#include "core/column_sums.hpp"
#include "core/dense_gemm.hpp"
#include "models/layer.hpp"
#include "models/parameter_init.hpp"

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
  Kokkos::parallel_for(
      "ttgnn::layer::add_bias", Kokkos::RangePolicy<ExecutionSpace>(space, 0, n * m),
      KOKKOS_LAMBDA(std::int64_t k) { y(k / m, k % m) += b(k % m); });
}

} // namespace detail

/// \brief y = x W + b.
template <class Scalar, class ExecutionSpace> class Linear : public Layer<Scalar, ExecutionSpace> {
public:
  using typename Layer<Scalar, ExecutionSpace>::matrix_type;
  using typename Layer<Scalar, ExecutionSpace>::vector_type;

  /// \param in_features, out_features shape of W
  /// \param bias whether b exists
  /// \param init weight scheme (torch.nn.Linear's default: kaiming); b ~ U(+-1/sqrt(in)) for
  /// kaiming, zero for glorot (PyG's convention)
  /// \param seed initialisation seed (reset_parameters)
  Linear(std::int64_t in_features, std::int64_t out_features, bool bias = true,
         Init init = Init::kaiming, std::uint64_t seed = 0)
      : in_(in_features), out_(out_features), init_(init),
        weight_("ttgnn::linear::weight", in_features * out_features),
        weight_grad_("ttgnn::linear::weight_grad", in_features * out_features) {
    if (in_features <= 0 || out_features <= 0)
      throw ConfigError("ttgnn::Linear: features must be positive, got " +
                        std::to_string(in_features) + " -> " + std::to_string(out_features));
    if (bias) {
      bias_ = vector_type("ttgnn::linear::bias", out_features);
      bias_grad_ = vector_type("ttgnn::linear::bias_grad", out_features);
    }
    reset_parameters(seed);
  }

  std::int64_t in_features() const { return in_; }
  std::int64_t out_features() const { return out_; }
  /// W as an in x out matrix aliasing parameters()[0].
  matrix_type weight() const {
    return detail::as_matrix<Scalar, ExecutionSpace>(weight_, in_, out_);
  }
  matrix_type weight_grad() const {
    return detail::as_matrix<Scalar, ExecutionSpace>(weight_grad_, in_, out_);
  }
  /// b (empty View without bias).
  vector_type bias() const { return bias_; }

  std::vector<vector_type> parameters() const override {
    return bias_.extent(0) ? std::vector<vector_type>{weight_, bias_}
                           : std::vector<vector_type>{weight_};
  }
  std::vector<vector_type> gradients() const override {
    return bias_.extent(0) ? std::vector<vector_type>{weight_grad_, bias_grad_}
                           : std::vector<vector_type>{weight_grad_};
  }
  void reset_parameters(std::uint64_t seed) override {
    uniform_fill(weight_, init_bound(init_, in_, out_), layer_rng::mix64(seed) ^ 1);
    if (bias_.extent(0)) {
      if (init_ == Init::kaiming)
        uniform_fill(bias_, init_bound(Init::kaiming, in_, out_), layer_rng::mix64(seed) ^ 2);
      else
        Kokkos::deep_copy(bias_, Scalar(0));
    }
  }

  /// \brief y = x W + b; x is n x in, y is n x out. Keeps x for backward.
  void forward(ExecutionSpace const &space, matrix_type const &x, matrix_type const &y) {
    detail::require_extents(x, x.extent(0), in_, "ttgnn::Linear::forward: x");
    detail::require_extents(y, x.extent(0), out_, "ttgnn::Linear::forward: y");
    x_ = x;
    gemm(space, 'N', 'N', Scalar(1), x, weight(), Scalar(0), y);
    if (bias_.extent(0))
      detail::add_bias(space, y, bias_);
  }

  /// \brief dW += x^T gy, db += column sums of gy, gx = gy W^T (skipped if gx is empty).
  void backward(ExecutionSpace const &space, matrix_type const &grad_y, matrix_type const &grad_x) {
    detail::require_extents(grad_y, x_.extent(0), out_, "ttgnn::Linear::backward: grad_y");
    gemm(space, 'T', 'N', Scalar(1), x_, grad_y, Scalar(1), weight_grad());
    if (bias_.extent(0))
      column_sums(space, grad_y, bias_grad_, Scalar(1));
    if (detail::wanted(grad_x)) {
      detail::require_extents(grad_x, x_.extent(0), in_, "ttgnn::Linear::backward: grad_x");
      gemm(space, 'N', 'T', Scalar(1), grad_y, weight(), Scalar(0), grad_x);
    }
  }

private:
  std::int64_t in_, out_;
  Init init_;
  vector_type weight_, weight_grad_, bias_, bias_grad_;
  matrix_type x_;
};

} // namespace ttgnn

#endif
