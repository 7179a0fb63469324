#ifndef TTGNN_CORE_MIXED_RADIX_HPP
#define TTGNN_CORE_MIXED_RADIX_HPP
/// \file mixed_radix.hpp
/// \brief Splitting a node id into TT digits, most significant first, and back.

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace ttgnn {

/// Largest number of TT cores ttgnn supports.
inline constexpr int max_tt_cores = 4;

/// \brief Digits of \p id in the mixed radix (radix[0], ..., radix[num-1]), most significant
/// first: id = ((d0 * r1 + d1) * r2 + d2) ... Requires id < product of radices.
/// \param digits output, num entries.
KOKKOS_INLINE_FUNCTION void mixed_radix_digits(std::int64_t id, int num, const std::int64_t *radix,
                                               std::int64_t *digits) {
  for (int k = num - 1; k >= 0; --k) {
    digits[k] = id % radix[k];
    id /= radix[k];
  }
}

/// \brief Inverse of mixed_radix_digits.
KOKKOS_INLINE_FUNCTION std::int64_t mixed_radix_value(int num, const std::int64_t *radix,
                                                      const std::int64_t *digits) {
  std::int64_t id = 0;
  for (int k = 0; k < num; ++k)
    id = id * radix[k] + digits[k];
  return id;
}

} // namespace ttgnn

#endif
