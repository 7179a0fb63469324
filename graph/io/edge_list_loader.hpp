#ifndef TTGNN_GRAPH_EDGE_LIST_LOADER_HPP
#define TTGNN_GRAPH_EDGE_LIST_LOADER_HPP
/// \file edge_list_loader.hpp
/// \brief Loads the generic format a Python user exports: an edge list in text (CSV, TSV or
/// whitespace-separated; plain or gzip; an optional header line; `#` comment lines) plus
/// optional labels and features as `.npy` files (`np.save`).

#include "graph/dataset.hpp"
#include "graph/io/graph_cache.hpp"

#include <cstdint>
#include <string>

namespace ttgnn {

/// \brief Options of load_edge_list.
struct GenericOptions {
  /// Number of nodes N. 0: the row count of labels_npy / features_npy when given (they must
  /// agree), else max node id + 1. Ids must lie in [0, N).
  std::int64_t num_nodes = 0;
  /// Labels, shape (N) or (N, 1): integers (-1 = unlabelled) or floats (NaN = unlabelled).
  std::string labels_npy;
  /// Features, shape (N, F) (or (N) for F = 1), any numeric dtype; NaN/Inf are errors.
  std::string features_npy;
  /// How the feature values are held: sparse rows for bag-of-words features (automatic).
  FeatureLayout feature_layout = FeatureLayout::automatic;
  /// Number of classes C; labels must lie in [0, C). 0: max label + 1.
  int num_classes = 0;
  /// Keep arcs u -> v as given instead of symmetrising.
  bool directed = false;
  /// Give every node one self loop (input self loops are always dropped).
  bool self_loops = false;
  /// Folder for the binary cache ("" = no cache).
  std::string cache_dir;
};

/// \brief Loads an edge-list dataset. Every file is checked before the CSR is built; errors
/// throw InputError naming the file, the line (text) and what was expected.
/// \param edges_path text file of "u v" pairs (0-based ids), separated by ',', a tab or spaces
/// \param options see GenericOptions
/// \param info when not null, receives what the load did
template <class Ordinal = std::int32_t>
Dataset<Ordinal> load_edge_list(std::string const &edges_path, GenericOptions const &options = {},
                                LoadInfo *info = nullptr);

} // namespace ttgnn

#endif
