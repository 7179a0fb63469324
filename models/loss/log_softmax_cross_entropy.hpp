#ifndef TTGNN_MODELS_LOG_SOFTMAX_CROSS_ENTROPY_HPP
#define TTGNN_MODELS_LOG_SOFTMAX_CROSS_ENTROPY_HPP
/// \file log_softmax_cross_entropy.hpp
/// \brief Loss of node classification: L = mean over the nodes v of a subset of
/// -log softmax(logits(v, :))[label(v)], and dL/dlogits (torch's cross_entropy on
/// logits[subset]).

#include "core/error.hpp"
#include "core/runtime/byte_ledger.hpp"
#include "core/kokkos_compat.hpp"
#include "core/linalg/for_each_entry.hpp"
#include "models/layers/layer.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace ttgnn {

/// \brief Log-softmax + negative log-likelihood over a subset of rows.
template <class Scalar, class ExecutionSpace> class LogSoftmaxCrossEntropy {
public:
  using memory_space = typename ExecutionSpace::memory_space;
  using matrix_type = Matrix<Scalar, ExecutionSpace>;
  using labels_type = Kokkos::View<const std::int32_t *, memory_space>;
  using subset_type = Kokkos::View<const std::int64_t *, memory_space>;

  /// \brief Returns L (accumulated in double). Keeps the handles for backward.
  /// \param logits n x C scores
  /// \param labels class of each row of logits (indexed by row, at least n entries)
  /// \param subset rows that count (no repeats), e.g. the training nodes; must not be empty
  /// Throws InputError when a subset row's label is outside [0, C).
  double forward(ExecutionSpace const &space, matrix_type const &logits, labels_type const &labels,
                 subset_type const &subset) {
    const std::int64_t n = static_cast<std::int64_t>(logits.extent(0));
    const std::int64_t s = static_cast<std::int64_t>(subset.extent(0));
    const int c = static_cast<int>(logits.extent(1));
    if (s == 0)
      throw ConfigError("ttgnn::LogSoftmaxCrossEntropy: the subset is empty");
    if (static_cast<std::int64_t>(labels.extent(0)) < n)
      throw ConfigError("ttgnn::LogSoftmaxCrossEntropy: " + std::to_string(labels.extent(0)) +
                        " labels for " + std::to_string(n) + " rows");
    std::int64_t bad = 0;
    Kokkos::parallel_reduce(
        "ttgnn::cross_entropy::check", Kokkos::RangePolicy<ExecutionSpace>(space, 0, s),
        KOKKOS_LAMBDA(std::int64_t q, std::int64_t & b) {
          const std::int64_t v = subset(q);
          if (v < 0 || v >= n || labels(v) < 0 || labels(v) >= c)
            ++b;
        },
        bad);
    if (bad > 0)
      throw InputError(
          "ttgnn::LogSoftmaxCrossEntropy: " + std::to_string(bad) +
          " nodes of the subset are not rows of the logits or have a label outside [0, " +
          std::to_string(c) + ")");
    logits_ = logits;
    labels_ = labels;
    subset_ = subset;
    if (static_cast<std::int64_t>(lse_.extent(0)) < s) // grow-only: train and valid subsets
      lse_ = Kokkos::View<Scalar *, memory_space>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::cross_entropy::lse"), s);
    auto lse = lse_;
    double total = 0;
    Kokkos::parallel_reduce(
        "ttgnn::cross_entropy::forward", Kokkos::RangePolicy<ExecutionSpace>(space, 0, s),
        KOKKOS_LAMBDA(std::int64_t q, double &sum) {
          const std::int64_t v = subset(q);
          Scalar mx = logits(v, 0);
          for (int j = 1; j < c; ++j)
            mx = logits(v, j) > mx ? logits(v, j) : mx;
          Scalar e = 0;
          for (int j = 0; j < c; ++j)
            e += compat::exp(logits(v, j) - mx);
          const Scalar l = mx + compat::log(e);
          lse(q) = l;
          sum += double(l) - double(logits(v, labels(v)));
        },
        total);
    return total / double(s);
  }

  /// \brief grad_logits = scale * dL/dlogits: (softmax - onehot) / |subset| on subset rows, 0
  /// elsewhere. grad_logits has the logits' shape.
  void backward(ExecutionSpace const &space, matrix_type const &grad_logits,
                Scalar scale = Scalar(1)) const {
    detail::require_extents(grad_logits, logits_.extent(0), logits_.extent(1),
                            "ttgnn::LogSoftmaxCrossEntropy::backward: grad_logits");
    Kokkos::deep_copy(space, grad_logits, Scalar(0));
    const std::int64_t s = static_cast<std::int64_t>(subset_.extent(0));
    const int c = static_cast<int>(logits_.extent(1));
    const Scalar w = scale / Scalar(s);
    auto logits = logits_;
    auto labels = labels_;
    auto subset = subset_;
    auto lse = lse_;
    for_each_entry(
        space, "ttgnn::cross_entropy::backward", s, c,
        KOKKOS_LAMBDA(std::int64_t q, std::int64_t j) {
          const std::int64_t v = subset(q);
          grad_logits(v, j) =
              w * (compat::exp(logits(v, j) - lse(q)) - (j == labels(v) ? Scalar(1) : Scalar(0)));
        });
  }

  /// \brief Adds the per-row buffer kept between calls (grow-only) to \p ledger.
  void add_workspace(ByteLedger &ledger) const { ledger.add(lse_); }

private:
  matrix_type logits_;
  labels_type labels_;
  subset_type subset_;
  Kokkos::View<Scalar *, memory_space> lse_;
};

/// \brief Number of subset rows whose arg-max logit (first on ties) is the label.
template <class Scalar, class ExecutionSpace>
std::int64_t count_correct(
    ExecutionSpace const &space, Matrix<Scalar, ExecutionSpace> const &logits,
    Kokkos::View<const std::int32_t *, typename ExecutionSpace::memory_space> const &labels,
    Kokkos::View<const std::int64_t *, typename ExecutionSpace::memory_space> const &subset) {
  const int c = static_cast<int>(logits.extent(1));
  std::int64_t correct = 0;
  Kokkos::parallel_reduce(
      "ttgnn::cross_entropy::correct",
      Kokkos::RangePolicy<ExecutionSpace>(space, 0, static_cast<std::int64_t>(subset.extent(0))),
      KOKKOS_LAMBDA(std::int64_t q, std::int64_t & sum) {
        const std::int64_t v = subset(q);
        int best = 0;
        for (int j = 1; j < c; ++j)
          if (logits(v, j) > logits(v, best))
            best = j;
        if (best == labels(v))
          ++sum;
      },
      correct);
  return correct;
}

} // namespace ttgnn

#endif
