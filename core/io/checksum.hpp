#ifndef TTGNN_CORE_CHECKSUM_HPP
#define TTGNN_CORE_CHECKSUM_HPP
/// \file checksum.hpp
/// \brief 64-bit checksums of byte ranges (the XXH64 algorithm), used by the binary cache and
/// checkpoints to detect corrupt files.

#include <cstddef>
#include <cstdint>
#include <functional>

namespace ttgnn {

/// \brief XXH64 of \p bytes bytes at \p data with \p seed (matches the xxHash reference).
std::uint64_t checksum64(void const *data, std::size_t bytes, std::uint64_t seed = 0);

/// \brief Checksum of a large range, computed in parallel on the host: 4 MiB blocks are hashed
/// with checksum64 (seed = block index), then the block hashes with \p seed. Equal to
/// checksum64(data, bytes, seed) for ranges up to 4 MiB; independent of the thread count.
std::uint64_t parallel_checksum64(void const *data, std::size_t bytes, std::uint64_t seed);
/// \brief Fills \p bytes bytes at \p data block by block, `fill(offset, length)` writing
/// data[offset, offset + length) (a read from a file, say), in parallel on the host, each
/// block hashed by the thread that filled it while it is still in cache. Returns false when a
/// fill did; else sets \p sum to parallel_checksum64(data, bytes, seed).
bool parallel_fill_checksum64(void *data, std::size_t bytes, std::uint64_t seed,
                              std::function<bool(std::size_t, std::size_t)> const &fill,
                              std::uint64_t &sum);

} // namespace ttgnn

#endif
