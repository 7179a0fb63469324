// quotient_graph: against a brute-force set of group pairs on a grid and a random graph, empty
// and edgeless groups, groups in ascending node order and not, the same arrays on every host space,
// bad groupings refused; the sparsified quotient (max_neighbours > 0): exact arrays on small
// graphs, and against a brute force (each group's heaviest neighbours kept, symmetric, nothing
// else) on a random graph.
#include "core/error.hpp"
#include "graph/coarse/quotient_graph.hpp"
#include "order_test_graphs.hpp"
#include "test_harness.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
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

template <class Graph> std::vector<std::int64_t> row_map_of(Graph const &q) {
  return std::vector<std::int64_t>(q.row_map.data(), q.row_map.data() + q.row_map.extent(0));
}
template <class Graph> std::vector<std::int64_t> entries_of(Graph const &q) {
  std::vector<std::int64_t> e;
  for (std::int64_t k = 0; k < q.num_arcs(); ++k)
    e.push_back(q.entries(k));
  return e;
}

// Sparsified: row a = kept(a) | {b : a in kept(b)}, kept(a) = the `keep` heaviest neighbour
// groups of a by arc count, ties by smaller id.
template <class Graph>
void check_sparsified(Graph const &g, std::vector<std::int64_t> const &group,
                      std::int64_t num_groups, std::int64_t keep, Graph const &q) {
  std::vector<std::map<std::int64_t, std::int64_t>> w(num_groups);
  for (std::int64_t v = 0; v < g.num_nodes(); ++v)
    for (auto k = g.row_map(v); k < g.row_map(v + 1); ++k)
      if (group[v] != group[g.entries(k)])
        ++w[group[v]][group[g.entries(k)]];
  std::vector<std::set<std::int64_t>> want(num_groups);
  for (std::int64_t a = 0; a < num_groups; ++a) {
    std::vector<std::pair<std::int64_t, std::int64_t>> byw;
    for (auto const &[b, c] : w[a])
      byw.emplace_back(-c, b);
    std::sort(byw.begin(), byw.end());
    for (std::size_t i = 0; i < byw.size() && static_cast<std::int64_t>(i) < keep; ++i) {
      want[a].insert(byw[i].second);
      want[byw[i].second].insert(a);
    }
  }
  REQUIRE(q.num_nodes() == num_groups);
  int bad = 0, asymmetric = 0;
  for (std::int64_t a = 0; a < num_groups; ++a) {
    std::vector<std::int64_t> got;
    for (auto k = q.row_map(a); k < q.row_map(a + 1); ++k) {
      got.push_back(q.entries(k));
      const std::int64_t b = q.entries(k);
      auto const *e = q.entries.data();
      asymmetric += !std::binary_search(e + q.row_map(b), e + q.row_map(b + 1),
                                        static_cast<typename Graph::ordinal_type>(a));
    }
    if (got != std::vector<std::int64_t>(want[a].begin(), want[a].end()))
      ++bad;
  }
  CHECK(bad == 0);
  CHECK(asymmetric == 0);
}

} // namespace

TTGNN_TEST_HOST_SPACES("quotient_graph: max_neighbours keeps each group's heaviest arcs, "
                       "symmetrised") {
  ExecutionSpace space;
  // Groups of two consecutive nodes: arcs between groups 0-1: 3, 0-2: 1, 1-3: 1, 2-3: 3.
  const auto g =
      test::make_graph(8, {{0, 2}, {1, 2}, {0, 3}, {0, 4}, {2, 6}, {4, 6}, {5, 7}, {4, 7}});
  const std::vector<std::int64_t> pairs{0, 0, 1, 1, 2, 2, 3, 3};
  const auto full = quotient_graph(space, g, groups(pairs), 4);
  CHECK(row_map_of(full) == std::vector<std::int64_t>{0, 2, 4, 6, 8});
  CHECK(entries_of(full) == std::vector<std::int64_t>{1, 2, 0, 3, 0, 3, 1, 2});
  const auto one = quotient_graph(space, g, groups(pairs), 4, 1);
  CHECK(row_map_of(one) == std::vector<std::int64_t>{0, 1, 2, 3, 4});
  CHECK(entries_of(one) == std::vector<std::int64_t>{1, 0, 3, 2});
  // A keep of at least the degree changes nothing.
  const auto two = quotient_graph(space, g, groups(pairs), 4, 2);
  CHECK(entries_of(two) == entries_of(full));
  CHECK(entries_of(quotient_graph(space, g, groups(pairs), 4, 3)) == entries_of(full));
  CHECK(row_map_of(quotient_graph(space, g, groups(pairs), 4, 100)) == row_map_of(full));
  // Ties go to the smaller id, and the reverses of kept arcs stay: a star 0-{1, 2, 3} and the
  // arc 1-2, one node per group, keep 1: group 0 keeps 1, groups 1, 2 and 3 keep 0, so group 0
  // ends with three neighbours and the arc 1-2 goes.
  const auto star = test::make_graph(4, {{0, 1}, {0, 2}, {0, 3}, {1, 2}});
  const auto s1 = quotient_graph(space, star, groups({0, 1, 2, 3}), 4, 1);
  CHECK(row_map_of(s1) == std::vector<std::int64_t>{0, 3, 4, 5, 6});
  CHECK(entries_of(s1) == std::vector<std::int64_t>{1, 2, 3, 0, 0, 0});
  // Random graph and groups against the brute force, a few keeps.
  auto pp = test::planted_partition(600, 6, 3000, 900, 5);
  const auto r = test::make_graph<std::int64_t>(600, pp.edges);
  test::TestRng rng{3};
  std::vector<std::int64_t> rnd(600);
  for (auto &x : rnd)
    x = static_cast<std::int64_t>(rng.below(40));
  for (std::int64_t keep : {1, 3, 8}) {
    CAPTURE(keep);
    check_sparsified(r, rnd, 40, keep, quotient_graph(space, r, groups(rnd), 40, keep));
  }
  CHECK_THROWS_AS(quotient_graph(space, g, groups(pairs), 4, -1), ConfigError);
}

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
  // The same groups in ascending node order (ranges of ids, as on a graph relabelled by its TT
  // rows: the path without a members array), empty groups 0 and 12 included, full and sparsified.
  std::vector<std::int64_t> ascending = rnd;
  std::sort(ascending.begin(), ascending.end());
  check_against_brute_force(g, ascending, 14, quotient_graph(space, g, groups(ascending), 14));
  check_sparsified(g, ascending, 14, 2, quotient_graph(space, g, groups(ascending), 14, 2));
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
  // The sparsified quotient too.
  const auto c = quotient_graph(Kokkos::Serial(), g, groups(grp), 97, 5);
  const auto d = quotient_graph(Kokkos::OpenMP(), g, groups(grp), 97, 5);
  CHECK(row_map_of(c) == row_map_of(d));
  CHECK(entries_of(c) == entries_of(d));
  CHECK(c.num_arcs() < a.num_arcs());
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
