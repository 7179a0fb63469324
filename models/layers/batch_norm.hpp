#ifndef TTGNN_MODELS_BATCH_NORM_HPP
#define TTGNN_MODELS_BATCH_NORM_HPP
/// \file batch_norm.hpp
/// \brief BatchNorm1d over node rows, as torch.nn.BatchNorm1d: in training
/// y = gamma (x - mean) / sqrt(var + eps) + beta with the batch's mean and biased variance, and
/// running statistics updated with `momentum` (unbiased variance); in evaluation the running
/// statistics are used. gamma, beta exist when `affine`.

#include "core/linalg/column_sums.hpp"
#include "core/error.hpp"
#include "core/kokkos_compat.hpp"
#include "models/layers/layer.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ttgnn {

/// \brief Batch normalisation over the rows of a node matrix.
template <class Scalar, class ExecutionSpace>
class BatchNorm1d : public Layer<Scalar, ExecutionSpace> {
public:
  using typename Layer<Scalar, ExecutionSpace>::matrix_type;
  using typename Layer<Scalar, ExecutionSpace>::vector_type;

  /// \param num_features columns, \param eps added to the variance,
  /// \param momentum weight of the batch in the running statistics, \param affine learn gamma, beta
  explicit BatchNorm1d(std::int64_t num_features, double eps = 1e-5, double momentum = 0.1,
                       bool affine = true)
      : c_(num_features), eps_(eps), momentum_(momentum),
        running_mean_("ttgnn::batch_norm::running_mean", num_features),
        running_var_("ttgnn::batch_norm::running_var", num_features),
        mean_("ttgnn::batch_norm::mean", num_features),
        inv_std_("ttgnn::batch_norm::inv_std", num_features),
        sum_g_("ttgnn::batch_norm::sum_grad", num_features),
        sum_gx_("ttgnn::batch_norm::sum_grad_xhat", num_features) {
    if (num_features <= 0 || !(eps > 0) || !(momentum >= 0 && momentum <= 1))
      throw ConfigError("ttgnn::BatchNorm1d: need num_features > 0, eps > 0, momentum in [0, 1]");
    if (affine) {
      gamma_ = vector_type("ttgnn::batch_norm::weight", num_features);
      beta_ = vector_type("ttgnn::batch_norm::bias", num_features);
      gamma_grad_ = vector_type("ttgnn::batch_norm::weight_grad", num_features);
      beta_grad_ = vector_type("ttgnn::batch_norm::bias_grad", num_features);
    }
    reset_parameters(0);
  }

  std::int64_t num_features() const { return c_; }
  vector_type weight() const { return gamma_; }
  vector_type bias() const { return beta_; }
  vector_type running_mean() const { return running_mean_; }
  vector_type running_var() const { return running_var_; }

  /// gamma, beta (none without affine).
  std::vector<vector_type> parameters() const override {
    return gamma_.extent(0) ? std::vector<vector_type>{gamma_, beta_} : std::vector<vector_type>{};
  }
  std::vector<vector_type> gradients() const override {
    return gamma_.extent(0) ? std::vector<vector_type>{gamma_grad_, beta_grad_}
                            : std::vector<vector_type>{};
  }
  /// running_mean, running_var.
  std::vector<vector_type> buffers() const override { return {running_mean_, running_var_}; }
  /// gamma = 1, beta = 0, running mean 0, running variance 1 (the seed is not needed).
  void reset_parameters(std::uint64_t) override {
    if (gamma_.extent(0)) {
      Kokkos::deep_copy(gamma_, Scalar(1));
      Kokkos::deep_copy(beta_, Scalar(0));
    }
    Kokkos::deep_copy(running_mean_, Scalar(0));
    Kokkos::deep_copy(running_var_, Scalar(1));
  }

  /// \brief y = gamma x_hat + beta (y may be x). Training needs at least 2 rows. A recomputed
  /// training forward (re-materialization) passes update_running = false: the batch statistics
  /// are formed again, the running ones were updated once by the step's first forward.
  void forward(ExecutionSpace const &space, matrix_type const &x, matrix_type const &y,
               bool update_running = true) {
    const std::int64_t n = static_cast<std::int64_t>(x.extent(0)), c = c_;
    detail::require_extents(x, n, c_, "ttgnn::BatchNorm1d::forward: x");
    detail::require_extents(y, n, c_, "ttgnn::BatchNorm1d::forward: y");
    xhat_ = xhat_ws_.rows("ttgnn::batch_norm::xhat", n, c_);
    auto xhat = xhat_;
    auto mean = mean_, inv_std = inv_std_, rmean = running_mean_, rvar = running_var_;
    const Scalar eps = Scalar(eps_);
    using Range = Kokkos::RangePolicy<ExecutionSpace>;
    trained_ = this->training();
    if (trained_) {
      if (n < 2)
        throw ConfigError("ttgnn::BatchNorm1d: training needs more than one row per batch, got " +
                          std::to_string(n));
      column_sums(space, x, mean, Scalar(0), sums_);
      Kokkos::parallel_for(
          "ttgnn::batch_norm::center", Range(space, 0, n * c), KOKKOS_LAMBDA(std::int64_t k) {
            xhat(k / c, k % c) = x(k / c, k % c) - mean(k % c) / Scalar(n);
          });
      column_dots(space, xhat, xhat, inv_std, Scalar(0), sums_); // sum of squared deviations
      const Scalar m = Scalar(momentum_);
      Kokkos::parallel_for(
          "ttgnn::batch_norm::stats", Range(space, 0, c), KOKKOS_LAMBDA(std::int64_t j) {
            const Scalar mu = mean(j) / Scalar(n), ss = inv_std(j);
            mean(j) = mu;
            inv_std(j) = Scalar(1) / compat::sqrt(ss / Scalar(n) + eps);
            if (update_running) {
              rmean(j) = (Scalar(1) - m) * rmean(j) + m * mu;
              rvar(j) = (Scalar(1) - m) * rvar(j) + m * ss / Scalar(n - 1);
            }
          });
    } else {
      Kokkos::parallel_for(
          "ttgnn::batch_norm::eval_stats", Range(space, 0, c), KOKKOS_LAMBDA(std::int64_t j) {
            mean(j) = rmean(j);
            inv_std(j) = Scalar(1) / compat::sqrt(rvar(j) + eps);
          });
      Kokkos::parallel_for(
          "ttgnn::batch_norm::eval_center", Range(space, 0, n * c),
          KOKKOS_LAMBDA(std::int64_t k) { xhat(k / c, k % c) = x(k / c, k % c) - mean(k % c); });
    }
    const bool affine = gamma_.extent(0) > 0;
    auto gamma = gamma_, beta = beta_;
    Kokkos::parallel_for(
        "ttgnn::batch_norm::scale", Range(space, 0, n * c), KOKKOS_LAMBDA(std::int64_t k) {
          const std::int64_t j = k % c;
          const Scalar v = xhat(k / c, j) * inv_std(j);
          xhat(k / c, j) = v;
          y(k / c, j) = affine ? gamma(j) * v + beta(j) : v;
        });
  }

  /// \brief Accumulates dgamma, dbeta; grad_x through the batch statistics (training) or the
  /// fixed running statistics (evaluation). grad_x may be grad_y.
  void backward(ExecutionSpace const &space, matrix_type const &grad_y, matrix_type const &grad_x) {
    const std::int64_t n = static_cast<std::int64_t>(xhat_.extent(0)), c = c_;
    detail::require_extents(grad_y, n, c_, "ttgnn::BatchNorm1d::backward: grad_y");
    auto xhat = xhat_;
    auto sum_g = sum_g_, sum_gx = sum_gx_, inv_std = inv_std_;
    column_sums(space, grad_y, sum_g, Scalar(0), sums_);
    column_dots(space, grad_y, xhat, sum_gx, Scalar(0), sums_);
    const bool affine = gamma_.extent(0) > 0;
    if (affine) {
      auto gg = gamma_grad_, gb = beta_grad_;
      Kokkos::parallel_for(
          "ttgnn::batch_norm::param_grads", Kokkos::RangePolicy<ExecutionSpace>(space, 0, c),
          KOKKOS_LAMBDA(std::int64_t j) {
            gg(j) += sum_gx(j);
            gb(j) += sum_g(j);
          });
    }
    if (!detail::wanted(grad_x))
      return;
    detail::require_extents(grad_x, n, c_, "ttgnn::BatchNorm1d::backward: grad_x");
    auto gamma = gamma_;
    const bool batch_stats = trained_;
    Kokkos::parallel_for(
        "ttgnn::batch_norm::grad_x", Kokkos::RangePolicy<ExecutionSpace>(space, 0, n * c),
        KOKKOS_LAMBDA(std::int64_t k) {
          const std::int64_t i = k / c, j = k % c;
          const Scalar s = (affine ? gamma(j) : Scalar(1)) * inv_std(j);
          const Scalar g = grad_y(i, j);
          grad_x(i, j) =
              batch_stats ? s * (g - (sum_g(j) + xhat(i, j) * sum_gx(j)) / Scalar(n)) : s * g;
        });
  }

  void add_workspace(ByteLedger &ledger) const override {
    ledger.add(mean_).add(inv_std_).add(sum_g_).add(sum_gx_).add(xhat_ws_.storage());
  }
  /// Where x_hat goes when freed (nullptr: freed; core/runtime/buffer_cache.hpp).
  void set_buffer_cache(BufferCache<matrix_type> *cache) { xhat_ws_.set_cache(cache); }
  /// Frees x_hat (the n x c matrix the backward reads).
  void release_saved() {
    xhat_ = matrix_type();
    xhat_ws_.release();
  }

private:
  std::int64_t c_;
  double eps_, momentum_;
  vector_type gamma_, beta_, gamma_grad_, beta_grad_;
  vector_type running_mean_, running_var_;
  vector_type mean_, inv_std_, sum_g_, sum_gx_;
  matrix_type xhat_;
  GrowingMatrix<matrix_type> xhat_ws_;
  ColumnSumsWorkspace<Scalar, typename ExecutionSpace::memory_space> sums_;
  bool trained_ = true;
};

} // namespace ttgnn

#endif
