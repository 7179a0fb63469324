#ifndef TTGNN_MODELS_RELU_HPP
#define TTGNN_MODELS_RELU_HPP
/// \file relu.hpp
/// \brief y = max(x, 0), element-wise. In place is allowed (y may be x, grad_x may be grad_y):
/// backward uses the sign of the output.

#include "core/linalg/for_each_entry.hpp"
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
    for_each_entry(
        space, "ttgnn::relu::forward", static_cast<std::int64_t>(x.extent(0)),
        static_cast<std::int64_t>(x.extent(1)), KOKKOS_LAMBDA(std::int64_t i, std::int64_t j) {
          const Scalar v = x(i, j);
          y(i, j) = v > Scalar(0) ? v : Scalar(0);
        });
  }

  /// \brief grad_x = grad_y where the output was positive, else 0.
  void backward(ExecutionSpace const &space, matrix_type const &grad_y, matrix_type const &grad_x) {
    if (!detail::wanted(grad_x))
      return;
    detail::require_extents(grad_y, y_.extent(0), y_.extent(1), "ttgnn::ReLU::backward: grad_y");
    detail::require_extents(grad_x, y_.extent(0), y_.extent(1), "ttgnn::ReLU::backward: grad_x");
    auto y = y_;
    // a product, not a branch on the sign: the signs are random, the branch mispredicted
    for_each_entry(
        space, "ttgnn::relu::backward", static_cast<std::int64_t>(y.extent(0)),
        static_cast<std::int64_t>(y.extent(1)), KOKKOS_LAMBDA(std::int64_t i, std::int64_t j) {
          grad_x(i, j) = grad_y(i, j) * Scalar(y(i, j) > Scalar(0));
        });
  }

  void add_workspace(ByteLedger &ledger) const override { ledger.add(y_); }
  /// Drops the kept output.
  void release_saved() { y_ = matrix_type(); }

private:
  matrix_type y_;
};

} // namespace ttgnn

#endif
