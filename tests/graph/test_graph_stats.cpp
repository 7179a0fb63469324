// compute_graph_stats on hand-made graphs whose statistics are worked out in the comments.
#include "graph/csr_build.hpp"
#include "graph/graph_stats.hpp"
#include "test_harness.hpp"

#include <cmath>
#include <utility>
#include <vector>

namespace {

template <class ExecutionSpace>
ttgnn::Dataset<std::int32_t> make(std::int64_t n, std::vector<std::pair<int, int>> const &edges,
                                  std::vector<int> const &labels, int num_classes,
                                  ttgnn::CsrBuildOptions const &options = {}) {
  Kokkos::View<std::int32_t *, Kokkos::HostSpace> src("src", edges.size()),
      dst("dst", edges.size());
  for (std::size_t e = 0; e < edges.size(); ++e) {
    src(e) = edges[e].first;
    dst(e) = edges[e].second;
  }
  ttgnn::Dataset<std::int32_t> d;
  d.graph = ttgnn::build_csr<ExecutionSpace, std::int32_t>(ExecutionSpace(), src, dst, n, options);
  d.labels = Kokkos::View<std::int32_t *, Kokkos::HostSpace>("labels", n);
  for (std::int64_t v = 0; v < n; ++v)
    d.labels(v) = labels[v];
  d.num_classes = num_classes;
  return d;
}

// Path 0-1-2-3, isolated 4, triangle 5-6-7; input has a reversed duplicate and a self loop.
// Labels y = (0,0,1,1,0,1,1,-1): node 7 unlabelled, C = 2.
const std::vector<std::pair<int, int>> graph_a{{0, 1}, {1, 2}, {2, 3}, {5, 6},
                                               {6, 7}, {5, 7}, {1, 0}, {3, 3}};
const std::vector<int> labels_a{0, 0, 1, 1, 0, 1, 1, -1};

template <class ExecutionSpace> void check_graph_a(ttgnn::GraphStats const &s) {
  CHECK(s.num_nodes == 8);
  CHECK(s.num_edges == 6);
  // degrees (1,2,2,1,0,2,2,2): min 0, max 2, mean 12/8, median of (0,1,1,2,2,2,2,2) = 2
  CHECK(s.degree.min == 0);
  CHECK(s.degree.max == 2);
  CHECK(s.degree.mean == 1.5);
  CHECK(s.degree.median == 2.0);
  CHECK(s.num_isolated == 1);
  CHECK(s.num_components == 3); // {0,1,2,3}, {4}, {5,6,7}
  CHECK(s.largest_component == 4);
  CHECK(s.num_labelled == 7);
  CHECK(s.class_counts == std::vector<std::int64_t>{3, 4});
  // labelled edges: 0-1 same, 1-2 diff, 2-3 same, 5-6 same (6-7, 5-7 touch node 7) -> 3/4
  CHECK(s.num_labelled_edges == 4);
  CHECK(s.edge_homophily == doctest::Approx(0.75).epsilon(1e-12));
  // node homophily over nodes 0,1,2,3,5,6 (4 is isolated): (1 + 1/2 + 1/2 + 1 + 1 + 1) / 6
  CHECK(s.node_homophily == doctest::Approx(5.0 / 6.0).epsilon(1e-12));
  // class 0 (nodes 0,1,4): labelled neighbours 1+2+0 = 3, same 2: h0 = 2/3, n0/n = 3/7
  // class 1 (nodes 2,3,5,6): labelled neighbours 2+1+1+1 = 5, same 4: h1 = 4/5, n1/n = 4/7
  // (2/3 - 3/7) + (4/5 - 4/7) = 5/21 + 8/35 = 49/105, divided by C-1 = 1
  CHECK(s.class_insensitive_homophily == doctest::Approx(49.0 / 105.0).epsilon(1e-12));
}

} // namespace

TTGNN_TEST_HOST_SPACES("statistics of a hand-made graph, symmetric, with self loops, directed") {
  auto sym = make<ExecutionSpace>(8, graph_a, labels_a, 2);
  auto s = ttgnn::compute_graph_stats(ExecutionSpace(), sym);
  check_graph_a<ExecutionSpace>(s);
  CHECK(s.num_arcs == 12);
  CHECK(s.symmetric);
  // told that the CSR is symmetric (as a symmetrised load is), the same statistics
  ttgnn::GraphStatsOptions known;
  known.known_symmetric = true;
  auto k = ttgnn::compute_graph_stats(ExecutionSpace(), sym, known);
  check_graph_a<ExecutionSpace>(k);
  CHECK(k.symmetric);
  CHECK(k.num_edges == s.num_edges);
  CHECK(s.num_self_loops == 0);

  auto loops = make<ExecutionSpace>(8, graph_a, labels_a, 2, ttgnn::CsrBuildOptions{true, true});
  auto sl = ttgnn::compute_graph_stats(ExecutionSpace(), loops);
  check_graph_a<ExecutionSpace>(sl); // self loops are ignored by every statistic...
  CHECK(sl.num_arcs == 20);          // ...but counted as stored arcs
  CHECK(sl.num_self_loops == 8);

  auto directed =
      make<ExecutionSpace>(8, graph_a, labels_a, 2, ttgnn::CsrBuildOptions{false, false});
  auto sd = ttgnn::compute_graph_stats(ExecutionSpace(), directed);
  check_graph_a<ExecutionSpace>(sd); // the underlying undirected graph is the same
  CHECK(sd.num_arcs == 7);           // 0->1, 1->0, 1->2, 2->3, 5->6, 6->7, 5->7
  CHECK_FALSE(sd.symmetric);
}

TTGNN_TEST_HOST_SPACES("a perfectly heterophilous graph and a one-class graph") {
  // K_{2,2} between classes 0 = {0,1} and 1 = {2,3}: every edge joins different labels.
  auto k22 = make<ExecutionSpace>(4, {{0, 2}, {0, 3}, {1, 2}, {1, 3}}, {0, 0, 1, 1}, 2);
  auto s = ttgnn::compute_graph_stats(ExecutionSpace(), k22);
  CHECK(s.edge_homophily == 0.0);
  CHECK(s.node_homophily == 0.0);
  CHECK(s.class_insensitive_homophily == 0.0);
  CHECK(s.num_components == 1);
  CHECK(s.degree.median == 2.0);

  // One class: edge and node homophily 1, class-insensitive undefined (C - 1 = 0) -> NaN.
  auto one = make<ExecutionSpace>(3, {{0, 1}, {1, 2}}, {0, 0, 0}, 1);
  auto t = ttgnn::compute_graph_stats(ExecutionSpace(), one);
  CHECK(t.edge_homophily == 1.0);
  CHECK(t.node_homophily == 1.0);
  CHECK(std::isnan(t.class_insensitive_homophily));
  CHECK(t.degree.median == 1.0);

  // No labels at all: the homophilies are undefined.
  auto none = make<ExecutionSpace>(2, {{0, 1}}, {-1, -1}, 0);
  auto u = ttgnn::compute_graph_stats(ExecutionSpace(), none);
  CHECK(std::isnan(u.edge_homophily));
  CHECK(std::isnan(u.node_homophily));
  CHECK(u.num_labelled_edges == 0);
  CHECK(u.degree.median == 1.0);
}

TTGNN_TEST_HOST_SPACES("multi-label statistics: labelled nodes, positive rates, label Jaccard") {
  // Path 0-1-2-3 plus edge 3-4, T = 3 tasks (rows: targets of nodes 0..4; -1 unknown):
  //   0: 1 1 0   P = {0,1}
  //   1: 1 0 0   P = {0}
  //   2: 0 0 0   P = {}
  //   3: 0 0 1   P = {2}
  //   4: -1 -1 -1 unlabelled
  auto d = make<ExecutionSpace>(5, {{0, 1}, {1, 2}, {2, 3}, {3, 4}}, {-1, -1, -1, -1, -1}, 3);
  d.multilabels = decltype(d.multilabels)("multilabels", 5, 3);
  const int y[5][3] = {{1, 1, 0}, {1, 0, 0}, {0, 0, 0}, {0, 0, 1}, {-1, -1, -1}};
  for (int v = 0; v < 5; ++v)
    for (int t = 0; t < 3; ++t)
      d.multilabels(v, t) = static_cast<std::int8_t>(y[v][t]);
  auto s = ttgnn::compute_graph_stats(ExecutionSpace(), d);
  CHECK(s.multilabel);
  CHECK(s.num_labelled == 4);
  CHECK(s.class_counts == std::vector<std::int64_t>{2, 1, 1});
  REQUIRE(s.task_positive_rate.size() == 3);
  CHECK(s.task_positive_rate[0] == doctest::Approx(0.5).epsilon(1e-12));
  CHECK(s.task_positive_rate[1] == doctest::Approx(0.25).epsilon(1e-12));
  CHECK(s.task_positive_rate[2] == doctest::Approx(0.25).epsilon(1e-12));
  // edges with both ends labelled: 0-1 (|{0}| / |{0,1}| = 1/2), 1-2 (0 / 1), 2-3 (0 / 1);
  // 3-4 has an unlabelled end; no edge has two empty sets here
  CHECK(s.num_labelled_edges == 3);
  CHECK(s.label_jaccard_homophily == doctest::Approx(0.5 / 3.0).epsilon(1e-12));
  CHECK(std::isnan(s.edge_homophily));
  CHECK(std::isnan(s.class_insensitive_homophily));

  // Two empty sets across an edge are skipped: with node 1 all negative, 1-2 drops out and
  // 0-1 gives 0: (0 + 0) / 2 over the edges 0-1 and 2-3.
  for (int t = 0; t < 3; ++t)
    d.multilabels(1, t) = 0;
  auto e = ttgnn::compute_graph_stats(ExecutionSpace(), d);
  CHECK(e.num_labelled_edges == 2);
  CHECK(e.label_jaccard_homophily == 0.0);
}

TEST_CASE("statistics JSON has the required keys, NaN as null") {
  ttgnn::GraphStats s;
  s.num_nodes = 3;
  s.class_insensitive_homophily = std::nan("");
  ttgnn::JsonWriter json;
  ttgnn::add_to_json(json, s);
  const std::string text = json.str();
  for (char const *key : {"num_nodes", "num_edges", "num_arcs", "num_classes", "num_features",
                          "num_components", "num_isolated", "edge_homophily", "node_homophily",
                          "class_insensitive_homophily", "degree_median"})
    CHECK(text.find(std::string("\"") + key + "\":") != std::string::npos);
  CHECK(text.find("\"class_insensitive_homophily\":null") != std::string::npos);
}
