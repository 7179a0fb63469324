#ifndef TTGNN_MODELS_RUN_RESULT_HPP
#define TTGNN_MODELS_RUN_RESULT_HPP
/// \file run_result.hpp
/// \brief What one run of the pipeline (models/pipeline/pipeline.hpp) gives, full batch or
/// mini-batch: the history, the selected epoch's scores, sizes (with the one definition of
/// compression), timings and peak memory.

#include "core/runtime/memory_breakdown.hpp"
#include "core/tt/tt_shape.hpp"
#include "models/memory/memory_plan.hpp"
#include "models/loss/node_metric.hpp"
#include "models/train/train_options.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace ttgnn {

/// \brief Outcome of run_training.
struct RunResult {
  /// Every epoch (those before a resume included). Mini-batch epochs that were not evaluated
  /// hold -1 scores; EpochRecord::seconds is training + evaluation.
  std::vector<EpochRecord> history;
  StopReason stop = StopReason::completed;
  std::string message;                      ///< why training stopped early on a NaN/Inf loss
  NodeMetric metric = NodeMetric::accuracy; ///< what the *_score fields hold
  bool multilabel = false;
  double train_score = 0, valid_score = 0, test_score = 0; ///< at best_epoch
  int best_epoch = 0, first_epoch = 1, last_epoch = 0;
  int checkpoint_epoch = 0; ///< epoch in the checkpoint file (0: none)
  // sizes
  std::int64_t num_nodes = 0, num_arcs = 0, num_features = 0, num_classes = 0;
  std::int64_t num_train = 0, num_valid = 0, num_test = 0;
  std::int64_t gnn_params = 0;
  std::int64_t embedding_params = 0; ///< trainable table entries (0 without a table)
  std::int64_t embedding_dim = 0;    ///< width of the table (0 without one)
  std::int64_t table_rows = 0; ///< rows of the table (>= num_nodes: ordering holes, TT padding)
  bool has_tt = false;
  TtShape tt_shape;            ///< when has_tt
  std::int64_t metis_cut = -1; ///< METIS orders
  /// Full batch: the locality order the propagation ran in ("none", or an order method), and
  /// the block_locality of the run's order and of the locality order (-1: not measured).
  std::string locality = "none";
  double locality_before = -1, locality_after = -1, locality_time_s = 0;
  // timings (seconds) and memory
  double load_time_s = 0, order_time_s = 0, init_time_s = 0, train_time_s = 0, total_time_s = 0;
  double epoch_time_s = 0;      ///< median training time per epoch (no evaluation)
  double eval_time_s = 0;       ///< median evaluation time
  double epoch_time_mean_s = 0; ///< mean training + evaluation time per epoch
  double batch_time_s = 0;      ///< mini-batch: median time per batch
  std::int64_t batches_per_epoch = 0;
  double peak_rss_mb = 0;
  /// Peak RSS once the input is initialised (load, order, init), before the training setup.
  double prepare_peak_rss_mb = 0;
  /// Under --memory-budget (budget_mb 0: none): what the activations were given, the schedule,
  /// the predicted peak next to peak_rss_mb, and the recomputation's cost.
  MemoryPlan memory_plan;
  MemoryBreakdown memory; ///< what the run held, by part (Views counted), next to peak RSS
  // mini-batch under MPI (docs/DISTRIBUTED.md)
  int ranks = 1;                            ///< ranks that trained together
  double comm_bytes_per_step = 0;           ///< bytes this rank handed to MPI per optimizer step
  double comm_seconds_per_step = 0;         ///< time in those collectives per step (waits included)
  double init_scale = 0, tt_svd_error = -1; ///< embedding initialisation
  double eigen_residual = -1;  ///< spectral init: largest ||Â v - λ v|| (-1: not spectral)
  std::int64_t init_slots = 0; ///< spectral TT init from the slot graph: its nodes (else 0)

  /// The table a full embedding would need (num_nodes x embedding_dim) over the trainable
  /// entries this run's table has: the one definition of compression (1 for a full table;
  /// NaN without a table, null in the JSON).
  double compression() const {
    return embedding_params > 0
               ? double(num_nodes) * double(embedding_dim) / double(embedding_params)
               : std::nan("");
  }
};

} // namespace ttgnn

#endif
