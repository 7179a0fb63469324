#ifndef TTGNN_CORE_KEY_GROUPING_HPP
#define TTGNN_CORE_KEY_GROUPING_HPP
/// \file key_grouping.hpp
/// \brief Grouping items by an integer key with a stable sort: the basis of TT prefix sharing
/// and of the deterministic (sort-and-reduce) backward.
///
/// The sort is a least-significant-digit radix sort, 8 bits a pass, over chunks of items:
/// each chunk counts its digits, one scan gives every (digit, chunk) its first slot, and each
/// chunk scatters its items in order. A stable sort has exactly one result, so the grouping
/// does not depend on the number of chunks or threads.

#include "core/runtime/byte_ledger.hpp"
#include "core/kokkos_compat.hpp"
#include "core/linalg/range_ops.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

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
  index_view sorted_keys, keys_b, items_b, hist; ///< work space of the sort

  /// Adds every View above to \p ledger (memory reports).
  void add_workspace(ByteLedger &ledger) const {
    ledger.add(order).add(offsets).add(keys).add(group_of);
    ledger.add(sorted_keys).add(keys_b).add(items_b).add(hist);
  }
};

namespace detail {

template <class ExecutionSpace> struct RadixPass {
  using index_view = Kokkos::View<std::int64_t *, typename ExecutionSpace::memory_space>;
  index_view keys_in, items_in, keys_out, items_out, hist;
  std::int64_t num, chunk, num_chunks;
  int shift;

  struct Count {};
  struct Scatter {};
  KOKKOS_INLINE_FUNCTION int digit(std::int64_t key) const {
    return static_cast<int>((key >> shift) & 255);
  }
  KOKKOS_INLINE_FUNCTION void operator()(Count, std::int64_t c) const {
    for (int b = 0; b < 256; ++b)
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
  using index_view = typename KeyGrouping<ExecutionSpace>::index_view;
  const auto n = static_cast<std::int64_t>(keys.extent(0));
  auto ensure = [&](index_view &v, std::int64_t size, char const *label) {
    if (static_cast<std::int64_t>(v.extent(0)) < size)
      v = index_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), size);
  };
  ensure(grouping.order, n, "ttgnn::key_grouping::order");
  ensure(grouping.offsets, n + 1, "ttgnn::key_grouping::offsets");
  ensure(grouping.keys, n, "ttgnn::key_grouping::keys");
  ensure(grouping.group_of, n, "ttgnn::key_grouping::group_of");
  grouping.num_items = n;
  auto order = grouping.order;
  if (n == 0) {
    Kokkos::deep_copy(space, Kokkos::subview(grouping.offsets, 0), std::int64_t(0));
    grouping.num_groups = 0;
    return;
  }

  if (sorted < 0) {
    const auto descents = detail::sum_range(
        space, "ttgnn::key_grouping::check_sorted", 1, n,
        KOKKOS_LAMBDA(std::int64_t i, std::int64_t & acc) {
          acc += keys(i) < keys(i - 1) ? 1 : 0;
        });
    sorted = descents == 0 ? 1 : 0;
  }

  ensure(grouping.sorted_keys, n, "ttgnn::key_grouping::sorted_keys");
  auto sorted_keys = grouping.sorted_keys;
  if (sorted == 1) {
    detail::for_range(
        space, "ttgnn::key_grouping::identity", 0, n, KOKKOS_LAMBDA(std::int64_t i) {
          order(i) = i;
          sorted_keys(i) = keys(i);
        });
  } else {
    int bits = 0;
    while (bits < 63 && (std::int64_t(1) << bits) < key_bound)
      ++bits;
    const int passes = bits == 0 ? 1 : (bits + 7) / 8;
    const std::int64_t target_chunks =
        detail::run_serially<ExecutionSpace>(n) ? 1 : 4 * compat::concurrency(space);
    std::int64_t chunk = (n + target_chunks - 1) / target_chunks;
    if (chunk < 256 && target_chunks > 1)
      chunk = 256;
    const std::int64_t num_chunks = (n + chunk - 1) / chunk;
    ensure(grouping.keys_b, n, "ttgnn::key_grouping::keys_b");
    ensure(grouping.items_b, n, "ttgnn::key_grouping::items_b");
    ensure(grouping.hist, 256 * num_chunks, "ttgnn::key_grouping::hist");
    auto keys_b = grouping.keys_b, items_b = grouping.items_b, hist = grouping.hist;
    // Pass p reads (ka, ia) and writes (kb, ib); the first pass reads the input keys.
    index_view ka = sorted_keys, ia = order, kb = keys_b, ib = items_b;
    if (passes % 2 == 1) { // so that the last pass writes sorted_keys / order
      ka = keys_b;
      ia = items_b;
      kb = sorted_keys;
      ib = order;
    }
    detail::for_range(
        space, "ttgnn::key_grouping::init", 0, n, KOKKOS_LAMBDA(std::int64_t i) {
          ka(i) = keys(i);
          ia(i) = i;
        });
    for (int p = 0; p < passes; ++p) {
      detail::RadixPass<ExecutionSpace> pass{ka, ia, kb, ib, hist, n, chunk, num_chunks, 8 * p};
      using pass_type = detail::RadixPass<ExecutionSpace>;
      detail::for_range_tag<typename pass_type::Count>(space, "ttgnn::key_grouping::count", 0,
                                                       num_chunks, pass);
      detail::scan_range(
          space, "ttgnn::key_grouping::scan", 0, 256 * num_chunks,
          KOKKOS_LAMBDA(std::int64_t i, std::int64_t & update, bool final) {
            const auto c = hist(i);
            if (final)
              hist(i) = update;
            update += c;
          });
      detail::for_range_tag<typename pass_type::Scatter>(space, "ttgnn::key_grouping::scatter", 0,
                                                         num_chunks, pass);
      std::swap(ka, kb);
      std::swap(ia, ib);
    }
  }

  auto offsets = grouping.offsets, group_keys = grouping.keys, group_of = grouping.group_of;
  const auto num_groups = detail::scan_range(
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
  grouping.num_groups = num_groups;
}

} // namespace ttgnn

#endif
