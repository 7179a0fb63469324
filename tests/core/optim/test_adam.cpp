// Adam and AdamW: three steps against values derived by hand from the update rules (in the
// comments), AdamW against Adam + L2, and the first step being lr * sign(g) in double and
// float.
#include "core/optim/adam.hpp"
#include "optim_test_util.hpp"
#include "test_harness.hpp"

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace {

using namespace ttgnn::test;

template <class ExecutionSpace> void check_adam_hand_values() {
  const ExecutionSpace space;
  auto w = [] { return scalar_list<ExecutionSpace>(1.0); };
  auto g = [] { return scalar_list<ExecutionSpace>(0.0); };
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

} // namespace

TTGNN_TEST_ALL_SPACES("adam and adamw: three steps by hand, decoupled vs L2 decay") {
  check_adam_hand_values<ExecutionSpace>();
}
TTGNN_TEST_ALL_SPACES("adam: the first step moves every weight by lr*sign(g)") {
  check_adam_first_step_is_sign<ExecutionSpace, double>();
  check_adam_first_step_is_sign<ExecutionSpace, float>();
}
