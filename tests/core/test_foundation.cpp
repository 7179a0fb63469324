// Foundation: compat header, mixed-radix digits inside kernels, JSON writer, runtime facts.
#include "core/io/json_writer.hpp"
#include "core/kokkos_compat.hpp"
#include "core/tt/mixed_radix.hpp"
#include "core/runtime/runtime_info.hpp"
#include "test_harness.hpp"

#include <cstdlib>
#include <limits>
#include <string>

namespace {

template <class ExecutionSpace> void check_mixed_radix_in_kernel() {
  // Radices (5, 3, 7): every id in [0, 105) maps to digits and back, on the device.
  const std::int64_t n = 5 * 3 * 7;
  Kokkos::View<std::int64_t *[3], typename ExecutionSpace::memory_space> digits(
      "ttgnn::test::digits", n);
  Kokkos::View<std::int64_t *, typename ExecutionSpace::memory_space> back("ttgnn::test::back", n);
  Kokkos::parallel_for(
      "ttgnn::test::mixed_radix", Kokkos::RangePolicy<ExecutionSpace>(0, n),
      KOKKOS_LAMBDA(std::int64_t id) {
        const std::int64_t radix[3] = {5, 3, 7};
        std::int64_t d[3];
        ttgnn::mixed_radix_digits(id, 3, radix, d);
        for (int k = 0; k < 3; ++k)
          digits(id, k) = d[k];
        back(id) = ttgnn::mixed_radix_value(3, radix, d);
      });
  auto h_digits = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), digits);
  auto h_back = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), back);
  for (std::int64_t id = 0; id < n; ++id) {
    // Most significant first: id = (i1 * 3 + i2) * 7 + i3.
    CHECK(h_digits(id, 0) == id / 21);
    CHECK(h_digits(id, 1) == (id / 7) % 3);
    CHECK(h_digits(id, 2) == id % 7);
    CHECK(h_back(id) == id);
  }
}

template <class ExecutionSpace> void check_compat_math() {
  Kokkos::View<double[4], typename ExecutionSpace::memory_space> out("ttgnn::test::math");
  Kokkos::parallel_for(
      "ttgnn::test::compat_math", Kokkos::RangePolicy<ExecutionSpace>(0, 1), KOKKOS_LAMBDA(int) {
        out(0) = ttgnn::compat::sqrt(16.0);
        out(1) = ttgnn::compat::exp(0.0);
        out(2) = ttgnn::compat::fabs(-2.5);
        out(3) = ttgnn::compat::isfinite(1.0) ? 1.0 : 0.0;
      });
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  CHECK(h(0) == 4.0);
  CHECK(h(1) == 1.0);
  CHECK(h(2) == 2.5);
  CHECK(h(3) == 1.0);
}

} // namespace

TTGNN_TEST_ALL_SPACES("mixed-radix digits round-trip inside a kernel") {
  check_mixed_radix_in_kernel<ExecutionSpace>();
}

TTGNN_TEST_ALL_SPACES("compat math functions run in kernels") {
  check_compat_math<ExecutionSpace>();
}

TEST_CASE("harness runs OpenMP at the thread count ctest asked for [threads]") {
  char const *expect = std::getenv("TTGNN_EXPECT_THREADS");
  if (!expect)
    return; // run by hand: nothing was asked
#ifdef KOKKOS_ENABLE_OPENMP
  CHECK(ttgnn::compat::concurrency(Kokkos::OpenMP()) == std::atoi(expect));
#endif
}

TEST_CASE("floating-point invalid operations trap in tests") {
  CHECK((fegetexcept() & FE_INVALID) != 0);
}

TEST_CASE("runtime info names version, backends and a real BLAS") {
  const auto info = ttgnn::runtime_info();
  CHECK(info.ttgnn_version == "0.1.0");
  CHECK(info.kokkos_version == ttgnn::compat::kokkos_version_string());
  CHECK(!info.backends.empty());
  CHECK(info.host_threads >= 1);
  CHECK(info.blas.gemm_ok);
  if (info.blas.tpl_enabled) {
    // The reference BLAS is 17x slower for gemm: dgemm_ must resolve to an optimised one.
    CHECK(!info.blas.library.empty());
    CHECK(info.blas.vendor != "reference");
  }
  const std::string json = ttgnn::to_json(info);
  CHECK(json.front() == '{');
  CHECK(json.find("\"kokkos_version\":\"" + info.kokkos_version + "\"") != std::string::npos);
}

TEST_CASE("json writer escapes strings and writes non-finite numbers as null") {
  ttgnn::JsonWriter w;
  w.field("s", std::string("a\"b\\c\nd"));
  w.field("i", 42);
  w.field("x", 0.25);
  w.field("v", std::vector<int>{1, 2});
  w.field("b", true);
  CHECK(w.str() == R"({"s":"a\"b\\c\nd","i":42,"x":0.25,"v":[1,2],"b":true})");
  CHECK(ttgnn::JsonWriter::number(std::numeric_limits<double>::infinity()) == "null");
}
