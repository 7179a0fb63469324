/// \file tt_tile_host.cpp
/// \brief The CPU micro-kernels of the prefix-tile lookup (core/tt/detail/tt_tile_host.hpp):
/// tt_tile_host_kernels.inc compiled twice, for AVX2 + FMA (chosen at run time: the library
/// is built for baseline x86-64) and for 16-byte vectors without FMA.
#include "core/tt/detail/tt_tile_host.hpp"

#include <cmath>
#include <cstdint>
#include <numeric>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__CUDACC__) && !defined(__AVX2__)
#define TTGNN_TILE_AVX2_DISPATCH 1
#include <immintrin.h>
#endif

#if !defined(__GNUC__)
#error "tt_tile_host.cpp needs GCC or Clang vector extensions"
#endif

// Full unrolling of the register-blocked loops (their trip counts are template constants; GCC
// at -O2 and nvcc's host pass would otherwise keep the accumulators in memory or warn).
#define TTGNN_TILE_PRAGMA(x) _Pragma(#x)
#if defined(__CUDACC__)
#define TTGNN_TILE_UNROLL(n)
#else
#define TTGNN_TILE_UNROLL(n) TTGNN_TILE_PRAGMA(GCC unroll n)
#endif

namespace ttgnn::detail {

#if defined(TTGNN_TILE_AVX2_DISPATCH)
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
#endif
namespace avx2 {
constexpr int vector_bytes = 32;
__attribute__((always_inline)) inline __m256 fma_op(__m256 a, __m256 b, __m256 c) {
  return _mm256_fmadd_ps(a, b, c);
}
__attribute__((always_inline)) inline __m256d fma_op(__m256d a, __m256d b, __m256d c) {
  return _mm256_fmadd_pd(a, b, c);
}
template <class S> __attribute__((always_inline)) inline S scalar_fma(S a, S b, S c) {
  return std::fma(a, b, c);
}
// Pexp (tt_tile_host_kernels.inc's build_pexp) for d = 4 floats and R a multiple of 8, the
// presets' last width: from 8 entries of two rows a, a + 1 of P, the 8 vectors
// [P[a][r] x 4, P[a+1][r] x 4] by two cross-lane and eight in-lane shuffles. Lanes past L (odd
// D') come out zero.
inline bool build_pexp_special(TtTileDims const &dims, float const *p, float *pexp) {
  if (dims.dl != 4 || dims.rank % 8 != 0 || dims.lanes != 8)
    return false;
  const int rank = dims.rank, lead = dims.lead, ld = dims.pexp_ld;
  for (int a = 0; a < lead; a += 2)
    for (int r0 = 0; r0 < rank; r0 += 8) {
      const __m256 x = _mm256_loadu_ps(p + a * rank + r0);
      const __m256 y =
          a + 1 < lead ? _mm256_loadu_ps(p + (a + 1) * rank + r0) : _mm256_setzero_ps();
      const __m256 lo = _mm256_permute2f128_ps(x, y, 0x20), hi = _mm256_permute2f128_ps(x, y, 0x31);
      float *dst = pexp + std::int64_t(r0) * ld + a * 4;
      _mm256_storeu_ps(dst, _mm256_permute_ps(lo, 0x00));
      _mm256_storeu_ps(dst + ld, _mm256_permute_ps(lo, 0x55));
      _mm256_storeu_ps(dst + 2 * ld, _mm256_permute_ps(lo, 0xaa));
      _mm256_storeu_ps(dst + 3 * ld, _mm256_permute_ps(lo, 0xff));
      _mm256_storeu_ps(dst + 4 * ld, _mm256_permute_ps(hi, 0x00));
      _mm256_storeu_ps(dst + 5 * ld, _mm256_permute_ps(hi, 0x55));
      _mm256_storeu_ps(dst + 6 * ld, _mm256_permute_ps(hi, 0xaa));
      _mm256_storeu_ps(dst + 7 * ld, _mm256_permute_ps(hi, 0xff));
    }
  return true;
}
template <class S> inline bool build_pexp_special(TtTileDims const &, S const *, S *) {
  return false;
}
#include "core/tt/detail/tt_tile_host_kernels.inc"
} // namespace avx2
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC diagnostic pop
#pragma GCC pop_options
#endif
#endif

namespace base {
constexpr int vector_bytes = 16;
template <class V> __attribute__((always_inline)) inline V fma_op(V a, V b, V c) {
  return a * b + c;
}
template <class S> __attribute__((always_inline)) inline S scalar_fma(S a, S b, S c) {
  return a * b + c;
}
template <class S> inline bool build_pexp_special(TtTileDims const &, S const *, S *) {
  return false;
}
#include "core/tt/detail/tt_tile_host_kernels.inc"
} // namespace base

namespace {
bool use_avx2() {
#if defined(TTGNN_TILE_AVX2_DISPATCH)
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
#else
  return false;
#endif
}
} // namespace

int tile_vector_bytes() {
  return use_avx2() ? 32 : 16;
}

TtTileDims tile_dims(int lead, int rank, int dl, int scalar_bytes) {
  TtTileDims d;
  d.lead = lead;
  d.rank = rank;
  d.dl = dl;
  d.width = lead * dl;
  d.lanes = tile_vector_bytes() / scalar_bytes;
  d.period = std::lcm(dl, d.lanes);
  d.padded = (d.width + d.period - 1) / d.period * d.period;
  d.pexp_ld = d.padded + d.lanes;
  return d;
}

template <class S>
void tile_forward_prefix(TtTileDims const &dims, S const *p, std::int64_t count,
                         std::uint32_t const *rows, std::uint32_t const *digits, S const *gx,
                         S *out, std::int64_t ld_out, S *pexp, std::int64_t ahead) {
#if defined(TTGNN_TILE_AVX2_DISPATCH)
  if (use_avx2())
    return avx2::forward_prefix(dims, p, count, rows, digits, gx, out, ld_out, pexp, ahead);
#endif
  base::forward_prefix(dims, p, count, rows, digits, gx, out, ld_out, pexp, ahead);
}

template <class S>
void tile_backward_prefix(TtTileDims const &dims, S const *p, std::int64_t count,
                          std::uint32_t const *rows, std::uint32_t const *digits, S const *grad,
                          std::int64_t ld_grad, S const *gt, S *dp, S *dgt, std::int64_t ahead) {
#if defined(TTGNN_TILE_AVX2_DISPATCH)
  if (use_avx2())
    return avx2::backward_prefix(dims, p, count, rows, digits, grad, ld_grad, gt, dp, dgt, ahead);
#endif
  base::backward_prefix(dims, p, count, rows, digits, grad, ld_grad, gt, dp, dgt, ahead);
}

#define TTGNN_TILE_INSTANTIATE(S)                                                                  \
  template void tile_forward_prefix<S>(TtTileDims const &, S const *, std::int64_t,                \
                                       std::uint32_t const *, std::uint32_t const *, S const *,    \
                                       S *, std::int64_t, S *, std::int64_t);                      \
  template void tile_backward_prefix<S>(TtTileDims const &, S const *, std::int64_t,               \
                                        std::uint32_t const *, std::uint32_t const *, S const *,   \
                                        std::int64_t, S const *, S *, S *, std::int64_t);
TTGNN_TILE_INSTANTIATE(float)
TTGNN_TILE_INSTANTIATE(double)
#undef TTGNN_TILE_INSTANTIATE

} // namespace ttgnn::detail

#undef TTGNN_TILE_UNROLL
#undef TTGNN_TILE_PRAGMA
