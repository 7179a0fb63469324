#ifndef TTGNN_CORE_TT_FORWARD_KERNELS_HPP
#define TTGNN_CORE_TT_FORWARD_KERNELS_HPP
/// \file tt_forward_kernels.hpp
/// \brief Functors of the TT forward lookup (internal; use tt_lookup.hpp).
///
/// An "item" is either a row (its key is the node id, the chain runs over all K cores) or a
/// prefix (its key is id / n[K-1], the chain runs over the first K-1 cores).

#include "core/tt/detail/tt_team_ops.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace ttgnn::detail {

/// \brief For each item (one team), the product L_e = G_0[i_0] · ... · G_{e-1}[i_{e-1}], a
/// (d[0]···d[e-1]) x ranks[e] row-major matrix, into out(item, :).
template <class Scalar, class ExecutionSpace> struct TtChainForward {
  using memory_space = typename ExecutionSpace::memory_space;
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  TtDeviceCores<const Scalar, memory_space> g;
  Kokkos::View<const std::int64_t *, memory_space> keys;
  Kokkos::View<Scalar **, Kokkos::LayoutRight, memory_space> out;
  int e = 0;
  int buffer = 0; ///< Scalars in each of the two scratch buffers
  int level = 0;

  /// Scratch buffer size: the largest intermediate product L_k, 1 < k < e.
  static int buffer_size(TtDeviceCores<const Scalar, memory_space> const &g, int e) {
    int size = 1;
    for (int k = 2; k < e; ++k)
      size = std::max(size, g.lead(k) * g.r[k]);
    return size;
  }

  KOKKOS_INLINE_FUNCTION void operator()(member_type const &team) const {
    const std::int64_t item = team.league_rank();
    std::int64_t dig[max_tt_cores];
    g.digits(keys(item), e, dig);
    Scalar *dst_row = &out(item, 0);
    Scalar const *cur = g.slice(0, dig[0]);
    int rows = g.d[0];
    if (e == 1) {
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, rows * g.r[1]),
                           [&](int i) { dst_row[i] = cur[i]; });
    } else {
      Scalar *buf[2] = {team_scratch<Scalar>(team, level, buffer),
                        team_scratch<Scalar>(team, level, buffer)};
      for (int k = 1; k < e; ++k) {
        const int cols = g.slice_cols(k);
        Scalar *dst = k == e - 1 ? dst_row : buf[k % 2];
        block_gemm<host_space_v<ExecutionSpace>>(team, rows, g.r[k], cols, cur, g.r[k], 1,
                                                 g.slice(k, dig[k]), cols, dst, cols, false);
        team.team_barrier();
        cur = dst;
        rows *= g.d[k];
      }
    }
  }
};

} // namespace ttgnn::detail

#endif
