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

#if defined(KOKKOS_ENABLE_SERIAL) && defined(KOKKOS_ENABLE_OPENMP)
TEST_CASE("gemm on Serial calls the same BLAS as on OpenMP: equal bit for bit") {
  // KokkosKernels' own blocked kernel (what Serial ran when its Views carried the OpenMP
  // device) sums in another order than OpenBLAS, so the bits would differ at this k. Run by
  // the serial test, at one thread: both calls are OpenBLAS' one-thread sgemm.
  const int m = 96, n = 80, k = 300;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1, 1);
  ttgnn::Matrix<float, Kokkos::Serial> a("a", m, k), b("b", k, n), cs("cs", m, n);
  for (int i = 0; i < m; ++i)
    for (int p = 0; p < k; ++p)
      a(i, p) = u(rng);
  for (int p = 0; p < k; ++p)
    for (int j = 0; j < n; ++j)
      b(p, j) = u(rng);
  ttgnn::Matrix<float, Kokkos::OpenMP> co("co", m, n); // the same HostSpace Views
  ttgnn::gemm(Kokkos::Serial(), 'N', 'N', 1.0f, a, b, 0.0f, cs);
  ttgnn::gemm(Kokkos::OpenMP(), 'N', 'N', 1.0f, a, b, 0.0f, co);
  Kokkos::fence();
  int differ = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      differ += cs(i, j) != co(i, j);
  CHECK(differ == 0);
}
#endif
