#ifndef TTGNN_MODELS_SIGMOID_BINARY_CROSS_ENTROPY_HPP
#define TTGNN_MODELS_SIGMOID_BINARY_CROSS_ENTROPY_HPP
/// \file sigmoid_binary_cross_entropy.hpp
/// \brief Loss of multi-label node classification: L = mean over the known entries (v, t)
/// (v in a subset, target(v, t) != -1) of the binary cross-entropy of sigmoid(logits(v, t))
/// against target(v, t) in {0, 1}, and dL/dlogits. Without unknown entries this is torch's
/// BCEWithLogitsLoss()(logits[subset], y[subset]) (the ogbn-proteins example's loss).

#include "core/error.hpp"
#include "core/kokkos_compat.hpp"
#include "core/linalg/for_each_entry.hpp"
#include "models/layers/layer.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace ttgnn {

namespace detail {

/// BCE with logits of one entry, stable for any x: max(x, 0) - x y + log(1 + exp(-|x|)).
template <class Scalar> KOKKOS_INLINE_FUNCTION double bce_with_logit(Scalar x, int y) {
  const double xd = static_cast<double>(x);
  const double ax = xd < 0 ? -xd : xd;
  return (xd > 0 ? xd : 0.0) - xd * double(y) + compat::log(1.0 + compat::exp(-ax));
}

/// sigmoid(x), without overflow for large |x|.
template <class Scalar> KOKKOS_INLINE_FUNCTION Scalar stable_sigmoid(Scalar x) {
  if (x >= Scalar(0))
    return Scalar(1) / (Scalar(1) + compat::exp(-x));
  const Scalar e = compat::exp(x);
  return e / (Scalar(1) + e);
}

} // namespace detail

/// \brief Sigmoid + binary cross-entropy over the known entries of a subset of rows.
template <class Scalar, class ExecutionSpace> class SigmoidBinaryCrossEntropy {
public:
  using memory_space = typename ExecutionSpace::memory_space;
  using matrix_type = Matrix<Scalar, ExecutionSpace>;
  /// Targets: 1, 0, or -1 (unknown, no loss), one row per node, one column per task.
  using targets_type = Kokkos::View<const std::int8_t **, Kokkos::LayoutRight, memory_space>;
  using subset_type = Kokkos::View<const std::int64_t *, memory_space>;

  /// \brief Returns L (accumulated in double). Keeps the handles for backward.
  /// \param logits n x T scores; \param targets at least n x T
  /// \param subset rows that count (no repeats); must not be empty
  /// Throws InputError when a subset row is not a row of the logits or a target is not
  /// 0 / 1 / -1; ConfigError when no entry of the subset is known or shapes differ.
  double forward(ExecutionSpace const &space, matrix_type const &logits,
                 targets_type const &targets, subset_type const &subset) {
    const std::int64_t n = static_cast<std::int64_t>(logits.extent(0));
    const std::int64_t s = static_cast<std::int64_t>(subset.extent(0));
    const int t = static_cast<int>(logits.extent(1));
    if (s == 0)
      throw ConfigError("ttgnn::SigmoidBinaryCrossEntropy: the subset is empty");
    if (static_cast<std::int64_t>(targets.extent(0)) < n ||
        static_cast<int>(targets.extent(1)) != t)
      throw ConfigError("ttgnn::SigmoidBinaryCrossEntropy: targets of " +
                        std::to_string(targets.extent(0)) + " x " +
                        std::to_string(targets.extent(1)) + " for logits of " + std::to_string(n) +
                        " x " + std::to_string(t));
    std::int64_t bad = 0;
    Kokkos::parallel_reduce(
        "ttgnn::loss::bce::check", Kokkos::RangePolicy<ExecutionSpace>(space, 0, s),
        KOKKOS_LAMBDA(std::int64_t q, std::int64_t & b) {
          const std::int64_t v = subset(q);
          if (v < 0 || v >= n) {
            ++b;
            return;
          }
          for (int j = 0; j < t; ++j)
            if (targets(v, j) < -1 || targets(v, j) > 1)
              ++b;
        },
        bad);
    if (bad > 0)
      throw InputError("ttgnn::SigmoidBinaryCrossEntropy: " + std::to_string(bad) +
                       " subset rows outside the logits or targets other than 0, 1, -1");
    double total = 0;
    std::int64_t known = 0;
    Kokkos::parallel_reduce(
        "ttgnn::loss::bce::forward", Kokkos::RangePolicy<ExecutionSpace>(space, 0, s),
        KOKKOS_LAMBDA(std::int64_t q, double &sum) {
          const std::int64_t v = subset(q);
          for (int j = 0; j < t; ++j)
            if (targets(v, j) >= 0)
              sum += detail::bce_with_logit(logits(v, j), int(targets(v, j)));
        },
        total);
    Kokkos::parallel_reduce(
        "ttgnn::loss::bce::known", Kokkos::RangePolicy<ExecutionSpace>(space, 0, s),
        KOKKOS_LAMBDA(std::int64_t q, std::int64_t & count) {
          const std::int64_t v = subset(q);
          for (int j = 0; j < t; ++j)
            count += targets(v, j) >= 0 ? 1 : 0;
        },
        known);
    if (known == 0)
      throw ConfigError("ttgnn::SigmoidBinaryCrossEntropy: no known target in the subset");
    logits_ = logits;
    targets_ = targets;
    subset_ = subset;
    known_ = known;
    return total / double(known);
  }

  /// \brief grad_logits = scale * dL/dlogits: (sigmoid - target) / (known entries) on known
  /// entries of subset rows, 0 elsewhere. grad_logits has the logits' shape.
  void backward(ExecutionSpace const &space, matrix_type const &grad_logits,
                Scalar scale = Scalar(1)) const {
    detail::require_extents(grad_logits, logits_.extent(0), logits_.extent(1),
                            "ttgnn::SigmoidBinaryCrossEntropy::backward: grad_logits");
    Kokkos::deep_copy(space, grad_logits, Scalar(0));
    const std::int64_t s = static_cast<std::int64_t>(subset_.extent(0));
    const int t = static_cast<int>(logits_.extent(1));
    const Scalar w = scale / Scalar(known_);
    auto logits = logits_;
    auto targets = targets_;
    auto subset = subset_;
    for_each_entry(
        space, "ttgnn::loss::bce::backward", s, t, KOKKOS_LAMBDA(std::int64_t q, std::int64_t j) {
          const std::int64_t v = subset(q);
          const int y = targets(v, j);
          if (y >= 0)
            grad_logits(v, j) = w * (detail::stable_sigmoid(logits(v, j)) - Scalar(y));
        });
  }

  /// Number of known entries of the last forward's subset.
  std::int64_t known_entries() const { return known_; }

private:
  matrix_type logits_;
  targets_type targets_;
  subset_type subset_;
  std::int64_t known_ = 0;
};

} // namespace ttgnn

#endif
