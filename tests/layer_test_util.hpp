#ifndef TTGNN_TESTS_LAYER_TEST_UTIL_HPP
#define TTGNN_TESTS_LAYER_TEST_UTIL_HPP
/// \file layer_test_util.hpp
/// \brief Shared by the layer and loss tests: small host graphs, seeded random matrices, the
/// finite-difference gradient check in double and its forms for plain and graph layers, and
/// the mean operator of a sampled block.

#include "graph/csr_graph.hpp"
#include "models/layers/gcn_norm.hpp"
#include "models/layers/graph_operator.hpp"
#include "models/layers/layer.hpp"
#include "models/layers/parameter_init.hpp"

#include <doctest/doctest.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ttgnn::test {

template <class Space> using Mat = ttgnn::Matrix<double, Space>;
template <class Space> using Vec = Kokkos::View<double *, typename Space::memory_space>;
using HostGraph = ttgnn::CsrGraph<std::int32_t, Kokkos::HostSpace>;

inline HostGraph make_graph(std::int64_t n, std::vector<std::pair<int, int>> const &arcs) {
  std::vector<std::set<int>> rows(n);
  for (auto const &a : arcs)
    rows[a.first].insert(a.second);
  HostGraph g;
  g.row_map = Kokkos::View<std::int64_t *, Kokkos::HostSpace>("ttgnn::test::row_map", n + 1);
  std::vector<int> cols;
  for (std::int64_t i = 0; i < n; ++i) {
    cols.insert(cols.end(), rows[i].begin(), rows[i].end());
    g.row_map(i + 1) = std::int64_t(cols.size());
  }
  g.entries = Kokkos::View<std::int32_t *, Kokkos::HostSpace>("ttgnn::test::entries", cols.size());
  for (std::size_t k = 0; k < cols.size(); ++k)
    g.entries(k) = cols[k];
  return g;
}

/// Random graph on n nodes, each undirected edge with probability q (both arcs when symmetric,
/// one random direction otherwise); node n - 1 is left isolated.
inline HostGraph random_graph(int n, double q, bool symmetric, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::pair<int, int>> arcs;
  for (int i = 0; i < n - 1; ++i)
    for (int j = i + 1; j < n - 1; ++j)
      if (double(rng() % 1000) < q * 1000) {
        const bool forward = rng() % 2 == 0;
        if (symmetric || forward)
          arcs.emplace_back(i, j);
        if (symmetric || !forward)
          arcs.emplace_back(j, i);
      }
  return make_graph(n, arcs);
}

template <class Space>
Mat<Space> random_matrix(std::int64_t n, std::int64_t m, std::uint64_t seed, double away = 0) {
  Mat<Space> x("ttgnn::test::x", n, m);
  auto h = Kokkos::create_mirror_view(x);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < m; ++j) {
      double v = u(rng);
      if (std::fabs(v) < away) // keep |v| >= away (ReLU: no kink within the FD step)
        v = v < 0 ? v - away : v + away;
      h(i, j) = v;
    }
  Kokkos::deep_copy(x, h);
  return x;
}

/// Flat (unmanaged) view of a matrix's entries.
template <class M> Kokkos::View<double *, typename M::memory_space> flat(M const &m) {
  return Kokkos::View<double *, typename M::memory_space>(m.data(), m.size());
}

/// L = sum_ij r_ij y_ij and its magnitude sum_ij |r_ij y_ij|.
template <class M> std::pair<double, double> weighted_sum(M const &y, M const &r) {
  auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  auto hr = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), r);
  double s = 0, a = 0;
  for (std::size_t i = 0; i < hy.extent(0); ++i)
    for (std::size_t j = 0; j < hy.extent(1); ++j) {
      s += hr(i, j) * hy(i, j);
      a += std::fabs(hr(i, j) * hy(i, j));
    }
  return {s, a};
}

template <class Space> struct Variable {
  std::string name;
  Vec<Space> value, grad;
};

/// Central differences against the analytic gradient, for every entry of every variable.
/// loss() returns (L, M) with M a bound on the magnitude of the terms summed into L.
/// Error of (L(p + h) - L(p - h)) / 2h: truncation h^2 / 6 |L'''| (|L'''| <= ~10 here: products
/// of O(1) values, BatchNorm's and softmax's smooth factors), rounding ~ 10 eps M / h (each L
/// is a sum of terms carrying a few roundings each). With h = 1e-6 both are ~1e-9 or less;
/// the check allows 1e-6 relative plus 10 h^2 + 10 eps M / h absolute.
template <class Space>
void check_gradients(std::function<std::pair<double, double>()> const &loss,
                     std::function<void()> const &backward,
                     std::vector<Variable<Space>> const &vars) {
  const double h = 1e-6, eps = std::numeric_limits<double>::epsilon();
  const double magnitude = loss().second;
  backward();
  Space().fence();
  for (auto const &var : vars) {
    CAPTURE(var.name);
    auto value = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), var.value);
    auto grad = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), var.grad);
    REQUIRE(value.extent(0) == grad.extent(0));
    REQUIRE(value.extent(0) > 0);
    int failures = 0;
    double worst = 0;
    for (std::size_t k = 0; k < value.extent(0); ++k) {
      const double saved = value(k);
      value(k) = saved + h;
      Kokkos::deep_copy(var.value, value);
      const double lp = loss().first;
      value(k) = saved - h;
      Kokkos::deep_copy(var.value, value);
      const double lm = loss().first;
      value(k) = saved;
      Kokkos::deep_copy(var.value, value);
      const double numeric = (lp - lm) / (2 * h);
      const double tol = 1e-6 * std::fabs(grad(k)) + 10 * h * h + 10 * eps * magnitude / h;
      const double err = std::fabs(numeric - grad(k));
      worst = std::max(worst, err / tol);
      if (!(err <= tol) && ++failures <= 3) {
        CAPTURE(k);
        CHECK(grad(k) == doctest::Approx(numeric));
      }
    }
    CHECK(failures == 0);
    MESSAGE(var.name << ": worst |error| / tolerance = " << worst);
  }
}

template <class Space, class Layer>
std::vector<Variable<Space>> parameter_variables(Layer const &layer, std::string const &what) {
  std::vector<Variable<Space>> vars;
  const auto p = layer.parameters(), g = layer.gradients();
  REQUIRE(p.size() == g.size());
  for (std::size_t k = 0; k < p.size(); ++k)
    vars.push_back({what + " parameter " + std::to_string(k), p[k], g[k]});
  return vars;
}

/// Sets every parameter to random values (so zero biases and unit gammas do not hide terms).
template <class Layer> void randomise_parameters(Layer const &layer, std::uint64_t seed) {
  for (auto const &p : layer.parameters())
    ttgnn::uniform_fill(p, 0.8, seed++);
}

/// Gradient check of a plain layer y = f(x) with L = sum(r * y).
template <class Space, class Layer>
void check_plain_layer(
    Layer &layer, std::int64_t n, std::int64_t in, std::int64_t out, std::string const &what,
    double away = 0, std::function<void()> const &before_forward = [] {}) {
  CAPTURE(what);
  const Space space;
  auto x = random_matrix<Space>(n, in, 1, away);
  auto r = random_matrix<Space>(n, out, 2);
  Mat<Space> y("ttgnn::test::y", n, out), gx("ttgnn::test::gx", n, in);
  auto vars = parameter_variables<Space>(layer, what);
  vars.push_back({what + " input", flat(x), flat(gx)});
  check_gradients<Space>(
      [&] {
        before_forward();
        layer.forward(space, x, y);
        return weighted_sum(y, r);
      },
      [&] {
        layer.zero_grad(space);
        layer.backward(space, r, gx);
      },
      vars);
}

/// Gradient check of a graph layer y = f(A, x).
template <class Space, class Layer>
void check_graph_layer(Layer &layer, ttgnn::GraphOperator<double, Space> const &a, std::int64_t in,
                       std::int64_t out, std::string const &what) {
  CAPTURE(what);
  const Space space;
  auto x = random_matrix<Space>(a.num_cols, in, 3);
  auto r = random_matrix<Space>(a.num_rows, out, 4);
  Mat<Space> y("ttgnn::test::y", a.num_rows, out), gx("ttgnn::test::gx", a.num_cols, in);
  randomise_parameters(layer, 5);
  auto vars = parameter_variables<Space>(layer, what);
  vars.push_back({what + " input", flat(x), flat(gx)});
  check_gradients<Space>(
      [&] {
        layer.forward(space, a, x, y);
        return weighted_sum(y, r);
      },
      [&] {
        layer.zero_grad(space);
        layer.backward(space, r, gx);
      },
      vars);
}

/// The input gradient written over the output gradient's storage (a layer of equal widths on
/// a square operator) against the same backward into a buffer of its own: the same kernels on
/// the same values, only the storage differs, so the two agree to the last few roundings of a
/// sum of O(1) terms (1e-12 in double).
template <class Space, class Layer>
void check_in_place_input_gradient(Layer &layer, ttgnn::GraphOperator<double, Space> const &a,
                                   std::int64_t width, std::string const &what) {
  CAPTURE(what);
  const Space space;
  auto x = random_matrix<Space>(a.num_cols, width, 3);
  auto r = random_matrix<Space>(a.num_rows, width, 4);
  Mat<Space> y("ttgnn::test::y", a.num_rows, width), gx("ttgnn::test::gx", a.num_cols, width);
  Mat<Space> g("ttgnn::test::g", a.num_rows, width);
  randomise_parameters(layer, 5);
  auto run = [&](Mat<Space> const &grad_y, Mat<Space> const &grad_x) {
    layer.forward(space, a, x, y);
    layer.zero_grad(space);
    layer.backward(space, grad_y, grad_x);
    std::vector<std::vector<double>> out;
    for (auto const &v : layer.gradients()) {
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
      out.emplace_back(h.data(), h.data() + h.size());
    }
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), flat(grad_x));
    out.emplace_back(h.data(), h.data() + h.size());
    return out;
  };
  const auto separate = run(r, gx);
  Kokkos::deep_copy(g, r);
  const auto in_place = run(g, g);
  REQUIRE(separate.size() == in_place.size());
  for (std::size_t k = 0; k < separate.size(); ++k)
    for (std::size_t i = 0; i < separate[k].size(); ++i)
      REQUIRE(in_place[k][i] == doctest::Approx(separate[k][i]).epsilon(1e-12));
}

/// Mean operator of a cycle of n nodes (each node's two neighbours).
template <class Space> ttgnn::GraphOperator<double, Space> cycle_mean_operator(int n) {
  std::vector<std::pair<int, int>> arcs;
  for (int i = 0; i < n; ++i) {
    arcs.emplace_back(i, (i + 1) % n);
    arcs.emplace_back((i + 1) % n, i);
  }
  return ttgnn::mean_aggregation<double>(Space(), make_graph(n, arcs));
}

/// Rectangular mean operator of a sampled block: 4 output nodes (the first 4 of 9 inputs).
template <class Space> ttgnn::GraphOperator<double, Space> block_operator() {
  using M = typename Space::memory_space;
  const std::vector<std::int64_t> rm = {0, 3, 3, 5, 9};
  const std::vector<std::int32_t> en = {4, 1, 7, 8, 0, 2, 5, 6, 3};
  Kokkos::View<std::int64_t *, M> row_map("ttgnn::test::block_row_map", rm.size());
  Kokkos::View<std::int32_t *, M> entries("ttgnn::test::block_entries", en.size());
  Kokkos::View<double *, M> values("ttgnn::test::block_values", en.size());
  auto hr = Kokkos::create_mirror_view(row_map);
  auto he = Kokkos::create_mirror_view(entries);
  auto hv = Kokkos::create_mirror_view(values);
  for (std::size_t i = 0; i < rm.size(); ++i)
    hr(i) = rm[i];
  for (std::size_t i = 0; i + 1 < rm.size(); ++i)
    for (std::int64_t k = rm[i]; k < rm[i + 1]; ++k) {
      he(k) = en[k];
      hv(k) = 1.0 / double(rm[i + 1] - rm[i]);
    }
  Kokkos::deep_copy(row_map, hr);
  Kokkos::deep_copy(entries, he);
  Kokkos::deep_copy(values, hv);
  return ttgnn::make_graph_operator(Space(), 9, row_map, entries, values);
}

/// The first \p m rows of \p a over its first \p cols columns: one block of a sampled stack
/// (entries in later columns dropped).
template <class Scalar, class Space, class Ordinal>
GraphOperator<Scalar, Space, Ordinal> top_block(GraphOperator<Scalar, Space, Ordinal> const &a,
                                                std::int64_t m, std::int64_t cols) {
  auto rm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.row_map);
  auto en = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.entries);
  auto va = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.values);
  Kokkos::View<std::int64_t *, Kokkos::HostSpace> R("ttgnn::test::row_map", m + 1);
  std::vector<Ordinal> e;
  std::vector<Scalar> w;
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t k = rm(i); k < rm(i + 1); ++k)
      if (en(k) < cols) {
        e.push_back(en(k));
        w.push_back(va(k));
      }
    R(i + 1) = static_cast<std::int64_t>(e.size());
  }
  using MS = typename Space::memory_space;
  Kokkos::View<Ordinal *, MS> E("ttgnn::test::entries", e.size());
  Kokkos::View<Scalar *, MS> W("ttgnn::test::values", w.size());
  Kokkos::deep_copy(E, Kokkos::View<Ordinal *, Kokkos::HostSpace>(e.data(), e.size()));
  Kokkos::deep_copy(W, Kokkos::View<Scalar *, Kokkos::HostSpace>(w.data(), w.size()));
  auto Rd = Kokkos::create_mirror_view_and_copy(MS(), R);
  return make_graph_operator<Scalar>(Space(), cols, Rd, E, W);
}

} // namespace ttgnn::test

#endif
