// The test setup itself: ctest runs the OpenMP instances at the thread count it registered
// (tests/CMakeLists.txt) and the test main traps invalid floating-point operations
// (tests/test_main.cpp).
#include "core/kokkos_compat.hpp"
#include "test_harness.hpp"

#include <cfenv>
#include <cstdlib>

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
