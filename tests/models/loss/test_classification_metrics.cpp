// The multi-label metrics against hand-computed values: ROC-AUC as OGB's evaluator (ties,
// unknown entries, single-class tasks), micro- and macro-F1, and the metric names.
#include "core/error.hpp"
#include "models/loss/classification_metrics.hpp"
#include "models/loss/node_metric.hpp"
#include "test_harness.hpp"

#include <cstdint>
#include <utility>
#include <vector>

namespace {

TEST_CASE("ROC-AUC as OGB's evaluator: ties, unknown entries, single-class tasks") {
  // 4 rows x 5 tasks, row-major.
  //  task 0: scores .1 .4 .35 .8, y 0 0 1 1: of the 4 (pos, neg) pairs 3 are ordered -> 0.75
  //  task 1: scores .3 .3 .3 .7, y 1 0 0 0: the positive ties two negatives (1/2 each) and
  //          is below the third -> (1/2 + 1/2 + 0) / 3 = 1/3
  //  task 2: y all 1: one class, left out
  //  task 3: y 1 -1 0 -1, scores .2 .9 .6 .1: known pos .2 < known neg .6 -> 0 (the unknown
  //          rows would make it 1/2 if counted)
  //  task 4: y -1 1 -1 -1: one known entry, left out
  const std::vector<double> scores{.1,  .3, .5, .2, .0, //
                                   .4,  .3, .5, .9, .9, //
                                   .35, .3, .5, .6, .0, //
                                   .8,  .7, .5, .1, .0};
  const std::vector<std::int8_t> y{0, 1, 1, 1,  -1, //
                                   0, 0, 1, -1, 1,  //
                                   1, 0, 1, 0,  -1, //
                                   1, 0, 1, -1, -1};
  const std::vector<std::int64_t> all{0, 1, 2, 3};
  std::int64_t used = -1;
  const double auc = ttgnn::roc_auc_ogb(scores.data(), y.data(), 5, all.data(), 4, &used);
  CHECK(used == 3);
  CHECK(auc == doctest::Approx((0.75 + 1.0 / 3 + 0.0) / 3).epsilon(1e-15));
  // Rows {0, 3} only: task 0 has neg .1 < pos .8 -> 1; task 1 has one class (0, 0) in those
  // rows... y(0,1) = 1, y(3,1) = 0: pos .3 < neg .7 -> 0; task 3: one known (row 0) -> out.
  const std::vector<std::int64_t> rows{0, 3};
  CHECK(ttgnn::roc_auc_ogb(scores.data(), y.data(), 5, rows.data(), 2, &used) ==
        doctest::Approx(0.5).epsilon(1e-15));
  CHECK(used == 2);
  // All scores tied: every pair counts 1/2.
  std::vector<std::pair<double, int>> tied{{1, 1}, {1, 0}, {1, 0}, {1, 1}, {1, 1}};
  CHECK(ttgnn::roc_auc_one_task(tied) == 0.5);
  std::vector<std::pair<double, int>> one_class{{1, 1}, {2, 1}};
  CHECK(ttgnn::roc_auc_one_task(one_class) == -1.0);
  // No task with both classes: 0 and no task used (OGB raises an error).
  const std::vector<std::int64_t> one{1};
  CHECK(ttgnn::roc_auc_ogb(scores.data(), y.data(), 5, one.data(), 1, &used) == 0.0);
  CHECK(used == 0);
}

TEST_CASE("micro- and macro-F1 by hand (threshold: logit > 0)") {
  // 4 rows x 4 tasks. Predictions (logit > 0) and targets:
  //  task 0: pred 1 0 1 0, y 1 1 0 0: TP 1, FP 1, FN 1 -> F1 2/4 = 0.5
  //  task 1: pred 0 0 1 1, y 0 0 0 -1: TP 0, FP 1, FN 0 -> 0
  //  task 2: pred 1 1 0 1, y 1 -1 0 1: TP 2, FP 0, FN 0 -> 1
  //  task 3: pred 0 0 0 0 (a logit of exactly 0 is negative), y 0 0 0 0: TP+FP+FN = 0 -> 0
  //  micro: TP 3, FP 2, FN 1 -> 6 / 9; macro: (0.5 + 0 + 1 + 0) / 4
  const std::vector<float> logits{1,  -1, 2,  0,  //
                                  -1, -1, 1,  -2, //
                                  1,  1,  -1, -3, //
                                  -1, 1,  1,  -1};
  const std::vector<std::int8_t> y{1, 0,  1,  0, //
                                   1, 0,  -1, 0, //
                                   0, 0,  0,  0, //
                                   0, -1, 1,  0};
  const std::vector<std::int64_t> all{0, 1, 2, 3};
  const ttgnn::F1Scores f = ttgnn::f1_scores(logits.data(), y.data(), 4, all.data(), 4);
  CHECK(f.micro == doctest::Approx(6.0 / 9).epsilon(1e-15));
  CHECK(f.macro == doctest::Approx(1.5 / 4).epsilon(1e-15));
  // Metric names and dispatch.
  CHECK(ttgnn::parse_node_metric("rocauc") == ttgnn::NodeMetric::rocauc);
  CHECK(ttgnn::to_string(ttgnn::NodeMetric::f1_micro) == "f1_micro");
  CHECK(ttgnn::resolve_metric("", true) == ttgnn::NodeMetric::rocauc);
  CHECK(ttgnn::resolve_metric("", false) == ttgnn::NodeMetric::accuracy);
  CHECK_THROWS_AS(ttgnn::resolve_metric("acc", true), ttgnn::ConfigError);
  CHECK_THROWS_AS(ttgnn::resolve_metric("rocauc", false), ttgnn::ConfigError);
  // single-label: ROC-AUC of a binary task only; F1 never
  CHECK(ttgnn::resolve_metric("rocauc", false, 2) == ttgnn::NodeMetric::rocauc);
  CHECK_THROWS_WITH_AS(ttgnn::resolve_metric("rocauc", false, 3),
                       "--metric rocauc: the dataset is single-label with 3 classes (ROC-AUC "
                       "needs 2 classes or multi-label targets; use acc)",
                       ttgnn::ConfigError);
  CHECK_THROWS_AS(ttgnn::resolve_metric("f1_micro", false, 2), ttgnn::ConfigError);
  CHECK(ttgnn::resolve_metric("", false, 2) == ttgnn::NodeMetric::accuracy);
  // the dataset's named evaluator when it is one of ours and fits, else the default
  CHECK(ttgnn::dataset_metric("rocauc", false, 2) == ttgnn::NodeMetric::rocauc);
  CHECK(ttgnn::dataset_metric("rocauc", false, 3) == ttgnn::NodeMetric::accuracy);
  CHECK(ttgnn::dataset_metric("acc", false, 7) == ttgnn::NodeMetric::accuracy);
  CHECK(ttgnn::dataset_metric("acc", true) == ttgnn::NodeMetric::rocauc);
  CHECK(ttgnn::dataset_metric("f1_micro", true) == ttgnn::NodeMetric::f1_micro);
  CHECK(ttgnn::dataset_metric("f1_micro", false, 2) == ttgnn::NodeMetric::accuracy);
  CHECK(ttgnn::dataset_metric("mrr", false, 2) == ttgnn::NodeMetric::accuracy);
  CHECK(ttgnn::dataset_metric("", true) == ttgnn::NodeMetric::rocauc);
  CHECK_THROWS_AS(ttgnn::parse_node_metric("auc"), ttgnn::ConfigError);
  CHECK(ttgnn::multilabel_metric(ttgnn::NodeMetric::f1_macro, logits.data(), y.data(), 4,
                                 all.data(), 4) == doctest::Approx(1.5 / 4).epsilon(1e-15));
}

TEST_CASE("roc_auc_binary: the logit difference ranked, unlabelled rows left out") {
  // rows: (logit0, logit1), label. Scores l1 - l0: 1, -1, 0.5, 0.5, 3 (label -1: left out).
  const std::vector<double> logits{0, 1, 1, 0, 0, 0.5, 0.5, 1, 0, 3};
  const std::vector<std::int32_t> labels{1, 0, 0, 1, -1};
  const std::vector<std::int64_t> all{0, 1, 2, 3, 4};
  // positives 1, 0.5; negatives -1, 0.5: pairs (1,-1) 1, (1,0.5) 1, (0.5,-1) 1, (0.5,0.5) 1/2
  CHECK(ttgnn::roc_auc_binary(logits.data(), labels.data(), all.data(), 5) ==
        doctest::Approx(3.5 / 4).epsilon(1e-15));
  // one class only: undefined, reported as 0
  const std::vector<std::int64_t> negatives{1, 2};
  CHECK(ttgnn::roc_auc_binary(logits.data(), labels.data(), negatives.data(), 2) == 0.0);
}

} // namespace
