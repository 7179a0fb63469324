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
