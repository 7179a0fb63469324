#ifndef TTGNN_MODELS_GNN_CONFIG_HPP
#define TTGNN_MODELS_GNN_CONFIG_HPP
/// \file gnn_config.hpp
/// \brief The shape and regularisation of a GnnModel (models/gnn_model.hpp): layer kind, widths,
/// depth, dropout, residual connections, BatchNorm and the seed.

#include "core/error.hpp"

#include <cstdint>
#include <string>

namespace ttgnn {

/// Graph layer type of a GnnModel.
enum class GnnKind { gcn, sage };

inline std::string to_string(GnnKind k) {
  return k == GnnKind::gcn ? "gcn" : "sage";
}
/// "gcn" or "sage"; ConfigError otherwise.
inline GnnKind parse_gnn_kind(std::string const &name) {
  if (name == "gcn")
    return GnnKind::gcn;
  if (name == "sage")
    return GnnKind::sage;
  throw ConfigError("unknown model '" + name + "': expected gcn or sage");
}

/// \brief Shape and regularisation of a GnnModel.
struct GnnConfig {
  GnnKind kind = GnnKind::gcn;
  std::int64_t in_features = 0;  ///< width of x
  std::int64_t hidden = 16;      ///< width of the hidden layers
  std::int64_t out_features = 0; ///< classes
  int num_layers = 2;            ///< graph layers (>= 1)
  double dropout = 0.5;          ///< before every graph layer but the first
  double input_dropout = 0.5;    ///< before the first graph layer
  bool residual = false;         ///< h_{l+1} += h_l where the widths agree
  bool batch_norm = false;       ///< BatchNorm1d after every hidden graph layer
  std::uint64_t seed = 0;        ///< weights and dropout masks
};

} // namespace ttgnn

#endif
