#ifndef TTGNN_MODELS_LAYERS_DENSE_LAYER_HPP
#define TTGNN_MODELS_LAYERS_DENSE_LAYER_HPP
/// \file dense_layer.hpp
/// \brief The base of the layers with dense weights (Linear, GCNConv, SAGEConv): one or more
/// in x out weight matrices and an optional bias, each with its gradient, as flat Views in the
/// order parameters() and gradients() list them (weights first, then the bias).

#include "core/error.hpp"
#include "core/linalg/column_sums.hpp"
#include "models/layers/layer.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ttgnn {

template <class Scalar, class ExecutionSpace>
class DenseLayer : public Layer<Scalar, ExecutionSpace> {
public:
  using typename Layer<Scalar, ExecutionSpace>::matrix_type;
  using typename Layer<Scalar, ExecutionSpace>::vector_type;

  std::int64_t in_features() const { return in_; }
  std::int64_t out_features() const { return out_; }
  /// Weight \p i as an in x out matrix aliasing parameters()[i], and its gradient.
  matrix_type weight(std::size_t i = 0) const { return as_matrix(params_.at(i)); }
  matrix_type weight_grad(std::size_t i = 0) const { return as_matrix(grads_.at(i)); }
  /// b (empty View without bias).
  vector_type bias() const { return has_bias() ? params_.back() : vector_type(); }

  std::vector<vector_type> parameters() const override { return params_; }
  std::vector<vector_type> gradients() const override { return grads_; }

protected:
  /// \param layer the layer's name in labels and errors ("linear", "gcn_conv", "sage_conv")
  /// \param names one per weight matrix ("weight", or "weight_self" and "weight_neigh")
  /// ConfigError unless both widths are positive.
  DenseLayer(std::string const &layer, std::vector<std::string> const &names,
             std::int64_t in_features, std::int64_t out_features, bool bias)
      : in_(in_features), out_(out_features), num_weights_(names.size()) {
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
  }

  bool has_bias() const { return params_.size() > num_weights_; }
  /// Weight \p i as a flat View (initialisation).
  vector_type const &flat_weight(std::size_t i = 0) const { return params_.at(i); }
  vector_type bias_grad() const { return has_bias() ? grads_.back() : vector_type(); }

  std::int64_t in_, out_;
  /// Scratch of the bias gradient's column sums, reused by every backward.
  ColumnSumsWorkspace<Scalar, typename ExecutionSpace::memory_space> sums_;

private:
  matrix_type as_matrix(vector_type const &flat) const {
    return detail::as_matrix<Scalar, ExecutionSpace>(flat, in_, out_);
  }

  std::size_t num_weights_;
  std::vector<vector_type> params_, grads_;
};

} // namespace ttgnn

#endif
