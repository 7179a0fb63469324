// AllocationTracker: the live bytes and high-water mark of Kokkos allocations.
#include "core/error.hpp"
#include "core/runtime/allocation_tracker.hpp"

#include <Kokkos_Core.hpp>
#include <doctest/doctest.h>

TEST_CASE("allocation tracker counts Kokkos allocations and their peak") {
  ttgnn::AllocationTracker t;
  CHECK(t.live_bytes() == 0);
  {
    Kokkos::View<double *> a("ttgnn::test::a", 1000);
    CHECK(t.live_bytes() >= 8000);
    {
      Kokkos::View<float **> b("ttgnn::test::b", 100, 30);
      CHECK(t.live_bytes() >= 8000 + 12000);
    }
    CHECK(t.live_bytes() >= 8000);
    CHECK(t.live_bytes() < 8000 + 12000);
  }
  CHECK(t.live_bytes() == 0);
  CHECK(t.peak_bytes() >= 20000);
  t.reset_peak();
  CHECK(t.peak_bytes() == 0);
  CHECK_THROWS_AS(ttgnn::AllocationTracker(), ttgnn::ConfigError);
}
