// Optimizers: every update against numbers derived by hand from the update rules (the rules
// are in the comments; step values were worked out in exact/high-precision arithmetic from
// those rules, independently of this code), SparseAdam's row-sparsity and its agreement with
// dense Adam, AdamW against Adam + L2, learning-rate changes, zero_grad and error checks.
#include "core/optim/adagrad.hpp"
#include "core/optim/adam.hpp"
#include "core/error.hpp"
#include "core/optim/sgd.hpp"
#include "core/optim/sparse_adam.hpp"
#include "test_harness.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace {

template <class ExecutionSpace, class Scalar = double>
using Vec = Kokkos::View<Scalar *, typename ExecutionSpace::memory_space>;

template <class View> void set_values(View const &v, std::vector<double> const &x) {
  auto h = Kokkos::create_mirror_view(v);
  for (std::size_t i = 0; i < x.size(); ++i)
    h(i) = typename View::non_const_value_type(x[i]);
  Kokkos::deep_copy(v, h);
}

template <class ExecutionSpace, class Scalar = double>
Vec<ExecutionSpace, Scalar> make_vec(std::vector<double> const &x) {
  Vec<ExecutionSpace, Scalar> v("ttgnn::test::vec", x.size());
  set_values(v, x);
  return v;
}

template <class View> std::vector<double> values(View const &v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  std::vector<double> out(h.extent(0));
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = double(h(i));
  return out;
}

/// Runs steps of \p opt with the given gradient of each step and returns w after each step
/// (one parameter of one entry).
template <class ExecutionSpace, class Opt>
std::vector<double> run_scalar(Opt &opt, std::vector<double> const &grads) {
  std::vector<double> out;
  for (double g : grads) {
    set_values(opt.gradients()[0], {g});
    opt.step(ExecutionSpace());
    out.push_back(values(opt.parameters()[0])[0]);
  }
  return out;
}

// Tolerance of the hand values: a few double roundings per step on numbers of order 1.
constexpr double tol = 1e-13;

template <class ExecutionSpace> void check_sgd() {
  const ExecutionSpace space;
  auto w = [] { return std::vector<Vec<ExecutionSpace>>{make_vec<ExecutionSpace>({1.0})}; };
  auto g = [] { return std::vector<Vec<ExecutionSpace>>{make_vec<ExecutionSpace>({0.0})}; };
  {
    // Plain: w <- w - lr·g, lr = 0.1: 1 - 0.05 = 0.95; g = -1: 0.95 + 0.1 = 1.05.
    ttgnn::Sgd<double, ExecutionSpace> opt(space, w(), g(), ttgnn::SgdOptions{0.1});
    auto x = run_scalar<ExecutionSpace>(opt, {0.5, -1.0});
    CHECK(x[0] == doctest::Approx(0.95).epsilon(tol));
    CHECK(x[1] == doctest::Approx(1.05).epsilon(tol));
    CHECK(opt.step_count() == 2);
  }
  {
    // Momentum mu = 0.9: b1 = g1 = 0.5, w = 0.95; b2 = 0.45 + 0.5 = 0.95, w = 0.855;
    // b3 = 0.855 - 1 = -0.145, w = 0.855 + 0.0145 = 0.8695.
    ttgnn::SgdOptions o;
    o.lr = 0.1;
    o.momentum = 0.9;
    ttgnn::Sgd<double, ExecutionSpace> opt(space, w(), g(), o);
    auto x = run_scalar<ExecutionSpace>(opt, {0.5, 0.5, -1.0});
    CHECK(x[0] == doctest::Approx(0.95).epsilon(tol));
    CHECK(x[1] == doctest::Approx(0.855).epsilon(tol));
    CHECK(x[2] == doctest::Approx(0.8695).epsilon(tol));
    CHECK(values(opt.momentum_buffer()[0])[0] == doctest::Approx(-0.145).epsilon(tol));
  }
  {
    // Dampening 0.5: the first buffer is the gradient itself (torch), b1 = 0.5, w = 0.95;
    // b2 = 0.9·0.5 + 0.5·0.5 = 0.7, w = 0.95 - 0.07 = 0.88.
    ttgnn::SgdOptions o;
    o.lr = 0.1;
    o.momentum = 0.9;
    o.dampening = 0.5;
    ttgnn::Sgd<double, ExecutionSpace> opt(space, w(), g(), o);
    auto x = run_scalar<ExecutionSpace>(opt, {0.5, 0.5});
    CHECK(x[0] == doctest::Approx(0.95).epsilon(tol));
    CHECK(x[1] == doctest::Approx(0.88).epsilon(tol));
  }
  {
    // Nesterov: b1 = 0.5, step g + mu·b = 0.95, w = 0.905; b2 = 0.95, step 0.5 + 0.855 =
    // 1.355, w = 0.905 - 0.1355 = 0.7695.
    ttgnn::SgdOptions o;
    o.lr = 0.1;
    o.momentum = 0.9;
    o.nesterov = true;
    ttgnn::Sgd<double, ExecutionSpace> opt(space, w(), g(), o);
    auto x = run_scalar<ExecutionSpace>(opt, {0.5, 0.5});
    CHECK(x[0] == doctest::Approx(0.905).epsilon(tol));
    CHECK(x[1] == doctest::Approx(0.7695).epsilon(tol));
  }
  {
    // L2 weight decay 0.1: g' = 0.5 + 0.1·1 = 0.6, w = 0.94; g' = 0.5 + 0.094 = 0.594,
    // w = 0.94 - 0.0594 = 0.8806. Then lr set to 0.2 with g = 0.5: g' = 0.58806,
    // w = 0.8806 - 0.117612 = 0.762988.
    ttgnn::SgdOptions o;
    o.lr = 0.1;
    o.weight_decay = 0.1;
    ttgnn::Sgd<double, ExecutionSpace> opt(space, w(), g(), o);
    auto x = run_scalar<ExecutionSpace>(opt, {0.5, 0.5});
    CHECK(x[0] == doctest::Approx(0.94).epsilon(tol));
    CHECK(x[1] == doctest::Approx(0.8806).epsilon(tol));
    opt.set_learning_rate(0.2);
    CHECK(opt.learning_rate() == 0.2);
    x = run_scalar<ExecutionSpace>(opt, {0.5});
    CHECK(x[0] == doctest::Approx(0.762988).epsilon(tol));
  }
}

template <class ExecutionSpace> void check_adam_hand_values() {
  const ExecutionSpace space;
  auto w = [] { return std::vector<Vec<ExecutionSpace>>{make_vec<ExecutionSpace>({1.0})}; };
  auto g = [] { return std::vector<Vec<ExecutionSpace>>{make_vec<ExecutionSpace>({0.0})}; };
  ttgnn::AdamOptions o;
  o.lr = 0.01; // beta1 0.9, beta2 0.999, eps 1e-8
  {
    // g = 0.5, -0.25, 0.5 from w = 1.
    // t=1: m = 0.05, v = 2.5e-4, m/(1-0.9) = 0.5, v/(1-0.999) = 0.25:
    //      w = 1 - 0.01·0.5/(0.5 + 1e-8) = 0.9900000002 (= 1 - lr·sign(g) up to eps).
    // t=2: m = 0.045 - 0.025 = 0.02, v = 2.4975e-4 + 6.25e-5 = 3.1225e-4, bc1 = 0.19,
    //      bc2 = 0.001999: w -= 0.01·(2/19)/(sqrt(0.31225/1.999) + 1e-8) -> 0.98733662987.
    // t=3: m = 0.068, v = 5.6194e-4 ... -> 0.98154182320.
    ttgnn::Adam<double, ExecutionSpace> opt(space, w(), g(), o);
    auto x = run_scalar<ExecutionSpace>(opt, {0.5, -0.25, 0.5});
    CHECK(x[0] == doctest::Approx(0.990000000199999996).epsilon(tol));
    CHECK(x[1] == doctest::Approx(0.987336629870784616).epsilon(tol));
    CHECK(x[2] == doctest::Approx(0.981541823196992053).epsilon(tol));
    CHECK(values(opt.exp_avg()[0])[0] == doctest::Approx(0.9 * 0.02 + 0.1 * 0.5).epsilon(tol));
    CHECK(values(opt.exp_avg_sq()[0])[0] ==
          doctest::Approx(0.999 * 3.1225e-4 + 0.001 * 0.25).epsilon(tol));
  }
  // Adam + L2 (lambda = 0.1) against AdamW (decoupled lambda = 0.1), two entries: g = 0.5
  // and g = 0.
  //  Adam+L2, g = 0.5: g' = 0.6, first step lr·sign: 0.99 (the L2 term is normalised away);
  //  AdamW,   g = 0.5: w·(1 - lr·lambda) = 0.999, minus lr·sign: 0.989.
  //  Adam+L2, g = 0:   g' = 0.1·w = 0.1 > 0, moves by lr: 0.99, then 0.9800027479.
  //  AdamW,   g = 0:   m = 0, no Adam step, only decay: 0.999, then 0.999² = 0.998001.
  o.weight_decay = 0.1;
  auto w2 = [] { return std::vector<Vec<ExecutionSpace>>{make_vec<ExecutionSpace>({1.0, 1.0})}; };
  auto g2 = [] { return std::vector<Vec<ExecutionSpace>>{make_vec<ExecutionSpace>({0.5, 0.0})}; };
  ttgnn::Adam<double, ExecutionSpace> l2(space, w2(), g2(), o);
  ttgnn::AdamW<double, ExecutionSpace> dw(space, w2(), g2(), o);
  CHECK(dw.name() == "adamw");
  l2.step(space);
  dw.step(space);
  auto a = values(l2.parameters()[0]), b = values(dw.parameters()[0]);
  CHECK(a[0] == doctest::Approx(0.990000000166666664).epsilon(tol));
  CHECK(b[0] == doctest::Approx(0.989000000199999996).epsilon(tol));
  CHECK(a[1] == doctest::Approx(0.990000000999999900).epsilon(tol));
  CHECK(b[1] == doctest::Approx(0.999).epsilon(tol));
  l2.step(space);
  dw.step(space);
  a = values(l2.parameters()[0]);
  b = values(dw.parameters()[0]);
  CHECK(a[0] == doctest::Approx(0.980000438601569807).epsilon(tol));
  CHECK(b[0] == doctest::Approx(0.978011000399799992).epsilon(tol));
  CHECK(a[1] == doctest::Approx(0.980002747900375006).epsilon(tol));
  CHECK(b[1] == doctest::Approx(0.998001).epsilon(tol));
}

template <class ExecutionSpace, class Scalar> void check_adam_first_step_is_sign() {
  // First step: m̂ = g, v̂ = g², so w moves by lr·g/(|g| + eps) = lr·sign(g)·(1 - eps/|g|...):
  // within lr·eps/|g| of lr·sign(g), plus rounding of w (a few ulp of |w| <= 2).
  const ExecutionSpace space;
  const int n = 1000;
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-2, 2), e(-3, 1);
  std::vector<double> w0(n), g0(n);
  for (int i = 0; i < n; ++i) {
    w0[i] = u(rng);
    g0[i] = std::pow(10.0, e(rng)) * (i % 2 ? 1 : -1); // |g| in [1e-3, 10]
  }
  ttgnn::AdamOptions o;
  o.lr = 0.01;
  ttgnn::Adam<Scalar, ExecutionSpace> opt(space, {make_vec<ExecutionSpace, Scalar>(w0)},
                                          {make_vec<ExecutionSpace, Scalar>(g0)}, o);
  auto start = values(opt.parameters()[0]);
  opt.step(space);
  auto w1 = values(opt.parameters()[0]);
  const double ulp = std::numeric_limits<Scalar>::epsilon();
  for (int i = 0; i < n; ++i) {
    const double expected = start[i] - o.lr * (g0[i] > 0 ? 1 : -1);
    CHECK(std::fabs(w1[i] - expected) <= o.lr * o.eps / std::fabs(g0[i]) + 8 * ulp * 2);
  }
}

template <class ExecutionSpace> void check_adagrad() {
  const ExecutionSpace space;
  auto w = [] { return std::vector<Vec<ExecutionSpace>>{make_vec<ExecutionSpace>({1.0})}; };
  auto g = [] { return std::vector<Vec<ExecutionSpace>>{make_vec<ExecutionSpace>({0.0})}; };
  {
    // lr 0.1, g = 0.5, 0.5, -1: s = 0.25, w = 1 - 0.1·0.5/0.5 = 0.9 (eps 1e-10 shifts the
    // 11th digit); s = 0.5, w = 0.9 - 0.05/sqrt(0.5) = 0.8292893219; s = 1.5,
    // w += 0.1/sqrt(1.5) -> 0.9109389800.
    ttgnn::Adagrad<double, ExecutionSpace> opt(space, w(), g(), ttgnn::AdagradOptions{0.1});
    auto x = run_scalar<ExecutionSpace>(opt, {0.5, 0.5, -1.0});
    CHECK(x[0] == doctest::Approx(0.900000000019999999996).epsilon(tol));
    CHECK(x[1] == doctest::Approx(0.829289321911345247555).epsilon(tol));
    CHECK(x[2] == doctest::Approx(0.910938979997451184162).epsilon(tol));
    CHECK(values(opt.sum_of_squares()[0])[0] == doctest::Approx(1.5).epsilon(tol));
  }
  {
    // lr_decay 0.5, weight decay 0.1, initial sum 0.1: t=1: g' = 0.6, s = 0.46,
    // w = 1 - 0.1·0.6/sqrt(0.46) = 0.9115348263; t=2: lr 0.1/1.5, g' = 0.5 + 0.09115348,
    // s = 0.46 + g'², w -> 0.8677311418.
    ttgnn::AdagradOptions o;
    o.lr = 0.1;
    o.lr_decay = 0.5;
    o.weight_decay = 0.1;
    o.initial_accumulator_value = 0.1;
    ttgnn::Adagrad<double, ExecutionSpace> opt(space, w(), g(), o);
    auto x = run_scalar<ExecutionSpace>(opt, {0.5, 0.5});
    CHECK(x[0] == doctest::Approx(0.911534826320105198).epsilon(tol));
    CHECK(x[1] == doctest::Approx(0.867731141799448031).epsilon(tol));
  }
}

template <class ExecutionSpace> void check_lists_and_errors() {
  const ExecutionSpace space;
  using V = Vec<ExecutionSpace>;
  // Two parameters of different sizes: each is updated from its own gradient.
  std::vector<V> w{make_vec<ExecutionSpace>({1, 2, 3}), make_vec<ExecutionSpace>({4, 5})};
  std::vector<V> g{make_vec<ExecutionSpace>({1, 1, 1}), make_vec<ExecutionSpace>({-1, 2})};
  ttgnn::Sgd<double, ExecutionSpace> opt(space, w, g, ttgnn::SgdOptions{0.5});
  opt.step(space);
  auto a = values(w[0]), b = values(w[1]);
  CHECK(a == std::vector<double>{0.5, 1.5, 2.5});
  CHECK(b == std::vector<double>{4.5, 4.0});
  opt.zero_grad(space);
  CHECK(values(g[0]) == std::vector<double>{0, 0, 0});
  CHECK(values(g[1]) == std::vector<double>{0, 0});
  opt.step(space); // zero gradient: nothing moves
  CHECK(values(w[0]) == a);

  using Opts = ttgnn::AdamOptions;
  using AdamT = ttgnn::Adam<double, ExecutionSpace>;
  using AdamWT = ttgnn::AdamW<double, ExecutionSpace>;
  using SgdT = ttgnn::Sgd<double, ExecutionSpace>;
  CHECK_THROWS_AS((AdamT(space, w, {g[0]}, Opts{})), ttgnn::ConfigError);       // count
  CHECK_THROWS_AS((AdamT(space, w, {g[1], g[0]}, Opts{})), ttgnn::ConfigError); // extents
  Opts bad;
  bad.beta1 = 1.0;
  CHECK_THROWS_AS((AdamT(space, w, g, bad)), ttgnn::ConfigError);
  bad = Opts{};
  bad.lr = -1;
  CHECK_THROWS_AS((AdamWT(space, w, g, bad)), ttgnn::ConfigError);
  ttgnn::SgdOptions nest;
  nest.nesterov = true; // without momentum
  CHECK_THROWS_AS((SgdT(space, w, g, nest)), ttgnn::ConfigError);
  CHECK_THROWS_AS(opt.set_learning_rate(-0.1), ttgnn::ConfigError);
}

// ---------------------------------------------------------------- SparseAdam

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

TTGNN_TEST_ALL_SPACES("sgd: plain, momentum, dampening, nesterov, weight decay by hand") {
  check_sgd<ExecutionSpace>();
}
TTGNN_TEST_ALL_SPACES("adam and adamw: three steps by hand, decoupled vs L2 decay") {
  check_adam_hand_values<ExecutionSpace>();
}
TTGNN_TEST_ALL_SPACES("adam: the first step moves every weight by lr*sign(g)") {
  check_adam_first_step_is_sign<ExecutionSpace, double>();
  check_adam_first_step_is_sign<ExecutionSpace, float>();
}
TTGNN_TEST_ALL_SPACES("adagrad: steps by hand, lr decay, initial accumulator") {
  check_adagrad<ExecutionSpace>();
}
TTGNN_TEST_ALL_SPACES("optimizers: parameter lists, zero_grad, configuration errors") {
  check_lists_and_errors<ExecutionSpace>();
}
TTGNN_TEST_ALL_SPACES("sparse adam: untouched rows and moments unchanged, global step, errors") {
  check_sparse_adam_rows<ExecutionSpace>();
}
TTGNN_TEST_ALL_SPACES("sparse adam equals dense adam when every row is touched (eps = 0)") {
  check_sparse_adam_matches_dense<ExecutionSpace>();
}
TTGNN_TEST_ALL_SPACES("sparse adam in float") {
  check_sparse_adam_float<ExecutionSpace>();
}
