// ttgnn train: full-batch GCN / GraphSAGE training on an OGB-layout dataset, with node
// features, a full embedding table or a TT embedding as input (apps/train_pipeline.hpp).
// Progress goes to stderr; stdout ends with one JSON line (with --json it is the only line).
// Exit codes: 0 trained (completed or early stopping), 1 bad input or settings,
// 4 stopped on a NaN/Inf loss (the checkpoint keeps the last good epoch).
#include "apps/cli_options.hpp"
#include "apps/commands.hpp"
#include "apps/minibatch_pipeline.hpp"
#include "apps/train_pipeline.hpp"
#include "core/communicator.hpp"
#include "core/error.hpp"
#include "models/classification_metrics.hpp"

#include <cmath>
#include <cstdio>
#include <iostream>

namespace ttgnn::cli {

int run_train(int argc, char const *const *argv) {
  Options opts("train");
  declare_train_options(opts);
  declare_minibatch_options(opts); // --batch-size B --fanout ...: mini-batch GraphSAGE
  opts.flag("json", "print only the JSON line on stdout (no summary lines)");
  if (!opts.parse(argc, argv))
    return 0;
  const TrainSettings settings = train_settings_from(opts);
  const MinibatchCliSettings minibatch = minibatch_settings_from(opts);
  if (minibatch.batch_size > 0 && settings.tt_backward != "deterministic")
    throw ConfigError("--tt-backward " + settings.tt_backward +
                      " is not implemented for mini-batch training (--batch-size): it always "
                      "uses the deterministic backward");
  // Under mpirun: data-parallel mini-batch training (docs/DISTRIBUTED.md); rank 0 reports.
  const Communicator world = Communicator::world();
  if (world.distributed() && minibatch.batch_size == 0)
    throw ConfigError("full-batch training does not run on several MPI ranks (every rank would "
                      "repeat the whole-graph forward); add --batch-size B for data-parallel "
                      "mini-batch training");
  std::FILE *progress = world.rank() == 0 ? stderr : nullptr;
  const TrainRunSummary sum = minibatch.batch_size > 0
                                  ? run_minibatch_training(settings, minibatch, progress)
                                  : run_full_batch_training(settings, progress);
  if (world.rank() != 0)
    return sum.status == "nonfinite" ? 4 : 0;
  if (!opts.get_flag("json")) {
    std::printf("test %s %.4f (valid %.4f, train %.4f) at epoch %d of %d [%s]\n",
                display_name(parse_node_metric(sum.metric)).c_str(), sum.test_acc, sum.valid_acc,
                sum.train_acc, sum.best_epoch, settings.epochs, sum.status.c_str());
    std::printf("parameters: GNN %lld, embedding %lld", static_cast<long long>(sum.gnn_params),
                static_cast<long long>(sum.embedding_params));
    if (std::isfinite(sum.compression))
      std::printf(" (compression %.1fx against a full table)", sum.compression);
    std::printf("; %.2f ms per epoch (median training step)\n", 1e3 * sum.epoch_seconds);
  }
  std::cout << sum.json << std::endl;
  return sum.status == "nonfinite" ? 4 : 0;
}

} // namespace ttgnn::cli
