// column_sums / column_dots against a host loop in double: the small-matrix path (about 64 rows
// a block) and the 256-block path (n >= 16384), beta = 0 and beta != 0, float and double, and a
// workspace reused across shapes (grows only, gives the same bits as a fresh one).
#include "core/linalg/column_sums.hpp"
#include "test_harness.hpp"

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace {

template <class Scalar, class Space>
using DeviceMatrix = Kokkos::View<Scalar **, Kokkos::LayoutRight, typename Space::memory_space>;

template <class Scalar, class Space>
DeviceMatrix<Scalar, Space> random_matrix(std::int64_t n, std::int64_t m, std::uint64_t seed,
                                          std::vector<double> &host) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  DeviceMatrix<Scalar, Space> a("ttgnn::test::a", n, m);
  auto h = Kokkos::create_mirror_view(a);
  host.assign(static_cast<std::size_t>(n * m), 0);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < m; ++j) {
      h(i, j) = Scalar(u(rng));
      host[i * m + j] = double(h(i, j));
    }
  Kokkos::deep_copy(a, h);
  return a;
}

template <class Scalar, class Space>
std::vector<double> host_of(Kokkos::View<Scalar *, typename Space::memory_space> v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<double>(h.data(), h.data() + h.extent(0));
}

/// Checks out = beta * out0 + sum_i a(i, c) [* b(i, c)] against double sums. Each output is a
/// sum of n terms of magnitude <= 1 in Scalar: |error| <= n eps (plus the beta term's rounding).
template <class Scalar, class Space> void check_shape(std::int64_t n, std::int64_t m) {
  Space space;
  std::vector<double> ha, hb;
  auto a = random_matrix<Scalar, Space>(n, m, 11 + n, ha);
  auto b = random_matrix<Scalar, Space>(n, m, 23 + n, hb);
  const double tol = double(n + 2) * std::numeric_limits<Scalar>::epsilon();
  ttgnn::ColumnSumsWorkspace<Scalar, typename Space::memory_space> workspace;
  for (Scalar beta : {Scalar(0), Scalar(0.5)}) {
    Kokkos::View<Scalar *, typename Space::memory_space> sums("ttgnn::test::sums", m),
        dots("ttgnn::test::dots", m), fresh("ttgnn::test::fresh", m);
    Kokkos::deep_copy(sums, Scalar(1));
    Kokkos::deep_copy(dots, Scalar(1));
    Kokkos::deep_copy(fresh, Scalar(1));
    ttgnn::column_sums(space, a, sums, beta, workspace);
    ttgnn::column_dots(space, a, b, dots, beta, workspace);
    ttgnn::column_sums(space, a, fresh, beta); // a scratch of its own: the same bits
    const auto s = host_of<Scalar, Space>(sums), d = host_of<Scalar, Space>(dots),
               f = host_of<Scalar, Space>(fresh);
    for (std::int64_t c = 0; c < m; ++c) {
      double rs = double(beta), rd = double(beta);
      for (std::int64_t i = 0; i < n; ++i) {
        rs += ha[i * m + c];
        rd += ha[i * m + c] * hb[i * m + c];
      }
      CHECK(std::abs(s[c] - rs) <= tol);
      CHECK(std::abs(d[c] - rd) <= tol);
      CHECK(f[c] == s[c]);
    }
  }
}

} // namespace

TTGNN_TEST_ALL_SPACES("column sums and dots: both block paths, beta, a reused workspace") {
  for (auto [n, m] :
       {std::pair<std::int64_t, std::int64_t>{1, 3}, {100, 7}, {16383, 5}, {20000, 33}, {0, 4}}) {
    INFO("n " << n << ", m " << m);
    check_shape<double, ExecutionSpace>(n, m);
    check_shape<float, ExecutionSpace>(n, m);
  }
}
