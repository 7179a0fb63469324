/// \file memory_plan.cpp
/// \brief A training run under a memory budget (memory_plan.hpp).
#include "models/memory/memory_plan.hpp"

#include "core/error.hpp"
#include "core/parse_number.hpp"

#include <algorithm>
#include <cstdio>

namespace ttgnn {

MemoryPlan plan_memory(GnnStepShape const &shape, std::int64_t eval, std::int64_t budget,
                       std::int64_t fixed, std::int64_t step_rows) {
  constexpr double MiB = 1024.0 * 1024.0;
  const ChainCost chain = gnn_chain_cost(shape);
  const std::int64_t limit = budget - fixed - step_rows;
  const RecomputePlan plan = limit >= eval ? solve_recompute(chain, limit) : RecomputePlan();
  if (plan.ops.empty()) {
    const std::int64_t least = std::max(min_recompute_bytes(chain), eval);
    const auto mib = static_cast<long long>((fixed + step_rows + least + (1 << 20) - 1) >> 20);
    throw ConfigError("--memory-budget " + format_byte_size(budget) + " is too small: " +
                      format_byte_size(fixed) + " are resident before training and a step's " +
                      "rows take " + format_byte_size(step_rows) + "; the least schedule needs " +
                      format_byte_size(least) + " of activations, so give at least " +
                      std::to_string(mib) + "MiB");
  }
  MemoryPlan m;
  m.budget_mb = double(budget) / MiB;
  m.fixed_mb = double(fixed) / MiB;
  m.step_rows_mb = double(step_rows) / MiB;
  m.activation_limit_bytes = limit;
  m.activation_limit_mb = double(limit) / MiB;
  m.activation_peak_mb = double(std::max(plan.peak_bytes, eval)) / MiB;
  m.predicted_peak_mb = m.fixed_mb + m.step_rows_mb + m.activation_peak_mb;
  m.schedule = to_string(plan.ops);
  m.layers = plan.stage_modes();
  m.predicted_overhead = plan.overhead();
  return m;
}

std::vector<std::string> describe(MemoryPlan const &m) {
  std::string layers;
  for (std::size_t l = 0; l < m.layers.size(); ++l)
    layers += (l ? ", " : "") + std::to_string(l) + ": " + m.layers[l];
  char buf[160];
  std::snprintf(buf, sizeof buf,
                "; predicted peak %.0f MiB (activations %.0f MiB), recompute +%.1f%% work",
                m.predicted_peak_mb, m.activation_peak_mb, 100.0 * m.predicted_overhead);
  constexpr double MiB = 1024.0 * 1024.0;
  return {"memory budget " + format_byte_size(std::int64_t(m.budget_mb * MiB)) + ": " +
              format_byte_size(std::int64_t(m.fixed_mb * MiB)) + " resident, activations get " +
              format_byte_size(m.activation_limit_bytes) + "; layers keep {" + layers + "}" + buf,
          "schedule: " + m.schedule};
}

} // namespace ttgnn
