// The compat math functions inside a kernel, on every space.
#include "core/kokkos_compat.hpp"
#include "test_harness.hpp"

namespace {

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

TTGNN_TEST_ALL_SPACES("compat math functions run in kernels") {
  check_compat_math<ExecutionSpace>();
}
