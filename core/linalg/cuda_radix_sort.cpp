// CUB's device radix sort behind key grouping on Cuda (see cuda_radix_sort.hpp).
#include "core/linalg/cuda_radix_sort.hpp"

#ifdef KOKKOS_ENABLE_CUDA

#include "core/error.hpp"

#include <cub/device/device_radix_sort.cuh>

#include <string>

namespace ttgnn::detail {

namespace {

using Key = unsigned long long; // the keys are non-negative: sorted as unsigned bit patterns
static_assert(sizeof(Key) == sizeof(std::int64_t));

void check(cudaError_t status, char const *what) {
  if (status != cudaSuccess)
    throw Error(std::string("ttgnn::cuda_radix_sort: ") + what + ": " + cudaGetErrorString(status));
}

} // namespace

std::size_t cuda_radix_sort_temp_bytes(std::int64_t n, int bits) {
  std::size_t bytes = 0;
  check(cub::DeviceRadixSort::SortPairs(nullptr, bytes, static_cast<Key const *>(nullptr),
                                        static_cast<Key *>(nullptr),
                                        static_cast<std::int64_t const *>(nullptr),
                                        static_cast<std::int64_t *>(nullptr), n, 0, bits),
        "temporary storage query");
  return bytes;
}

void cuda_radix_sort_pairs(Kokkos::Cuda const &space, std::int64_t const *keys_in,
                           std::int64_t *keys_out, std::int64_t const *items_in,
                           std::int64_t *items_out, std::int64_t n, int bits, void *temp,
                           std::size_t temp_bytes) {
  check(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, reinterpret_cast<Key const *>(keys_in),
                                        reinterpret_cast<Key *>(keys_out), items_in, items_out, n,
                                        0, bits, space.cuda_stream()),
        "SortPairs");
}

} // namespace ttgnn::detail

#endif
