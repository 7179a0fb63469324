#ifndef TTGNN_MODELS_TRAIN_EVAL_NODES_HPP
#define TTGNN_MODELS_TRAIN_EVAL_NODES_HPP
/// \file eval_nodes.hpp
/// \brief Which nodes the evaluation of mini-batch training computes, by name.

#include "core/error.hpp"

#include <string>

namespace ttgnn {

/// Which nodes evaluation computes: every node (layer-wise), or the valid and test nodes, or
/// the test nodes only (subset inference from their L-hop neighbourhoods).
enum class EvalNodes { all, valid_test, test };

/// "all", "valid+test", "test"; ConfigError otherwise.
inline EvalNodes parse_eval_nodes(std::string const &name) {
  if (name == "all")
    return EvalNodes::all;
  if (name == "valid+test")
    return EvalNodes::valid_test;
  if (name == "test")
    return EvalNodes::test;
  throw ConfigError("unknown evaluation nodes '" + name + "': expected all, valid+test or test");
}
/// The name parse_eval_nodes reads.
inline std::string to_string(EvalNodes nodes) {
  switch (nodes) {
  case EvalNodes::all:
    return "all";
  case EvalNodes::valid_test:
    return "valid+test";
  default:
    return "test";
  }
}

} // namespace ttgnn

#endif
