#ifndef TTGNN_MODELS_PARAMETER_INIT_HPP
#define TTGNN_MODELS_PARAMETER_INIT_HPP
/// \file parameter_init.hpp
/// \brief Seeded initialisation of layer parameters (drawn on the host, then copied), so a seed
/// gives the same values on every execution space and standard library.

#include "core/counter_rng.hpp"

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>

namespace ttgnn {

/// Weight initialisation schemes.
enum class Init {
  glorot,  ///< U(-a, a), a = sqrt(6 / (fan_in + fan_out)) (PyG GCNConv)
  kaiming, ///< U(-a, a), a = 1 / sqrt(fan_in) (torch.nn.Linear's default, kaiming_uniform(sqrt 5))
};

/// Counter-based random numbers of the layers (device-callable, no state).
namespace layer_rng {

/// splitmix64 step: a well-mixed 64-bit value from any 64-bit input (core/counter_rng.hpp).
KOKKOS_INLINE_FUNCTION std::uint64_t mix64(std::uint64_t x) {
  return splitmix64_hash(x);
}

/// Uniform double in [0, 1) from the top 53 bits of a 64-bit value.
KOKKOS_INLINE_FUNCTION double uniform01(std::uint64_t bits) {
  return uniform01_from_bits(bits);
}

} // namespace layer_rng

/// Bound a of U(-a, a) for a fan_in x fan_out weight.
inline double init_bound(Init init, std::int64_t fan_in, std::int64_t fan_out) {
  if (init == Init::glorot)
    return std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
  return 1.0 / std::sqrt(static_cast<double>(fan_in > 0 ? fan_in : 1));
}

/// \brief Fills a rank-1 View with U(-bound, bound) values; element k depends only on
/// (seed, k).
template <class View> void uniform_fill(View const &v, double bound, std::uint64_t seed) {
  auto h = Kokkos::create_mirror_view(v);
  const std::uint64_t key = layer_rng::mix64(seed);
  for (std::size_t k = 0; k < h.extent(0); ++k) {
    const double u = layer_rng::uniform01(layer_rng::mix64(key ^ layer_rng::mix64(k)));
    h(k) = static_cast<typename View::non_const_value_type>((2.0 * u - 1.0) * bound);
  }
  Kokkos::deep_copy(v, h);
}

} // namespace ttgnn

#endif
