// fm_refine_slots: planted slots of full slices restored where label propagation with exchanges
// stops short; on random graphs and starts every slot within capacity, no node out of its slice,
// the edges inside slots never fewer and exactly the count returned, only the flagged slices
// refined; the same slots on Serial and OpenMP; bad input refused.
#include "core/error.hpp"
#include "graph/order/multilevel_coarsen.hpp"
#include "graph/order/slot_fm.hpp"
#include "order_test_graphs.hpp"
#include "test_harness.hpp"

#include <cstdint>
#include <vector>

using namespace ttgnn;
using namespace ttgnn::test;

namespace {

using Parts = Kokkos::View<std::int64_t *, Kokkos::HostSpace>;

template <class Graph> std::int64_t inside_edges(Graph const &g, Parts part) {
  std::int64_t arcs = 0;
  for (std::int64_t v = 0; v < g.num_nodes(); ++v)
    for (auto k = g.row_map(v); k < g.row_map(v + 1); ++k)
      arcs += part(v) == part(g.entries(k));
  return arcs / 2;
}

Parts copy_of(std::vector<std::int64_t> const &p) {
  Parts out("part", p.size());
  for (std::size_t i = 0; i < p.size(); ++i)
    out(i) = p[i];
  return out;
}

/// Sizes within capacity and every node in the slice it started in.
void check_slots(Parts before, Parts after, std::int64_t num_parts, std::int64_t group,
                 std::int64_t capacity) {
  std::vector<std::int64_t> size(num_parts, 0);
  for (std::size_t v = 0; v < after.extent(0); ++v) {
    REQUIRE(after(v) >= 0);
    REQUIRE(after(v) < num_parts);
    ++size[after(v)];
    CHECK(after(v) / group == before(v) / group);
  }
  for (std::int64_t s : size)
    CHECK(s <= capacity);
}

} // namespace

TTGNN_TEST_HOST_SPACES("fm_refine_slots restores planted slots of full slices") {
  ExecutionSpace space;
  // 2 slices of 4 slots of capacity 32; the planted slots are 8 blocks of 32 nodes (about 19
  // arcs a node inside its block, 2 anywhere). Start: in every slot, 8 of its nodes sit in the
  // next slot of the slice (a rotation), so every slot is full: no node moves alone, and a
  // misplaced node's home holds no node that wants its slot back (that one sits a slot further).
  const PlantedPartition p = planted_partition(256, 8, 2400, 256, 5);
  const auto g = make_graph(256, p.edges);
  std::vector<std::int64_t> planted(256), start(256), seen(8, 0);
  for (std::int64_t v = 0; v < 256; ++v) {
    const std::int64_t b = p.block_of[v];
    planted[v] = b;
    start[v] = seen[b]++ < 8 ? b / 4 * 4 + (b + 1) % 4 : b;
  }
  const std::int64_t optimum = inside_edges(g, copy_of(planted));
  const std::int64_t before = inside_edges(g, copy_of(start));
  Parts fm = copy_of(start);
  const std::int64_t gained = fm_refine_slots(space, g, fm, 8, 4, 32, 8, 1);
  check_slots(copy_of(start), fm, 8, 4, 32);
  CHECK(inside_edges(g, fm) == before + gained);
  CHECK(inside_edges(g, fm) >= optimum);
  // Label propagation with exchanges from the same start: pairs whose gains are both positive
  // are rare here, so it stays below.
  Parts lp = copy_of(start);
  refine_partition(space, g, lp, 8, 32, 8, 1, 4);
  MESSAGE("inside edges: start " << before << ", label propagation " << inside_edges(g, lp)
                                 << ", FM " << inside_edges(g, fm) << ", planted " << optimum);
  CHECK(inside_edges(g, lp) < inside_edges(g, fm));
}

TTGNN_TEST_HOST_SPACES("fm_refine_slots on random graphs: capacities, slices, exact gains") {
  ExecutionSpace space;
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    CAPTURE(seed);
    const PlantedPartition p = planted_partition(600, 6, 2400, 1200, seed);
    const auto g = make_graph(600, p.edges);
    // 3 slices of 5 slots of capacity 45 (225 rows for 200 nodes: slack and empty slots).
    TestRng rng{seed};
    std::vector<std::int64_t> start(600), size(15, 0);
    for (std::int64_t v = 0; v < 600; ++v) {
      const std::int64_t slice = v * 3 / 600;
      std::int64_t s = slice * 5 + rng.below(5);
      while (size[s] == 45)
        s = slice * 5 + (s + 1) % 5;
      ++size[s];
      start[v] = s;
    }
    Parts part = copy_of(start);
    const std::int64_t before = inside_edges(g, part);
    const std::int64_t gained = fm_refine_slots(space, g, part, 15, 5, 45, 4, seed);
    check_slots(copy_of(start), part, 15, 5, 45);
    CHECK(gained > 0);
    CHECK(inside_edges(g, part) == before + gained);
    // Refining a refined partition never loses an edge.
    const std::int64_t again = fm_refine_slots(space, g, part, 15, 5, 45, 4, seed);
    CHECK(again >= 0);
    CHECK(inside_edges(g, part) == before + gained + again);
    // Only the flagged slice (the middle one) changes.
    Parts some = copy_of(start);
    CHECK(fm_refine_slots(space, g, some, 15, 5, 45, 4, seed, {0, 1, 0}) > 0);
    int changed_flagged = 0, changed_other = 0;
    for (std::int64_t v = 0; v < 600; ++v)
      (start[v] / 5 == 1 ? changed_flagged : changed_other) += some(v) != start[v];
    CHECK(changed_flagged > 0);
    CHECK(changed_other == 0);
  }
}

#if defined(KOKKOS_ENABLE_SERIAL) && defined(KOKKOS_ENABLE_OPENMP)
TEST_CASE("fm_refine_slots: the same slots on Serial and OpenMP [threads]") {
  const PlantedPartition p = planted_partition(4000, 40, 30000, 10000, 9);
  const auto g = make_graph(4000, p.edges);
  std::vector<std::int64_t> start(4000);
  for (std::int64_t v = 0; v < 4000; ++v)
    start[v] = (v % 16) * 10 + (v / 16) % 10; // 16 slices of 10 slots, 25 nodes each
  Parts a = copy_of(start), b = copy_of(start);
  const std::int64_t ga = fm_refine_slots(Kokkos::Serial(), g, a, 160, 10, 26, 4, 7);
  const std::int64_t gb = fm_refine_slots(Kokkos::OpenMP(), g, b, 160, 10, 26, 4, 7);
  CHECK(ga > 0);
  CHECK(ga == gb);
  int differ = 0;
  for (std::int64_t v = 0; v < 4000; ++v)
    differ += a(v) != b(v);
  CHECK(differ == 0);
}
#endif

TEST_CASE("fm_refine_slots refuses bad input") {
  const auto g = make_graph(4, std::vector<Edge>{{0, 1}, {2, 3}});
  auto space = Kokkos::DefaultHostExecutionSpace();
  CHECK_THROWS_AS(fm_refine_slots(space, g, copy_of({0, 0, 1, 4}), 4, 2, 2, 1, 0), ConfigError);
  CHECK_THROWS_AS(fm_refine_slots(space, g, copy_of({0, 0, 0, 1}), 4, 2, 2, 1, 0), ConfigError);
  CHECK_THROWS_AS(fm_refine_slots(space, g, copy_of({0, 0, 1, 1}), 4, 3, 2, 1, 0), ConfigError);
  CHECK_THROWS_AS(fm_refine_slots(space, g, copy_of({0, 1, 2}), 4, 2, 2, 1, 0), ConfigError);
  CHECK_THROWS_AS(fm_refine_slots(space, g, copy_of({0, 1, 2, 3}), 4, 2, 2, 1, 0, {1}),
                  ConfigError);
  CHECK_NOTHROW(fm_refine_slots(space, g, copy_of({0, 1, 2, 3}), 4, 2, 2, 1, 0));
}
