// mixed_radix_digits and mixed_radix_value inside a kernel, on every space.
#include "core/tt/mixed_radix.hpp"
#include "test_harness.hpp"

#include <cstdint>

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

} // namespace

TTGNN_TEST_ALL_SPACES("mixed-radix digits round-trip inside a kernel") {
  check_mixed_radix_in_kernel<ExecutionSpace>();
}
