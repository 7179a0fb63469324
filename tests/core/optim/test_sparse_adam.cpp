// SparseAdam: untouched rows keep weights and moments, the global step and resuming, errors,
// agreement with dense Adam when every row is touched, and float.
#include "core/error.hpp"
#include "core/optim/adam.hpp"
#include "core/optim/sparse_adam.hpp"
#include "optim_test_util.hpp"
#include "test_harness.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace {

using namespace ttgnn::test;

template <class ExecutionSpace, class Scalar = double>
using Table = Kokkos::View<Scalar **, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>;
template <class ExecutionSpace>
using Ids = Kokkos::View<std::int64_t *, typename ExecutionSpace::memory_space>;

template <class ExecutionSpace, class Scalar = double>
Table<ExecutionSpace, Scalar> make_table(std::int64_t n, std::int64_t d,
                                         std::vector<double> const &x) {
  Table<ExecutionSpace, Scalar> t("ttgnn::test::table", n, d);
  auto h = Kokkos::create_mirror_view(t);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < d; ++j)
      h(i, j) = Scalar(x[i * d + j]);
  Kokkos::deep_copy(t, h);
  return t;
}

template <class View> std::vector<double> table_values(View const &t) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), t);
  std::vector<double> out;
  for (std::size_t i = 0; i < h.extent(0); ++i)
    for (std::size_t j = 0; j < h.extent(1); ++j)
      out.push_back(double(h(i, j)));
  return out;
}

template <class ExecutionSpace> Ids<ExecutionSpace> make_ids(std::vector<std::int64_t> const &x) {
  Ids<ExecutionSpace> v("ttgnn::test::ids", x.size());
  auto h = Kokkos::create_mirror_view(v);
  for (std::size_t i = 0; i < x.size(); ++i)
    h(i) = x[i];
  Kokkos::deep_copy(v, h);
  return v;
}

std::vector<double> random_values(std::size_t n, std::uint64_t seed, double lo, double hi) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> x(n);
  for (auto &v : x)
    v = u(rng);
  return x;
}

template <class ExecutionSpace> void check_sparse_adam_rows() {
  const ExecutionSpace space;
  const std::int64_t n = 10, d = 3;
  auto w0 = random_values(n * d, 5, -1, 1);
  auto table = make_table<ExecutionSpace>(n, d, w0);
  ttgnn::SparseAdamOptions o;
  o.lr = 0.01;
  ttgnn::SparseAdam<double, ExecutionSpace> opt(space, table, o);
  // Step 1 touches rows {7, 1, 4} (any order); gradients ±0.5, ±2.
  const std::vector<double> g1{0.5, -0.5, 2, -2, 0.5, 0.5, 1, -1, 2};
  opt.step(space, make_ids<ExecutionSpace>({7, 1, 4}), make_table<ExecutionSpace>(3, d, g1));
  auto w1 = table_values(table);
  auto m1 = table_values(opt.exp_avg()), v1 = table_values(opt.exp_avg_sq());
  const std::vector<std::int64_t> touched{7, 1, 4};
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t c = 0; c < d; ++c) {
      const auto e = r * d + c;
      auto it = std::find(touched.begin(), touched.end(), r);
      if (it == touched.end()) {
        CHECK(w1[e] == w0[e]); // untouched: bitwise unchanged, moments still zero
        CHECK(m1[e] == 0);
        CHECK(v1[e] == 0);
      } else {
        // t = 1: moves by lr·g·sqrt(1-b2)/(sqrt(1-b2)|g| + eps) = lr·sign(g) up to lr·eps/|g|·30.
        const double g = g1[(it - touched.begin()) * d + c];
        CHECK(std::fabs(w1[e] - (w0[e] - o.lr * (g > 0 ? 1 : -1))) <=
              o.lr * 1e-8 * 40 / std::fabs(g) + 1e-15);
        CHECK(m1[e] == doctest::Approx(0.1 * g).epsilon(1e-14).scale(0));
        CHECK(v1[e] == doctest::Approx(0.001 * g * g).epsilon(1e-14).scale(0));
      }
    }
  // Step 2 touches rows {4, 9}: row 1 and 7 (touched before) keep weights AND moments (no
  // decay of untouched moments); row 9, first touched at the global t = 2, moves by
  // lr·sqrt(1-b2²)/(1-b1²)·0.1g/(sqrt(0.001)|g|) = lr·0.1·sqrt(1.999)/0.19 = 0.7441368·lr.
  const std::vector<double> g2{1, 1, 1, -0.25, 4, 0.125};
  opt.step(space, make_ids<ExecutionSpace>({4, 9}), make_table<ExecutionSpace>(2, d, g2));
  CHECK(opt.step_count() == 2);
  auto w2 = table_values(table);
  auto m2 = table_values(opt.exp_avg()), v2 = table_values(opt.exp_avg_sq());
  for (std::int64_t r : {0, 1, 2, 3, 5, 6, 7, 8})
    for (std::int64_t c = 0; c < d; ++c) {
      CHECK(w2[r * d + c] == w1[r * d + c]);
      CHECK(m2[r * d + c] == m1[r * d + c]);
      CHECK(v2[r * d + c] == v1[r * d + c]);
    }
  for (std::int64_t c = 0; c < d; ++c) {
    const double g = g2[d + c];
    // eps shifts it by at most eps/(sqrt(0.001)·|g|) = 2.5e-6 relative (|g| >= 0.125).
    CHECK(w2[9 * d + c] - w1[9 * d + c] ==
          doctest::Approx(-0.744136823566987344 * o.lr * (g > 0 ? 1 : -1)).epsilon(5e-6).scale(0));
    // Row 4, second touch: m = 0.9·0.1·g1 + 0.1·g2 (torch's m + (1-b1)(g-m) form).
    CHECK(m2[4 * d + c] == doctest::Approx(0.09 * g1[2 * d + c] + 0.1 * g2[c]).epsilon(1e-14));
  }
  // Resuming: a fresh optimizer given the moments and step count after step 1 makes step 2 bit
  // for bit (the bias correction uses the restored t).
  {
    auto table_b = make_table<ExecutionSpace>(n, d, w1);
    ttgnn::SparseAdam<double, ExecutionSpace> resumed(space, table_b, o);
    Kokkos::deep_copy(resumed.exp_avg(), make_table<ExecutionSpace>(n, d, m1));
    Kokkos::deep_copy(resumed.exp_avg_sq(), make_table<ExecutionSpace>(n, d, v1));
    resumed.set_step_count(1);
    resumed.step(space, make_ids<ExecutionSpace>({4, 9}), make_table<ExecutionSpace>(2, d, g2));
    CHECK(table_values(table_b) == w2);
    CHECK_THROWS_AS(resumed.set_step_count(-1), ttgnn::ConfigError);
  }
  // An empty batch still counts as a step (torch increments state['step']).
  opt.step(space, make_ids<ExecutionSpace>({}), make_table<ExecutionSpace>(0, d, {}));
  CHECK(opt.step_count() == 3);
  CHECK(table_values(table) == w2);

  // Errors: repeated id, out-of-range id, wrong gradient extents. Nothing changes.
  CHECK_THROWS_AS(
      opt.step(space, make_ids<ExecutionSpace>({2, 2}), make_table<ExecutionSpace>(2, d, g2)),
      ttgnn::InputError);
  CHECK_THROWS_AS(
      opt.step(space, make_ids<ExecutionSpace>({2, 10}), make_table<ExecutionSpace>(2, d, g2)),
      ttgnn::InputError);
  CHECK_THROWS_AS(
      opt.step(space, make_ids<ExecutionSpace>({2, -1}), make_table<ExecutionSpace>(2, d, g2)),
      ttgnn::InputError);
  CHECK_THROWS_AS(
      opt.step(space, make_ids<ExecutionSpace>({2}), make_table<ExecutionSpace>(2, d, g2)),
      ttgnn::ConfigError);
  CHECK(opt.step_count() == 3);
  CHECK(table_values(table) == w2);
  // The marks were cleared after the failed check: a valid step with those ids works.
  opt.step(space, make_ids<ExecutionSpace>({2, 3}), make_table<ExecutionSpace>(2, d, g2));
  CHECK(opt.step_count() == 4);
}

template <class ExecutionSpace> void check_sparse_adam_matches_dense() {
  // With every row touched every step, SparseAdam and Adam differ only in where eps enters
  // (sqrt(v) + eps against sqrt(v/bc2) + eps); with eps = 0 they are the same function, so
  // they agree to rounding: a few ulp of the update (<= ~lr·3) per step on weights of
  // order 1 -> 1e-14 over 3 steps. Gradients are nonzero (|g| >= 0.1), so v > 0.
  const ExecutionSpace space;
  const std::int64_t n = 7, d = 5;
  auto w0 = random_values(n * d, 21, -1, 1);
  auto table = make_table<ExecutionSpace>(n, d, w0);
  auto flat = make_vec<ExecutionSpace>(w0);
  auto grad = make_vec<ExecutionSpace>(std::vector<double>(n * d));
  ttgnn::SparseAdamOptions so;
  so.lr = 0.05;
  so.eps = 0;
  ttgnn::AdamOptions ao;
  ao.lr = 0.05;
  ao.eps = 0;
  ttgnn::SparseAdam<double, ExecutionSpace> sparse(space, table, so);
  ttgnn::Adam<double, ExecutionSpace> dense(space, {flat}, {grad}, ao);
  for (int step = 0; step < 3; ++step) {
    auto g = random_values(n * d, 100 + step, 0.1, 1);
    for (std::size_t i = 0; i < g.size(); ++i)
      g[i] *= (i + step) % 3 ? 1 : -1;
    set_values(grad, g);
    dense.step(space);
    // Rows listed in a scrambled order, gradient rows matching.
    std::vector<std::int64_t> ids{3, 0, 6, 1, 5, 2, 4};
    std::vector<double> gr;
    for (auto r : ids)
      for (std::int64_t c = 0; c < d; ++c)
        gr.push_back(g[r * d + c]);
    sparse.step(space, make_ids<ExecutionSpace>(ids), make_table<ExecutionSpace>(n, d, gr));
  }
  auto a = table_values(table), b = values(flat);
  auto ma = table_values(sparse.exp_avg()), mb = values(dense.exp_avg()[0]);
  auto va = table_values(sparse.exp_avg_sq()), vb = values(dense.exp_avg_sq()[0]);
  for (std::int64_t i = 0; i < n * d; ++i) {
    CHECK(a[i] == doctest::Approx(b[i]).epsilon(1e-14));
    CHECK(ma[i] == doctest::Approx(mb[i]).epsilon(1e-14).scale(0));
    CHECK(va[i] == doctest::Approx(vb[i]).epsilon(1e-14).scale(0));
  }
}

template <class ExecutionSpace> void check_sparse_adam_float() {
  // float: the first step is lr·sign(g) to float rounding (|w| <= 1: 4 ulp of 1).
  const ExecutionSpace space;
  auto w0 = random_values(4 * 2, 3, -1, 1);
  auto table = make_table<ExecutionSpace, float>(4, 2, w0);
  ttgnn::SparseAdam<float, ExecutionSpace> opt(space, table, ttgnn::SparseAdamOptions{0.01});
  const std::vector<double> g{0.5, -3, 0.25, 1};
  opt.step(space, make_ids<ExecutionSpace>({2, 0}), make_table<ExecutionSpace, float>(2, 2, g));
  auto w = table_values(table);
  const double e = 4 * std::numeric_limits<float>::epsilon();
  CHECK(std::fabs(w[4] - (float(w0[4]) - 0.01)) <= e);
  CHECK(std::fabs(w[5] - (float(w0[5]) + 0.01)) <= e);
  CHECK(std::fabs(w[0] - (float(w0[0]) - 0.01)) <= e);
  CHECK(std::fabs(w[1] - (float(w0[1]) - 0.01)) <= e);
  CHECK(w[2] == float(w0[2]));
  CHECK(w[6] == float(w0[6]));
}

} // namespace

TTGNN_TEST_ALL_SPACES("sparse adam: untouched rows and moments unchanged, global step, errors") {
  check_sparse_adam_rows<ExecutionSpace>();
}
TTGNN_TEST_ALL_SPACES("sparse adam equals dense adam when every row is touched (eps = 0)") {
  check_sparse_adam_matches_dense<ExecutionSpace>();
}
TTGNN_TEST_ALL_SPACES("sparse adam in float") {
  check_sparse_adam_float<ExecutionSpace>();
}
