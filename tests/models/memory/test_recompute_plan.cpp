// The re-materialization solver (models/memory/recompute_plan.hpp): its optimum against every
// schedule of the family on random chains, its peaks against an independent simulation, the
// keep-all schedule when memory is plentiful and the least peak as the feasibility threshold.
#include "core/error.hpp"
#include "models/memory/recompute_plan.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <set>

namespace {

using ttgnn::ChainCost;
using ttgnn::RecomputeOp;

ChainCost random_chain(int L, std::mt19937_64 &rng) {
  std::uniform_int_distribution<std::int64_t> bytes(1, 9);
  std::uniform_real_distribution<double> cost(0.5, 4.0);
  ChainCost c;
  for (int l = 0; l < L; ++l) {
    ttgnn::StageCost s;
    s.input_bytes = l == 0 ? 0 : bytes(rng);
    s.grad_bytes = l == 0 ? 0 : s.input_bytes;
    s.saved_bytes = bytes(rng) % 3 == 0 ? 0 : bytes(rng);
    s.forward_scratch = bytes(rng) - 1;
    s.recompute_scratch = bytes(rng) - 1;
    s.backward_scratch = bytes(rng) - 1;
    s.forward_cost = cost(rng);
    s.recompute_cost = s.saved_bytes > 0 ? s.forward_cost * 0.6 : 0.0;
    s.backward_cost = 2 * cost(rng);
    c.stages.push_back(s);
  }
  // some stages write D_l over D_{l+1} (equal sizes)
  for (int l = 1; l + 1 < L; ++l)
    if (rng() % 2 == 0) {
      c.stages[l].grad_in_place = true;
      c.stages[l + 1].input_bytes = c.stages[l + 1].grad_bytes = c.stages[l].grad_bytes;
    }
  c.output_bytes = bytes(rng);
  return c;
}

} // namespace

TEST_CASE("recompute plan: the solver's schedule is the cheapest of the family that fits") {
  std::mt19937_64 rng(7);
  for (int L = 1; L <= 5; ++L) {
    const auto all = ttgnn::all_recompute_schedules(L);
    std::set<std::string> distinct;
    for (auto const &ops : all)
      distinct.insert(ttgnn::to_string(ops));
    CHECK(distinct.size() == all.size());
    for (int trial = 0; trial < 20; ++trial) {
      const ChainCost c = random_chain(L, rng);
      std::int64_t least = std::numeric_limits<std::int64_t>::max(), most = 0;
      for (auto const &ops : all) {
        const auto p = ttgnn::simulate_schedule(c, ops);
        least = std::min(least, p.peak_bytes);
        most = std::max(most, p.peak_bytes);
      }
      CHECK(ttgnn::min_recompute_bytes(c) == least);
      CHECK(ttgnn::solve_recompute(c, least - 1).ops.empty());
      for (std::int64_t m = least; m <= most + 1; ++m) {
        double best = std::numeric_limits<double>::infinity();
        for (auto const &ops : all) {
          const auto p = ttgnn::simulate_schedule(c, ops);
          if (p.peak_bytes <= m)
            best = std::min(best, p.cost);
        }
        const auto plan = ttgnn::solve_recompute(c, m);
        REQUIRE_FALSE(plan.ops.empty());
        CHECK(plan.peak_bytes <= m);
        CHECK(plan.cost == doctest::Approx(best).epsilon(1e-12));
      }
    }
  }
}

TEST_CASE("recompute plan: with room for everything nothing is recomputed") {
  std::mt19937_64 rng(11);
  const ChainCost c = random_chain(4, rng);
  const auto keep = ttgnn::keep_all_schedule(c);
  const auto plan = ttgnn::solve_recompute(c, keep.peak_bytes);
  CHECK(plan.cost == doctest::Approx(keep.base_cost));
  CHECK(plan.overhead() == doctest::Approx(0.0));
  CHECK(plan.stage_modes() == std::vector<std::string>{"all", "all", "all", "all"});
  CHECK(plan.forward_ops() == 4);
}

TEST_CASE("recompute plan: a hand-worked three-stage chain") {
  // equal stages: input 4, saved 4, gradient 4, logits 1, no scratch; forward 1, recompute
  // 1 + l, backward 2. Keep-all peaks in B(2), which frees the logits and makes D_2:
  // A1 + A2 + 3 S + D_2 = 4+4+12+4 = 24
  ChainCost c;
  for (int l = 0; l < 3; ++l) {
    ttgnn::StageCost s;
    s.input_bytes = s.grad_bytes = l == 0 ? 0 : 4;
    s.saved_bytes = 4;
    s.forward_cost = 1;
    s.recompute_cost = 1 + l;
    s.backward_cost = 2;
    c.stages.push_back(s);
  }
  c.output_bytes = 1;
  CHECK(ttgnn::keep_all_schedule(c).peak_bytes == 24);
  // keeping only stage 0's input: S_0 is rebuilt (cost 1, the cheapest) and 4 bytes are saved
  const auto p = ttgnn::solve_recompute(c, 20);
  CHECK(p.peak_bytes == 20);
  CHECK(p.cost == doctest::Approx(10.0));
  CHECK(ttgnn::to_string(p.ops) == "F_ck(0) F_all(1) F_all(2) B(2) B(1) R(0) B(0)");
  // with a scratch of 8 in B(1), keep-all peaks there: S_0 + A_1 + S_1 + D_2 + D_1 + 8 = 28
  // (A_2 and S_2 freed; B(2) peaks at 24); D_1 written over D_2 saves its 4 bytes
  c.stages[1].backward_scratch = 8;
  CHECK(ttgnn::keep_all_schedule(c).peak_bytes == 28);
  c.stages[1].grad_in_place = true;
  CHECK(ttgnn::keep_all_schedule(c).peak_bytes == 24);
}

TEST_CASE("recompute plan: invalid schedules are named") {
  std::mt19937_64 rng(3);
  const ChainCost c = random_chain(2, rng);
  CHECK_THROWS_AS(ttgnn::simulate_schedule(c, {{RecomputeOp::backward, 1}}), ttgnn::ConfigError);
  CHECK_THROWS_AS(ttgnn::simulate_schedule(c, {{RecomputeOp::forward_all, 0}}), ttgnn::ConfigError);
  CHECK_THROWS_AS(ttgnn::simulate_schedule(c, {{RecomputeOp::forward_all, 1}}), ttgnn::ConfigError);
}
