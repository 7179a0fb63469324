// Layers of models/: finite-difference gradient checks in double for every layer (inputs and
// all parameters), gcn_norm / mean aggregation values by hand, dropout determinism and keep
// rate, BatchNorm running statistics, cross-entropy by hand, parameter aliasing and seeding.
#include "core/error.hpp"
#include "graph/csr_graph.hpp"
#include "models/layers/batch_norm.hpp"
#include "models/layers/dropout.hpp"
#include "models/layers/gcn_conv.hpp"
#include "models/layers/gcn_norm.hpp"
#include "models/layers/graph_operator.hpp"
#include "models/layers/linear.hpp"
#include "models/loss/log_softmax_cross_entropy.hpp"
#include "models/layers/relu.hpp"
#include "models/layers/sage_conv.hpp"
#include "test_harness.hpp"

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace {

template <class Space> using Mat = ttgnn::Matrix<double, Space>;
template <class Space> using Vec = Kokkos::View<double *, typename Space::memory_space>;
using HostGraph = ttgnn::CsrGraph<std::int32_t, Kokkos::HostSpace>;

HostGraph make_graph(std::int64_t n, std::vector<std::pair<int, int>> const &arcs) {
  std::vector<std::set<int>> rows(n);
  for (auto const &a : arcs)
    rows[a.first].insert(a.second);
  HostGraph g;
  g.row_map = Kokkos::View<std::int64_t *, Kokkos::HostSpace>("ttgnn::test::row_map", n + 1);
  std::vector<int> cols;
  for (std::int64_t i = 0; i < n; ++i) {
    cols.insert(cols.end(), rows[i].begin(), rows[i].end());
    g.row_map(i + 1) = std::int64_t(cols.size());
  }
  g.entries = Kokkos::View<std::int32_t *, Kokkos::HostSpace>("ttgnn::test::entries", cols.size());
  for (std::size_t k = 0; k < cols.size(); ++k)
    g.entries(k) = cols[k];
  return g;
}

/// Random graph on n nodes, each undirected edge with probability q (both arcs when symmetric,
/// one random direction otherwise); node n - 1 is left isolated.
HostGraph random_graph(int n, double q, bool symmetric, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::pair<int, int>> arcs;
  for (int i = 0; i < n - 1; ++i)
    for (int j = i + 1; j < n - 1; ++j)
      if (double(rng() % 1000) < q * 1000) {
        const bool forward = rng() % 2 == 0;
        if (symmetric || forward)
          arcs.emplace_back(i, j);
        if (symmetric || !forward)
          arcs.emplace_back(j, i);
      }
  return make_graph(n, arcs);
}

template <class Space>
Mat<Space> random_matrix(std::int64_t n, std::int64_t m, std::uint64_t seed, double away = 0) {
  Mat<Space> x("ttgnn::test::x", n, m);
  auto h = Kokkos::create_mirror_view(x);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < m; ++j) {
      double v = u(rng);
      if (std::fabs(v) < away) // keep |v| >= away (ReLU: no kink within the FD step)
        v = v < 0 ? v - away : v + away;
      h(i, j) = v;
    }
  Kokkos::deep_copy(x, h);
  return x;
}

/// Flat (unmanaged) view of a matrix's entries.
template <class M> Kokkos::View<double *, typename M::memory_space> flat(M const &m) {
  return Kokkos::View<double *, typename M::memory_space>(m.data(), m.size());
}

/// L = sum_ij r_ij y_ij and its magnitude sum_ij |r_ij y_ij|.
template <class M> std::pair<double, double> weighted_sum(M const &y, M const &r) {
  auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  auto hr = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), r);
  double s = 0, a = 0;
  for (std::size_t i = 0; i < hy.extent(0); ++i)
    for (std::size_t j = 0; j < hy.extent(1); ++j) {
      s += hr(i, j) * hy(i, j);
      a += std::fabs(hr(i, j) * hy(i, j));
    }
  return {s, a};
}

template <class Space> struct Variable {
  std::string name;
  Vec<Space> value, grad;
};

/// Central differences against the analytic gradient, for every entry of every variable.
/// loss() returns (L, M) with M a bound on the magnitude of the terms summed into L.
/// Error of (L(p + h) - L(p - h)) / 2h: truncation h^2 / 6 |L'''| (|L'''| <= ~10 here: products
/// of O(1) values, BatchNorm's and softmax's smooth factors), rounding ~ 10 eps M / h (each L
/// is a sum of terms carrying a few roundings each). With h = 1e-6 both are ~1e-9 or less;
/// the check allows 1e-6 relative plus 10 h^2 + 10 eps M / h absolute.
template <class Space>
void check_gradients(std::function<std::pair<double, double>()> const &loss,
                     std::function<void()> const &backward,
                     std::vector<Variable<Space>> const &vars) {
  const double h = 1e-6, eps = std::numeric_limits<double>::epsilon();
  const double magnitude = loss().second;
  backward();
  Space().fence();
  for (auto const &var : vars) {
    CAPTURE(var.name);
    auto value = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), var.value);
    auto grad = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), var.grad);
    REQUIRE(value.extent(0) == grad.extent(0));
    REQUIRE(value.extent(0) > 0);
    int failures = 0;
    double worst = 0;
    for (std::size_t k = 0; k < value.extent(0); ++k) {
      const double saved = value(k);
      value(k) = saved + h;
      Kokkos::deep_copy(var.value, value);
      const double lp = loss().first;
      value(k) = saved - h;
      Kokkos::deep_copy(var.value, value);
      const double lm = loss().first;
      value(k) = saved;
      Kokkos::deep_copy(var.value, value);
      const double numeric = (lp - lm) / (2 * h);
      const double tol = 1e-6 * std::fabs(grad(k)) + 10 * h * h + 10 * eps * magnitude / h;
      const double err = std::fabs(numeric - grad(k));
      worst = std::max(worst, err / tol);
      if (!(err <= tol) && ++failures <= 3) {
        CAPTURE(k);
        CHECK(grad(k) == doctest::Approx(numeric));
      }
    }
    CHECK(failures == 0);
    MESSAGE(var.name << ": worst |error| / tolerance = " << worst);
  }
}

// ------------------------------------------------------------------ gcn_norm, mean by hand

template <class Space>
std::vector<double> dense_of(ttgnn::GraphOperator<double, Space> const &op, bool transpose) {
  // Applies the operator to the identity: column c of A * I is column c of A.
  const std::int64_t in = transpose ? op.num_rows : op.num_cols;
  const std::int64_t out = transpose ? op.num_cols : op.num_rows;
  Mat<Space> eye("ttgnn::test::eye", in, in), y("ttgnn::test::y", out, in);
  auto he = Kokkos::create_mirror_view(eye);
  for (std::int64_t i = 0; i < in; ++i)
    he(i, i) = 1;
  Kokkos::deep_copy(eye, he);
  if (transpose)
    op.apply_transpose(Space(), eye, y);
  else
    op.apply(Space(), eye, y);
  auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  std::vector<double> d(out * in);
  for (std::int64_t i = 0; i < out; ++i)
    for (std::int64_t j = 0; j < in; ++j)
      d[i * in + j] = hy(i, j);
  return d;
}

template <class Space> void check_gcn_norm_by_hand() {
  const Space space;
  // Path 0 - 1 - 2. With self loops: degrees 2, 3, 2.
  const auto g = make_graph(3, {{0, 1}, {1, 0}, {1, 2}, {2, 1}});
  const auto op = ttgnn::gcn_norm<double>(space, g);
  CHECK(op.symmetric);
  CHECK(op.num_nonzeros() == 7);
  const double r6 = 1 / std::sqrt(6.0);
  const std::vector<double> expected = {0.5, r6, 0, r6, 1.0 / 3, r6, 0, r6, 0.5};
  const auto a = dense_of(op, false), at = dense_of(op, true);
  for (int k = 0; k < 9; ++k) {
    CHECK(a[k] == doctest::Approx(expected[k]).epsilon(1e-15));
    CHECK(at[k] == doctest::Approx(expected[k]).epsilon(1e-15));
  }
  // Without self loops: degrees 1, 2, 1, values 1/sqrt(2) on the arcs.
  const auto op0 = ttgnn::gcn_norm<double>(space, g, false);
  const auto a0 = dense_of(op0, false);
  const double r2 = 1 / std::sqrt(2.0);
  const std::vector<double> expected0 = {0, r2, 0, r2, 0, r2, 0, r2, 0};
  for (int k = 0; k < 9; ++k)
    CHECK(a0[k] == doctest::Approx(expected0[k]).epsilon(1e-15));

  // Directed: rows 0: {1}, 1: {}, 2: {0, 1}. With loops: 0: {0, 1}, 1: {1}, 2: {0, 1, 2};
  // degrees 2, 1, 3; value (i, j) = 1 / sqrt(deg i deg j). The transpose is built.
  const auto d = make_graph(3, {{0, 1}, {2, 0}, {2, 1}});
  const auto opd = ttgnn::gcn_norm<double>(space, d);
  CHECK_FALSE(opd.symmetric);
  const double deg[3] = {2, 1, 3};
  const int pattern[9] = {1, 1, 0, 0, 1, 0, 1, 1, 1};
  const auto ad = dense_of(opd, false), adt = dense_of(opd, true);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const double v = pattern[i * 3 + j] ? 1 / std::sqrt(deg[i] * deg[j]) : 0.0;
      CHECK(ad[i * 3 + j] == doctest::Approx(v).epsilon(1e-15));
      CHECK(adt[j * 3 + i] == doctest::Approx(v).epsilon(1e-15));
    }
  // Out-of-range neighbour ids are refused.
  auto bad = make_graph(3, {{0, 1}});
  bad.entries(0) = 7;
  CHECK_THROWS_AS(ttgnn::gcn_norm<double>(space, bad), ttgnn::InputError);
}

template <class Space> void check_mean_by_hand() {
  const Space space;
  // Path 0 - 1 - 2 plus isolated node 3: rows 0: {1} -> 1, 1: {0, 2} -> 1/2, 2: {1} -> 1.
  const auto g = make_graph(4, {{0, 1}, {1, 0}, {1, 2}, {2, 1}});
  const auto op = ttgnn::mean_aggregation<double>(space, g);
  const std::vector<double> expected = {0, 1, 0, 0, 0.5, 0, 0.5, 0, 0, 1, 0, 0, 0, 0, 0, 0};
  const auto a = dense_of(op, false), at = dense_of(op, true);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      CHECK(a[i * 4 + j] == expected[i * 4 + j]);
      CHECK(at[j * 4 + i] == expected[i * 4 + j]);
    }
  // Directed: transpose built by transpose_csr.
  const auto d = make_graph(3, {{0, 1}, {0, 2}, {2, 1}});
  const auto opd = ttgnn::mean_aggregation<double>(space, d);
  const std::vector<double> ed = {0, 0.5, 0.5, 0, 0, 0, 0, 1, 0};
  const auto ad = dense_of(opd, false), adt = dense_of(opd, true);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      CHECK(ad[i * 3 + j] == ed[i * 3 + j]);
      CHECK(adt[j * 3 + i] == ed[i * 3 + j]);
    }
}

// ------------------------------------------------------------------ gradient checks

template <class Space, class Layer>
std::vector<Variable<Space>> parameter_variables(Layer const &layer, std::string const &what) {
  std::vector<Variable<Space>> vars;
  const auto p = layer.parameters(), g = layer.gradients();
  REQUIRE(p.size() == g.size());
  for (std::size_t k = 0; k < p.size(); ++k)
    vars.push_back({what + " parameter " + std::to_string(k), p[k], g[k]});
  return vars;
}

/// Sets every parameter to random values (so zero biases and unit gammas do not hide terms).
template <class Layer> void randomise_parameters(Layer const &layer, std::uint64_t seed) {
  for (auto const &p : layer.parameters())
    ttgnn::uniform_fill(p, 0.8, seed++);
}

/// Gradient check of a plain layer y = f(x) with L = sum(r * y).
template <class Space, class Layer>
void check_plain_layer(
    Layer &layer, std::int64_t n, std::int64_t in, std::int64_t out, std::string const &what,
    double away = 0, std::function<void()> const &before_forward = [] {}) {
  CAPTURE(what);
  const Space space;
  auto x = random_matrix<Space>(n, in, 1, away);
  auto r = random_matrix<Space>(n, out, 2);
  Mat<Space> y("ttgnn::test::y", n, out), gx("ttgnn::test::gx", n, in);
  auto vars = parameter_variables<Space>(layer, what);
  vars.push_back({what + " input", flat(x), flat(gx)});
  check_gradients<Space>(
      [&] {
        before_forward();
        layer.forward(space, x, y);
        return weighted_sum(y, r);
      },
      [&] {
        layer.zero_grad(space);
        layer.backward(space, r, gx);
      },
      vars);
}

/// Gradient check of a graph layer y = f(A, x).
template <class Space, class Layer>
void check_graph_layer(Layer &layer, ttgnn::GraphOperator<double, Space> const &a, std::int64_t in,
                       std::int64_t out, std::string const &what) {
  CAPTURE(what);
  const Space space;
  auto x = random_matrix<Space>(a.num_cols, in, 3);
  auto r = random_matrix<Space>(a.num_rows, out, 4);
  Mat<Space> y("ttgnn::test::y", a.num_rows, out), gx("ttgnn::test::gx", a.num_cols, in);
  randomise_parameters(layer, 5);
  auto vars = parameter_variables<Space>(layer, what);
  vars.push_back({what + " input", flat(x), flat(gx)});
  check_gradients<Space>(
      [&] {
        layer.forward(space, a, x, y);
        return weighted_sum(y, r);
      },
      [&] {
        layer.zero_grad(space);
        layer.backward(space, r, gx);
      },
      vars);
}

template <class Space> void check_linear_gradients() {
  ttgnn::Linear<double, Space> with_bias(5, 3, true, ttgnn::Init::kaiming, 1);
  check_plain_layer<Space>(with_bias, 7, 5, 3, "linear");
  ttgnn::Linear<double, Space> no_bias(4, 6, false, ttgnn::Init::glorot, 2);
  CHECK(no_bias.parameters().size() == 1);
  check_plain_layer<Space>(no_bias, 7, 4, 6, "linear without bias");
}

/// Rectangular mean operator of a sampled block: 4 output nodes (the first 4 of 9 inputs).
template <class Space> ttgnn::GraphOperator<double, Space> block_operator() {
  using M = typename Space::memory_space;
  const std::vector<std::int64_t> rm = {0, 3, 3, 5, 9};
  const std::vector<std::int32_t> en = {4, 1, 7, 8, 0, 2, 5, 6, 3};
  Kokkos::View<std::int64_t *, M> row_map("ttgnn::test::block_row_map", rm.size());
  Kokkos::View<std::int32_t *, M> entries("ttgnn::test::block_entries", en.size());
  Kokkos::View<double *, M> values("ttgnn::test::block_values", en.size());
  auto hr = Kokkos::create_mirror_view(row_map);
  auto he = Kokkos::create_mirror_view(entries);
  auto hv = Kokkos::create_mirror_view(values);
  for (std::size_t i = 0; i < rm.size(); ++i)
    hr(i) = rm[i];
  for (std::size_t i = 0; i + 1 < rm.size(); ++i)
    for (std::int64_t k = rm[i]; k < rm[i + 1]; ++k) {
      he(k) = en[k];
      hv(k) = 1.0 / double(rm[i + 1] - rm[i]);
    }
  Kokkos::deep_copy(row_map, hr);
  Kokkos::deep_copy(entries, he);
  Kokkos::deep_copy(values, hv);
  return ttgnn::make_graph_operator(Space(), 9, row_map, entries, values);
}

template <class Space> void check_gcn_gradients() {
  const Space space;
  const auto sym = ttgnn::gcn_norm<double>(space, random_graph(9, 0.35, true, 7));
  const auto dir = ttgnn::gcn_norm<double>(space, random_graph(9, 0.35, false, 8));
  CHECK(sym.symmetric);
  CHECK_FALSE(dir.symmetric);
  for (auto const *a : {&sym, &dir}) {
    ttgnn::GCNConv<double, Space> shrink(5, 3, true, 11), grow(3, 5, true, 12);
    CHECK_FALSE(shrink.aggregate_first());
    CHECK(grow.aggregate_first());
    check_graph_layer<Space>(shrink, *a, 5, 3, a->symmetric ? "gcn 5->3 sym" : "gcn 5->3 dir");
    check_graph_layer<Space>(grow, *a, 3, 5, a->symmetric ? "gcn 3->5 sym" : "gcn 3->5 dir");
  }
  ttgnn::GCNConv<double, Space> block_layer(4, 2, false, 13);
  check_graph_layer<Space>(block_layer, block_operator<Space>(), 4, 2, "gcn block");
}

template <class Space> void check_sage_gradients() {
  const Space space;
  const auto sym = ttgnn::mean_aggregation<double>(space, random_graph(9, 0.35, true, 9));
  const auto dir = ttgnn::mean_aggregation<double>(space, random_graph(9, 0.35, false, 10));
  const auto block = block_operator<Space>();
  for (auto const *a : {&sym, &dir, &block}) {
    const std::string name = a == &sym ? "sym" : a == &dir ? "dir" : "block";
    ttgnn::SAGEConv<double, Space> shrink(5, 3, true, 21), grow(3, 5, true, 22);
    check_graph_layer<Space>(shrink, *a, 5, 3, "sage 5->3 " + name);
    check_graph_layer<Space>(grow, *a, 3, 5, "sage 3->5 " + name);
  }
  ttgnn::SAGEConv<double, Space> no_bias(3, 3, false, 23);
  CHECK(no_bias.parameters().size() == 2);
  check_graph_layer<Space>(no_bias, sym, 3, 3, "sage without bias");
}

template <class View> std::vector<double> to_host(View const &v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<double>(h.data(), h.data() + h.size());
}

/// Dropout::forward_relu / backward_relu seen as one plain layer (for check_plain_layer).
template <class Space> struct FusedReluDropout {
  ttgnn::Dropout<double, Space> &dropout;
  auto parameters() const { return dropout.parameters(); }
  auto gradients() const { return dropout.gradients(); }
  void zero_grad(Space const &space) { dropout.zero_grad(space); }
  void forward(Space const &space, Mat<Space> const &x, Mat<Space> const &y) {
    dropout.forward_relu(space, x, y);
  }
  void backward(Space const &space, Mat<Space> const &gy, Mat<Space> const &gx) {
    dropout.backward_relu(space, gy, gx);
  }
};

/// The fused kernels against ReLU then Dropout: the same mask stream, bitwise equal outputs and
/// input gradients (both compute relu(x) * (1 / (1 - p)) on kept entries, and y > 0 marks
/// exactly the kept, positive entries), in training and in evaluation, in place or not.
template <class Space> void check_fused_relu_dropout() {
  const Space space;
  const std::int64_t n = 37, m = 29;
  auto x = random_matrix<Space>(n, m, 41); // about half the entries negative
  auto gy = random_matrix<Space>(n, m, 42);
  for (bool training : {true, false}) {
    CAPTURE(training);
    ttgnn::ReLU<double, Space> relu;
    ttgnn::Dropout<double, Space> apart(0.35, 9), fused(0.35, 9);
    apart.set_training(training);
    fused.set_training(training);
    Mat<Space> r("ttgnn::test::relu", n, m), y1("ttgnn::test::y1", n, m);
    Mat<Space> g1("ttgnn::test::g1", n, m), gr("ttgnn::test::gr", n, m);
    for (int step = 0; step < 2; ++step) { // two masks of the stream
      relu.forward(space, x, r);
      apart.forward(space, r, y1);
      apart.backward(space, gy, g1);
      relu.backward(space, g1, gr);
      Mat<Space> y2("ttgnn::test::y2", n, m), g2("ttgnn::test::g2", n, m);
      Kokkos::deep_copy(y2, x); // in place: y2 is x on entry
      fused.forward_relu(space, y2, y2);
      Kokkos::deep_copy(g2, gy);
      fused.backward_relu(space, g2, g2);
      CHECK(fused.step() == apart.step());
      auto h1 = to_host(y1), h2 = to_host(y2), hg1 = to_host(gr), hg2 = to_host(g2);
      std::int64_t differ = 0, kept = 0;
      for (std::size_t k = 0; k < h1.size(); ++k) {
        differ += (h1[k] != h2[k]) + (hg1[k] != hg2[k]);
        kept += h2[k] != 0;
      }
      CHECK(differ == 0);
      // kept ~ Binomial(n m, (1 - p) P(x > 0)) with P(x > 0) = 1/2 (eval: p = 0)
      const double q = (training ? 0.65 : 1.0) * 0.5, nn = double(n * m);
      CHECK(std::fabs(kept - nn * q) <= 6 * std::sqrt(nn * q * (1 - q)));
    }
    // a plain backward after a fused forward (and the converse) is refused
    CHECK_THROWS_AS(fused.backward(space, gy, g1), ttgnn::ConfigError);
    apart.forward(space, x, y1);
    CHECK_THROWS_AS(apart.backward_relu(space, gy, g1), ttgnn::ConfigError);
  }
}

template <class Space> void check_elementwise_gradients() {
  ttgnn::ReLU<double, Space> relu;
  check_plain_layer<Space>(relu, 6, 5, 5, "relu", 0.05);
  ttgnn::Dropout<double, Space> dropout(0.4, 77);
  check_plain_layer<Space>(dropout, 6, 5, 5, "dropout (training, mask 0)", 0,
                           [&] { dropout.set_step(0); });
  dropout.set_training(false);
  check_plain_layer<Space>(dropout, 6, 5, 5, "dropout (eval)");
  // fused ReLU + dropout: entries kept 0.05 away from the kink, as for relu
  ttgnn::Dropout<double, Space> fused(0.4, 78);
  FusedReluDropout<Space> fused_layer{fused};
  check_plain_layer<Space>(fused_layer, 6, 5, 5, "relu + dropout (training, mask 0)", 0.05,
                           [&] { fused.set_step(0); });
  fused.set_training(false);
  check_plain_layer<Space>(fused_layer, 6, 5, 5, "relu + dropout (eval)", 0.05);
}

template <class Space> void check_batch_norm_gradients() {
  ttgnn::BatchNorm1d<double, Space> bn(4);
  randomise_parameters(bn, 31);
  check_plain_layer<Space>(bn, 9, 4, 4, "batch norm (training)");
  bn.set_training(false);
  check_plain_layer<Space>(bn, 9, 4, 4, "batch norm (eval)");
  ttgnn::BatchNorm1d<double, Space> plain(3, 1e-5, 0.1, false);
  CHECK(plain.parameters().empty());
  check_plain_layer<Space>(plain, 7, 3, 3, "batch norm without affine");
}

template <class Space> void check_cross_entropy_gradients() {
  const Space space;
  using M = typename Space::memory_space;
  auto logits = random_matrix<Space>(6, 4, 41);
  Kokkos::View<std::int32_t *, M> labels("ttgnn::test::labels", 6);
  Kokkos::View<std::int64_t *, M> subset("ttgnn::test::subset", 4);
  auto hl = Kokkos::create_mirror_view(labels);
  auto hs = Kokkos::create_mirror_view(subset);
  const int lab[6] = {3, -1, 0, 2, -1, 1}; // unlabelled rows are outside the subset
  const std::int64_t sub[4] = {5, 0, 2, 3};
  for (int i = 0; i < 6; ++i)
    hl(i) = lab[i];
  for (int i = 0; i < 4; ++i)
    hs(i) = sub[i];
  Kokkos::deep_copy(labels, hl);
  Kokkos::deep_copy(subset, hs);
  ttgnn::LogSoftmaxCrossEntropy<double, Space> ce;
  Mat<Space> grad("ttgnn::test::grad", 6, 4);
  check_gradients<Space>(
      [&] {
        const double l = ce.forward(space, logits, labels, subset);
        return std::make_pair(l, std::fabs(l) + 4.0);
      },
      [&] { ce.backward(space, grad); }, {{"cross entropy logits", flat(logits), flat(grad)}});
  // Rows outside the subset get no gradient.
  auto hg = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), grad);
  for (int j = 0; j < 4; ++j) {
    CHECK(hg(1, j) == 0);
    CHECK(hg(4, j) == 0);
  }
  // A subset node without a valid label is refused.
  hs(0) = 1;
  Kokkos::deep_copy(subset, hs);
  CHECK_THROWS_AS(ce.forward(space, logits, labels, subset), ttgnn::InputError);
}

/// A two-layer GCN as the trainer will build it, checked end to end:
/// GCNConv -> BatchNorm1d -> ReLU (in place) -> Dropout (in place) -> GCNConv -> cross entropy.
template <class Space> void check_stack_gradients() {
  const Space space;
  using M = typename Space::memory_space;
  const auto a = ttgnn::gcn_norm<double>(space, random_graph(10, 0.3, true, 51));
  const std::int64_t n = a.num_rows;
  ttgnn::GCNConv<double, Space> conv1(4, 6, true, 1), conv2(6, 3, true, 2);
  ttgnn::BatchNorm1d<double, Space> bn(6);
  ttgnn::ReLU<double, Space> relu;
  ttgnn::Dropout<double, Space> drop(0.25, 3);
  ttgnn::LogSoftmaxCrossEntropy<double, Space> ce;
  randomise_parameters(conv1, 60);
  randomise_parameters(conv2, 61);
  randomise_parameters(bn, 62);
  auto x = random_matrix<Space>(n, 4, 52, 0);
  Mat<Space> h("ttgnn::test::h", n, 6), out("ttgnn::test::out", n, 3);
  Mat<Space> gout("ttgnn::test::gout", n, 3), gh("ttgnn::test::gh", n, 6),
      gx("ttgnn::test::gx", n, 4);
  Kokkos::View<std::int32_t *, M> labels("ttgnn::test::labels", n);
  Kokkos::View<std::int64_t *, M> subset("ttgnn::test::subset", n);
  auto hl = Kokkos::create_mirror_view(labels);
  auto hs = Kokkos::create_mirror_view(subset);
  for (std::int64_t i = 0; i < n; ++i) {
    hl(i) = int(i % 3);
    hs(i) = i;
  }
  Kokkos::deep_copy(labels, hl);
  Kokkos::deep_copy(subset, hs);
  std::vector<Variable<Space>> vars;
  for (auto const &v : parameter_variables<Space>(conv1, "conv1"))
    vars.push_back(v);
  for (auto const &v : parameter_variables<Space>(bn, "bn"))
    vars.push_back(v);
  for (auto const &v : parameter_variables<Space>(conv2, "conv2"))
    vars.push_back(v);
  vars.push_back({"stack input", flat(x), flat(gx)});
  check_gradients<Space>(
      [&] {
        conv1.forward(space, a, x, h);
        bn.forward(space, h, h);
        relu.forward(space, h, h);
        drop.set_step(0);
        drop.forward(space, h, h);
        conv2.forward(space, a, h, out);
        const double l = ce.forward(space, out, labels, subset);
        return std::make_pair(l, std::fabs(l) + 10.0);
      },
      [&] {
        for (auto *layer : std::vector<ttgnn::Layer<double, Space> *>{&conv1, &bn, &conv2})
          layer->zero_grad(space);
        ce.backward(space, gout);
        conv2.backward(space, gout, gh);
        drop.backward(space, gh, gh);
        relu.backward(space, gh, gh);
        bn.backward(space, gh, gh);
        conv1.backward(space, gh, gx);
      },
      vars);
}

// ------------------------------------------------------------------ behaviour

template <class Space> void check_dropout_behaviour() {
  const Space space;
  const std::int64_t n = 400, m = 250; // 100000 entries
  auto x = random_matrix<Space>(n, m, 71, 0.01);
  Mat<Space> y1("ttgnn::test::y1", n, m), y2("ttgnn::test::y2", n, m), y3("ttgnn::test::y3", n, m);
  const double p = 0.3;
  ttgnn::Dropout<double, Space> a(p, 5), b(p, 5), c(p, 6);
  a.forward(space, x, y1);
  b.forward(space, x, y2);
  c.forward(space, x, y3);
  CHECK(a.step() == 1);
  auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  auto h1 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y1);
  auto h2 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y2);
  auto h3 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y3);
  std::int64_t kept = 0, same_as_other_seed = 0, mismatched = 0, bad_scale = 0;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < m; ++j) {
      if (h1(i, j) != h2(i, j))
        ++mismatched;
      if ((h1(i, j) != 0) == (h3(i, j) != 0))
        ++same_as_other_seed;
      if (h1(i, j) != 0) {
        ++kept;
        if (std::fabs(h1(i, j) - hx(i, j) / (1 - p)) > 1e-15)
          ++bad_scale;
      }
    }
  CHECK(mismatched == 0); // same seed, same step: same mask
  CHECK(bad_scale == 0);  // kept entries are scaled by 1 / (1 - p)
  // Reference: entry k of mask number s of seed z is kept iff
  // uniform01(mix64(key + k gamma)) >= p with key = mix64(mix64(z) ^ mix64(s)), i.e. draw k of
  // the splitmix64 stream starting at key (the kernel tests it in integers; the two must agree
  // on every entry)
  namespace rng = ttgnn::layer_rng;
  const std::uint64_t key = rng::mix64(rng::mix64(5) ^ rng::mix64(0));
  std::int64_t formula_mismatch = 0;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < m; ++j) {
      const std::uint64_t k = static_cast<std::uint64_t>(i * m + j);
      const bool keep = rng::uniform01(rng::mix64(key + k * ttgnn::splitmix64_gamma())) >= p;
      if (hx(i, j) != 0) // x is kept 0.01 away from 0: a kept entry is non-zero
        formula_mismatch += keep != (h1(i, j) != 0) ? 1 : 0;
    }
  CHECK(formula_mismatch == 0);
  // Kept count ~ Binomial(N, 1 - p): mean 70000, sigma = sqrt(N p (1 - p)) ~ 145; allow 6 sigma.
  const double nn = double(n * m), sigma = std::sqrt(nn * p * (1 - p));
  CHECK(std::fabs(double(kept) - nn * (1 - p)) <= 6 * sigma);
  // Another seed gives an independent mask: agreement ~ p^2 + (1-p)^2 = 0.58 of the entries.
  const double agree = 0.58 * nn, sigma_agree = std::sqrt(nn * 0.58 * 0.42);
  CHECK(std::fabs(double(same_as_other_seed) - agree) <= 6 * sigma_agree);
  // The next step draws a new mask; reset_parameters(seed) restarts the stream.
  a.forward(space, x, y2);
  Kokkos::deep_copy(h2, y2);
  std::int64_t differ = 0;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < m; ++j)
      differ += (h1(i, j) != 0) != (h2(i, j) != 0);
  CHECK(differ > 0);
  a.reset_parameters(5);
  a.forward(space, x, y2);
  Kokkos::deep_copy(h2, y2);
  differ = 0;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < m; ++j)
      differ += h1(i, j) != h2(i, j);
  CHECK(differ == 0);
  // Evaluation: identity.
  a.set_training(false);
  a.forward(space, x, y2);
  Kokkos::deep_copy(h2, y2);
  differ = 0;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < m; ++j)
      differ += h2(i, j) != hx(i, j);
  CHECK(differ == 0);
  // Row keys: row i draws the mask of row keys(i) of an unkeyed call. Keys = rows of x in
  // reverse order: keyed row i equals unkeyed row n - 1 - i (same seed and step); identity
  // keys equal the unkeyed mask. A wrong key count is refused.
  {
    using Keys = Kokkos::View<std::int64_t *, typename Space::memory_space>;
    Keys rev("ttgnn::test::rev", n), id("ttgnn::test::id", n);
    auto hr = Kokkos::create_mirror_view(rev);
    auto hi = Kokkos::create_mirror_view(id);
    for (std::int64_t i = 0; i < n; ++i) {
      hr(i) = n - 1 - i;
      hi(i) = i;
    }
    Kokkos::deep_copy(rev, hr);
    Kokkos::deep_copy(id, hi);
    Mat<Space> xr("ttgnn::test::xr", n, m); // x with its rows reversed
    auto hxr = Kokkos::create_mirror_view(xr);
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < m; ++j)
        hxr(i, j) = hx(n - 1 - i, j);
    Kokkos::deep_copy(xr, hxr);
    ttgnn::Dropout<double, Space> keyed(p, 5), ident(p, 5);
    keyed.set_row_keys(rev);
    ident.set_row_keys(id);
    keyed.forward(space, xr, y2);
    ident.forward(space, x, y3);
    Kokkos::deep_copy(h2, y2);
    Kokkos::deep_copy(h3, y3);
    std::int64_t keyed_differ = 0, ident_differ = 0;
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < m; ++j) {
        keyed_differ += h2(i, j) != h1(n - 1 - i, j);
        ident_differ += h3(i, j) != h1(i, j);
      }
    CHECK(keyed_differ == 0);
    CHECK(ident_differ == 0);
    Mat<Space> small("ttgnn::test::small", n - 1, m);
    CHECK_THROWS_AS(keyed.forward(space, small, small), ttgnn::ConfigError);
  }
  using D = ttgnn::Dropout<double, Space>;
  CHECK_THROWS_AS(D(1.0), ttgnn::ConfigError);
}

template <class Space> void check_batch_norm_running_stats() {
  const Space space;
  // Column 0: 1, 2, 3, 4 (mean 2.5, biased var 1.25, unbiased 5/3); column 1: 0, 0, 0, 4
  // (mean 1, biased var 3, unbiased 4).
  Mat<Space> x("ttgnn::test::x", 4, 2), y("ttgnn::test::y", 4, 2);
  auto hx = Kokkos::create_mirror_view(x);
  const double v[4][2] = {{1, 0}, {2, 0}, {3, 0}, {4, 4}};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j)
      hx(i, j) = v[i][j];
  Kokkos::deep_copy(x, hx);
  ttgnn::BatchNorm1d<double, Space> bn(2, 1e-5, 0.1);
  auto hg = Kokkos::create_mirror_view(bn.weight());
  auto hb = Kokkos::create_mirror_view(bn.bias());
  hg(0) = 2;
  hg(1) = 0.5;
  hb(0) = 1;
  hb(1) = -1;
  Kokkos::deep_copy(bn.weight(), hg);
  Kokkos::deep_copy(bn.bias(), hb);
  bn.forward(space, x, y);
  auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  // Training output uses the batch statistics.
  CHECK(hy(0, 0) == doctest::Approx(2 * (1 - 2.5) / std::sqrt(1.25 + 1e-5) + 1).epsilon(1e-12));
  CHECK(hy(3, 1) == doctest::Approx(0.5 * (4 - 1) / std::sqrt(3 + 1e-5) - 1).epsilon(1e-12));
  auto rm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), bn.running_mean());
  auto rv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), bn.running_var());
  CHECK(rm(0) == doctest::Approx(0.1 * 2.5).epsilon(1e-14));
  CHECK(rm(1) == doctest::Approx(0.1 * 1.0).epsilon(1e-14));
  CHECK(rv(0) == doctest::Approx(0.9 + 0.1 * 5.0 / 3.0).epsilon(1e-14));
  CHECK(rv(1) == doctest::Approx(0.9 + 0.1 * 4.0).epsilon(1e-14));
  // Evaluation: y = gamma (x - running_mean) / sqrt(running_var + eps) + beta.
  bn.set_training(false);
  bn.forward(space, x, y);
  Kokkos::deep_copy(hy, y);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j)
      CHECK(hy(i, j) == doctest::Approx(hg(j) * (v[i][j] - rm(j)) / std::sqrt(rv(j) + 1e-5) + hb(j))
                            .epsilon(1e-12));
  // Running statistics do not move in evaluation.
  auto rm2 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), bn.running_mean());
  CHECK(rm2(0) == rm(0));
  CHECK(bn.buffers().size() == 2);
  // One row cannot be normalised in training.
  bn.set_training(true);
  Mat<Space> one("ttgnn::test::one", 1, 2);
  CHECK_THROWS_AS(bn.forward(space, one, one), ttgnn::ConfigError);
}

template <class Space> void check_cross_entropy_by_hand() {
  const Space space;
  using M = typename Space::memory_space;
  // logits [[1, 2, 3], [1, 1, 1]], labels [2, 0]:
  // L = (log(e + e^2 + e^3) - 3 + log 3) / 2 = (0.4076059644443806 + 1.0986122886681098) / 2.
  Mat<Space> logits("ttgnn::test::logits", 2, 3), grad("ttgnn::test::grad", 2, 3);
  auto hl = Kokkos::create_mirror_view(logits);
  hl(0, 0) = 1;
  hl(0, 1) = 2;
  hl(0, 2) = 3;
  hl(1, 0) = hl(1, 1) = hl(1, 2) = 1;
  Kokkos::deep_copy(logits, hl);
  Kokkos::View<std::int32_t *, M> labels("ttgnn::test::labels", 2);
  Kokkos::View<std::int64_t *, M> subset("ttgnn::test::subset", 2);
  auto hlab = Kokkos::create_mirror_view(labels);
  auto hs = Kokkos::create_mirror_view(subset);
  hlab(0) = 2;
  hlab(1) = 0;
  hs(0) = 0;
  hs(1) = 1;
  Kokkos::deep_copy(labels, hlab);
  Kokkos::deep_copy(subset, hs);
  ttgnn::LogSoftmaxCrossEntropy<double, Space> ce;
  const double loss = ce.forward(space, logits, labels, subset);
  CHECK(loss == doctest::Approx((0.4076059644443806 + 1.0986122886681098) / 2).epsilon(1e-14));
  ce.backward(space, grad);
  auto hg = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), grad);
  const double z = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  const double g0[3] = {std::exp(1.0) / z, std::exp(2.0) / z, std::exp(3.0) / z - 1};
  const double g1[3] = {1.0 / 3 - 1, 1.0 / 3, 1.0 / 3};
  for (int j = 0; j < 3; ++j) {
    CHECK(hg(0, j) == doctest::Approx(g0[j] / 2).epsilon(1e-14));
    CHECK(hg(1, j) == doctest::Approx(g1[j] / 2).epsilon(1e-14));
  }
  // Arg-max accuracy: row 0 predicts 2 (right), row 1 predicts 0 on the tie (right).
  CHECK(ttgnn::count_correct(space, logits, labels, subset) == 2);
  // In float too.
  ttgnn::Matrix<float, Space> lf("ttgnn::test::logits_f", 2, 3);
  auto hf = Kokkos::create_mirror_view(lf);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      hf(i, j) = float(hl(i, j));
  Kokkos::deep_copy(lf, hf);
  ttgnn::LogSoftmaxCrossEntropy<float, Space> cef;
  CHECK(cef.forward(space, lf, labels, subset) ==
        doctest::Approx((0.4076059644443806 + 1.0986122886681098) / 2).epsilon(1e-6));
}

template <class Space> void check_parameters_and_seeds() {
  const Space space;
  ttgnn::Linear<float, Space> a(16, 8, true, ttgnn::Init::glorot, 3),
      b(16, 8, true, ttgnn::Init::glorot, 3);
  ttgnn::Linear<float, Space> c(16, 8, true, ttgnn::Init::glorot, 4);
  CHECK(a.num_parameters() == 16 * 8 + 8);
  auto wa = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.parameters()[0]);
  auto wb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b.parameters()[0]);
  auto wc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c.parameters()[0]);
  const double bound = std::sqrt(6.0 / 24.0);
  int same = 0, differ = 0, outside = 0;
  for (std::size_t k = 0; k < wa.extent(0); ++k) {
    same += wa(k) == wb(k);
    differ += wa(k) != wc(k);
    outside += std::fabs(wa(k)) > bound;
  }
  CHECK(same == 128);
  CHECK(differ == 128);
  CHECK(outside == 0);
  // parameters() aliases the weight: writing through it changes the layer's output.
  Kokkos::deep_copy(a.parameters()[0], 0.0f);
  Kokkos::deep_copy(a.parameters()[1], 2.0f);
  ttgnn::Matrix<float, Space> x("ttgnn::test::x", 3, 16), y("ttgnn::test::y", 3, 8);
  Kokkos::deep_copy(x, 1.0f);
  a.forward(space, x, y);
  auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  CHECK(hy(2, 7) == 2.0f);
  // Gradients accumulate until zero_grad.
  ttgnn::Matrix<float, Space> gy("ttgnn::test::gy", 3, 8), none;
  Kokkos::deep_copy(gy, 1.0f);
  a.zero_grad(space);
  a.backward(space, gy, none);
  a.backward(space, gy, none);
  auto gb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.gradients()[1]);
  CHECK(gb(0) == 6.0f);
  a.zero_grad(space);
  Kokkos::deep_copy(gb, a.gradients()[1]);
  CHECK(gb(0) == 0.0f);
  // Shapes are checked.
  ttgnn::Matrix<float, Space> wrong("ttgnn::test::wrong", 3, 5);
  CHECK_THROWS_AS(a.forward(space, wrong, y), ttgnn::ConfigError);
  CHECK_THROWS_AS(a.forward(space, x, wrong), ttgnn::ConfigError);
  // GCN and SAGE reset deterministically from the seed.
  ttgnn::SAGEConv<float, Space> s1(6, 4, true, 9), s2(6, 4, true, 1);
  s2.reset_parameters(9);
  for (std::size_t k = 0; k < 3; ++k) {
    auto p1 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s1.parameters()[k]);
    auto p2 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s2.parameters()[k]);
    for (std::size_t i = 0; i < p1.extent(0); ++i)
      CHECK(p1(i) == p2(i));
  }
}

} // namespace

TTGNN_TEST_ALL_SPACES("gcn_norm values by hand") {
  check_gcn_norm_by_hand<ExecutionSpace>();
}
TTGNN_TEST_ALL_SPACES("mean aggregation values by hand") {
  check_mean_by_hand<ExecutionSpace>();
}
TTGNN_TEST_ALL_SPACES("linear gradients") {
  check_linear_gradients<ExecutionSpace>();
}
TTGNN_TEST_ALL_SPACES("gcn conv gradients") {
  check_gcn_gradients<ExecutionSpace>();
}
TTGNN_TEST_ALL_SPACES("sage conv gradients") {
  check_sage_gradients<ExecutionSpace>();
}
TTGNN_TEST_ALL_SPACES("relu and dropout gradients") {
  check_elementwise_gradients<ExecutionSpace>();
}
TTGNN_TEST_ALL_SPACES("batch norm gradients") {
  check_batch_norm_gradients<ExecutionSpace>();
}
TTGNN_TEST_ALL_SPACES("cross entropy gradients") {
  check_cross_entropy_gradients<ExecutionSpace>();
}
TTGNN_TEST_ALL_SPACES("two-layer gcn stack gradients") {
  check_stack_gradients<ExecutionSpace>();
}
TTGNN_TEST_ALL_SPACES("fused relu + dropout equals relu then dropout") {
  check_fused_relu_dropout<ExecutionSpace>();
}
TTGNN_TEST_ALL_SPACES("dropout is seeded and keeps 1 - p") {
  check_dropout_behaviour<ExecutionSpace>();
}
TTGNN_TEST_ALL_SPACES("batch norm running statistics") {
  check_batch_norm_running_stats<ExecutionSpace>();
}
TTGNN_TEST_ALL_SPACES("cross entropy by hand") {
  check_cross_entropy_by_hand<ExecutionSpace>();
}
TTGNN_TEST_ALL_SPACES("parameters alias, seeds reproduce, shapes checked") {
  check_parameters_and_seeds<ExecutionSpace>();
}
