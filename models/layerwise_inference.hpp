#ifndef TTGNN_MODELS_LAYERWISE_INFERENCE_HPP
#define TTGNN_MODELS_LAYERWISE_INFERENCE_HPP
/// \file layerwise_inference.hpp
/// \brief Layer-wise full-neighbour inference of a GraphSAGE GnnModel (DGL's SAGE.inference):
/// layer l is computed for every node, in chunks of rows, before layer l + 1 starts. Exact
/// (every neighbour is used) and linear in the graph size, unlike sampling an L-hop
/// neighbourhood per node. Evaluation mode: dropout off, BatchNorm on running statistics.
///
/// Reads the model through its documented parameter order (models/gnn_model.hpp: per layer
/// SAGEConv's W_self, W_neigh, b, then BatchNorm's gamma, beta; buffers: running mean and
/// variance); tests/models/test_minibatch_trainer.cpp checks the result against the model's
/// own forward on full-neighbour blocks.

#include "core/dense_gemm.hpp"
#include "core/error.hpp"
#include "core/kokkos_compat.hpp"
#include "models/block_operator.hpp"
#include "models/gnn_model.hpp"
#include "models/linear.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace ttgnn {

namespace detail {

/// y = relu(gamma (y - mean) / sqrt(var + eps) + beta) (no BatchNorm when gamma is empty),
/// then y += h (residual) when h is not empty. Row-wise, in place.
template <class Scalar, class ExecutionSpace>
void sage_inference_activation(ExecutionSpace const &space, Matrix<Scalar, ExecutionSpace> const &y,
                               Kokkos::View<Scalar *, typename ExecutionSpace::memory_space> gamma,
                               Kokkos::View<Scalar *, typename ExecutionSpace::memory_space> beta,
                               Kokkos::View<Scalar *, typename ExecutionSpace::memory_space> mean,
                               Kokkos::View<Scalar *, typename ExecutionSpace::memory_space> var,
                               Matrix<Scalar, ExecutionSpace> const &h, double eps) {
  const std::int64_t rows = static_cast<std::int64_t>(y.extent(0));
  const std::int64_t c = static_cast<std::int64_t>(y.extent(1));
  const bool bn = gamma.extent(0) > 0, residual = h.extent(0) > 0;
  const Scalar e = static_cast<Scalar>(eps);
  Kokkos::parallel_for(
      "ttgnn::layerwise_inference::activation",
      Kokkos::RangePolicy<ExecutionSpace>(space, 0, rows * c), KOKKOS_LAMBDA(std::int64_t k) {
        const std::int64_t i = k / c, j = k % c;
        Scalar v = y(i, j);
        if (bn)
          v = gamma(j) * (v - mean(j)) / compat::sqrt(var(j) + e) + beta(j);
        v = v > Scalar(0) ? v : Scalar(0);
        if (residual)
          v += h(i, j);
        y(i, j) = v;
      });
}

} // namespace detail

/// \brief Logits of every node (N x classes) from a GraphSAGE GnnModel, layer by layer.
/// \param h0 input rows of all N nodes (N x in_features), \param chunk rows per step; memory
/// is two N x width matrices plus chunk-sized temporaries.
/// Throws ConfigError for a GCN model or mismatched shapes.
template <class Scalar, class ExecutionSpace, class Ordinal>
Matrix<Scalar, ExecutionSpace>
sage_layerwise_inference(ExecutionSpace const &space,
                         GnnModel<Scalar, ExecutionSpace, std::int32_t> const &model,
                         FullGraphMean<ExecutionSpace, Ordinal> const &graph,
                         Matrix<Scalar, ExecutionSpace> const &h0, std::int64_t chunk = 65536) {
  using matrix_type = Matrix<Scalar, ExecutionSpace>;
  using vector_type = Kokkos::View<Scalar *, typename ExecutionSpace::memory_space>;
  GnnConfig const &cfg = model.config();
  if (cfg.kind != GnnKind::sage)
    throw ConfigError("layer-wise inference needs a GraphSAGE model");
  const std::int64_t n = graph.num_nodes;
  detail::require_extents(h0, n, model.width(0), "ttgnn::sage_layerwise_inference: h0");
  const std::vector<vector_type> params = model.parameters();
  const std::vector<vector_type> buffers = model.buffers();
  const std::size_t expected = 3 * cfg.num_layers + (cfg.batch_norm ? 2 * (cfg.num_layers - 1) : 0);
  if (params.size() != expected ||
      buffers.size() != (cfg.batch_norm ? 2 * (cfg.num_layers - 1) : 0u))
    throw ConfigError("ttgnn::sage_layerwise_inference: unexpected parameter layout of the model");
  chunk = std::max<std::int64_t>(1, chunk);
  auto rows = [](matrix_type const &x, std::int64_t a, std::int64_t b) -> matrix_type {
    return Kokkos::subview(x, std::make_pair(a, b), Kokkos::ALL);
  };
  std::size_t p = 0, q = 0;
  matrix_type h = h0;
  for (int l = 0; l < cfg.num_layers; ++l) {
    const std::int64_t in = model.width(l), out = model.width(l + 1);
    const matrix_type w_self(params[p].data(), in, out), w_neigh(params[p + 1].data(), in, out);
    const vector_type bias = params[p + 2];
    p += 3;
    const bool hidden = l + 1 < cfg.num_layers;
    vector_type gamma, beta, mean, var;
    if (hidden && cfg.batch_norm) {
      gamma = params[p];
      beta = params[p + 1];
      mean = buffers[q];
      var = buffers[q + 1];
      p += 2;
      q += 2;
    }
    matrix_type y(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::layerwise_inference::h"),
                  n, out);
    // Neighbour term: mean(h) W_neigh when in <= out, else mean(h W_neigh) (smaller SpMM).
    const bool aggregate_first = in <= out;
    matrix_type hw, t;
    if (!aggregate_first) {
      hw = matrix_type(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::layerwise_inference::hw"), n,
          out);
      for (std::int64_t a = 0; a < n; a += chunk)
        gemm(space, 'N', 'N', Scalar(1), rows(h, a, std::min(n, a + chunk)), w_neigh, Scalar(0),
             rows(hw, a, std::min(n, a + chunk)));
    }
    for (std::int64_t a = 0; a < n; a += chunk) {
      const std::int64_t b = std::min(n, a + chunk);
      const matrix_type yc = rows(y, a, b);
      if (aggregate_first) {
        detail::ensure_extents(t, "ttgnn::layerwise_inference::mean", b - a, in);
        graph.mean_rows(space, a, h, t);
        gemm(space, 'N', 'N', Scalar(1), t, w_neigh, Scalar(0), yc);
      } else {
        graph.mean_rows(space, a, hw, yc);
      }
      gemm(space, 'N', 'N', Scalar(1), rows(h, a, b), w_self, Scalar(1), yc);
      detail::add_bias(space, yc, bias);
      if (hidden)
        detail::sage_inference_activation(
            space, yc, gamma, beta, mean, var, model.residual_at(l) ? rows(h, a, b) : matrix_type(),
            1e-5 /* BatchNorm1d's default eps, as GnnModel builds it */);
    }
    h = y;
  }
  return h;
}

} // namespace ttgnn

#endif
