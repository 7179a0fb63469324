#ifndef TTGNN_GRAPH_OGB_LOADER_HPP
#define TTGNN_GRAPH_OGB_LOADER_HPP
/// \file ogb_loader.hpp
/// \brief Loads a node-classification dataset folder in the OGB raw layout (see
/// shared/datasets/OGB_FORMAT.md) into a Dataset, optionally through a binary cache.
///
/// Text layout (`.csv` or `.csv.gz` each): raw/edge, raw/num-node-list, raw/num-edge-list
/// (required), raw/node-label (`nan` = unlabelled), raw/node-feat (dense rows), raw/node_year
/// (optional); split/<name>/{train,valid,test}; meta.csv when present.
/// Binary layout (ogbn-papers100M): raw/data.npz with edge_index (2 x E), num_nodes_list,
/// num_edges_list, optional node_feat (N x F, f2/f4/f8) and node_year; raw/node-label.npz with
/// node_label (float, NaN = unlabelled). Stored or deflated members, read through libzip.
///
/// Every file is checked before the CSR is built: a malformed line, an id that is negative,
/// not an integer or >= N, a label outside [0, C), a NaN/Inf or missing feature value, a
/// truncated or corrupt gzip/zip, and a missing required file each throw InputError naming the
/// file (and line for text). C is meta.csv's num_classes when present, else max label + 1.

#include "core/runtime/progress.hpp"
#include "graph/dataset.hpp"
#include "graph/io/graph_cache.hpp"

#include <cstdint>
#include <string>

namespace ttgnn {

/// \brief How to load an OGB-layout folder.
struct LoadOptions {
  /// Split to load: the name of a folder under split/ ("" = no split).
  std::string split;
  /// Edge direction: from_meta symmetrises unless meta.csv says add_inverse_edge False and
  /// is_directed True (no meta.csv: symmetrise, the usual choice for node classification);
  /// directed keeps the arcs u -> v as stored; symmetrize stores both directions.
  enum class Edges { from_meta, directed, symmetrize } edges = Edges::from_meta;
  /// Give every node one self loop (input self loops are always dropped).
  bool self_loops = false;
  /// Read the feature values. When false only their dimension is read (features is 0 x F).
  bool features = true;
  /// How the feature values are held: sparse rows for bag-of-words features (automatic).
  FeatureLayout feature_layout = FeatureLayout::automatic;
  /// Folder for the binary cache ("" = no cache).
  std::string cache_dir;
  /// Progress of the two passes over a text edge file, with an ETA from the edge count file
  /// (lines once a pass runs 2 s; empty: silent).
  ProgressLog progress;
};

/// \brief Loads the dataset in folder \p dir.
/// \tparam Ordinal node id type of the CSR (int32 while N < 2^31, else int64)
/// \param dir the dataset root (the folder holding raw/ and split/)
/// \param options see LoadOptions
/// \param info when not null, receives what the load did (cache status, time, ...)
/// \throws InputError for bad or missing input, ConfigError when N does not fit \p Ordinal
template <class Ordinal = std::int32_t>
Dataset<Ordinal> load_ogb(std::string const &dir, LoadOptions const &options = {},
                          LoadInfo *info = nullptr);

/// \brief `DIR/raw/NAME.csv.gz` when present, else `DIR/raw/NAME.csv`, else "".
std::string find_ogb_file(std::string const &dir, std::string const &name);

} // namespace ttgnn

#endif
