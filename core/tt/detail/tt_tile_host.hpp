#ifndef TTGNN_CORE_TT_TILE_HOST_HPP
#define TTGNN_CORE_TT_TILE_HOST_HPP
/// \file tt_tile_host.hpp
/// \brief CPU micro-kernels of the prefix-tile lookup (internal; defined in tt_tile_host.cpp
/// for float and double, with an AVX2 + FMA version chosen at run time).
///
/// A row of the table is `P · G[i]` with P (D' x R) the product of the row's prefix and G[i]
/// (R x d) the slice of the last core; read as a flat vector of L = D'·d entries,
///   row[f] = sum_r Pexp[r][f] · Gx[i][r][f mod LQ],
/// where Pexp[r][a·d + j] = P[a][r] (P's column r, each entry repeated d times; built once per
/// prefix) and Gx[i][r][l] = G[i][r][l mod d] for l < LQ = lcm(d, W) (built once per call;
/// W = lanes of a vector register). Every product is then a lane-wise fused multiply-add over
/// full vectors, whatever d is (1, 4, 8, 16: LQ = W or 2W; 5: LQ = 5W); lanes past L are zero
/// in Pexp and are not stored. The backward needs no expansion: it broadcasts each gradient
/// entry against a vector of R entries of G^T (dP) or of P (the last core's gradient).

#include <cstdint>

namespace ttgnn::detail {

/// \brief Sizes of the last-core products of one call (see the file comment).
struct TtTileDims {
  int lead = 1;    ///< D' = d[0]···d[K-2]
  int rank = 1;    ///< R = ranks[K-1]
  int dl = 1;      ///< d = d[K-1]
  int width = 1;   ///< L = D'·d, the row length
  int lanes = 1;   ///< W, lanes of a vector of Scalars
  int period = 1;  ///< LQ = lcm(d, W), the lanes of one Gx row
  int padded = 1;  ///< Lq = L rounded up to a multiple of LQ
  int pexp_ld = 1; ///< row stride of Pexp: Lq + W (its last broadcast store may pass Lq)
};

/// Dimensions for Scalars of \p scalar_bytes bytes on this CPU (W from tile_vector_bytes).
TtTileDims tile_dims(int lead, int rank, int dl, int scalar_bytes);

/// Bytes of the vectors the micro-kernels use on this CPU: 32 with AVX2 + FMA, else 16.
int tile_vector_bytes();

/// \brief Forward of the rows of one prefix: out(rows[k], :) = P · G[digits[k]] for k < count.
/// \param p P, D' x R row-major. \param gx Gx, n x R x LQ. \param pexp work, R x pexp_ld.
/// \param ahead rows[k] and digits[k] are valid for k < ahead (>= count): the rows of the
/// prefixes that follow in the tile, whose memory is prefetched while this one computes.
template <class S>
void tile_forward_prefix(TtTileDims const &dims, S const *p, std::int64_t count,
                         std::uint32_t const *rows, std::uint32_t const *digits, S const *gx,
                         S *out, std::int64_t ld_out, S *pexp, std::int64_t ahead);

/// \brief Backward of the rows of one prefix given their gradients g_k = grad(rows[k], :), with
/// GT = the last core transposed (n x d x R, built once per call):
/// - dp (D' x R) = sum_k g_k · G[digits[k]]^T, overwritten: one product whose inner dimension
///   runs over the prefix's rows and the columns of each (for each entry, k outer, j inner);
/// - dgt[digits[k]] (d x R) += g_k^T · P for k in order (each term summed over a first).
/// Both read the rows' gradients from memory once; the second pass finds them in cache.
/// \p ahead as in tile_forward_prefix.
template <class S>
void tile_backward_prefix(TtTileDims const &dims, S const *p, std::int64_t count,
                          std::uint32_t const *rows, std::uint32_t const *digits, S const *grad,
                          std::int64_t ld_grad, S const *gt, S *dp, S *dgt, std::int64_t ahead);

} // namespace ttgnn::detail

#endif
