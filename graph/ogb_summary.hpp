#ifndef TTGNN_GRAPH_OGB_SUMMARY_HPP
#define TTGNN_GRAPH_OGB_SUMMARY_HPP
/// \file ogb_summary.hpp
/// \brief Counts read from an OGB raw folder without building the graph: nodes, edges,
/// classes, labelled nodes, feature dimension.

#include <cstdint>
#include <string>
#include <vector>

namespace ttgnn {

/// \brief What the small files of an OGB raw folder say about the dataset.
struct OgbSummary {
  std::int64_t num_nodes = 0;
  std::int64_t num_edges = 0; ///< edges as stored in raw/edge.csv
  int num_classes = 0;        ///< max label + 1 (0 when there are no labels)
  std::int64_t num_labelled = 0;
  std::vector<std::int64_t> class_counts;
  std::int64_t num_features = 0; ///< columns of raw/node-feat.csv (0 when absent)
};

/// \brief Reads DIR/raw/num-node-list, num-edge-list, node-label and the first row of
/// node-feat (each `.csv` or `.csv.gz`). Throws InputError naming file and line.
OgbSummary read_ogb_summary(std::string const &dir);

/// \brief DIR/raw/NAME.csv.gz when present, else DIR/raw/NAME.csv, else "".
std::string find_ogb_file(std::string const &dir, std::string const &name);

} // namespace ttgnn

#endif
