#ifndef TTGNN_GRAPH_GRAPH_STATS_HPP
#define TTGNN_GRAPH_GRAPH_STATS_HPP
/// \file graph_stats.hpp
/// \brief Size, degree, connectivity, label and homophily statistics of a dataset.
///
/// Everything except num_arcs is computed on the undirected simple graph underlying the
/// dataset's CSR: each unordered pair {u, v}, u != v, joined by an arc in either direction is
/// one edge; self loops are ignored. Definitions (they match shared/datasets' PROVENANCE.txt):
/// - edge homophily: fraction of the undirected edges with both ends labelled that join
///   nodes of the same label;
/// - node homophily: mean, over labelled nodes with at least one labelled neighbour, of the
///   fraction of their labelled neighbours that share their label;
/// - class-insensitive homophily (Lim et al. 2021, "LINKX"):
///   (1 / (C-1)) sum_k max(0, h_k - n_k / n), with h_k the fraction of the labelled
///   neighbours of class-k nodes that are in class k (summed over class-k nodes), n_k the
///   number of class-k nodes and n the number of labelled nodes; classes whose nodes have no
///   labelled neighbour contribute 0.
/// On multi-label data (T binary tasks, targets 1 / 0 / unknown) those three are undefined and
/// the label homophily is instead
/// - label Jaccard homophily: mean, over the undirected edges whose ends both have a known
///   target and at least one positive task between them, of |P(u) ∩ P(v)| / |P(u) ∪ P(v)|,
///   P(v) the tasks on which v is positive (1 when neighbours carry the same label sets).
/// A value that is undefined (no labelled edge, C < 2) is NaN (JSON null).

#include "core/host_only.hpp"
#include "core/io/json_writer.hpp"
#include "graph/dataset.hpp"

#include <cstdint>
#include <limits>
#include <vector>

namespace ttgnn {

/// \brief Degrees in the undirected simple graph.
struct DegreeSummary {
  std::int64_t min = 0, max = 0;
  double median = 0; ///< mean of the two middle values when N is even
  double mean = 0;
};

/// \brief The statistics printed by `ttgnn info`.
struct GraphStats {
  std::int64_t num_nodes = 0;
  std::int64_t num_edges = 0;      ///< undirected edges, no self loops
  std::int64_t num_arcs = 0;       ///< arcs stored in the dataset's CSR (self loops included)
  std::int64_t num_self_loops = 0; ///< self loops stored in the CSR
  bool symmetric = true;           ///< every stored arc has its reverse
  DegreeSummary degree;
  std::int64_t num_isolated = 0;   ///< nodes without any non-self-loop edge
  std::int64_t num_components = 0; ///< connected components (isolated nodes count as one each)
  std::int64_t largest_component = 0;
  int num_classes = 0; ///< classes, or tasks of multi-label data
  bool multilabel = false;
  /// Nodes with a class, or with at least one known target (multi-label).
  std::int64_t num_labelled = 0;
  /// Nodes per class, or positive nodes per task (multi-label); num_classes entries.
  std::vector<std::int64_t> class_counts;
  /// Multi-label: positives / known targets per task (NaN for a task with none known).
  std::vector<double> task_positive_rate;
  std::int64_t num_features = 0;
  /// Undirected edges with both ends labelled (multi-label: those the Jaccard mean counts).
  std::int64_t num_labelled_edges = 0;
  double edge_homophily = 0, node_homophily = 0, class_insensitive_homophily = 0;
  double label_jaccard_homophily = std::numeric_limits<double>::quiet_NaN(); ///< multi-label
};

/// \brief What the caller knows about the dataset, to skip work.
struct GraphStatsOptions {
  /// The CSR is symmetric by construction (symmetrised on load, LoadInfo::symmetrized): skip
  /// the check of every arc's reverse (serial, a cache miss per arc; most of the time of the
  /// statistics on a large graph).
  bool known_symmetric = false;
};

/// \brief Computes the statistics of \p data, in parallel on \p space (a host space: the
/// dataset lives in HostSpace).
template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only = 0>
GraphStats compute_graph_stats(ExecutionSpace const &space, Dataset<Ordinal> const &data,
                               GraphStatsOptions const &options = {});

/// \brief Adds the statistics to \p json under the keys num_nodes, num_edges, num_arcs,
/// num_self_loops, symmetric, degree_min, degree_median, degree_mean, degree_max, num_isolated,
/// num_components, largest_component, num_classes, num_labelled, class_counts, num_features,
/// edge_homophily, node_homophily, class_insensitive_homophily, multilabel and, on multi-label
/// data, task_positive_rate and label_jaccard_homophily.
void add_to_json(JsonWriter &json, GraphStats const &stats);

} // namespace ttgnn

#endif
