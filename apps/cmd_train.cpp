// ttgnn train: GCN / GraphSAGE training on an OGB-layout dataset, with node features, a full
// embedding table or a TT embedding as input, full batch or on neighbour-sampled mini-batches
// (models/pipeline/pipeline.hpp). Progress goes to stderr; stdout ends with one JSON line (with
// --json it is the only line). Exit codes: 0 trained (completed or early stopping), 1 bad input or
// settings, 4 stopped on a NaN/Inf loss (the checkpoint keeps the last good epoch).
#include "apps/cli_options.hpp"
#include "apps/commands.hpp"
#include "apps/run_options.hpp"
#include "models/pipeline/run_preset.hpp"

#include <filesystem>

namespace ttgnn::cli {

int run_train(int argc, char const *const *argv) {
  Options opts("train");
  const RunConfig defaults;
  opts.value("dataset", "dataset folder in the OGB raw layout", "", true)
      .value("preset",
             "defaults: auto (kipf for feat, table for inputs with a learned table) | kipf "
             "(Kipf & Welling's GCN) | table (featureless graphs)",
             "auto");
  declare_run_options(opts, &defaults);
  if (!opts.parse(argc, argv))
    return 0;
  const InputKind input =
      opts.has("input") ? opts.parsed("input", parse_input_kind) : defaults.input;
  RunConfig config = default_run_config(input, opts.parsed("preset", parse_run_preset));
  config.data.dataset = opts.get("dataset");
  apply_run_options(opts, config);
  const std::string title = "ttgnn train: " + to_string(config.model) +
                            (config.minibatch_mode() ? " (mini-batch)" : "") + ", input " +
                            to_string(config.input) + ", order " + to_string(config.order) + " (" +
                            std::filesystem::path(config.data.dataset).filename().string() + ")";
  return train_and_report(config, front_end_from(opts), title);
}

} // namespace ttgnn::cli
