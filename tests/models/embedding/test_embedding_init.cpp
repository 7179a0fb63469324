// Initial embedding tables (models/embedding/embedding_init.hpp) against hand-worked values:
// count_edge_components on small graphs; spectral_rows on graphs whose spectrum of
// D^-1/2 A D^-1/2 is known in closed form (paths P_n: cos(pi k/(n-1)), cycles C_n:
// cos(2 pi k/n), K_2: +-1), with the documented sign rule, column scaling |lambda|^exponent,
// component skipping, rows at old_to_row(v) and zero holes; initial_full_table's scale (RMS
// over real rows = init_std), orthogonality, seeds and row placement; initial_tt_cores'
// Gaussian / orthogonal / spectral cores, materialised and compared with the same promises,
// and the reported TT-SVD error against the error measured here.
//
// Tolerances. Small graphs (< ~25 non-trivial dimensions) are solved densely by Eigen: its
// eigenpairs have backward error ~ n·eps·||B|| (B, the deflated matrix, has ||B|| <= 2), so
// vector entries are off by ~ n·eps·||B|| / gap <= 25·2.2e-16·2 / 0.01 ~ 1e-12 at worst here,
// usually ~1e-15; 1e-12 absolute is used (entries are O(1)). Larger graphs go through Lanczos,
// whose pairs the library only guarantees to ||Â v - λ v|| <= 1e-6 (SpectralOptions::
// max_residual): a Ritz value is then off by <= r²/gap and a vector by <= r/gap (Davis-Kahan),
// with the gap worked out per test.
#include "core/error.hpp"
#include "core/tt/tt_init.hpp"
#include "models/embedding/embedding_init.hpp"
#include "order_test_graphs.hpp"
#include "test_harness.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

using namespace ttgnn;

namespace {

using Graph = CsrGraph<std::int32_t, Kokkos::HostSpace>;
using RowMap = Kokkos::View<const std::int64_t *, Kokkos::HostSpace>;
using test::Edge;

// ---- The API under test is called only from these helpers (adapt them if it changes). ----

/// The table's settings (EmbeddingConfig) and the seed the init functions take.
struct InitOptions {
  EmbeddingConfig spec;
  std::uint64_t seed = 0;
};

InitOptions init_options(InitMethod method, double init_std = 1.0, double exponent = 0.5,
                         std::uint64_t seed = 0) {
  InitOptions o;
  o.spec.init = method;
  o.spec.init_std = init_std;
  o.spec.spectral_exponent = exponent;
  o.seed = seed;
  return o;
}

template <class Ordinal>
std::int64_t edge_components(CsrGraph<Ordinal, Kokkos::HostSpace> const &g) {
  return count_edge_components(g);
}

template <class Ordinal>
std::vector<double> spectral(std::int64_t num_rows, std::int64_t dim,
                             CsrGraph<Ordinal, Kokkos::HostSpace> const &g, RowMap rows,
                             InitOptions const &o, EmbeddingInitInfo *info = nullptr) {
  return spectral_rows(num_rows, dim, g, rows, o.spec, o.seed, info);
}

std::vector<double> full_table(std::int64_t num_rows, std::int64_t dim, Graph const &g, RowMap rows,
                               InitOptions const &o, EmbeddingInitInfo *info = nullptr) {
  return initial_full_table(num_rows, dim, g, rows, o.spec, o.seed, info);
}

TtHostCores tt_cores(TtShape const &shape, Graph const &g, RowMap rows, InitOptions const &o,
                     EmbeddingInitInfo *info = nullptr) {
  return initial_tt_cores(shape, g, rows, o.spec, o.seed, info);
}

// ---- Graphs, row maps and matrix helpers. ----

/// Node v at row rows[v].
RowMap row_map(std::vector<std::int64_t> const &rows) {
  Kokkos::View<std::int64_t *, Kokkos::HostSpace> m("old_to_row", rows.size());
  for (std::size_t v = 0; v < rows.size(); ++v)
    m(v) = rows[v];
  return m;
}
/// The empty map: node v at row v.
RowMap identity_map() {
  return RowMap();
}

Graph path_graph(std::int64_t n) {
  std::vector<Edge> e;
  test::add_path(e, 0, n);
  return test::make_graph(n, e);
}

Graph cycle_graph(std::int64_t n) {
  std::vector<Edge> e;
  test::add_path(e, 0, n);
  e.emplace_back(n - 1, 0);
  return test::make_graph(n, e);
}

/// K_2 on {0, 1}, node 2 isolated, the path P_4 on 3-4-5-6.
Graph edge_isolated_path() {
  std::vector<Edge> e{{0, 1}};
  test::add_path(e, 3, 4);
  return test::make_graph(7, e);
}

/// y = D^-1/2 A D^-1/2 x, computed here from the CSR.
std::vector<double> a_hat(Graph const &g, std::vector<double> const &x) {
  const std::int64_t n = g.num_nodes();
  auto deg = [&](std::int64_t v) { return static_cast<double>(g.row_map(v + 1) - g.row_map(v)); };
  std::vector<double> y(n, 0.0);
  for (std::int64_t v = 0; v < n; ++v)
    for (std::int64_t a = g.row_map(v); a < g.row_map(v + 1); ++a)
      y[v] += x[g.entries(a)] / std::sqrt(deg(v) * deg(g.entries(a)));
  return y;
}

/// Column j of a row-major table, read in node order (node v at rows[v], or v when empty).
std::vector<double> node_column(std::vector<double> const &t, std::int64_t dim, std::int64_t n,
                                RowMap rows, std::int64_t j) {
  std::vector<double> c(n);
  for (std::int64_t v = 0; v < n; ++v)
    c[v] = t[(rows.extent(0) ? rows(v) : v) * dim + j];
  return c;
}

double norm(std::vector<double> const &x) {
  double s = 0;
  for (double v : x)
    s += v * v;
  return std::sqrt(s);
}

double dot(std::vector<double> const &x, std::vector<double> const &y) {
  double s = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    s += x[i] * y[i];
  return s;
}

/// Root-mean-square entry of the rows \p rows of a row-major table.
double rms_rows(std::vector<double> const &t, std::int64_t dim,
                std::vector<std::int64_t> const &rows) {
  double s = 0;
  for (auto r : rows)
    for (std::int64_t j = 0; j < dim; ++j)
      s += t[r * dim + j] * t[r * dim + j];
  return std::sqrt(s / static_cast<double>(rows.size() * dim));
}

std::vector<std::int64_t> iota_rows(std::int64_t n) {
  std::vector<std::int64_t> r(n);
  for (std::int64_t i = 0; i < n; ++i)
    r[i] = i;
  return r;
}

/// A^T A of a row-major rows x dim matrix.
std::vector<double> gram(std::vector<double> const &a, std::int64_t rows, std::int64_t dim) {
  std::vector<double> g(dim * dim, 0.0);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t i = 0; i < dim; ++i)
      for (std::int64_t j = 0; j < dim; ++j)
        g[i * dim + j] += a[r * dim + i] * a[r * dim + j];
  return g;
}

double max_abs(std::vector<double> const &a) {
  double m = 0;
  for (double x : a)
    m = std::max(m, std::fabs(x));
  return m;
}

// P_4 (0-1-2-3), degrees 1, 2, 2, 1, volume 6. The random walk D^-1 A of a path P_n has the
// eigenvectors f_k(i) = cos(pi k i/(n-1)) with eigenvalues cos(pi k/(n-1)) (interior: (f(i-1) +
// f(i+1))/2 = cos(theta) f(i); the ends reflect), so Â = D^-1/2 A D^-1/2 has u_k = D^1/2 f_k:
//   k = 0, λ = 1:    (1, √2, √2, 1)/√6
//   k = 1, λ = 1/2:  (1, √2/2, -√2/2, -1)/√3
//   k = 2, λ = -1/2: (1, -√2/2, -√2/2, 1)/√3
//   k = 3, λ = -1:   (1, -√2, √2, -1)/√6, flipped: its first largest-magnitude entry (-√2/√6 at
//                     node 1) must be positive; k = 1 ties ±1/√3 at nodes 0 and 3, the first wins.
const double kR2 = std::sqrt(2.0), kR3 = std::sqrt(3.0), kR6 = std::sqrt(6.0);
const double kP4Lambda[4] = {1.0, 0.5, -0.5, -1.0};
const double kP4Vector[4][4] = {{1 / kR6, kR2 / kR6, kR2 / kR6, 1 / kR6},
                                {1 / kR3, kR2 / 2 / kR3, -kR2 / 2 / kR3, -1 / kR3},
                                {1 / kR3, -kR2 / 2 / kR3, -kR2 / 2 / kR3, 1 / kR3},
                                {-1 / kR6, kR2 / kR6, -kR2 / kR6, 1 / kR6}};
constexpr double kDenseTol = 1e-12;

} // namespace

TEST_CASE("count_edge_components: components with an edge; isolated nodes do not count") {
  CHECK(edge_components(test::make_graph(0, {})) == 0);
  CHECK(edge_components(test::make_graph(5, {})) == 0); // five isolated nodes
  CHECK(edge_components(path_graph(6)) == 1);
  std::vector<Edge> triangles;
  test::add_clique(triangles, 0, 3);
  test::add_clique(triangles, 3, 3);
  CHECK(edge_components(test::make_graph(6, triangles)) == 2);
  // Interleaved ids: triangle {1, 4, 6}, edge {0, 7}, isolated 2, 3, 5.
  const std::vector<Edge> mixed{{1, 4}, {4, 6}, {1, 6}, {0, 7}};
  CHECK(edge_components(test::make_graph(8, mixed)) == 2);
  CHECK(edge_components(test::make_graph<std::int64_t>(8, mixed)) == 2);
  CHECK(edge_components(test::make_graph(10, mixed)) == 2); // two more isolated nodes
  // A self loop is an edge (it counts in its node's degree, spectral_embedding.hpp).
  CHECK(edge_components(test::make_graph(3, {{1, 1}})) == 1);
  CHECK(edge_components(edge_isolated_path()) == 2);
}

TEST_CASE("spectral_rows: P_4 and K_2 entry by entry (signs, |λ|^exponent, rows, holes)") {
  const Graph p4 = path_graph(4);
  for (double e : {0.0, 0.5, 1.0, 2.0}) {
    CAPTURE(e);
    EmbeddingInitInfo info;
    const auto t =
        spectral(4, 4, p4, identity_map(), init_options(InitMethod::spectral, 1, e), &info);
    REQUIRE(t.size() == 16);
    for (int v = 0; v < 4; ++v)
      for (int j = 0; j < 4; ++j)
        CHECK(std::fabs(t[v * 4 + j] - std::pow(std::fabs(kP4Lambda[j]), e) * kP4Vector[j][v]) <=
              kDenseTol);
    CHECK(info.components == 1);
    CHECK(info.eigenpairs == 4);
    CHECK(std::fabs(info.lambda_first - 1) <= kDenseTol);
    CHECK(std::fabs(info.lambda_last + 1) <= kDenseTol);
  }
  // Rows: node v at old_to_row(v) of a 6-row table, rows 1 and 3 (no node) exactly zero.
  const std::vector<std::int64_t> rows{4, 0, 5, 2};
  EmbeddingInitInfo info;
  const auto t =
      spectral(6, 3, p4, row_map(rows), init_options(InitMethod::spectral, 1, 0.5), &info);
  REQUIRE(t.size() == 18);
  for (int v = 0; v < 4; ++v)
    for (int j = 0; j < 3; ++j)
      CHECK(std::fabs(t[rows[v] * 3 + j] - std::sqrt(std::fabs(kP4Lambda[j])) * kP4Vector[j][v]) <=
            kDenseTol);
  for (int hole : {1, 3})
    for (int j = 0; j < 3; ++j)
      CHECK(t[hole * 3 + j] == 0.0);
  CHECK(std::fabs(info.lambda_last + 0.5) <= kDenseTol);
  CHECK(info.eigenpairs == 3);

  // K_2: Â = [[0, 1], [1, 0]], λ = 1: (1, 1)/√2, λ = -1: (1, -1)/√2 (tie; the first is positive).
  // |±1|^e = 1, so the rows are the same for every exponent.
  const Graph k2 = test::make_graph(2, {{0, 1}});
  for (double e : {0.5, 3.0}) {
    const auto k = spectral(2, 2, k2, identity_map(), init_options(InitMethod::spectral, 1, e));
    const double h = 1 / kR2;
    CHECK(std::fabs(k[0] - h) <= kDenseTol);
    CHECK(std::fabs(k[1] - h) <= kDenseTol);
    CHECK(std::fabs(k[2] - h) <= kDenseTol);
    CHECK(std::fabs(k[3] + h) <= kDenseTol);
  }
  // The int64 CSR gives the same numbers (same arithmetic, same order).
  const auto t64 = spectral(6, 3, test::make_graph<std::int64_t>(4, {{0, 1}, {1, 2}, {2, 3}}),
                            row_map(rows), init_options(InitMethod::spectral, 1, 0.5));
  CHECK(t64 == t);
}

TEST_CASE("spectral_rows: two components and an isolated node (the smaller component's trivial "
          "vector dropped)") {
  // K_2 on {0, 1}, node 2 isolated, P_4 on 3..6 (the larger component, though later in id).
  // Spectrum: 1 (twice: u_P4, u_K2), P_4's 1/2, -1/2, -1, K_2's -1, and 0 (e_2).
  // d = 4 columns: u_P4 (1; u_K2 is projected out but takes no column), P_4's 1/2, then
  // e_2 (0, isolated nodes are merged in by eigenvalue before the negative ones), P_4's -1/2.
  const Graph g = edge_isolated_path();
  auto p4_column = [](int k) {
    std::vector<double> c(7, 0.0);
    for (int i = 0; i < 4; ++i)
      c[3 + i] = kP4Vector[k][i];
    return c;
  };
  std::vector<double> e2(7, 0.0);
  e2[2] = 1;
  const std::vector<std::vector<double>> want{p4_column(0), p4_column(1), e2, p4_column(2)};
  const double lambda[4] = {1, 0.5, 0, -0.5};
  for (double e : {0.0, 0.5}) {
    CAPTURE(e);
    EmbeddingInitInfo info;
    const auto t =
        spectral(7, 4, g, identity_map(), init_options(InitMethod::spectral, 1, e), &info);
    for (int v = 0; v < 7; ++v)
      for (int j = 0; j < 4; ++j) // pow(0, 0) = 1: e_2 is kept at exponent 0, zero at 0.5
        CHECK(std::fabs(t[v * 4 + j] - std::pow(std::fabs(lambda[j]), e) * want[j][v]) <=
              kDenseTol);
    CHECK(info.components == 2);
    CHECK(info.eigenpairs == 4); // the dimension, whatever the number of components
    CHECK(std::fabs(info.lambda_first - 1) <= kDenseTol);
    CHECK(std::fabs(info.lambda_last + 0.5) <= kDenseTol);
  }

  // Two triangles of equal size ({0, 2, 4} and {1, 3, 5}): the tie goes to the component with
  // the smaller node id, whose u_C = (1, 1, 1)/√3 on {0, 2, 4} is column 0; column 1 is then
  // an eigenvector of the (4-fold) eigenvalue -1/2 of norm (1/2)^e, checked through Â.
  std::vector<Edge> tri{{0, 2}, {2, 4}, {0, 4}, {1, 3}, {3, 5}, {1, 5}};
  const Graph two = test::make_graph(6, tri);
  EmbeddingInitInfo info;
  const auto tt =
      spectral(6, 2, two, identity_map(), init_options(InitMethod::spectral, 1, 1), &info);
  for (int v = 0; v < 6; ++v)
    CHECK(std::fabs(tt[v * 2] - (v % 2 == 0 ? 1 / kR3 : 0.0)) <= kDenseTol);
  const auto c1 = node_column(tt, 2, 6, identity_map(), 1);
  CHECK(std::fabs(norm(c1) - 0.5) <= kDenseTol);
  const auto ac1 = a_hat(two, c1);
  for (int v = 0; v < 6; ++v)
    CHECK(std::fabs(ac1[v] + 0.5 * c1[v]) <= kDenseTol);
  CHECK(info.components == 2);
  CHECK(std::fabs(info.lambda_last + 0.5) <= kDenseTol);
}

TEST_CASE("spectral_rows: the cycle C_6, eigenvalues cos(2 pi k/6) with double ones") {
  // Â = A/2 on C_6: 1, 1/2 (x2), -1/2 (x2), -1. Vectors of a double eigenvalue are any
  // orthonormal pair of its plane: checked through Â col = λ col, norms |λ|^e, orthogonality.
  // Simple ones are fixed: λ = 1: (1, ..., 1)/√6; λ = -1: (1, -1, 1, -1, 1, -1)/√6 (all
  // entries tie in magnitude, node 0 first and positive).
  const Graph g = cycle_graph(6);
  const double lambda[6] = {1, 0.5, 0.5, -0.5, -0.5, -1};
  EmbeddingInitInfo info;
  const double e = 1;
  const auto t = spectral(6, 6, g, identity_map(), init_options(InitMethod::spectral, 1, e), &info);
  std::vector<std::vector<double>> cols;
  for (int j = 0; j < 6; ++j)
    cols.push_back(node_column(t, 6, 6, identity_map(), j));
  for (int j = 0; j < 6; ++j) {
    CAPTURE(j);
    CHECK(std::fabs(norm(cols[j]) - std::pow(std::fabs(lambda[j]), e)) <= kDenseTol);
    const auto ac = a_hat(g, cols[j]);
    for (int v = 0; v < 6; ++v)
      CHECK(std::fabs(ac[v] - lambda[j] * cols[j][v]) <= kDenseTol);
    for (int i = 0; i < j; ++i)
      CHECK(std::fabs(dot(cols[i], cols[j])) <= kDenseTol);
  }
  for (int v = 0; v < 6; ++v) {
    CHECK(std::fabs(cols[0][v] - 1 / kR6) <= kDenseTol);
    CHECK(std::fabs(cols[5][v] - (v % 2 == 0 ? 1 : -1) / kR6) <= kDenseTol);
  }
  CHECK(std::fabs(info.lambda_first - 1) <= kDenseTol);
  CHECK(std::fabs(info.lambda_last + 1) <= kDenseTol);
  CHECK(info.eigenpairs == 6);
}

TEST_CASE("spectral_rows: the path P_30 by Lanczos, column scaling by |λ_j|^exponent [threads]") {
  // P_30 with d = 6: 5 non-trivial pairs, a Lanczos basis of 25 < 29 dimensions, so Spectra
  // solves it (not the dense solver). λ_j = cos(pi j/29), u_j(i) ∝ sqrt(deg i) cos(pi j i/29).
  // Smallest gap around λ_1..λ_5: cos(pi/29) - cos(2 pi/29) = 2 sin(1.5pi/29) sin(0.5pi/29)
  // ≈ 0.0175. With the guaranteed residual r <= 1e-6: |Δλ| <= r²/gap ≈ 5.7e-11 (tolerance
  // 1e-10), ||Δu|| <= √2 r/gap ≈ 8e-5 (tolerance 1e-4 on entries, up to sign: P_30 is mirror
  // symmetric, so half its vectors are antisymmetric and their sign rests on a tie).
  const std::int64_t n = 30, d = 6;
  const Graph g = path_graph(n);
  const double pi = std::acos(-1.0);
  std::vector<double> lambda(d);
  std::vector<std::vector<double>> u(d, std::vector<double>(n));
  for (std::int64_t j = 0; j < d; ++j) {
    lambda[j] = std::cos(pi * j / (n - 1));
    for (std::int64_t i = 0; i < n; ++i)
      u[j][i] = std::sqrt(i == 0 || i == n - 1 ? 1.0 : 2.0) * std::cos(pi * j * i / (n - 1));
    const double s = norm(u[j]);
    for (auto &x : u[j])
      x /= s;
  }
  std::vector<std::vector<double>> norms;
  for (double e : {0.0, 0.5, 1.5}) {
    CAPTURE(e);
    EmbeddingInitInfo info;
    const auto t =
        spectral(n, d, g, identity_map(), init_options(InitMethod::spectral, 1, e, 7), &info);
    CHECK(info.components == 1);
    CHECK(info.eigenpairs == d);
    CHECK(std::fabs(info.lambda_first - 1) <= 1e-10);
    CHECK(std::fabs(info.lambda_last - lambda[d - 1]) <= 1e-10);
    norms.emplace_back();
    for (std::int64_t j = 0; j < d; ++j) {
      CAPTURE(j);
      auto c = node_column(t, d, n, identity_map(), j);
      // All nodes have rows, so column j is |λ_j|^e times a unit vector: its norm.
      norms.back().push_back(norm(c));
      CHECK(std::fabs(norm(c) - std::pow(std::fabs(lambda[j]), e)) <= 1e-10);
      const double s = std::pow(std::fabs(lambda[j]), e);
      const double sign = dot(c, u[j]) < 0 ? -1 : 1;
      for (std::int64_t i = 0; i < n; ++i)
        CHECK(std::fabs(c[i] / s - sign * u[j][i]) <= 1e-4);
      if (e == 0) {
        // The sign rule as documented, on the vector as returned (exponent 0: unscaled): the
        // first entry within 1e-9 relative of the largest magnitude is positive.
        const double big = max_abs(c);
        std::int64_t first = 0;
        while (std::fabs(c[first]) < big * (1 - 1e-9))
          ++first;
        CHECK(c[first] > 0);
      }
    }
  }
  // Ratios of column norms: |λ_i/λ_j|^e, and between exponents e and 0: |λ_j|^e.
  for (std::size_t x = 1; x < norms.size(); ++x) {
    const double e = x == 1 ? 0.5 : 1.5;
    for (std::int64_t j = 1; j < d; ++j) {
      CHECK(std::fabs(norms[x][j] / norms[x][0] - std::pow(std::fabs(lambda[j] / lambda[0]), e)) <=
            1e-10);
      CHECK(std::fabs(norms[x][j] / norms[0][j] - std::pow(std::fabs(lambda[j]), e)) <= 1e-10);
    }
  }
  // Same seed, same numbers (the result must not depend on the thread count either: this test
  // case also runs under OpenMP at 1 and 2 threads).
  const auto a = spectral(n, d, g, identity_map(), init_options(InitMethod::spectral, 1, 0.5));
  const auto b = spectral(n, d, g, identity_map(), init_options(InitMethod::spectral, 1, 0.5));
  CHECK(a == b);
}

TEST_CASE("spectral_rows above the dense limit: block subspace pairs, orthonormal, the residual "
          "reported honestly [threads]") {
  // The circulant graph C_5000(1, 2) (each node joined to i±1 and i±2): 5,000 nodes with edges,
  // above SpectralOptions::dense_limit, so the init takes the fixed-budget block solver. Its
  // Ritz vectors come out of a Rayleigh-Ritz step, orthonormal to rounding (tolerance 1e-10 on
  // the Gram matrix of unit columns, exponent 0). Each column's residual ||Â v - ρ v|| with its
  // own Rayleigh quotient ρ = vᵀÂv is at most ||Â v - λ v|| for the λ the solver returned, so it
  // must not exceed the reported eigen_residual (up to rounding of the products, 1e-10).
  const std::int64_t n = 5000, d = 8;
  std::vector<Edge> e;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t step : {1, 2})
      e.push_back({i, (i + step) % n});
  const Graph g = test::make_graph(n, e);
  EmbeddingInitInfo info;
  const auto t =
      spectral(n, d, g, identity_map(), init_options(InitMethod::spectral, 1, 0.0, 3), &info);
  CHECK(info.components == 1);
  CHECK(info.eigen_residual > 0);   // a fixed budget, not a converged Lanczos
  CHECK(info.eigen_residual < 0.1); // and still a usable one
  std::vector<std::vector<double>> cols;
  for (std::int64_t j = 0; j < d; ++j)
    cols.push_back(node_column(t, d, n, identity_map(), j));
  for (std::int64_t a = 0; a < d; ++a)
    for (std::int64_t b = 0; b < d; ++b)
      CHECK(std::fabs(dot(cols[a], cols[b]) - (a == b ? 1.0 : 0.0)) <= 1e-10);
  for (std::int64_t j = 0; j < d; ++j) {
    CAPTURE(j);
    // Â v with Â = D^-1/2 A D^-1/2, every degree 4
    std::vector<double> av(n, 0.0);
    for (std::int64_t v = 0; v < n; ++v)
      for (auto k = g.row_map(v); k < g.row_map(v + 1); ++k)
        av[v] += cols[j][g.entries(k)] / 4.0;
    const double rho = dot(cols[j], av);
    double r2 = 0;
    for (std::int64_t v = 0; v < n; ++v)
      r2 += (av[v] - rho * cols[j][v]) * (av[v] - rho * cols[j][v]);
    CHECK(std::sqrt(r2) <= info.eigen_residual + 1e-10);
  }
  // the same seed gives the same bits (also at 1 and 2 threads: this case runs under both)
  CHECK(t == spectral(n, d, g, identity_map(), init_options(InitMethod::spectral, 1, 0.0, 3)));
}

TEST_CASE("initial_full_table, spectral: scale to init_std over real rows, rows at old_to_row") {
  // P_4, d = 3, exponent 0.5: the target's squared column norms are 1, 1/2, 1/2 (sum 2) over
  // n·d = 12 entries, so the scale is init_std·sqrt(12/2) = init_std·√6.
  const Graph p4 = path_graph(4);
  const double sd = 0.1;
  EmbeddingInitInfo info;
  const auto o = init_options(InitMethod::spectral, sd, 0.5);
  const auto t = full_table(4, 3, p4, identity_map(), o, &info);
  CHECK(std::fabs(info.scale - sd * kR6) <= 1e-14 * sd * kR6);
  for (int v = 0; v < 4; ++v)
    for (int j = 0; j < 3; ++j)
      CHECK(std::fabs(t[v * 3 + j] - sd * kR6 * std::sqrt(std::fabs(kP4Lambda[j])) *
                                         kP4Vector[j][v]) <= kDenseTol * sd * kR6);
  CHECK(std::fabs(rms_rows(t, 3, iota_rows(4)) - sd) <= 1e-14);
  const auto target = spectral(4, 3, p4, identity_map(), o);
  for (std::size_t i = 0; i < t.size(); ++i)
    CHECK(t[i] == target[i] * info.scale);

  // Two components, d = 4, exponent 0: unit columns u_P4, P_4's 1/2, e_2, P_4's -1/2, so the
  // scale is init_std·sqrt(7·4/4) = init_std·√7. Permuted into 9 rows (holes 2 and 6): the
  // same rows, moved, and the RMS over the 7 real rows (not the 9) is init_std.
  const Graph g = edge_isolated_path();
  const std::vector<std::int64_t> rows{8, 3, 0, 5, 1, 7, 4};
  const auto oe = init_options(InitMethod::spectral, 2.0, 0.0);
  EmbeddingInitInfo a_info, b_info;
  const auto a = full_table(7, 4, g, identity_map(), oe, &a_info);
  const auto b = full_table(9, 4, g, row_map(rows), oe, &b_info);
  CHECK(std::fabs(a_info.scale - 2.0 * std::sqrt(7.0)) <= 1e-14 * 2.0 * std::sqrt(7.0));
  CHECK(b_info.scale == a_info.scale);
  REQUIRE(b.size() == 36);
  for (int v = 0; v < 7; ++v)
    for (int j = 0; j < 4; ++j)
      CHECK(b[rows[v] * 4 + j] == a[v * 4 + j]);
  for (int hole : {2, 6})
    for (int j = 0; j < 4; ++j)
      CHECK(b[hole * 4 + j] == 0.0);
  CHECK(std::fabs(rms_rows(b, 4, rows) - 2.0) <= 1e-14 * 2.0);
  CHECK(std::fabs(rms_rows(b, 4, iota_rows(9)) - 2.0 * std::sqrt(7.0 / 9.0)) <= 1e-14 * 2.0);
  // spectral_rows moves its rows the same way.
  const auto sa = spectral(7, 4, g, identity_map(), oe);
  const auto sb = spectral(9, 4, g, row_map(rows), oe);
  for (int v = 0; v < 7; ++v)
    for (int j = 0; j < 4; ++j)
      CHECK(sb[rows[v] * 4 + j] == sa[v * 4 + j]);
}

TEST_CASE("initial_full_table, orthogonal: W^T W = init_std²·N·I, RMS init_std, seeds") {
  const Graph g = path_graph(30);
  const std::int64_t n = 30, d = 5;
  const double sd = 0.3, c = sd * sd * n;
  EmbeddingInitInfo info;
  const auto t =
      full_table(n, d, g, identity_map(), init_options(InitMethod::orthogonal, sd, 0.5, 11), &info);
  CHECK(std::fabs(info.scale - sd * std::sqrt(30.0)) <= 1e-15 * sd * std::sqrt(30.0));
  // Householder QR: ||Q^T Q - I|| ~ N·d·eps ~ 3e-14.
  const auto w = gram(t, n, d);
  for (std::int64_t i = 0; i < d; ++i)
    for (std::int64_t j = 0; j < d; ++j)
      CHECK(std::fabs(w[i * d + j] - (i == j ? c : 0.0)) <= 1e-12 * c);
  CHECK(std::fabs(rms_rows(t, d, iota_rows(n)) - sd) <= 1e-12 * sd);
  // Deterministic in the seed; another seed, another table; init_std is a plain factor (2x
  // is exact in floating point).
  const auto same =
      full_table(n, d, g, identity_map(), init_options(InitMethod::orthogonal, sd, 0.5, 11));
  const auto other =
      full_table(n, d, g, identity_map(), init_options(InitMethod::orthogonal, sd, 0.5, 12));
  const auto twice =
      full_table(n, d, g, identity_map(), init_options(InitMethod::orthogonal, 2 * sd, 0.5, 11));
  CHECK(same == t);
  double diff = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    diff = std::max(diff, std::fabs(other[i] - t[i]));
    CHECK(twice[i] == 2 * t[i]);
  }
  CHECK(diff > 0.1 * sd);
}

TEST_CASE("initial_full_table, gaussian: i.i.d. N(0, init_std²) within 5 standard errors") {
  const Graph g = path_graph(200);
  const std::int64_t n = 200, d = 10, m = n * d;
  const double sd = 0.5;
  const auto t =
      full_table(n, d, g, identity_map(), init_options(InitMethod::gaussian, sd, 0.5, 3));
  double sum = 0, sq = 0;
  for (double x : t) {
    sum += x;
    sq += x * x;
  }
  // mean: standard error sd/sqrt(m); mean square / sd²: chi²_m / m, standard error sqrt(2/m).
  CHECK(std::fabs(sum / m) <= 5 * sd / std::sqrt(double(m)));
  CHECK(std::fabs(sq / m / (sd * sd) - 1) <= 5 * std::sqrt(2.0 / m));
  const auto same =
      full_table(n, d, g, identity_map(), init_options(InitMethod::gaussian, sd, 0.5, 3));
  const auto other =
      full_table(n, d, g, identity_map(), init_options(InitMethod::gaussian, sd, 0.5, 4));
  const auto unit =
      full_table(n, d, g, identity_map(), init_options(InitMethod::gaussian, 1.0, 0.5, 3));
  CHECK(same == t);
  std::int64_t equal = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    equal += other[i] == t[i];
    CHECK(t[i] == sd * unit[i]);
  }
  CHECK(equal == 0);
}

TEST_CASE("initial_tt_cores, gaussian: tt_init_gaussian at variance init_std²") {
  const Graph g = path_graph(60);
  const auto shape = make_tt_shape(60, {4, 4, 4}, {2, 2, 2}, 3); // ranks 1, 3, 3, 1
  const double sd = 0.2;
  const auto cores =
      tt_cores(shape, g, identity_map(), init_options(InitMethod::gaussian, sd, 0.5, 5));
  CHECK(cores == tt_init_gaussian(shape, sd * sd, 5));
  // sigma^(2K)·prod(inner ranks) = init_std²: sigma = (0.04/9)^(1/6).
  CHECK(std::fabs(tt_gaussian_sigma(shape, sd * sd) - std::pow(0.04 / 9, 1.0 / 6)) <= 1e-15);
  // The table's entries have variance init_std²: the mean square of the materialised table,
  // averaged over 64 seeds, within 5 standard errors (estimated from the 64 samples; the
  // entries of one table share their cores, so one table alone says little).
  std::vector<double> ms;
  for (std::uint64_t seed = 100; seed < 164; ++seed) {
    const auto w =
        materialize_host(shape, tt_cores(shape, g, identity_map(),
                                         init_options(InitMethod::gaussian, sd, 0.5, seed)));
    ms.push_back(rms_rows(w, shape.dim(), iota_rows(shape.num_rows)));
    ms.back() *= ms.back();
  }
  double mean = 0, var = 0;
  for (double x : ms)
    mean += x / ms.size();
  for (double x : ms)
    var += (x - mean) * (x - mean) / (ms.size() - 1);
  CHECK(std::fabs(mean - sd * sd) <= 5 * std::sqrt(var / ms.size()));
  CHECK(tt_cores(shape, g, identity_map(), init_options(InitMethod::gaussian, sd, 0.5, 6)) !=
        cores);
}

TEST_CASE("initial_tt_cores, orthogonal: W^T W = init_std²·P·I over the P padded rows") {
  const Graph g = path_graph(200);
  const double sd = 0.5;
  // Direct construction (ranks[k]·d[k] <= n[k]·ranks[k+1]: 2 <= 10, 4 <= 12, 4 <= 7), P = 210.
  const auto shape = make_tt_shape(200, {5, 6, 7}, {2, 2, 2}, 2);
  const std::int64_t p = 210, d = 8;
  const double c = sd * sd * p;
  EmbeddingInitInfo info;
  const auto cores =
      tt_cores(shape, g, identity_map(), init_options(InitMethod::orthogonal, sd, 0.5, 9), &info);
  CHECK(info.orthogonal_direct);
  CHECK(info.tt_svd_error == -1);
  CHECK(std::fabs(info.scale - sd * std::sqrt(210.0)) <= 1e-15 * info.scale);
  const auto w = materialize_host(shape, cores, true);
  REQUIRE(static_cast<std::int64_t>(w.size()) == p * d);
  // Products of three orthonormal-row cores: ~eps per core, times the sums over <= 210 rows.
  const auto gw = gram(w, p, d);
  for (std::int64_t i = 0; i < d; ++i)
    for (std::int64_t j = 0; j < d; ++j)
      CHECK(std::fabs(gw[i * d + j] - (i == j ? c : 0.0)) <= 1e-12 * c);
  CHECK(std::fabs(rms_rows(w, d, iota_rows(p)) - sd) <= 1e-12 * sd);
  CHECK(cores == tt_init_orthogonal(shape, 9, sd * std::sqrt(210.0)).cores);
  CHECK(tt_cores(shape, g, identity_map(), init_options(InitMethod::orthogonal, sd, 0.5, 10)) !=
        cores);

  // No direct construction ([8,8,8]/[4,4,4]/R=4: R·d = 16 > 8): the TT-SVD fallback, whose
  // error is reported.
  const auto fb = make_tt_shape(500, {8, 8, 8}, {4, 4, 4}, 4);
  const Graph g500 = path_graph(500);
  EmbeddingInitInfo fb_info;
  const auto fb_cores = tt_cores(fb, g500, identity_map(),
                                 init_options(InitMethod::orthogonal, sd, 0.5, 9), &fb_info);
  const auto ref = tt_init_orthogonal(fb, 9, sd * std::sqrt(512.0));
  CHECK(!fb_info.orthogonal_direct);
  CHECK(fb_info.tt_svd_error == ref.tt_svd_error);
  CHECK(fb_info.tt_svd_error > 0);
  CHECK(fb_info.tt_svd_error <= 1);
  CHECK(fb_cores == ref.cores);
}

TEST_CASE("initial_tt_cores, spectral: TT-SVD of the scaled spectral rows, error as reported "
          "[threads]") {
  // P_20 (dense solve), d = 4 = 2·2·1, exponent 0.5: λ_j = cos(pi j/19), j = 0..3, unit
  // vectors, so ||target||² = sum_j |λ_j| and the scale is init_std·sqrt(20·4/||target||²).
  // Node v at row v + floor(v/7) of 23 rows (holes 7, 15, 22), n = [3, 3, 3] (P = 27).
  const std::int64_t n = 20, d = 4, p = 27;
  const Graph g = path_graph(n);
  std::vector<std::int64_t> rows(n);
  for (std::int64_t v = 0; v < n; ++v)
    rows[v] = v + v / 7;
  const double sd = 0.3, pi = std::acos(-1.0);
  double target2 = 0;
  for (int j = 0; j < d; ++j)
    target2 += std::fabs(std::cos(pi * j / 19));
  const double want_scale = sd * std::sqrt(n * d / target2);
  const auto o = init_options(InitMethod::spectral, sd, 0.5);
  const auto target = spectral(23, d, g, row_map(rows), o);
  auto padded_target = target;
  padded_target.resize(p * d, 0.0);

  // Exact TT ranks: the unfoldings are 6 x 18 and 36 x 3, so rank 6 loses nothing.
  const auto exact = make_tt_shape(23, {3, 3, 3}, {2, 2, 1}, 6);
  EmbeddingInitInfo info;
  const auto w = materialize_host(exact, tt_cores(exact, g, row_map(rows), o, &info), true);
  CHECK(info.tt_svd_error >= 0);
  CHECK(info.tt_svd_error <= 1e-12);
  CHECK(std::fabs(info.scale - want_scale) <= 1e-12 * want_scale);
  CHECK(info.components == 1);
  CHECK(info.eigenpairs == d);
  CHECK(std::fabs(info.lambda_last - std::cos(3 * pi / 19)) <= kDenseTol);
  const double big = max_abs(w);
  for (std::int64_t i = 0; i < p * d; ++i) // real rows, holes and padding rows (zero)
    CHECK(std::fabs(w[i] - info.scale * padded_target[i]) <= 1e-12 * big);
  CHECK(std::fabs(rms_rows(w, d, rows) - sd) <= 1e-12 * sd);
  // ... so the same as the full table (scaled over the real rows).
  const auto full = full_table(23, d, g, row_map(rows), o);
  for (std::int64_t i = 0; i < 23 * d; ++i)
    CHECK(std::fabs(w[i] - full[i]) <= 1e-12 * big);
  // The identity placement (20 rows) gives the same rows, unmoved.
  const auto exact20 = make_tt_shape(20, {3, 3, 3}, {2, 2, 1}, 6);
  const auto w20 = materialize_host(exact20, tt_cores(exact20, g, identity_map(), o));
  for (std::int64_t v = 0; v < n; ++v)
    for (std::int64_t j = 0; j < d; ++j)
      CHECK(std::fabs(w[rows[v] * d + j] - w20[v * d + j]) <= 1e-12 * big);

  // Rank 2 truncates. The reported error is ||A - W/scale||_F / ||A||_F over the padded table;
  // measured here from the materialised table (both are ~eps-accurate: 1e-10 relative). The
  // scale comes from the trace of W^T W over all P rows: sum of W² there = init_std²·n·d.
  const auto low = make_tt_shape(23, {3, 3, 3}, {2, 2, 1}, 2);
  EmbeddingInitInfo low_info;
  const auto wl = materialize_host(low, tt_cores(low, g, row_map(rows), o, &low_info), true);
  double num = 0, den = 0, all = 0;
  for (std::int64_t i = 0; i < p * d; ++i) {
    const double x = wl[i] / low_info.scale;
    num += (x - padded_target[i]) * (x - padded_target[i]);
    den += padded_target[i] * padded_target[i];
    all += wl[i] * wl[i];
  }
  CAPTURE(low_info.tt_svd_error);
  CHECK(low_info.tt_svd_error > 1e-3); // a real truncation, so the comparison means something
  CHECK(std::fabs(low_info.tt_svd_error - std::sqrt(num / den)) <= 1e-10 * low_info.tt_svd_error);
  CHECK(std::fabs(den - target2) <= 1e-12 * target2);
  CHECK(std::fabs(all - sd * sd * n * d) <= 1e-12 * sd * sd * n * d);
  // Mass outside the real rows only lowers their RMS below init_std.
  const double real_rms = rms_rows(wl, d, rows);
  CHECK(real_rms <= sd * (1 + 1e-12));
  CHECK(real_rms > 0.5 * sd);
}

TEST_CASE("initial_tt_cores, spectral above spectral_max_entries: the slot graph's spectrum") {
  // Four dense blocks of 60 nodes, joined by three edges into one component. Block b fills the
  // slots (b, 0..4) of n = [4, 6, 12] (12 rows each; slot (b, 5) stays empty), so the slot graph
  // is four 5-cliques weakly joined, plus four isolated slots. With d = 4 the spectral columns
  // are its four near-1 eigenvectors, close to the block indicators / sqrt(5): two slots of one
  // block get (nearly) the same target row, two of different blocks rows sqrt(2/5) apart, of
  // norm sqrt(1/5). Rank 8 reproduces the 24 x 4 slot table exactly, so a node's row is its
  // slot's plus the last core's seeded noise (0.1 of its RMS entry: ~0.1 of the row here).
  // Hence the mean distance within a block is near 0.14·sqrt(1/5)·scale and across blocks near
  // sqrt(2/5)·scale: the bound below (a half) leaves a wide margin for the joining edges.
  const std::int64_t n = 240, d = 4;
  auto pp = test::planted_partition(n, 4, 1500, 0, 5);
  std::vector<std::vector<std::int64_t>> members(4);
  for (std::int64_t v = 0; v < n; ++v)
    members[pp.block_of[v]].push_back(v);
  for (int b = 0; b + 1 < 4; ++b)
    pp.edges.push_back({members[b][0], members[b + 1][0]});
  const Graph g = test::make_graph(n, pp.edges);
  std::vector<std::int64_t> rows(n);
  for (int b = 0; b < 4; ++b)
    for (std::size_t i = 0; i < members[b].size(); ++i)
      rows[members[b][i]] = b * 72 + static_cast<std::int64_t>(i);
  const auto shape = make_tt_shape(288, {4, 6, 12}, {2, 2, 1}, 8);
  auto o = init_options(InitMethod::spectral, 0.2, 0.5, 3);
  o.spec.spectral_max_entries = n * d - 1; // one entry too many: the slot path
  EmbeddingInitInfo info;
  const auto cores = tt_cores(shape, g, row_map(rows), o, &info);
  CHECK(info.slot_nodes == 24);
  CHECK(info.slot_arcs == 4 * 20 + 2 * 3); // four 5-cliques, three joining slot pairs
  CHECK(info.eigenpairs == d);
  CHECK(info.tt_svd_error <= 1e-12);
  const auto w = materialize_host(shape, cores);
  double within = 0, across = 0;
  std::int64_t nw = 0, na = 0;
  for (std::int64_t u = 0; u < n; u += 7)
    for (std::int64_t v = u + 1; v < n; v += 5) {
      double dist2 = 0;
      for (std::int64_t j = 0; j < d; ++j) {
        const double x = w[rows[u] * d + j] - w[rows[v] * d + j];
        dist2 += x * x;
      }
      (pp.block_of[u] == pp.block_of[v] ? within : across) += std::sqrt(dist2);
      (pp.block_of[u] == pp.block_of[v] ? nw : na) += 1;
    }
  REQUIRE(nw > 0);
  REQUIRE(na > 0);
  CHECK(within / nw > 0); // the noise separates the rows of a slot
  CHECK(within / nw < 0.5 * across / na);
  // Empty slots have zero target rows; only the noise in the bond's padded columns (a tenth of a
  // core's RMS, times the last core's, ~1e-2 of a row) reaches them, ~1e-4 of the mass.
  CHECK(std::fabs(rms_rows(w, d, rows) - 0.2) <= 1e-2 * 0.2);
  // Seeded: the same seed gives the same cores, another seed other noise.
  CHECK(tt_cores(shape, g, row_map(rows), o) == cores);
  auto other = o;
  other.seed = 4;
  CHECK(tt_cores(shape, g, row_map(rows), other) != cores);
  // Below the limit the graph itself is solved.
  EmbeddingInitInfo whole;
  tt_cores(shape, g, row_map(rows), init_options(InitMethod::spectral, 0.2, 0.5, 3), &whole);
  CHECK(whole.slot_nodes == 0);
}

TEST_CASE("embedding init: settings and placements it cannot honour are ConfigErrors") {
  const Graph p4 = path_graph(4);
  const auto sp = init_options(InitMethod::spectral);
  for (double bad : {0.0, -1.0})
    for (auto m : {InitMethod::gaussian, InitMethod::orthogonal, InitMethod::spectral}) {
      CHECK_THROWS_AS(full_table(4, 2, p4, identity_map(), init_options(m, bad)), ConfigError);
      CHECK_THROWS_AS(
          tt_cores(make_tt_shape(4, {2, 2}, {2, 1}, 1), p4, identity_map(), init_options(m, bad)),
          ConfigError);
    }
  CHECK_THROWS_AS(full_table(4, 2, p4, row_map({0, 1, 2}), sp), ConfigError);    // 3 rows, 4 nodes
  CHECK_THROWS_AS(full_table(6, 2, p4, row_map({0, 1, 2, 6}), sp), ConfigError); // row 6 of 6
  CHECK_THROWS_AS(full_table(6, 2, p4, row_map({0, -1, 2, 3}), sp), ConfigError);
  CHECK_THROWS_AS(full_table(3, 2, p4, identity_map(), sp), ConfigError); // node 3, 3 rows
  CHECK_THROWS_AS(full_table(4, 0, p4, identity_map(), sp), ConfigError);
  CHECK_THROWS_AS(spectral(4, 5, p4, identity_map(), sp), ConfigError); // 5 > 4 eigenvectors
  // Three disjoint edges: 6 eigenvectors, of which the 2 other components' eigenvalue-1 vectors
  // are dropped, leave 4 columns: d = 4 works (column 0 is u_C = (1, 1)/√2 on {0, 1}), d = 5
  // is a setting the graph cannot honour (ConfigError, not a library failure).
  const Graph edges = test::make_graph(6, {{0, 1}, {2, 3}, {4, 5}});
  const auto four = spectral(6, 4, edges, identity_map(), sp);
  for (int v = 0; v < 6; ++v)
    CHECK(std::fabs(four[v * 4] - (v < 2 ? 1 / kR2 : 0.0)) <= kDenseTol);
  CHECK_THROWS_AS(spectral(6, 5, edges, identity_map(), sp), ConfigError);
  CHECK_THROWS_AS(full_table(6, 5, edges, identity_map(), sp), ConfigError);
  CHECK_THROWS_AS(full_table(4, 5, p4, identity_map(), init_options(InitMethod::orthogonal)),
                  ConfigError); // 5 orthonormal columns in 4 rows
}
