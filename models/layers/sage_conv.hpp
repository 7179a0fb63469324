#ifndef TTGNN_MODELS_SAGE_CONV_HPP
#define TTGNN_MODELS_SAGE_CONV_HPP
/// \file sage_conv.hpp
/// \brief GraphSAGE layer with mean aggregation and separate weights for the node and its
/// neighbours: y = x[:m] W_self + (A x) W_neigh + b, A = mean_aggregation
/// (models/layers/gcn_norm.hpp) or a sampled block's mean operator. Like PyG's SAGEConv
/// (root_weight, bias on the neighbour term, torch.nn.Linear's default initialisation).
///
/// On a sampled block the m = a.num_rows output nodes are the first m input nodes
/// (DGL/PyG block convention); on a full graph m = n.

#include "core/linalg/column_sums.hpp"
#include "core/linalg/dense_gemm.hpp"
#include "models/layers/graph_conv.hpp"
#include "models/layers/graph_operator.hpp"
#include "models/layers/layer.hpp"
#include "models/layers/linear.hpp"
#include "models/layers/parameter_init.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace ttgnn {

/// \brief y = x[:m] W_self + A x W_neigh + b.
template <class Scalar, class ExecutionSpace, class Ordinal = std::int32_t>
class SAGEConv : public GraphConv<Scalar, ExecutionSpace, Ordinal> {
  using Base = GraphConv<Scalar, ExecutionSpace, Ordinal>;

public:
  using Base::aggregate_first;
  using typename Base::matrix_type;
  using typename Base::operator_type;

  /// \param in_features, out_features shape of both weights, \param bias whether b exists
  /// \param seed initialisation seed (reset_parameters)
  SAGEConv(std::int64_t in_features, std::int64_t out_features, bool bias = true,
           std::uint64_t seed = 0)
      : Base("sage_conv", {"weight_self", "weight_neigh"}, in_features, out_features, bias) {
    reset_parameters(seed);
  }

  matrix_type weight_self() const { return this->weight(0); }
  matrix_type weight_neigh() const { return this->weight(1); }

  void reset_parameters(std::uint64_t seed) override {
    const double bound = init_bound(Init::kaiming, this->in_, this->out_);
    uniform_fill(this->flat_weight(0), bound, layer_rng::mix64(seed) ^ 1);
    uniform_fill(this->flat_weight(1), bound, layer_rng::mix64(seed) ^ 2);
    if (this->has_bias())
      uniform_fill(this->bias(), bound, layer_rng::mix64(seed) ^ 3);
  }

  /// \brief y = x[:m] W_self + A x W_neigh + b. x: a.num_cols x in (a.num_cols >= a.num_rows),
  /// y: a.num_rows x out. Keeps a, x for backward.
  void forward(ExecutionSpace const &space, operator_type const &a, matrix_type const &x,
               matrix_type const &y) {
    detail::require_extents(x, a.num_cols, this->in_, "ttgnn::SAGEConv::forward: x");
    detail::require_extents(y, a.num_rows, this->out_, "ttgnn::SAGEConv::forward: y");
    if (a.num_rows > a.num_cols)
      throw ConfigError("ttgnn::SAGEConv: the operator has more output nodes (" +
                        std::to_string(a.num_rows) + ") than input nodes (" +
                        std::to_string(a.num_cols) + ")");
    this->a_ = a;
    this->x_ = x;
    if (aggregate_first()) {
      auto const &t = this->make_t("ax", a.num_rows, this->in_);
      a.apply(space, x, t);
      gemm(space, 'N', 'N', Scalar(1), t, weight_neigh(), Scalar(0), y);
      if (!this->keeps_ax())
        this->done_with_t();
    } else {
      auto const &t = this->make_t("xw", a.num_cols, this->out_);
      gemm(space, 'N', 'N', Scalar(1), x, weight_neigh(), Scalar(0), t);
      a.apply(space, t, y);
      this->done_with_t();
    }
    gemm(space, 'N', 'N', Scalar(1), top_rows(x, a.num_rows), weight_self(), Scalar(1), y);
    if (this->has_bias())
      detail::add_bias(space, y, this->bias());
  }

  /// \brief Accumulates dW_self, dW_neigh, db; gx = A^T gy W_neigh^T + [gy W_self^T; 0].
  /// gx may be the forward's x (x is read before gx is written; GnnModel relies on it) or,
  /// for a layer that does not keep A x, gy's storage (rows and widths equal): gx is then
  /// formed kInPlaceGradRows rows at a time, each block of gy read before it is overwritten.
  void backward(ExecutionSpace const &space, matrix_type const &grad_y, matrix_type const &grad_x) {
    auto const &a_ = this->a_;
    auto const &x_ = this->x_;
    const std::int64_t m = a_.num_rows;
    detail::require_extents(grad_y, m, this->out_, "ttgnn::SAGEConv::backward: grad_y");
    const bool want_x = detail::wanted(grad_x);
    if (want_x)
      detail::require_extents(grad_x, a_.num_cols, this->in_, "ttgnn::SAGEConv::backward: grad_x");
    if (this->has_bias())
      column_sums(space, grad_y, this->bias_grad(), Scalar(1), this->sums_);
    gemm(space, 'T', 'N', Scalar(1), top_rows(x_, m), grad_y, Scalar(1), this->weight_grad(0));
    if (this->keeps_ax()) { // neighbour term t W_neigh, t = A x
      gemm(space, 'T', 'N', Scalar(1), this->t_, grad_y, Scalar(1), this->weight_grad(1));
      this->done_with_t();
      if (want_x) {
        auto const &u = this->make_u("grad_ax", m, this->in_);
        gemm(space, 'N', 'T', Scalar(1), grad_y, weight_neigh(), Scalar(0), u);
        a_.apply_transpose(space, u, grad_x);
        gemm(space, 'N', 'T', Scalar(1), grad_y, weight_self(), Scalar(1), top_rows(grad_x, m));
      }
    } else { // through u = A^T gy: dW_neigh = x^T u, gx = u W_neigh^T + [gy W_self^T; 0]
      auto const &u = this->make_u("grad_agg", a_.num_cols, this->out_);
      a_.apply_transpose(space, grad_y, u);
      gemm(space, 'T', 'N', Scalar(1), x_, u, Scalar(1), this->weight_grad(1));
      if (want_x && grad_x.data() == grad_y.data())
        input_gradient_in_place(space, grad_y, u, grad_x);
      else if (want_x) {
        gemm(space, 'N', 'T', Scalar(1), u, weight_neigh(), Scalar(0), grad_x);
        gemm(space, 'N', 'T', Scalar(1), grad_y, weight_self(), Scalar(1), top_rows(grad_x, m));
      }
    }
    this->done_with_backward();
  }

private:
  static matrix_type top_rows(matrix_type const &x, std::int64_t m) { return row_range(x, 0, m); }
  static matrix_type row_range(matrix_type const &x, std::int64_t begin, std::int64_t end) {
    return Kokkos::subview(x, std::make_pair(begin, end), Kokkos::ALL);
  }

  /// gx = u W_neigh^T + gy W_self^T over gx = gy's storage, kInPlaceGradRows rows at a time.
  void input_gradient_in_place(ExecutionSpace const &space, matrix_type const &grad_y,
                               matrix_type const &u, matrix_type const &grad_x) {
    const std::int64_t n = grad_x.extent(0);
    if (grad_y.extent(0) != grad_x.extent(0) || this->in_ != this->out_)
      throw ConfigError("ttgnn::SAGEConv::backward: grad_x may share grad_y's storage only when "
                        "their shapes are equal");
    auto const &block = this->make_t("grad_block", std::min(n, kInPlaceGradRows), this->in_);
    for (std::int64_t begin = 0; begin < n; begin += kInPlaceGradRows) {
      const std::int64_t end = std::min(n, begin + kInPlaceGradRows);
      auto const b = row_range(block, 0, end - begin);
      gemm(space, 'N', 'T', Scalar(1), row_range(u, begin, end), weight_neigh(), Scalar(0), b);
      gemm(space, 'N', 'T', Scalar(1), row_range(grad_y, begin, end), weight_self(), Scalar(1), b);
      Kokkos::deep_copy(space, row_range(grad_x, begin, end), b);
    }
  }
};

} // namespace ttgnn

#endif
