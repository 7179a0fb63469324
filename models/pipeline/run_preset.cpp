#include "models/pipeline/run_preset.hpp"

#include "core/error.hpp"

namespace ttgnn {

std::string to_string(RunPreset p) {
  switch (p) {
  case RunPreset::kipf:
    return "kipf";
  case RunPreset::table:
    return "table";
  default:
    return "auto";
  }
}

RunPreset parse_run_preset(std::string const &name) {
  if (name == "auto")
    return RunPreset::automatic;
  if (name == "kipf")
    return RunPreset::kipf;
  if (name == "table")
    return RunPreset::table;
  throw ConfigError("unknown preset '" + name + "': expected auto, kipf or table");
}

RunConfig default_run_config(InputKind input, RunPreset preset) {
  RunConfig c;
  c.input = input;
  if (preset == RunPreset::automatic && !has_learned_table(input))
    return c; // features: the member defaults
  if (preset == RunPreset::kipf) {
    c.input_dropout = 0.5;
    c.data.feature_norm = FeatureNorm::row;
  } else {
    // Measured on nine featureless graphs and generated multi-label ones (docs/RESULTS.md).
    c.hidden = 128;
    c.weight_decay = 0;
    c.input_dropout = 0.5;
    c.embedding.init = InitMethod::spectral;
    c.epochs = 1000;
    c.patience = 100;
  }
  return c;
}

} // namespace ttgnn
