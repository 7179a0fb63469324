#ifndef TTGNN_MODELS_RUN_PRESET_HPP
#define TTGNN_MODELS_RUN_PRESET_HPP
/// \file run_preset.hpp
/// \brief Where the defaults of a run come from. Inputs with node features start from RunConfig's
/// member defaults (Kipf & Welling's GCN, without their input dropout and feature scaling); inputs
/// with a learned table (emb, tt, feat+tt, feat+emb) start from settings measured on featureless
/// graphs, where the feature settings' weight decay and narrow hidden layer cost a table
/// 0.01-0.05 and 200 epochs can end while it still improves (docs/RESULTS.md, "Defaults without
/// features").

#include "models/embedding/input_kind.hpp"
#include "models/pipeline/run_config.hpp"

#include <string>

namespace ttgnn {

/// \brief A named group of defaults (`ttgnn train --preset`).
enum class RunPreset {
  automatic, ///< RunConfig's member defaults for feature inputs (GCN, hidden 16, weight decay
             ///< 5e-4, lr 0.01, dropout 0.5 between layers, 200 epochs), `table` for inputs
             ///< with a learned table
  kipf,      ///< Kipf & Welling's GCN exactly: the member defaults plus dropout 0.5 on the
             ///< input and row-normalised features
  table,     ///< learned tables: hidden 128, no weight decay, input dropout 0.5, spectral
             ///< init, 1000 epochs with early stopping after 100 without a better valid metric
};
std::string to_string(RunPreset p);
RunPreset parse_run_preset(std::string const &name); ///< ConfigError naming the choices

/// True when \p input trains a table (full or TT), with or without features.
inline bool has_learned_table(InputKind input) {
  return uses_tt(input) || uses_full_table(input);
}

/// \brief The defaults of a run on \p input under \p preset (see RunPreset), `input` set.
RunConfig default_run_config(InputKind input, RunPreset preset = RunPreset::automatic);

} // namespace ttgnn

#endif
