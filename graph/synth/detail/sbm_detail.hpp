#ifndef TTGNN_GRAPH_SBM_DETAIL_HPP
#define TTGNN_GRAPH_SBM_DETAIL_HPP
/// \file sbm_detail.hpp
/// \brief Internals shared by the SBM generator's sources: the CounterRng domains (one per
/// kind of random choice, so no two choices share a stream; changing a value changes every
/// generated dataset) and the 1e-4 feature grid with its exact text form.

#include <charconv>
#include <cmath>
#include <cstdint>
#include <vector>

namespace ttgnn::sbm_detail {

namespace stream {
constexpr std::uint64_t permutation = 1; ///< index 0: position -> node
constexpr std::uint64_t weights = 2;     ///< index: node
constexpr std::uint64_t class_means = 3; ///< index: class
constexpr std::uint64_t features = 4;    ///< index: node
constexpr std::uint64_t split = 5;       ///< index: class
/// Edge draws: domain edges + 3 * round + kind, index: chunk within (round, kind).
constexpr std::uint64_t edges = 16;
/// Edge features of the written dataset ("edge_f" in ASCII), index: edge.
constexpr std::uint64_t edge_features = 0x656467655F66ULL;
} // namespace stream

/// Features live on a grid of 1e-4: value k * 1e-4 for an integer k.
constexpr double kQuantum = 1e4;

/// The float nearest to k / 10^4, i.e. exactly what strtof / from_chars return for the text
/// written by put_quantum(k). (f * 10^4 is exact in double: 24 + 10 significant bits.)
inline float nearest_float_of_quantum(std::int64_t k) {
  const auto target = static_cast<double>(k);
  float best = static_cast<float>(target / kQuantum);
  double err = std::fabs(static_cast<double>(best) * kQuantum - target);
  for (float g : {std::nextafter(best, -HUGE_VALF), std::nextafter(best, HUGE_VALF)}) {
    const double e = std::fabs(static_cast<double>(g) * kQuantum - target);
    if (e < err) {
      best = g;
      err = e;
    }
  }
  return best;
}

/// Writes k / 10^4 in decimal without trailing zeros ("-1.25", "3", "0.0007") at \p p (needs
/// 26 bytes); returns the new end.
inline char *put_quantum(char *p, std::int64_t k) {
  if (k < 0) {
    *p++ = '-';
    k = -k;
  }
  p = std::to_chars(p, p + 20, k / 10000).ptr;
  if (std::int64_t frac = k % 10000; frac != 0) {
    *p++ = '.';
    int digits = 4;
    while (frac % 10 == 0) {
      frac /= 10;
      --digits;
    }
    for (int i = digits - 1; i >= 0; --i, frac /= 10)
      p[i] = static_cast<char>('0' + frac % 10);
    p += digits;
  }
  return p;
}

/// \brief Re-lays the edge-key store in place. Region b of \p store starts at base[b], holds
/// size[b] sorted keys and has room cap[b]; it is about to receive fresh[b] more. New
/// capacities: size + fresh + a share of the spare room proportional to size; regions keep
/// their order, move with memmove (left-moving ones in increasing order, then right-moving ones
/// in decreasing order, so no region overwrites keys not yet moved), and base[nb] (the total)
/// is unchanged. Throws ttgnn::Error when sum(size + fresh) exceeds the total.
void relayout_regions(std::uint64_t *store, std::vector<std::int64_t> &base,
                      std::vector<std::int64_t> &cap, std::vector<std::int64_t> const &size,
                      std::vector<std::int64_t> const &fresh);

} // namespace ttgnn::sbm_detail

#endif
