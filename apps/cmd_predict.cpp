// ttgnn predict: evaluates the selected parameters of a checkpoint written by `ttgnn train`
// (or `ttgnn ogb`, full batch) without training: prints the metric on the train, valid and
// test nodes and writes the logits (--predictions) and embeddings (--export-embeddings) in
// original node order. The checkpoint holds the run's settings (models/pipeline/run_config.hpp);
// the dataset is the one it was trained on (--dataset for a copy elsewhere; its content must
// match).
#include "apps/cli_options.hpp"
#include "apps/commands.hpp"
#include "apps/run_options.hpp"
#include "core/io/atomic_file.hpp"

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <iostream>

namespace ttgnn::cli {

int run_predict(int argc, char const *const *argv) {
  Options opts("predict");
  opts.value("checkpoint", "checkpoint written by ttgnn train --checkpoint", "", true)
      .value("dataset", "dataset folder (default: the one the checkpoint was trained on)")
      .value("cache", "binary cache folder of the loader", "")
      .value("predictions", "write the logits of every node (N x C float32 .npy, original "
                            "node order)")
      .value("export-embeddings", "write the embedding table (N x d float32 .npy)")
      .flag("quiet", "no loading notes on stderr")
      .flag("json", "print only the JSON line on stdout");
  if (!opts.parse(argc, argv))
    return 0;
  const std::string checkpoint = opts.get("checkpoint");
  RunConfig c = checkpoint_run_config(checkpoint);
  if (opts.has("dataset"))
    c.data.dataset = opts.get("dataset");
  c.data.cache_dir = opts.get("cache");
  c.checkpoint = checkpoint;
  c.resume = false;
  c.metrics_out.clear();
  c.predictions_out = opts.get("predictions");
  c.export_embeddings = opts.get("export-embeddings");
  FrontEnd front;
  front.quiet = opts.get_flag("quiet");
  front.json_only = opts.get_flag("json");
  check_run_config(c);
  const RunLog log = stderr_log(front);
  OutputTransaction outputs; // both outputs appear when the evaluation succeeds, else neither
  const LoadedData loaded = load_run_data(c, log);
  RunResult r = evaluate_checkpoint(Kokkos::DefaultExecutionSpace(), loaded.data, c, log);
  r.load_time_s = loaded.seconds;
  outputs.commit();
  if (!front.json_only)
    std::printf("%s of the parameters of epoch %d (checkpoint at epoch %d): test %.4f, valid "
                "%.4f, train %.4f\n",
                display_name(r.metric).c_str(), r.best_epoch, r.checkpoint_epoch, r.test_score,
                r.valid_score, r.train_score);
  std::cout << run_json(r, c) << std::endl;
  return 0;
}

} // namespace ttgnn::cli
