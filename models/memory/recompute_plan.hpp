#ifndef TTGNN_MODELS_MEMORY_RECOMPUTE_PLAN_HPP
#define TTGNN_MODELS_MEMORY_RECOMPUTE_PLAN_HPP
/// \file recompute_plan.hpp
/// \brief Optimal re-materialization of a chain of L stages under a memory limit: Rotor's
/// dynamic program (Beaumont, Eyraud-Dubois, Herrmann, Joly, Shilova, "Optimal checkpointing
/// for heterogeneous chains", 2019; docs/METHOD.md, "Training under a memory budget").
///
/// Stage l maps its input A_l to its output A_{l+1} (A_0, the model input, and the gradient
/// D_0 belong to the caller and are not counted). What a stage keeps for its backward beyond
/// A_l and A_{l+1} is S_l (saved_bytes). Operations, and what they hold (the memory model):
/// - forward_all(l): needs A_l; makes A_{l+1} and S_l (for a moment also forward_scratch).
/// - forward_keep_input(l): the same, then frees S_l (A_l stays: a checkpoint).
/// - forward_none(l): forward_keep_input, then frees A_l as well (l > 0).
/// - recompute(l): needs A_l and A_{l+1}; makes S_l again (recompute_scratch for a moment).
/// - backward(l): needs A_l, A_{l+1}, S_l and D_{l+1} (the caller's logits gradient for
///   l = L - 1); reads A_{l+1} first (a ReLU's sign: why A_{l+1} lives until backward(l)) and
///   frees it, then makes D_l (grad_bytes; backward_scratch for a moment) and frees S_l and
///   D_{l+1}; a stage whose D_l takes D_{l+1}'s place (grad_in_place) adds only the scratch.
/// A schedule is the sequence; its peak is the largest sum of the live bytes at any moment,
/// its cost the sum of the operations' costs. The solver returns the cheapest schedule of
/// Rotor's recursive family whose peak fits the limit (memoised over (first, last, limit)).

#include <cstdint>
#include <string>
#include <vector>

namespace ttgnn {

/// \brief Sizes (bytes) and costs (any unit, the same for all) of one stage.
struct StageCost {
  std::int64_t input_bytes = 0;       ///< A_l (0 for l = 0: the caller's)
  std::int64_t saved_bytes = 0;       ///< S_l
  std::int64_t grad_bytes = 0;        ///< D_l (0 for l = 0: the caller's)
  std::int64_t forward_scratch = 0;   ///< transient during a forward, beyond S_l and A_{l+1}
  std::int64_t recompute_scratch = 0; ///< transient during recompute, beyond S_l
  std::int64_t backward_scratch = 0;  ///< transient during backward, beyond D_l
  bool grad_in_place = false;         ///< D_l is written over D_{l+1} (same size)
  double forward_cost = 0, recompute_cost = 0, backward_cost = 0;
  /// Bytes a backward adds above what is live once A_{l+1} is freed.
  std::int64_t backward_extra() const {
    return (grad_in_place ? 0 : grad_bytes) + backward_scratch;
  }
};

/// \brief A chain of stages and the size of its output A_L (the logits).
struct ChainCost {
  std::vector<StageCost> stages;
  std::int64_t output_bytes = 0;
};

/// \brief One operation of a schedule.
struct RecomputeOp {
  enum Kind { forward_all, forward_keep_input, forward_none, recompute, backward };
  Kind kind = forward_all;
  int stage = 0;
  bool operator==(RecomputeOp const &o) const { return kind == o.kind && stage == o.stage; }
};

/// \brief A schedule with its peak and cost under the memory model.
struct RecomputePlan {
  std::vector<RecomputeOp> ops;
  std::int64_t peak_bytes = 0; ///< largest live bytes (simulate_schedule)
  double cost = 0;             ///< sum of the operations' costs
  double base_cost = 0;        ///< the cost without recomputation (all forwards + backwards)
  /// Number of leading operations that make the logits (the training forward); the rest run
  /// in the backward pass.
  std::size_t forward_ops() const;
  /// Per stage: "all" (keeps what its backward needs), "input" (keeps its input, recomputes
  /// the rest) or "none" (recomputed from an earlier stage's input), from the forward ops.
  std::vector<std::string> stage_modes() const;
  /// cost / base_cost - 1.
  double overhead() const { return base_cost > 0 ? cost / base_cost - 1.0 : 0.0; }
};

/// \brief Peak live bytes and cost of \p ops; ConfigError when an operation's inputs are not
/// live (an invalid schedule) or a stage's backward is missing.
RecomputePlan simulate_schedule(ChainCost const &chain, std::vector<RecomputeOp> const &ops);

/// \brief The schedule without recomputation: forward_all of every stage, then the backwards.
RecomputePlan keep_all_schedule(ChainCost const &chain);

/// \brief The cheapest schedule of Rotor's family whose peak is at most \p limit_bytes; an
/// empty plan (no ops) when none fits.
RecomputePlan solve_recompute(ChainCost const &chain, std::int64_t limit_bytes);

/// \brief The smallest limit any schedule of the family fits in (the least peak).
std::int64_t min_recompute_bytes(ChainCost const &chain);

/// \brief Every schedule of Rotor's family (for tests: the solver's optimum against all).
std::vector<std::vector<RecomputeOp>> all_recompute_schedules(int num_stages);

/// "F_all(0) F_ck(1) ... B(0)".
std::string to_string(std::vector<RecomputeOp> const &ops);

} // namespace ttgnn

#endif
