// SigmoidBinaryCrossEntropy: values and gradient by hand (unknown entries, rows outside the
// subset, large logits), refused targets, and the gradient by finite differences.
#include "core/error.hpp"
#include "models/loss/sigmoid_binary_cross_entropy.hpp"
#include "loss_test_util.hpp"
#include "test_harness.hpp"

#include <cmath>
#include <random>
#include <vector>

namespace {

using namespace ttgnn::test;

double softplus(double x) {
  return std::log1p(std::exp(x));
}
double sigmoid(double x) {
  return 1 / (1 + std::exp(-x));
}

// ------------------------------------------------------------------ loss values by hand

template <class Space> void check_bce_values() {
  const Space space;
  // Known entries of rows 0 and 2: (0,0) x=0 y=1, (0,1) x=2 y=0, (2,1) x=3 y=1, (2,2) x=-40
  // y=0; row 1 is outside the subset, (2,0) is unknown.
  auto logits = matrix<Space>({{0, 2, 5}, {1, 1, 1}, {-1, 3, -40}});
  auto y = targets<Space>({{1, 0, -1}, {1, 1, 1}, {-1, 1, 0}});
  auto subset = ids<Space>({0, 2});
  ttgnn::SigmoidBinaryCrossEntropy<double, Space> bce;
  const double loss = bce.forward(space, logits, y, subset);
  // BCE(x, y) = softplus(x) - x y: log 2, softplus(2), softplus(-3), softplus(-40) ~ e^-40
  const double expected = (std::log(2.0) + softplus(2) + softplus(-3) + softplus(-40)) / 4;
  CHECK(loss == doctest::Approx(expected).epsilon(1e-14));
  CHECK(bce.known_entries() == 4);
  Mat<Space> grad("ttgnn::test::grad", 3, 3);
  bce.backward(space, grad);
  auto g = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), grad);
  CHECK(g(0, 0) == doctest::Approx((0.5 - 1) / 4).epsilon(1e-14));
  CHECK(g(0, 1) == doctest::Approx(sigmoid(2) / 4).epsilon(1e-14));
  CHECK(g(0, 2) == 0); // unknown
  CHECK(g(2, 0) == 0); // unknown
  CHECK(g(2, 1) == doctest::Approx((sigmoid(3) - 1) / 4).epsilon(1e-14));
  CHECK(g(2, 2) == doctest::Approx(sigmoid(-40) / 4).epsilon(1e-12));
  for (int j = 0; j < 3; ++j)
    CHECK(g(1, j) == 0); // outside the subset
  // Large logits stay finite (the stable form): BCE(100, 0) = 100, BCE(-100, 1) = 100.
  auto big = matrix<Space>({{100, -100}});
  auto yb = targets<Space>({{0, 1}});
  CHECK(bce.forward(space, big, yb, ids<Space>({0})) == doctest::Approx(100).epsilon(1e-14));
  // Targets other than 0 / 1 / -1, and a subset with nothing known, are refused.
  CHECK_THROWS_AS(bce.forward(space, big, targets<Space>({{2, 1}}), ids<Space>({0})),
                  ttgnn::InputError);
  CHECK_THROWS_AS(bce.forward(space, big, targets<Space>({{-1, -1}}), ids<Space>({0})),
                  ttgnn::ConfigError);
}

TTGNN_TEST_ALL_SPACES("sigmoid binary cross-entropy: values and gradient by hand") {
  check_bce_values<ExecutionSpace>();
}

// ------------------------------------------------------------------ finite differences

/// Central differences of L against backward, every logit. Error of (L(x+h) - L(x-h)) / 2h:
/// truncation h^2/6 |L'''| with |L'''| <= 0.1 / (known entries) (|sigmoid''| <= 0.1), and
/// rounding ~ 4 eps |L| / h; with h = 1e-5 and |L| <= 3 the tolerance 1e-8 covers both.
template <class Space> void check_bce_gradient() {
  const Space space;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-3, 3);
  const int n = 5, t = 4;
  std::vector<std::vector<double>> x(n, std::vector<double>(t));
  std::vector<std::vector<int>> yv(n, std::vector<int>(t));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < t; ++j) {
      x[i][j] = u(rng);
      yv[i][j] = static_cast<int>(rng() % 3) - 1; // -1, 0, 1
    }
  yv[0][0] = 1; // at least one known entry
  auto logits = matrix<Space>(x);
  auto y = targets<Space>(yv);
  auto subset = ids<Space>({0, 1, 3, 4});
  ttgnn::SigmoidBinaryCrossEntropy<double, Space> bce;
  bce.forward(space, logits, y, subset);
  Mat<Space> grad("ttgnn::test::grad", n, t);
  bce.backward(space, grad, 2.0); // scale
  auto g = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), grad);
  auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), logits);
  const double h = 1e-5;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < t; ++j) {
      const double saved = hx(i, j);
      hx(i, j) = saved + h;
      Kokkos::deep_copy(logits, hx);
      const double lp = bce.forward(space, logits, y, subset);
      hx(i, j) = saved - h;
      Kokkos::deep_copy(logits, hx);
      const double lm = bce.forward(space, logits, y, subset);
      hx(i, j) = saved;
      Kokkos::deep_copy(logits, hx);
      CAPTURE(i);
      CAPTURE(j);
      CHECK(std::fabs(2.0 * (lp - lm) / (2 * h) - g(i, j)) <= 1e-8);
    }
}

TTGNN_TEST_ALL_SPACES("sigmoid binary cross-entropy: gradient matches finite differences") {
  check_bce_gradient<ExecutionSpace>();
}

} // namespace
