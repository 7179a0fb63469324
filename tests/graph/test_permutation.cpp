// Permutation (bijection, inverse, composition), apply_permutation on a whole dataset (copied
// and in place), and the orderings of compute_ordering (original, random, metis, metis-hier,
// rcm).
#include "core/error.hpp"
#include "graph/order/ordering.hpp"
#include "graph/permutation.hpp"
#include "graph/permute_in_place.hpp"
#include "order_test_graphs.hpp"
#include "test_harness.hpp"

#include <algorithm>
#include <cstdlib>
#include <random>
#include <set>
#include <vector>

using namespace ttgnn;
using ttgnn::test::Edge;

namespace {

using IdView = Kokkos::View<std::int64_t *, Kokkos::HostSpace>;

IdView ids(std::vector<std::int64_t> const &v) {
  IdView out("ids", v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    out(i) = v[i];
  return out;
}

void check_bijection(Permutation const &p, std::int64_t n) {
  REQUIRE(p.size() == n);
  REQUIRE(static_cast<std::int64_t>(p.old_to_new.extent(0)) == n);
  std::vector<int> hit(n, 0);
  for (std::int64_t i = 0; i < n; ++i) {
    REQUIRE(p.new_to_old(i) >= 0);
    REQUIRE(p.new_to_old(i) < n);
    ++hit[p.new_to_old(i)];
    CHECK(p.old_to_new(p.new_to_old(i)) == i); // inverse o forward = identity
    CHECK(p.new_to_old(p.old_to_new(i)) == i); // forward o inverse = identity
  }
  CHECK(std::all_of(hit.begin(), hit.end(), [](int h) { return h == 1; }));
}

// Largest |new(u) - new(v)| over edges.
template <class Graph> std::int64_t bandwidth(Graph const &g, IdView const &old_to_new) {
  std::int64_t bw = 0;
  for (auto [u, v] : test::edge_list(g))
    bw = std::max(bw, std::abs(old_to_new(u) - old_to_new(v)));
  return bw;
}

} // namespace

TEST_CASE("permutation: inverse, composition, validation") {
  auto p = Permutation::from_new_to_old(ids({2, 0, 3, 1}));
  check_bijection(p, 4);
  CHECK(p.old_to_new(2) == 0);
  CHECK(p.old_to_new(1) == 3);
  check_bijection(p.inverse(), 4);
  CHECK(p.inverse().new_to_old(0) == 1); // inverse's new_to_old is p's old_to_new
  // p followed by its inverse is the identity.
  auto id = p.then(p.inverse());
  for (std::int64_t v = 0; v < 4; ++v)
    CHECK(id.old_to_new(v) == v);
  auto q = Permutation::from_old_to_new(ids({1, 2, 3, 0}));
  auto pq = p.then(q);
  for (std::int64_t v = 0; v < 4; ++v)
    CHECK(pq.old_to_new(v) == q.old_to_new(p.old_to_new(v)));
  check_bijection(Permutation::identity(5), 5);
  check_bijection(Permutation::from_new_to_old(random_new_to_old(1000, 7)), 1000);
  CHECK_THROWS_AS(Permutation::from_new_to_old(ids({0, 0, 1})), InputError);
  CHECK_THROWS_AS(Permutation::from_new_to_old(ids({0, 3, 1})), InputError);
  CHECK_THROWS_AS(Permutation::from_old_to_new(ids({-1, 0})), InputError);
}

TEST_CASE("random permutation is deterministic for a seed and uniform-ish") {
  auto a = random_new_to_old(500, 42), b = random_new_to_old(500, 42),
       c = random_new_to_old(500, 43);
  int same_ab = 0, same_ac = 0, fixed = 0;
  for (int i = 0; i < 500; ++i) {
    same_ab += a(i) == b(i);
    same_ac += a(i) == c(i);
    fixed += a(i) == i;
  }
  CHECK(same_ab == 500);
  CHECK(same_ac < 20); // two independent permutations agree in ~1 place on average
  CHECK(fixed < 20);   // a uniform permutation has ~1 fixed point (Poisson(1))
}

template <class ExecutionSpace> void check_apply_dataset() {
  ExecutionSpace space;
  auto pp = test::planted_partition(60, 3, 120, 20, 5);
  Dataset<std::int32_t> data;
  data.name = "toy";
  data.graph = test::make_graph(60, pp.edges);
  data.num_classes = 3;
  data.labels = decltype(data.labels)("labels", 60);
  data.features = decltype(data.features)("features", 60, 3);
  for (int v = 0; v < 60; ++v) {
    data.labels(v) = pp.block_of[v];
    for (int j = 0; j < 3; ++j)
      data.features(v, j) = static_cast<float>(100 * v + j);
  }
  data.train = ids({0, 5, 59});
  data.valid = ids({7});
  data.test = ids({});
  const auto perm = Permutation::from_new_to_old(random_new_to_old(60, 3));
  const auto out = apply_permutation(space, data, perm);

  REQUIRE(out.num_nodes() == 60);
  for (std::int64_t i = 0; i < 60; ++i) {
    const std::int64_t v = perm.new_to_old(i);
    CHECK(out.labels(i) == data.labels(v));
    for (int j = 0; j < 3; ++j)
      CHECK(out.features(i, j) == data.features(v, j));
  }
  REQUIRE(out.train.extent(0) == 3);
  CHECK(out.train(0) == perm.old_to_new(0));
  CHECK(out.train(2) == perm.old_to_new(59));
  CHECK(out.valid(0) == perm.old_to_new(7));
  CHECK(out.test.extent(0) == 0);
  // Edge set preserved under the relabelling; rows sorted.
  std::set<Edge> relabelled;
  for (auto [u, v] : test::edge_list(data.graph)) {
    const auto a = perm.old_to_new(u), b = perm.old_to_new(v);
    relabelled.insert({std::min(a, b), std::max(a, b)});
  }
  const auto new_edges = test::edge_list(out.graph);
  CHECK(std::set<Edge>(new_edges.begin(), new_edges.end()) == relabelled);
  CHECK(out.graph.num_arcs() == data.graph.num_arcs());
  for (std::int64_t i = 0; i < 60; ++i)
    CHECK(std::is_sorted(out.graph.entries.data() + out.graph.row_map(i),
                         out.graph.entries.data() + out.graph.row_map(i + 1)));
  // Results on the permuted dataset map back to original ids.
  auto back = unpermute_rows(space, out.labels, perm);
  auto back_features = unpermute_rows(space, out.features, perm);
  for (std::int64_t v = 0; v < 60; ++v) {
    CHECK(back(v) == data.labels(v));
    CHECK(back_features(v, 2) == data.features(v, 2));
  }
  // A dataset without features keeps an empty feature array.
  data.features = decltype(data.features)("none", 0, 0);
  CHECK(apply_permutation(space, data, perm).features.extent(0) == 0);
  CHECK_THROWS_AS(map_ids_to_new(space, ids({60}), perm), InputError);
}
TTGNN_TEST_HOST_SPACES("apply_permutation moves graph, labels, features and splits together") {
  check_apply_dataset<ExecutionSpace>();
}

namespace {

// Random edges among the first 3/4 of the n nodes, a hub (node 0) joined to every fourth of
// them, the last quarter isolated: rows of very different lengths, and empty rows.
CsrGraph<std::int32_t, Kokkos::HostSpace> uneven_graph(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Edge> edges;
  for (std::int64_t k = 0; k < 3 * n; ++k) {
    const auto u = static_cast<std::int64_t>(rng() % (n * 3 / 4));
    const auto v = static_cast<std::int64_t>(rng() % (n * 3 / 4));
    if (u != v)
      edges.push_back({std::min(u, v), std::max(u, v)});
  }
  for (std::int64_t v = 1; v < n * 3 / 4; v += 4)
    edges.push_back({0, v});
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  return test::make_graph(n, edges);
}

template <class View> std::vector<typename View::non_const_value_type> values(View const &v) {
  return std::vector<typename View::non_const_value_type>(v.data(), v.data() + v.span());
}

} // namespace

template <class ExecutionSpace> void check_in_place() {
  ExecutionSpace space;
  for (std::int64_t n : {4, 9, 400}) {
    const auto p = Permutation::from_new_to_old(random_new_to_old(n, 5 + n));
    const auto g = uneven_graph(n, 3);
    const auto expected = permute_graph(space, g, p);
    std::int64_t max_degree = 0;
    for (std::int64_t v = 0; v < g.num_nodes(); ++v)
      max_degree = std::max(max_degree, g.row_map(v + 1) - g.row_map(v));
    for (int blocks : {1, 2, 3, 4, 7, 1000}) {
      CAPTURE(n);
      CAPTURE(blocks);
      CsrGraph<std::int32_t, Kokkos::HostSpace> h; // a copy of g in its own arrays
      h.row_map = decltype(h.row_map)("row_map", g.row_map.extent(0));
      h.entries = decltype(h.entries)("entries", g.entries.extent(0));
      Kokkos::deep_copy(h.row_map, g.row_map);
      Kokkos::deep_copy(h.entries, g.entries);
      const auto *storage = h.entries.data();
      const std::int64_t buffer = permute_graph_in_place(space, h, p, blocks);
      CHECK(h.entries.data() == storage); // the same array
      CHECK(values(h.row_map) == values(expected.row_map));
      CHECK(values(h.entries) == values(expected.entries)); // renamed, moved, rows sorted
      // one block of new rows at a time: about num_arcs / blocks, at most one row more
      CHECK(buffer <= g.num_arcs() / blocks + max_degree + 1);
    }
    // Dense rows: as permute_rows, in the same memory.
    DenseFeatures x("x", n, 3), copy("copy", n, 3);
    for (std::int64_t v = 0; v < n; ++v)
      for (int j = 0; j < 3; ++j)
        x(v, j) = static_cast<float>(10 * v + j);
    Kokkos::deep_copy(copy, x);
    for (int blocks : {1, 3, 1000}) {
      Kokkos::deep_copy(x, copy);
      permute_rows_in_place(space, x, p, blocks);
      CHECK(values(x) == values(permute_rows(space, copy, p)));
    }
  }
}
TTGNN_TEST_HOST_SPACES("permute_graph_in_place and permute_rows_in_place equal the copies") {
  check_in_place<ExecutionSpace>();
}

template <class ExecutionSpace> void check_apply_in_place() {
  ExecutionSpace space;
  Dataset<std::int32_t> data;
  data.graph = uneven_graph(200, 8);
  data.num_classes = 4;
  data.labels = decltype(data.labels)("labels", 200);
  data.features = decltype(data.features)("features", 200, 5);
  data.node_year = decltype(data.node_year)("year", 200);
  for (int v = 0; v < 200; ++v) {
    data.labels(v) = v % 4;
    data.node_year(v) = 2000 + v % 7;
    for (int j = 0; j < 5; ++j)
      data.features(v, j) = static_cast<float>(v - j);
  }
  data.train = ids({3, 199, 0});
  data.valid = ids({17});
  data.test = ids({});
  const auto perm = Permutation::from_new_to_old(random_new_to_old(200, 21));
  const auto copied = apply_permutation(space, data, perm);
  Dataset<std::int32_t> given; // a deep copy, given up below
  given.graph.row_map = decltype(given.graph.row_map)("row_map", 201);
  given.graph.entries = decltype(given.graph.entries)("entries", data.graph.num_arcs());
  Kokkos::deep_copy(given.graph.row_map, data.graph.row_map);
  Kokkos::deep_copy(given.graph.entries, data.graph.entries);
  given.num_classes = 4;
  given.labels = decltype(given.labels)("labels", 200);
  given.features = decltype(given.features)("features", 200, 5);
  given.node_year = decltype(given.node_year)("year", 200);
  Kokkos::deep_copy(given.labels, data.labels);
  Kokkos::deep_copy(given.features, data.features);
  Kokkos::deep_copy(given.node_year, data.node_year);
  given.train = data.train;
  given.valid = data.valid;
  given.test = data.test;
  const auto *features = given.features.data();
  const auto out = apply_permutation(space, std::move(given), perm);
  CHECK(given.num_nodes() == 0); // the caller's handles are cleared
  CHECK(given.features.extent(0) == 0);
  CHECK(out.features.data() == features);
  CHECK(values(out.graph.row_map) == values(copied.graph.row_map));
  CHECK(values(out.graph.entries) == values(copied.graph.entries));
  CHECK(values(out.features) == values(copied.features));
  CHECK(values(out.labels) == values(copied.labels));
  CHECK(values(out.node_year) == values(copied.node_year));
  CHECK(values(out.train) == values(copied.train));
  CHECK(values(out.valid) == values(copied.valid));
  CHECK(out.test.extent(0) == 0);
  CHECK(out.num_classes == 4);
  // Arrays another handle shares are copied: that handle's dataset is unchanged.
  Dataset<std::int32_t> handle = data;
  const auto from_shared = apply_permutation(space, std::move(handle), perm);
  CHECK(from_shared.graph.entries.data() != data.graph.entries.data());
  CHECK(from_shared.features.data() != data.features.data());
  CHECK(values(from_shared.graph.entries) == values(copied.graph.entries));
  CHECK(values(from_shared.features) == values(copied.features));
  const auto again = apply_permutation(space, data, perm);
  CHECK(values(again.graph.entries) == values(copied.graph.entries));
  CHECK(values(again.features) == values(copied.features));
}
TTGNN_TEST_HOST_SPACES("apply_permutation of a dataset given up relabels it in its own arrays") {
  check_apply_in_place<ExecutionSpace>();
}

template <class ExecutionSpace> void check_orderings() {
  ExecutionSpace space;
  // 12 x 30 grid with ids scrambled, so that the original order is bad.
  auto grid = test::grid_edges(12, 30);
  const std::int64_t n = 360;
  auto scramble = random_new_to_old(n, 99);
  for (auto &[u, v] : grid) {
    u = scramble(u);
    v = scramble(v);
  }
  const auto g = test::make_graph(n, grid);
  OrderingOptions opt;
  opt.n_factors = {8, 8, 6}; // 384 rows
  opt.seed = 11;
  std::int64_t bw_random = 0;
  for (auto method : {OrderMethod::original, OrderMethod::random, OrderMethod::metis,
                      OrderMethod::metis_hier, OrderMethod::rcm}) {
    CAPTURE(to_string(method));
    opt.method = method;
    const auto o = compute_ordering(space, g, opt);
    check_bijection(o.permutation, n);
    CHECK(o.num_rows == 384);
    std::set<std::int64_t> rows;
    for (std::int64_t v = 0; v < n; ++v) {
      CHECK(o.old_to_row(v) >= 0);
      CHECK(o.old_to_row(v) < o.num_rows);
      rows.insert(o.old_to_row(v));
      if (method != OrderMethod::metis_hier)
        CHECK(o.old_to_row(v) == o.permutation.old_to_new(v));
    }
    CHECK(static_cast<std::int64_t>(rows.size()) == n); // injective
    const auto n2r = o.new_to_row();
    for (std::int64_t i = 1; i < n; ++i)
      CHECK(n2r(i - 1) < n2r(i)); // compact relabelling keeps the row order
    // Same seed, same ordering.
    const auto again = compute_ordering(space, g, opt);
    for (std::int64_t v = 0; v < n; ++v)
      CHECK(again.old_to_row(v) == o.old_to_row(v));
    if (method == OrderMethod::random)
      bw_random = bandwidth(g, o.permutation.old_to_new);
    if (method == OrderMethod::rcm) {
      // A 12 x 30 grid has an order of bandwidth 12 (row by row along the short side); RCM
      // finds one close to it, a random order has bandwidth close to n.
      CHECK(bandwidth(g, o.permutation.old_to_new) <= 2 * 12);
      CHECK(bw_random > 200);
    }
    if (method == OrderMethod::metis) {
      CHECK(o.metis_parts == 8);
      // Contiguous ids per part: the part of new id i never decreases.
      MetisOptions mo;
      mo.seed = opt.seed;
      const auto parts = metis_partition(space, g, 8, mo);
      CHECK(parts.edge_cut == o.metis_cut);
      for (std::int64_t i = 1; i < n; ++i)
        CHECK(parts.part(o.permutation.new_to_old(i - 1)) <=
              parts.part(o.permutation.new_to_old(i)));
      CHECK(o.metis_cut > 0);
      CHECK(o.metis_cut < 100); // 8 parts of a 12x30 grid: ~ 7 cuts of ~12 edges
    }
  }
  CHECK_THROWS_AS(parse_order_method("bfs"), ConfigError);
  CHECK(parse_order_method("metis-hier") == OrderMethod::metis_hier);
  // The original order without its maps (what ttgnn train asks for): no N-entry array, node v
  // at row v; the other orders ignore the setting.
  opt.method = OrderMethod::original;
  opt.materialize_identity = false;
  const auto id = compute_ordering(space, g, opt);
  CHECK(id.implicit_identity);
  CHECK(id.num_nodes == n);
  CHECK(id.num_rows == 384);
  CHECK(id.old_to_row.extent(0) == 0u);
  CHECK(id.permutation.new_to_old.extent(0) == 0u);
  CHECK(id.permutation.old_to_new.extent(0) == 0u);
  CHECK(id.new_to_row().extent(0) == 0u);
  CHECK(id.rows_used() == n);
  CHECK(id.row_of(17) == 17);
  opt.method = OrderMethod::random;
  const auto random_order = compute_ordering(space, g, opt);
  CHECK(!random_order.implicit_identity);
  CHECK(random_order.old_to_row.extent(0) == static_cast<std::size_t>(n));
  CHECK(random_order.row_of(17) == random_order.old_to_row(17));
  opt.materialize_identity = true;
  opt.n_factors = {5, 5, 5};
  CHECK_THROWS_AS(compute_ordering(space, g, opt), ConfigError); // 125 rows < 360 nodes
}
TTGNN_TEST_HOST_SPACES(
    "orderings are bijections with injective TT rows, deterministic for a seed") {
  check_orderings<ExecutionSpace>();
}
