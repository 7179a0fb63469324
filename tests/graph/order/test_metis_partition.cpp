// METIS wrapper: cut quality on planted communities against the random-partition baseline,
// determinism, the trivial cases, symmetry and self loops, the idx_t arc limit with its
// refusal and seeded sparsification.
#include "core/error.hpp"
#include "graph/order/metis_partition.hpp"
#include "order_test_graphs.hpp"
#include "test_harness.hpp"

#include <cmath>
#include <set>
#include <string>
#include <vector>

using namespace ttgnn;
using ttgnn::test::Edge;

namespace {

template <class Result> std::vector<std::int64_t> part_sizes(Result const &r) {
  std::vector<std::int64_t> s(r.num_parts, 0);
  for (std::size_t v = 0; v < r.part.extent(0); ++v) {
    REQUIRE(r.part(v) >= 0);
    REQUIRE(r.part(v) < r.num_parts);
    ++s[r.part(v)];
  }
  return s;
}

} // namespace

TEST_CASE("METIS index width is checked against the library") {
  const int bits = metis_index_bits();
  CHECK((bits == 32 || bits == 64));
}

template <class ExecutionSpace, class Ordinal> void check_planted() {
  ExecutionSpace space;
  const int K = 8;
  const std::int64_t n = 2000;
  auto pp = test::planted_partition(n, K, 8000, 1000, 1);
  const auto g = test::make_graph<Ordinal>(n, pp.edges);
  const std::int64_t E = pp.intra + pp.inter;

  // Random baseline: each edge is cut with probability 1 - 1/K, so the cut of a uniform random
  // assignment is Binomial(E, 1 - 1/K): mean (1 - 1/K) E = 7875, sd sqrt(E p (1-p)) ~ 31.
  Kokkos::View<std::int32_t *, Kokkos::HostSpace> random_part("random_part", n);
  test::TestRng rng{77};
  for (std::int64_t v = 0; v < n; ++v)
    random_part(v) = static_cast<std::int32_t>(rng.below(K));
  const double expected_random = (1.0 - 1.0 / K) * E;
  const double sd = std::sqrt(E * (1.0 - 1.0 / K) / K);
  const auto random_cut = count_edge_cut(space, g, random_part);
  CHECK(std::fabs(random_cut - expected_random) < 6 * sd);

  for (auto algo : {MetisAlgorithm::kway, MetisAlgorithm::recursive_bisection}) {
    CAPTURE(static_cast<int>(algo));
    MetisOptions opt;
    opt.algorithm = algo;
    opt.seed = 3;
    const auto r = metis_partition(space, g, K, opt);
    CHECK(r.called_metis);
    CHECK(!r.sparsified);
    CHECK(r.num_edges == E);
    CHECK(r.edge_cut == count_edge_cut(space, g, r.part));
    // The planted partition cuts pp.inter = 1000 edges; METIS finds about that, far below the
    // random 7875.
    CHECK(r.edge_cut <= 1.3 * pp.inter);
    CHECK(r.edge_cut < 0.2 * expected_random);
    for (auto s : part_sizes(r))
      CHECK(s <= 1.1 * n / K); // ufactor 30: ~3% imbalance; 10% leaves METIS room
    const auto again = metis_partition(space, g, K, opt);
    for (std::int64_t v = 0; v < n; ++v)
      CHECK(again.part(v) == r.part(v));
  }
}
TTGNN_TEST_HOST_SPACES("METIS cut on planted communities is far below random (int32 ids)") {
  check_planted<ExecutionSpace, std::int32_t>();
}
TTGNN_TEST_HOST_SPACES("METIS on a graph with int64 ids") {
  check_planted<ExecutionSpace, std::int64_t>();
}

template <class ExecutionSpace> void check_trivial() {
  ExecutionSpace space;
  const auto g = test::make_graph(20, test::grid_edges(4, 5)); // 31 edges
  auto one = metis_partition(space, g, 1);
  CHECK(!one.called_metis);
  CHECK(one.edge_cut == 0);
  for (int v = 0; v < 20; ++v)
    CHECK(one.part(v) == 0);
  auto many = metis_partition(space, g, 25);
  CHECK(many.edge_cut == 31);
  for (int v = 0; v < 20; ++v)
    CHECK(many.part(v) == v);
  auto empty = metis_partition(space, test::make_graph(10, {}), 3);
  CHECK(empty.edge_cut == 0);
  CHECK(part_sizes(empty) == std::vector<std::int64_t>{4, 3, 3});
  CHECK_THROWS_AS(metis_partition(space, g, 0), ConfigError);

  // Self loops are ignored: same parts as without them.
  auto loops = test::grid_edges(4, 5);
  for (int v = 0; v < 20; v += 3)
    loops.emplace_back(v, v);
  const auto gl = test::make_graph(20, loops);
  MetisOptions opt;
  opt.seed = 9;
  const auto a = metis_partition(space, g, 3, opt), b = metis_partition(space, gl, 3, opt);
  CHECK(b.num_edges == 31);
  for (int v = 0; v < 20; ++v)
    CHECK(a.part(v) == b.part(v));

  // A missing reverse arc is refused.
  auto asym = test::make_graph(20, test::grid_edges(4, 5));
  asym.entries(0) = 7; // node 0's first neighbour 1 -> 7: arc 0->7 has no reverse
  try {
    metis_partition(space, asym, 2);
    FAIL("expected InputError");
  } catch (InputError const &e) {
    CHECK(std::string(e.what()).find("not symmetric") != std::string::npos);
  }
}
TTGNN_TEST_HOST_SPACES("METIS trivial cases, self loops, asymmetric input") {
  check_trivial<ExecutionSpace>();
}

template <class ExecutionSpace> void check_sparsify() {
  ExecutionSpace space;
  auto pp = test::planted_partition(400, 4, 3000, 300, 2); // mean degree 16.5
  const auto g = test::make_graph(400, pp.edges);
  // Pretend METIS only takes 2000 arcs: refused without a sparsification.
  MetisOptions opt;
  opt.arc_limit = 2000;
  try {
    metis_partition(space, g, 4, opt);
    FAIL("expected ConfigError");
  } catch (ConfigError const &e) {
    CHECK(std::string(e.what()).find("sparsification") != std::string::npos);
  }
  const std::int64_t k = 2;
  const auto s = sparsify_graph(space, g, k, 5);
  // Subset of the original, symmetric, no self loops, each node keeps min(deg, k) or more arcs,
  // and at most 2 k N arcs in total (each node selects at most k edges).
  std::set<Edge> orig;
  for (auto e : test::edge_list(g))
    orig.insert(e);
  const auto kept = test::edge_list(s);
  CHECK(static_cast<std::int64_t>(kept.size()) * 2 == s.num_arcs()); // symmetric
  for (auto e : kept)
    CHECK(orig.count(e) == 1);
  CHECK(s.num_arcs() <= 2 * k * 400);
  for (std::int64_t v = 0; v < 400; ++v)
    CHECK(s.row_map(v + 1) - s.row_map(v) >=
          std::min<std::int64_t>(k, g.row_map(v + 1) - g.row_map(v)));
  const auto s2 = sparsify_graph(space, g, k, 5);
  CHECK(test::edge_list(s2) == kept);
  CHECK(test::edge_list(sparsify_graph(space, g, k, 6)) != kept);

  opt.max_arcs_per_node = k;
  opt.seed = 5;
  const auto r = metis_partition(space, g, 4, opt);
  CHECK(r.sparsified);
  CHECK(r.arcs_to_metis == s.num_arcs());
  CHECK(r.arcs_dropped == g.num_arcs() - s.num_arcs());
  CHECK(r.edge_cut == count_edge_cut(space, g, r.part)); // cut reported on the full graph
  // Too large a k still exceeds the limit.
  opt.max_arcs_per_node = 16;
  CHECK_THROWS_AS(metis_partition(space, g, 4, opt), ConfigError);
}
TTGNN_TEST_HOST_SPACES("METIS arc limit: refusal and seeded sparsification") {
  check_sparsify<ExecutionSpace>();
}

template <class ExecutionSpace> void check_seed_fold() {
  ExecutionSpace space;
  auto pp = test::planted_partition(300, 4, 1500, 300, 3);
  const auto g = test::make_graph(300, pp.edges);
  // METIS takes a non-negative idx_t seed: the 64-bit seed is folded (high word XOR low word)
  // and cut to 31 bits, so these three seeds all reach METIS as 5.
  MetisOptions opt;
  opt.seed = 5;
  const auto a = metis_partition(space, g, 4, opt);
  opt.seed = std::uint64_t(5) << 32;
  const auto b = metis_partition(space, g, 4, opt);
  opt.seed = 0x80000005ull;
  const auto c = metis_partition(space, g, 4, opt);
  REQUIRE(a.called_metis);
  bool same = true;
  for (std::int64_t v = 0; v < 300; ++v)
    same &= a.part(v) == b.part(v) && a.part(v) == c.part(v);
  CHECK(same);
  CHECK(a.edge_cut == b.edge_cut);
}
TTGNN_TEST_HOST_SPACES("METIS seed: the 64-bit seed is folded to a 31-bit idx_t") {
  check_seed_fold<ExecutionSpace>();
}
