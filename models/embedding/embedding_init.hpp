#ifndef TTGNN_MODELS_EMBEDDING_INIT_HPP
#define TTGNN_MODELS_EMBEDDING_INIT_HPP
/// \file embedding_init.hpp
/// \brief Initial values of a node embedding table, TT or full, computed on the host:
/// Gaussian, orthogonal or spectral (METHOD.md §2), scaled to a target root-mean-square entry.
///
/// Rows: node v (an original id) owns row old_to_row(v) of the table (its TT row under an
/// ordering, or its new id for a full table), so the spectral vectors of node v land where the
/// model will look them up. Rows that belong to no node (holes of the hierarchical order) are
/// zero in the spectral target. An empty old_to_row is the identity (node v at row v; the
/// original order stores no map, graph/order/ordering.hpp).
///
/// Spectral vectors: the largest eigenvectors of D^-1/2 A D^-1/2 of the graph
/// (graph/spectral/spectral_embedding.hpp). Eigenvalue 1 has one eigenvector per connected
/// component (D^1/2 1_C, constant up to the degree on the component); on a graph with many
/// components (Cora has 78) they would fill every column and carry no structure. So
/// only the largest component's vector is kept and the next d - 1 columns are the leading
/// non-trivial eigenvectors (the other components' vectors are projected out of the solve and
/// take no column: d pairs are computed, whatever c). Column j is scaled by |lambda_j|^exponent.
///
/// Large graphs: when N x d is above EmbeddingConfig::spectral_max_entries, a TT table starts
/// from the spectrum of its slot graph instead (one node per row prefix (i_1, ..., i_{K-1}), an
/// edge where the graph joins two slots; graph/coarse/quotient_graph.hpp): its TT-SVD gives the
/// first K-1 cores, and every last-core slice starts from the slot table's one plus seeded
/// noise. Memory is the slot table's, never N x d; the default 2^25 entries switch at 524,288
/// nodes for d = 64. A full table has no slots: its spectral init refuses graphs of more than
/// 5e8 entries (4 GB of eigenvectors).
///
/// Settings: the table's EmbeddingConfig (init, init_std, spectral_exponent; the other fields
/// describe the table's shape and optimiser) and a seed for every random choice.
///
/// Scale: the table is multiplied so that the root-mean-square entry over the rows of real
/// nodes is `init_std` (torch.nn.Embedding's N(0, 1) is init_std = 1). Gaussian TT cores get
/// the variance init_std² per entry directly (tt_gaussian_sigma); orthogonal TT cores are
/// scaled so that W^T W = init_std²·P·I over the P padded rows; spectral TT cores are rescaled
/// from the trace of W^T W (holes are ~0 there).

#include "core/runtime/progress.hpp"
#include "core/tt/tt_init.hpp"
#include "core/tt/tt_shape.hpp"
#include "graph/csr_graph.hpp"
#include "models/embedding/embedding_config.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ttgnn {

/// \brief What the initialisation did.
struct EmbeddingInitInfo {
  double seconds = 0;
  double scale = 1;               ///< factor applied to reach init_std
  double tt_svd_error = -1;       ///< spectral TT / orthogonal fallback: relative error (else -1)
  bool orthogonal_direct = false; ///< TT orthogonal: the direct construction was possible
  std::int64_t components = 0;    ///< spectral: components with edges
  std::int64_t eigenpairs = 0;    ///< spectral: eigenpairs computed
  double eigen_seconds = 0;
  double lambda_first = 0, lambda_last = 0; ///< spectral: eigenvalues of the first/last column
  /// spectral: the largest ||Â v - λ v|| of the eigenpairs (a fixed-budget block solve above the
  /// dense limit reports it instead of converging to a tolerance)
  double eigen_residual = 0;
  /// spectral TT above spectral_max_entries: nodes and arcs of the slot graph it solved (0: the
  /// graph itself was solved)
  std::int64_t slot_nodes = 0, slot_arcs = 0;
};

/// \brief TT cores (layout of core/tt/tt_init.hpp) for \p shape, node v at row old_to_row(v).
template <class Ordinal>
TtHostCores initial_tt_cores(TtShape const &shape,
                             CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                             Kokkos::View<const std::int64_t *, Kokkos::HostSpace> old_to_row,
                             EmbeddingConfig const &spec, std::uint64_t seed,
                             EmbeddingInitInfo *info = nullptr, ProgressLog const &progress = {});

/// \brief A full num_rows x dim table (row-major), node v at row old_to_row(v).
template <class Ordinal>
std::vector<double> initial_full_table(
    std::int64_t num_rows, std::int64_t dim, CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
    Kokkos::View<const std::int64_t *, Kokkos::HostSpace> old_to_row, EmbeddingConfig const &spec,
    std::uint64_t seed, EmbeddingInitInfo *info = nullptr, ProgressLog const &progress = {});

/// \brief The spectral target: a num_rows x dim row-major matrix with node v's scaled
/// eigenvector entries at row old_to_row(v) (zeros elsewhere), and the eigenvalues used.
template <class Ordinal>
std::vector<double> spectral_rows(std::int64_t num_rows, std::int64_t dim,
                                  CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                                  Kokkos::View<const std::int64_t *, Kokkos::HostSpace> old_to_row,
                                  EmbeddingConfig const &spec, std::uint64_t seed,
                                  EmbeddingInitInfo *info = nullptr,
                                  ProgressLog const &progress = {});

/// Number of connected components with at least one edge.
template <class Ordinal>
std::int64_t count_edge_components(CsrGraph<Ordinal, Kokkos::HostSpace> const &graph);

} // namespace ttgnn

#endif
