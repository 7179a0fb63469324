// ttgnn::gemm against a plain triple loop, every transpose combination, float and double.
#include "core/linalg/dense_gemm.hpp"
#include "core/error.hpp"
#include "test_harness.hpp"

#include <cmath>
#include <random>

namespace {

template <class ExecutionSpace, class Scalar> void check_gemm(char ta, char tb) {
  const int m = 37, n = 19, k = 23;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  using M = ttgnn::Matrix<Scalar, ExecutionSpace>;
  M a("ttgnn::test::a", ta == 'N' ? m : k, ta == 'N' ? k : m);
  M b("ttgnn::test::b", tb == 'N' ? k : n, tb == 'N' ? n : k);
  M c("ttgnn::test::c", m, n);
  auto ha = Kokkos::create_mirror_view(a), hb = Kokkos::create_mirror_view(b),
       hc = Kokkos::create_mirror_view(c);
  for (std::size_t i = 0; i < ha.extent(0); ++i)
    for (std::size_t j = 0; j < ha.extent(1); ++j)
      ha(i, j) = Scalar(u(rng));
  for (std::size_t i = 0; i < hb.extent(0); ++i)
    for (std::size_t j = 0; j < hb.extent(1); ++j)
      hb(i, j) = Scalar(u(rng));
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      hc(i, j) = Scalar(u(rng));
  auto c0 = Kokkos::create_mirror(c);
  Kokkos::deep_copy(c0, hc);
  Kokkos::deep_copy(a, ha);
  Kokkos::deep_copy(b, hb);
  Kokkos::deep_copy(c, hc);
  const Scalar alpha = Scalar(1.5), beta = Scalar(-0.5);
  ttgnn::gemm(ExecutionSpace(), ta, tb, alpha, a, b, beta, c);
  Kokkos::deep_copy(hc, c);
  // Each entry sums k products of numbers in [-1, 1]: rounding error <= k * eps * |alpha| + eps.
  const double tol = (k + 2) * std::numeric_limits<Scalar>::epsilon() * 2.0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double ref = 0;
      for (int p = 0; p < k; ++p)
        ref += double(ta == 'N' ? ha(i, p) : ha(p, i)) * double(tb == 'N' ? hb(p, j) : hb(j, p));
      ref = alpha * ref + beta * double(c0(i, j));
      CHECK(std::fabs(double(hc(i, j)) - ref) <= tol);
    }
}

template <class ExecutionSpace> void check_all() {
  for (char ta : {'N', 'T'})
    for (char tb : {'N', 'T'}) {
      CAPTURE(ta);
      CAPTURE(tb);
      check_gemm<ExecutionSpace, double>(ta, tb);
      check_gemm<ExecutionSpace, float>(ta, tb);
    }
  ttgnn::Matrix<double, ExecutionSpace> a("a", 3, 4), b("b", 5, 2), c("c", 3, 2);
  CHECK_THROWS_AS(ttgnn::gemm(ExecutionSpace(), 'N', 'N', 1.0, a, b, 0.0, c), ttgnn::ConfigError);
}

} // namespace

TTGNN_TEST_ALL_SPACES("gemm matches the reference triple loop") {
  check_all<ExecutionSpace>();
}
