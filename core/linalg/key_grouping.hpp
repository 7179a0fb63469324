#ifndef TTGNN_CORE_KEY_GROUPING_HPP
#define TTGNN_CORE_KEY_GROUPING_HPP
/// \file key_grouping.hpp
/// \brief Grouping items by an integer key with a stable sort: the basis of TT prefix sharing
/// and of the deterministic (sort-and-reduce) backward.
///
/// On host spaces the sort is a least-significant-digit radix sort, 8 bits a pass, over chunks
/// of items: each chunk counts its digits, one scan gives every (digit, chunk) its first slot,
/// and each chunk scatters its items in order. On Cuda it is CUB's device radix sort over the
/// key's significant bits (core/linalg/cuda_radix_sort.hpp), whose work spreads over the whole
/// device. Both are stable, and a stable sort has exactly one result, so the grouping does not
/// depend on the space, the number of chunks or threads.

#include "core/runtime/byte_ledger.hpp"
#include "core/runtime/grow_only.hpp"
#include "core/kokkos_compat.hpp"
#include "core/linalg/cuda_radix_sort.hpp"
#include "core/linalg/range_ops.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

namespace ttgnn {

/// \brief Items grouped by key: group g holds the items order(offsets(g)) ... order(offsets(g+1)
/// - 1), in increasing item index, all with key keys(g); keys increase with g.
template <class ExecutionSpace> struct KeyGrouping {
  using memory_space = typename ExecutionSpace::memory_space;
  using index_view = Kokkos::View<std::int64_t *, memory_space>;
  index_view order;    ///< items sorted by (key, item), size num_items
  index_view offsets;  ///< num_groups + 1 entries are valid (allocated num_items + 1)
  index_view keys;     ///< key of each group, num_groups entries are valid
  index_view group_of; ///< group index of each item, size num_items
  std::int64_t num_items = 0;
  std::int64_t num_groups = 0;
  index_view sorted_keys, keys_b, items_b, hist;         ///< work space of the sort
  Kokkos::View<unsigned char *, memory_space> sort_temp; ///< the device sort's storage

  /// Adds every View above to \p ledger (memory reports).
  void add_workspace(ByteLedger &ledger) const {
    ledger.add(order).add(offsets).add(keys).add(group_of);
    ledger.add(sorted_keys).add(keys_b).add(items_b).add(hist).add(sort_temp);
  }
};

namespace detail {

/// Bits of the key one radix pass sorts by: 256 digit values keep each chunk's histogram at
/// 2 KiB, and keys below 2^40 take five passes.
inline constexpr int radix_digit_bits = 8;
/// Digit values of one pass: each chunk keeps one histogram entry per value.
inline constexpr int radix_buckets = 1 << radix_digit_bits;
/// Chunks of a parallel sort per unit of the space's concurrency: each chunk is counted and
/// scattered by one thread, and a few per unit keep every thread busy.
inline constexpr std::int64_t radix_chunks_per_thread = 4;
/// Smallest chunk of a parallel sort: a chunk clears and scans radix_buckets histogram
/// entries, so a shorter chunk would spend more on its histogram than on its items.
inline constexpr std::int64_t radix_min_chunk = radix_buckets;

/// One pass of the radix sort over chunks of `chunk` items: Count fills a chunk's column of
/// hist (digit-major) with its digit counts; Scatter moves its items to the slots the scan left.
template <class ExecutionSpace> struct RadixPass {
  using index_view = Kokkos::View<std::int64_t *, typename ExecutionSpace::memory_space>;
  index_view keys_in, items_in, keys_out, items_out, hist;
  std::int64_t num, chunk, num_chunks;
  int shift;

  struct Count {};
  struct Scatter {};
  KOKKOS_INLINE_FUNCTION int digit(std::int64_t key) const {
    return static_cast<int>((key >> shift) & (radix_buckets - 1));
  }
  KOKKOS_INLINE_FUNCTION void operator()(Count, std::int64_t c) const {
    for (int b = 0; b < radix_buckets; ++b)
      hist(b * num_chunks + c) = 0;
    const auto end = c * chunk + chunk < num ? c * chunk + chunk : num;
    for (auto i = c * chunk; i < end; ++i)
      ++hist(digit(keys_in(i)) * num_chunks + c);
  }
  KOKKOS_INLINE_FUNCTION void operator()(Scatter, std::int64_t c) const {
    const auto end = c * chunk + chunk < num ? c * chunk + chunk : num;
    for (auto i = c * chunk; i < end; ++i) {
      const auto slot = hist(digit(keys_in(i)) * num_chunks + c)++;
      keys_out(slot) = keys_in(i);
      items_out(slot) = items_in(i);
    }
  }
};

/// Whether keys(0) <= keys(1) <= ... <= keys(n - 1).
template <class ExecutionSpace>
bool keys_non_decreasing(
    ExecutionSpace const &space,
    Kokkos::View<const std::int64_t *, typename ExecutionSpace::memory_space> keys,
    std::int64_t n) {
  const auto descents = sum_range(
      space, "ttgnn::key_grouping::check_sorted", 1, n,
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t & acc) { acc += keys(i) < keys(i - 1) ? 1 : 0; });
  return descents == 0;
}

/// order = 0, 1, ..., n - 1 and sorted_keys = keys (keys already non-decreasing).
template <class ExecutionSpace>
void identity_order(ExecutionSpace const &space,
                    Kokkos::View<const std::int64_t *, typename ExecutionSpace::memory_space> keys,
                    KeyGrouping<ExecutionSpace> &grouping) {
  auto order = grouping.order, sorted_keys = grouping.sorted_keys;
  for_range(
      space, "ttgnn::key_grouping::identity", 0, grouping.num_items, KOKKOS_LAMBDA(std::int64_t i) {
        order(i) = i;
        sorted_keys(i) = keys(i);
      });
}

/// Bits that hold every key in [0, key_bound) (at least one).
inline int key_bits(std::int64_t key_bound) {
  int bits = 1;
  while (bits < 63 && (std::int64_t(1) << bits) < key_bound) // non-negative int64 keys
    ++bits;
  return bits;
}

/// Passes of radix_digit_bits bits that sort keys in [0, key_bound) (at least one).
inline int radix_passes(std::int64_t key_bound) {
  return (key_bits(key_bound) + radix_digit_bits - 1) / radix_digit_bits;
}

/// Items per chunk of the sort of \p n items: one chunk on the calling thread, otherwise
/// radix_chunks_per_thread per unit of concurrency of at least radix_min_chunk items.
template <class ExecutionSpace>
std::int64_t radix_chunk_size(ExecutionSpace const &space, std::int64_t n) {
  const std::int64_t target_chunks =
      run_serially<ExecutionSpace>(n) ? 1 : radix_chunks_per_thread * compat::concurrency(space);
  std::int64_t chunk = (n + target_chunks - 1) / target_chunks;
  if (chunk < radix_min_chunk && target_chunks > 1)
    chunk = radix_min_chunk;
  return chunk;
}

/// One stable pass: each chunk counts its digits, an exclusive scan over (digit, chunk) gives
/// each its first slot, and each chunk scatters its items in order.
template <class ExecutionSpace>
void run_radix_pass(ExecutionSpace const &space, RadixPass<ExecutionSpace> const &pass) {
  using pass_type = RadixPass<ExecutionSpace>;
  auto hist = pass.hist;
  for_range_tag<typename pass_type::Count>(space, "ttgnn::key_grouping::count", 0, pass.num_chunks,
                                           pass);
  scan_range(
      space, "ttgnn::key_grouping::scan", 0, radix_buckets * pass.num_chunks,
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t & update, bool final) {
        const auto c = hist(i);
        if (final)
          hist(i) = update;
        update += c;
      });
  for_range_tag<typename pass_type::Scatter>(space, "ttgnn::key_grouping::scatter", 0,
                                             pass.num_chunks, pass);
}

/// sorted_keys and order = the keys and items 0..n-1 sorted stably by key (LSD radix sort over
/// chunks of items).
template <class ExecutionSpace>
void radix_sort_by_key_chunked(
    ExecutionSpace const &space,
    Kokkos::View<const std::int64_t *, typename ExecutionSpace::memory_space> keys,
    std::int64_t key_bound, KeyGrouping<ExecutionSpace> &grouping) {
  using index_view = typename KeyGrouping<ExecutionSpace>::index_view;
  const std::int64_t n = grouping.num_items;
  const int passes = radix_passes(key_bound);
  const std::int64_t chunk = radix_chunk_size(space, n);
  const std::int64_t num_chunks = (n + chunk - 1) / chunk;
  reserve_entries(grouping.keys_b, n, "ttgnn::key_grouping::keys_b");
  reserve_entries(grouping.items_b, n, "ttgnn::key_grouping::items_b");
  reserve_entries(grouping.hist, radix_buckets * num_chunks, "ttgnn::key_grouping::hist");
  // Pass p reads (ka, ia) and writes (kb, ib); the first pass reads the input keys.
  index_view ka = grouping.sorted_keys, ia = grouping.order, kb = grouping.keys_b,
             ib = grouping.items_b;
  if (passes % 2 == 1) { // so that the last pass writes sorted_keys / order
    std::swap(ka, kb);
    std::swap(ia, ib);
  }
  for_range(
      space, "ttgnn::key_grouping::init", 0, n, KOKKOS_LAMBDA(std::int64_t i) {
        ka(i) = keys(i);
        ia(i) = i;
      });
  for (int p = 0; p < passes; ++p) {
    run_radix_pass(space, RadixPass<ExecutionSpace>{ka, ia, kb, ib, grouping.hist, n, chunk,
                                                    num_chunks, radix_digit_bits * p});
    std::swap(ka, kb);
    std::swap(ia, ib);
  }
}

#ifdef KOKKOS_ENABLE_CUDA
/// sorted_keys and order = the keys and items 0..n-1 sorted stably by key (CUB on the device;
/// its storage grows only).
inline void device_sort_by_key(Kokkos::Cuda const &space,
                               Kokkos::View<const std::int64_t *, Kokkos::CudaSpace> keys,
                               std::int64_t key_bound, KeyGrouping<Kokkos::Cuda> &grouping) {
  const std::int64_t n = grouping.num_items;
  const int bits = key_bits(key_bound);
  reserve_entries(grouping.items_b, n, "ttgnn::key_grouping::items_b");
  const std::size_t temp_bytes = cuda_radix_sort_temp_bytes(n, bits);
  reserve_entries(grouping.sort_temp, static_cast<std::int64_t>(temp_bytes),
                  "ttgnn::key_grouping::sort_temp");
  auto items = grouping.items_b;
  for_range(
      space, "ttgnn::key_grouping::iota", 0, n, KOKKOS_LAMBDA(std::int64_t i) { items(i) = i; });
  cuda_radix_sort_pairs(space, keys.data(), grouping.sorted_keys.data(), items.data(),
                        grouping.order.data(), n, bits, grouping.sort_temp.data(),
                        grouping.sort_temp.extent(0));
}
#endif

/// sorted_keys and order = the keys and items 0..n-1 sorted stably by key (LSD radix sort on
/// host spaces, device_sort_by_key on Cuda).
template <class ExecutionSpace>
void radix_sort_by_key(
    ExecutionSpace const &space,
    Kokkos::View<const std::int64_t *, typename ExecutionSpace::memory_space> keys,
    std::int64_t key_bound, KeyGrouping<ExecutionSpace> &grouping) {
#ifdef KOKKOS_ENABLE_CUDA
  if constexpr (std::is_same<ExecutionSpace, Kokkos::Cuda>::value) {
    device_sort_by_key(space, keys, key_bound, grouping);
    return;
  } else
#endif
  {
    radix_sort_by_key_chunked(space, keys, key_bound, grouping);
  }
}

/// From sorted_keys and order (n > 0): offsets, keys and group_of of every group; returns the
/// number of groups.
template <class ExecutionSpace>
std::int64_t mark_key_groups(ExecutionSpace const &space, KeyGrouping<ExecutionSpace> &grouping) {
  const std::int64_t n = grouping.num_items;
  auto order = grouping.order, sorted_keys = grouping.sorted_keys;
  auto offsets = grouping.offsets, group_keys = grouping.keys, group_of = grouping.group_of;
  return scan_range(
      space, "ttgnn::key_grouping::boundaries", 0, n,
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t & update, bool final) {
        const bool start = i == 0 || sorted_keys(i) != sorted_keys(i - 1);
        if (final) {
          const auto g = start ? update : update - 1;
          if (start) {
            offsets(g) = i;
            group_keys(g) = sorted_keys(i);
          }
          group_of(order(i)) = g;
          if (i == n - 1)
            offsets(g + 1) = n;
        }
        update += start ? 1 : 0;
      });
}

} // namespace detail

/// \brief Groups items 0..n-1 by keys(i) in [0, key_bound).
/// \param keys the key of every item (n = keys.extent(0)); values outside [0, key_bound) are
///   undefined behaviour (callers check ids first).
/// \param grouping output; its Views are reused when large enough.
/// \param sorted whether keys are known to be non-decreasing (1), known not to be (0), or
///   unknown (-1: checked first; sorted keys skip the sort).
template <class ExecutionSpace>
void group_by_key(ExecutionSpace const &space,
                  Kokkos::View<const std::int64_t *, typename ExecutionSpace::memory_space> keys,
                  std::int64_t key_bound, KeyGrouping<ExecutionSpace> &grouping, int sorted = -1) {
  const auto n = static_cast<std::int64_t>(keys.extent(0));
  reserve_entries(grouping.order, n, "ttgnn::key_grouping::order");
  reserve_entries(grouping.offsets, n + 1, "ttgnn::key_grouping::offsets");
  reserve_entries(grouping.keys, n, "ttgnn::key_grouping::keys");
  reserve_entries(grouping.group_of, n, "ttgnn::key_grouping::group_of");
  grouping.num_items = n;
  if (n == 0) {
    Kokkos::deep_copy(space, Kokkos::subview(grouping.offsets, 0), std::int64_t(0));
    grouping.num_groups = 0;
    return;
  }
  if (sorted < 0)
    sorted = detail::keys_non_decreasing(space, keys, n) ? 1 : 0;
  reserve_entries(grouping.sorted_keys, n, "ttgnn::key_grouping::sorted_keys");
  if (sorted == 1)
    detail::identity_order(space, keys, grouping);
  else
    detail::radix_sort_by_key(space, keys, key_bound, grouping);
  grouping.num_groups = detail::mark_key_groups(space, grouping);
}

} // namespace ttgnn

#endif
