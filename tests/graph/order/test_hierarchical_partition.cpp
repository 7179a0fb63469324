// Hierarchical METIS partition aligned to TT row factors: digits equal the partition path,
// capacities hold after spill-over, default factors, and the ordering report's counts against
// a brute-force reference.
#include "core/error.hpp"
#include "core/tt/mixed_radix.hpp"
#include "graph/order/hierarchical_partition.hpp"
#include "graph/order/ordering.hpp"
#include "graph/order/ordering_report.hpp"
#include "order_test_graphs.hpp"
#include "test_harness.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

using namespace ttgnn;

namespace {

// Digits of a row id, most significant first.
std::vector<std::int64_t> digits(std::int64_t row, std::vector<std::int64_t> const &n) {
  std::vector<std::int64_t> d(n.size());
  mixed_radix_digits(row, static_cast<int>(n.size()), n.data(), d.data());
  return d;
}

void check_rows(Kokkos::View<std::int64_t *, Kokkos::HostSpace> rows, std::int64_t n,
                std::int64_t num_rows) {
  std::set<std::int64_t> seen;
  for (std::int64_t v = 0; v < n; ++v) {
    REQUIRE(rows(v) >= 0);
    REQUIRE(rows(v) < num_rows);
    seen.insert(rows(v));
  }
  CHECK(static_cast<std::int64_t>(seen.size()) == n);
}

} // namespace

TEST_CASE("default n-factors: balanced, non-decreasing, 5% slack") {
  CHECK(default_n_factors(169343) == std::vector<std::int64_t>{56, 56, 57});
  for (std::int64_t n : {1, 2, 7, 1000, 2708, 100000, 2449029}) {
    for (int k : {2, 3, 4}) {
      const auto f = default_n_factors(n, k);
      REQUIRE(static_cast<int>(f.size()) == k);
      double prod = 1;
      for (auto x : f)
        prod *= x;
      CHECK(prod >= 1.05 * n);
      CHECK(std::is_sorted(f.begin(), f.end()));
      CHECK(f.back() - f.front() <= 1 + f.back() / 10); // as equal as possible
    }
  }
  CHECK_THROWS_AS(default_n_factors(10, 5), ConfigError);
  CHECK_THROWS_AS(default_n_factors(10, 3, 0.9), ConfigError);
}

TEST_CASE("spill moves the weakest-attached node to the part it shares most edges with") {
  // part 0 = {0,1,2,6,7} (triangle 0-1-2, node 6 tied to 0 and to 3,4, node 7 pendant on 0),
  // part 1 = {3,4,5} (triangle), part 2 = {8}; capacity 4 -> part 0 has one node too many.
  std::vector<test::Edge> e = {{0, 1}, {1, 2}, {0, 2}, {3, 4}, {4, 5},
                               {3, 5}, {6, 0}, {6, 3}, {6, 4}, {7, 0}};
  const auto g = test::make_graph(9, e);
  std::vector<std::int32_t> part = {0, 0, 0, 1, 1, 1, 0, 0, 2};
  CHECK(spill_overfull_parts(g, part, 3, 4) == 1);
  // Node 6 has 2 edges into part 1 (room: 3 < 4) and 1 inside: score +1, the best.
  CHECK(part == std::vector<std::int32_t>{0, 0, 0, 1, 1, 1, 1, 0, 2});
  // Without edges to other parts: to the least-loaded part with room.
  const auto path = test::make_graph(10, [] {
    std::vector<test::Edge> p;
    test::add_path(p, 0, 10);
    return p;
  }());
  std::vector<std::int32_t> all0(10, 0);
  CHECK(spill_overfull_parts(path, all0, 3, 4) == 6);
  std::vector<int> sizes(3, 0);
  for (auto q : all0)
    ++sizes[q];
  CHECK(sizes == std::vector<int>{4, 3, 3});
  CHECK_THROWS_AS(spill_overfull_parts(path, all0, 2, 4), ConfigError); // 10 > 2 x 4
}

template <class ExecutionSpace> void check_cliques() {
  ExecutionSpace space;
  // 16 disjoint 6-cliques with scrambled ids; n = (4, 4, 7): each level-2 slot holds one
  // clique, so a partition that keeps cliques whole puts every edge inside one (i1, i2) slot.
  const std::int64_t n = 96;
  std::vector<test::Edge> e;
  for (int c = 0; c < 16; ++c)
    test::add_clique(e, 6 * c, 6);
  auto scramble = random_new_to_old(n, 4);
  for (auto &[u, v] : e) {
    u = scramble(u);
    v = scramble(v);
  }
  const auto g = test::make_graph(n, e);
  const std::vector<std::int64_t> f = {4, 4, 7};
  MetisOptions opt;
  opt.seed = 1;
  const auto h = hierarchical_partition(space, g, f, opt);
  check_rows(h.old_to_row, n, 112);
  // Partition path == digits: nodes of a clique share (i1, i2), different cliques never do.
  std::map<std::pair<std::int64_t, std::int64_t>, std::set<std::int64_t>> slot_cliques;
  for (std::int64_t c = 0; c < 16; ++c)
    for (std::int64_t i = 0; i < 6; ++i) {
      const auto d = digits(h.old_to_row(scramble(6 * c + i)), f);
      slot_cliques[{d[0], d[1]}].insert(c);
    }
  CHECK(slot_cliques.size() == 16);
  for (auto const &[slot, cl] : slot_cliques)
    CHECK(cl.size() == 1);
  // Positions inside a slot follow the original ids.
  for (std::int64_t u = 0; u < n; ++u)
    for (std::int64_t v = 0; v < n; ++v)
      if (h.old_to_row(u) / 7 == h.old_to_row(v) / 7 && u < v)
        CHECK(h.old_to_row(u) < h.old_to_row(v));
}
TTGNN_TEST_HOST_SPACES("hierarchical digits equal the partition path (disjoint cliques)") {
  check_cliques<ExecutionSpace>();
}

template <class ExecutionSpace> void check_planted_hierarchy() {
  ExecutionSpace space;
  // 4 blocks of 500 nodes, 90% of the edges inside blocks.
  const std::int64_t n = 2000;
  auto pp = test::planted_partition(n, 4, 9000, 1000, 8);
  const auto g = test::make_graph(n, pp.edges);
  OrderingOptions opt;
  opt.method = OrderMethod::metis_hier;
  opt.n_factors = {4, 8, 66}; // 2112 rows, 5.6% slack
  opt.seed = 2;
  const auto o = compute_ordering(space, g, opt);
  check_rows(o.old_to_row, n, 2112);
  // Level 1 recovers the planted blocks: the majority i1 of each block holds >= 95% of it.
  std::vector<std::map<std::int64_t, int>> votes(4);
  for (std::int64_t v = 0; v < n; ++v)
    ++votes[pp.block_of[v]][digits(o.old_to_row(v), opt.n_factors)[0]];
  for (auto const &vote : votes) {
    int best = 0;
    for (auto const &[d, c] : vote)
      best = std::max(best, c);
    CHECK(best >= 0.95 * 500);
  }
  const auto rep = make_ordering_report(space, g, o);
  for (auto const &occ : rep.occupancy)
    CHECK(occ.max_fill <= occ.capacity); // spill-over kept every slot within capacity
  CHECK(rep.occupancy[0].num_slots == 4);
  CHECK(rep.occupancy[1].num_slots == 32);
  // Brute-force reference for the report's counts.
  std::vector<std::int64_t> shared(2, 0);
  std::int64_t edges = 0;
  for (auto [u, v] : test::edge_list(g)) {
    const auto du = digits(o.old_to_row(u), opt.n_factors),
               dv = digits(o.old_to_row(v), opt.n_factors);
    ++edges;
    shared[0] += du[0] == dv[0];
    shared[1] += du[0] == dv[0] && du[1] == dv[1];
  }
  CHECK(rep.num_edges == edges);
  CHECK(rep.shared_edges == shared);
  CHECK(rep.edge_cut == std::vector<std::int64_t>{edges - shared[0], shared[0] - shared[1]});
  std::vector<std::int64_t> fill(32, 0);
  for (std::int64_t v = 0; v < n; ++v)
    ++fill[o.old_to_row(v) / 66];
  CHECK(rep.occupancy[1].max_fill == *std::max_element(fill.begin(), fill.end()));
  CHECK(rep.occupancy[1].min_fill == *std::min_element(fill.begin(), fill.end()));
  CHECK(rep.occupancy[1].capacity == 66);
  CHECK(rep.spilled.size() == 2);

  // Against a random order: a random row assignment shares i1 for ~1/4 of the edges and
  // (i1, i2) for ~1/32; the hierarchy keeps >= 85% (planted: 90% inside blocks) and several
  // times the random (i1, i2) share.
  opt.method = OrderMethod::random;
  const auto rnd = make_ordering_report(space, g, compute_ordering(space, g, opt));
  CHECK(rnd.shared_fraction[0] < 0.3);
  CHECK(rnd.shared_fraction[1] < 0.05);
  CHECK(rep.shared_fraction[0] >= 0.85);
  CHECK(rep.shared_fraction[1] > 3 * rnd.shared_fraction[1]);
  CHECK(rep.to_json().find("\"share_i1i2\":") != std::string::npos);
}
TTGNN_TEST_HOST_SPACES(
    "hierarchical order on planted blocks: level 1 finds the blocks, report counts") {
  check_planted_hierarchy<ExecutionSpace>();
}

template <class ExecutionSpace> void check_hier_errors_and_determinism() {
  ExecutionSpace space;
  const auto g = test::make_graph<std::int64_t>(300, test::grid_edges(15, 20));
  CHECK_THROWS_AS(hierarchical_partition(space, g, {5, 5, 5}), ConfigError); // 125 < 300
  CHECK_THROWS_AS(hierarchical_partition(space, g, {300}), ConfigError);
  CHECK_THROWS_AS(hierarchical_partition(space, g, {0, 400, 1}), ConfigError);
  // Two cores and four cores work too; tight factors (no slack) still fit after spill-over.
  for (auto f : {std::vector<std::int64_t>{15, 20}, std::vector<std::int64_t>{3, 4, 5, 5},
                 std::vector<std::int64_t>{5, 6, 10}}) {
    MetisOptions opt;
    opt.seed = 4;
    const auto a = hierarchical_partition(space, g, f, opt);
    std::int64_t rows = 1;
    for (auto x : f)
      rows *= x;
    check_rows(a.old_to_row, 300, rows);
    const auto b = hierarchical_partition(space, g, f, opt);
    for (std::int64_t v = 0; v < 300; ++v)
      CHECK(a.old_to_row(v) == b.old_to_row(v));
  }
}
TTGNN_TEST_HOST_SPACES(
    "hierarchical partition: 2-4 cores, no slack, errors, determinism (int64 ids)") {
  check_hier_errors_and_determinism<ExecutionSpace>();
}

template <class ExecutionSpace> void check_spill_in_partition() {
  ExecutionSpace space;
  // Cliques of 7, 7, 7 and 3 nodes into n = (4, 6): a 7-clique does not fit a slot of 6, so
  // METIS' parts overflow and one node of each big clique must spill. The spilled nodes have no
  // edge into another part, so they go to the least-loaded part with room: the 3-clique's.
  std::vector<test::Edge> e;
  test::add_clique(e, 0, 7);
  test::add_clique(e, 7, 7);
  test::add_clique(e, 14, 7);
  test::add_clique(e, 21, 3);
  const auto g = test::make_graph(24, e);
  MetisOptions opt;
  opt.seed = 1;
  const auto h = hierarchical_partition(space, g, {4, 6}, opt);
  check_rows(h.old_to_row, 24, 24);
  CHECK(h.spilled[0] == 3);
  std::vector<std::map<std::int64_t, int>> slots(4); // clique -> slot -> count
  for (std::int64_t v = 0; v < 24; ++v)
    ++slots[std::min<std::int64_t>(v / 7, 3)][h.old_to_row(v) / 6];
  const auto small_slot = slots[3].begin()->first;
  CHECK(slots[3].size() == 1);
  for (int c = 0; c < 3; ++c) {
    CHECK(slots[c].size() == 2);
    for (auto const &[slot, count] : slots[c])
      CHECK((count == 6 || (count == 1 && slot == small_slot)));
  }
}
TTGNN_TEST_HOST_SPACES("overfull METIS parts spill to the least-loaded part with room") {
  check_spill_in_partition<ExecutionSpace>();
}
