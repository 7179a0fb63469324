#ifndef TTGNN_MODELS_EMBEDDING_INPUT_KIND_HPP
#define TTGNN_MODELS_EMBEDDING_INPUT_KIND_HPP
/// \file input_kind.hpp
/// \brief What the first GNN layer reads: node features, a full embedding table, a TT table, or
/// features next to a table (node_input.hpp and minibatch_input.hpp build the rows).

#include "core/error.hpp"

#include <string>

namespace ttgnn {

/// What a NodeInput feeds the GNN.
enum class InputKind {
  features,           ///< "feat": node features only (no trainable input)
  embedding,          ///< "emb": a full N x d embedding table
  tt,                 ///< "tt": a TT embedding table
  features_tt,        ///< "feat+tt": [features | TT rows]
  features_embedding, ///< "feat+emb": [features | full-table rows]
};

/// "feat", "emb", "tt", "feat+tt", "feat+emb".
inline std::string to_string(InputKind kind) {
  switch (kind) {
  case InputKind::features:
    return "feat";
  case InputKind::embedding:
    return "emb";
  case InputKind::tt:
    return "tt";
  case InputKind::features_tt:
    return "feat+tt";
  case InputKind::features_embedding:
    return "feat+emb";
  }
  return "?";
}

/// Inverse of to_string; ConfigError listing the choices.
inline InputKind parse_input_kind(std::string const &name) {
  for (auto k : {InputKind::features, InputKind::embedding, InputKind::tt, InputKind::features_tt,
                 InputKind::features_embedding})
    if (to_string(k) == name)
      return k;
  throw ConfigError("unknown input '" + name + "': expected feat, emb, tt, feat+tt or feat+emb");
}

/// True when the kind uses node features.
inline bool uses_features(InputKind k) {
  return k == InputKind::features || k == InputKind::features_tt ||
         k == InputKind::features_embedding;
}
/// True when the kind uses a TT table.
inline bool uses_tt(InputKind k) {
  return k == InputKind::tt || k == InputKind::features_tt;
}
/// True when the kind uses a full table.
inline bool uses_full_table(InputKind k) {
  return k == InputKind::embedding || k == InputKind::features_embedding;
}

} // namespace ttgnn

#endif
