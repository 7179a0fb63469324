// Eigenpairs of D^-1/2 A D^-1/2: against a dense Eigen solver, residuals recomputed here,
// orthonormality, fixed signs, disconnected graphs with isolated nodes, the path graph's known
// spectrum, determinism across execution spaces.
#include "core/error.hpp"
#include "graph/spectral/spectral_embedding.hpp"
#include "order_test_graphs.hpp"
#include "spectral_test_util.hpp"
#include "test_harness.hpp"

#include <Eigen/Dense>

#include <cmath>
#include <omp.h>
#include <vector>

using namespace ttgnn;
using test::as_matrix;
using test::dense_normalized_adjacency;

namespace {

bool near(double a, double b, double tol) {
  return std::fabs(a - b) <= tol;
}

// Residuals, orthonormality and signs, recomputed independently of the library.
void check_pairs(Eigen::MatrixXd const &a, SpectralEmbedding const &s, double tol) {
  const Eigen::MatrixXd v = as_matrix(s.vectors);
  const auto k = v.cols();
  REQUIRE(static_cast<std::int64_t>(s.eigenvalues.size()) == k);
  for (Eigen::Index j = 0; j < k; ++j) {
    const double r = (a * v.col(j) - s.eigenvalues[j] * v.col(j)).norm();
    CHECK(r <= tol);
    CHECK(std::fabs(r - s.residuals[j]) <= 1e-12 + 1e-6 * r);
    if (j > 0)
      CHECK(s.eigenvalues[j] <= s.eigenvalues[j - 1] + 1e-12);
    // Sign fixed: the first entry within 1e-9 relative of the largest magnitude is positive
    // (antisymmetric vectors have +-pairs of equal magnitude; rounding must not decide).
    const double big = v.col(j).cwiseAbs().maxCoeff();
    Eigen::Index first = 0;
    while (std::fabs(v(first, j)) < big * (1 - 1e-9))
      ++first;
    CHECK(v(first, j) > 0);
  }
  // V^T V = I up to rounding of ~N eps per entry.
  CHECK((v.transpose() * v - Eigen::MatrixXd::Identity(k, k)).cwiseAbs().maxCoeff() <= 1e-10);
  CHECK(s.max_residual <= tol);
}

} // namespace

template <class ExecutionSpace> void check_against_dense() {
  ExecutionSpace space;
  auto pp = test::planted_partition(80, 3, 300, 40, 12);
  test::add_path(pp.edges, 0, 80); // connected
  const auto g = test::make_graph(80, pp.edges);
  const Eigen::MatrixXd a = dense_normalized_adjacency(g);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(a);
  for (int k : {1, 6}) {
    SpectralOptions opt;
    opt.num_vectors = k;
    opt.seed = 3;
    const auto s = spectral_embedding(space, g, opt);
    CHECK(!s.dense); // n_rest = 79 >= ncv: Lanczos
    CHECK(s.num_components == 1);
    CHECK(s.exact_vectors == 1);
    check_pairs(a, s, 1e-6);
    const Eigen::MatrixXd v = as_matrix(s.vectors);
    for (int j = 0; j < k; ++j) {
      const auto d = 79 - j;
      // Eigenvalue errors are ~ residual^2 / gap: far below 1e-9 here.
      CHECK(near(s.eigenvalues[j], es.eigenvalues()(d), 1e-9));
      // Vectors match up to sign (the top eigenvalues of this graph are simple, gap > 1e-3).
      CHECK(std::fabs(v.col(j).dot(es.eigenvectors().col(d))) >= 1 - 1e-8);
    }
  }
}
TTGNN_TEST_HOST_SPACES("Lanczos eigenpairs match a dense solver up to sign") {
  check_against_dense<ExecutionSpace>();
}

template <class ExecutionSpace> void check_disconnected() {
  ExecutionSpace space;
  // Components: planted graph on 0..59 (+ path to connect it), a 25-node path 60..84, the edge
  // 85-86, then isolated nodes 87, 88, 89. Eigenvalue 1 has multiplicity 3.
  auto pp = test::planted_partition(60, 2, 200, 20, 4);
  test::add_path(pp.edges, 0, 60);
  test::add_path(pp.edges, 60, 25);
  pp.edges.emplace_back(85, 86);
  const auto g = test::make_graph(90, pp.edges);
  const Eigen::MatrixXd a = dense_normalized_adjacency(g);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(a);
  SpectralOptions opt;
  opt.num_vectors = 8;
  const auto s = spectral_embedding(space, g, opt);
  CHECK(s.num_components == 3);
  CHECK(s.num_isolated == 3);
  CHECK(!s.dense);
  check_pairs(a, s, 1e-6);
  for (int j = 0; j < 8; ++j)
    CHECK(near(s.eigenvalues[j], es.eigenvalues()(89 - j), 1e-9));
  // The eigenvalue-1 space: span of my first 3 columns == the dense one (projectors agree).
  const Eigen::MatrixXd v = as_matrix(s.vectors).leftCols(3);
  const Eigen::MatrixXd w = es.eigenvectors().rightCols(3);
  CHECK((v * v.transpose() - w * w.transpose()).cwiseAbs().maxCoeff() <= 1e-8);
  // Largest component first: column 0 lives on nodes 0..59 only.
  for (int i = 60; i < 90; ++i)
    CHECK(s.vectors(i, 0) == 0.0);
  // Isolated nodes carry nothing in the eigenvalue > 0 vectors.
  for (int j = 0; j < 8; ++j)
    CHECK(s.vectors(88, j) == 0.0);
}
TTGNN_TEST_HOST_SPACES("disconnected graph with isolated nodes: multiplicity of eigenvalue 1") {
  check_disconnected<ExecutionSpace>();
}

template <class ExecutionSpace> void check_path_and_isolated() {
  ExecutionSpace space;
  // Path on 100 nodes: D^-1/2 A D^-1/2 is similar to the random walk matrix, whose eigenvalues
  // are cos(pi j / 99), j = 0..99 (50 positive). Plus 3 isolated nodes (eigenvalue 0, after the
  // 50 positive ones): k = 55 gives 1, 49 Lanczos values > 0, the three zeros, then 2 negative.
  std::vector<test::Edge> e;
  test::add_path(e, 3, 100);
  const auto g = test::make_graph(103, e);
  const double pi = std::acos(-1.0);
  SpectralOptions opt;
  opt.num_vectors = 55;
  opt.ncv = 80;
  opt.tolerance = 1e-10;
  const auto s = spectral_embedding(space, g, opt);
  CHECK(!s.dense);
  CHECK(s.exact_vectors == 4);
  check_pairs(dense_normalized_adjacency(g), s, 1e-6);
  for (int j = 0; j < 50; ++j)
    CHECK(near(s.eigenvalues[j], std::cos(pi * j / 99), 1e-9));
  for (int j = 50; j < 53; ++j) {
    CHECK(s.eigenvalues[j] == 0.0);
    CHECK(s.vectors(j - 50, j) == 1.0); // e_v of isolated node j - 50
  }
  CHECK(near(s.eigenvalues[53], std::cos(pi * 50 / 99), 1e-9));
  CHECK(near(s.eigenvalues[54], std::cos(pi * 51 / 99), 1e-9));

  // Small problem: the dense fallback, same answers.
  std::vector<test::Edge> small;
  test::add_path(small, 0, 6);
  const auto gs = test::make_graph(8, small); // nodes 6, 7 isolated
  opt = SpectralOptions{};
  opt.num_vectors = 8; // everything: 1, cos(pi j/5) for j=1..5 and two zeros
  const auto d = spectral_embedding(space, gs, opt);
  CHECK(d.dense);
  check_pairs(dense_normalized_adjacency(gs), d, 1e-10);
  const std::vector<double> want = {1, std::cos(pi / 5),     std::cos(2 * pi / 5), 0,
                                    0, std::cos(3 * pi / 5), std::cos(4 * pi / 5), -1};
  for (int j = 0; j < 8; ++j)
    CHECK(near(d.eigenvalues[j], want[j], 1e-12));

  opt.num_vectors = 0;
  CHECK_THROWS_AS(spectral_embedding(space, gs, opt), ConfigError);
  opt.num_vectors = 9;
  CHECK_THROWS_AS(spectral_embedding(space, gs, opt), ConfigError);
}
TTGNN_TEST_HOST_SPACES("path graph spectrum, isolated nodes merged by eigenvalue, dense fallback") {
  check_path_and_isolated<ExecutionSpace>();
}

template <class ExecutionSpace> void check_determinism() {
  ExecutionSpace space;
  auto pp = test::planted_partition(300, 4, 1200, 150, 21);
  test::add_path(pp.edges, 0, 300);
  const auto g = test::make_graph(300, pp.edges);
  SpectralOptions opt;
  opt.num_vectors = 5;
  opt.seed = 8;
  const auto a = spectral_embedding(space, g, opt);
  const auto b = spectral_embedding(space, g, opt);
#ifdef KOKKOS_ENABLE_SERIAL
  const auto c = spectral_embedding(Kokkos::Serial(), g, opt); // any thread count, same bits
#else
  const auto &c = b;
#endif
  for (int i = 0; i < 300; ++i)
    for (int j = 0; j < 5; ++j) {
      CHECK(a.vectors(i, j) == b.vectors(i, j));
      CHECK(a.vectors(i, j) == c.vectors(i, j));
    }
  // Another start vector converges to the same pairs (up to the tolerance).
  opt.seed = 9;
  const auto d = spectral_embedding(space, g, opt);
  for (int j = 0; j < 5; ++j) {
    CHECK(near(d.eigenvalues[j], a.eigenvalues[j], 1e-9));
    double dot = 0;
    for (int i = 0; i < 300; ++i)
      dot += a.vectors(i, j) * d.vectors(i, j);
    CHECK(dot >= 1 - 1e-7); // signs fixed, so the same vector, not its negative
  }
}
TTGNN_TEST_HOST_SPACES(
    "spectral embedding is deterministic for a seed and thread count independent") {
  check_determinism<ExecutionSpace>();
}

template <class ExecutionSpace> void check_bipartite_components_dense() {
  ExecutionSpace space;
  // Two paths of 6 nodes and one isolated node: eigenvalues 1 and -1 (bipartite) twice each,
  // cos(pi j / 5) twice for j = 1..4, and 0. k = N asks the dense solver for every non-trivial
  // pair: the deflated u_C must land strictly below -1, so both -1 pairs are genuine ones.
  std::vector<test::Edge> e;
  test::add_path(e, 0, 6);
  test::add_path(e, 6, 6);
  const auto g = test::make_graph(13, e);
  SpectralOptions opt;
  opt.num_vectors = 13;
  const auto s = spectral_embedding(space, g, opt);
  CHECK(s.dense);
  CHECK(s.num_components == 2);
  CHECK(s.num_isolated == 1);
  CHECK(s.exact_vectors == 3);
  check_pairs(dense_normalized_adjacency(g), s, 1e-10);
  const double pi = std::acos(-1.0);
  const std::vector<double> want = {1,
                                    1,
                                    std::cos(pi / 5),
                                    std::cos(pi / 5),
                                    std::cos(2 * pi / 5),
                                    std::cos(2 * pi / 5),
                                    0,
                                    std::cos(3 * pi / 5),
                                    std::cos(3 * pi / 5),
                                    std::cos(4 * pi / 5),
                                    std::cos(4 * pi / 5),
                                    -1,
                                    -1};
  for (int j = 0; j < 13; ++j)
    CHECK(near(s.eigenvalues[j], want[j], 1e-12));
}
TTGNN_TEST_HOST_SPACES("dense solve of every pair keeps eigenvalue -1 of bipartite components") {
  check_bipartite_components_dense<ExecutionSpace>();
}

TTGNN_TEST_HOST_SPACES("Lanczos vectors do not depend on the OpenMP thread count") {
  // A 30 x 30 grid with nev close to N, so that Spectra's dense products on the basis are
  // large enough for Eigen to split them over threads: the bits must not change.
  const auto g = test::make_graph(30 * 30, test::grid_edges(30, 30));
  SpectralOptions o;
  o.num_vectors = 600;
  o.dense_limit = 0; // Lanczos
  o.seed = 3;
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  const auto one = spectral_embedding(ExecutionSpace(), g, o);
  omp_set_num_threads(2);
  const auto two = spectral_embedding(ExecutionSpace(), g, o);
  omp_set_num_threads(saved);
  CHECK_FALSE(one.dense);
  REQUIRE(one.vectors.extent(0) == two.vectors.extent(0));
  std::int64_t differ = 0;
  for (std::size_t i = 0; i < one.vectors.extent(0); ++i)
    for (std::size_t j = 0; j < one.vectors.extent(1); ++j)
      differ += one.vectors(i, j) != two.vectors(i, j) ? 1 : 0;
  CHECK(differ == 0);
}
