#ifndef TTGNN_CORE_OPTIM_OPTIMIZER_KIND_HPP
#define TTGNN_CORE_OPTIM_OPTIMIZER_KIND_HPP
/// \file optimizer_kind.hpp
/// \brief The optimizer the trainers step: Adam, or AdamW (decoupled weight decay).

#include "core/error.hpp"

#include <string>

namespace ttgnn {

/// Optimizer of the trainers.
enum class OptimizerKind { adam, adamw };
inline std::string to_string(OptimizerKind k) {
  return k == OptimizerKind::adam ? "adam" : "adamw";
}
/// Inverse of to_string; ConfigError naming the choices.
inline OptimizerKind parse_optimizer_kind(std::string const &name) {
  if (name == "adam")
    return OptimizerKind::adam;
  if (name == "adamw")
    return OptimizerKind::adamw;
  throw ConfigError("unknown optimizer '" + name + "': expected adam or adamw");
}

} // namespace ttgnn

#endif
