#ifndef TTGNN_CORE_COUNTER_RNG_HPP
#define TTGNN_CORE_COUNTER_RNG_HPP
/// \file counter_rng.hpp
/// \brief The one home of ttgnn's random numbers: splitmix64 (Steele, Lea and Flood 2014) and
/// the counter-based streams built on it. Every random choice of the library (sub-seeds of
/// initialisations, METIS edge priorities, random orders, dropout masks, weight inits,
/// sampler and generator streams) goes through these functions, so one definition decides
/// reproducibility. The variants differ only in where the golden-ratio increment goes; each
/// keeps its own name so that no caller's numbers change:
///
/// - splitmix64_mix(z): the output function alone (a bijective 64-bit mixer);
/// - splitmix64_hash(x) = splitmix64_mix(x + gamma): one splitmix64 step from state x, used as
///   a stateless hash of a seed or a counter;
/// - splitmix64_next(state): the generator, state += gamma, then the output function.
///
/// All are KOKKOS_INLINE_FUNCTION: callable in kernels on every execution space.

#include <Kokkos_Macros.hpp>

#include <cmath>
#include <cstdint>
#include <utility>

namespace ttgnn {

/// splitmix64's increment (2^64 / golden ratio).
KOKKOS_INLINE_FUNCTION constexpr std::uint64_t splitmix64_gamma() {
  return 0x9E3779B97F4A7C15ULL;
}

/// splitmix64's output function: a bijective 64-bit mixer.
KOKKOS_INLINE_FUNCTION constexpr std::uint64_t splitmix64_mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/// One splitmix64 step from state \p x (adds the increment first): a well-mixed 64-bit value
/// from any 64-bit input, e.g. a sub-seed from a seed or an entry's bits from its counter.
KOKKOS_INLINE_FUNCTION constexpr std::uint64_t splitmix64_hash(std::uint64_t x) {
  return splitmix64_mix(x + splitmix64_gamma());
}

/// The splitmix64 generator: advances \p state by the increment and returns its next output.
KOKKOS_INLINE_FUNCTION constexpr std::uint64_t splitmix64_next(std::uint64_t &state) {
  state += splitmix64_gamma();
  return splitmix64_mix(state);
}

/// Uniform double in [0, 1) from the top 53 bits of \p bits.
KOKKOS_INLINE_FUNCTION constexpr double uniform01_from_bits(std::uint64_t bits) {
  return static_cast<double>(bits >> 11) * (1.0 / 9007199254740992.0);
}

/// \brief One random stream for host code that runs in parallel chunks, cheap to create (three
/// mixes), 64 bits per step. A stream is named by (seed, domain, index): the generator of
/// chunk 17 of the edge sampler or of node 123's features is the same whichever thread runs
/// it and however many threads there are, so results depend on the seed only.
class CounterRng {
public:
  /// \param seed the user's seed
  /// \param domain what the stream is for (one constant per use, so uses never share streams)
  /// \param index which chunk / node / class of that use
  KOKKOS_INLINE_FUNCTION constexpr CounterRng(std::uint64_t seed, std::uint64_t domain,
                                              std::uint64_t index)
      : state_(splitmix64_mix(
            splitmix64_mix(splitmix64_mix(seed) ^ (domain * splitmix64_gamma() + 1)) ^
            (index * 0xD1B54A32D192ED03ULL))) {}

  /// Next 64 random bits.
  KOKKOS_INLINE_FUNCTION constexpr std::uint64_t next() { return splitmix64_next(state_); }
  /// Uniform integer in [0, n) by Lemire's multiply-high (bias below n / 2^64), n > 0.
  KOKKOS_INLINE_FUNCTION std::uint64_t below(std::uint64_t n) {
    const std::uint64_t x = next();
    KOKKOS_IF_ON_DEVICE((return __umul64hi(x, n);))
    KOKKOS_IF_ON_HOST(
        (return static_cast<std::uint64_t>((static_cast<unsigned __int128>(x) * n) >> 64);))
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
  std::uint64_t state_;
};

} // namespace ttgnn

#endif
