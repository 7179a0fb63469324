#include "core/runtime/allocation_tracker.hpp"

#include "core/error.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <atomic>

namespace ttgnn {

namespace {

std::atomic<std::int64_t> live{0}, peak{0};
std::atomic<bool> active{false};

void on_allocate(Kokkos::Profiling::SpaceHandle, char const *, void const *, std::uint64_t size) {
  const std::int64_t now = live += static_cast<std::int64_t>(size);
  std::int64_t p = peak.load();
  while (now > p && !peak.compare_exchange_weak(p, now)) {
  }
}

void on_deallocate(Kokkos::Profiling::SpaceHandle, char const *, void const *, std::uint64_t size) {
  live -= static_cast<std::int64_t>(size);
}

} // namespace

AllocationTracker::AllocationTracker() {
  if (active.exchange(true))
    throw ConfigError("AllocationTracker: another tracker is active");
  live = 0;
  peak = 0;
  Kokkos::Tools::Experimental::set_allocate_data_callback(on_allocate);
  Kokkos::Tools::Experimental::set_deallocate_data_callback(on_deallocate);
}

AllocationTracker::~AllocationTracker() {
  Kokkos::Tools::Experimental::set_allocate_data_callback(nullptr);
  Kokkos::Tools::Experimental::set_deallocate_data_callback(nullptr);
  active = false;
}

std::int64_t AllocationTracker::live_bytes() const {
  return live.load();
}
std::int64_t AllocationTracker::peak_bytes() const {
  return peak.load();
}
void AllocationTracker::reset_peak() {
  peak = live.load();
}

} // namespace ttgnn
