#ifndef TTGNN_APPS_TRAIN_PIPELINE_HPP
#define TTGNN_APPS_TRAIN_PIPELINE_HPP
/// \file train_pipeline.hpp
/// \brief The whole full-batch experiment behind `ttgnn train` (and presets such as
/// `ttgnn ogb`): load an OGB-layout folder, order the nodes, permute every node array, build
/// the normalised adjacency, the input (features / full table / TT table, initialised
/// Gaussian, orthogonal or spectral), the GCN/SAGE model, train with FullBatchTrainer, then
/// write the requested outputs (embeddings in original order, metrics CSV, curve SVG) and
/// return the summary as one JSON object.

#include "graph/dataset.hpp"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace ttgnn::cli {

class Options;

/// \brief Every setting of a full-batch run (the options of `ttgnn train`).
struct TrainSettings {
  // data
  std::string dataset, split, cache_dir;
  std::string feature_norm = "none"; ///< none | row (divide each row by its L1 norm)
  // input and ordering
  std::string input = "feat";     ///< feat | emb | tt | feat+tt | feat+emb
  std::string order = "original"; ///< original | random | metis | metis-hier | rcm
  std::string init = "ortho";     ///< gaussian | ortho | spectral
  /// RMS entry of the initial table. 0.1 (was 1): 0.04 better test accuracy on held-out
  /// generated graphs (README, Training).
  double init_std = 0.1;
  double spectral_exponent = 0.5;
  std::int64_t emb_dim = 64;
  std::int64_t tt_rank = 8;
  std::vector<std::int64_t> tt_shape; ///< row factors n_k (empty: balanced with tt_slack)
  std::vector<std::int64_t> tt_dims;  ///< column factors d_k (empty: from emb_dim)
  double tt_slack = 1.05;
  // model
  std::string model = "gcn"; ///< gcn | sage
  std::int64_t hidden = 16;
  int layers = 2;
  double dropout = 0.5;
  /// Dropout on the input rows (features or embeddings). 0 by default, as OGB's examples and
  /// most PyG examples; Kipf & Welling's GCN (PyG's examples/gcn.py) uses 0.5 (< 0: dropout).
  double input_dropout = 0;
  bool residual = false, batch_norm = false;
  // optimisation
  int epochs = 200;
  std::string optimizer = "adam";
  double lr = 0.01, weight_decay = 5e-4;
  double emb_lr = -1; ///< < 0: as the GNN's
  /// Weight decay of the embedding table: 0 (was the GNN's: decay pulls every row, seen or
  /// not, towards 0); < 0: as the GNN's.
  double emb_weight_decay = 0;
  int patience = 0;
  int lr_warmup = 0; ///< linear learning-rate warm-up epochs (--lr-warmup)
  double plateau_factor = 1.0;
  int plateau_patience = 10;
  std::uint64_t seed = 0;
  /// Metric of evaluation and model selection: "" = the dataset's (accuracy for single-label,
  /// ROC-AUC for multi-label targets), or acc | rocauc | f1_micro | f1_macro.
  std::string metric;
  /// Embedding backward: deterministic (sort-and-reduce, bitwise reproducible at a fixed
  /// thread count) | atomic (atomic adds: faster on GPUs, not reproducible).
  std::string tt_backward = "deterministic";
  // outputs
  std::string checkpoint;
  int checkpoint_every = 1;
  bool resume = false;
  std::string export_embeddings, metrics_out, curve_svg;
  bool progress = true; ///< one line per epoch on stderr
};

/// \brief Declares the options of TrainSettings on \p opts (defaults from a default-built
/// TrainSettings), so presets can add theirs.
void declare_train_options(Options &opts);
/// \brief Reads the declared options into settings.
TrainSettings train_settings_from(Options const &opts);

/// \brief The split to load from dataset folder \p dir: \p requested when given, else
/// meta.csv's `split`, else the only folder under split/. InputError when \p dir does not
/// exist, ConfigError naming the available splits when there is no single choice.
std::string choose_split(std::string const &dir, std::string const &requested);

/// \brief What a checkpoint's data must be, by content, not by path (a copy of the dataset
/// folder elsewhere matches): node, arc, feature and class counts and a checksum of the
/// graph, the labels and the split (original node order).
std::string data_fingerprint(Dataset<std::int32_t> const &data);

/// \brief Checks, before any work, that --dataset is a folder and that every output file
/// (--checkpoint, --export-embeddings, --metrics-out, --curve-svg) can be written, and that
/// --export-embeddings has a table to export. Throws InputError / ConfigError naming the option.
void check_train_paths(TrainSettings const &s);

/// \brief Result of run_full_batch_training.
struct TrainRunSummary {
  std::string json;           ///< one-line JSON object (accuracies, sizes, timings, every setting)
  std::string status;         ///< completed | early_stopping | nonfinite
  std::string message;        ///< why training stopped early on a non-finite value
  std::string metric = "acc"; ///< what test/valid/train_acc hold (acc, rocauc, f1_micro, ...)
  double test_acc = 0, valid_acc = 0, train_acc = 0, compression = 0;
  std::int64_t gnn_params = 0, embedding_params = 0;
  int best_epoch = 0;
  double epoch_seconds = 0; ///< median training-step time per epoch (JSON epoch_time_s)
};

/// \brief Runs the experiment; progress lines go to \p progress (may be null).
TrainRunSummary run_full_batch_training(TrainSettings const &settings, std::FILE *progress);

} // namespace ttgnn::cli

#endif
