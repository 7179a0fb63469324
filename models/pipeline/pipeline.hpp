#ifndef TTGNN_MODELS_PIPELINE_HPP
#define TTGNN_MODELS_PIPELINE_HPP
/// \file pipeline.hpp
/// \brief The whole training pipeline as a library: load an OGB-layout folder (choosing the
/// split), normalise features, order the nodes, build the input (features, full table, TT
/// table, initialised Gaussian / orthogonal / spectral), build the GCN/SAGE model, train full
/// batch (models/train/full_batch_trainer.hpp) or on neighbour-sampled mini-batches
/// (models/train/minibatch_trainer.hpp), evaluate, and write the outputs (checkpoints, embeddings
/// and logits in original node order, metrics CSV). `ttgnn train`, `ttgnn ogb`,
/// `ttgnn homophily-study` and `ttgnn predict` are front-ends over these functions.
///
///     ttgnn::RunConfig cfg;
///     cfg.data.dataset = "datasets/cora";
///     cfg.input = ttgnn::InputKind::tt;
///     cfg.order = ttgnn::OrderMethod::metis_hier;
///     ttgnn::check_run_config(cfg);                       // before any work
///     const auto loaded = ttgnn::load_run_data(cfg);      // split, features as cfg asks
///     const ttgnn::RunResult r =
///         ttgnn::run_training(Kokkos::DefaultExecutionSpace(), loaded.data, cfg, log);
///     std::cout << ttgnn::run_json(r, cfg) << "\n";
///
/// Every setting works on both paths or is refused by check_run_config with one message
/// ("... is not implemented for mini-batch training (--batch-size) ...").

#include "core/io/path_checks.hpp"
#include "graph/dataset.hpp"
#include "models/pipeline/run_config.hpp"
#include "models/pipeline/run_result.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ttgnn {

/// \brief Checks the settings before any work: ranges, combinations the chosen path does not
/// implement, the dataset folder (when set), that every output file can be written and that no
/// output is another output or an input (require_distinct_paths over run_inputs / run_outputs).
/// Throws ConfigError / InputError naming the option.
void check_run_config(RunConfig const &config);

/// \brief Checks, before any work on \p data, that the sizes the settings give fit this machine
/// (TT cores, a full table, the GNN weights, a hidden layer of every node) and that the TT shape
/// exists for its node count; ConfigError naming the options (--tt-rank, --tt-shape, --emb-dim,
/// --hidden, ...) otherwise. \p config has its TT rank resolved.
void check_run_sizes(RunConfig const &config, Dataset<std::int32_t> const &data);

/// The files and folders a run reads (dataset, cache, a resumed checkpoint), with their options.
std::vector<NamedPath> run_inputs(RunConfig const &config);
/// The files a run writes (checkpoint, embeddings, predictions, metrics), with their options.
std::vector<NamedPath> run_outputs(RunConfig const &config);

/// \brief The split to load from dataset folder \p dir: \p requested when given, else
/// meta.csv's `split`, else the only folder under split/. InputError when \p dir does not
/// exist, ConfigError naming the available splits when there is no single choice.
std::string choose_split(std::string const &dir, std::string const &requested);

/// \brief A loaded dataset and how it was loaded.
struct LoadedData {
  Dataset<std::int32_t> data;
  std::string split;
  double seconds = 0;
};

/// \brief The TT rank of a run that sets none (EmbeddingConfig::tt_rank 0) on \p data:
/// resolved_tt_rank's default (models/embedding/embedding_config.hpp), 16 when at least a
/// quarter of the nodes are training nodes, else 8.
std::int64_t default_tt_rank(Dataset<std::int32_t> const &data);

/// \brief Loads config.data (features only when config.input uses them, normalised as
/// config.data.feature_norm says). Checks what training needs: a training set, two classes or
/// multi-label targets, feature values for feature inputs. Notes go to \p log.
LoadedData load_run_data(RunConfig const &config, RunLog const &log = {});

/// \brief Divides each feature row (dense or sparse) of \p data by its L1 norm (rows of zeros
/// stay zero), in place.
void normalize_feature_rows(Dataset<std::int32_t> &data);

/// \brief What a checkpoint's data must be, by content, not by path (a copy of the dataset
/// folder elsewhere matches): node, arc, feature and class counts and a checksum of the
/// graph, the labels and the split (original node order).
std::string data_fingerprint(Dataset<std::int32_t> const &data);

/// \brief Orders \p data (original ids), builds the input and the model, trains and writes the
/// outputs config asks for. Progress lines go to \p log.
RunResult run_training(Kokkos::DefaultExecutionSpace const &space,
                       Dataset<std::int32_t> const &data, RunConfig const &config,
                       RunLog const &log = {});

/// \brief As above, taking the dataset over: the nodes are relabelled in the dataset's own arrays
/// (graph and dense features; a buffer of a quarter of the arcs), so that one copy of the graph
/// is held throughout (two otherwise; a full-table input keeps the loaded dataset, its init
/// reads it). \p data is left empty.
RunResult run_training(Kokkos::DefaultExecutionSpace const &space, Dataset<std::int32_t> &&data,
                       RunConfig const &config, RunLog const &log = {});

/// \brief As run_training, without training: restores the selected parameters of
/// config.checkpoint (full batch or mini-batch, same settings and data), evaluates them
/// and writes config.predictions_out / export_embeddings. The history is the checkpoint's.
RunResult evaluate_checkpoint(Kokkos::DefaultExecutionSpace const &space,
                              Dataset<std::int32_t> const &data, RunConfig const &config,
                              RunLog const &log = {});

/// \brief The run settings stored in a checkpoint written by run_training (ConfigError when
/// the file has none, e.g. one written by a trainer directly).
RunConfig checkpoint_run_config(std::string const &checkpoint);

/// \brief The one-line JSON summary: status, scores, sizes, compression, timings, peak memory
/// and every setting.
std::string run_json(RunResult const &result, RunConfig const &config);

/// \brief Per-epoch metrics as CSV (epoch, loss, the three scores, valid loss, lr, times),
/// written atomically.
void write_metrics_csv(std::string const &path, RunResult const &result);

} // namespace ttgnn

#endif
