// GnnModel under a memory budget: every schedule of the re-materialization family gives bitwise
// the gradients, input gradient, logits, BatchNorm running statistics and dropout counters of
// the default path, for GCN and GraphSAGE, with dropout, BatchNorm and residuals, on the whole
// graph and on sampled-block shapes, with the input dropout in place or not; a budget below the
// least schedule is refused with that least size; what a step allocates is the peak its plan
// predicts.
#include "core/runtime/allocation_tracker.hpp"
#include "graph/csr_graph.hpp"
#include "models/gnn_model.hpp"
#include "models/layers/gcn_norm.hpp"
#include "models/memory/recompute_plan.hpp"
#include "layer_test_util.hpp"
#include "test_harness.hpp"

#include <optional>
#include <random>
#include <string>
#include <vector>

namespace {

template <class Space> using Op = ttgnn::GraphOperator<double, Space>;
template <class Space> using Mat = ttgnn::Matrix<double, Space>;

template <class Space>
Mat<Space> random_matrix(std::int64_t r, std::int64_t c, std::uint64_t seed) {
  Mat<Space> m("ttgnn::test::m", r, c);
  auto h = Kokkos::create_mirror_view(m);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  for (std::size_t k = 0; k < h.span(); ++k)
    h.data()[k] = u(rng);
  Kokkos::deep_copy(m, h);
  return m;
}

template <class View> void append(std::vector<double> &out, View const &v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  for (std::size_t i = 0; i < h.extent(0); ++i)
    if constexpr (View::rank == 1)
      out.push_back(h(i));
    else
      for (std::size_t j = 0; j < h.extent(1); ++j)
        out.push_back(h(i, j));
}

struct Case {
  ttgnn::GnnKind kind;
  std::int64_t in;
  bool bn, residual, in_place, blocks;
};

/// Two training steps; everything a step leaves behind, flattened.
template <class Space>
std::vector<double> two_steps(Case const &c, std::vector<Op<Space>> const &ops,
                              std::vector<ttgnn::RecomputeOp> const &schedule,
                              std::int64_t budget = 0) {
  Space space;
  ttgnn::GnnConfig cfg;
  cfg.kind = c.kind;
  cfg.in_features = c.in;
  cfg.hidden = 8;
  cfg.out_features = 3;
  cfg.num_layers = 3;
  cfg.dropout = 0.4;
  cfg.input_dropout = 0.3;
  cfg.batch_norm = c.bn;
  cfg.residual = c.residual;
  cfg.seed = 5;
  ttgnn::GnnModel<double, Space> model(cfg);
  model.set_recompute_schedule(schedule);
  model.set_memory_budget(budget);
  model.set_overwrite_input(c.in_place);
  model.set_input_gradient(true);
  std::vector<double> out;
  for (int step = 0; step < 2; ++step) {
    Mat<Space> x = random_matrix<Space>(ops[0].num_cols, c.in, 10 + step);
    auto const &logits = model.forward(space, ops, x);
    append(out, logits);
    Mat<Space> g = random_matrix<Space>(logits.extent(0), 3, 20 + step);
    model.zero_grad(space);
    Mat<Space> gx = c.in_place ? x : Mat<Space>("gx", x.extent(0), x.extent(1));
    model.backward(space, g, gx);
    append(out, gx);
    for (auto const &v : model.gradients())
      append(out, v);
    for (auto const &v : model.buffers())
      append(out, v);
    for (auto s : model.rng_state())
      out.push_back(double(s));
  }
  space.fence();
  return out;
}

template <class Space> void check_every_schedule() {
  Space space;
  std::vector<std::pair<int, int>> arcs;
  std::mt19937_64 rng(3);
  for (int k = 0; k < 60; ++k) {
    const int a = int(rng() % 20), b = int(rng() % 20);
    if (a != b) {
      arcs.emplace_back(a, b);
      arcs.emplace_back(b, a);
    }
  }
  const auto g = ttgnn::test::make_graph(20, arcs);
  const auto schedules = ttgnn::all_recompute_schedules(3);
  REQUIRE(schedules.size() > 5);
  for (auto kind : {ttgnn::GnnKind::gcn, ttgnn::GnnKind::sage})
    for (std::int64_t in : {3, 16})
      for (int flags = 0; flags < 16; ++flags) {
        const Case c{kind, in, bool(flags & 1), bool(flags & 2), bool(flags & 4), bool(flags & 8)};
        const Op<Space> a = kind == ttgnn::GnnKind::gcn ? ttgnn::gcn_norm<double>(space, g)
                                                        : ttgnn::mean_aggregation<double>(space, g);
        std::vector<Op<Space>> ops{a};
        if (c.blocks)
          ops = {ttgnn::test::top_block(a, 20, 20), ttgnn::test::top_block(a, 12, 20),
                 ttgnn::test::top_block(a, 5, 12)};
        const auto reference = two_steps<Space>(c, ops, {});
        for (auto const &s : schedules) {
          CAPTURE(ttgnn::to_string(s));
          CAPTURE(flags);
          CAPTURE(in);
          const auto got = two_steps<Space>(c, ops, s);
          REQUIRE(got.size() == reference.size());
          CHECK(got == reference); // bitwise
        }
      }
}

template <class Space> void check_budget() {
  Space space;
  std::vector<std::pair<int, int>> arcs;
  for (int i = 0; i < 30; ++i) {
    arcs.emplace_back(i, (i + 1) % 30);
    arcs.emplace_back((i + 1) % 30, i);
  }
  const auto g = ttgnn::test::make_graph(30, arcs);
  const std::vector<Op<Space>> ops{ttgnn::mean_aggregation<double>(space, g)};
  const Case c{ttgnn::GnnKind::sage, 3, true, false, false, false};
  ttgnn::GnnConfig cfg;
  cfg.kind = c.kind;
  cfg.in_features = 3;
  cfg.hidden = 8;
  cfg.out_features = 3;
  cfg.num_layers = 3;
  cfg.batch_norm = true;
  ttgnn::GnnModel<double, Space> model(cfg);
  model.set_input_gradient(true);
  const auto chain = ttgnn::gnn_chain_cost(model.step_shape(ops, true));
  const std::int64_t least = ttgnn::min_recompute_bytes(chain);
  const std::int64_t all = ttgnn::keep_all_schedule(chain).peak_bytes;
  REQUIRE(least < all);
  const auto reference = two_steps<Space>(c, ops, {});
  CHECK(two_steps<Space>(c, ops, {}, least) == reference);
  CHECK(two_steps<Space>(c, ops, {}, (least + all) / 2) == reference);
  model.set_memory_budget(least - 1);
  Mat<Space> x = random_matrix<Space>(30, 3, 1);
  CHECK_THROWS_WITH_AS(model.forward(space, ops, x),
                       doctest::Contains("the least any schedule needs is"), ttgnn::ConfigError);
  model.set_memory_budget(least);
  model.forward(space, ops, x);
  CHECK(model.last_plan().peak_bytes <= least);
  CHECK(model.last_plan().overhead() > 0);
}

/// What a budgeted step really allocates (Kokkos allocation callbacks) against the plan's
/// predicted peak, for the least budget and the keep-all one: the plan counts every activation,
/// saved buffer, gradient and scratch matrix; what it leaves out is O(width) (bias column
/// sums, BatchNorm's per-feature statistics), far below one N x H matrix.
template <class Space> void check_predicted_peak() {
  Space space;
  const int n = 3000;
  std::vector<std::pair<int, int>> arcs;
  std::mt19937_64 rng(9);
  for (int i = 0; i < 4 * n; ++i) {
    const int a = int(rng() % n), b = int(rng() % n);
    arcs.emplace_back(a, b);
    arcs.emplace_back(b, a);
  }
  const auto g = ttgnn::test::make_graph(n, arcs);
  for (auto kind : {ttgnn::GnnKind::gcn, ttgnn::GnnKind::sage})
    for (bool bn : {false, true}) {
      CAPTURE(int(kind));
      CAPTURE(bn);
      const std::vector<Op<Space>> ops{kind == ttgnn::GnnKind::gcn
                                           ? ttgnn::gcn_norm<double>(space, g)
                                           : ttgnn::mean_aggregation<double>(space, g)};
      ttgnn::GnnConfig cfg;
      cfg.kind = kind;
      cfg.in_features = 16;
      cfg.hidden = 32;
      cfg.out_features = 5;
      cfg.num_layers = 4;
      cfg.dropout = 0.5;
      cfg.batch_norm = bn;
      const std::int64_t matrix = std::int64_t(n) * cfg.hidden * std::int64_t(sizeof(double));
      const auto chain =
          ttgnn::gnn_chain_cost(ttgnn::GnnModel<double, Space>(cfg).step_shape(ops, true));
      for (std::int64_t budget :
           {ttgnn::min_recompute_bytes(chain), ttgnn::keep_all_schedule(chain).peak_bytes}) {
        CAPTURE(budget);
        ttgnn::GnnModel<double, Space> model(cfg);
        model.set_input_gradient(true);
        model.set_memory_budget(budget);
        Mat<Space> x = random_matrix<Space>(n, 16, 1), gx("gx", n, 16), gl("gl", n, 5);
        std::optional<ttgnn::AllocationTracker> tracker;
        for (int step = 0; step < 3; ++step) {
          if (step == 1) { // after a first step, which allocates what lives on (O(width))
            model.release_cached_buffers();
            space.fence();
            tracker.emplace(); // the third step takes the second's buffers from the cache
          }
          model.zero_grad(space);
          model.forward(space, ops, x);
          model.backward(space, gl, gx);
          space.fence();
          CHECK(model.last_plan().peak_bytes <= budget);
        }
        const std::int64_t predicted = model.last_plan().peak_bytes;
        CHECK(tracker->peak_bytes() >= predicted);
        CHECK(tracker->peak_bytes() <= predicted + matrix / 16);
      }
    }
}

} // namespace

TTGNN_TEST_ALL_SPACES("memory budget: a step allocates the peak its plan predicts") {
  check_predicted_peak<ExecutionSpace>();
}
TTGNN_TEST_ALL_SPACES("memory budget: every schedule gives the default path's step bitwise") {
  check_every_schedule<ExecutionSpace>();
}
TTGNN_TEST_ALL_SPACES("memory budget: the least schedule runs, below it is refused") {
  check_budget<ExecutionSpace>();
}
