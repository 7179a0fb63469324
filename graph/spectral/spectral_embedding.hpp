#ifndef TTGNN_GRAPH_SPECTRAL_EMBEDDING_HPP
#define TTGNN_GRAPH_SPECTRAL_EMBEDDING_HPP
/// \file spectral_embedding.hpp
/// \brief The k largest eigenpairs of the symmetric normalised adjacency
///   Â = D^-1/2 A D^-1/2      (= I - L_sym, so the k smallest of the normalised Laplacian),
/// for the spectral initialisation of TT embeddings (METHOD.md §2). Spectra and Eigen are used
/// only in spectral_embedding.cpp; the matrix-vector product is a parallel Kokkos SpMV.
///
/// A is the graph as stored (a self loop counts once in its node's degree). A node of degree
/// 0 has D^-1/2 := 0: its row and column of Â are zero and e_v is an eigenvector of eigenvalue 0.
///
/// Multiple eigenvalues. A Krylov method started from one vector sees one direction per
/// eigenspace, so eigenvalue 1, whose multiplicity is the number c of components with edges,
/// is handled exactly instead: its eigenvectors u_C = D^1/2 1_C / sqrt(vol C) are known. They
/// fill the first min(k, c) columns (largest components first, ties by smallest node id), and
/// Lanczos runs on Â - 3 U U^T with every isolated node's diagonal set to -2, which moves those
/// known eigenpairs to -2, below the spectrum of Â, while keeping every other eigenpair. The
/// isolated nodes' eigenvectors (eigenvalue 0) are merged back in by eigenvalue. Other repeated
/// eigenvalues (e.g. from many identical small components) are a limit of single-vector
/// Lanczos: every returned pair is accurate, but copies of a repeated eigenvalue can be missed.
///
/// Large graphs: SpectralSolver::subspace replaces Lanczos by Chebyshev-filtered block subspace
/// iteration (subspace_iteration.hpp) on Â in the complement of the u_C (projected out exactly,
/// no shift), with a fixed iteration budget: its residuals are reported, not iterated to a
/// tolerance, and it sees whole eigenspaces (repeated eigenvalues are no limit of a block).
///
/// Determinism: the start vector comes from the seed, every SpMV row is summed in a fixed
/// order, and each vector's sign is fixed (its largest-magnitude entry, the first one within
/// 1e-9 relative of the maximum, is positive), so the result does not depend on the thread count.

#include "core/host_only.hpp"
#include "graph/csr_graph.hpp"
#include "graph/spectral/subspace_iteration.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <vector>

namespace ttgnn {

/// \brief The eigensolver for the pairs that are not known exactly (both solve small problems
/// densely, see SpectralOptions::dense_limit).
enum class SpectralSolver {
  lanczos, ///< Spectra's implicitly restarted Lanczos to `tolerance`
  subspace ///< block Chebyshev-filtered subspace iteration, fixed budget (`subspace`)
};

/// \brief Settings of spectral_embedding.
struct SpectralOptions {
  int num_vectors = 16; ///< k, the number of eigenpairs (1 <= k <= N)
  /// Lanczos basis size; 0 = max(2·nev + 1, nev + 20), capped by the problem size.
  int ncv = 0;
  int max_restarts = 1000; ///< Spectra's maxit
  double tolerance = 1e-8; ///< Spectra: Ritz residual < tolerance·max(|λ|, eps^(2/3))
  /// LibraryError when a returned pair has ||Â v - λ v||_2 above this (0: do not check). Checked
  /// for the dense and Lanczos solvers, which converge to a tolerance; the subspace solver's
  /// residual after its fixed budget is reported, not checked.
  double max_residual = 1e-6;
  SpectralSolver solver = SpectralSolver::lanczos; ///< above the dense limit
  SubspaceOptions subspace;                        ///< settings of SpectralSolver::subspace
  std::uint64_t seed = 0;                          ///< start vector
  /// How many of the eigenvalue-1 vectors u_C fill columns (largest components first); < 0:
  /// all of them. The others stay projected out of the solve but take no column, so a graph of
  /// many components costs no more than one of few (the spectral init keeps one).
  std::int64_t known_columns = -1;
  /// Graphs with at most this many non-isolated nodes, whose non-trivial part is too small
  /// for a comfortable Lanczos basis, are solved densely (Eigen); larger ones never are.
  std::int64_t dense_limit = 4000;
};

/// \brief k eigenpairs of Â, eigenvalues descending.
struct SpectralEmbedding {
  /// N x k; column j is the unit-norm eigenvector of eigenvalues[j]. Columns are orthonormal.
  Kokkos::View<double **, Kokkos::LayoutRight, Kokkos::HostSpace> vectors;
  std::vector<double> eigenvalues; ///< descending
  std::vector<double> residuals;   ///< ||Â v_j - λ_j v_j||_2, computed after the solve
  double max_residual = 0;
  std::int64_t num_components = 0; ///< components with at least one edge (eigenvalue 1)
  std::int64_t num_isolated = 0;   ///< nodes of degree 0 (eigenvalue 0)
  std::int64_t exact_vectors = 0;  ///< columns filled with known eigenvectors (u_C or e_v)
  bool dense = false;              ///< the rest came from the dense solver, not Lanczos
  bool subspace = false;           ///< the rest came from subspace iteration, not Lanczos
  std::int64_t subspace_block = 0, subspace_iterations = 0; ///< block size, iterations run
  std::int64_t lanczos_nev = 0, lanczos_ncv = 0;
  /// products with Â (Spectra's count, or block products times the block size, plus the
  /// residual checks)
  std::int64_t matvecs = 0;
  std::int64_t restarts = 0; ///< Spectra iterations (implicit restarts)
  double seconds = 0;
};

/// \brief Computes the k largest eigenpairs of D^-1/2 A D^-1/2 for a symmetric graph.
/// \param space host execution space of the SpMV.
/// \throws ConfigError k outside [1, N], or more than the N - (c - known_columns) columns left
///         when known_columns < c; LibraryError Spectra did not converge or a residual
///         exceeds options.max_residual.
template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only = 0>
SpectralEmbedding spectral_embedding(ExecutionSpace const &space,
                                     CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                                     SpectralOptions const &options);

} // namespace ttgnn

#endif
