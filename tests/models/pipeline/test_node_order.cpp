// The node-order policy (models/pipeline/node_order.hpp): the default column factors of an
// order, the TT shape the order is aligned to, the relabelled dataset against the original by
// properties (a bijection that carries every arc and label), the TT rows of a hierarchical
// order, and the locality order of a full-batch run (forced, and skipped for mini-batches).
#include "graph/synth/sbm_dataset.hpp"
#include "models/pipeline/node_order.hpp"
#include "test_harness.hpp"

#include <algorithm>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

namespace {

using Factors = std::vector<std::int64_t>;

ttgnn::Dataset<std::int32_t> sbm(std::int64_t n) {
  ttgnn::SbmConfig c;
  c.num_nodes = n;
  c.num_classes = 4;
  c.avg_degree = 8;
  c.homophily = 0.85;
  c.communities = 4;
  c.num_features = 0;
  c.seed = 3;
  return ttgnn::make_sbm_dataset(Kokkos::DefaultHostExecutionSpace(), c);
}

/// The arcs of \p d as (u, v) pairs, sorted.
std::vector<std::pair<std::int64_t, std::int64_t>> arcs(ttgnn::Dataset<std::int32_t> const &d) {
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  for (std::int64_t u = 0; u < d.num_nodes(); ++u)
    for (std::int64_t k = d.graph.row_map(u); k < d.graph.row_map(u + 1); ++k)
      out.emplace_back(u, d.graph.entries(k));
  std::sort(out.begin(), out.end());
  return out;
}

/// \p order's relabelled dataset is \p data under order.relabel (new id of v: old_to_new(v)):
/// a bijection that maps every arc and label onto the new ids.
void check_relabelled(ttgnn::Dataset<std::int32_t> const &data, ttgnn::NodeOrder const &order) {
  const std::int64_t n = data.num_nodes();
  REQUIRE(order.relabel.size() == n);
  std::vector<bool> seen(n, false);
  for (std::int64_t v = 0; v < n; ++v) {
    const std::int64_t w = order.relabel.old_to_new(v);
    REQUIRE(w >= 0);
    REQUIRE(w < n);
    CHECK(!seen[w]);
    seen[w] = true;
    CHECK(order.relabel.new_to_old(w) == v);
    CHECK(order.data.labels(w) == data.labels(v));
  }
  auto mapped = arcs(data);
  for (auto &a : mapped)
    a = {order.relabel.old_to_new(a.first), order.relabel.old_to_new(a.second)};
  std::sort(mapped.begin(), mapped.end());
  CHECK(mapped == arcs(order.data));
}

ttgnn::RunConfig tt_config(ttgnn::OrderMethod order) {
  ttgnn::RunConfig c;
  c.input = ttgnn::InputKind::tt;
  c.order = order;
  c.embedding.dim = 16;
  c.embedding.tt_rank = 4;
  c.seed = 2;
  return c;
}

} // namespace

TEST_CASE("default column factors: the last core's factor moves onto the first on "
          "hierarchical orders only") {
  using ttgnn::OrderMethod;
  CHECK(ttgnn::default_column_factors({4, 4, 4}, OrderMethod::metis_hier) == Factors{16, 4, 1});
  CHECK(ttgnn::default_column_factors({4, 4, 4}, OrderMethod::lp_hier) == Factors{16, 4, 1});
  CHECK(ttgnn::default_column_factors({8, 4, 2}, OrderMethod::metis_hier) == Factors{16, 4, 1});
  for (OrderMethod m : {OrderMethod::original, OrderMethod::random, OrderMethod::metis})
    CHECK(ttgnn::default_column_factors({8, 4, 2}, m) == Factors{8, 4, 2});
  CHECK(ttgnn::default_column_factors({64}, OrderMethod::metis_hier) == Factors{64});
}

TEST_CASE("the original order relabels nothing and stores no maps") {
  const auto data = sbm(300);
  ttgnn::RunConfig c = tt_config(ttgnn::OrderMethod::original);
  const ttgnn::NodeOrder o = ttgnn::order_nodes(data, c);
  CHECK(o.relabel.size() == 0);
  CHECK(o.node_rows.extent(0) == 0);
  CHECK(o.ordered_ids.extent(0) == 0);
  CHECK(o.data.graph.entries.data() == data.graph.entries.data()); // shared, not copied
  CHECK(o.locality == ttgnn::OrderMethod::original);
  CHECK(ttgnn::order_map_bytes(o) == 0);
  // the shape: rank 4, dim 16 in balanced factors (4, 2, 2), row factors covering the nodes
  CHECK(o.shape.d == Factors{4, 2, 2});
  CHECK(o.shape.num_rows == 300);
  CHECK(o.table_rows == o.shape.padded_rows());
  CHECK(o.table_rows >= 300);
}

TEST_CASE("metis-hier: a bijection onto the new ids, TT rows with holes, the hierarchical "
          "column factors, the factors given kept") {
  const auto data = sbm(400);
  ttgnn::RunConfig c = tt_config(ttgnn::OrderMethod::metis_hier);
  const ttgnn::NodeOrder o = ttgnn::order_nodes(data, c);
  check_relabelled(data, o);
  CHECK(o.shape.d == Factors{8, 2, 1}); // (4, 2, 2) with the last factor moved onto the first
  CHECK(o.table_rows == o.shape.padded_rows());
  // TT rows: one distinct row per node, each inside the table
  REQUIRE(o.node_rows.extent(0) == 400);
  std::set<std::int64_t> rows;
  for (std::int64_t i = 0; i < 400; ++i) {
    CHECK(o.node_rows(i) >= 0);
    CHECK(o.node_rows(i) < o.table_rows);
    rows.insert(o.node_rows(i));
  }
  CHECK(rows.size() == 400u);
  CHECK(ttgnn::order_map_bytes(o) > 0);
  // the factors a user gives are the shape's (no default moved)
  c.embedding.tt_n = {8, 8, 8};
  c.embedding.tt_d = {2, 4, 2};
  const ttgnn::NodeOrder given = ttgnn::order_nodes(data, c);
  CHECK(given.shape.n == Factors{8, 8, 8});
  CHECK(given.shape.d == Factors{2, 4, 2});
  CHECK(given.table_rows == 512);
}

TEST_CASE("a forced locality order relabels a full-batch run; ordered ids keep the order's ids; "
          "a mini-batch run has none") {
  const auto data = sbm(300);
  ttgnn::RunConfig c = tt_config(ttgnn::OrderMethod::original);
  c.locality = ttgnn::parse_locality("lp-hier"); // forced, not automatic
  const ttgnn::NodeOrder o = ttgnn::order_nodes(data, c);
  CHECK(o.locality == ttgnn::OrderMethod::lp_hier);
  check_relabelled(data, o);
  CHECK(o.locality_before >= 0);
  CHECK(o.locality_after >= 0);
  // the original order's ids and TT rows of node i of the relabelled data
  REQUIRE(o.ordered_ids.extent(0) == 300);
  REQUIRE(o.node_rows.extent(0) == 300);
  for (std::int64_t i = 0; i < 300; ++i) {
    CHECK(o.ordered_ids(i) == o.relabel.new_to_old(i));
    CHECK(o.node_rows(i) == o.relabel.new_to_old(i));
  }
  c.minibatch.batch_size = 64; // mini-batches sample by id: no locality order
  const ttgnn::NodeOrder m = ttgnn::order_nodes(data, c);
  CHECK(m.locality == ttgnn::OrderMethod::original);
  CHECK(m.relabel.size() == 0);
}
