#ifndef TTGNN_CORE_RUNTIME_BUFFER_CACHE_HPP
#define TTGNN_CORE_RUNTIME_BUFFER_CACHE_HPP
/// \file buffer_cache.hpp
/// \brief Freed matrix buffers kept for the next request of their shape, for workspaces that
/// are allocated and freed within every step (training under a memory budget): a step that
/// repeats the last one's allocations reuses its buffers instead of faulting in fresh pages.
///
/// What is resident never exceeds the most the caller held live at once. A request the cache
/// cannot serve frees every cached buffer before the caller allocates; between two such
/// misses buffers only move between the caller and the cache, so the resident bytes stay those
/// of the last miss, when nothing was cached: the live bytes at that moment.

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ttgnn {

/// \brief Cache of rank-2 Views (see the file comment).
template <class MatrixView> class BufferCache {
public:
  /// \brief The cached buffer of \p c columns with the fewest rows >= \p r, removed from the
  /// cache; when there is none, an empty View, and the cache is emptied (freed).
  MatrixView take(std::int64_t r, std::int64_t c) {
    std::size_t best = free_.size();
    for (std::size_t i = 0; i < free_.size(); ++i) {
      const auto rows = static_cast<std::int64_t>(free_[i].extent(0));
      if (static_cast<std::int64_t>(free_[i].extent(1)) == c && rows >= r &&
          (best == free_.size() || rows < static_cast<std::int64_t>(free_[best].extent(0))))
        best = i;
    }
    if (best == free_.size()) {
      ++misses_;
      free_.clear();
      return MatrixView();
    }
    ++hits_;
    MatrixView out = free_[best];
    free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(best));
    return out;
  }
  /// Keeps \p storage for a later take (nothing for an empty View).
  void give(MatrixView storage) {
    if (storage.data() != nullptr)
      free_.push_back(storage);
  }
  /// Frees every cached buffer.
  void clear() { free_.clear(); }
  /// The cached buffers (memory reports count them).
  std::vector<MatrixView> const &buffers() const { return free_; }
  std::int64_t hits() const { return hits_; }
  std::int64_t misses() const { return misses_; }

private:
  std::vector<MatrixView> free_;
  std::int64_t hits_ = 0, misses_ = 0;
};

} // namespace ttgnn

#endif
