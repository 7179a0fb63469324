#ifndef TTGNN_CORE_TT_INIT_HPP
#define TTGNN_CORE_TT_INIT_HPP
/// \file tt_init.hpp
/// \brief Initial TT cores (Gaussian, orthogonal, TT-SVD / spectral) computed on the host, and
/// host reference utilities (materialize_host, tt_gram_host). See docs/TT_INIT.md.
///
/// Every function returns the K cores as host vectors in the storage layout of
/// core/tt/tt_shape.hpp: core k row-major with extents (n[k], ranks[k], d[k]·ranks[k+1]), i.e.
///   cores[k][((i·ranks[k] + a)·d[k] + j)·ranks[k+1] + b] = G_k[i](a, (j, b)),
/// ready to be copied into the embedding's Views. Only the public fields of TtShape
/// (num_rows, n, d, ranks) are used; shapes are checked (ttgnn::ConfigError) first.

#include "core/tt/tt_shape.hpp"

#include <cstdint>
#include <vector>

namespace ttgnn {

/// K cores on the host, cores[k] of size n[k]·ranks[k]·d[k]·ranks[k+1].
using TtHostCores = std::vector<std::vector<double>>;

/// \brief The standard deviation sigma of the core entries of tt_init_gaussian: with K cores
/// of i.i.d. N(0, sigma²) entries, an entry of the table is a sum of prod_{k=1}^{K-1} ranks[k]
/// products of K independent entries, so its variance is
///   Var = sigma^(2K) · prod_{k=1}^{K-1} ranks[k],
/// and sigma = (target_variance / prod_{k=1}^{K-1} ranks[k])^(1/(2K)).
double tt_gaussian_sigma(TtShape const &shape, double target_variance);

/// \brief TT-Rec's sampled Gaussian init: every core entry i.i.d. N(0, sigma²) with
/// sigma = tt_gaussian_sigma(shape, target_variance), so each table entry has mean 0 and
/// variance target_variance (1 matches torch.nn.Embedding's N(0, 1); 1/(3·d) matches
/// uniform(-1/sqrt(d), 1/sqrt(d))). Deterministic for a seed (own Box-Muller on mt19937_64).
TtHostCores tt_init_gaussian(TtShape const &shape, double target_variance, std::uint64_t seed);

/// \brief Result of tt_init_orthogonal.
struct TtOrthogonalInit {
  TtHostCores cores;
  bool direct = false;            ///< true: per-core QR construction; false: TT-SVD fallback
  bool padding_rows_zero = false; ///< rows >= num_rows of the table are exactly zero
  double padded_gram_error = 0;   ///< max |W^T W - scale²·I| over all prod(n) rows
  double gram_error = 0;          ///< max |W^T W - scale²·I| over the num_rows real rows
  double tt_svd_error = 0;        ///< fallback only: relative Frobenius error of the TT-SVD
};

/// \brief Whether the direct orthogonal construction applies:
/// ranks[k]·d[k] <= n_k·ranks[k+1] for every core k (n_0 may be reduced, see below).
bool tt_orthogonal_direct_possible(TtShape const &shape);

/// \brief Orthogonal init (the paper's algorithm): the table W has orthonormal columns.
///
/// Direct construction: core k read as the matrix M_k with rows (a, j) (ranks[k]·d[k]) and
/// columns (i, b) (n[k]·ranks[k+1]) gets orthonormal rows, the transpose of the Q factor of
/// a seeded Gaussian matrix; then W^T W = I over the padded table (all prod(n) rows).
/// Core-0 slices that hold only padding rows (i >= q = ceil(num_rows / prod_{k>=1} n[k]))
/// are set to zero when d[0] <= q·ranks[1] still holds; when num_rows is a multiple of
/// prod_{k>=1} n[k] the padding rows are then exactly zero and W^T W = I over the real rows
/// too. Otherwise padding rows take part of the unit column norm: W_real^T W_real =
/// I - W_pad^T W_pad (reported in gram_error).
/// Fallback when the direct construction is impossible: TT-SVD (ranks capped at the shape's)
/// of a seeded random num_rows x d matrix with orthonormal columns; W^T W ≈ I, with the
/// errors reported. \param scale multiplies core 0, so W^T W = scale²·I.
TtOrthogonalInit tt_init_orthogonal(TtShape const &shape, std::uint64_t seed, double scale = 1.0);

/// \brief Result of tt_svd.
struct TtSvdResult {
  TtHostCores cores;
  /// ||A - W||_F / ||A||_F over the padded table (A zero-padded; 0 when A == 0), from the
  /// discarded residual of each sequential truncation (its squares add up exactly).
  double relative_error = 0;
  /// Ranks of the truncated SVDs before zero-padding to the shape's ranks (K+1 entries).
  std::vector<std::int64_t> effective_ranks;
};

/// \brief TT-SVD of a host matrix A (num_rows x dim, row-major) into the shape: rows
/// zero-padded to prod(n), reshaped to (n_0..n_{K-1}, d_0..d_{K-1}), permuted to the tensor
/// of modes (n_k·d_k) with p_k = i_k·d[k] + j_k, then sequential truncated SVDs with ranks
/// capped at shape.ranks; a lower numerical rank is padded with zero slices so the cores
/// keep the shape. \param column_scale optional (empty or dim entries): column c of A is
/// multiplied by column_scale[c] first. Throws ttgnn::ConfigError on size mismatches.
TtSvdResult tt_svd(TtShape const &shape, std::vector<double> const &matrix,
                   std::vector<double> const &column_scale = {});

/// \brief As above for a matrix given up by the caller: it is freed (left empty) once its
/// entries are in the first unfolding, so the truncations run without it.
TtSvdResult tt_svd(TtShape const &shape, std::vector<double> &&matrix,
                   std::vector<double> const &column_scale = {});

/// \brief Spectral init: tt_svd of k = dim eigenvectors (num_rows x dim, row-major, signs
/// already fixed by the caller) with column c scaled by |eigenvalues[c]|^exponent
/// (exponent 0.5: sqrt|lambda|; 0: unscaled).
TtSvdResult tt_init_spectral(TtShape const &shape, std::vector<double> const &eigenvectors,
                             std::vector<double> const &eigenvalues, double exponent = 0.5);

/// \brief The table as a host matrix (row-major), num_rows x dim, or prod(n) x dim with
/// \p include_padding: a plain evaluation of the row formula of core/tt/tt_shape.hpp.
std::vector<double> materialize_host(TtShape const &shape, TtHostCores const &cores,
                                     bool include_padding = false);

/// \brief W^T W (dim x dim, row-major) over the num_rows real rows, or over all prod(n) rows
/// with \p include_padding, contracted core by core without forming W (the cost does not
/// grow with num_rows; the largest intermediate is (ranks[1]·d[1]·...·d[K-1])² doubles).
std::vector<double> tt_gram_host(TtShape const &shape, TtHostCores const &cores,
                                 bool include_padding = false);

} // namespace ttgnn

#endif
