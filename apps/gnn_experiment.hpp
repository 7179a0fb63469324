#ifndef TTGNN_APPS_GNN_EXPERIMENT_HPP
#define TTGNN_APPS_GNN_EXPERIMENT_HPP
/// \file gnn_experiment.hpp
/// \brief One training run on an in-memory dataset, as `ttgnn ogb` and `ttgnn homophily-study`
/// need it: node ordering (graph/ordering.hpp) applied to the dataset, the embedding rows the
/// ordering assigns, then either full-batch training of a GCN/SAGE GnnModel
/// (models/full_batch_trainer.hpp) or mini-batch GraphSAGE with neighbour sampling
/// (models/minibatch_trainer.hpp).

#include "core/memory_breakdown.hpp"
#include "graph/dataset.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ttgnn::cli {

/// \brief Everything a run depends on.
struct ExperimentSettings {
  std::string model = "gcn"; ///< gcn | sage
  bool minibatch = false;    ///< neighbour-sampled mini-batches (sage only)
  int layers = 2;
  std::int64_t hidden = 64;
  double dropout = 0.5;
  double input_dropout = 0.0;
  bool batch_norm = false;
  bool residual = false;
  std::string input = "tt";       ///< feat | emb | tt | feat+tt
  std::string order = "original"; ///< original | random | metis | metis-hier | rcm
  std::int64_t metis_parts = 0;   ///< flat METIS parts (0: n_1)
  std::int64_t emb_dim = 64;
  std::int64_t tt_rank = 8;
  std::vector<std::int64_t> tt_n; ///< row factors (empty: from the ordering / balanced)
  std::vector<std::int64_t> tt_d; ///< column factors (empty: balanced)
  std::string init = "ortho";     ///< gaussian | ortho | spectral
  double init_std = 0.1;          ///< root-mean-square entry of the initial table
  std::string optimizer = "adam"; ///< adam | adamw
  double lr = 0.01;
  double weight_decay = 0;
  double emb_lr = -1; ///< < 0: lr
  /// Weight decay of the embedding table (full batch; the mini-batch table has none); < 0:
  /// weight_decay.
  double emb_weight_decay = 0;
  int epochs = 100;
  int patience = 0;
  // Mini-batch only.
  std::int64_t batch_size = 1000;
  std::vector<std::int64_t> fanouts{5, 10, 15};
  int eval_every = 1;
  std::int64_t max_batches = 0;
  std::string checkpoint;   ///< mini-batch: checkpoint file ("" = none)
  int checkpoint_every = 1; ///< mini-batch: epochs between checkpoints
  bool resume = false;      ///< mini-batch: continue from `checkpoint` when it exists
  std::string fingerprint;  ///< mini-batch: data settings a resumed checkpoint must match
  // Mini-batch evaluation (MinibatchTrainOptions).
  std::string eval_nodes = "all";         ///< all | valid+test | test
  std::vector<std::int64_t> eval_fanouts; ///< subset evaluation (empty: all neighbours, exact)
  std::int64_t eval_batch_size = 0;       ///< subset evaluation (0: batch_size)
  std::int64_t eval_chunk = 65536;        ///< layer-wise evaluation: input rows per chunk
  std::uint64_t seed = 0;
  /// Metric of evaluation and selection ("" = the dataset's: acc, or rocauc for multi-label).
  std::string metric;
};

/// \brief One epoch (accuracies -1 when the epoch was not evaluated).
struct ExperimentEpoch {
  int epoch = 0;
  double loss = 0, train_acc = -1, valid_acc = -1, test_acc = -1, seconds = 0;
};

/// \brief What a run gives.
struct ExperimentResult {
  std::vector<ExperimentEpoch> history;
  double train_acc = 0, valid_acc = 0, test_acc = 0;
  int best_epoch = 0, epochs_run = 0;
  std::string stop_reason;
  std::int64_t gnn_params = 0, embedding_params = 0;
  double compression = 0; ///< 0 without an embedding
  std::string tt_shape;
  std::int64_t metis_cut = -1;
  std::string metric = "acc"; ///< what the *_acc fields hold (acc, rocauc, f1_micro, f1_macro)
  /// Median training time per epoch (no evaluation), median evaluation time, mean epoch time
  /// (training + evaluation).
  double epoch_time_s = 0, eval_time_s = 0, epoch_time_mean_s = 0;
  double order_seconds = 0, train_seconds = 0, peak_rss_mb = 0;
  MemoryBreakdown memory;             ///< peak RSS and what the run held, by part
  std::int64_t batches_per_epoch = 0; ///< mini-batch only
  double batch_time_s = 0;            ///< mini-batch: median training time of a batch
  int first_epoch = 1;                ///< mini-batch: first epoch run (> 1 after a resume)
  int checkpoint_epoch = 0;           ///< mini-batch: epoch in the checkpoint file (0: none)
};

/// \brief Runs \p settings on \p data (original ids; permuted inside). Progress lines (one per
/// epoch) go to \p progress when given. Throws ConfigError for inconsistent settings.
ExperimentResult run_experiment(Dataset<std::int32_t> const &data,
                                ExperimentSettings const &settings,
                                std::function<void(std::string const &)> const &progress = {});

/// \brief Settings as JSON fields (`"model":"gcn","layers":2,...`, no braces) for reports.
std::string settings_json(ExperimentSettings const &s);

} // namespace ttgnn::cli

#endif
