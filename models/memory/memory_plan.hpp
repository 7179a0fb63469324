#ifndef TTGNN_MODELS_MEMORY_MEMORY_PLAN_HPP
#define TTGNN_MODELS_MEMORY_MEMORY_PLAN_HPP
/// \file memory_plan.hpp
/// \brief A training run under a memory budget (`--memory-budget`): the bytes resident before
/// training, a step's rows outside the model, and the re-materialization schedule
/// (models/memory/recompute_plan.hpp) that fits the rest, or the least budget that would fit.

#include "core/runtime/peak_memory.hpp"
#include "models/memory/gnn_chain_cost.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ttgnn {

/// \brief The plan of a budgeted run (predicted before training) and what training measured.
struct MemoryPlan {
  double budget_mb = 0;
  double fixed_mb = 0;             ///< resident at the start of training (measured)
  double step_rows_mb = 0;         ///< a step's buffers outside the model (input rows, logits...)
  double activation_limit_mb = 0;  ///< budget - fixed - step rows
  double activation_peak_mb = 0;   ///< the schedule's (or evaluation's) peak, predicted
  double predicted_peak_mb = 0;    ///< fixed + step rows + activation peak
  std::string schedule;            ///< the operations ("F_all(0) F_ck(1) ... B(0)")
  std::vector<std::string> layers; ///< per layer: all, input or none
  double predicted_overhead = 0;   ///< extra work of the recomputations (cost model)
  std::int64_t activation_limit_bytes = 0; ///< what GnnModel::set_memory_budget gets
  double recompute_s = 0;                  ///< time spent recomputing (measured, all epochs)
  /// Peak of the Kokkos allocations made during training (measured; AllocationTracker): to
  /// set against step_rows_mb + activation_peak_mb
  double training_allocations_mb = 0;
};

/// \brief Plans a training step of \p shape (a bound on every step's shape) within \p budget
/// bytes, of which \p fixed are resident and \p step_rows go to a step's buffers outside the
/// model; an evaluation, which needs \p eval_bytes above those, must fit too. ConfigError when
/// no schedule fits, naming the least budget that does.
MemoryPlan plan_memory(GnnStepShape const &shape, std::int64_t eval_bytes, std::int64_t budget,
                       std::int64_t fixed, std::int64_t step_rows);

/// The plan in two lines for the run's log: the budget's split and the layers' modes, then the
/// schedule.
std::vector<std::string> describe(MemoryPlan const &plan);

/// \brief plan_memory with what is resident now as the fixed bytes; gives \p model (a GnnModel)
/// the plan's activation limit and passes the plan's lines to \p log (when set).
template <class Model>
MemoryPlan apply_memory_plan(Model &model, GnnStepShape const &shape, std::int64_t eval_bytes,
                             std::int64_t budget, std::int64_t step_rows,
                             std::function<void(std::string const &)> const &log) {
  const auto fixed = static_cast<std::int64_t>(current_rss_mb() * 1048576.0);
  const MemoryPlan m = plan_memory(shape, eval_bytes, budget, fixed, step_rows);
  model.set_memory_budget(m.activation_limit_bytes);
  if (log)
    for (auto const &line : describe(m))
      log(line);
  return m;
}

} // namespace ttgnn

#endif
