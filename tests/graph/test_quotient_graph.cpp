// quotient_graph: against a brute-force set of group pairs on a grid and a random graph, empty
// and edgeless groups, the same arrays on every host space, bad groupings refused.
#include "core/error.hpp"
#include "graph/coarse/quotient_graph.hpp"
#include "order_test_graphs.hpp"
#include "test_harness.hpp"

#include <cstdint>
#include <set>
#include <utility>
#include <vector>

using namespace ttgnn;

namespace {

using GroupView = Kokkos::View<std::int64_t *, Kokkos::HostSpace>;

GroupView groups(std::vector<std::int64_t> const &g) {
  GroupView v("group", g.size());
  for (std::size_t i = 0; i < g.size(); ++i)
    v(i) = g[i];
  return v;
}

// Row by row: the sorted set of other groups adjacent to each group.
template <class Graph>
void check_against_brute_force(Graph const &g, std::vector<std::int64_t> const &group,
                               std::int64_t num_groups, Graph const &q) {
  std::vector<std::set<std::int64_t>> want(num_groups);
  for (std::int64_t v = 0; v < g.num_nodes(); ++v)
    for (auto k = g.row_map(v); k < g.row_map(v + 1); ++k)
      if (group[v] != group[g.entries(k)])
        want[group[v]].insert(group[g.entries(k)]);
  REQUIRE(q.num_nodes() == num_groups);
  int bad = 0;
  for (std::int64_t a = 0; a < num_groups; ++a) {
    std::vector<std::int64_t> got;
    for (auto k = q.row_map(a); k < q.row_map(a + 1); ++k)
      got.push_back(q.entries(k));
    if (got != std::vector<std::int64_t>(want[a].begin(), want[a].end()))
      ++bad;
  }
  CHECK(bad == 0);
}

} // namespace

TTGNN_TEST_HOST_SPACES("quotient_graph: the group pairs joined by an edge, sorted, unique") {
  ExecutionSpace space;
  // 6 x 6 grid, groups of 4 consecutive ids (rows of the grid cut across groups).
  const auto grid = test::make_graph(36, test::grid_edges(6, 6));
  std::vector<std::int64_t> by4(36);
  for (std::int64_t v = 0; v < 36; ++v)
    by4[v] = v / 4;
  const auto q = quotient_graph(space, grid, groups(by4), 9);
  check_against_brute_force(grid, by4, 9, q);
  // Random graph, random groups, some groups left empty (ids 0 and 12) and one without edges.
  auto pp = test::planted_partition(300, 5, 900, 300, 7);
  const auto g = test::make_graph<std::int64_t>(301, pp.edges); // node 300: no edge
  test::TestRng rng{11};
  std::vector<std::int64_t> rnd(301);
  for (auto &x : rnd)
    x = 1 + static_cast<std::int64_t>(rng.below(11));
  rnd[300] = 13;
  const auto q2 = quotient_graph(space, g, groups(rnd), 14);
  check_against_brute_force(g, rnd, 14, q2);
  CHECK(q2.row_map(1) == 0);               // group 0 is empty
  CHECK(q2.row_map(13) == q2.row_map(12)); // so is group 12
  CHECK(q2.row_map(14) == q2.row_map(13)); // group 13 has no edge
}

#if defined(KOKKOS_ENABLE_SERIAL) && defined(KOKKOS_ENABLE_OPENMP)
TEST_CASE("quotient_graph: Serial and OpenMP give the same arrays [threads]") {
  auto pp = test::planted_partition(2000, 8, 8000, 2000, 3);
  const auto g = test::make_graph(2000, pp.edges);
  std::vector<std::int64_t> grp(2000);
  for (std::int64_t v = 0; v < 2000; ++v)
    grp[v] = (v * 37) % 97;
  const auto a = quotient_graph(Kokkos::Serial(), g, groups(grp), 97);
  const auto b = quotient_graph(Kokkos::OpenMP(), g, groups(grp), 97);
  REQUIRE(a.num_arcs() == b.num_arcs());
  int differ = 0;
  for (std::int64_t i = 0; i <= 97; ++i)
    differ += a.row_map(i) != b.row_map(i);
  for (std::int64_t k = 0; k < a.num_arcs(); ++k)
    differ += a.entries(k) != b.entries(k);
  CHECK(differ == 0);
}
#endif

TEST_CASE("quotient_graph: a grouping of the wrong length or with ids out of range is refused") {
  const auto g = test::make_graph(4, {{0, 1}, {2, 3}});
  CHECK_THROWS_AS(quotient_graph(Kokkos::DefaultHostExecutionSpace(), g, groups({0, 0, 1}), 2),
                  ConfigError);
  CHECK_THROWS_AS(quotient_graph(Kokkos::DefaultHostExecutionSpace(), g, groups({0, 0, 1, 2}), 2),
                  ConfigError);
  CHECK_THROWS_AS(quotient_graph(Kokkos::DefaultHostExecutionSpace(), g, groups({0, -1, 1, 1}), 2),
                  ConfigError);
}
