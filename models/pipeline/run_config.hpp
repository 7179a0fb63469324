#ifndef TTGNN_MODELS_RUN_CONFIG_HPP
#define TTGNN_MODELS_RUN_CONFIG_HPP
/// \file run_config.hpp
/// \brief Every setting of one training run of the pipeline (models/pipeline/pipeline.hpp), typed:
/// the data, the node order, the input (features, full table, TT table), the GNN, the
/// optimisation, full batch or neighbour-sampled mini-batches, and the outputs. `ttgnn train`,
/// `ttgnn ogb`, `ttgnn homophily-study` and `ttgnn predict` all fill one of these.
///
/// to_text / run_config_from_text write and read it as `key=value` lines (stored in
/// checkpoints, so `ttgnn predict` rebuilds the model a checkpoint was trained with).

#include "core/io/json_writer.hpp"
#include "graph/order/metis_partition.hpp"
#include "graph/order/order_method.hpp"
#include "models/embedding/embedding_config.hpp"
#include "models/embedding/input_kind.hpp"
#include "models/layers/gnn_config.hpp"
#include "models/loss/node_metric.hpp"
#include "models/train/eval_nodes.hpp"
#include "models/train/train_options.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ttgnn {

template <class Ordinal> struct Dataset; // graph/dataset.hpp

/// Receives progress lines of a run (loading notes, one line per epoch with the ETA). May be
/// empty.
using RunLog = std::function<void(std::string const &)>;

/// Preprocessing of node features: none, or each row divided by its L1 norm (PyG's
/// NormalizeFeatures; zero rows stay zero).
enum class FeatureNorm { none, row };
std::string to_string(FeatureNorm f);
FeatureNorm parse_feature_norm(std::string const &name); ///< ConfigError naming the choices

/// \brief Where the data comes from (an OGB raw-layout folder).
struct DataConfig {
  std::string dataset;   ///< folder in the OGB raw layout
  std::string split;     ///< folder under split/ ("" = meta.csv's split, or the only one)
  std::string cache_dir; ///< binary cache of the loader ("" = none)
  FeatureNorm feature_norm = FeatureNorm::none;
};

/// \brief Neighbour-sampled mini-batches (GraphSAGE); batch_size 0 trains full batch.
struct MinibatchConfig {
  std::int64_t batch_size = 0;
  std::vector<std::int64_t> fanouts; ///< input layer first (DGL order); empty: 10 per layer
  int eval_every = 1;                ///< layer-wise evaluation every this many epochs
  std::int64_t max_batches = 0;      ///< batches per epoch (0: all)
  /// Evaluation (models/train/minibatch_trainer.hpp): every node layer-wise, or only the valid+test
  /// or test nodes from their L-hop neighbourhoods (exact, or sampled with eval_fanouts).
  EvalNodes eval_nodes = EvalNodes::all;
  std::vector<std::int64_t> eval_fanouts; ///< empty: all neighbours (exact)
  std::int64_t eval_batch_size = 0;       ///< subset evaluation (0: batch_size)
  std::int64_t eval_chunk = 0; ///< layer-wise: input rows at once (0 = sized for the space)
};

/// \brief The relabelling of the nodes that full-batch propagation runs on (the graph, the
/// input rows and the targets move together; results come back in the original ids, dropout
/// masks and initial values stay those of each node). `automatic`: `method` (lp-hier) when
/// the run's own order leaves neighbours scattered and `method` gathers them (pipeline.cpp,
/// docs/CLI.md `--locality`); else `method` always (original: none).
struct Locality {
  bool automatic = true;
  OrderMethod method = OrderMethod::lp_hier;
};
/// "auto", "none", or the name of the forced order method.
std::string to_string(Locality const &locality);
/// Inverse of to_string; throws ConfigError listing the choices.
Locality parse_locality(std::string const &name);

/// \brief One run.
struct RunConfig {
  DataConfig data;
  InputKind input = InputKind::features;
  OrderMethod order = OrderMethod::original;
  Locality locality;            ///< of the full-batch propagation
  std::int64_t metis_parts = 0; ///< flat METIS parts (0: the first TT row factor)
  /// The ordering's tuning (graph/order/ordering.hpp, OrderingOptions): METIS' driver, the
  /// node count above which metis-hier coarsens first (-1: only beyond METIS' arc limit, where
  /// metis and metis-hier always take the multilevel order), lp-hier's sweeps per level.
  MetisAlgorithm metis_algorithm = MetisAlgorithm::kway;
  std::int64_t multilevel_min_nodes = 200000;
  std::int64_t lp_sweeps = 10;
  EmbeddingConfig embedding;
  // model
  GnnKind model = GnnKind::gcn;
  int layers = 2;
  std::int64_t hidden = 16;
  double dropout = 0.5;
  /// Dropout on the input rows; 0 as OGB's and most PyG examples (Kipf & Welling use 0.5).
  double input_dropout = 0;
  bool residual = false, batch_norm = false;
  /// Training under this many bytes in all (0: no budget): the activations get what the
  /// resident memory at the start of training and a step's rows (mini-batch: the largest a
  /// batch can have) leave, and the cheapest re-materialization schedule that fits runs
  /// (models/memory/memory_plan.hpp).
  std::int64_t memory_budget = 0;
  // optimisation
  int epochs = 200;
  OptimizerKind optimizer = OptimizerKind::adam;
  double lr = 0.01, weight_decay = 5e-4;
  int patience = 0;  ///< early stopping (0: off)
  int lr_warmup = 0; ///< linear warm-up epochs
  double plateau_factor = 1.0;
  int plateau_patience = 10;
  std::optional<NodeMetric> metric; ///< empty: the dataset's (acc, or rocauc for multi-label)
  MinibatchConfig minibatch;
  std::uint64_t seed = 0;
  // outputs
  std::string checkpoint;
  int checkpoint_every = 1;
  bool resume = false;
  std::string export_embeddings; ///< N x d float32 .npy, rows in original node order
  std::string metrics_out;       ///< per-epoch CSV
  /// Output-layer logits of every node (N x C float32 .npy, original order; full batch).
  std::string predictions_out;

  bool minibatch_mode() const { return minibatch.batch_size > 0; }
};

/// The evaluator of a run: \p c.metric (resolve_metric, models/loss/node_metric.hpp, refuses a
/// mismatch), or the one \p data names when it fits, else accuracy (ROC-AUC for multi-label
/// targets): dataset_metric.
NodeMetric run_metric(RunConfig const &c, Dataset<std::int32_t> const &data);

/// `key=value` lines, one per setting (outputs and data paths included).
std::string to_text(RunConfig const &c);
/// Adds every setting to \p json as a typed field (the keys of to_text; `metric` left out, as
/// the result's `metric` field is the setting resolved for the dataset).
void add_settings_json(JsonWriter &json, RunConfig const &c);
/// Inverse of to_text; keys it does not know throw ConfigError (a newer file).
RunConfig run_config_from_text(std::string const &text);

} // namespace ttgnn

#endif
