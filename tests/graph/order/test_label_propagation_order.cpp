// The label-propagation order (lp-hier): a bijection onto TT rows in [0, product of factors)
// consistent with its compact relabelling, planted blocks recovered at level 1 far above a
// random order, locality inside slices on a path, determinism for a seed, and its errors.
#include "core/error.hpp"
#include "graph/order/label_propagation_order.hpp"
#include "graph/order/ordering.hpp"
#include "graph/order/ordering_report.hpp"
#include "order_test_graphs.hpp"
#include "test_harness.hpp"

#include <set>
#include <vector>

using namespace ttgnn;

namespace {

void check_bijection(NodeOrdering const &o, std::int64_t n) {
  std::set<std::int64_t> rows;
  for (std::int64_t v = 0; v < n; ++v) {
    REQUIRE(o.old_to_row(v) >= 0);
    REQUIRE(o.old_to_row(v) < o.num_rows);
    rows.insert(o.old_to_row(v));
  }
  CHECK(static_cast<std::int64_t>(rows.size()) == n);
  const auto new_to_row = o.new_to_row();
  bool increasing = true;
  for (std::int64_t i = 1; i < n; ++i)
    increasing &= new_to_row(i - 1) < new_to_row(i);
  CHECK(increasing);
}

template <class ExecutionSpace> void check_planted() {
  ExecutionSpace space;
  // 8 blocks of 250 nodes, 90% of the 10,000 edges inside blocks; slices of 8 x 66 = 528 rows
  // (two blocks fit one slice).
  const std::int64_t n = 2000;
  const auto pp = test::planted_partition(n, 8, 9000, 1000, 8);
  const auto g = test::make_graph(n, pp.edges);
  OrderingOptions opt;
  opt.method = OrderMethod::lp_hier;
  opt.n_factors = {4, 8, 66}; // 2112 rows, 5.6% slack
  opt.seed = 3;
  opt.lp_sweeps = 20; // converged: the planted blocks, each whole in one slice
  const auto o = compute_ordering(space, g, opt);
  CHECK(o.num_rows == 2112);
  check_bijection(o, n);
  CHECK(o.lp_sweeps >= 1);
  CHECK(o.lp_clusters >= 4);
  const auto rep = make_ordering_report(space, g, o);
  for (auto const &occ : rep.occupancy)
    CHECK(occ.max_fill <= occ.capacity);
  // A random order shares i1 for ~1/4 of the edges and (i1, i2) for ~1/32. Blocks kept whole
  // share i1 for the planted 90% of the edges (more where two blocks share a slice); ask for
  // 80%, and for several times the random (i1, i2) share.
  opt.method = OrderMethod::random;
  const auto rnd = make_ordering_report(space, g, compute_ordering(space, g, opt));
  CHECK(rnd.shared_fraction[0] < 0.3);
  CHECK(rnd.shared_fraction[1] < 0.05);
  CHECK(rep.shared_fraction[0] >= 0.8);
  CHECK(rep.shared_fraction[1] > 3 * rnd.shared_fraction[1]);
  CHECK(rep.to_json().find("\"lp_clusters\":") != std::string::npos);
  // Deterministic for a seed.
  opt.method = OrderMethod::lp_hier;
  const auto again = compute_ordering(space, g, opt);
  bool same = true;
  for (std::int64_t v = 0; v < n; ++v)
    same &= again.old_to_row(v) == o.old_to_row(v);
  CHECK(same);
}

} // namespace

TTGNN_TEST_HOST_SPACES("lp-hier on planted blocks: a bijection, level 1 finds the blocks") {
  check_planted<ExecutionSpace>();
}

TEST_CASE("lp-hier on a path with isolated nodes: slices hold runs of the path") {
  // A path of 900 nodes plus 100 isolated ones, factors 10 x 10 x 10 (slices of 100 rows).
  std::vector<test::Edge> e;
  test::add_path(e, 0, 900);
  const auto g = test::make_graph<std::int64_t>(1000, e);
  const auto lp = label_propagation_order(g, {10, 10, 10}, 5);
  std::set<std::int64_t> rows;
  for (std::int64_t v = 0; v < 1000; ++v)
    rows.insert(lp.old_to_row(v));
  CHECK(rows.size() == 1000u);
  CHECK(*rows.rbegin() < 1000);
  // Clusters are runs of the path, BFS lays each out in path order: at most 899 edges, and a
  // path cut into slices of 100 loses one edge per slice boundary; ask for 80% sharing i1.
  std::int64_t shared = 0;
  for (std::int64_t v = 0; v + 1 < 900; ++v)
    shared += lp.old_to_row(v) / 100 == lp.old_to_row(v + 1) / 100;
  CHECK(shared >= 0.8 * 899);
}

TEST_CASE("lp-hier errors: one factor, too few rows, no sweeps") {
  const auto g = test::make_graph(100, test::grid_edges(10, 10));
  CHECK_THROWS_AS(label_propagation_order(g, {100}, 0), ConfigError);
  CHECK_THROWS_AS(label_propagation_order(g, {5, 5, 3}, 0), ConfigError);
  CHECK_THROWS_AS(label_propagation_order(g, {5, 5, 5}, 0, 0), ConfigError);
  CHECK(parse_order_method("lp-hier") == OrderMethod::lp_hier);
  CHECK(to_string(OrderMethod::lp_hier) == "lp-hier");
}

TEST_CASE("lp-hier sweeps: at most `sweeps` per level, a level ends once under 1% move") {
  const auto pp = test::planted_partition(1000, 4, 4000, 400, 5);
  const auto g = test::make_graph(1000, pp.edges);
  const std::vector<std::int64_t> f = {4, 16, 16};
  const auto one = label_propagation_order(g, f, 2, 1);
  CHECK(one.sweeps == 2); // one per level
  const auto many = label_propagation_order(g, f, 2, 50);
  CHECK(many.sweeps >= 2);
  CHECK(many.sweeps < 100); // both levels settle long before 50 sweeps
  CHECK(many.moved_last * 100 < 1000);
  // Deterministic for a seed, early stop included.
  const auto again = label_propagation_order(g, f, 2, 50);
  bool same = true;
  for (std::int64_t v = 0; v < 1000; ++v)
    same &= again.old_to_row(v) == many.old_to_row(v);
  CHECK(same);
  CHECK(again.sweeps == many.sweeps);
}
