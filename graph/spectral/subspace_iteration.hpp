#ifndef TTGNN_GRAPH_SUBSPACE_ITERATION_HPP
#define TTGNN_GRAPH_SUBSPACE_ITERATION_HPP
/// \file subspace_iteration.hpp
/// \brief The largest eigenpairs of Â = D^-1/2 A D^-1/2 by Chebyshev-filtered block subspace
/// iteration (Zhou & Saad's CheFSI), in the orthogonal complement of known eigenvectors, with a
/// fixed iteration budget: the residuals are reported, not iterated to a tolerance.
///
/// One iteration: filter the block Y (b = nev + guard columns) with the Chebyshev polynomial of
/// degree m that is bounded by 1 on [-1, cut] (cut = the smallest Ritz value of the block, -1 =
/// the known lower end of Â's spectrum) and grows fast above it, project out the known
/// eigenvectors, then a Rayleigh-Ritz step on the filtered block without forming an orthonormal
/// copy of it: G = Y^T Y, W = Â Y, H = Y^T W; SVQB (G's eigenvectors after a diagonal scaling)
/// gives M with M^T G M = I, the small eigenproblem of M^T H M gives Q, and the Ritz vectors
/// and their images are Y M Q and W M Q. The start block is seeded uniform noise followed by a
/// Rayleigh-Ritz step. m products with Â per iteration (the filter reuses the previous W).
///
/// Determinism: the block products are ttgnn::spmm (rows summed in CSR order); every inner
/// product over the N rows is a reduction over fixed chunks of rows (each chunk's small dense
/// product on one thread), summed in chunk order; the dense b x b problems run on one thread.
/// So the result is bitwise the same at every thread count and on every host space.
///
/// Known eigenvectors: each node belongs to at most one known eigenvector u_g (supports are
/// disjoint, e.g. the components' u_C = D^1/2 1_C / sqrt(vol C)); nodes in none must have
/// D^-1/2 = 0 (isolated nodes: their rows of Â are zero), and the block is kept zero there.

#include "core/host_only.hpp"
#include "core/runtime/progress.hpp"
#include "graph/csr_graph.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <vector>

namespace ttgnn {

/// \brief Settings of subspace_iteration.
struct SubspaceOptions {
  /// Block size b; 0 = nev + max(8, nev / 4), capped by the dimension of the problem.
  int block_size = 0;
  int max_iterations = 4; ///< filter + Rayleigh-Ritz steps after the start block's
  int degree = 8;         ///< Chebyshev degree m (products with Â per iteration)
  /// Stop before the budget once every wanted residual is at most this (0: run the budget).
  double tolerance = 0;
  std::uint64_t seed = 0; ///< start block
  ProgressLog progress;   ///< a line per iteration with the ETA, once the solve is long
};

/// \brief Known eigenvectors of Â with disjoint supports, kept out of the solver's subspace.
struct KnownEigenvectors {
  /// Per node: the index g of the known vector u_g whose support holds it, or -1 (a node of
  /// degree 0: the block stays zero there).
  Kokkos::View<const std::int64_t *, Kokkos::HostSpace> group;
  Kokkos::View<const double *, Kokkos::HostSpace> weight; ///< u_g(v) for v in group g
  std::int64_t num_groups = 0;
};

/// \brief The nev largest eigenpairs of Â in the complement of the known vectors.
struct SubspaceResult {
  /// N x nev, orthonormal columns (Ritz vectors), eigenvalues descending.
  Kokkos::View<double **, Kokkos::LayoutRight, Kokkos::HostSpace> vectors;
  std::vector<double> values;    ///< Ritz values, descending
  std::vector<double> residuals; ///< ||Â x - θ x||_2 of each returned pair
  double max_residual = 0;
  double cut = 0;         ///< the filter's last lower cut (the smallest Ritz value of the block)
  std::int64_t block = 0; ///< block size b
  std::int64_t iterations = 0;
  std::int64_t products = 0; ///< block products with Â (b columns each)
  double seconds = 0;
};

/// \brief The \p nev largest eigenpairs of D^-1/2 A D^-1/2 orthogonal to \p known.
/// \param dinv D^-1/2 (0 for nodes of degree 0)
/// \throws ConfigError nev < 1 or larger than the nodes in known groups minus the groups.
template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only = 0>
SubspaceResult subspace_iteration(ExecutionSpace const &space,
                                  CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                                  Kokkos::View<const double *, Kokkos::HostSpace> dinv,
                                  KnownEigenvectors const &known, std::int64_t nev,
                                  SubspaceOptions const &options);

} // namespace ttgnn

#endif
