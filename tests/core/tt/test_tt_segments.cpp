// Segments of the deterministic TT backward: segment_length's bounds, and the segment table of
// a skewed grouping (one long group, short ones, one item) read back through
// TtSegments::range in a kernel: every group's items are covered in order by full segments and
// one shorter last one, and the row and group counts add up over two cores.
#include "core/tt/detail/tt_segments.hpp"
#include "test_harness.hpp"
#include "tt_test_util.hpp"

#include <algorithm>
#include <map>
#include <random>
#include <vector>

using namespace ttgnn;

TEST_CASE("tt segments: the length depends on the item count and slice size only") {
  using detail::segment_length;
  CHECK(segment_length(0, 64) == detail::min_segment_length);
  CHECK(segment_length(1000, 64) == detail::min_segment_length);
  // 1M items, a 64-entry slice: 8192 segments at most, so 123 items each
  CHECK(segment_length(1000000, 64) == (1000000 + 8191) / 8192);
  // a 4096-entry slice keeps 1024 segments (4M Scalars of partial sums)
  CHECK(segment_length(1000000, 4096) == (1000000 + 1023) / 1024);
  // huge slices keep at least 256 segments
  CHECK(segment_length(1000000, 1 << 20) == (1000000 + 255) / 256);
  for (std::int64_t items : {1, 31, 32, 33, 5000, 123457})
    for (std::int64_t slice : {1, 64, 1000, 4096})
      CHECK(segment_length(items, slice) >= detail::min_segment_length);
}

template <class ExecutionSpace> void check_segment_table() {
  using mem = typename ExecutionSpace::memory_space;
  ExecutionSpace space;
  // Core 0: key 2 has 5000 items (157 segments of 32), keys 0, 1, 4 a few, key 6 one item.
  // Core 1: the same items keyed by item % 3.
  std::mt19937_64 rng(5);
  std::vector<std::int64_t> keys0;
  for (int i = 0; i < 5000; ++i)
    keys0.push_back(2);
  for (std::int64_t k : {0, 1, 4})
    for (int i = 0; i < 40 + 7 * int(k); ++i)
      keys0.push_back(k);
  keys0.push_back(6);
  std::shuffle(keys0.begin(), keys0.end(), rng);
  std::vector<std::int64_t> keys1(keys0.size());
  for (std::size_t i = 0; i < keys1.size(); ++i)
    keys1[i] = std::int64_t(i % 3);
  const auto items = static_cast<std::int64_t>(keys0.size());
  KeyGrouping<ExecutionSpace> g0, g1;
  auto d0 = test::to_device<ExecutionSpace>(keys0), d1 = test::to_device<ExecutionSpace>(keys1);
  group_by_key(space, Kokkos::View<const std::int64_t *, mem>(d0), 7, g0);
  group_by_key(space, Kokkos::View<const std::int64_t *, mem>(d1), 3, g1);
  Kokkos::View<std::int64_t *, mem> first0, first1;
  detail::TtSegments<mem> seg;
  detail::add_segments(space, g0, 0, 64, first0, seg);
  detail::add_segments(space, g1, 1, 64, first1, seg);
  const std::int64_t length = detail::segment_length(items, 64);
  REQUIRE(length == detail::min_segment_length);
  CHECK(seg.length[0] == length);
  CHECK(seg.first_group[2] == 5 + 3);
  CHECK(seg.first_group[max_tt_cores] == 8);
  // expected segments per group of core 0 (ascending keys 0, 1, 2, 4, 6), then core 1
  std::map<std::int64_t, std::int64_t> count0, count1;
  for (auto k : keys0)
    ++count0[k];
  for (auto k : keys1)
    ++count1[k];
  std::int64_t rows0 = 0, rows1 = 0;
  for (auto [k, c] : count0)
    rows0 += (c + length - 1) / length;
  for (auto [k, c] : count1)
    rows1 += (c + length - 1) / length;
  CHECK(seg.first_row[1] == rows0);
  CHECK(seg.first_row[2] == rows0 + rows1);
  const std::int64_t rows = seg.first_row[max_tt_cores];
  REQUIRE(rows == rows0 + rows1);
  Kokkos::View<std::int64_t *[4], mem> out("ttgnn::test::segments", rows);
  Kokkos::parallel_for(
      "ttgnn::test::segment_ranges", Kokkos::RangePolicy<ExecutionSpace>(space, 0, rows),
      KOKKOS_LAMBDA(std::int64_t t) {
        const int k = seg.core_of(seg.first_row, t);
        std::int64_t group, begin, end;
        seg.range(k, t - seg.first_row[k], group, begin, end);
        out(t, 0) = k;
        out(t, 1) = group;
        out(t, 2) = begin;
        out(t, 3) = end;
      });
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  std::vector<KeyGrouping<ExecutionSpace> const *> groupings = {&g0, &g1};
  std::int64_t t = 0;
  for (int k = 0; k < 2; ++k) {
    auto off = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), groupings[k]->offsets);
    for (std::int64_t grp = 0; grp < groupings[k]->num_groups; ++grp) {
      // the group's segments follow one another and cover [off(grp), off(grp + 1))
      std::int64_t next = off(grp);
      while (next < off(grp + 1)) {
        REQUIRE(t < rows);
        CAPTURE(k);
        CAPTURE(grp);
        CHECK(h(t, 0) == k);
        CHECK(h(t, 1) == grp);
        CHECK(h(t, 2) == next);
        CHECK(h(t, 3) == std::min(next + length, off(grp + 1)));
        next = h(t, 3);
        ++t;
      }
    }
  }
  CHECK(t == rows);
}

TTGNN_TEST_ALL_SPACES("tt segments: the table covers every group in order") {
  check_segment_table<ExecutionSpace>();
}
