#ifndef TTGNN_CORE_TT_SEGMENTS_HPP
#define TTGNN_CORE_TT_SEGMENTS_HPP
/// \file tt_segments.hpp
/// \brief Fixed-length segments of the deterministic TT backward (internal).
///
/// A group of the sort-and-reduce backward (the items that share one slice) is cut into
/// segments of `length` items. One team sums each segment in item order into a row of a
/// partial-sum matrix; then each group adds its segments' rows into its slice gradient in
/// segment order: dG += p_0, dG += p_1, ... The segment length depends on the item count and
/// the slice size only, so the sums are bitwise the same on every space and thread count, and
/// a group of up to `length` items gives the bits of a serial sum. Long groups spread over
/// many teams: at 1M items and 100 distinct digits, thousands of teams instead of 100.

#include "core/linalg/range_ops.hpp"
#include "core/linalg/key_grouping.hpp"
#include "core/tt/detail/tt_team_ops.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>

namespace ttgnn::detail {

/// Shortest segment: below it a team's fixed costs outweigh its items.
inline constexpr std::int64_t min_segment_length = 32;
/// Partial sums of one grouping are kept to about this many Scalars (16 MiB in float), and
/// to at most max_segments segments beyond one per group.
inline constexpr std::int64_t segment_scalars = std::int64_t(1) << 22;
inline constexpr std::int64_t max_segments = 8192;

/// Items per segment for \p items items whose slice has \p slice_size Scalars.
inline std::int64_t segment_length(std::int64_t items, std::int64_t slice_size) {
  const std::int64_t target = std::clamp<std::int64_t>(
      segment_scalars / std::max<std::int64_t>(slice_size, 1), 256, max_segments);
  return std::max(min_segment_length, (items + target - 1) / target);
}

/// \brief The segments of the groupings of one backward call, one grouping per core k. The
/// segments of core k are rows [first_row[k], first_row[k+1]) of the partial-sum matrix; its
/// groups are [first_group[k], first_group[k+1]) in the combine step.
template <class MemorySpace> struct TtSegments {
  using index_view = Kokkos::View<const std::int64_t *, MemorySpace>;
  index_view first[max_tt_cores]; ///< first segment of each group (num_groups + 1 entries)
  index_view offsets[max_tt_cores], group_keys[max_tt_cores];
  std::int64_t length[max_tt_cores] = {};
  int slice_size[max_tt_cores] = {};
  std::int64_t first_row[max_tt_cores + 1] = {};
  std::int64_t first_group[max_tt_cores + 1] = {};

  /// The core k with starts[k] <= t < starts[k + 1] (starts: first_row or first_group).
  KOKKOS_INLINE_FUNCTION static int core_of(std::int64_t const *starts, std::int64_t t) {
    int k = 0;
    while (t >= starts[k + 1])
      ++k;
    return k;
  }

  /// Group and item range [begin, end) of segment \p s of core \p k.
  KOKKOS_INLINE_FUNCTION void range(int k, std::int64_t s, std::int64_t &group, std::int64_t &begin,
                                    std::int64_t &end) const {
    std::int64_t lo = 0, hi = first_group[k + 1] - first_group[k]; // first[k](hi) > s
    while (hi - lo > 1) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (first[k](mid) <= s)
        lo = mid;
      else
        hi = mid;
    }
    group = lo;
    begin = offsets[k](lo) + (s - first[k](lo)) * length[k];
    end = Kokkos::min(begin + length[k], offsets[k](lo + 1));
  }
};

/// Adds core \p k's grouping to \p seg: its segment table goes to \p storage (grown only).
/// Cores must be added in increasing order; cores not added hold no rows and no groups.
template <class ExecutionSpace>
void add_segments(ExecutionSpace const &space, KeyGrouping<ExecutionSpace> const &grouping, int k,
                  int slice_size,
                  Kokkos::View<std::int64_t *, typename ExecutionSpace::memory_space> &storage,
                  TtSegments<typename ExecutionSpace::memory_space> &seg) {
  const std::int64_t groups = grouping.num_groups;
  if (static_cast<std::int64_t>(storage.extent(0)) < groups + 1)
    storage = Kokkos::View<std::int64_t *, typename ExecutionSpace::memory_space>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::tt_lookup::segment_first"),
        groups + 1);
  const std::int64_t length = segment_length(grouping.num_items, slice_size);
  const auto offsets = grouping.offsets;
  const auto first = storage;
  const std::int64_t rows = scan_range(
      space, "ttgnn::tt_lookup::segments", 0, groups + 1,
      KOKKOS_LAMBDA(std::int64_t g, std::int64_t & update, bool final) {
        if (final)
          first(g) = update;
        if (g < groups)
          update += (offsets(g + 1) - offsets(g) + length - 1) / length;
      });
  seg.first[k] = storage;
  seg.offsets[k] = offsets;
  seg.group_keys[k] = grouping.keys;
  seg.length[k] = length;
  seg.slice_size[k] = slice_size;
  for (int j = k + 1; j <= max_tt_cores; ++j) {
    seg.first_row[j] = seg.first_row[k] + rows;
    seg.first_group[j] = seg.first_group[k] + groups;
  }
}

/// \brief One team per group: dG_k[key] += p_s for the group's segments s in order.
template <class Scalar, class ExecutionSpace> struct TtSegmentCombine {
  using memory_space = typename ExecutionSpace::memory_space;
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  TtDeviceCores<Scalar, memory_space> grads;
  TtSegments<memory_space> seg;
  Kokkos::View<const Scalar **, Kokkos::LayoutRight, memory_space, Kokkos::MemoryUnmanaged> partial;
  int level = 0;

  KOKKOS_INLINE_FUNCTION void operator()(member_type const &team) const {
    const std::int64_t t = team.league_rank();
    const int k = seg.core_of(seg.first_group, t);
    const std::int64_t group = t - seg.first_group[k];
    const std::int64_t s0 = seg.first_row[k] + seg.first[k](group);
    const std::int64_t s1 = seg.first_row[k] + seg.first[k](group + 1);
    const int size = seg.slice_size[k];
    Scalar *dst = grads.slice(k, seg.group_keys[k](group));
    if constexpr (host_space_v<ExecutionSpace>) { // segments outer, entries contiguous
      for (auto s = s0; s < s1; ++s)
        for (int i = 0; i < size; ++i)
          dst[i] += partial(s, i);
    } else { // one entry per lane: neighbouring lanes read neighbouring entries
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, size), [&](int i) {
        Scalar v = dst[i];
        for (auto s = s0; s < s1; ++s)
          v += partial(s, i);
        dst[i] = v;
      });
    }
  }
};

} // namespace ttgnn::detail

#endif
