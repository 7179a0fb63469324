// Neighbour sampler: blocks are consistent (real neighbours, min(deg, fanout) per row, no
// repeats, destination nodes first), batches are deterministic across spaces and thread
// counts, and the samples are uniform over neighbours and over neighbour pairs on a star.
#include "core/error.hpp"
#include "graph/neighbor_sampler.hpp"
#include "graph/sampled_block_bounds.hpp"
#include "test_harness.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <vector>

namespace {

using HostGraph = ttgnn::CsrGraph<std::int32_t, Kokkos::HostSpace>;
using HostIds = Kokkos::View<std::int64_t *, Kokkos::HostSpace>;

HostGraph from_rows(std::vector<std::set<int>> const &rows) {
  HostGraph g;
  const std::int64_t n = static_cast<std::int64_t>(rows.size());
  g.row_map = Kokkos::View<std::int64_t *, Kokkos::HostSpace>("row_map", n + 1);
  std::vector<int> cols;
  for (std::int64_t i = 0; i < n; ++i) {
    cols.insert(cols.end(), rows[i].begin(), rows[i].end());
    g.row_map(i + 1) = static_cast<std::int64_t>(cols.size());
  }
  g.entries = Kokkos::View<std::int32_t *, Kokkos::HostSpace>("entries", cols.size());
  for (std::size_t k = 0; k < cols.size(); ++k)
    g.entries(k) = cols[k];
  return g;
}

/// Symmetric random graph: node i links to ~avg random others; degrees vary from 0 (the
/// isolated last node) to well above the fan-outs (a hub joined to a third of the nodes).
HostGraph random_graph(int n, int avg, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::set<int>> rows(n);
  for (int i = 0; i < n - 1; ++i)
    for (int t = 0; t < avg / 2; ++t) {
      const int j = static_cast<int>(rng() % (n - 1));
      if (j != i) {
        rows[i].insert(j);
        rows[j].insert(i);
      }
    }
  for (int j = 1; j < n - 1; j += 3) {
    rows[0].insert(j);
    rows[j].insert(0);
  }
  return from_rows(rows);
}

HostIds ids(std::vector<std::int64_t> const &v) {
  HostIds out("ids", v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    out(i) = v[i];
  return out;
}

/// Checks every invariant of a batch against the graph.
void check_batch(HostGraph const &g, ttgnn::SampledBatch<> const &b,
                 std::vector<std::int64_t> const &fanouts, HostIds seeds) {
  const int L = static_cast<int>(fanouts.size());
  REQUIRE(b.num_layers() == L);
  REQUIRE(b.nodes.size() == std::size_t(L + 1));
  REQUIRE(b.seeds().extent(0) == seeds.extent(0));
  for (std::size_t i = 0; i < seeds.extent(0); ++i)
    CHECK(b.seeds()(i) == seeds(i));
  for (int l = 0; l < L; ++l) {
    auto const &blk = b.blocks[l];
    auto src = b.nodes[l];
    auto dst = b.nodes[l + 1];
    REQUIRE(blk.num_dst == std::int64_t(dst.extent(0)));
    REQUIRE(blk.num_src == std::int64_t(src.extent(0)));
    REQUIRE(blk.num_src >= blk.num_dst);
    for (std::int64_t i = 0; i < blk.num_dst; ++i)
      REQUIRE(src(i) == dst(i)); // destination nodes come first
    std::set<std::int64_t> unique_src(src.data(), src.data() + src.extent(0));
    CHECK(unique_src.size() == src.extent(0)); // no node twice among the sources
    std::vector<char> used(blk.num_src, 0);
    for (std::int64_t i = 0; i < blk.num_dst; ++i) {
      const std::int64_t v = dst(i);
      const std::int64_t deg = g.row_map(v + 1) - g.row_map(v);
      const std::int64_t k = blk.row_map(i + 1) - blk.row_map(i);
      const std::int64_t want = fanouts[l] > 0 ? std::min(deg, fanouts[l]) : deg;
      REQUIRE(k == want);
      std::set<std::int64_t> seen;
      std::int64_t prev = -1;
      for (std::int64_t e = blk.row_map(i); e < blk.row_map(i + 1); ++e) {
        const std::int32_t local = blk.entries(e);
        REQUIRE(local >= 0);
        REQUIRE(local < blk.num_src);
        used[local] = 1;
        const std::int64_t u = src(local);
        const std::int32_t *b0 = g.entries.data() + g.row_map(v);
        const std::int32_t *e0 = g.entries.data() + g.row_map(v + 1);
        REQUIRE(std::binary_search(b0, e0, static_cast<std::int32_t>(u))); // a real neighbour
        CHECK(seen.insert(u).second);                                      // no repeats
        CHECK(u > prev);                                                   // CSR order
        prev = u;
      }
    }
    for (std::int64_t j = blk.num_dst; j < blk.num_src; ++j)
      CHECK(used[j]); // every extra source node is some row's neighbour
  }
}

bool same_batch(ttgnn::SampledBatch<> const &a, ttgnn::SampledBatch<> const &b) {
  if (a.nodes.size() != b.nodes.size())
    return false;
  for (std::size_t l = 0; l < a.nodes.size(); ++l) {
    if (a.nodes[l].extent(0) != b.nodes[l].extent(0))
      return false;
    for (std::size_t i = 0; i < a.nodes[l].extent(0); ++i)
      if (a.nodes[l](i) != b.nodes[l](i))
        return false;
  }
  for (std::size_t l = 0; l < a.blocks.size(); ++l) {
    if (a.blocks[l].num_edges() != b.blocks[l].num_edges())
      return false;
    for (std::int64_t e = 0; e < a.blocks[l].num_edges(); ++e)
      if (a.blocks[l].entries(e) != b.blocks[l].entries(e))
        return false;
  }
  return true;
}

template <class ExecutionSpace> void check_blocks() {
  ExecutionSpace space;
  const HostGraph g = random_graph(400, 12, 7);
  const std::vector<std::int64_t> fanouts{3, 2, 5};
  ttgnn::NeighborSampler<std::int32_t> sampler(g, fanouts, 42);
  auto seeds = ids({5, 0, 17, 399, 250, 3, 98});
  for (std::uint64_t epoch = 0; epoch < 3; ++epoch) {
    auto b = sampler.sample(space, seeds, epoch, 1);
    check_batch(g, b, fanouts, seeds);
    // The isolated node 399 gets an empty row in the last block.
    auto const &last = b.blocks.back();
    CHECK(last.row_map(4) - last.row_map(3) == 0);
  }
  // All neighbours (fan-out <= 0) and fan-outs above every degree give the full neighbourhood.
  std::vector<std::int64_t> full{-1, 0, 1000};
  ttgnn::NeighborSampler<std::int32_t> all(g, full, 1);
  auto b = all.sample(space, seeds, 0, 0);
  check_batch(g, b, full, seeds);
  // The sampler is reusable after a batch (marks were reset): same call, same result.
  CHECK(same_batch(b, all.sample(space, seeds, 0, 0)));
}

TTGNN_TEST_HOST_SPACES("sampled blocks hold real neighbours, min(deg, fanout) each, no repeats") {
  check_blocks<ExecutionSpace>();
}

/// Every block of random batches stays within sampled_block_bounds, and a hub's batch on a star
/// reaches them.
template <class ExecutionSpace> void check_bounds() {
  ExecutionSpace space;
  const HostGraph g = random_graph(300, 10, 11);
  std::mt19937_64 rng(4);
  for (auto const &fanouts : std::vector<std::vector<std::int64_t>>{{2, 3}, {-1, 4, 2}, {1000}}) {
    ttgnn::NeighborSampler<std::int32_t> sampler(g, fanouts, 3);
    for (std::int64_t batch : {1, 7, 40, 400}) {
      const auto bounds = ttgnn::sampled_block_bounds(g, batch, fanouts);
      CHECK(bounds.rows.back() == std::min<std::int64_t>(batch, 300));
      for (std::uint64_t b = 0; b < 4; ++b) {
        std::vector<std::int64_t> seeds;
        for (std::int64_t i = 0; i < std::min<std::int64_t>(batch, 300); ++i)
          seeds.push_back(b == 0 ? i : std::int64_t(rng() % 300)); // b = 0: the hub, node 0
        std::sort(seeds.begin(), seeds.end());
        seeds.erase(std::unique(seeds.begin(), seeds.end()), seeds.end());
        const auto x = sampler.sample(space, ids(seeds), 0, b);
        for (std::size_t l = 0; l < fanouts.size(); ++l) {
          CHECK(x.blocks[l].num_src <= bounds.rows[l]);
          CHECK(x.blocks[l].num_edges() <= bounds.edges[l]);
        }
      }
    }
  }
  std::vector<std::set<int>> star(9);
  for (int j = 1; j < 9; ++j) {
    star[0].insert(j);
    star[j].insert(0);
  }
  const HostGraph s = from_rows(star);
  const auto bounds = ttgnn::sampled_block_bounds(s, 1, {-1});
  CHECK(bounds.rows == std::vector<std::int64_t>{9, 1});
  CHECK(bounds.edges == std::vector<std::int64_t>{8});
  const auto x = ttgnn::NeighborSampler<std::int32_t>(s, {-1}, 1).sample(space, ids({0}), 0, 0);
  CHECK(x.blocks[0].num_src == 9);
  CHECK(x.blocks[0].num_edges() == 8);
}

TTGNN_TEST_HOST_SPACES("sampled blocks stay within their bounds") {
  check_bounds<ExecutionSpace>();
}

template <class ExecutionSpace> void check_determinism() {
  const HostGraph g = random_graph(300, 16, 3);
  const std::vector<std::int64_t> fanouts{4, 3, 6};
  auto seeds = ids({1, 2, 3, 50, 60, 0, 299, 123});
  ttgnn::NeighborSampler<std::int32_t> a(g, fanouts, 9), b(g, fanouts, 9), c(g, fanouts, 10);
  auto x = a.sample(ExecutionSpace(), seeds, 4, 2);
  CHECK(same_batch(x, b.sample(ExecutionSpace(), seeds, 4, 2)));
  CHECK(!same_batch(x, c.sample(ExecutionSpace(), seeds, 4, 2))); // other seed
  CHECK(!same_batch(x, a.sample(ExecutionSpace(), seeds, 5, 2))); // other epoch
  CHECK(!same_batch(x, a.sample(ExecutionSpace(), seeds, 4, 3))); // other batch
#ifdef KOKKOS_ENABLE_SERIAL
  // The same batch on the Serial space (this test also runs on OpenMP at 1 and 2 threads).
  ttgnn::NeighborSampler<std::int32_t> s(g, fanouts, 9);
  CHECK(same_batch(x, s.sample(Kokkos::Serial(), seeds, 4, 2)));
#endif
  // int64 ordinals give the same batch as int32.
  ttgnn::CsrGraph<std::int64_t, Kokkos::HostSpace> g64;
  g64.row_map = g.row_map;
  g64.entries = Kokkos::View<std::int64_t *, Kokkos::HostSpace>("e64", g.entries.extent(0));
  for (std::size_t k = 0; k < g.entries.extent(0); ++k)
    g64.entries(k) = g.entries(k);
  ttgnn::NeighborSampler<std::int64_t> wide(g64, fanouts, 9);
  CHECK(same_batch(x, wide.sample(ExecutionSpace(), seeds, 4, 2)));
}

/// Batches sampled into one workspace, one after another (larger, smaller, larger seed sets),
/// equal the batches sampled into new buffers; the workspace's arrays are reused.
template <class ExecutionSpace> void check_workspace() {
  ExecutionSpace space;
  const HostGraph g = random_graph(500, 14, 5);
  const std::vector<std::int64_t> fanouts{3, 4};
  ttgnn::NeighborSampler<std::int32_t> sampler(g, fanouts, 2);
  ttgnn::SamplerWorkspace<> ws;
  const std::vector<std::vector<std::int64_t>> seed_sets{
      {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {400, 0}, {13, 14, 15, 16, 17, 18, 19, 20, 21, 22}};
  for (std::uint64_t b = 0; b < seed_sets.size(); ++b) {
    CAPTURE(b);
    const auto seeds = ids(seed_sets[b]);
    const auto fresh = sampler.sample(space, seeds, 1, b);
    const auto reused = sampler.sample(space, seeds, 1, b, &ws);
    check_batch(g, reused, fanouts, seeds);
    CHECK(same_batch(fresh, reused));
    CHECK(reused.nodes[0].data() == ws.nodes[0].data()); // lives in the workspace
  }
}

TTGNN_TEST_HOST_SPACES("batches sampled into a reused workspace equal fresh ones") {
  check_workspace<ExecutionSpace>();
}

TTGNN_TEST_HOST_SPACES("sampling is a function of (seed, epoch, batch), not of the space") {
  check_determinism<ExecutionSpace>();
}

/// Upper quantile of chi-square with k degrees of freedom (Wilson-Hilferty), z = normal quantile.
double chi2_quantile(double k, double z) {
  const double a = 2.0 / (9.0 * k);
  return k * std::pow(1.0 - a + z * std::sqrt(a), 3.0);
}

template <class ExecutionSpace> void check_uniform() {
  // Stars: centre c with D leaves. Sampling k of D: each leaf with probability k/D, each pair
  // of leaves with probability k(k-1)/(D(D-1)) (uniform k-subsets). Many stars are sampled in
  // one batch (each centre has its own stream) over a few batches and epochs.
  const int D = 24, k = 5, stars = 600, batches = 5, trials = stars * batches;
  std::vector<std::set<int>> rows(stars * (D + 1));
  for (int c = 0; c < stars; ++c)
    for (int j = 1; j <= D; ++j) {
      rows[c * (D + 1)].insert(c * (D + 1) + j);
      rows[c * (D + 1) + j].insert(c * (D + 1));
    }
  const HostGraph g = from_rows(rows);
  ttgnn::NeighborSampler<std::int32_t> sampler(g, {k}, 2024);
  HostIds seeds("seeds", stars);
  for (int c = 0; c < stars; ++c)
    seeds(c) = c * (D + 1);
  std::vector<double> single(D + 1, 0.0);
  std::map<std::pair<int, int>, double> pairs;
  for (int t = 0; t < batches; ++t) {
    auto b = sampler.sample(ExecutionSpace(), seeds, t / 2, t % 2);
    auto const &blk = b.blocks[0];
    REQUIRE(blk.num_edges() == std::int64_t(k) * stars);
    for (int c = 0; c < stars; ++c) {
      std::vector<int> leaves;
      for (std::int64_t e = blk.row_map(c); e < blk.row_map(c + 1); ++e)
        leaves.push_back(static_cast<int>(b.nodes[0](blk.entries(e)) - seeds(c)));
      REQUIRE(leaves.size() == std::size_t(k));
      for (int a = 0; a < k; ++a) {
        single[leaves[a]] += 1;
        for (int q = a + 1; q < k; ++q)
          pairs[{leaves[a], leaves[q]}] += 1;
      }
    }
  }
  // Pearson's statistic against the uniform expectation; the run is deterministic (fixed seed),
  // the bound is the 99.9% quantile (z = 3.09) of chi-square with (cells - 1) degrees of freedom,
  // so a correct sampler fails with probability 1e-3 over seeds and this seed passes.
  const double e1 = double(trials) * k / D;
  double x1 = 0;
  for (int j = 1; j <= D; ++j)
    x1 += (single[j] - e1) * (single[j] - e1) / e1;
  CHECK(single[0] == 0);
  MESSAGE("leaves: chi2 = " << x1 << " (" << D - 1 << " dof, bound " << chi2_quantile(D - 1, 3.09)
                            << ")");
  CHECK(x1 < chi2_quantile(D - 1, 3.09));
  const double num_pairs = D * (D - 1) / 2.0;
  const double e2 = double(trials) * (k * (k - 1) / 2.0) / num_pairs;
  double x2 = 0;
  for (int a = 1; a <= D; ++a)
    for (int c = a + 1; c <= D; ++c) {
      auto it = pairs.find({a, c});
      const double o = it == pairs.end() ? 0.0 : it->second;
      x2 += (o - e2) * (o - e2) / e2;
    }
  MESSAGE("pairs: chi2 = " << x2 << " (" << num_pairs - 1 << " dof, bound "
                           << chi2_quantile(num_pairs - 1, 3.09) << ")");
  CHECK(x2 < chi2_quantile(num_pairs - 1, 3.09));
  // The test has power: moving 30% of one leaf's expected draws to another exceeds the bound.
  std::vector<double> biased = single;
  biased[1] += 0.3 * e1;
  biased[2] -= 0.3 * e1;
  double xb = 0;
  for (int j = 1; j <= D; ++j)
    xb += (biased[j] - e1) * (biased[j] - e1) / e1;
  CHECK(xb > chi2_quantile(D - 1, 3.09));
}

TTGNN_TEST_HOST_SPACES("neighbours and neighbour pairs are sampled uniformly (chi-square)") {
  check_uniform<ExecutionSpace>();
}

template <class ExecutionSpace> void check_errors() {
  const HostGraph g = random_graph(50, 6, 1);
  ttgnn::NeighborSampler<std::int32_t> sampler(g, {2, 2}, 0);
  CHECK_THROWS_AS(sampler.sample(ExecutionSpace(), ids({1, 50}), 0, 0), ttgnn::InputError);
  CHECK_THROWS_AS(sampler.sample(ExecutionSpace(), ids({3, 4, 3}), 0, 0), ttgnn::InputError);
  // After a rejected batch the sampler still works and gives the same batch as a fresh one.
  ttgnn::NeighborSampler<std::int32_t> fresh(g, {2, 2}, 0);
  CHECK(same_batch(sampler.sample(ExecutionSpace(), ids({3, 4}), 0, 0),
                   fresh.sample(ExecutionSpace(), ids({3, 4}), 0, 0)));
  CHECK_THROWS_AS(ttgnn::NeighborSampler<std::int32_t>(g, {}, 0), ttgnn::ConfigError);
}

template <class ExecutionSpace> void check_with_fanouts() {
  const HostGraph g = random_graph(300, 16, 4);
  ttgnn::NeighborSampler<std::int32_t> train(g, {4, 3}, 9);
  auto eval = train.with_fanouts({-1, 2, 5});
  ttgnn::NeighborSampler<std::int32_t> fresh_train(g, {4, 3}, 9), fresh_eval(g, {-1, 2, 5}, 9);
  CHECK(train.shares_scratch(eval));
  CHECK(!train.shares_scratch(fresh_train));
  CHECK(eval.fanouts() == std::vector<std::int64_t>{-1, 2, 5});
  CHECK(eval.seed() == 9);
  // Alternating on the shared scratch gives what two samplers of their own give, also after a
  // rejected batch of the other one.
  const auto seeds = ids({1, 2, 3, 50, 60, 0, 299, 123}), more = ids({7, 8, 0, 250});
  for (std::uint64_t b = 0; b < 3; ++b) {
    CHECK(same_batch(train.sample(ExecutionSpace(), seeds, 1, b),
                     fresh_train.sample(ExecutionSpace(), seeds, 1, b)));
    CHECK(same_batch(eval.sample(ExecutionSpace(), more, 0, b),
                     fresh_eval.sample(ExecutionSpace(), more, 0, b)));
    CHECK_THROWS_AS(train.sample(ExecutionSpace(), ids({5, 300}), 1, b), ttgnn::InputError);
  }
  CHECK(eval.peak_batch_bytes() == fresh_eval.peak_batch_bytes());
  CHECK_THROWS_AS(train.with_fanouts({}), ttgnn::ConfigError);
}

/// \p b on the host (copies of its arrays).
template <class MemorySpace>
ttgnn::SampledBatch<> on_host(ttgnn::SampledBatch<MemorySpace> const &b) {
  ttgnn::SampledBatch<> out;
  for (auto const &v : b.nodes)
    out.nodes.push_back(Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v));
  for (auto const &blk : b.blocks) {
    ttgnn::SampledBlock<> h;
    h.num_dst = blk.num_dst;
    h.num_src = blk.num_src;
    h.row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), blk.row_map);
    h.entries = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), blk.entries);
    out.blocks.push_back(h);
  }
  return out;
}

/// A sampler whose graph, scratch and batches live in the space's memory (on a device: the
/// device sampler) gives the host sampler's batches bit for bit, into a reused workspace too,
/// and rejects bad seeds the same way.
template <class ExecutionSpace> void check_in_space() {
  using memory_space = typename ExecutionSpace::memory_space;
  ExecutionSpace space;
  const HostGraph g = random_graph(3000, 14, 11); // a hub of degree ~1000, an isolated node
  const std::vector<std::int64_t> fanouts{3, 25, 2};
  ttgnn::NeighborSampler<std::int32_t> host(g, fanouts, 5);
  ttgnn::NeighborSampler<std::int32_t, memory_space> in_space(
      ttgnn::graph_in_space<memory_space>(g), fanouts, 5);
  ttgnn::SamplerWorkspace<memory_space> ws;
  const std::vector<std::vector<std::int64_t>> seed_sets{
      {0, 2999, 17, 5, 1000, 2, 44, 1}, {7}, {0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33}};
  for (std::uint64_t b = 0; b < seed_sets.size(); ++b) {
    CAPTURE(b);
    const auto seeds = ids(seed_sets[b]);
    const auto seeds_in = Kokkos::create_mirror_view_and_copy(memory_space(), seeds);
    const auto want = host.sample(Kokkos::DefaultHostExecutionSpace(), seeds, 2, b);
    const auto got = on_host(in_space.sample(space, seeds_in, 2, b, &ws));
    check_batch(g, got, fanouts, seeds);
    CHECK(same_batch(want, got));
    for (std::size_t l = 0; l < want.blocks.size(); ++l) { // offsets too
      REQUIRE(got.blocks[l].row_map.extent(0) == want.blocks[l].row_map.extent(0));
      for (std::size_t i = 0; i < want.blocks[l].row_map.extent(0); ++i)
        CHECK(got.blocks[l].row_map(i) == want.blocks[l].row_map(i));
    }
  }
  // a repeated seed is rejected and leaves the scratch clean
  const auto bad = Kokkos::create_mirror_view_and_copy(memory_space(), ids({4, 9, 4}));
  CHECK_THROWS_AS(in_space.sample(space, bad, 0, 0), ttgnn::InputError);
  const auto seeds = ids({4, 9});
  CHECK(same_batch(host.sample(Kokkos::DefaultHostExecutionSpace(), seeds, 0, 0),
                   on_host(in_space.sample(
                       space, Kokkos::create_mirror_view_and_copy(memory_space(), seeds), 0, 0))));
}

TTGNN_TEST_ALL_SPACES("sampling in the space's memory gives the host sampler's batches") {
  check_in_space<ExecutionSpace>();
}

TTGNN_TEST_HOST_SPACES("with_fanouts shares the scratch and samples as a sampler of its own") {
  check_with_fanouts<ExecutionSpace>();
}

TTGNN_TEST_HOST_SPACES("bad seeds are rejected and leave the sampler usable") {
  check_errors<ExecutionSpace>();
}

TEST_CASE("fan-out lists parse") {
  CHECK(ttgnn::parse_fanouts("5,10,15") == std::vector<std::int64_t>{5, 10, 15});
  CHECK(ttgnn::parse_fanouts("-1") == std::vector<std::int64_t>{-1});
  CHECK_THROWS_AS(ttgnn::parse_fanouts(""), ttgnn::ConfigError);
  CHECK_THROWS_AS(ttgnn::parse_fanouts("5,,3"), ttgnn::ConfigError);
  CHECK_THROWS_AS(ttgnn::parse_fanouts("5,x"), ttgnn::ConfigError);
  // only -1 means "all neighbours": other values below 1 are errors naming the option
  CHECK_THROWS_WITH_AS(ttgnn::parse_fanouts("5,-2", "--fanout"),
                       "--fanout: -2 in '5,-2': a fan-out is a number of neighbours >= 1, or -1 "
                       "for all of them",
                       ttgnn::ConfigError);
  CHECK_THROWS_AS(ttgnn::parse_fanouts("0"), ttgnn::ConfigError);
}

} // namespace
