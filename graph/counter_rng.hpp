#ifndef TTGNN_GRAPH_COUNTER_RNG_HPP
#define TTGNN_GRAPH_COUNTER_RNG_HPP
/// \file counter_rng.hpp
/// \brief Counter-based random streams for host code that runs in parallel chunks.
///
/// A stream is named by (seed, domain, index): the generator of chunk 17 of the edge sampler
/// or of node 123's features is the same whichever thread runs it and however many threads
/// there are, so results depend on the seed only. Each stream is splitmix64 (Steele, Lea and
/// Flood 2014) started from a hash of its name.

#include <cmath>
#include <cstdint>
#include <utility>

namespace ttgnn {

/// splitmix64's output function: a bijective 64-bit mixer.
constexpr std::uint64_t splitmix64_mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/// \brief One random stream, cheap to create (three mixes), 64 bits per step.
class CounterRng {
public:
  /// \param seed the user's seed
  /// \param domain what the stream is for (one constant per use, so uses never share streams)
  /// \param index which chunk / node / class of that use
  constexpr CounterRng(std::uint64_t seed, std::uint64_t domain, std::uint64_t index)
      : state_(splitmix64_mix(splitmix64_mix(splitmix64_mix(seed) ^ (domain * kGolden + 1)) ^
                              (index * 0xD1B54A32D192ED03ULL))) {}

  /// Next 64 random bits.
  constexpr std::uint64_t next() {
    state_ += kGolden;
    return splitmix64_mix(state_);
  }
  /// Uniform integer in [0, n) by Lemire's multiply-high (bias below n / 2^64), n > 0.
  std::uint64_t below(std::uint64_t n) {
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
  }
  /// Uniform double in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// Uniform double in (0, 1] (safe for log).
  double uniform_positive() { return static_cast<double>((next() >> 11) + 1) * 0x1.0p-53; }
  /// Two independent standard normal numbers (Box-Muller).
  std::pair<double, double> normal_pair() {
    const double radius = std::sqrt(-2.0 * std::log(uniform_positive()));
    const double angle = 6.283185307179586 * uniform();
    return {radius * std::cos(angle), radius * std::sin(angle)};
  }

private:
  static constexpr std::uint64_t kGolden = 0x9E3779B97F4A7C15ULL;
  std::uint64_t state_;
};

} // namespace ttgnn

#endif
