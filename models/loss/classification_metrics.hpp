#ifndef TTGNN_MODELS_CLASSIFICATION_METRICS_HPP
#define TTGNN_MODELS_CLASSIFICATION_METRICS_HPP
/// \file classification_metrics.hpp
/// \brief The evaluators of node classification, named as OGB names them: accuracy ("acc",
/// single-label), and for multi-label targets (1 / 0 / -1 unknown) ROC-AUC ("rocauc", OGB's
/// ogbn-proteins evaluator) and micro / macro F1 ("f1_micro", "f1_macro", the BlogCatalog
/// convention). Multi-label metrics are host code over host arrays (the trainers mirror the
/// logits): see docs/METRICS.md for the definitions and the conventions on ties, unknown
/// entries and tasks with one class.

#include "core/error.hpp"
#include "models/loss/node_metric.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

namespace ttgnn {

/// \brief ROC-AUC of one task by ranks (Mann-Whitney U): (sum of the positives' ranks -
/// P(P+1)/2) / (P N), tied scores sharing their average rank (= sklearn's roc_auc_score,
/// which counts a tied positive/negative pair as 1/2). \p items are (score, 0/1) pairs,
/// reordered. Host only. Returns -1 when the items hold one class only (undefined).
template <class Scalar> double roc_auc_one_task(std::vector<std::pair<Scalar, int>> &items) {
  std::sort(items.begin(), items.end(),
            [](auto const &a, auto const &b) { return a.first < b.first; });
  double rank_sum = 0;
  std::int64_t pos = 0;
  const std::int64_t n = static_cast<std::int64_t>(items.size());
  for (std::int64_t i = 0; i < n;) {
    std::int64_t j = i;
    std::int64_t tied_pos = 0;
    while (j < n && items[j].first == items[i].first)
      tied_pos += items[j++].second;
    // ranks i+1 .. j share their mean (i + 1 + j) / 2
    rank_sum += double(tied_pos) * 0.5 * double(i + 1 + j);
    pos += tied_pos;
    i = j;
  }
  const std::int64_t neg = n - pos;
  if (pos == 0 || neg == 0)
    return -1;
  return (rank_sum - 0.5 * double(pos) * double(pos + 1)) / (double(pos) * double(neg));
}

/// \brief ROC-AUC of a binary single-label task over the rows \p ids: the score of a row is
/// the logit of class 1 minus that of class 0 (softmax's probability of class 1 is monotone in
/// it), rows with label < 0 are left out. \p logits is row-major N x 2. Host only. Returns 0
/// when the rows hold one class only (undefined; the pipeline refuses such a split on load).
template <class Scalar>
double roc_auc_binary(Scalar const *logits, std::int32_t const *labels, std::int64_t const *ids,
                      std::int64_t num_ids) {
  std::vector<std::pair<Scalar, int>> items;
  items.reserve(static_cast<std::size_t>(num_ids));
  for (std::int64_t q = 0; q < num_ids; ++q) {
    const std::int64_t i = ids[q];
    if (labels[i] >= 0)
      items.emplace_back(logits[2 * i + 1] - logits[2 * i], labels[i] == 1 ? 1 : 0);
  }
  const double auc = roc_auc_one_task(items);
  return auc < 0 ? 0.0 : auc;
}

/// \brief OGB's ROC-AUC of multi-label predictions (ogb.nodeproppred.Evaluator for
/// ogbn-proteins): over the rows \p ids, for every task whose known targets include both a 1
/// and a 0, the ROC-AUC of the scores of its known entries; the mean over those tasks.
/// Host only. \p scores and \p targets are row-major N x T (targets 1 / 0 / -1 unknown).
/// \p tasks_used (optional) gets the number of tasks averaged; with none the result is 0
/// (OGB raises an error).
template <class Scalar>
double roc_auc_ogb(Scalar const *scores, std::int8_t const *targets, std::int64_t num_tasks,
                   std::int64_t const *ids, std::int64_t num_ids,
                   std::int64_t *tasks_used = nullptr) {
  std::vector<double> auc(static_cast<std::size_t>(num_tasks), -1.0);
  Kokkos::parallel_for("ttgnn::metrics::rocauc",
                       Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, num_tasks),
                       [&](std::int64_t t) {
                         std::vector<std::pair<Scalar, int>> items;
                         items.reserve(static_cast<std::size_t>(num_ids));
                         for (std::int64_t q = 0; q < num_ids; ++q) {
                           const std::int8_t y = targets[ids[q] * num_tasks + t];
                           if (y >= 0)
                             items.emplace_back(scores[ids[q] * num_tasks + t], int(y));
                         }
                         auc[t] = roc_auc_one_task(items);
                       });
  double sum = 0;
  std::int64_t used = 0;
  for (double a : auc)
    if (a >= 0) {
      sum += a;
      ++used;
    }
  if (tasks_used)
    *tasks_used = used;
  return used > 0 ? sum / double(used) : 0.0;
}

/// \brief Micro- and macro-F1 of multi-label predictions.
struct F1Scores {
  double micro = 0, macro = 0;
};

/// \brief F1 with the prediction "positive" when the score is > \p threshold (logits: 0, i.e.
/// probability > 1/2), over the known entries of rows \p ids. micro: 2 TP / (2 TP + FP + FN)
/// over all tasks' entries together; macro: the mean over the tasks with at least one known
/// entry of each task's 2 TP / (2 TP + FP + FN), 0 for a task with TP + FP + FN = 0 (sklearn's
/// f1_score with zero_division=0). Host only; layouts as roc_auc_ogb.
template <class Scalar>
F1Scores f1_scores(Scalar const *scores, std::int8_t const *targets, std::int64_t num_tasks,
                   std::int64_t const *ids, std::int64_t num_ids, Scalar threshold = Scalar(0)) {
  std::vector<std::int64_t> tp(num_tasks, 0), fp(num_tasks, 0), fn(num_tasks, 0),
      known(num_tasks, 0);
  for (std::int64_t q = 0; q < num_ids; ++q) {
    const std::int64_t row = ids[q] * num_tasks;
    for (std::int64_t t = 0; t < num_tasks; ++t) {
      const std::int8_t y = targets[row + t];
      if (y < 0)
        continue;
      const bool p = scores[row + t] > threshold;
      ++known[t];
      tp[t] += (p && y == 1) ? 1 : 0;
      fp[t] += (p && y == 0) ? 1 : 0;
      fn[t] += (!p && y == 1) ? 1 : 0;
    }
  }
  auto f1 = [](std::int64_t a, std::int64_t b, std::int64_t c) {
    const std::int64_t d = 2 * a + b + c;
    return d > 0 ? 2.0 * double(a) / double(d) : 0.0;
  };
  F1Scores out;
  std::int64_t sum_tp = 0, sum_fp = 0, sum_fn = 0, tasks = 0;
  double macro = 0;
  for (std::int64_t t = 0; t < num_tasks; ++t) {
    sum_tp += tp[t];
    sum_fp += fp[t];
    sum_fn += fn[t];
    if (known[t] > 0) {
      macro += f1(tp[t], fp[t], fn[t]);
      ++tasks;
    }
  }
  out.micro = f1(sum_tp, sum_fp, sum_fn);
  out.macro = tasks > 0 ? macro / double(tasks) : 0.0;
  return out;
}

/// \brief \p metric (a multi-label one) of host scores / targets over rows \p ids. Host only.
template <class Scalar>
double multilabel_metric(NodeMetric metric, Scalar const *scores, std::int8_t const *targets,
                         std::int64_t num_tasks, std::int64_t const *ids, std::int64_t num_ids) {
  if (metric == NodeMetric::rocauc)
    return roc_auc_ogb(scores, targets, num_tasks, ids, num_ids);
  const F1Scores f = f1_scores(scores, targets, num_tasks, ids, num_ids);
  if (metric == NodeMetric::f1_micro)
    return f.micro;
  if (metric == NodeMetric::f1_macro)
    return f.macro;
  throw ConfigError("multilabel_metric: accuracy is the metric of single-label targets");
}

} // namespace ttgnn

#endif
