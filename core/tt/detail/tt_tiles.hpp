#ifndef TTGNN_CORE_TT_TILES_HPP
#define TTGNN_CORE_TT_TILES_HPP
/// \file tt_tiles.hpp
/// \brief Prefix tiles of the TT lookup (internal; use tt_lookup.hpp).
///
/// After the rows of a batch are grouped by prefix (stable sort), the sorted rows are cut into
/// tiles of whole prefixes: a tile starts at every prefix whose first sorted row crosses a
/// multiple of tile_rows(n[K-1]) (so a tile holds about that many rows, more when one prefix
/// alone is longer). The tiles depend on the grouping only, never on the thread count. One
/// thread (CPU) or one team (device) runs a tile: the forward writes its rows P · G[i]; the
/// backward computes dP of each of its prefixes and adds the last core's gradient of its rows
/// into a tile-private copy; the copies are then summed in tile order. No atomics, one pass
/// over the gradient rows, and the same bits at every thread count.

#include "core/tt/detail/tt_team_ops.hpp"
#include "core/tt/detail/tt_tile_host.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace ttgnn::detail {

/// \brief x / d by a multiply and shifts for 0 <= x < 2^32 and 1 <= d < 2^32 (Lemire, Kaser and
/// Kurz, "Faster remainder by direct computation", 2019: M = floor((2^64 - 1) / d) + 1, then
/// x / d = high 64 bits of M·x), by a 64-bit division otherwise.
struct FastDiv {
  std::uint64_t m = 0; ///< 0: use the division
  std::int64_t d = 1;

  FastDiv() = default;
  explicit FastDiv(std::int64_t divisor) : d(divisor) {
    if (divisor > 1 && divisor <= std::int64_t(0xffffffff))
      m = ~std::uint64_t(0) / static_cast<std::uint64_t>(divisor) + 1;
  }
  KOKKOS_INLINE_FUNCTION std::int64_t div(std::int64_t x) const {
    if (m != 0 && x >= 0 && x <= std::int64_t(0xffffffff)) {
      // high 64 bits of m·x with x < 2^32, from two 32 x 32-bit products
      const std::uint64_t ux = static_cast<std::uint64_t>(x);
      const std::uint64_t lo = (m & 0xffffffffu) * ux, hi = (m >> 32) * ux;
      return static_cast<std::int64_t>((hi + (lo >> 32)) >> 32);
    }
    return d == 1 ? x : x / d;
  }
};

/// Sorted rows per tile (at least; a tile ends at a prefix boundary): a few thousand rows, and
/// at least 4 per slice of the last core, so that zeroing and summing a tile's private copy of
/// the last core's gradient stays small next to its rows.
inline std::int64_t tile_rows(std::int64_t n_last) {
  return n_last * 4 > 2048 ? n_last * 4 : 2048;
}

/// \brief The plan of a batch shared by the tile kernels (Views of the workspace).
template <class MemorySpace> struct TtTilePlan {
  Kokkos::View<const std::uint32_t *, MemorySpace> row;   ///< sorted position -> batch row
  Kokkos::View<const std::uint32_t *, MemorySpace> digit; ///< sorted position -> last digit
  Kokkos::View<const std::uint32_t *, MemorySpace> first; ///< prefix -> its first position
  Kokkos::View<const std::int64_t *, MemorySpace> tile;   ///< tile -> its first prefix
  std::int64_t num_tiles = 0;
};

/// \brief CPU forward, one thread per tile: for each prefix p of the tile,
/// tile_forward_prefix (P in cache, each row by an FMA micro-kernel, written once).
template <class Scalar, class ExecutionSpace> struct TtTileForwardHost {
  using memory_space = typename ExecutionSpace::memory_space;
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  TtTilePlan<memory_space> plan;
  TtTileDims dims;
  Kokkos::View<const Scalar **, Kokkos::LayoutRight, memory_space> prefix;
  Kokkos::View<const Scalar *, memory_space> gx;
  Kokkos::View<Scalar **, Kokkos::LayoutRight, memory_space> out;
  int level = 0;

  void operator()(member_type const &team) const {
    const std::int64_t t = team.league_rank();
    Scalar *pexp =
        team_scratch<Scalar>(team, level, std::size_t(dims.rank) * std::size_t(dims.pexp_ld));
    const std::uint32_t end = plan.first(plan.tile(t + 1));
    for (auto p = plan.tile(t); p < plan.tile(t + 1); ++p) {
      const std::uint32_t b = plan.first(p), e = plan.first(p + 1);
      tile_forward_prefix(dims, &prefix(p, 0), std::int64_t(e - b), &plan.row(b), &plan.digit(b),
                          gx.data(), out.data(), std::int64_t(out.stride(0)), pexp,
                          std::int64_t(end - b));
    }
  }
};

/// \brief CPU backward, one thread per tile: zeroes the tile's copy partial(t, :) of the last
/// core's gradient (n x d x R, transposed slices), then for each prefix p of the tile,
/// tile_backward_prefix: dprefix(p, :) = dP, partial(t, :) += the rows' slice gradients.
template <class Scalar, class ExecutionSpace> struct TtTileBackwardHost {
  using memory_space = typename ExecutionSpace::memory_space;
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  TtTilePlan<memory_space> plan;
  TtTileDims dims;
  Kokkos::View<const Scalar **, Kokkos::LayoutRight, memory_space> prefix, grad_rows;
  Kokkos::View<const Scalar *, memory_space> gt;
  Kokkos::View<Scalar **, Kokkos::LayoutRight, memory_space> dprefix;
  Kokkos::View<Scalar **, Kokkos::LayoutRight, memory_space, Kokkos::MemoryUnmanaged> partial;
  int level = 0;

  void operator()(member_type const &team) const {
    const std::int64_t t = team.league_rank();
    Scalar *dgt = &partial(t, 0);
    for (std::size_t i = 0; i < partial.extent(1); ++i)
      dgt[i] = Scalar(0);
    const std::uint32_t end = plan.first(plan.tile(t + 1));
    for (auto p = plan.tile(t); p < plan.tile(t + 1); ++p) {
      const std::uint32_t b = plan.first(p), e = plan.first(p + 1);
      tile_backward_prefix(dims, &prefix(p, 0), std::int64_t(e - b), &plan.row(b), &plan.digit(b),
                           grad_rows.data(), std::int64_t(grad_rows.stride(0)), gt.data(),
                           &dprefix(p, 0), dgt, std::int64_t(end - b));
    }
  }
};

/// \brief Device forward, one team per tile: per prefix, P (D' x R) into scratch, then the
/// team's threads take rows and their vector lanes the entries of a row (coalesced writes):
/// row[a·d + j] = sum_r P[a][r] · G[i][r][j], r increasing.
template <class Scalar, class ExecutionSpace> struct TtTileForwardTeam {
  using memory_space = typename ExecutionSpace::memory_space;
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  TtTilePlan<memory_space> plan;
  TtDeviceCores<const Scalar, memory_space> g;
  Kokkos::View<const Scalar **, Kokkos::LayoutRight, memory_space> prefix;
  Kokkos::View<Scalar **, Kokkos::LayoutRight, memory_space> out;
  int level = 0;

  KOKKOS_INLINE_FUNCTION void operator()(member_type const &team) const {
    const std::int64_t t = team.league_rank();
    const int last = g.num_cores - 1;
    const int lead = g.lead(last), rank = g.r[last], dl = g.d[last], width = lead * dl;
    Scalar *pp = team_scratch<Scalar>(team, level, std::size_t(lead) * rank);
    for (auto p = plan.tile(t); p < plan.tile(t + 1); ++p) {
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, lead * rank),
                           [&](int i) { pp[i] = prefix(p, i); });
      team.team_barrier();
      const std::uint32_t b = plan.first(p), e = plan.first(p + 1);
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, b, e), [&](std::uint32_t k) {
        Scalar const *gs = g.slice(last, plan.digit(k));
        Scalar *row = &out(plan.row(k), 0);
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, width), [&](int f) {
          const int a = f / dl, j = f - a * dl;
          Scalar acc = 0;
          for (int r = 0; r < rank; ++r)
            acc += pp[a * rank + r] * gs[r * dl + j];
          row[f] = acc;
        });
      });
    }
  }
};

/// \brief Device backward, one team per tile: per prefix, P into scratch; dP (D' x R) with one
/// lane per entry, summing over the prefix's rows (outer) and j (inner); then row by row the
/// slice gradient g^T · P (d x R, one lane per entry) into the tile's copy partial(t, :).
template <class Scalar, class ExecutionSpace> struct TtTileBackwardTeam {
  using memory_space = typename ExecutionSpace::memory_space;
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  TtTilePlan<memory_space> plan;
  TtDeviceCores<const Scalar, memory_space> g;
  Kokkos::View<const Scalar **, Kokkos::LayoutRight, memory_space> prefix, grad_rows;
  Kokkos::View<Scalar **, Kokkos::LayoutRight, memory_space> dprefix;
  Kokkos::View<Scalar **, Kokkos::LayoutRight, memory_space, Kokkos::MemoryUnmanaged> partial;
  int level = 0;

  KOKKOS_INLINE_FUNCTION void operator()(member_type const &team) const {
    const std::int64_t t = team.league_rank();
    const int last = g.num_cores - 1;
    const int lead = g.lead(last), rank = g.r[last], dl = g.d[last];
    Scalar *pp = team_scratch<Scalar>(team, level, std::size_t(lead) * rank);
    Scalar *dgt = &partial(t, 0);
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, int(partial.extent(1))),
                         [&](int i) { dgt[i] = Scalar(0); });
    for (auto p = plan.tile(t); p < plan.tile(t + 1); ++p) {
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, lead * rank),
                           [&](int i) { pp[i] = prefix(p, i); });
      team.team_barrier();
      const std::uint32_t b = plan.first(p), e = plan.first(p + 1);
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, lead * rank), [&](int x) {
        const int a = x / rank, r = x - a * rank;
        Scalar acc = 0;
        for (auto k = b; k < e; ++k) {
          Scalar const *gr = &grad_rows(plan.row(k), a * dl);
          Scalar const *gs = g.slice(last, plan.digit(k)) + r * dl;
          for (int j = 0; j < dl; ++j)
            acc += gr[j] * gs[j];
        }
        dprefix(p, x) = acc;
      });
      for (auto k = b; k < e; ++k) {
        team.team_barrier();
        Scalar const *gr = &grad_rows(plan.row(k), 0);
        Scalar *dst = dgt + std::int64_t(plan.digit(k)) * dl * rank;
        Kokkos::parallel_for(Kokkos::TeamVectorRange(team, dl * rank), [&](int x) {
          const int j = x / rank, r = x - j * rank;
          Scalar acc = 0;
          for (int a = 0; a < lead; ++a)
            acc += gr[a * dl + j] * pp[a * rank + r];
          dst[x] += acc;
        });
      }
    }
  }
};

} // namespace ttgnn::detail

#endif
