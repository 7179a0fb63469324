#include "core/io/checksum.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstring>
#include <vector>

namespace ttgnn {

namespace {

constexpr std::size_t block_bytes = std::size_t(4) << 20;

constexpr std::uint64_t p1 = 11400714785074694791ULL, p2 = 14029467366897019727ULL,
                        p3 = 1609587929392839161ULL, p4 = 9650029242287828579ULL,
                        p5 = 2870177450012600261ULL;

inline std::uint64_t rotl(std::uint64_t x, int r) {
  return (x << r) | (x >> (64 - r));
}
inline std::uint64_t read64(unsigned char const *p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline std::uint32_t read32(unsigned char const *p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline std::uint64_t round64(std::uint64_t acc, std::uint64_t input) {
  return rotl(acc + input * p2, 31) * p1;
}
inline std::uint64_t merge64(std::uint64_t acc, std::uint64_t val) {
  return (acc ^ round64(0, val)) * p1 + p4;
}

} // namespace

std::uint64_t parallel_checksum64(void const *data, std::size_t bytes, std::uint64_t seed) {
  if (bytes <= block_bytes)
    return checksum64(data, bytes, seed);
  const std::size_t blocks = (bytes + block_bytes - 1) / block_bytes;
  std::vector<std::uint64_t> h(blocks);
  auto const *base = static_cast<unsigned char const *>(data);
  Kokkos::parallel_for("ttgnn::checksum::blocks",
                       Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, blocks),
                       [&](std::size_t b) {
                         const std::size_t begin = b * block_bytes;
                         h[b] = checksum64(base + begin, std::min(block_bytes, bytes - begin), b);
                       });
  return checksum64(h.data(), blocks * sizeof(std::uint64_t), seed);
}

bool parallel_fill_checksum64(void *data, std::size_t bytes, std::uint64_t seed,
                              std::function<bool(std::size_t, std::size_t)> const &fill,
                              std::uint64_t &sum) {
  auto const *base = static_cast<unsigned char const *>(data);
  if (bytes <= block_bytes) {
    if (!fill(0, bytes))
      return false;
    sum = checksum64(data, bytes, seed);
    return true;
  }
  const std::size_t blocks = (bytes + block_bytes - 1) / block_bytes;
  std::vector<std::uint64_t> h(blocks);
  int failed = 0;
  Kokkos::parallel_reduce(
      "ttgnn::checksum::fill_blocks",
      Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, blocks),
      [&](std::size_t b, int &bad) {
        const std::size_t begin = b * block_bytes;
        const std::size_t len = std::min(block_bytes, bytes - begin);
        if (!fill(begin, len)) {
          ++bad;
          return;
        }
        h[b] = checksum64(base + begin, len, b);
      },
      failed);
  if (failed)
    return false;
  sum = checksum64(h.data(), blocks * sizeof(std::uint64_t), seed);
  return true;
}

std::uint64_t checksum64(void const *data, std::size_t len, std::uint64_t seed) {
  auto const *p = static_cast<unsigned char const *>(data);
  auto const *const end = p + len;
  std::uint64_t h;
  if (len >= 32) {
    std::uint64_t v1 = seed + p1 + p2, v2 = seed + p2, v3 = seed, v4 = seed - p1;
    auto const *const limit = end - 32;
    do {
      v1 = round64(v1, read64(p));
      v2 = round64(v2, read64(p + 8));
      v3 = round64(v3, read64(p + 16));
      v4 = round64(v4, read64(p + 24));
      p += 32;
    } while (p <= limit);
    h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
    h = merge64(merge64(merge64(merge64(h, v1), v2), v3), v4);
  } else {
    h = seed + p5;
  }
  h += static_cast<std::uint64_t>(len);
  // compare lengths, not p + 8 <= end: no pointer past the end (or off a null data()) is formed
  for (; end - p >= 8; p += 8)
    h = rotl(h ^ round64(0, read64(p)), 27) * p1 + p4;
  if (end - p >= 4) {
    h = rotl(h ^ (static_cast<std::uint64_t>(read32(p)) * p1), 23) * p2 + p3;
    p += 4;
  }
  for (; p < end; ++p)
    h = rotl(h ^ (*p * p5), 11) * p1;
  h ^= h >> 33;
  h *= p2;
  h ^= h >> 29;
  h *= p3;
  h ^= h >> 32;
  return h;
}

} // namespace ttgnn
