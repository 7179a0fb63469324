#ifndef TTGNN_CORE_RANGE_OPS_HPP
#define TTGNN_CORE_RANGE_OPS_HPP
/// \file range_ops.hpp
/// \brief parallel_for / reduce / scan over an index range that run on the calling thread
/// when the space is a host space and the range is short (internal).
///
/// A batch of a few thousand items is sorted and grouped in tens of microseconds by one
/// thread; a parallel region per step costs more than that when the cores are shared, so the
/// short bookkeeping loops of the TT kernels go through these helpers. Results are the same
/// either way (the scans and sums are over integers).

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace ttgnn::detail {

/// Ranges up to this length run serially on host spaces.
inline constexpr std::int64_t serial_range_threshold = std::int64_t(1) << 16;

/// Whether a range of \p n items of \p ExecutionSpace runs on the calling thread.
template <class ExecutionSpace> bool run_serially(std::int64_t n) {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                    typename ExecutionSpace::memory_space>::accessible &&
         n <= serial_range_threshold;
}

/// f(i) for i in [begin, end).
template <class ExecutionSpace, class F>
void for_range(ExecutionSpace const &space, std::string const &label, std::int64_t begin,
               std::int64_t end, F const &f) {
  if (run_serially<ExecutionSpace>(end - begin)) {
    space.fence();
    for (auto i = begin; i < end; ++i)
      f(i);
  } else {
    Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecutionSpace>(space, begin, end), f);
  }
}

/// f(Tag(), i) for i in [begin, end).
template <class Tag, class ExecutionSpace, class F>
void for_range_tag(ExecutionSpace const &space, std::string const &label, std::int64_t begin,
                   std::int64_t end, F const &f) {
  if (run_serially<ExecutionSpace>(end - begin)) {
    space.fence();
    for (auto i = begin; i < end; ++i)
      f(Tag(), i);
  } else {
    Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecutionSpace, Tag>(space, begin, end), f);
  }
}

/// Sum over i in [begin, end) of f(i, sum) contributions (integer).
template <class ExecutionSpace, class F>
std::int64_t sum_range(ExecutionSpace const &space, std::string const &label, std::int64_t begin,
                       std::int64_t end, F const &f) {
  std::int64_t total = 0;
  if (run_serially<ExecutionSpace>(end - begin)) {
    space.fence();
    for (auto i = begin; i < end; ++i)
      f(i, total);
  } else {
    Kokkos::parallel_reduce(label, Kokkos::RangePolicy<ExecutionSpace>(space, begin, end), f,
                            total);
  }
  return total;
}

/// Exclusive scan f(i, update, final) over [begin, end); returns the total.
template <class ExecutionSpace, class F>
std::int64_t scan_range(ExecutionSpace const &space, std::string const &label, std::int64_t begin,
                        std::int64_t end, F const &f) {
  std::int64_t total = 0;
  if (run_serially<ExecutionSpace>(end - begin)) {
    space.fence();
    for (auto i = begin; i < end; ++i)
      f(i, total, true);
  } else {
    Kokkos::parallel_scan(label, Kokkos::RangePolicy<ExecutionSpace>(space, begin, end), f, total);
  }
  return total;
}

} // namespace ttgnn::detail

#endif
