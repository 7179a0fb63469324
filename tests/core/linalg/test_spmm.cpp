// SpMM (both inner kernels), the explicit CSR transpose and the atomic transpose product,
// against a plain host loop in double, on random graphs with empty rows, float and double,
// narrow and wide column counts.
#include "core/linalg/csr_transpose.hpp"
#include "core/error.hpp"
#include "core/linalg/spmm.hpp"
#include "test_harness.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace {

/// Random CSR on the host: num_rows rows, degrees in [0, max_degree] (about one row in five
/// empty), columns uniform in [0, num_cols) (repeats allowed), values in [-1, 1].
struct HostCsr {
  std::int64_t num_rows = 0, num_cols = 0;
  std::vector<std::int64_t> row_map;
  std::vector<std::int32_t> entries;
  std::vector<double> values;
};

HostCsr random_csr(std::int64_t num_rows, std::int64_t num_cols, int max_degree,
                   std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  HostCsr a;
  a.num_rows = num_rows;
  a.num_cols = num_cols;
  a.row_map.push_back(0);
  for (std::int64_t i = 0; i < num_rows; ++i) {
    const int degree = rng() % 5 == 0 ? 0 : int(rng() % (max_degree + 1));
    for (int d = 0; d < degree; ++d) {
      a.entries.push_back(std::int32_t(rng() % num_cols));
      a.values.push_back(std::uniform_real_distribution<double>(-1, 1)(rng));
    }
    a.row_map.push_back(std::int64_t(a.entries.size()));
  }
  return a;
}

template <class T, class Space>
Kokkos::View<T *, typename Space::memory_space> to_device(std::vector<T> const &v,
                                                          char const *label) {
  Kokkos::View<T *, typename Space::memory_space> d(std::string(label), v.size());
  auto h = Kokkos::create_mirror_view(d);
  for (std::size_t k = 0; k < v.size(); ++k)
    h(k) = v[k];
  Kokkos::deep_copy(d, h);
  return d;
}

template <class Scalar, class Space>
using Mat = Kokkos::View<Scalar **, Kokkos::LayoutRight, typename Space::memory_space>;

template <class Scalar, class Space>
Mat<Scalar, Space> random_matrix(std::int64_t n, int f, std::uint64_t seed) {
  Mat<Scalar, Space> m("ttgnn::test::matrix", n, f);
  auto h = Kokkos::create_mirror_view(m);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  for (std::int64_t i = 0; i < n; ++i)
    for (int c = 0; c < f; ++c)
      h(i, c) = Scalar(u(rng));
  Kokkos::deep_copy(m, h);
  return m;
}

/// Compares Y (device) with alpha * op(A) * X + beta * Y0 computed in double on the host.
/// Each entry sums d products with |w x| <= 1: the float/double result differs from the exact
/// sum by at most gamma_{d+2} * (|alpha| * sum |w x| + |beta y0|), gamma_n = n eps / (1 - n eps).
template <class Scalar, class Space>
void compare(HostCsr const &a, bool transpose, bool unit_values, double alpha, double beta,
             Mat<Scalar, Space> const &x, Mat<Scalar, Space> const &y0,
             Mat<Scalar, Space> const &y) {
  auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  auto hy0 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y0);
  auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  const std::int64_t out_rows = transpose ? a.num_cols : a.num_rows;
  const int f = int(x.extent(1));
  REQUIRE(std::int64_t(hy.extent(0)) == out_rows);
  std::vector<double> sum(out_rows * f, 0.0), mag(out_rows * f, 0.0);
  std::vector<int> count(out_rows, 0);
  for (std::int64_t i = 0; i < a.num_rows; ++i)
    for (std::int64_t k = a.row_map[i]; k < a.row_map[i + 1]; ++k) {
      const std::int64_t j = a.entries[k];
      const double w = unit_values ? 1.0 : double(Scalar(a.values[k]));
      const std::int64_t out = transpose ? j : i, in = transpose ? i : j;
      ++count[out];
      for (int c = 0; c < f; ++c) {
        sum[out * f + c] += w * double(hx(in, c));
        mag[out * f + c] += std::fabs(w * double(hx(in, c)));
      }
    }
  const double eps = std::numeric_limits<Scalar>::epsilon();
  int failures = 0;
  for (std::int64_t i = 0; i < out_rows; ++i)
    for (int c = 0; c < f; ++c) {
      const double y_old = beta == 0 ? 0.0 : double(hy0(i, c));
      const double ref = alpha * sum[i * f + c] + beta * y_old;
      const double n = count[i] + 2;
      const double tol =
          n * eps / (1 - n * eps) * (std::fabs(alpha) * mag[i * f + c] + std::fabs(beta * y_old)) +
          std::numeric_limits<double>::min();
      if (!(std::fabs(double(hy(i, c)) - ref) <= tol) && ++failures <= 5) {
        CAPTURE(i);
        CAPTURE(c);
        CHECK(double(hy(i, c)) == doctest::Approx(ref));
      }
    }
  CHECK(failures == 0);
}

template <class Space, class Scalar>
void check_spmm_case(std::int64_t num_rows, std::int64_t num_cols, int f, std::uint64_t seed) {
  CAPTURE(num_rows);
  CAPTURE(num_cols);
  CAPTURE(f);
  const HostCsr a = random_csr(num_rows, num_cols, 9, seed);
  const Space space;
  auto row_map = to_device<std::int64_t, Space>(a.row_map, "ttgnn::test::row_map");
  auto entries = to_device<std::int32_t, Space>(a.entries, "ttgnn::test::entries");
  std::vector<Scalar> vals(a.values.begin(), a.values.end());
  auto values = to_device<Scalar, Space>(vals, "ttgnn::test::values");
  Kokkos::View<Scalar *, typename Space::memory_space> ones; // empty: all ones
  auto x = random_matrix<Scalar, Space>(num_cols, f, seed + 1);
  auto xt = random_matrix<Scalar, Space>(num_rows, f, seed + 2);
  auto y0 = random_matrix<Scalar, Space>(num_rows, f, seed + 3);
  auto yt0 = random_matrix<Scalar, Space>(num_cols, f, seed + 4);
  Mat<Scalar, Space> y("ttgnn::test::y", num_rows, f), yt("ttgnn::test::yt", num_cols, f);
  const auto t = ttgnn::transpose_csr(space, num_cols, row_map, entries, values);
  const auto t_unit = ttgnn::transpose_csr(space, num_cols, row_map, entries, ones);
  CHECK(t_unit.values.extent(0) == 0);

  for (bool unit : {false, true})
    for (double beta : {0.0, -0.5}) {
      CAPTURE(unit);
      CAPTURE(beta);
      const Scalar alpha = Scalar(1.5), b = Scalar(beta);
      for (auto kernel : {ttgnn::SpmmKernel::automatic, ttgnn::SpmmKernel::row_tiles,
                          ttgnn::SpmmKernel::vector_lanes}) {
        CAPTURE(int(kernel));
        Kokkos::deep_copy(y, beta == 0 ? std::numeric_limits<Scalar>::quiet_NaN() : Scalar(0));
        if (beta != 0)
          Kokkos::deep_copy(y, y0);
        ttgnn::spmm(space, alpha, row_map, entries, unit ? ones : values, x, b, y, kernel);
        space.fence();
        compare<Scalar, Space>(a, false, unit, alpha, beta, x, y0, y);
        // A^T X as a gather over the explicit transpose.
        Kokkos::deep_copy(yt, yt0);
        ttgnn::spmm(space, alpha, t.row_map, t.entries, unit ? ones : t.values, xt, b, yt, kernel);
        space.fence();
        compare<Scalar, Space>(a, true, unit, alpha, beta, xt, yt0, yt);
      }
      Kokkos::deep_copy(yt, yt0);
      ttgnn::spmm_transpose_atomic(space, alpha, row_map, entries, unit ? ones : values, xt, b, yt);
      space.fence();
      compare<Scalar, Space>(a, true, unit, alpha, beta, xt, yt0, yt);
    }
}

template <class Space> void check_transpose_structure() {
  // The transpose's rows are sorted by row of A and its permutation maps back to A.
  const HostCsr a = random_csr(200, 150, 12, 11);
  const Space space;
  auto row_map = to_device<std::int64_t, Space>(a.row_map, "ttgnn::test::row_map");
  auto entries = to_device<std::int32_t, Space>(a.entries, "ttgnn::test::entries");
  auto values = to_device<double, Space>(a.values, "ttgnn::test::values");
  const auto t = ttgnn::transpose_csr(space, a.num_cols, row_map, entries, values);
  auto rm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), t.row_map);
  auto en = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), t.entries);
  auto va = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), t.values);
  auto pe = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), t.permutation);
  REQUIRE(rm.extent(0) == 151);
  CHECK(rm(0) == 0);
  CHECK(rm(150) == std::int64_t(a.entries.size()));
  std::vector<int> seen(a.entries.size(), 0);
  for (std::int64_t j = 0; j < 150; ++j)
    for (std::int64_t p = rm(j); p < rm(j + 1); ++p) {
      const std::int64_t k = pe(p);
      REQUIRE(k >= 0);
      REQUIRE(k < std::int64_t(a.entries.size()));
      ++seen[k];
      CHECK(a.entries[k] == j);
      CHECK(a.row_map[en(p)] <= k);
      CHECK(k < a.row_map[en(p) + 1]);
      CHECK(va(p) == a.values[k]);
      if (p > rm(j))
        CHECK(pe(p - 1) < pe(p));
    }
  for (int s : seen)
    CHECK(s == 1);
  // An entry outside [0, num_cols) is refused.
  CHECK_THROWS_AS(ttgnn::transpose_csr(space, 100, row_map, entries, values), ttgnn::ConfigError);
  // Built in a reused workspace (trusted entries): the same arrays, also after a larger and a
  // smaller matrix went through the workspace before.
  ttgnn::CsrTransposeWorkspace<std::int32_t, double, typename Space::memory_space> ws;
  for (auto const &shape : {std::tuple<int, int, int>{300, 220, 3}, {50, 40, 4}, {200, 150, 11}}) {
    const int rows = std::get<0>(shape), cols = std::get<1>(shape), seed = std::get<2>(shape);
    CAPTURE(rows);
    const HostCsr b = random_csr(rows, cols, 12, seed);
    auto b_row_map = to_device<std::int64_t, Space>(b.row_map, "ttgnn::test::row_map");
    auto b_entries = to_device<std::int32_t, Space>(b.entries, "ttgnn::test::entries");
    auto b_values = to_device<double, Space>(b.values, "ttgnn::test::values");
    const auto fresh = ttgnn::transpose_csr(space, b.num_cols, b_row_map, b_entries, b_values);
    const auto reused = ttgnn::transpose_csr(space, b.num_cols, b_row_map, b_entries, b_values,
                                             ttgnn::CsrEntries::trusted, &ws);
    auto same = [](auto const &x, auto const &y) {
      auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
      auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
      if (hx.extent(0) != hy.extent(0))
        return false;
      for (std::size_t i = 0; i < hx.extent(0); ++i)
        if (hx(i) != hy(i))
          return false;
      return true;
    };
    CHECK(same(fresh.row_map, reused.row_map));
    CHECK(same(fresh.entries, reused.entries));
    CHECK(same(fresh.values, reused.values));
    CHECK(same(fresh.permutation, reused.permutation));
  }
  CHECK(ws.row_map.extent(0) == 221); // the largest matrix's, allocated once
}

template <class Space> void check_shapes_refused() {
  const Space space;
  Kokkos::View<std::int64_t *, typename Space::memory_space> row_map("r", 4);
  Kokkos::View<std::int32_t *, typename Space::memory_space> entries("e", 0);
  Kokkos::View<double *, typename Space::memory_space> values;
  Mat<double, Space> x("x", 5, 2), y_bad("y", 4, 2), y_bad_cols("y", 3, 3);
  CHECK_THROWS_AS(ttgnn::spmm(space, 1.0, row_map, entries, values, x, 0.0, y_bad),
                  ttgnn::ConfigError);
  CHECK_THROWS_AS(ttgnn::spmm(space, 1.0, row_map, entries, values, x, 0.0, y_bad_cols),
                  ttgnn::ConfigError);
  CHECK_THROWS_AS(ttgnn::spmm_transpose_atomic(space, 1.0, row_map, entries, values, x, 0.0, x),
                  ttgnn::ConfigError);
}

} // namespace

TTGNN_TEST_ALL_SPACES("spmm and its transpose match the host reference (double)") {
  for (int f : {1, 3, 7, 13, 32, 64, 77})
    check_spmm_case<ExecutionSpace, double>(301, 257, f, 100 + f);
  check_spmm_case<ExecutionSpace, double>(40, 500, 20, 5); // wide: more columns than rows
}

TTGNN_TEST_ALL_SPACES("spmm and its transpose match the host reference (float)") {
  for (int f : {1, 5, 16, 40, 128})
    check_spmm_case<ExecutionSpace, float>(301, 257, f, 200 + f);
}

TTGNN_TEST_ALL_SPACES("csr transpose is sorted and maps back to A") {
  check_transpose_structure<ExecutionSpace>();
}

TTGNN_TEST_ALL_SPACES("spmm refuses mismatched shapes") {
  check_shapes_refused<ExecutionSpace>();
}
