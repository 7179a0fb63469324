#ifndef TTGNN_APPS_MINIBATCH_PIPELINE_HPP
#define TTGNN_APPS_MINIBATCH_PIPELINE_HPP
/// \file minibatch_pipeline.hpp
/// \brief The `--batch-size B --fanout f1,...,fL` path of `ttgnn train`: GraphSAGE trained on
/// neighbour-sampled mini-batches (models/minibatch_trainer.hpp) with layer-wise full-neighbour
/// evaluation, from the same TrainSettings as the full-batch pipeline (apps/train_pipeline.hpp).
///
/// Use from a command:
///
///     declare_train_options(opts);
///     declare_minibatch_options(opts);
///     ...
///     const MinibatchCliSettings mb = minibatch_settings_from(opts);
///     const TrainRunSummary sum = mb.batch_size > 0 ? run_minibatch_training(settings, mb, stderr)
///                                                   : run_full_batch_training(settings, stderr);

#include "apps/train_pipeline.hpp"

#include <cstdint>
#include <cstdio>
#include <vector>

namespace ttgnn::cli {

class Options;

/// \brief The mini-batch options (0 batch size: full batch).
struct MinibatchCliSettings {
  std::int64_t batch_size = 0;
  std::vector<std::int64_t> fanouts; ///< input layer first (DGL order); empty: 10 per layer
  int eval_every = 1;
  std::int64_t max_batches = 0;
  std::string eval_nodes = "all";         ///< all | valid+test | test
  std::vector<std::int64_t> eval_fanouts; ///< subset evaluation (empty: all neighbours)
  std::int64_t eval_batch_size = 0;       ///< subset evaluation (0: the batch size)
  std::int64_t eval_chunk = 65536;        ///< layer-wise evaluation: input rows per chunk
};

/// \brief Declares --batch-size, --fanout, --eval-every, --max-batches, --eval-nodes,
/// --eval-fanout, --eval-batch-size, --eval-chunk.
void declare_minibatch_options(Options &opts);
/// \brief Reads them (ConfigError for malformed values).
MinibatchCliSettings minibatch_settings_from(Options const &opts);

/// \brief Loads settings.dataset, orders it, trains GraphSAGE on sampled mini-batches and
/// returns the summary (JSON with the keys of the full-batch pipeline's summary that apply).
/// Settings the mini-batch trainer does not implement (checkpoints, resume, embedding export,
/// learning-rate schedules, feat+emb input, row feature normalisation) throw ConfigError.
TrainRunSummary run_minibatch_training(TrainSettings const &settings,
                                       MinibatchCliSettings const &minibatch, std::FILE *progress);

/// \brief As run_minibatch_training, and full batch (GCN or SAGE, models/full_batch_trainer.hpp
/// through apps/gnn_experiment.hpp) when minibatch.batch_size is 0: the runner of `ttgnn ogb`.
TrainRunSummary run_preset_training(TrainSettings const &settings,
                                    MinibatchCliSettings const &minibatch, std::FILE *progress);

} // namespace ttgnn::cli

#endif
