#ifndef TTGNN_CORE_RUNTIME_GROW_ONLY_HPP
#define TTGNN_CORE_RUNTIME_GROW_ONLY_HPP
/// \file grow_only.hpp
/// \brief Grow-only workspaces: buffers that a step after step reuses, replaced only when a
/// step needs more. The first allocation is exact (a full batch, always the same size,
/// allocates once); a growth after it reserves a quarter more, so that mini-batches, whose
/// sizes vary a little from batch to batch, stop allocating after the first few.

#include "core/runtime/buffer_cache.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <utility>

namespace ttgnn {

/// \brief Makes the rank-2 View \p storage hold at least \p r rows of \p c columns: replaced
/// (uninitialised) when it holds fewer rows, exactly \p r of them when its columns differ (the
/// first allocation), a quarter more when it grows.
template <class MatrixView>
void reserve_rows(MatrixView &storage, std::int64_t r, std::int64_t c, std::string const &label) {
  const bool same_cols = static_cast<std::int64_t>(storage.extent(1)) == c;
  if (!same_cols || r > static_cast<std::int64_t>(storage.extent(0)))
    storage = MatrixView(Kokkos::view_alloc(Kokkos::WithoutInitializing, label),
                         same_cols ? r + r / 4 : r, c);
}

/// \brief Grow-only storage of a row-major workspace matrix: rows(label, r, c) is the leading r
/// rows of an allocation with c columns (reserve_rows; uninitialised). With a BufferCache
/// (set_cache) a released allocation that nothing else references goes to the cache, and an
/// allocation too small for a request is replaced from it when it can be.
template <class MatrixView> class GrowingMatrix {
public:
  MatrixView rows(std::string const &label, std::int64_t r, std::int64_t c) {
    if (cache_ != nullptr && (static_cast<std::int64_t>(storage_.extent(1)) != c ||
                              static_cast<std::int64_t>(storage_.extent(0)) < r)) {
      release();
      storage_ = cache_->take(r, c);
    }
    reserve_rows(storage_, r, c, label);
    return Kokkos::subview(storage_, std::make_pair(std::int64_t(0), r), Kokkos::ALL);
  }
  /// The whole allocation (memory reports count it, not the rows in use).
  MatrixView const &storage() const { return storage_; }
  /// Frees the allocation (into the cache when there is one and nothing else holds it).
  void release() {
    if (cache_ != nullptr && storage_.use_count() == 1)
      cache_->give(storage_);
    storage_ = MatrixView();
  }
  /// Where released allocations go (nullptr: freed).
  void set_cache(BufferCache<MatrixView> *cache) { cache_ = cache; }

private:
  MatrixView storage_;
  BufferCache<MatrixView> *cache_ = nullptr;
};

/// \brief Makes the rank-1 View \p storage hold at least \p n entries: replaced (uninitialised)
/// only when it holds fewer.
template <class View>
void reserve_entries(View &storage, std::int64_t n, std::string const &label) {
  const auto have = static_cast<std::int64_t>(storage.extent(0));
  if (n > have || (n > 0 && storage.data() == nullptr))
    storage = View(Kokkos::view_alloc(Kokkos::WithoutInitializing, label),
                   storage.data() == nullptr ? n : n + n / 4);
}

/// \brief The first \p n entries of \p storage after reserve_entries (an empty View for 0).
template <class View> View grow_entries(View &storage, std::string const &label, std::int64_t n) {
  if (n == 0)
    return View();
  reserve_entries(storage, n, label);
  return Kokkos::subview(storage, std::make_pair(std::int64_t(0), n));
}

} // namespace ttgnn

#endif
