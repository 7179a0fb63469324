#ifndef TTGNN_GRAPH_TABLE_READERS_HPP
#define TTGNN_GRAPH_TABLE_READERS_HPP
/// \file table_readers.hpp
/// \brief The pieces the dataset loaders are made of: edge lists, label columns, dense feature
/// rows and id lists, from text (plain or gzip, streamed, parsed in parallel where it pays) or
/// from `.npy` arrays. Every reader validates as it goes and throws InputError naming the file,
/// the line (for text) and what was expected.

#include "core/runtime/progress.hpp"
#include "graph/csr_build.hpp"
#include "graph/csr_graph.hpp"
#include "graph/sparse_features.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ttgnn::io {

/// \brief Edges read from a file, as two parallel arrays of node ids.
template <class Ordinal> struct EdgeList {
  std::vector<Ordinal> src, dst;
  std::int64_t max_id = -1; ///< largest id seen (-1 when there are no edges)
};

/// \brief What an edge-list text file may contain besides "u,v" lines.
struct EdgeTextFormat {
  bool comments = false; ///< lines starting with '#' (after spaces) are skipped
  bool header = false;   ///< the first non-comment line may be a header (skipped if not numeric)
  bool any_separator = false; ///< ',' or tab or runs of spaces; otherwise ',' only
};

/// Reads "u,v" lines. Ids must be integers in [0, num_nodes) (num_nodes <= 0: any id that fits
/// Ordinal). Blank lines are skipped. Parsed in parallel blocks.
/// \p expected_edges (when > 0) reserves the arrays up front.
template <class Ordinal>
EdgeList<Ordinal> read_edges_text(std::string const &path, std::int64_t num_nodes,
                                  EdgeTextFormat const &format, std::int64_t expected_edges = 0);

/// \brief Builds the CSR of the "u,v" lines of an edge text file without holding the edge
/// list: two streaming passes over the file (plain or gzip), the first counting the arcs of
/// every row (both directions when options.symmetrize), the second writing each arc at the
/// next free slot of its row; then every row is sorted in place and duplicates are squeezed
/// out in one in-place pass. Peak memory: the CSR (before duplicate removal) plus one int64
/// cursor per node. Ids must lie in [0, num_nodes) (num_nodes > 0 required). Self loops of the
/// input are dropped; options.self_loops adds one per node.
/// \param num_edges when not null, receives the number of edge lines read
/// \param progress progress lines of each pass, counted against \p expected_edges (> 0)
/// \throws InputError naming the file and line for a bad line, or when the file changed
/// between the passes
template <class Ordinal>
CsrGraph<Ordinal, Kokkos::HostSpace>
read_edges_text_csr(std::string const &path, std::int64_t num_nodes, EdgeTextFormat const &format,
                    CsrBuildOptions const &options, std::int64_t *num_edges = nullptr,
                    ProgressLog const &progress = {}, std::int64_t expected_edges = 0);

/// Reads edge_index (2 x E, int) from an `.npz` member; ids checked against num_nodes.
template <class Ordinal>
EdgeList<Ordinal> read_edges_npz(std::string const &npz_path, std::string const &member,
                                 std::int64_t num_nodes);

/// Builds the CSR of \p edges on the default host execution space and frees the edge arrays.
template <class Ordinal>
CsrGraph<Ordinal, Kokkos::HostSpace> edges_to_csr(EdgeList<Ordinal> &edges, std::int64_t num_nodes,
                                                  CsrBuildOptions const &options);

/// Reads a file holding one non-negative integer (OGB num-node-list / num-edge-list).
std::int64_t read_count_text(std::string const &path);

/// Reads one label per line: an integer >= 0 (written "3" or "3.0"), or nan/NaN for
/// "unlabelled" (stored as -1). The file must have exactly \p num_nodes lines.
Kokkos::View<std::int32_t *, Kokkos::HostSpace> read_labels_text(std::string const &path,
                                                                 std::int64_t num_nodes);

/// Reads labels from a `.npy` array of shape (N) or (N, 1): integers (-1 = unlabelled) or
/// floats (NaN = unlabelled, other values must be integral). \p member empty: a plain `.npy`.
Kokkos::View<std::int32_t *, Kokkos::HostSpace>
read_labels_npy(std::string const &path, std::string const &member, std::int64_t num_nodes);

/// \brief Multi-label targets: N rows of T tasks, each 1 (positive), 0 (negative) or -1
/// (unknown), row-major.
using MultiLabels = Kokkos::View<std::int8_t **, Kokkos::LayoutRight, Kokkos::HostSpace>;

/// Number of comma-separated columns on the first line of a label file (0 if empty): 1 for a
/// single-label file, T for a multi-label one (ogbn-proteins' node-label.csv.gz has 112).
std::int64_t peek_label_columns_text(std::string const &path);

/// Reads N rows of T comma-separated entries (T from the first row; every row must have T):
/// 0 or 1 (also written 0.0, 1.0), and -1, nan/NaN or an empty field (pandas' NaN) for
/// "unknown". InputError naming the file and line otherwise.
MultiLabels read_multilabels_text(std::string const &path, std::int64_t num_nodes);

/// Reads an (N, T) `.npy` array (any numeric dtype) of 0 / 1 / -1 / NaN (the last two:
/// unknown); \p member empty: a plain `.npy`.
MultiLabels read_multilabels_npy(std::string const &path, std::string const &member,
                                 std::int64_t num_nodes);

/// Checks every label against [0, num_classes) when num_classes > 0, and returns the class
/// count: \p num_classes when > 0, else max label + 1. \p origin names where labels came from;
/// \p first_line > 0: \p origin is a text file with node i on line first_line + i (named in
/// the message).
int check_labels(Kokkos::View<std::int32_t *, Kokkos::HostSpace> labels, int num_classes,
                 std::string const &origin, std::string const &classes_origin,
                 std::int64_t first_line = 0);

/// Number of comma-separated values on the first line of a dense feature file (0 if empty).
std::int64_t peek_feature_dim_text(std::string const &path);

/// \brief Features as read: dense rows or sparse rows (at most one of them holds values).
struct FeatureTable {
  DenseFeatures dense;
  SparseFeatures sparse;
};

/// \p x in the layout \p layout asks for: as it is, or as sparse rows (automatic: when
/// prefer_sparse_features says so).
FeatureTable choose_feature_layout(DenseFeatures x, FeatureLayout layout);

/// Reads N rows of F comma-separated finite numbers (F from the first row); ragged rows,
/// non-numbers, NaN and Inf are errors. Parsed in parallel blocks straight into the result:
/// sparse rows, or dense rows when \p layout is dense or when automatic and the first block
/// (about 4 MiB of text) is too dense for prefer_sparse_features. With automatic the result
/// follows prefer_sparse_features over the whole file.
FeatureTable read_features_text(std::string const &path, std::int64_t num_nodes,
                                FeatureLayout layout = FeatureLayout::automatic);

/// Reads an (N, F) or (N) numeric `.npy` array (any supported dtype, C or Fortran order) as
/// float; NaN and Inf are errors. \p member empty: a plain `.npy` file.
Kokkos::View<float **, Kokkos::LayoutRight, Kokkos::HostSpace>
read_features_npy(std::string const &path, std::string const &member, std::int64_t num_nodes);

/// Shape of a `.npy` array without reading its data.
std::vector<std::int64_t> npy_shape(std::string const &path, std::string const &member);

/// Reads N integers from a `.npy` of shape (N) or (N, 1) (node_year); \p member as above.
Kokkos::View<std::int32_t *, Kokkos::HostSpace>
read_node_ints_npy(std::string const &path, std::string const &member, std::int64_t num_nodes);

/// Reads one integer per line, each in [0, num_nodes) and each at most once (split files), or
/// any integers, repeats allowed, when \p num_nodes < 0 (node_year). A non-empty message from
/// \p check(id) rejects the line that holds id.
std::vector<std::int64_t>
read_ints_text(std::string const &path, std::int64_t num_nodes,
               std::function<std::string(std::int64_t)> const &check = {});

/// Reads "key,value" lines (meta.csv); the first line may be the header "key,value".
std::map<std::string, std::string> read_key_values(std::string const &path);

} // namespace ttgnn::io

#endif
