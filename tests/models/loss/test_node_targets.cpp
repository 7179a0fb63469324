// NodeTargets: node_scores of device logits against the host metrics, the NodeLoss dispatch
// and gather_targets.
#include "models/loss/node_targets.hpp"
#include "models/loss/sigmoid_binary_cross_entropy.hpp"
#include "loss_test_util.hpp"
#include "test_harness.hpp"

namespace {

using namespace ttgnn::test;

/// node_scores on the device gives the host metrics of the same logits, per node set.
template <class Space> void check_node_scores() {
  const Space space;
  using M = typename Space::memory_space;
  auto logits = matrix<Space>({{1, -1, 2}, {-1, -1, 1}, {1, 1, -1}, {-1, 1, 1}});
  auto y = targets<Space>({{1, 0, 1}, {1, 0, -1}, {0, 0, 0}, {0, -1, 1}});
  // Same tasks as the F1 case (its tasks 0-2): micro TP 3, FP 2, FN 1 -> 2/3; macro 1/2.
  ttgnn::NodeTargets<Space> t(y, ttgnn::NodeMetric::f1_micro);
  Kokkos::View<const std::int64_t *, M> all = ids<Space>({0, 1, 2, 3}), none = ids<Space>({});
  auto s = ttgnn::node_scores(space, logits, t, {all, none});
  CHECK(s[0] == doctest::Approx(2.0 / 3).epsilon(1e-15));
  CHECK(s[1] == 0.0);
  t.metric = ttgnn::NodeMetric::f1_macro;
  CHECK(ttgnn::node_scores(space, logits, t, {all})[0] == doctest::Approx(0.5).epsilon(1e-15));
  // ROC-AUC: task 0 scores 1 -1 1 -1, y 1 1 0 0: pairs (r0,r2) tie, (r0,r3) ordered,
  // (r1,r2) reversed, (r1,r3) tie -> 2/4; task 1: y 0 0 0 (-1): one class; task 2: scores
  // 2 . -1 1, y 1 . 0 1 -> 1. Mean over tasks 0 and 2: 0.75.
  t.metric = ttgnn::NodeMetric::rocauc;
  CHECK(ttgnn::node_scores(space, logits, t, {all})[0] == doctest::Approx(0.75).epsilon(1e-15));
  // The loss dispatch: NodeLoss on multi-label targets is the BCE.
  ttgnn::NodeLoss<double, Space> loss;
  ttgnn::SigmoidBinaryCrossEntropy<double, Space> bce;
  CHECK(loss.forward(space, logits, t, all) == bce.forward(space, logits, y, all));
  // gather_targets: rows ids(0..m-1) become rows 0..m-1.
  auto g =
      ttgnn::gather_targets(space, t, Kokkos::View<const std::int64_t *, M>(ids<Space>({3, 0})), 2);
  auto hg = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.multilabels);
  CHECK(hg(0, 0) == 0);
  CHECK(hg(0, 1) == -1);
  CHECK(hg(1, 0) == 1);
  CHECK(hg(1, 2) == 1);
}

TTGNN_TEST_ALL_SPACES("node_scores: device logits, host multi-label metrics") {
  check_node_scores<ExecutionSpace>();
}

TTGNN_TEST_ALL_SPACES("node_scores: ROC-AUC of a binary single-label task") {
  const ExecutionSpace space;
  using M = typename ExecutionSpace::memory_space;
  // the rows of the roc_auc_binary case: scores l1 - l0 = 1, -1, 0.5, 0.5, 3
  auto logits = matrix<ExecutionSpace>({{0, 1}, {1, 0}, {0, 0.5}, {0.5, 1}, {0, 3}});
  Kokkos::View<std::int32_t *, M> labels("labels", 5);
  auto h = Kokkos::create_mirror_view(labels);
  const std::int32_t values[] = {1, 0, 0, 1, -1};
  for (int i = 0; i < 5; ++i)
    h(i) = values[i];
  Kokkos::deep_copy(labels, h);
  ttgnn::NodeTargets<ExecutionSpace> t(labels);
  Kokkos::View<const std::int64_t *, M> all = ids<ExecutionSpace>({0, 1, 2, 3, 4}),
                                        pair = ids<ExecutionSpace>({0, 1});
  CHECK(ttgnn::node_scores(space, logits, t, {all})[0] == doctest::Approx(3.0 / 5)); // accuracy
  t.metric = ttgnn::NodeMetric::rocauc;
  auto s = ttgnn::node_scores(space, logits, t, {all, pair});
  CHECK(s[0] == doctest::Approx(3.5 / 4).epsilon(1e-15));
  CHECK(s[1] == 1.0);
}

} // namespace
