#ifndef TTGNN_MODELS_NODE_TARGETS_HPP
#define TTGNN_MODELS_NODE_TARGETS_HPP
/// \file node_targets.hpp
/// \brief What a node-classification trainer fits and how it scores: single-label classes
/// (softmax cross-entropy, accuracy) or multi-label binary targets (sigmoid + binary
/// cross-entropy over known entries; ROC-AUC or micro/macro-F1). NodeTargets holds the
/// targets on the device and the metric; NodeLoss dispatches the loss; node_scores evaluates
/// the metric on several node sets from one set of logits.

#include "core/linalg/gather_rows.hpp"
#include "core/runtime/byte_ledger.hpp"
#include "core/runtime/grow_only.hpp"
#include "models/loss/classification_metrics.hpp"
#include "models/loss/log_softmax_cross_entropy.hpp"
#include "models/loss/sigmoid_binary_cross_entropy.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace ttgnn {

/// \brief Targets of every node on \p ExecutionSpace's memory, and the dataset's metric.
template <class ExecutionSpace> struct NodeTargets {
  using memory_space = typename ExecutionSpace::memory_space;
  using labels_type = Kokkos::View<const std::int32_t *, memory_space>;
  using multilabels_type = Kokkos::View<const std::int8_t **, Kokkos::LayoutRight, memory_space>;

  labels_type labels;           ///< single-label: class of each node (-1: none)
  multilabels_type multilabels; ///< multi-label: N x T of 1 / 0 / -1 (extent 0 otherwise)
  NodeMetric metric = NodeMetric::accuracy;

  NodeTargets() = default;
  /// Single-label targets (a rank-1 View of classes), scored by accuracy. Implicit, so a
  /// labels View can be passed where targets are expected.
  template <class View, std::enable_if_t<Kokkos::is_view<View>::value && View::rank == 1, int> = 0>
  NodeTargets(View const &l) : labels(l) {} // NOLINT(google-explicit-constructor)
  /// Multi-label targets (a rank-2 View, N x T) scored by \p m (ROC-AUC by default, OGB's
  /// ogbn-proteins metric).
  template <class View, std::enable_if_t<Kokkos::is_view<View>::value && View::rank == 2, int> = 0>
  NodeTargets(View const &y, NodeMetric m = NodeMetric::rocauc) : multilabels(y), metric(m) {
    if (!is_multilabel_metric(m))
      throw ConfigError("multi-label targets are scored by rocauc, f1_micro or f1_macro, not " +
                        to_string(m));
  }

  bool is_multilabel() const { return multilabels.extent(0) > 0; }
};

/// \brief The targets of \p data (a Dataset) in the memory of \p ExecutionSpace: its
/// multilabels scored by \p metric when it has them, else its class labels (accuracy, or
/// ROC-AUC of a binary task).
template <class ExecutionSpace, class Data>
NodeTargets<ExecutionSpace> device_targets(Data const &data, NodeMetric metric) {
  using memory_space = typename ExecutionSpace::memory_space;
  if (data.is_multilabel())
    return NodeTargets<ExecutionSpace>(
        Kokkos::create_mirror_view_and_copy(memory_space(), data.multilabels,
                                            "ttgnn::targets::multilabels"),
        metric);
  NodeTargets<ExecutionSpace> out(
      Kokkos::create_mirror_view_and_copy(memory_space(), data.labels, "ttgnn::targets::labels"));
  out.metric = metric;
  return out;
}

/// Grow-only buffers of gather_targets, for one batch of targets after another.
template <class ExecutionSpace> struct TargetsWorkspace {
  using memory_space = typename ExecutionSpace::memory_space;
  Kokkos::View<std::int32_t *, memory_space> labels;
  GrowingMatrix<Kokkos::View<std::int8_t **, Kokkos::LayoutRight, memory_space>> multilabels;
};

/// \brief The targets of rows ids(0 .. m-1), as rows 0 .. m-1 (a mini-batch's seeds); in the
/// buffers of \p workspace when given (valid until its next use), else in new ones.
template <class ExecutionSpace>
NodeTargets<ExecutionSpace>
gather_targets(ExecutionSpace const &space, NodeTargets<ExecutionSpace> const &all,
               Kokkos::View<const std::int64_t *, typename ExecutionSpace::memory_space> const &ids,
               std::int64_t m, TargetsWorkspace<ExecutionSpace> *workspace = nullptr) {
  using memory_space = typename ExecutionSpace::memory_space;
  TargetsWorkspace<ExecutionSpace> own;
  TargetsWorkspace<ExecutionSpace> &ws = workspace ? *workspace : own;
  NodeTargets<ExecutionSpace> out = all;
  const auto first = Kokkos::subview(ids, std::make_pair(std::int64_t(0), m));
  if (all.is_multilabel()) {
    const auto y = ws.multilabels.rows("ttgnn::targets::batch_multilabels", m,
                                       static_cast<std::int64_t>(all.multilabels.extent(1)));
    gather_rows(space, all.multilabels, first, y);
    out.multilabels = y;
  } else {
    const Kokkos::View<std::int32_t *, memory_space> y =
        grow_entries(ws.labels, "ttgnn::targets::batch_labels", m);
    auto src = all.labels;
    Kokkos::parallel_for(
        "ttgnn::targets::gather_labels", Kokkos::RangePolicy<ExecutionSpace>(space, 0, m),
        KOKKOS_LAMBDA(std::int64_t i) { y(i) = src(first(i)); });
    out.labels = y;
  }
  return out;
}

/// \brief The loss of NodeTargets: softmax cross-entropy (single-label) or sigmoid binary
/// cross-entropy over known entries (multi-label).
template <class Scalar, class ExecutionSpace> class NodeLoss {
public:
  using matrix_type = Matrix<Scalar, ExecutionSpace>;
  using subset_type = Kokkos::View<const std::int64_t *, typename ExecutionSpace::memory_space>;

  /// \brief Mean loss over \p subset (see the two losses); keeps what backward needs.
  double forward(ExecutionSpace const &space, matrix_type const &logits,
                 NodeTargets<ExecutionSpace> const &targets, subset_type const &subset) {
    multilabel_ = targets.is_multilabel();
    return multilabel_ ? bce_.forward(space, logits, targets.multilabels, subset)
                       : ce_.forward(space, logits, targets.labels, subset);
  }
  /// \brief grad_logits = scale * dL/dlogits of the last forward.
  void backward(ExecutionSpace const &space, matrix_type const &grad_logits,
                Scalar scale = Scalar(1)) const {
    if (multilabel_)
      bce_.backward(space, grad_logits, scale);
    else
      ce_.backward(space, grad_logits, scale);
  }
  /// \brief Adds the buffers the loss keeps between calls to \p ledger (memory reports).
  void add_workspace(ByteLedger &ledger) const { ce_.add_workspace(ledger); }

private:
  bool multilabel_ = false;
  LogSoftmaxCrossEntropy<Scalar, ExecutionSpace> ce_;
  SigmoidBinaryCrossEntropy<Scalar, ExecutionSpace> bce_;
};

/// \brief Grow-only buffers of node_scores, for one evaluation after another: a set's rows of
/// the logits and of the targets (multi-label rows or class labels), and their host copies
/// (on a device only: a host space scores its own rows).
template <class Scalar, class ExecutionSpace> struct NodeScoresWorkspace {
  using memory_space = typename ExecutionSpace::memory_space;
  using targets_type = Kokkos::View<std::int8_t **, Kokkos::LayoutRight, memory_space>;
  using host_matrix = Kokkos::View<Scalar **, Kokkos::LayoutRight, Kokkos::HostSpace>;
  using host_targets_type = Kokkos::View<std::int8_t **, Kokkos::LayoutRight, Kokkos::HostSpace>;
  GrowingMatrix<Matrix<Scalar, ExecutionSpace>> logits;
  GrowingMatrix<targets_type> targets;
  Kokkos::View<std::int32_t *, memory_space> labels;
  GrowingMatrix<host_matrix> host_logits;
  GrowingMatrix<host_targets_type> host_targets;
  Kokkos::View<std::int32_t *, Kokkos::HostSpace> host_labels;

  /// Room for \p n rows of \p t logits and of \p tasks multi-label targets (-1: \p n class
  /// labels instead), host copies included where the host cannot read the space's memory.
  void reserve(std::int64_t n, std::int64_t t, std::int64_t tasks) {
    constexpr bool host_reads =
        Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible;
    logits.rows("ttgnn::node_scores::logits", n, t);
    if (!host_reads)
      host_logits.rows("ttgnn::node_scores::host_logits", n, t);
    if (tasks >= 0) {
      targets.rows("ttgnn::node_scores::targets", n, tasks);
      if (!host_reads)
        host_targets.rows("ttgnn::node_scores::host_targets", n, tasks);
    } else {
      reserve_entries(labels, n, "ttgnn::node_scores::labels");
      if (!host_reads)
        reserve_entries(host_labels, n, "ttgnn::node_scores::host_labels");
    }
  }
  /// Adds every buffer (its capacity) to \p ledger (memory reports).
  void add_workspace(ByteLedger &ledger) const {
    ledger.add(logits.storage()).add(targets.storage()).add(labels);
    ledger.add(host_logits.storage()).add(host_targets.storage()).add(host_labels);
  }
};

namespace detail {

/// \p v (device) readable on the host: \p v itself when the host can read its memory, else
/// copied into the leading entries / rows of \p host (grow-only).
template <class View, class HostStorage>
auto readable_on_host(View const &v, HostStorage &host, std::string const &label) {
  using host_view = Kokkos::View<typename View::non_const_data_type, typename View::array_layout,
                                 Kokkos::HostSpace>;
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                           typename View::memory_space>::accessible) {
    (void)host;
    (void)label;
    return host_view(v);
  } else {
    host_view h;
    if constexpr (View::rank == 1)
      h = grow_entries(host, label, static_cast<std::int64_t>(v.extent(0)));
    else
      h = host.rows(label, static_cast<std::int64_t>(v.extent(0)),
                    static_cast<std::int64_t>(v.extent(1)));
    Kokkos::deep_copy(h, v);
    return h;
  }
}

} // namespace detail

/// \brief The metric of \p targets on each node set of \p sets (0 for an empty set): accuracy
/// on the device (arg-max, first on ties), or ROC-AUC of a binary task or a multi-label metric
/// on the host: each set's rows of the logits and targets are gathered on the space and only
/// those are copied (on a device, the set's rows instead of all N x T entries). The gathered
/// rows live in the buffers of \p workspace when given (sized for the largest set), else in new
/// ones.
template <class Scalar, class ExecutionSpace>
std::vector<double> node_scores(
    ExecutionSpace const &space, Matrix<Scalar, ExecutionSpace> const &logits,
    NodeTargets<ExecutionSpace> const &targets,
    std::vector<Kokkos::View<const std::int64_t *, typename ExecutionSpace::memory_space>> const
        &sets,
    NodeScoresWorkspace<Scalar, ExecutionSpace> *workspace = nullptr) {
  using workspace_type = NodeScoresWorkspace<Scalar, ExecutionSpace>;
  std::vector<double> out(sets.size(), 0.0);
  const bool multilabel = targets.is_multilabel();
  if (!multilabel && targets.metric == NodeMetric::accuracy) {
    for (std::size_t k = 0; k < sets.size(); ++k)
      if (sets[k].extent(0) > 0)
        out[k] = double(count_correct(space, logits, targets.labels, sets[k])) /
                 double(sets[k].extent(0));
    return out;
  }
  if (!multilabel && (logits.extent(1) != 2 || targets.metric != NodeMetric::rocauc))
    throw ConfigError("node_scores: single-label targets are scored by acc, or by rocauc with "
                      "2 classes");
  static_assert(std::is_same<typename Matrix<Scalar, ExecutionSpace>::array_layout,
                             Kokkos::LayoutRight>::value,
                "node_scores: logits must be row-major");
  const std::int64_t t = static_cast<std::int64_t>(logits.extent(1));
  const std::int64_t tasks = static_cast<std::int64_t>(targets.multilabels.extent(1));
  workspace_type own;
  workspace_type &ws = workspace ? *workspace : own;
  std::int64_t most = 0; // the buffers are sized for the largest set at once
  for (auto const &set : sets)
    most = std::max(most, static_cast<std::int64_t>(set.extent(0)));
  if (most > 0)
    ws.reserve(most, t, multilabel ? tasks : -1);
  for (std::size_t k = 0; k < sets.size(); ++k) {
    const std::int64_t n = static_cast<std::int64_t>(sets[k].extent(0));
    if (n == 0)
      continue;
    const auto ids = sets[k];
    const Matrix<Scalar, ExecutionSpace> rows = ws.logits.rows("ttgnn::node_scores::logits", n, t);
    gather_rows(space, logits, ids, rows);
    typename workspace_type::targets_type y;
    Kokkos::View<std::int32_t *, typename workspace_type::memory_space> labels;
    if (multilabel) {
      y = ws.targets.rows("ttgnn::node_scores::targets", n, tasks);
      gather_rows(space, targets.multilabels, ids, y);
    } else {
      labels = grow_entries(ws.labels, "ttgnn::node_scores::labels", n);
      const auto all = targets.labels;
      Kokkos::parallel_for(
          "ttgnn::node_scores::gather_labels", Kokkos::RangePolicy<ExecutionSpace>(space, 0, n),
          KOKKOS_LAMBDA(std::int64_t i) { labels(i) = all(ids(i)); });
    }
    space.fence(); // a host space reads its own rows: no copy waits for us
    const auto scores =
        detail::readable_on_host(rows, ws.host_logits, "ttgnn::node_scores::host_logits");
    std::vector<std::int64_t> local(static_cast<std::size_t>(n));
    std::iota(local.begin(), local.end(), std::int64_t(0));
    if (multilabel) {
      const auto yh =
          detail::readable_on_host(y, ws.host_targets, "ttgnn::node_scores::host_targets");
      out[k] = multilabel_metric(targets.metric, scores.data(), yh.data(), t, local.data(), n);
    } else {
      const auto lh =
          detail::readable_on_host(labels, ws.host_labels, "ttgnn::node_scores::host_labels");
      out[k] = roc_auc_binary(scores.data(), lh.data(), local.data(), n);
    }
  }
  return out;
}

} // namespace ttgnn

#endif
