// Boost.Graph adapter: component counts on known graphs, BFS order validity, RCM bandwidth.
#include "core/error.hpp"
#include "graph/boost_adapter.hpp"
#include "graph/csr_build.hpp"
#include "test_harness.hpp"

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

namespace {

using Host = Kokkos::DefaultHostExecutionSpace;

ttgnn::CsrGraph<std::int32_t> make(std::int64_t n,
                                   std::vector<std::pair<std::int64_t, std::int64_t>> const &edges,
                                   bool symmetrize = true) {
  Kokkos::View<std::int32_t *, Kokkos::HostSpace> src("src", edges.size()),
      dst("dst", edges.size());
  for (std::size_t e = 0; e < edges.size(); ++e) {
    src(e) = static_cast<std::int32_t>(edges[e].first);
    dst(e) = static_cast<std::int32_t>(edges[e].second);
  }
  return ttgnn::build_csr<Host, std::int32_t>(Host(), src, dst, n,
                                              ttgnn::CsrBuildOptions{symmetrize, false});
}

/// A w x h grid whose node ids are shuffled by \p seed (identity when seed == 0).
ttgnn::CsrGraph<std::int32_t> grid(int w, int h, std::uint64_t seed) {
  std::vector<std::int64_t> id(w * h);
  for (int i = 0; i < w * h; ++i)
    id[i] = i;
  if (seed)
    std::shuffle(id.begin(), id.end(), std::mt19937_64(seed));
  std::vector<std::pair<std::int64_t, std::int64_t>> edges;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      if (x + 1 < w)
        edges.push_back({id[y * w + x], id[y * w + x + 1]});
      if (y + 1 < h)
        edges.push_back({id[y * w + x], id[(y + 1) * w + x]});
    }
  return make(w * h, edges);
}

bool is_permutation_of_n(Kokkos::View<std::int64_t *, Kokkos::HostSpace> p, std::int64_t n) {
  std::vector<std::int64_t> v(p.data(), p.data() + p.extent(0));
  std::sort(v.begin(), v.end());
  for (std::int64_t i = 0; i < n; ++i)
    if (v.size() != static_cast<std::size_t>(n) || v[i] != i)
      return false;
  return true;
}

} // namespace

TEST_CASE("connected components of known graphs") {
  // path 0-1-2-3, isolated 4, triangle 5-6-7
  auto g = make(8, {{0, 1}, {1, 2}, {2, 3}, {5, 6}, {6, 7}, {5, 7}});
  std::vector<std::int64_t> comp;
  CHECK(ttgnn::boost_connected_components(g, &comp) == 3);
  CHECK(comp == std::vector<std::int64_t>{0, 0, 0, 0, 1, 2, 2, 2});
  CHECK(ttgnn::boost_connected_components(make(5, {})) == 5);
  CHECK(ttgnn::boost_connected_components(grid(7, 9, 3)) == 1);
  // two disjoint grids = 2 components
  auto a = grid(4, 4, 0);
  std::vector<std::pair<std::int64_t, std::int64_t>> twice;
  for (std::int64_t u = 0; u < 16; ++u)
    for (std::int64_t k = a.row_map(u); k < a.row_map(u + 1); ++k) {
      twice.push_back({u, a.entries(k)});
      twice.push_back({u + 16, a.entries(k) + 16});
    }
  CHECK(ttgnn::boost_connected_components(make(32, twice)) == 2);
  CHECK_THROWS_AS(ttgnn::boost_connected_components(make(3, {{0, 1}, {1, 2}}, false)),
                  ttgnn::ConfigError);
}

TEST_CASE("BFS order is a valid breadth-first order") {
  auto g = grid(6, 5, 11);
  const std::int64_t n = g.num_nodes();
  for (std::int64_t source : {std::int64_t(0), std::int64_t(17)}) {
    const auto order = ttgnn::boost_bfs_order(g, source);
    REQUIRE(static_cast<std::int64_t>(order.size()) == n); // connected: every node, once
    CHECK(order.front() == source);
    std::vector<std::int64_t> pos(n, -1);
    for (std::size_t i = 0; i < order.size(); ++i) {
      CHECK(pos[order[i]] == -1);
      pos[order[i]] = static_cast<std::int64_t>(i);
    }
    // A sequence is a BFS order iff, with parent(v) = the earliest-placed neighbour of v, every
    // non-source node's parent comes before it and parents appear in non-decreasing order.
    std::int64_t last_parent = 0;
    for (std::size_t i = 1; i < order.size(); ++i) {
      const std::int64_t v = order[i];
      std::int64_t parent_pos = n;
      for (std::int64_t k = g.row_map(v); k < g.row_map(v + 1); ++k)
        parent_pos = std::min(parent_pos, pos[g.entries(k)]);
      CHECK(parent_pos < static_cast<std::int64_t>(i));
      CHECK(parent_pos >= last_parent);
      last_parent = parent_pos;
    }
  }
  // only the reachable part: source in the triangle of the 3-component graph
  auto h = make(8, {{0, 1}, {1, 2}, {2, 3}, {5, 6}, {6, 7}, {5, 7}});
  CHECK(ttgnn::boost_bfs_order(h, 6) == std::vector<std::int64_t>{6, 5, 7});
  CHECK_THROWS_AS(ttgnn::boost_bfs_order(h, 8), ttgnn::ConfigError);
}

TEST_CASE("reverse Cuthill-McKee reduces the bandwidth of shuffled paths and grids") {
  // a path with shuffled ids: RCM recovers bandwidth 1
  std::vector<std::int64_t> id(200);
  for (int i = 0; i < 200; ++i)
    id[i] = i;
  std::shuffle(id.begin(), id.end(), std::mt19937_64(5));
  std::vector<std::pair<std::int64_t, std::int64_t>> path;
  for (int i = 0; i + 1 < 200; ++i)
    path.push_back({id[i], id[i + 1]});
  auto p = make(200, path);
  auto rcm = ttgnn::boost_reverse_cuthill_mckee(p);
  CHECK(is_permutation_of_n(rcm, 200));
  CHECK(ttgnn::bandwidth(p, rcm) == 1);
  CHECK(ttgnn::bandwidth(p, {}) > 50);

  // a 40 x 25 grid: natural (row-major) bandwidth is 40 along the long side, 25 column-major;
  // RCM's level sets are anti-diagonals, of width <= 25 + 1, so the bandwidth is at most ~2 x 26.
  auto g = grid(40, 25, 7);
  auto r = ttgnn::boost_reverse_cuthill_mckee(g);
  CHECK(is_permutation_of_n(r, 1000));
  const std::int64_t shuffled = ttgnn::bandwidth(g, {});
  const std::int64_t reordered = ttgnn::bandwidth(g, r);
  CHECK(shuffled > 500);
  CHECK(reordered <= 52);
  CHECK(reordered * 10 < shuffled);
}
