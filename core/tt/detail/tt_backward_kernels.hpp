#ifndef TTGNN_CORE_TT_BACKWARD_KERNELS_HPP
#define TTGNN_CORE_TT_BACKWARD_KERNELS_HPP
/// \file tt_backward_kernels.hpp
/// \brief Functors of the TT backward pass (internal; use tt_lookup.hpp).
///
/// Notation: an item's chain runs over cores 0..e-1; L_k (D_k x R_k, D_k = d[0]···d[k-1]) is
/// the product of its first k slices (L_0 = [1]); U (D_e x R_e) is the gradient of the loss
/// with respect to L_e. Walking back, M_k (D_k x d[k]·R_{k+1}) is the gradient with respect to
/// L_k · G_k (M_{e-1} = U reshaped, M_{k-1} = M_k · G_k^T reshaped), and the slice gradient is
/// dG_k[i_k] += L_k^T · M_k.

#include "core/tt/detail/tt_segments.hpp"
#include "core/tt/detail/tt_team_ops.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>

namespace ttgnn::detail {

/// Largest slice (R_k x d_k·R_{k+1}) and largest L_k (1 <= k <= e) of a chain, in Scalars.
/// Called on the host (scratch sizes) and inside the kernels.
template <class Cores>
KOKKOS_INLINE_FUNCTION void chain_sizes(Cores const &g, int e, int &max_slice, int &max_lead) {
  max_slice = 1;
  max_lead = 1;
  for (int k = 0; k < e; ++k)
    max_slice = Kokkos::max(max_slice, g.r[k] * g.slice_cols(k));
  for (int k = 1; k <= e; ++k)
    max_lead = Kokkos::max(max_lead, g.lead(k) * g.r[k]);
}

/// \brief gt.core[k] (n_k x d_k·r_{k+1} x r_k) = the slices of core k transposed, for
/// 1 <= k < e, in \p storage (grown only); the chain backward multiplies by G_k^T from them
/// instead of transposing a slice per item.
template <class ExecutionSpace, class Scalar>
TtDeviceCores<const Scalar, typename ExecutionSpace::memory_space>
transpose_cores(ExecutionSpace const &space,
                TtDeviceCores<const Scalar, typename ExecutionSpace::memory_space> const &g, int e,
                Kokkos::View<Scalar *, typename ExecutionSpace::memory_space> &storage) {
  using memory_space = typename ExecutionSpace::memory_space;
  std::int64_t offset[max_tt_cores + 1] = {};
  for (int k = 0; k < max_tt_cores; ++k)
    offset[k + 1] =
        offset[k] + (k >= 1 && k < e ? g.n[k] * g.r[k] * std::int64_t(g.slice_cols(k)) : 0);
  const std::int64_t total = offset[max_tt_cores];
  if (static_cast<std::int64_t>(storage.extent(0)) < std::max<std::int64_t>(total, 1))
    storage = Kokkos::View<Scalar *, memory_space>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::tt_lookup::cores_transposed"),
        std::max<std::int64_t>(total, 1));
  TtDeviceCores<const Scalar, memory_space> gt = g;
  for (int k = 1; k < e; ++k)
    gt.core[k] = typename TtDeviceCores<const Scalar, memory_space>::core_view(
        storage.data() + offset[k], g.n[k], g.slice_cols(k), g.r[k]);
  const auto dst = storage;
  // CPU: one slice per iteration, read row by row (no divisions per entry; the slice, at most
  // r·d·r Scalars, stays in cache while its transpose is written). Device: one entry per thread.
  const bool by_slice = host_space_v<ExecutionSpace>;
  std::int64_t first[max_tt_cores + 1] = {}; // slices of cores 1..k-1 before core k
  for (int k = 0; k < max_tt_cores; ++k)
    first[k + 1] = first[k] + (k >= 1 && k < e ? g.n[k] : 0);
  const std::int64_t count = by_slice ? first[max_tt_cores] : total;
  Kokkos::parallel_for(
      "ttgnn::tt_lookup::transpose_cores", Kokkos::RangePolicy<ExecutionSpace>(space, 0, count),
      KOKKOS_LAMBDA(std::int64_t x) {
        if (by_slice) { // dst(offset[k] + (i, c, a)) = G_k[i](a, c) for the whole slice x
          int k = 1;
          while (x >= first[k + 1])
            ++k;
          const std::int64_t i = x - first[k];
          const int rows = g.r[k], cols = g.slice_cols(k);
          const Scalar *src = g.slice(k, i);
          Scalar *out = dst.data() + offset[k] + i * rows * cols;
          for (int a = 0; a < rows; ++a)
            for (int c = 0; c < cols; ++c)
              out[c * rows + a] = src[a * cols + c];
          return;
        }
        int k = 1; // dst(offset[k] + (i, c, a)) = G_k[i](a, c) for the entry x
        while (x >= offset[k + 1])
          ++k;
        const std::int64_t y = x - offset[k];
        const std::int64_t per = std::int64_t(g.r[k]) * g.slice_cols(k);
        const std::int64_t i = y / per;
        const int z = static_cast<int>(y - i * per), cols = g.slice_cols(k);
        const int c = z / g.r[k], a = z - c * g.r[k];
        dst(x) = g.slice(k, i)[a * cols + c];
      });
  return gt;
}

/// \brief Fast backward through a chain, one team per item: walks back from U(item, :) and
/// adds every slice gradient L_k^T · M_k into the gradient cores with atomics.
template <class Scalar, class ExecutionSpace> struct TtChainBackwardAtomic {
  using memory_space = typename ExecutionSpace::memory_space;
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  TtDeviceCores<const Scalar, memory_space> g;
  TtDeviceCores<const Scalar, memory_space> gt; ///< slices transposed (transpose_cores)
  TtDeviceCores<Scalar, memory_space> grads;
  Kokkos::View<const std::int64_t *, memory_space> keys;
  Kokkos::View<const Scalar **, Kokkos::LayoutRight, memory_space> upstream;
  int e = 0;
  int level = 0;

  /// Scratch Scalars per team: L_2..L_{e-1}, two M buffers, one slice product.
  static int buffer_size(TtDeviceCores<const Scalar, memory_space> const &g, int e) {
    int max_slice, max_lead, lefts = 0;
    chain_sizes(g, e, max_slice, max_lead);
    for (int k = 2; k < e; ++k)
      lefts += g.lead(k) * g.r[k];
    return lefts + 2 * max_lead + max_slice;
  }

  KOKKOS_INLINE_FUNCTION void operator()(member_type const &team) const {
    const std::int64_t item = team.league_rank();
    std::int64_t dig[max_tt_cores];
    g.digits(keys(item), e, dig);
    int max_slice, max_lead;
    chain_sizes(g, e, max_slice, max_lead);
    Scalar const *left[max_tt_cores] = {};
    left[1] = g.slice(0, dig[0]);
    for (int k = 2; k < e; ++k) {
      Scalar *l = team_scratch<Scalar>(team, level, g.lead(k) * g.r[k]);
      const int cols = g.slice_cols(k - 1);
      block_gemm<host_space_v<ExecutionSpace>>(team, g.lead(k - 1), g.r[k - 1], cols, left[k - 1],
                                               g.r[k - 1], 1, g.slice(k - 1, dig[k - 1]), cols, l,
                                               cols, false);
      team.team_barrier();
      left[k] = l;
    }
    Scalar *mbuf[2] = {team_scratch<Scalar>(team, level, max_lead),
                       team_scratch<Scalar>(team, level, max_lead)};
    Scalar *prod = team_scratch<Scalar>(team, level, max_slice);
    Scalar const *m = &upstream(item, 0);
    for (int k = e - 1; k >= 0; --k) {
      const int rows = g.lead(k), cols = g.slice_cols(k), rk = g.r[k];
      Scalar *dslice = grads.slice(k, dig[k]);
      if (k == 0) {
        team_add(team, cols, m, dslice, true);
        break;
      }
      block_gemm<host_space_v<ExecutionSpace>>(team, rk, rows, cols, left[k], 1, rk, m, cols, prod,
                                               cols, false);
      team.team_barrier();
      team_add(team, rk * cols, prod, dslice, true);
      Scalar *next = mbuf[k % 2];
      block_gemm<host_space_v<ExecutionSpace>>(team, rows, cols, rk, m, cols, 1,
                                               gt.slice(k, dig[k]), rk, next, rk, false);
      team.team_barrier();
      m = next;
    }
  }
};

/// \brief Deterministic backward through a chain: one team per segment (tt_segments.hpp) of a
/// (core k, distinct digit v) group of items sums L_k^T · M_k of its items in increasing item
/// order (recomputing L_k and M_k per item) into its row of \p partial; TtSegmentCombine adds
/// the rows to dG_k[v]. No atomics.
template <class Scalar, class ExecutionSpace> struct TtChainBackwardGrouped {
  using memory_space = typename ExecutionSpace::memory_space;
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  using index_view = Kokkos::View<const std::int64_t *, memory_space>;
  TtDeviceCores<const Scalar, memory_space> g;
  TtDeviceCores<const Scalar, memory_space> gt; ///< slices transposed (transpose_cores)
  TtSegments<memory_space> seg;
  Kokkos::View<Scalar **, Kokkos::LayoutRight, memory_space, Kokkos::MemoryUnmanaged> partial;
  index_view keys;
  Kokkos::View<const Scalar **, Kokkos::LayoutRight, memory_space> upstream;
  index_view order[max_tt_cores];
  int e = 0;
  int level = 0;

  /// Scratch Scalars per team: the sum, two L buffers, two M buffers.
  static int buffer_size(TtDeviceCores<const Scalar, memory_space> const &g, int e) {
    int max_slice, max_lead;
    chain_sizes(g, e, max_slice, max_lead);
    return max_slice + 4 * max_lead;
  }

  KOKKOS_INLINE_FUNCTION void operator()(member_type const &team) const {
    const std::int64_t t = team.league_rank();
    const int k = seg.core_of(seg.first_row, t);
    std::int64_t group, begin, end;
    seg.range(k, t - seg.first_row[k], group, begin, end);
    int max_slice, max_lead;
    chain_sizes(g, e, max_slice, max_lead);
    Scalar *sum = team_scratch<Scalar>(team, level, max_slice);
    Scalar *lbuf[2] = {team_scratch<Scalar>(team, level, max_lead),
                       team_scratch<Scalar>(team, level, max_lead)};
    Scalar *mbuf[2] = {team_scratch<Scalar>(team, level, max_lead),
                       team_scratch<Scalar>(team, level, max_lead)};
    const int rows = g.lead(k), cols = g.slice_cols(k), rk = g.r[k];
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, rk * cols), [&](int i) { sum[i] = 0; });
    std::int64_t dig[max_tt_cores];
    for (auto idx = begin; idx < end; ++idx) {
      const auto item = order[k](idx);
      g.digits(keys(item), e, dig);
      team.team_barrier();
      // L_k by the forward chain over cores 0..k-1.
      Scalar const *left = k >= 1 ? g.slice(0, dig[0]) : nullptr;
      for (int j = 1; j < k; ++j) {
        const int c = g.slice_cols(j);
        block_gemm<host_space_v<ExecutionSpace>>(team, g.lead(j), g.r[j], c, left, g.r[j], 1,
                                                 g.slice(j, dig[j]), c, lbuf[j % 2], c, false);
        team.team_barrier();
        left = lbuf[j % 2];
      }
      // M_k by walking back from U over cores e-1..k+1.
      Scalar const *m = &upstream(item, 0);
      for (int j = e - 1; j > k; --j) {
        const int c = g.slice_cols(j), rj = g.r[j];
        block_gemm<host_space_v<ExecutionSpace>>(team, g.lead(j), c, rj, m, c, 1,
                                                 gt.slice(j, dig[j]), rj, mbuf[j % 2], rj, false);
        team.team_barrier();
        m = mbuf[j % 2];
      }
      if (k == 0)
        team_add(team, cols, m, sum, false);
      else
        block_gemm<host_space_v<ExecutionSpace>>(team, rk, rows, cols, left, 1, rk, m, cols, sum,
                                                 cols, true);
    }
    team.team_barrier();
    Scalar *out = &partial(t, 0);
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, rk * cols), [&](int i) { out[i] = sum[i]; });
  }
};

} // namespace ttgnn::detail

#endif
