#ifndef TTGNN_MODELS_RELU_HPP
#define TTGNN_MODELS_RELU_HPP
/// \file relu.hpp
/// \brief y = max(x, 0), element-wise. In place is allowed (y may be x, grad_x may be grad_y):
/// backward uses the sign of the output.

#include "models/layers/layer.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace ttgnn {

/// \brief Rectified linear unit.
template <class Scalar, class ExecutionSpace> class ReLU : public Layer<Scalar, ExecutionSpace> {
public:
  using typename Layer<Scalar, ExecutionSpace>::matrix_type;

  /// \brief y = max(x, 0); keeps y for backward (leave it unchanged until then).
  void forward(ExecutionSpace const &space, matrix_type const &x, matrix_type const &y) {
    detail::require_extents(y, x.extent(0), x.extent(1), "ttgnn::ReLU::forward: y");
    y_ = y;
    const std::int64_t m = static_cast<std::int64_t>(x.extent(1));
    Kokkos::parallel_for(
        "ttgnn::relu::forward",
        Kokkos::RangePolicy<ExecutionSpace>(space, 0, static_cast<std::int64_t>(x.size())),
        KOKKOS_LAMBDA(std::int64_t k) {
          const Scalar v = x(k / m, k % m);
          y(k / m, k % m) = v > Scalar(0) ? v : Scalar(0);
        });
  }

  /// \brief grad_x = grad_y where the output was positive, else 0.
  void backward(ExecutionSpace const &space, matrix_type const &grad_y, matrix_type const &grad_x) {
    if (!detail::wanted(grad_x))
      return;
    detail::require_extents(grad_y, y_.extent(0), y_.extent(1), "ttgnn::ReLU::backward: grad_y");
    detail::require_extents(grad_x, y_.extent(0), y_.extent(1), "ttgnn::ReLU::backward: grad_x");
    const std::int64_t m = static_cast<std::int64_t>(y_.extent(1));
    auto y = y_;
    Kokkos::parallel_for(
        "ttgnn::relu::backward",
        Kokkos::RangePolicy<ExecutionSpace>(space, 0, static_cast<std::int64_t>(y.size())),
        KOKKOS_LAMBDA(std::int64_t k) {
          grad_x(k / m, k % m) = y(k / m, k % m) > Scalar(0) ? grad_y(k / m, k % m) : Scalar(0);
        });
  }

  void add_workspace(ByteLedger &ledger) const override { ledger.add(y_); }

private:
  matrix_type y_;
};

} // namespace ttgnn

#endif
