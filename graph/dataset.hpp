#ifndef TTGNN_GRAPH_DATASET_HPP
#define TTGNN_GRAPH_DATASET_HPP
/// \file dataset.hpp
/// \brief A node-classification dataset in memory: graph, labels, features, one split.

#include "graph/csr_graph.hpp"
#include "graph/sparse_features.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace ttgnn {

/// \brief Everything a trainer needs, on the host. Node ids are 0 .. num_nodes-1.
template <class Ordinal = std::int32_t> struct Dataset {
  std::string name; ///< folder or generator name, for reports
  CsrGraph<Ordinal, Kokkos::HostSpace> graph;
  /// Class of each node in [0, num_classes), or -1 when unlabelled (all -1 for a multi-label
  /// dataset).
  Kokkos::View<std::int32_t *, Kokkos::HostSpace> labels;
  /// Number of classes; of a multi-label dataset, its number of binary tasks T.
  int num_classes = 0;
  /// Multi-label targets (ogbn-proteins, BlogCatalog): N x T, each 1, 0 or -1 (unknown);
  /// extent 0 for a single-label dataset.
  Kokkos::View<std::int8_t **, Kokkos::LayoutRight, Kokkos::HostSpace> multilabels;
  /// Dense node features, num_nodes x num_features (extent 0 x 0 when the dataset has none or
  /// holds them in sparse_features; 0 x F when it has F-dimensional features that were not
  /// loaded, LoadOptions::features = false).
  DenseFeatures features;
  /// The node features as sparse rows instead (bag-of-words features; see
  /// prefer_sparse_features). At most one of features and sparse_features holds values.
  SparseFeatures sparse_features;
  /// Optional per-node integer attribute such as OGB's node_year (extent 0 when absent).
  Kokkos::View<std::int32_t *, Kokkos::HostSpace> node_year;
  /// Node ids of the split (empty when no split was loaded).
  Kokkos::View<std::int64_t *, Kokkos::HostSpace> train, valid, test;
  std::string split_name;
  /// The evaluator the dataset names (meta.csv's "eval metric": "acc", "rocauc", ...); empty
  /// when it names none. The default metric of a run (models/loss/node_metric.hpp).
  std::string eval_metric;

  std::int64_t num_nodes() const { return graph.num_nodes(); }
  /// True when every node has T binary targets (multilabels) instead of one class.
  bool is_multilabel() const { return multilabels.extent(0) > 0; }
  std::int64_t num_features() const {
    return sparse_features.has_values() ? sparse_features.num_cols
                                        : static_cast<std::int64_t>(features.extent(1));
  }
  /// True when the feature values are in memory (not just their dimension), dense or sparse.
  bool has_feature_values() const {
    return num_features() > 0 &&
           (sparse_features.has_values() ? sparse_features.num_rows() > 0 : features.extent(0) > 0);
  }
  /// Forgets the feature values and their dimension.
  void drop_features() {
    features = DenseFeatures();
    sparse_features = SparseFeatures();
  }
};

/// \brief The features of \p data as dense rows: Dataset::features itself (no copy) when they
/// are dense, else a new N x F expansion of the sparse rows.
template <class ExecutionSpace, class Ordinal>
DenseFeatures dense_features(ExecutionSpace const &space, Dataset<Ordinal> const &data) {
  return data.sparse_features.has_values() ? to_dense_features(space, data.sparse_features)
                                           : data.features;
}

} // namespace ttgnn

#endif
