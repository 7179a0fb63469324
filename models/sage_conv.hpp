#ifndef TTGNN_MODELS_SAGE_CONV_HPP
#define TTGNN_MODELS_SAGE_CONV_HPP
/// \file sage_conv.hpp
/// \brief GraphSAGE layer with mean aggregation and separate weights for the node and its
/// neighbours: y = x[:m] W_self + (A x) W_neigh + b, A = mean_aggregation (models/gcn_norm.hpp)
/// or a sampled block's mean operator. Like PyG's SAGEConv (root_weight, bias on the
/// neighbour term, torch.nn.Linear's default initialisation).
///
/// On a sampled block the m = a.num_rows output nodes are the first m input nodes
/// (DGL/PyG block convention); on a full graph m = n.

#include "core/column_sums.hpp"
#include "core/dense_gemm.hpp"
#include "models/graph_operator.hpp"
#include "models/layer.hpp"
#include "models/linear.hpp"
#include "models/parameter_init.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <utility>
#include <vector>

namespace ttgnn {

/// \brief y = x[:m] W_self + A x W_neigh + b.
template <class Scalar, class ExecutionSpace, class Ordinal = std::int32_t>
class SAGEConv : public Layer<Scalar, ExecutionSpace> {
public:
  using typename Layer<Scalar, ExecutionSpace>::matrix_type;
  using typename Layer<Scalar, ExecutionSpace>::vector_type;
  using operator_type = GraphOperator<Scalar, ExecutionSpace, Ordinal>;

  /// \param in_features, out_features shape of both weights, \param bias whether b exists
  /// \param seed initialisation seed (reset_parameters)
  SAGEConv(std::int64_t in_features, std::int64_t out_features, bool bias = true,
           std::uint64_t seed = 0)
      : in_(in_features), out_(out_features),
        w_self_("ttgnn::sage_conv::weight_self", in_features * out_features),
        w_neigh_("ttgnn::sage_conv::weight_neigh", in_features * out_features),
        g_self_("ttgnn::sage_conv::weight_self_grad", in_features * out_features),
        g_neigh_("ttgnn::sage_conv::weight_neigh_grad", in_features * out_features) {
    if (in_features <= 0 || out_features <= 0)
      throw ConfigError("ttgnn::SAGEConv: features must be positive, got " +
                        std::to_string(in_features) + " -> " + std::to_string(out_features));
    if (bias) {
      bias_ = vector_type("ttgnn::sage_conv::bias", out_features);
      bias_grad_ = vector_type("ttgnn::sage_conv::bias_grad", out_features);
    }
    reset_parameters(seed);
  }

  std::int64_t in_features() const { return in_; }
  std::int64_t out_features() const { return out_; }
  matrix_type weight_self() const { return as_matrix(w_self_); }
  matrix_type weight_neigh() const { return as_matrix(w_neigh_); }
  vector_type bias() const { return bias_; }

  /// Order: W_self, W_neigh, b (when present).
  std::vector<vector_type> parameters() const override {
    std::vector<vector_type> p{w_self_, w_neigh_};
    if (bias_.extent(0))
      p.push_back(bias_);
    return p;
  }
  std::vector<vector_type> gradients() const override {
    std::vector<vector_type> g{g_self_, g_neigh_};
    if (bias_.extent(0))
      g.push_back(bias_grad_);
    return g;
  }
  void reset_parameters(std::uint64_t seed) override {
    const double bound = init_bound(Init::kaiming, in_, out_);
    uniform_fill(w_self_, bound, layer_rng::mix64(seed) ^ 1);
    uniform_fill(w_neigh_, bound, layer_rng::mix64(seed) ^ 2);
    if (bias_.extent(0))
      uniform_fill(bias_, bound, layer_rng::mix64(seed) ^ 3);
  }

  /// \brief y = x[:m] W_self + A x W_neigh + b. x: a.num_cols x in (a.num_cols >= a.num_rows),
  /// y: a.num_rows x out. Keeps a, x for backward.
  void forward(ExecutionSpace const &space, operator_type const &a, matrix_type const &x,
               matrix_type const &y) {
    detail::require_extents(x, a.num_cols, in_, "ttgnn::SAGEConv::forward: x");
    detail::require_extents(y, a.num_rows, out_, "ttgnn::SAGEConv::forward: y");
    if (a.num_rows > a.num_cols)
      throw ConfigError("ttgnn::SAGEConv: the operator has more output nodes (" +
                        std::to_string(a.num_rows) + ") than input nodes (" +
                        std::to_string(a.num_cols) + ")");
    a_ = a;
    x_ = x;
    if (aggregate_first()) {
      detail::ensure_extents(t_, "ttgnn::sage_conv::ax", a.num_rows, in_);
      a.apply(space, x, t_);
      gemm(space, 'N', 'N', Scalar(1), t_, weight_neigh(), Scalar(0), y);
    } else {
      detail::ensure_extents(t_, "ttgnn::sage_conv::xw", a.num_cols, out_);
      gemm(space, 'N', 'N', Scalar(1), x, weight_neigh(), Scalar(0), t_);
      a.apply(space, t_, y);
    }
    gemm(space, 'N', 'N', Scalar(1), top_rows(x, a.num_rows), weight_self(), Scalar(1), y);
    if (bias_.extent(0))
      detail::add_bias(space, y, bias_);
  }

  /// \brief Accumulates dW_self, dW_neigh, db; gx = A^T gy W_neigh^T + [gy W_self^T; 0].
  /// gx may be the forward's x: x is read before gx is written (GnnModel relies on it).
  void backward(ExecutionSpace const &space, matrix_type const &grad_y, matrix_type const &grad_x) {
    const std::int64_t m = a_.num_rows;
    detail::require_extents(grad_y, m, out_, "ttgnn::SAGEConv::backward: grad_y");
    const bool want_x = detail::wanted(grad_x);
    if (want_x)
      detail::require_extents(grad_x, a_.num_cols, in_, "ttgnn::SAGEConv::backward: grad_x");
    if (bias_.extent(0))
      column_sums(space, grad_y, bias_grad_, Scalar(1));
    gemm(space, 'T', 'N', Scalar(1), top_rows(x_, m), grad_y, Scalar(1), as_matrix(g_self_));
    if (aggregate_first()) { // neighbour term t W_neigh, t = A x
      gemm(space, 'T', 'N', Scalar(1), t_, grad_y, Scalar(1), as_matrix(g_neigh_));
      if (want_x) {
        detail::ensure_extents(u_, "ttgnn::sage_conv::grad_ax", m, in_);
        gemm(space, 'N', 'T', Scalar(1), grad_y, weight_neigh(), Scalar(0), u_);
        a_.apply_transpose(space, u_, grad_x);
      }
    } else { // neighbour term A t, t = x W_neigh
      detail::ensure_extents(u_, "ttgnn::sage_conv::grad_xw", a_.num_cols, out_);
      a_.apply_transpose(space, grad_y, u_);
      gemm(space, 'T', 'N', Scalar(1), x_, u_, Scalar(1), as_matrix(g_neigh_));
      if (want_x)
        gemm(space, 'N', 'T', Scalar(1), u_, weight_neigh(), Scalar(0), grad_x);
    }
    if (want_x)
      gemm(space, 'N', 'T', Scalar(1), grad_y, weight_self(), Scalar(1), top_rows(grad_x, m));
  }

  /// True when forward computes (A x) W_neigh (in <= out), false for A (x W_neigh).
  bool aggregate_first() const { return in_ <= out_; }

  void add_workspace(ByteLedger &ledger) const override { ledger.add(x_).add(t_).add(u_); }

private:
  matrix_type as_matrix(vector_type const &flat) const {
    return detail::as_matrix<Scalar, ExecutionSpace>(flat, in_, out_);
  }
  static matrix_type top_rows(matrix_type const &x, std::int64_t m) {
    return Kokkos::subview(x, std::make_pair(std::int64_t(0), m), Kokkos::ALL);
  }

  std::int64_t in_, out_;
  vector_type w_self_, w_neigh_, g_self_, g_neigh_, bias_, bias_grad_;
  operator_type a_;
  matrix_type x_, t_, u_;
};

} // namespace ttgnn

#endif
