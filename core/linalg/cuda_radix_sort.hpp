#ifndef TTGNN_CORE_LINALG_CUDA_RADIX_SORT_HPP
#define TTGNN_CORE_LINALG_CUDA_RADIX_SORT_HPP
/// \file cuda_radix_sort.hpp
/// \brief The device sort of key grouping on Cuda: CUB's stable LSD radix sort of (key, item)
/// pairs (cub::DeviceRadixSort::SortPairs), on the space's stream, with its temporary storage
/// given by the caller (no allocation inside). CUB stays in cuda_radix_sort.cpp.

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>

#ifdef KOKKOS_ENABLE_CUDA

namespace ttgnn::detail {

/// Bytes of temporary storage cuda_radix_sort_pairs needs for \p n items sorted by \p bits bits.
std::size_t cuda_radix_sort_temp_bytes(std::int64_t n, int bits);

/// \brief keys_out, items_out = (keys_in, items_in) sorted stably by the low \p bits bits of
/// the keys (non-negative keys below 2^bits). All pointers are device memory of n entries;
/// \p temp holds at least cuda_radix_sort_temp_bytes(n, bits) bytes. Asynchronous on \p space.
void cuda_radix_sort_pairs(Kokkos::Cuda const &space, std::int64_t const *keys_in,
                           std::int64_t *keys_out, std::int64_t const *items_in,
                           std::int64_t *items_out, std::int64_t n, int bits, void *temp,
                           std::size_t temp_bytes);

} // namespace ttgnn::detail

#endif

#endif
