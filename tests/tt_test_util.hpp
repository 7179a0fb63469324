#ifndef TTGNN_TESTS_CORE_TT_TEST_UTIL_HPP
#define TTGNN_TESTS_CORE_TT_TEST_UTIL_HPP
/// \file tt_test_util.hpp
/// \brief Shared by the TT tests: test shapes, seeded random cores, id batches, a host
/// reference row in double.

#include "core/tt/tt_cores.hpp"
#include "core/tt/tt_shape.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace ttgnn::test {

/// Per-core host values in double (one vector per core, the core's layout).
using HostCores = std::vector<std::vector<double>>;

/// A validated TT shape.
inline TtShape tt_shape(std::int64_t rows, std::vector<std::int64_t> n, std::vector<std::int64_t> d,
                        std::vector<std::int64_t> ranks) {
  TtShape s;
  s.num_rows = rows;
  s.n = std::move(n);
  s.d = std::move(d);
  s.ranks = std::move(ranks);
  s.validate();
  return s;
}

/// Small shapes with 2, 3 and 4 cores and non-uniform ranks.
inline std::vector<TtShape> tt_test_shapes() {
  return {tt_shape(50, {7, 8}, {4, 3}, {1, 3, 1}),
          tt_shape(200, {5, 6, 7}, {3, 2, 4}, {1, 4, 5, 1}),
          tt_shape(170, {3, 4, 3, 5}, {2, 2, 3, 2}, {1, 3, 2, 4, 1})};
}

/// \p n weights uniform in [-1, 1] from seed.
inline std::vector<double> random_weights(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> w(n);
  for (auto &x : w)
    x = u(rng);
  return w;
}

/// Largest |got - ref| and largest |ref| over all cores.
struct MaxError {
  double err = 0, ref = 0;
};
inline MaxError max_error(HostCores const &got, HostCores const &ref) {
  MaxError m;
  for (std::size_t k = 0; k < ref.size(); ++k)
    for (std::size_t i = 0; i < ref[k].size(); ++i) {
      m.err = std::max(m.err, std::fabs(got[k][i] - ref[k][i]));
      m.ref = std::max(m.ref, std::fabs(ref[k][i]));
    }
  return m;
}

/// Host cores with entries uniform in [-1, 1] from seed.
inline std::vector<std::vector<double>> random_host_cores(TtShape const &s, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<std::vector<double>> cores;
  for (int k = 0; k < s.num_cores(); ++k) {
    cores.emplace_back(s.core_size(k));
    for (auto &x : cores.back())
      x = u(rng);
  }
  return cores;
}

/// Device cores holding \p host (rounded to Scalar).
template <class Scalar, class ExecutionSpace>
TtCores<Scalar, typename ExecutionSpace::memory_space>
make_cores(TtShape const &s, std::vector<std::vector<double>> const &host) {
  TtCores<Scalar, typename ExecutionSpace::memory_space> cores(s, "ttgnn::test::cores");
  copy_cores_from_host(ExecutionSpace(), cores, host);
  return cores;
}

/// Row \p id of the table given by host cores, in double (absolute values when \p abs).
inline std::vector<double> host_row(TtShape const &s, std::vector<std::vector<double>> const &g,
                                    std::int64_t id, bool abs = false) {
  const int nc = s.num_cores();
  std::int64_t dig[max_tt_cores];
  mixed_radix_digits(id, nc, s.n.data(), dig);
  std::vector<double> cur(1, 1.0), next;
  std::int64_t lead = 1;
  for (int k = 0; k < nc; ++k) {
    const auto ra = s.ranks[k], cols = s.d[k] * s.ranks[k + 1];
    const double *slice = g[k].data() + dig[k] * ra * cols;
    next.assign(lead * cols, 0.0);
    for (std::int64_t x = 0; x < lead; ++x)
      for (std::int64_t a = 0; a < ra; ++a)
        for (std::int64_t c = 0; c < cols; ++c) {
          const double v = slice[a * cols + c];
          next[x * cols + c] += cur[x * ra + a] * (abs ? std::fabs(v) : v);
        }
    cur.swap(next);
    lead *= s.d[k];
  }
  return cur;
}

/// loss = sum_b sum_j w(b, j) · row(ids[b])(j) on the host in double; with \p abs, of the
/// absolute values of cores and weights (the scale of the loss's rounding error).
inline double host_loss(TtShape const &s, HostCores const &g, std::vector<std::int64_t> const &ids,
                        std::vector<double> const &w, bool abs = false) {
  double loss = 0;
  const auto dim = s.dim();
  for (std::size_t b = 0; b < ids.size(); ++b) {
    auto row = host_row(s, g, ids[b], abs);
    for (std::int64_t j = 0; j < dim; ++j)
      loss += (abs ? std::fabs(w[b * dim + j]) : w[b * dim + j]) * row[j];
  }
  return loss;
}

/// Central differences of host_loss with step \p h for every core entry. The loss is linear in
/// each single entry, so they are exact up to the rounding of the two losses.
inline HostCores finite_difference_grads(TtShape const &s, HostCores const &host,
                                         std::vector<std::int64_t> const &ids,
                                         std::vector<double> const &w, double h) {
  HostCores fd = host;
  for (std::size_t k = 0; k < host.size(); ++k)
    for (std::size_t i = 0; i < host[k].size(); ++i) {
      auto plus = host, minus = host;
      plus[k][i] += h;
      minus[k][i] -= h;
      fd[k][i] = (host_loss(s, plus, ids, w) - host_loss(s, minus, ids, w)) / (2 * h);
    }
  return fd;
}

/// Batches of ids: "random" (uniform, with repeats), "contiguous", "repeated" (few ids).
inline std::vector<std::int64_t> test_ids(TtShape const &s, char const *kind, std::uint64_t seed,
                                          std::int64_t batch) {
  std::mt19937_64 rng(seed);
  std::vector<std::int64_t> ids(batch);
  const std::string k = kind;
  for (std::int64_t b = 0; b < batch; ++b) {
    if (k == "random")
      ids[b] = std::uniform_int_distribution<std::int64_t>(0, s.num_rows - 1)(rng);
    else if (k == "contiguous")
      ids[b] = (17 + b) % s.num_rows;
    else {
      const std::int64_t few[] = {5, s.num_rows - 1, 0, 5, 12, 5};
      ids[b] = few[b % 6];
    }
  }
  return ids;
}

/// A device View of ids.
template <class ExecutionSpace>
Kokkos::View<std::int64_t *, typename ExecutionSpace::memory_space>
to_device(std::vector<std::int64_t> const &ids) {
  Kokkos::View<std::int64_t *, typename ExecutionSpace::memory_space> v("ttgnn::test::ids",
                                                                        ids.size());
  auto h = Kokkos::create_mirror_view(v);
  for (std::size_t i = 0; i < ids.size(); ++i)
    h(i) = ids[i];
  Kokkos::deep_copy(v, h);
  return v;
}

} // namespace ttgnn::test

#endif
