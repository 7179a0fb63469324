// SbmGenerator: determinism (seed, execution space, thread count), exact homophily / degree /
// community targets, simple graph (no self loops, no duplicates), stratified split, feature
// class means, power-law degrees, configuration errors, the OGB writer, and the round trip
// generate -> write -> load_ogb -> compare.
#include "core/error.hpp"
#include "graph/io/line_reader.hpp"
#include "graph/io/ogb_loader.hpp"
#include "graph/io/ogb_writer.hpp"
#include "graph/synth/detail/sbm_detail.hpp"
#include "graph/synth/sbm_generator.hpp"
#include "signal_test_util.hpp"
#include "test_harness.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <csignal>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using ttgnn::SbmConfig;
using ttgnn::SbmGenerator;

namespace {

SbmConfig config(std::int64_t nodes, int classes, double degree, double h, std::uint64_t seed) {
  SbmConfig c;
  c.num_nodes = nodes;
  c.num_classes = classes;
  c.avg_degree = degree;
  c.homophily = h;
  c.seed = seed;
  return c;
}

std::vector<std::uint64_t> to_vector(SbmGenerator::Edges const &e) {
  return std::vector<std::uint64_t>(e.keys.data(), e.keys.data() + e.size());
}

/// Simple-graph invariants, and the per-kind counts recomputed from labels and communities.
void check_simple_graph(SbmGenerator const &gen, SbmGenerator::Edges const &e) {
  const std::int64_t n = gen.num_nodes();
  REQUIRE(e.size() == gen.config().num_edges());
  std::int64_t kinds[3] = {0, 0, 0};
  auto labels = gen.labels();
  auto comm = gen.communities();
  for (std::int64_t i = 0; i < e.size(); ++i) {
    const auto u = SbmGenerator::Edges::source(e.keys(i)),
               v = SbmGenerator::Edges::target(e.keys(i));
    REQUIRE(0 <= u);
    REQUIRE(u < v); // no self loop, canonical orientation
    REQUIRE(v < n);
    if (i > 0)
      REQUIRE(e.keys(i - 1) < e.keys(i)); // strictly sorted: no duplicate pair
    kinds[comm(u) == comm(v) ? 0 : labels(u) == labels(v) ? 1 : 2]++;
  }
  CHECK(kinds[0] == e.same_community);
  CHECK(kinds[1] == e.same_class_other);
  CHECK(kinds[2] == e.cross_class);
  const auto targets = gen.edge_targets();
  CHECK(kinds[0] == targets[0]);
  CHECK(kinds[1] == targets[1]);
  CHECK(kinds[2] == targets[2]);
}

fs::path scratch(std::string const &name) {
  fs::path dir =
      fs::temp_directory_path() / ("ttgnn_test_sbm_" + std::to_string(getpid()) + "_" + name);
  fs::remove_all(dir);
  return dir;
}

std::vector<std::string> read_lines(std::string const &path) {
  ttgnn::LineReader in(path);
  std::vector<std::string> lines;
  std::string_view line;
  while (in.next(line))
    lines.emplace_back(line);
  return lines;
}

} // namespace

template <class ExecutionSpace> void check_determinism() {
  ExecutionSpace space;
  SbmConfig c = config(30000, 4, 12, 0.7, 42); // 180k edges: several chunks and buckets
  c.communities = 3;
  c.power_law = 2.5;
  c.num_features = 6;
  const SbmGenerator a(c), b(c);
  const auto ea = a.generate_edges(space), eb = b.generate_edges(space);
  CHECK(to_vector(ea) == to_vector(eb));
  const auto la = a.labels(), lb = b.labels();
  for (std::int64_t i = 0; i < c.num_nodes; ++i)
    REQUIRE(la(i) == lb(i));
  auto fa = a.features(space), fb = b.features(space);
  CHECK(std::equal(fa.data(), fa.data() + fa.size(), fb.data()));
  check_simple_graph(a, ea);

  c.seed = 43;
  const SbmGenerator other(c);
  const auto eo = other.generate_edges(space);
  CHECK(to_vector(eo) != to_vector(ea));
  std::int64_t same_label = 0;
  const auto lo = other.labels();
  for (std::int64_t i = 0; i < c.num_nodes; ++i)
    same_label += la(i) == lo(i);
  // Independent balanced labels over 4 classes agree on ~1/4 of the nodes.
  CHECK(same_label < c.num_nodes / 2);
}

TTGNN_TEST_HOST_SPACES("sbm: same seed gives the same dataset, another seed another") {
  check_determinism<ExecutionSpace>();
}

#if defined(KOKKOS_ENABLE_SERIAL) && defined(KOKKOS_ENABLE_OPENMP)
// In the .openmp.2 ctest run OpenMP has 2 threads: the draws are chunked by size only.
TEST_CASE("sbm: Serial and OpenMP (any thread count) give identical results [threads]") {
  SbmConfig c = config(40000, 5, 10, 0.6, 7);
  c.communities = 2;
  c.power_law = 3;
  c.num_features = 5;
  const SbmGenerator gen(c);
  const auto serial = gen.generate_edges(Kokkos::Serial());
  const auto openmp = gen.generate_edges(Kokkos::OpenMP());
  CHECK(to_vector(serial) == to_vector(openmp));
  CHECK(serial.duplicates == openmp.duplicates);
  auto fs_ = gen.features(Kokkos::Serial()), fo = gen.features(Kokkos::OpenMP());
  CHECK(std::equal(fs_.data(), fs_.data() + fs_.size(), fo.data()));
}
#endif

template <class ExecutionSpace> void check_homophily(double h) {
  // 100k nodes, 500k edges. The generator fixes the number of same-class edges to round(E h),
  // so h_hat = round(E h) / E: |h_hat - h| <= 1 / (2E), far inside the binomial standard error
  // sqrt(h(1-h)/E) ~ 7e-4 of an edge-by-edge model (and the issue's +-0.01).
  const SbmConfig c = config(100000, 5, 10, h, 11);
  const SbmGenerator gen(c);
  const auto e = gen.generate_edges(ExecutionSpace());
  check_simple_graph(gen, e);
  std::int64_t same = 0;
  const auto labels = gen.labels();
  for (std::int64_t i = 0; i < e.size(); ++i)
    same += labels(SbmGenerator::Edges::source(e.keys(i))) ==
            labels(SbmGenerator::Edges::target(e.keys(i)));
  const double e_count = static_cast<double>(e.size());
  const double h_hat = static_cast<double>(same) / e_count;
  CHECK(std::fabs(h_hat - h) <= 0.5 / e_count + 1e-12);
  CHECK(std::fabs(h_hat - h) <= 0.01);
  // Average degree 2E/N = 2 round(N d / 2) / N: within 1/N of d.
  CHECK(std::fabs(2 * e_count / c.num_nodes - c.avg_degree) <= 1.0 / c.num_nodes);
  // Every class has N/C nodes (here exactly).
  std::vector<std::int64_t> sizes(c.num_classes, 0);
  for (std::int64_t i = 0; i < c.num_nodes; ++i)
    ++sizes[labels(i)];
  for (auto s : sizes)
    CHECK(s == c.num_nodes / c.num_classes);
}

TTGNN_TEST_HOST_SPACES(
    "sbm: edge homophily, average degree and simple graph at h = 0.1, 0.5, 0.9") {
  for (double h : {0.1, 0.5, 0.9}) {
    CAPTURE(h);
    check_homophily<ExecutionSpace>(h);
  }
}

template <class ExecutionSpace> void check_communities() {
  SbmConfig c = config(40000, 4, 16, 0.8, 3);
  c.communities = 5;
  c.community_fraction = 0.7;
  const SbmGenerator gen(c);
  const auto e = gen.generate_edges(ExecutionSpace());
  check_simple_graph(gen, e);
  // Communities nest in classes: community k belongs to class k / M; sizes N / (C M).
  std::vector<std::int64_t> sizes(c.num_classes * c.communities, 0);
  const auto labels = gen.labels();
  const auto comm = gen.communities();
  for (std::int64_t i = 0; i < c.num_nodes; ++i) {
    REQUIRE(comm(i) / c.communities == labels(i));
    ++sizes[comm(i)];
  }
  for (auto s : sizes)
    CHECK(s == c.num_nodes / (c.num_classes * c.communities));
  // Same-community share of same-class edges: round(round(E h) f) / round(E h), so within
  // 1 / (2 round(E h)) of f.
  const double same_class = static_cast<double>(e.same_community + e.same_class_other);
  CHECK(std::fabs(e.same_community / same_class - c.community_fraction) <= 0.5 / same_class);
  // Without communities those edges would be spread over M communities: 1/M = 0.2 << 0.7.
}

TTGNN_TEST_HOST_SPACES("sbm: nested communities hold the requested fraction of same-class edges") {
  check_communities<ExecutionSpace>();
}

template <class ExecutionSpace> void check_power_law() {
  SbmConfig c = config(50000, 4, 10, 0.7, 5);
  c.power_law = 2.5;
  const SbmGenerator gen(c);
  const auto e = gen.generate_edges(ExecutionSpace());
  check_simple_graph(gen, e);
  std::vector<double> degree(c.num_nodes, 0);
  for (std::int64_t i = 0; i < e.size(); ++i) {
    ++degree[SbmGenerator::Edges::source(e.keys(i))];
    ++degree[SbmGenerator::Edges::target(e.keys(i))];
  }
  // Weights have mean 1 (normalised per community).
  double sum_w = 0;
  const auto w = gen.weights();
  for (std::int64_t i = 0; i < c.num_nodes; ++i)
    sum_w += w(i);
  CHECK(sum_w / c.num_nodes == doctest::Approx(1.0).epsilon(1e-5));
  // Heavy tail: a Poisson(10) graph of 50k nodes has max degree ~30; the cutoff here is
  // sqrt(N d) ~ 707, and the top Pareto(1.5) weights reach it.
  const double max_degree = *std::max_element(degree.begin(), degree.end());
  CHECK(max_degree > 200);
  CHECK(max_degree < 2 * 707.2);
  // Degree correction: expected degree is theta * d. Over the 1% heaviest nodes (500 nodes,
  // ~25k edge ends) the Poisson noise is < 1%; duplicate rejection costs hubs a few percent.
  std::vector<std::int64_t> order(c.num_nodes);
  for (std::int64_t i = 0; i < c.num_nodes; ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return w(a) > w(b); });
  double got = 0, want = 0;
  for (std::int64_t k = 0; k < c.num_nodes / 100; ++k) {
    got += degree[order[k]];
    want += w(order[k]) * c.avg_degree;
  }
  CHECK(got == doctest::Approx(want).epsilon(0.08));
  // Light nodes (bottom half): same check, Poisson noise ~ 1/sqrt(125k).
  got = want = 0;
  for (std::int64_t k = c.num_nodes / 2; k < c.num_nodes; ++k) {
    got += degree[order[k]];
    want += w(order[k]) * c.avg_degree;
  }
  CHECK(got == doctest::Approx(want).epsilon(0.03));
}

TTGNN_TEST_HOST_SPACES("sbm: power-law weights give heavy-tailed degrees proportional to theta") {
  check_power_law<ExecutionSpace>();
}

template <class ExecutionSpace> void check_many_duplicates() {
  // Small communities (1000 nodes) holding most edges, and hubs: ~15% of the first draws
  // repeat a pair. The top-up rounds must still reach the exact counts, and the buckets that
  // receive more new edges than they lost re-lay the key store in place.
  SbmConfig c = config(20000, 2, 20, 0.9, 8);
  c.communities = 10;
  c.community_fraction = 0.9;
  c.power_law = 2.2;
  const SbmGenerator gen(c);
  const auto e = gen.generate_edges(ExecutionSpace());
  check_simple_graph(gen, e);
  CHECK(e.duplicates > e.size() / 10);
  CHECK(e.rounds > 3);
  CHECK(e.draws == e.size() + e.duplicates);
}

TTGNN_TEST_HOST_SPACES("sbm: exact counts and a simple graph despite many duplicate draws") {
  check_many_duplicates<ExecutionSpace>();
}

TEST_CASE("sbm: in-place re-layout of the edge-key regions keeps every key") {
  // Random layouts against a copy: regions of random size and slack, random incoming counts
  // that fit the total; afterwards every region holds its keys at its new base, has room for
  // size + fresh, and the regions are disjoint, in order, inside the same total.
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 2000; ++trial) {
    const std::int64_t nb = 1 + static_cast<std::int64_t>(rng() % 40);
    std::vector<std::int64_t> base(nb + 1, 0), cap(nb), size(nb), fresh(nb, 0);
    for (std::int64_t b = 0; b < nb; ++b) {
      size[b] = static_cast<std::int64_t>(rng() % 50);
      cap[b] = size[b] + static_cast<std::int64_t>(rng() % 20);
      base[b + 1] = base[b] + cap[b];
    }
    std::int64_t spare = 0;
    for (std::int64_t b = 0; b < nb; ++b)
      spare += cap[b] - size[b];
    for (std::int64_t k = 0; k < spare; ++k) // hand out all the free room, unevenly
      if (rng() % 3)
        ++fresh[static_cast<std::int64_t>(rng() % (1 + rng() % nb))];
    std::vector<std::uint64_t> store(base[nb], ~0ULL);
    for (std::int64_t b = 0; b < nb; ++b)
      for (std::int64_t i = 0; i < size[b]; ++i)
        store[base[b] + i] = (static_cast<std::uint64_t>(b) << 32) | static_cast<std::uint64_t>(i);
    const std::int64_t total = base[nb];
    ttgnn::sbm_detail::relayout_regions(store.data(), base, cap, size, fresh);
    REQUIRE(base[0] == 0);
    REQUIRE(base[nb] == total);
    for (std::int64_t b = 0; b < nb; ++b) {
      REQUIRE(cap[b] >= size[b] + fresh[b]);
      REQUIRE(base[b + 1] == base[b] + cap[b]);
      for (std::int64_t i = 0; i < size[b]; ++i)
        REQUIRE(store[base[b] + i] ==
                ((static_cast<std::uint64_t>(b) << 32) | static_cast<std::uint64_t>(i)));
    }
  }
  std::vector<std::int64_t> base{0, 4}, cap{4}, size{3}, fresh{2};
  std::vector<std::uint64_t> store(4);
  CHECK_THROWS_AS(ttgnn::sbm_detail::relayout_regions(store.data(), base, cap, size, fresh),
                  ttgnn::Error);
}

TEST_CASE("sbm: split is stratified, disjoint, complete and sorted") {
  SbmConfig c = config(10007, 7, 4, 0.5, 9); // class sizes differ by one
  c.communities = 3;
  c.train_fraction = 0.3;
  c.valid_fraction = 0.25;
  const SbmGenerator gen(c);
  const auto s = gen.split();
  std::vector<int> seen(c.num_nodes, 0);
  std::vector<std::int64_t> count(3 * c.num_classes, 0), size(c.num_classes, 0);
  Kokkos::View<std::int64_t *, Kokkos::HostSpace> parts[3] = {s.train, s.valid, s.test};
  const auto labels = gen.labels();
  const auto comm = gen.communities();
  for (int p = 0; p < 3; ++p)
    for (std::size_t i = 0; i < parts[p].extent(0); ++i) {
      if (i > 0)
        REQUIRE(parts[p](i - 1) < parts[p](i));
      ++seen[parts[p](i)];
      ++count[3 * labels(parts[p](i)) + p];
    }
  for (std::int64_t i = 0; i < c.num_nodes; ++i) {
    REQUIRE(seen[i] == 1); // disjoint and complete
    ++size[labels(i)];
  }
  const double fraction[3] = {0.3, 0.25, 0.45};
  for (int k = 0; k < c.num_classes; ++k)
    for (int p = 0; p < 3; ++p) {
      CAPTURE(k);
      CAPTURE(p);
      CHECK(std::fabs(count[3 * k + p] - fraction[p] * size[k]) <= 1.0);
    }
  // The split is not aligned with communities: train takes ~30% of every community.
  std::vector<std::int64_t> train_in(c.num_classes * c.communities, 0),
      members(c.num_classes * c.communities, 0);
  for (std::int64_t i = 0; i < c.num_nodes; ++i)
    ++members[comm(i)];
  for (std::size_t i = 0; i < s.train.extent(0); ++i)
    ++train_in[comm(s.train(i))];
  for (std::size_t g = 0; g < members.size(); ++g) // ~476 nodes: binomial sd ~ 10
    CHECK(std::fabs(train_in[g] - 0.3 * members[g]) < 60);
  const auto again = gen.split();
  CHECK(std::equal(s.test.data(), s.test.data() + s.test.size(), again.test.data()));
}

template <class ExecutionSpace> void check_features() {
  SbmConfig c = config(20000, 4, 2, 0.5, 21);
  c.num_features = 9; // odd: the last Box-Muller pair is half used
  c.feature_separation = 3;
  const SbmGenerator gen(c);
  auto mu = gen.class_means();
  auto x = gen.features(ExecutionSpace());
  REQUIRE(x.extent(0) == 20000);
  REQUIRE(x.extent(1) == 9);
  for (int k = 0; k < 4; ++k) {
    double norm2 = 0;
    for (int j = 0; j < 9; ++j)
      norm2 += mu(k, j) * mu(k, j);
    CHECK(std::sqrt(norm2) == doctest::Approx(3).epsilon(1e-6));
  }
  // Class means of the samples: n_c = 5000, unit noise -> standard error 1/sqrt(5000) = 0.014
  // per coordinate; 5 sigma = 0.071 (+ 1e-4 rounding). Per-class variance 1 +- 5 sqrt(2/n).
  std::vector<double> sum(36, 0), sum2(36, 0), count(4, 0);
  const auto labels = gen.labels();
  for (std::int64_t i = 0; i < 20000; ++i) {
    const int k = labels(i);
    ++count[k];
    for (int j = 0; j < 9; ++j) {
      const double d = x(i, j) - mu(k, j);
      sum[9 * k + j] += d;
      sum2[9 * k + j] += d * d;
      // values are multiples of 1e-4
      REQUIRE(std::fabs(x(i, j) * 1e4 - std::nearbyint(x(i, j) * 1e4)) < 1e-2);
    }
  }
  for (int k = 0; k < 4; ++k)
    for (int j = 0; j < 9; ++j) {
      CHECK(std::fabs(sum[9 * k + j] / count[k]) < 5 / std::sqrt(count[k]) + 1e-4);
      CHECK(std::fabs(sum2[9 * k + j] / count[k] - 1) < 5 * std::sqrt(2 / count[k]));
    }
  // Separation: the distance between two class means is |mu_a - mu_b|, which for random
  // directions in 9 dimensions is about 3 sqrt(2) and always between 0 and 6.
  double d01 = 0;
  for (int j = 0; j < 9; ++j)
    d01 += (mu(0, j) - mu(1, j)) * (mu(0, j) - mu(1, j));
  CHECK(std::sqrt(d01) > 0.5);
  CHECK(std::sqrt(d01) <= 6 + 1e-6);

  c.feature_separation = 0; // no signal: all class means are 0
  const SbmGenerator flat(c);
  auto mu0 = flat.class_means();
  for (int k = 0; k < 4; ++k)
    for (int j = 0; j < 9; ++j)
      CHECK(mu0(k, j) == 0.0f);
}

TTGNN_TEST_HOST_SPACES("sbm: features are class means plus unit Gaussian noise") {
  check_features<ExecutionSpace>();
}

TEST_CASE("sbm: invalid or infeasible configurations are ConfigErrors") {
  auto bad = [](auto edit) {
    SbmConfig c = config(1000, 4, 10, 0.5, 1);
    edit(c);
    CHECK_THROWS_AS(SbmGenerator{c}, ttgnn::ConfigError);
  };
  bad([](SbmConfig &c) { c.homophily = 1.5; });
  bad([](SbmConfig &c) { c.power_law = 1.8; });
  bad([](SbmConfig &c) { c.num_classes = 1; });      // h < 1 with one class
  bad([](SbmConfig &c) { c.avg_degree = 600; });     // more cross edges than pairs/2
  bad([](SbmConfig &c) { c.train_fraction = 0.9; }); // train + valid > 1
  bad([](SbmConfig &c) { c.num_nodes = 3; });        // fewer nodes than classes
  bad([](SbmConfig &c) {
    c.communities = 250;
    c.homophily = 1;
  }); // 1-node communities
  bad([](SbmConfig &c) { c.num_nodes = (std::int64_t{1} << 30) + 1; });
  SbmConfig one = config(100, 1, 4, 1.0, 1); // one class is fine when h = 1
  CHECK_NOTHROW(SbmGenerator{one});
}

TEST_CASE("sbm: OGB layout on disk (gzip and plain) matches the generator") {
  SbmConfig c = config(3000, 3, 6, 0.75, 17);
  c.num_features = 5;
  c.communities = 2;
  const SbmGenerator gen(c);
  const auto edges = gen.generate_edges(Kokkos::DefaultHostExecutionSpace());
  for (bool gzip : {true, false}) {
    CAPTURE(gzip);
    const fs::path dir = scratch(gzip ? "gz" : "plain");
    ttgnn::SbmWriteOptions opt;
    opt.gzip = gzip;
    opt.split_name = "mysplit";
    opt.block_lines = 1000; // several gzip members per file
    const auto record =
        ttgnn::write_sbm_dataset(Kokkos::DefaultHostExecutionSpace(), gen, edges, dir, opt);
    const std::string ext = gzip ? ".csv.gz" : ".csv";
    CHECK(fs::exists(dir / "meta.csv"));
    CHECK(fs::exists(dir / ("raw/edge" + ext)));
    const auto edge_lines = read_lines((dir / ("raw/edge" + ext)).string());
    REQUIRE(edge_lines.size() == static_cast<std::size_t>(edges.size()));
    for (std::size_t i = 0; i < edge_lines.size(); ++i)
      REQUIRE(edge_lines[i] == std::to_string(SbmGenerator::Edges::source(edges.keys(i))) + "," +
                                   std::to_string(SbmGenerator::Edges::target(edges.keys(i))));
    CHECK(read_lines((dir / ("raw/num-node-list" + ext)).string()) ==
          std::vector<std::string>{"3000"});
    CHECK(read_lines((dir / ("raw/num-edge-list" + ext)).string()) ==
          std::vector<std::string>{std::to_string(edges.size())});
    const auto label_lines = read_lines((dir / ("raw/node-label" + ext)).string());
    REQUIRE(label_lines.size() == 3000);
    const auto labels = gen.labels();
    for (std::size_t i = 0; i < 3000; ++i)
      REQUIRE(label_lines[i] == std::to_string(labels(i)));
    auto x = gen.features(Kokkos::DefaultHostExecutionSpace());
    const auto feat_lines = read_lines((dir / ("raw/node-feat" + ext)).string());
    REQUIRE(feat_lines.size() == 3000);
    for (std::size_t i = 0; i < 3000; i += 7) {
      std::string_view line = feat_lines[i];
      for (int j = 0; j < 5; ++j) {
        float v = 0;
        auto [p, ec] = std::from_chars(line.data(), line.data() + line.size(), v);
        REQUIRE(ec == std::errc());
        CHECK(v == x(i, j)); // shortest round-trip text: exact
        line.remove_prefix(std::min(line.size(), static_cast<std::size_t>(p - line.data()) + 1));
      }
    }
    const auto split = gen.split();
    const auto train_lines = read_lines((dir / ("split/mysplit/train" + ext)).string());
    REQUIRE(train_lines.size() == split.train.extent(0));
    CHECK(train_lines.front() == std::to_string(split.train(0)));
    CHECK(read_lines((dir / ("split/mysplit/test" + ext)).string()).size() == split.test.extent(0));
    // meta.csv: inverse-edge flag, classes and the generation record.
    std::ifstream meta(dir / "meta.csv");
    std::string all((std::istreambuf_iterator<char>(meta)), std::istreambuf_iterator<char>());
    CHECK(all.find("add_inverse_edge,True\n") != std::string::npos);
    CHECK(all.find("num_classes,3\n") != std::string::npos);
    CHECK(all.find("sbm_seed,17\n") != std::string::npos);
    CHECK(all.find("sbm_achieved_homophily,") != std::string::npos);
    CHECK(std::find_if(record.begin(), record.end(), [](auto const &kv) {
            return kv.first == "achieved_avg_degree";
          }) != record.end());
    // No temporary folder left next to the result.
    for (auto const &entry : fs::directory_iterator(dir.parent_path()))
      CHECK(entry.path().filename().string().rfind(dir.filename().string() + ".tmp-", 0) != 0);

    // A non-empty destination is refused, replaced with force.
    CHECK_THROWS_AS(
        ttgnn::write_sbm_dataset(Kokkos::DefaultHostExecutionSpace(), gen, edges, dir, opt),
        ttgnn::InputError);
    opt.force = true;
    opt.split_name = "other";
    ttgnn::write_sbm_dataset(Kokkos::DefaultHostExecutionSpace(), gen, edges, dir, opt);
    CHECK(fs::exists(dir / "split/other"));
    CHECK(!fs::exists(dir / "split/mysplit"));
    fs::remove_all(dir);
  }
}

TEST_CASE("sbm: an uncommitted OgbWriter leaves nothing behind") {
  const fs::path dir = scratch("uncommitted");
  std::string temp;
  {
    ttgnn::OgbWriter writer(dir.string(), true, false);
    temp = writer.temp_dir();
    writer.write_table("raw/num-node-list.csv", "5\n");
    CHECK(fs::exists(temp + "/raw/num-node-list.csv.gz"));
  }
  CHECK(!fs::exists(temp));
  CHECK(!fs::exists(dir));
  fs::create_directories(dir); // an empty destination is fine
  {
    ttgnn::OgbWriter writer(dir.string(), false, false);
    writer.write_plain("meta.csv", "key,value\n");
    writer.commit();
  }
  CHECK(fs::exists(dir / "meta.csv"));
  fs::remove_all(dir);
}

TEST_CASE("sbm: an OgbWriter stopped by a signal leaves nothing behind") {
  const fs::path dir = scratch("signalled");
  // the child writes a folder's files and is stopped by SIGTERM before commit
  CHECK(ttgnn::test::signal_ending_child([&] {
          ttgnn::OgbWriter writer(dir.string(), true, false);
          writer.write_table("raw/num-node-list.csv", "5\n");
          writer.write_table("split/random/train.csv", "0\n");
          writer.write_plain("meta.csv", "key,value\n");
        }) == SIGTERM);
  CHECK(!fs::exists(dir));
  std::vector<std::string> left; // the temporary folder is next to the destination
  for (auto const &entry : fs::directory_iterator(dir.parent_path()))
    if (entry.path().filename().string().rfind(dir.filename().string() + ".tmp-", 0) == 0)
      left.push_back(entry.path().string());
  CHECK(left.empty());
}

TEST_CASE("sbm: round trip generate -> OGB folder -> load_ogb gives the same dataset") {
  SbmConfig c = config(4000, 3, 8, 0.7, 23);
  c.communities = 2;
  c.power_law = 2.8;
  c.num_features = 7;
  c.feature_separation = 2;
  const SbmGenerator gen(c);
  Kokkos::DefaultHostExecutionSpace space;
  const auto edges = gen.generate_edges(space);
  const auto x = gen.features(space);
  const auto split = gen.split();
  // Expected symmetric CSR: both directions of every edge, neighbours sorted.
  std::vector<std::vector<std::int32_t>> adj(c.num_nodes);
  for (std::int64_t i = 0; i < edges.size(); ++i) {
    const auto u = SbmGenerator::Edges::source(edges.keys(i));
    const auto v = SbmGenerator::Edges::target(edges.keys(i));
    adj[u].push_back(v);
    adj[v].push_back(u);
  }
  for (auto &a : adj)
    std::sort(a.begin(), a.end());
  for (bool gzip : {true, false}) {
    CAPTURE(gzip);
    const fs::path dir = scratch(gzip ? "roundtrip_gz" : "roundtrip_plain");
    ttgnn::SbmWriteOptions opt;
    opt.gzip = gzip;
    opt.block_lines = 5000; // several gzip members per file
    ttgnn::write_sbm_dataset(space, gen, edges, dir.string(), opt);
    ttgnn::LoadOptions load;
    load.split = "random";
    const auto data = ttgnn::load_ogb<std::int32_t>(dir.string(), load);
    REQUIRE(data.num_nodes() == c.num_nodes);
    CHECK(data.num_classes == c.num_classes);
    REQUIRE(data.graph.num_arcs() == 2 * edges.size());
    for (std::int64_t u = 0; u < c.num_nodes; ++u) {
      const auto b = data.graph.row_map(u), e = data.graph.row_map(u + 1);
      REQUIRE(e - b == static_cast<std::int64_t>(adj[u].size()));
      for (auto k = b; k < e; ++k)
        REQUIRE(data.graph.entries(k) == adj[u][k - b]);
    }
    const auto labels = gen.labels();
    for (std::int64_t i = 0; i < c.num_nodes; ++i)
      REQUIRE(data.labels(i) == labels(i));
    REQUIRE(data.features.extent(0) == x.extent(0));
    REQUIRE(data.features.extent(1) == x.extent(1));
    for (std::int64_t i = 0; i < c.num_nodes; ++i)
      for (int j = 0; j < c.num_features; ++j)
        REQUIRE(data.features(i, j) == x(i, j)); // exact: the text form reads back exactly
    auto same = [](auto const &a, auto const &b) {
      return a.extent(0) == b.extent(0) && std::equal(a.data(), a.data() + a.size(), b.data());
    };
    CHECK(data.split_name == "random");
    CHECK(same(data.train, split.train));
    CHECK(same(data.valid, split.valid));
    CHECK(same(data.test, split.test));
    fs::remove_all(dir);
  }
}
