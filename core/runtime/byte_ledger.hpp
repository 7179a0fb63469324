#ifndef TTGNN_CORE_BYTE_LEDGER_HPP
#define TTGNN_CORE_BYTE_LEDGER_HPP
/// \file byte_ledger.hpp
/// \brief Sums the bytes of the Views an object holds, each allocation once: Views that alias
/// (a buffer handed on as the next layer's input, a host View shared with the device) are
/// recognised by their data pointer, and a pointer seen with several sizes (a View and a row
/// subview of it) counts with the largest. Memory reports are built from these sums, not from
/// estimates.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <type_traits>

namespace ttgnn {

/// \brief Bytes of distinct allocations (see the file comment).
class ByteLedger {
public:
  /// Adds \p v (nothing for an empty View or one already added with at least its size).
  template <class View, std::enable_if_t<Kokkos::is_view<View>::value, int> = 0>
  ByteLedger &add(View const &v) {
    static_assert(Kokkos::is_view<View>::value, "ByteLedger::add takes a Kokkos::View");
    if (v.data() == nullptr || v.span() == 0)
      return *this;
    const auto bytes = static_cast<std::int64_t>(v.span() * sizeof(typename View::value_type));
    std::int64_t &seen = sizes_[static_cast<void const *>(v.data())];
    seen = std::max(seen, bytes);
    return *this;
  }
  /// Adds every View of a container (std::vector of Views).
  template <class Container> ByteLedger &add_all(Container const &views) {
    for (auto const &v : views)
      add(v);
    return *this;
  }
  /// Adds the allocations of another ledger.
  ByteLedger &add(ByteLedger const &other) {
    for (auto const &kv : other.sizes_) {
      std::int64_t &seen = sizes_[kv.first];
      seen = std::max(seen, kv.second);
    }
    return *this;
  }
  /// Removes the allocation at the data pointer of \p v (nothing when absent or empty).
  template <class View> ByteLedger &remove(View const &v) {
    static_assert(Kokkos::is_view<View>::value, "ByteLedger::remove takes a Kokkos::View");
    if (v.data() != nullptr)
      sizes_.erase(static_cast<void const *>(v.data()));
    return *this;
  }
  /// Sum over the distinct allocations.
  std::int64_t bytes() const {
    std::int64_t s = 0;
    for (auto const &kv : sizes_)
      s += kv.second;
    return s;
  }
  /// True when an allocation at the data pointer of \p v was added.
  template <class View> bool contains(View const &v) const {
    return v.data() != nullptr && sizes_.count(static_cast<void const *>(v.data())) > 0;
  }

private:
  std::map<void const *, std::int64_t> sizes_;
};

/// \brief Bytes of one View (span x element size; 0 when empty).
template <class View> std::int64_t view_bytes(View const &v) {
  static_assert(Kokkos::is_view<View>::value, "view_bytes takes a Kokkos::View");
  return v.data() == nullptr
             ? 0
             : static_cast<std::int64_t>(v.span() * sizeof(typename View::value_type));
}

} // namespace ttgnn

#endif
