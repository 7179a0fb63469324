// group_by_key against std::stable_sort: random keys with repeats, already sorted keys, large
// key bounds (several radix passes), one item, no items; and the same result for every
// number of chunks (Serial vs OpenMP at 1 or 2 threads).
#include "core/linalg/key_grouping.hpp"
#include "test_harness.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

using namespace ttgnn;

template <class ExecutionSpace>
static void check_grouping(std::vector<std::int64_t> const &keys_h, std::int64_t bound,
                           int sorted_hint) {
  using mem = typename ExecutionSpace::memory_space;
  ExecutionSpace space;
  const auto n = static_cast<std::int64_t>(keys_h.size());
  Kokkos::View<std::int64_t *, mem> keys("keys", n);
  auto mirror = Kokkos::create_mirror_view(keys);
  for (std::int64_t i = 0; i < n; ++i)
    mirror(i) = keys_h[i];
  Kokkos::deep_copy(keys, mirror);
  KeyGrouping<ExecutionSpace> g;
  group_by_key(space, Kokkos::View<const std::int64_t *, mem>(keys), bound, g, sorted_hint);
  // Reference: stable sort of item indices by key.
  std::vector<std::int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](auto a, auto b) { return keys_h[a] < keys_h[b]; });
  std::vector<std::int64_t> distinct(keys_h);
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  REQUIRE(g.num_items == n);
  REQUIRE(g.num_groups == std::int64_t(distinct.size()));
  auto h_order = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.order);
  auto h_offsets = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.offsets);
  auto h_keys = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.keys);
  auto h_group_of = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.group_of);
  int bad = 0;
  for (std::int64_t i = 0; i < n; ++i)
    bad += h_order(i) != order[i];
  CHECK(bad == 0);
  CHECK(h_offsets(0) == 0);
  CHECK(h_offsets(g.num_groups) == n);
  for (std::int64_t k = 0; k < g.num_groups; ++k) {
    CHECK(h_keys(k) == distinct[k]);
    for (auto i = h_offsets(k); i < h_offsets(k + 1); ++i) {
      bad += keys_h[h_order(i)] != distinct[k];
      bad += h_group_of(h_order(i)) != k;
    }
  }
  CHECK(bad == 0);
}

template <class ExecutionSpace> static void check_all_groupings() {
  std::mt19937_64 rng(1);
  // Above detail::serial_range_threshold (65536) the parallel radix sort runs.
  for (std::int64_t n : {0, 1, 7, 255, 256, 257, 5000, 40000, 70000, 150000})
    for (std::int64_t bound : {std::int64_t(1), std::int64_t(13), std::int64_t(256),
                               std::int64_t(100000), std::int64_t(1) << 40}) {
      CAPTURE(n);
      CAPTURE(bound);
      std::vector<std::int64_t> keys(n);
      for (auto &k : keys)
        k = std::uniform_int_distribution<std::int64_t>(0, bound - 1)(rng);
      check_grouping<ExecutionSpace>(keys, bound, -1);
      check_grouping<ExecutionSpace>(keys, bound, 0); // forced sort
      std::sort(keys.begin(), keys.end());
      check_grouping<ExecutionSpace>(keys, bound, -1); // sorted input: no sort
      check_grouping<ExecutionSpace>(keys, bound, 1);
    }
}

TTGNN_TEST_ALL_SPACES("key grouping: stable order, groups and group_of match std::stable_sort") {
  check_all_groupings<ExecutionSpace>();
}
