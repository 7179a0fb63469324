// block_locality (graph/order/locality.hpp): exact fractions on a path under two labellings,
// the planted blocks of a graph laid out block by block against random ids, and its errors.
#include "core/error.hpp"
#include "graph/order/locality.hpp"
#include "graph/order/ordering.hpp"
#include "order_test_graphs.hpp"
#include "test_harness.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

using namespace ttgnn;

namespace {

using HostIds = Kokkos::View<std::int64_t *, Kokkos::HostSpace>;

HostIds ids(std::vector<std::int64_t> const &v) {
  HostIds out("ttgnn::test::ids", v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    out(i) = v[i];
  return out;
}

} // namespace

TEST_CASE("block_locality: the fraction of arcs inside one block of consecutive ids") {
  std::vector<test::Edge> e;
  test::add_path(e, 0, 6); // 5 edges, 10 arcs
  const auto path = test::make_graph(6, e);
  // blocks {0,1} {2,3} {4,5}: edges 0-1, 2-3, 4-5 inside -> 6 of 10 arcs
  CHECK(block_locality(path, 2) == doctest::Approx(0.6));
  CHECK(block_locality(path, 1) == 0.0); // no self loops: no arc inside a block of one
  CHECK(block_locality(path, 6) == 1.0);
  CHECK(block_locality(path, 100) == 1.0);
  // reversed ids keep a path: the same 0.6; 0,1,2,3,4,5 -> 0,2,4,1,3,5 splits every edge
  CHECK(block_locality(path, 2, ids({5, 4, 3, 2, 1, 0})) == doctest::Approx(0.6));
  CHECK(block_locality(path, 2, ids({0, 2, 4, 1, 3, 5})) == 0.0);
  CHECK_THROWS_AS(block_locality(path, 0), ConfigError);
  CHECK_THROWS_AS(block_locality(path, 2, ids({0, 1, 2})), ConfigError);
  CHECK(block_locality(test::make_graph(3, {}), 2) == 0.0); // no arcs
}

TEST_CASE("block_locality: planted blocks laid out contiguously against random ids") {
  // 8 blocks of 250 nodes with random ids, 9,000 edges inside blocks and 1,000 across
  const std::int64_t n = 2000;
  const auto pp = test::planted_partition(n, 8, 9000, 1000, 3);
  const auto g = test::make_graph(n, pp.edges);
  // ids block by block: a block of 250 ids is a planted block, so exactly the 90% intra arcs
  std::vector<std::int64_t> by_block(n);
  std::iota(by_block.begin(), by_block.end(), 0);
  std::stable_sort(by_block.begin(), by_block.end(),
                   [&](std::int64_t a, std::int64_t b) { return pp.block_of[a] < pp.block_of[b]; });
  HostIds old_to_new("ttgnn::test::old_to_new", n);
  for (std::int64_t i = 0; i < n; ++i)
    old_to_new(by_block[i]) = i;
  CHECK(block_locality(g, 250, old_to_new) == doctest::Approx(0.9));
  // random ids: an arc is inside a block of 250 with probability ~ 250 / 2000 = 0.125 (the
  // generator's ids are shuffled); 0.2 is far above its spread over 20,000 arcs (~0.003)
  const double random_ids = block_locality(g, 250);
  CHECK(random_ids < 0.2);
  // lp-hier packs each planted block into slices of 13 x 13 = 169 rows (default factors for
  // 2,000 nodes): a window of 250 ids then holds pieces of at most three blocks, most of them
  // of one, so it keeps far more arcs together than random ids (3x: 0.375 against 0.125)
  OrderingOptions o;
  o.method = OrderMethod::lp_hier;
  o.seed = 1;
  const NodeOrdering lp = compute_ordering(Kokkos::DefaultHostExecutionSpace(), g, o);
  CHECK(block_locality(g, 250, lp.permutation.old_to_new) > 3 * random_ids);
}
