#ifndef TTGNN_CORE_TT_HOST_DETAIL_HPP
#define TTGNN_CORE_TT_HOST_DETAIL_HPP
/// \file tt_host_detail.hpp
/// \brief Internal helpers shared by tt_init.cpp and tt_svd.cpp (not part of the API): shape
/// checks from TtShape's public fields (so they do not depend on TtShape's methods), the
/// storage index of a core entry, and a scope that runs Eigen single-threaded.

#include "core/error.hpp"
#include "core/tt/mixed_radix.hpp"
#include "core/tt/tt_init.hpp"

#include <cstdint>
#include <limits>
#include <string>

namespace ttgnn::detail {

/// Sizes of a checked shape.
struct TtShapeFacts {
  int num_cores = 0;
  std::int64_t dim = 1, padded_rows = 1;
};

inline std::int64_t tt_checked_mul(std::int64_t a, std::int64_t b) {
  if (a > std::numeric_limits<std::int64_t>::max() / b)
    throw ConfigError("ttgnn::tt_init: the TT shape overflows 64-bit sizes");
  return a * b;
}

/// Throws ttgnn::ConfigError unless the shape is usable (2..4 cores, factors and ranks >= 1,
/// end ranks 1, 1 <= num_rows <= prod(n), prod(n)·dim fits 64 bits).
inline TtShapeFacts check_tt_shape(TtShape const &s) {
  TtShapeFacts f;
  f.num_cores = static_cast<int>(s.n.size());
  auto fail = [&](std::string const &why) {
    throw ConfigError("ttgnn::tt_init: impossible TT shape: " + why);
  };
  if (f.num_cores < 2 || f.num_cores > max_tt_cores)
    fail(std::to_string(f.num_cores) + " cores, expected 2 to " + std::to_string(max_tt_cores));
  if (static_cast<int>(s.d.size()) != f.num_cores ||
      static_cast<int>(s.ranks.size()) != f.num_cores + 1)
    fail("expected " + std::to_string(f.num_cores) + " d-factors and " +
         std::to_string(f.num_cores + 1) + " ranks");
  if (s.ranks.front() != 1 || s.ranks.back() != 1)
    fail("the first and last ranks must be 1");
  for (int k = 0; k < f.num_cores; ++k) {
    if (s.n[k] < 1 || s.d[k] < 1 || s.ranks[k + 1] < 1)
      fail("factors and ranks must be >= 1 (core " + std::to_string(k) + ")");
    f.dim = tt_checked_mul(f.dim, s.d[k]);
    f.padded_rows = tt_checked_mul(f.padded_rows, s.n[k]);
  }
  if (s.num_rows < 1 || s.num_rows > f.padded_rows)
    fail("num_rows = " + std::to_string(s.num_rows) +
         " must be in [1, product of n = " + std::to_string(f.padded_rows) + "]");
  tt_checked_mul(f.padded_rows, f.dim);
  return f;
}

/// n[k]·ranks[k]·d[k]·ranks[k+1].
inline std::int64_t tt_core_size(TtShape const &s, int k) {
  return s.n[k] * s.ranks[k] * s.d[k] * s.ranks[k + 1];
}

/// Flat index of G_k[i](a, j, b) in the storage layout of core/tt/tt_shape.hpp.
inline std::int64_t tt_core_index(TtShape const &s, int k, std::int64_t i, std::int64_t a,
                                  std::int64_t j, std::int64_t b) {
  return ((i * s.ranks[k] + a) * s.d[k] + j) * s.ranks[k + 1] + b;
}

/// Throws ttgnn::ConfigError unless there are K cores of the shape's sizes.
inline void check_tt_cores(TtShape const &s, TtShapeFacts const &f, TtHostCores const &cores) {
  if (static_cast<int>(cores.size()) != f.num_cores)
    throw ConfigError("ttgnn::tt_init: " + std::to_string(cores.size()) + " cores for a shape of " +
                      std::to_string(f.num_cores));
  for (int k = 0; k < f.num_cores; ++k)
    if (static_cast<std::int64_t>(cores[k].size()) != tt_core_size(s, k))
      throw ConfigError("ttgnn::tt_init: core " + std::to_string(k) + " has " +
                        std::to_string(cores[k].size()) + " entries, the shape needs " +
                        std::to_string(tt_core_size(s, k)));
}

/// Eigen's thread count (Eigen::nbThreads / setNbThreads, defined in tt_init.cpp so that
/// this header does not include Eigen).
int eigen_num_threads();
void set_eigen_num_threads(int n);

/// Runs Eigen single-threaded for a scope. Eigen's OpenMP products share the runtime with
/// Kokkos' OpenMP threads; on a loaded machine (tests at -j2) they were 10x slower than one
/// thread, and these host inits run once and are small next to training. Restores the
/// previous count (as a fixed number) on exit.
class EigenSingleThread {
public:
  EigenSingleThread() : saved_(eigen_num_threads()) { set_eigen_num_threads(1); }
  ~EigenSingleThread() { set_eigen_num_threads(saved_); }
  EigenSingleThread(EigenSingleThread const &) = delete;
  EigenSingleThread &operator=(EigenSingleThread const &) = delete;

private:
  int saved_;
};

} // namespace ttgnn::detail

#endif
