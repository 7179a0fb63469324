#ifndef TTGNN_CORE_TT_TEAM_OPS_HPP
#define TTGNN_CORE_TT_TEAM_OPS_HPP
/// \file tt_team_ops.hpp
/// \brief Building blocks of the TT kernels: a device copy of the core Views with their
/// dimensions, small team-level matrix products on row-major pointers, and the team policy.
///
/// Every product writes each output entry from one vector lane, summing in a fixed order, so
/// results do not depend on the team size or the number of threads.

#include "core/tt/mixed_radix.hpp"
#include "core/tt/tt_cores.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

namespace ttgnn::detail {

/// \brief Cores and dimensions of a TT table, copyable into kernels. \p Scalar may be const.
template <class Scalar, class MemorySpace> struct TtDeviceCores {
  using core_view = Kokkos::View<Scalar ***, Kokkos::LayoutRight, MemorySpace>;
  int num_cores = 0;
  std::int64_t n[max_tt_cores] = {};
  int d[max_tt_cores] = {};
  int r[max_tt_cores + 1] = {};
  core_view core[max_tt_cores];

  TtDeviceCores() = default;
  template <class S> explicit TtDeviceCores(TtCores<S, MemorySpace> const &cores) {
    auto const &s = cores.shape();
    num_cores = s.num_cores();
    for (int k = 0; k < num_cores; ++k) {
      n[k] = s.n[k];
      d[k] = static_cast<int>(s.d[k]);
      r[k] = static_cast<int>(s.ranks[k]);
      core[k] = cores.core(k);
    }
    r[num_cores] = 1;
  }
  /// Slice G_k[i]: a ranks[k] x (d[k]·ranks[k+1]) row-major matrix.
  KOKKOS_INLINE_FUNCTION Scalar *slice(int k, std::int64_t i) const {
    return core[k].data() + i * core[k].extent(1) * core[k].extent(2);
  }
  KOKKOS_INLINE_FUNCTION int slice_cols(int k) const { return d[k] * r[k + 1]; }
  /// Product of d[0..k-1].
  KOKKOS_INLINE_FUNCTION int lead(int k) const {
    int p = 1;
    for (int j = 0; j < k; ++j)
      p *= d[j];
    return p;
  }
  /// Digits of \p key over the first \p e row factors, most significant first.
  KOKKOS_INLINE_FUNCTION void digits(std::int64_t key, int e, std::int64_t *out) const {
    mixed_radix_digits(key, e, n, out);
  }
};

/// \brief C (m x q, ldc) = [C +] A · B, with A(i, a) = a_ptr[i·a_rs + a·a_cs] (so A may be a
/// transposed view) and B (p x q, ldb) row-major. Vectorised over the columns of C.
template <class Team, class S, class SA, class SB>
KOKKOS_INLINE_FUNCTION void team_gemm(Team const &team, int m, int p, int q, SA const *a_ptr,
                                      int a_rs, int a_cs, SB const *b, int ldb, S *c, int ldc,
                                      bool accumulate) {
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, m), [&](int i) {
    S *ci = c + i * ldc;
    if (!accumulate)
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, q), [&](int j) { ci[j] = S(0); });
    for (int x = 0; x < p; ++x) {
      const S s = a_ptr[i * a_rs + x * a_cs];
      SB const *bx = b + x * ldb;
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, q), [&](int j) { ci[j] += s * bx[j]; });
    }
  });
}

#if defined(__GNUC__) && !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__) &&            \
    !defined(__SYCL_DEVICE_ONLY__)
#define TTGNN_VECTOR_EXTENSIONS 1
#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi" // 32-byte vectors in inline helpers of AVX2 code
#endif
/// GCC/Clang vector of Bytes bytes of S.
template <class S, int Bytes> struct HostVec {
  typedef S type __attribute__((vector_size(Bytes)));
  static constexpr int width = Bytes / sizeof(S);
  __attribute__((always_inline)) static inline type load(S const *p) {
    type v;
    __builtin_memcpy(&v, p, sizeof(v));
    return v;
  }
  __attribute__((always_inline)) static inline void store(S *p, type v) {
    __builtin_memcpy(p, &v, sizeof(v));
  }
};

/// serial_gemm's vector part: rows [i0, i1) of C (a multiple of MR rows), columns [j0, ...)
/// in blocks of MR rows x NV vectors of Bytes bytes kept in registers. Returns the first
/// column not done (< W = NV vectors' columns left).
template <int Bytes, int MR, int NV, class S, class SA, class SB>
__attribute__((always_inline)) inline int
serial_gemm_vec(int j0, int i0, int i1, int p, int q, SA const *a_ptr, int a_rs, int a_cs,
                SB const *b, int ldb, S *c, int ldc, bool accumulate) {
  using H = HostVec<S, Bytes>;
  using V = typename H::type;
  constexpr int W = NV * H::width;
  for (; j0 + W <= q; j0 += W) {
    for (int i = i0; i + MR <= i1; i += MR) {
      V acc[MR][NV];
      for (int r = 0; r < MR; ++r)
        for (int v = 0; v < NV; ++v)
          acc[r][v] = accumulate ? H::load(c + (i + r) * ldc + j0 + v * H::width) : V{};
      SA const *a0 = a_ptr + i * a_rs;
      for (int x = 0; x < p; ++x) {
        V bv[NV];
        for (int v = 0; v < NV; ++v)
          bv[v] = H::load(b + x * ldb + j0 + v * H::width);
        for (int r = 0; r < MR; ++r) {
          const S ar = a0[r * a_rs + x * a_cs];
          for (int v = 0; v < NV; ++v)
            acc[r][v] += bv[v] * ar;
        }
      }
      for (int r = 0; r < MR; ++r)
        for (int v = 0; v < NV; ++v)
          H::store(c + (i + r) * ldc + j0 + v * H::width, acc[r][v]);
    }
  }
  return j0;
}

/// Rows in blocks of 4 with 2 vectors, then 1; the last m % 4 rows one at a time with 8, 4, 2,
/// then 1 vectors (enough independent sums to keep the FMA pipes busy: a lone row with 2
/// vectors would wait on its own additions). Every entry is still summed over x in order.
template <int Bytes, class S, class SA, class SB>
__attribute__((always_inline)) inline int
serial_gemm_blocks(int m, int p, int q, SA const *a_ptr, int a_rs, int a_cs, SB const *b, int ldb,
                   S *c, int ldc, bool accumulate) {
  const int m4 = m / 4 * 4;
  int j = 0;
  if (m4 > 0) {
    j = serial_gemm_vec<Bytes, 4, 2>(0, 0, m4, p, q, a_ptr, a_rs, a_cs, b, ldb, c, ldc, accumulate);
    j = serial_gemm_vec<Bytes, 4, 1>(j, 0, m4, p, q, a_ptr, a_rs, a_cs, b, ldb, c, ldc, accumulate);
  }
  if (m4 < m) {
    int jr =
        serial_gemm_vec<Bytes, 1, 8>(0, m4, m, p, q, a_ptr, a_rs, a_cs, b, ldb, c, ldc, accumulate);
    jr = serial_gemm_vec<Bytes, 1, 4>(jr, m4, m, p, q, a_ptr, a_rs, a_cs, b, ldb, c, ldc,
                                      accumulate);
    jr = serial_gemm_vec<Bytes, 1, 2>(jr, m4, m, p, q, a_ptr, a_rs, a_cs, b, ldb, c, ldc,
                                      accumulate);
    jr = serial_gemm_vec<Bytes, 1, 1>(jr, m4, m, p, q, a_ptr, a_rs, a_cs, b, ldb, c, ldc,
                                      accumulate);
    j = jr; // both stop at the last full vector
  }
  return j;
}

/// serial_gemm for C exactly 16 bytes wide (4 floats, 2 doubles): 8 rows at a time, one
/// 16-byte vector register each.
template <class S, class SA, class SB>
inline void serial_gemm_narrow(int m, int p, SA const *a_ptr, int a_rs, int a_cs, SB const *b,
                               int ldb, S *c, int ldc, bool accumulate) {
  using H = HostVec<S, 16>;
  using V = typename H::type;
  constexpr int MR = 8;
  int i = 0;
  for (; i + MR <= m; i += MR) {
    V acc[MR];
    for (int r = 0; r < MR; ++r)
      acc[r] = accumulate ? H::load(c + (i + r) * ldc) : V{};
    for (int x = 0; x < p; ++x) {
      const V bv = H::load(b + x * ldb);
      for (int r = 0; r < MR; ++r)
        acc[r] += bv * S(a_ptr[(i + r) * a_rs + x * a_cs]);
    }
    for (int r = 0; r < MR; ++r)
      H::store(c + (i + r) * ldc, acc[r]);
  }
  for (; i < m; ++i) {
    V acc = accumulate ? H::load(c + i * ldc) : V{};
    for (int x = 0; x < p; ++x)
      acc += H::load(b + x * ldb) * S(a_ptr[i * a_rs + x * a_cs]);
    H::store(c + i * ldc, acc);
  }
}

#if defined(__x86_64__) && !defined(__AVX2__)
#define TTGNN_AVX2_DISPATCH 1
/// serial_gemm_vec compiled for AVX2 + FMA (chosen at run time when the CPU has them).
template <class S, class SA, class SB>
__attribute__((target("avx2,fma"))) int serial_gemm_avx2(int m, int p, int q, SA const *a_ptr,
                                                         int a_rs, int a_cs, SB const *b, int ldb,
                                                         S *c, int ldc, bool accumulate) {
  return serial_gemm_blocks<32>(m, p, q, a_ptr, a_rs, a_cs, b, ldb, c, ldc, accumulate);
}
/// Whether this CPU runs AVX2 and FMA instructions.
inline bool cpu_has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}
#endif
#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif

/// \brief The same product as team_gemm computed by one thread, register-blocked for CPUs:
/// 4 rows x 64 (then 32) bytes of C stay in registers while the sum runs over p (AVX2 when the
/// CPU has it, else SSE). Each entry is summed over x in increasing order, as in team_gemm.
template <class S, class SA, class SB>
KOKKOS_INLINE_FUNCTION void serial_gemm(int m, int p, int q, SA const *a_ptr, int a_rs, int a_cs,
                                        SB const *b, int ldb, S *c, int ldc, bool accumulate) {
  int j0 = 0;
#if defined(TTGNN_VECTOR_EXTENSIONS)
  if (q * sizeof(S) == 16) {
    serial_gemm_narrow(m, p, a_ptr, a_rs, a_cs, b, ldb, c, ldc, accumulate);
    return;
  }
#endif
#if defined(TTGNN_AVX2_DISPATCH)
  if (cpu_has_avx2())
    j0 = serial_gemm_avx2(m, p, q, a_ptr, a_rs, a_cs, b, ldb, c, ldc, accumulate);
  else
    j0 = serial_gemm_blocks<16>(m, p, q, a_ptr, a_rs, a_cs, b, ldb, c, ldc, accumulate);
#elif defined(TTGNN_VECTOR_EXTENSIONS)
  j0 = serial_gemm_blocks<32>(m, p, q, a_ptr, a_rs, a_cs, b, ldb, c, ldc, accumulate);
#endif
  if (j0 < q)
    for (int i = 0; i < m; ++i)
      for (int j = j0; j < q; ++j) {
        S acc = accumulate ? c[i * ldc + j] : S(0);
        for (int x = 0; x < p; ++x)
          acc += a_ptr[i * a_rs + x * a_cs] * b[x * ldb + j];
        c[i * ldc + j] = acc;
      }
}

/// \brief team_gemm, or serial_gemm when \p Host (teams of one thread without vector lanes).
template <bool Host, class Team, class S, class SA, class SB>
KOKKOS_INLINE_FUNCTION void block_gemm(Team const &team, int m, int p, int q, SA const *a_ptr,
                                       int a_rs, int a_cs, SB const *b, int ldb, S *c, int ldc,
                                       bool accumulate) {
  if constexpr (Host)
    serial_gemm(m, p, q, a_ptr, a_rs, a_cs, b, ldb, c, ldc, accumulate);
  else
    team_gemm(team, m, p, q, a_ptr, a_rs, a_cs, b, ldb, c, ldc, accumulate);
}

/// Whether kernels of \p ExecutionSpace run on the host (teams of one thread, see
/// make_team_policy).
template <class ExecutionSpace>
inline constexpr bool host_space_v =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                               typename ExecutionSpace::memory_space>::accessible;

/// \brief dst[i] (+)= src[i] for i < size; atomically when \p atomic. Spread over the team's
/// threads and vector lanes (a TeamThreadRange alone would run each i on every lane: 16
/// atomic adds of the same value on a GPU).
template <class Team, class S>
KOKKOS_INLINE_FUNCTION void team_add(Team const &team, int size, S const *src, S *dst,
                                     bool atomic) {
  Kokkos::parallel_for(Kokkos::TeamVectorRange(team, size), [&](int i) {
    if (atomic)
      Kokkos::atomic_add(&dst[i], src[i]);
    else
      dst[i] += src[i];
  });
}

/// Vector lanes of a device team whose products have about \p q columns: the power of two at
/// or above q, from 1 to 32 (a warp), so that narrow products (q = d = 4) leave no lanes idle
/// and the team gets more threads instead (Kokkos::AUTO team size).
inline int team_vector_length(int q) {
  int v = 1;
  while (v < q && v < 32)
    v *= 2;
  return v;
}

/// Scratch level for \p bytes of team scratch: level 0 (on-chip on a GPU) up to what the space
/// offers there (TeamPolicy::scratch_size_max(0): 32 KiB on host spaces, the shared memory of a
/// block less Kokkos' reserve on Cuda), level 1 (global memory) above.
template <class ExecutionSpace> int scratch_level(std::size_t bytes) {
  const auto max0 = Kokkos::TeamPolicy<ExecutionSpace>::scratch_size_max(0);
  return bytes <= static_cast<std::size_t>(max0) ? 0 : 1;
}

/// \brief A team policy over \p league teams with \p scratch_bytes of team scratch at
/// scratch_level. One thread per team and no vector lanes on host spaces; on a device,
/// team_vector_length(q) lanes and an automatic team size.
template <class ExecutionSpace, class Tag = void>
auto make_team_policy(ExecutionSpace const &space, std::int64_t league, std::size_t scratch_bytes,
                      int q = 16) {
  // Dynamic: teams differ in work (groups of different sizes), and on shared cores a thread
  // that is descheduled does not hold up the others.
  using schedule = Kokkos::Schedule<Kokkos::Dynamic>;
  using policy =
      std::conditional_t<std::is_void_v<Tag>, Kokkos::TeamPolicy<ExecutionSpace, schedule>,
                         Kokkos::TeamPolicy<ExecutionSpace, schedule, Tag>>;
  constexpr bool host =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                 typename ExecutionSpace::memory_space>::accessible;
  policy p = host ? policy(space, league, 1, 1)
                  : policy(space, league, Kokkos::AUTO, team_vector_length(q));
  return p.set_scratch_size(scratch_level<ExecutionSpace>(scratch_bytes),
                            Kokkos::PerTeam(scratch_bytes));
}

/// \brief \p count Scalars of team scratch (pointer into the team's scratch space).
template <class Scalar, class Team>
KOKKOS_INLINE_FUNCTION Scalar *team_scratch(Team const &team, int level, std::size_t count) {
  using scratch_view = Kokkos::View<Scalar *, typename Team::scratch_memory_space,
                                    Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  return scratch_view(team.team_scratch(level), count).data();
}

/// Bytes of team scratch for \p count Scalars (with alignment slack).
template <class Scalar, class ExecutionSpace> std::size_t scratch_bytes(std::size_t count) {
  using scratch_view = Kokkos::View<Scalar *, typename ExecutionSpace::scratch_memory_space,
                                    Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  return scratch_view::shmem_size(count);
}

} // namespace ttgnn::detail

#endif
