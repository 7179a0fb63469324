#ifndef TTGNN_MODELS_LAYERS_DENSE_WEIGHTS_HPP
#define TTGNN_MODELS_LAYERS_DENSE_WEIGHTS_HPP
/// \file dense_weights.hpp
/// \brief The trainable part of the dense layers (Linear, GCNConv, SAGEConv): one or more
/// in x out weight matrices and an optional bias, each with its gradient, as flat Views in the
/// order the layer's parameters() and gradients() list them (weights first, then the bias).

#include "core/error.hpp"
#include "models/layers/layer.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ttgnn {

template <class Scalar, class ExecutionSpace> class DenseWeights {
public:
  using vector_type = Kokkos::View<Scalar *, typename ExecutionSpace::memory_space>;
  using matrix_type = Matrix<Scalar, ExecutionSpace>;

  DenseWeights() = default;
  /// \param layer the layer's name in labels and errors ("linear", "gcn_conv", "sage_conv")
  /// \param names one per weight matrix ("weight", or "weight_self" and "weight_neigh")
  /// ConfigError unless both widths are positive.
  DenseWeights(std::string const &layer, std::vector<std::string> const &names,
               std::int64_t in_features, std::int64_t out_features, bool bias)
      : in_(in_features), out_(out_features) {
    if (in_features <= 0 || out_features <= 0)
      throw ConfigError("ttgnn::" + layer + ": features must be positive, got " +
                        std::to_string(in_features) + " -> " + std::to_string(out_features));
    const std::string prefix = "ttgnn::" + layer + "::";
    for (auto const &name : names) {
      params_.emplace_back(prefix + name, in_features * out_features);
      grads_.emplace_back(prefix + name + "_grad", in_features * out_features);
    }
    if (bias) {
      params_.emplace_back(prefix + "bias", out_features);
      grads_.emplace_back(prefix + "bias_grad", out_features);
    }
    num_weights_ = names.size();
  }

  std::int64_t in_features() const { return in_; }
  std::int64_t out_features() const { return out_; }
  bool has_bias() const { return params_.size() > num_weights_; }

  /// Weight \p i as an in x out matrix aliasing parameters()[i], and its gradient.
  matrix_type weight(std::size_t i = 0) const { return as_matrix(params_.at(i)); }
  matrix_type weight_grad(std::size_t i = 0) const { return as_matrix(grads_.at(i)); }
  /// Weight \p i as a flat View (initialisation).
  vector_type const &flat_weight(std::size_t i = 0) const { return params_.at(i); }
  /// The bias and its gradient (empty Views without bias).
  vector_type bias() const { return has_bias() ? params_.back() : vector_type(); }
  vector_type bias_grad() const { return has_bias() ? grads_.back() : vector_type(); }

  std::vector<vector_type> const &parameters() const { return params_; }
  std::vector<vector_type> const &gradients() const { return grads_; }

private:
  matrix_type as_matrix(vector_type const &flat) const {
    return detail::as_matrix<Scalar, ExecutionSpace>(flat, in_, out_);
  }

  std::int64_t in_ = 0, out_ = 0;
  std::size_t num_weights_ = 0;
  std::vector<vector_type> params_, grads_;
};

} // namespace ttgnn

#endif
