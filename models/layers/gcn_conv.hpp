#ifndef TTGNN_MODELS_GCN_CONV_HPP
#define TTGNN_MODELS_GCN_CONV_HPP
/// \file gcn_conv.hpp
/// \brief Graph convolution (Kipf & Welling): y = A x W + b with A the normalised adjacency
/// (models/layers/gcn_norm.hpp: gcn_norm). Like PyG's GCNConv: Glorot weight, zero bias.
///
/// The product is ordered to keep the sparse product narrow: A (x W) when the layer shrinks
/// the width (in > out), (A x) W otherwise.

#include "core/linalg/column_sums.hpp"
#include "core/linalg/dense_gemm.hpp"
#include "models/layers/graph_conv.hpp"
#include "models/layers/graph_operator.hpp"
#include "models/layers/layer.hpp"
#include "models/layers/linear.hpp"
#include "models/layers/parameter_init.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <vector>

namespace ttgnn {

/// \brief y = A x W + b over a GraphOperator (full graph or a sampled block).
template <class Scalar, class ExecutionSpace, class Ordinal = std::int32_t>
class GCNConv : public GraphConv<Scalar, ExecutionSpace, Ordinal> {
  using Base = GraphConv<Scalar, ExecutionSpace, Ordinal>;

public:
  using Base::aggregate_first;
  using typename Base::matrix_type;
  using typename Base::operator_type;

  /// \param in_features, out_features shape of W, \param bias whether b exists
  /// \param seed initialisation seed (reset_parameters)
  GCNConv(std::int64_t in_features, std::int64_t out_features, bool bias = true,
          std::uint64_t seed = 0)
      : Base("gcn_conv", {"weight"}, in_features, out_features, bias) {
    reset_parameters(seed);
  }

  void reset_parameters(std::uint64_t seed) override {
    uniform_fill(this->flat_weight(), init_bound(Init::glorot, this->in_, this->out_),
                 layer_rng::mix64(seed) ^ 1);
    if (this->has_bias())
      Kokkos::deep_copy(this->bias(), Scalar(0));
  }

  /// \brief y = A x W + b. x: a.num_cols x in, y: a.num_rows x out. Keeps a, x for backward.
  void forward(ExecutionSpace const &space, operator_type const &a, matrix_type const &x,
               matrix_type const &y) {
    detail::require_extents(x, a.num_cols, this->in_, "ttgnn::GCNConv::forward: x");
    detail::require_extents(y, a.num_rows, this->out_, "ttgnn::GCNConv::forward: y");
    this->a_ = a;
    this->x_ = x;
    if (aggregate_first()) {
      auto const &t = this->make_t("ax", a.num_rows, this->in_);
      a.apply(space, x, t);
      gemm(space, 'N', 'N', Scalar(1), t, this->weight(), Scalar(0), y);
      if (!this->keeps_ax())
        this->done_with_t();
    } else {
      auto const &t = this->make_t("xw", a.num_cols, this->out_);
      gemm(space, 'N', 'N', Scalar(1), x, this->weight(), Scalar(0), t);
      a.apply(space, t, y);
      this->done_with_t();
    }
    if (this->has_bias())
      detail::add_bias(space, y, this->bias());
  }

  /// \brief dW += (A x)^T gy, db += sums of gy, gx = A^T gy W^T (skipped if gx is empty).
  /// gx may be the forward's x (x is read before gx is written; GnnModel relies on it) or,
  /// for a layer that does not keep A x, gy's storage (gy is read before gx is written).
  void backward(ExecutionSpace const &space, matrix_type const &grad_y, matrix_type const &grad_x) {
    auto const &a_ = this->a_;
    detail::require_extents(grad_y, a_.num_rows, this->out_, "ttgnn::GCNConv::backward: grad_y");
    const bool want_x = detail::wanted(grad_x);
    if (want_x)
      detail::require_extents(grad_x, a_.num_cols, this->in_, "ttgnn::GCNConv::backward: grad_x");
    if (this->has_bias())
      column_sums(space, grad_y, this->bias_grad(), Scalar(1), this->sums_);
    if (this->keeps_ax()) { // y = t W, t = A x
      gemm(space, 'T', 'N', Scalar(1), this->t_, grad_y, Scalar(1), this->weight_grad());
      this->done_with_t();
      if (want_x) {
        auto const &u = this->make_u("grad_ax", a_.num_rows, this->in_);
        gemm(space, 'N', 'T', Scalar(1), grad_y, this->weight(), Scalar(0), u);
        a_.apply_transpose(space, u, grad_x);
      }
    } else { // through u = A^T gy: dW = x^T u, gx = u W^T
      auto const &u = this->make_u("grad_agg", a_.num_cols, this->out_);
      a_.apply_transpose(space, grad_y, u);
      gemm(space, 'T', 'N', Scalar(1), this->x_, u, Scalar(1), this->weight_grad());
      if (want_x)
        gemm(space, 'N', 'T', Scalar(1), u, this->weight(), Scalar(0), grad_x);
    }
    this->done_with_backward();
  }
};

} // namespace ttgnn

#endif
