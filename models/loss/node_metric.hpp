#ifndef TTGNN_MODELS_LOSS_NODE_METRIC_HPP
#define TTGNN_MODELS_LOSS_NODE_METRIC_HPP
/// \file node_metric.hpp
/// \brief The evaluators of node classification by name, as OGB names them ("acc", "rocauc",
/// "f1_micro", "f1_macro"), and which one a dataset uses (classification_metrics.hpp computes
/// them).

#include "core/error.hpp"

#include <optional>
#include <string>

namespace ttgnn {

/// \brief Which number selects the model and is reported as the dataset's metric.
enum class NodeMetric { accuracy, rocauc, f1_micro, f1_macro };

inline std::string to_string(NodeMetric m) {
  switch (m) {
  case NodeMetric::accuracy:
    return "acc";
  case NodeMetric::rocauc:
    return "rocauc";
  case NodeMetric::f1_micro:
    return "f1_micro";
  default:
    return "f1_macro";
  }
}

/// \brief "acc", "rocauc", "f1_micro" or "f1_macro" (also "accuracy", "roc-auc", "f1-micro",
/// "f1-macro"); ConfigError otherwise.
inline NodeMetric parse_node_metric(std::string const &name) {
  if (name == "acc" || name == "accuracy")
    return NodeMetric::accuracy;
  if (name == "rocauc" || name == "roc-auc")
    return NodeMetric::rocauc;
  if (name == "f1_micro" || name == "f1-micro")
    return NodeMetric::f1_micro;
  if (name == "f1_macro" || name == "f1-macro")
    return NodeMetric::f1_macro;
  throw ConfigError("unknown metric '" + name + "': expected acc, rocauc, f1_micro or f1_macro");
}

/// Human name for printing ("accuracy", "ROC-AUC", "micro-F1", "macro-F1").
inline std::string display_name(NodeMetric m) {
  switch (m) {
  case NodeMetric::accuracy:
    return "accuracy";
  case NodeMetric::rocauc:
    return "ROC-AUC";
  case NodeMetric::f1_micro:
    return "micro-F1";
  default:
    return "macro-F1";
  }
}

/// True for the metrics of multi-label targets.
inline bool is_multilabel_metric(NodeMetric m) {
  return m != NodeMetric::accuracy;
}

/// \brief \p m when it fits the targets, else ConfigError: accuracy needs single-label
/// targets, F1 multi-label ones, ROC-AUC multi-label ones or single-label ones of
/// \p num_classes = 2 (a binary task, scored by the logit of class 1 minus that of class 0, as
/// Platonov et al. score Tolokers).
inline NodeMetric resolve_metric(NodeMetric m, bool multilabel, int num_classes = 0) {
  if (!multilabel && m == NodeMetric::rocauc && num_classes != 2)
    throw ConfigError("--metric " + to_string(m) + ": the dataset is single-label with " +
                      std::to_string(num_classes) +
                      " classes (ROC-AUC needs 2 classes or multi-label targets; use acc)");
  if (m != NodeMetric::rocauc && is_multilabel_metric(m) != multilabel)
    throw ConfigError("--metric " + to_string(m) + ": the dataset is " +
                      (multilabel ? "multi-label (use rocauc, f1_micro or f1_macro)"
                                  : "single-label (use acc, or rocauc for 2 classes)"));
  return m;
}

/// \brief The metric named \p requested ("" : accuracy for single-label targets, ROC-AUC for
/// multi-label ones, as OGB scores ogbn-proteins), checked as above.
inline NodeMetric resolve_metric(std::string const &requested, bool multilabel,
                                 int num_classes = 0) {
  if (requested.empty())
    return multilabel ? NodeMetric::rocauc : NodeMetric::accuracy;
  return resolve_metric(parse_node_metric(requested), multilabel, num_classes);
}

/// \brief The metric of a run that asks for none: the one the dataset names (\p named, its
/// meta.csv's "eval metric", as OGB's master.csv names each dataset's evaluator) when it is one
/// of ours and fits the targets (resolve_metric would accept it), else resolve_metric's default.
inline NodeMetric dataset_metric(std::string const &named, bool multilabel, int num_classes = 0) {
  const bool known = named == "acc" || named == "accuracy" || named == "rocauc" ||
                     named == "roc-auc" || named == "f1_micro" || named == "f1-micro" ||
                     named == "f1_macro" || named == "f1-macro";
  if (known) {
    const NodeMetric m = parse_node_metric(named);
    const bool fits = m == NodeMetric::rocauc ? (multilabel || num_classes == 2)
                                              : is_multilabel_metric(m) == multilabel;
    if (fits)
      return m;
  }
  return resolve_metric("", multilabel, num_classes);
}

/// \brief The metric of a run on \p data (a Dataset): \p requested checked against its targets
/// (resolve_metric), or when empty the one the dataset names (dataset_metric).
template <class Data>
NodeMetric choose_metric(std::optional<NodeMetric> const &requested, Data const &data) {
  return requested ? resolve_metric(*requested, data.is_multilabel(), data.num_classes)
                   : dataset_metric(data.eval_metric, data.is_multilabel(), data.num_classes);
}

} // namespace ttgnn

#endif
