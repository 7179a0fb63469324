#ifndef TTGNN_CORE_RUNTIME_ALLOCATION_TRACKER_HPP
#define TTGNN_CORE_RUNTIME_ALLOCATION_TRACKER_HPP
/// \file allocation_tracker.hpp
/// \brief Live bytes of Kokkos allocations (every memory space) and their high-water mark,
/// counted through Kokkos' allocation callbacks: what the Views really hold, unlike the
/// resident set (which adds the program, the allocator's slack and the page cache of mapped
/// files) and on a GPU too. One tracker at a time; it replaces any allocation callbacks while it
/// lives (a Kokkos tool's allocation events are not seen meanwhile).

#include <cstdint>

namespace ttgnn {

/// \brief Counts Kokkos allocations from construction to destruction (see the file comment).
class AllocationTracker {
public:
  AllocationTracker();
  ~AllocationTracker();
  AllocationTracker(AllocationTracker const &) = delete;
  AllocationTracker &operator=(AllocationTracker const &) = delete;

  /// Bytes allocated since construction and not yet freed (negative when more was freed).
  std::int64_t live_bytes() const;
  /// Largest live_bytes() since construction or the last reset_peak().
  std::int64_t peak_bytes() const;
  /// Restarts the high-water mark at the current live bytes.
  void reset_peak();
};

} // namespace ttgnn

#endif
