#include "models/memory/gnn_chain_cost.hpp"

#include "core/error.hpp"
#include "models/layers/graph_conv.hpp"

#include <algorithm>
#include <string>

namespace ttgnn {

namespace {

struct Layout {
  GnnStepShape const &s;
  int L;
  std::int64_t width(int l) const {
    return l == 0 ? s.config.in_features : l == L ? s.config.out_features : s.config.hidden;
  }
  bool residual_at(int l) const {
    return s.config.residual && l + 1 < L && width(l) == width(l + 1);
  }
  bool fused_relu(int l) const { return l >= 0 && l + 1 < L && !residual_at(l); }
  bool batch_norm_at(int l) const { return s.config.batch_norm && l + 1 < L; }
  /// The layer's dropout writes a buffer of its own (GnnModel::stage_forward).
  bool separate_dropout(int l) const {
    return !fused_relu(l - 1) && s.dropped[l] && !(l == 0 && s.overwrite_input && !residual_at(0));
  }
};

} // namespace

ChainCost gnn_chain_cost(GnnStepShape const &shape) {
  const int L = shape.config.num_layers;
  if (static_cast<int>(shape.rows.size()) != L + 1 ||
      static_cast<int>(shape.nonzeros.size()) != L || static_cast<int>(shape.dropped.size()) != L)
    throw ConfigError("gnn_chain_cost: shapes for " + std::to_string(L) + " layers expected");
  Layout m{shape, L};
  const auto b = static_cast<std::int64_t>(shape.scalar_bytes);
  ChainCost c;
  for (int l = 0; l < L; ++l) {
    const std::int64_t n_in = shape.rows[l], n_out = shape.rows[l + 1];
    const std::int64_t w_in = m.width(l), w_out = m.width(l + 1);
    const bool agg = w_in <= w_out, keeps_ax = w_in < w_out; // models/layers/graph_conv.hpp
    const bool whole = m.batch_norm_at(l) || m.residual_at(l);
    const bool wants_grad = l > 0 || shape.input_gradient;
    // the forward's scratch: t = A x (not kept unless widening) or t = x W
    const std::int64_t t_scratch = keeps_ax ? 0 : agg ? n_out * w_in : n_in * w_out;
    StageCost s;
    s.input_bytes = l == 0 ? 0 : n_in * w_in * b;
    s.grad_bytes = s.input_bytes;
    s.grad_in_place = shape.in_place_gradients && l > 0 && l + 1 < L && n_in == n_out &&
                      w_in == w_out && !m.residual_at(l);
    s.saved_bytes =
        ((m.separate_dropout(l) ? n_in * w_in : 0) + (keeps_ax ? n_out * w_in : 0) +
         (m.batch_norm_at(l) ? n_out * w_out : 0) + (m.residual_at(l) ? n_out * w_out : 0)) *
        b;
    // t is freed before BatchNorm saves its normalized output: the peak above S_l holds only
    // what t exceeds that buffer by
    const std::int64_t over_bn =
        std::max<std::int64_t>(0, t_scratch - (m.batch_norm_at(l) ? n_out * w_out : 0));
    s.forward_scratch = over_bn * b;
    s.recompute_scratch = whole ? (over_bn + (m.fused_relu(l) ? n_out * w_out : 0)) * b : 0;
    // u = A^T gy unless widening (u = gy W^T replaces the freed t), and the rows of a SAGE
    // input gradient formed in place
    const std::int64_t u = keeps_ax ? 0 : n_in * w_out;
    const std::int64_t block = s.grad_in_place && shape.config.kind == GnnKind::sage
                                   ? std::min(n_in, kInPlaceGradRows) * w_in
                                   : 0;
    s.backward_scratch = (u + block + (m.residual_at(l) ? n_out * w_out : 0)) * b;
    const double spmm_in = kSpmmWeight * double(shape.nonzeros[l]) * double(w_in);
    const double spmm_out = kSpmmWeight * double(shape.nonzeros[l]) * double(w_out);
    const double gemm = double(agg ? n_out : n_in) * double(w_in) * double(w_out) +
                        (shape.config.kind == GnnKind::sage ? double(n_out) * w_in * w_out : 0.0);
    s.forward_cost = (agg ? spmm_in : spmm_out) + gemm;
    s.recompute_cost = whole ? s.forward_cost : keeps_ax ? spmm_in : 0.0;
    s.backward_cost = keeps_ax ? (wants_grad ? spmm_in + 2 * gemm : gemm)
                               : spmm_out + (wants_grad ? 2 * gemm : gemm);
    c.stages.push_back(s);
  }
  c.output_bytes = shape.rows[L] * m.width(L) * b;
  return c;
}

std::int64_t gnn_eval_peak_bytes(GnnStepShape const &shape) {
  GnnStepShape eval = shape;
  eval.dropped.assign(shape.dropped.size(), false);
  const ChainCost c = gnn_chain_cost(eval);
  std::int64_t peak = 0;
  const int L = static_cast<int>(c.stages.size());
  for (int l = 0; l < L; ++l) {
    StageCost const &s = c.stages[l];
    const std::int64_t out = l + 1 == L ? c.output_bytes : c.stages[l + 1].input_bytes;
    peak = std::max(peak, s.input_bytes + s.saved_bytes + s.forward_scratch + out);
  }
  return peak;
}

} // namespace ttgnn
