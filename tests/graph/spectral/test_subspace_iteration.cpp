// Block Chebyshev-filtered subspace iteration (subspace_iteration.hpp) through
// spectral_embedding's SpectralSolver::subspace and directly: against a dense Eigen solver
// (eigenvalues within the residual bound, subspace angle within Davis-Kahan's), several
// components and isolated nodes, a repeated eigenvalue found with all its copies, bitwise the same
// at 1 and 2 threads and on Serial and OpenMP, seeds.
#include "core/error.hpp"
#include "graph/spectral/spectral_embedding.hpp"
#include "graph/spectral/subspace_iteration.hpp"
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

SpectralOptions subspace_options(int k, int iterations, std::uint64_t seed) {
  SpectralOptions o;
  o.num_vectors = k;
  o.seed = seed;
  o.dense_limit = 0; // never dense: the subspace solver runs
  o.solver = SpectralSolver::subspace;
  o.subspace.max_iterations = iterations;
  o.subspace.degree = 10;
  return o;
}

// A connected planted partition of n nodes in 4 blocks.
CsrGraph<std::int32_t, Kokkos::HostSpace> community_graph(std::int64_t n, std::uint64_t seed) {
  auto pp = test::planted_partition(n, 4, 4 * n, n / 2, seed);
  test::add_path(pp.edges, 0, n);
  return test::make_graph(n, pp.edges);
}

template <class T> std::int64_t count_differences(T const &a, T const &b) {
  REQUIRE(a.extent(0) == b.extent(0));
  REQUIRE(a.extent(1) == b.extent(1));
  std::int64_t differ = 0;
  for (std::size_t i = 0; i < a.extent(0); ++i)
    for (std::size_t j = 0; j < a.extent(1); ++j)
      differ += a(i, j) != b(i, j) ? 1 : 0;
  return differ;
}

} // namespace

template <class ExecutionSpace> void check_against_dense() {
  const auto g = community_graph(400, 5);
  const Eigen::MatrixXd a = dense_normalized_adjacency(g);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(a);
  const Eigen::Index n = a.rows();
  const int k = 12;
  const auto s = spectral_embedding(ExecutionSpace(), g, subspace_options(k, 40, 2));
  CHECK(s.subspace);
  CHECK_FALSE(s.dense);
  CHECK(s.num_components == 1);
  CHECK(s.subspace_iterations > 0);
  const Eigen::MatrixXd v = as_matrix(s.vectors);
  // Residuals recomputed here; ||R||_F bounds every Ritz value's distance to its eigenvalue
  // (Kahan: b Ritz values of an orthonormal block lie within ||R||_2 <= ||R||_F of b eigenvalues).
  double r2 = 0;
  for (int j = 0; j < k; ++j) {
    const double r = (a * v.col(j) - s.eigenvalues[j] * v.col(j)).norm();
    CHECK(std::fabs(r - s.residuals[j]) <= 1e-12 + 1e-6 * r);
    r2 += r * r;
  }
  const double rf = std::sqrt(r2);
  CHECK(rf <= 1e-6); // 40 iterations of degree 10 converge on this graph
  for (int j = 0; j < k; ++j)
    CHECK(std::fabs(s.eigenvalues[j] - es.eigenvalues()(n - 1 - j)) <= rf + 1e-12);
  CHECK((v.transpose() * v - Eigen::MatrixXd::Identity(k, k)).cwiseAbs().maxCoeff() <= 1e-10);
  // Subspace angle: sin of the largest principal angle between span(V) and the dense top-k
  // space is at most ||R||_F / gap (Davis-Kahan sin theta), gap = λ_k - λ_{k+1}.
  const Eigen::MatrixXd w = es.eigenvectors().rightCols(k);
  const double sin_angle = (v - w * (w.transpose() * v)).jacobiSvd().singularValues()(0);
  const double gap = es.eigenvalues()(n - k) - es.eigenvalues()(n - k - 1);
  REQUIRE(gap > 1e-4);
  CHECK(sin_angle <= rf / gap + 1e-10);
}
TTGNN_TEST_HOST_SPACES("subspace iteration: eigenvalues and subspace of a dense solver") {
  check_against_dense<ExecutionSpace>();
}

template <class ExecutionSpace> void check_budget_reports_residual() {
  // A small budget: not converged, the residual reported and still a valid bound.
  const auto g = community_graph(400, 5);
  const Eigen::MatrixXd a = dense_normalized_adjacency(g);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(a);
  const auto n = a.rows();
  auto o = subspace_options(12, 1, 2);
  o.subspace.degree = 2;
  const auto s = spectral_embedding(ExecutionSpace(), g, o); // no LibraryError: not checked
  CHECK(s.subspace_iterations == 1);
  CHECK(s.max_residual > 1e-6);
  const Eigen::MatrixXd v = as_matrix(s.vectors);
  for (int j = 0; j < 12; ++j) {
    const double r = (a * v.col(j) - s.eigenvalues[j] * v.col(j)).norm();
    CHECK(std::fabs(r - s.residuals[j]) <= 1e-12 + 1e-6 * r);
    // Some eigenvalue lies within r of every Ritz value.
    CHECK((es.eigenvalues().array() - s.eigenvalues[j]).abs().minCoeff() <= r + 1e-12);
  }
  // More iterations give a smaller residual.
  o.subspace.max_iterations = 6;
  CHECK(spectral_embedding(ExecutionSpace(), g, o).max_residual < s.max_residual);
  (void)n;
}
TTGNN_TEST_HOST_SPACES("subspace iteration: a fixed budget reports its residual") {
  check_budget_reports_residual<ExecutionSpace>();
}

template <class ExecutionSpace> void check_components_and_isolated() {
  // Components: a planted graph on 0..199 (+ path), a 60-node path 200..259, the edge 260-261,
  // then isolated nodes 262..264. Eigenvalue 1 has multiplicity 3, eigenvalue 0 at least 3.
  auto pp = test::planted_partition(200, 3, 800, 60, 4);
  test::add_path(pp.edges, 0, 200);
  test::add_path(pp.edges, 200, 60);
  pp.edges.emplace_back(260, 261);
  const auto g = test::make_graph(265, pp.edges);
  const Eigen::MatrixXd a = dense_normalized_adjacency(g);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(a);
  const int k = 10;
  const auto s = spectral_embedding(ExecutionSpace(), g, subspace_options(k, 60, 1));
  CHECK(s.subspace);
  CHECK(s.num_components == 3);
  CHECK(s.num_isolated == 3);
  CHECK(s.exact_vectors == 3);
  const Eigen::MatrixXd v = as_matrix(s.vectors);
  double r2 = 0;
  for (int j = 0; j < k; ++j)
    r2 += (a * v.col(j) - s.eigenvalues[j] * v.col(j)).squaredNorm();
  const double rf = std::sqrt(r2);
  CHECK(rf <= 1e-6);
  for (int j = 0; j < k; ++j)
    CHECK(std::fabs(s.eigenvalues[j] - es.eigenvalues()(264 - j)) <= rf + 1e-12);
  CHECK((v.transpose() * v - Eigen::MatrixXd::Identity(k, k)).cwiseAbs().maxCoeff() <= 1e-10);
  // The eigenvalue-1 space is exactly the dense one; the solved vectors are orthogonal to it.
  const Eigen::MatrixXd w = es.eigenvectors().rightCols(3);
  CHECK((v.leftCols(3) * v.leftCols(3).transpose() - w * w.transpose()).cwiseAbs().maxCoeff() <=
        1e-8);
  CHECK((v.leftCols(3).transpose() * v.rightCols(k - 3)).cwiseAbs().maxCoeff() <= 1e-12);
  // Isolated nodes carry nothing in the solved vectors (eigenvalue > 0 here).
  for (int j = 3; j < k; ++j)
    for (int i = 262; i < 265; ++i)
      CHECK(s.vectors(i, j) == 0.0);
}
TTGNN_TEST_HOST_SPACES("subspace iteration: several components and isolated nodes") {
  check_components_and_isolated<ExecutionSpace>();
}

template <class ExecutionSpace> void check_repeated_eigenvalue() {
  // 40 copies of the path P_5 (eigenvalues 1, 1/sqrt 2, 0, -1/sqrt 2, -1 each) and one P_7:
  // after the 41 known ones, the block must return 1/sqrt 2 forty times (Lanczos from one start
  // vector sees one direction of that eigenspace).
  std::vector<test::Edge> e;
  for (int c = 0; c < 40; ++c)
    test::add_path(e, 5 * c, 5);
  test::add_path(e, 200, 7);
  const auto g = test::make_graph(207, e);
  const int k = 41 + 40;
  const auto s = spectral_embedding(ExecutionSpace(), g, subspace_options(k, 20, 3));
  CHECK(s.num_components == 41);
  // P_7: cos(pi/6) = 0.866 first, then the forty copies of cos(pi/4).
  CHECK(std::fabs(s.eigenvalues[41] - std::cos(std::acos(-1.0) / 6)) <= 1e-8);
  for (int j = 42; j < 81; ++j)
    CHECK(std::fabs(s.eigenvalues[j] - std::sqrt(0.5)) <= 1e-8);
  CHECK(s.max_residual <= 1e-8);
}
TTGNN_TEST_HOST_SPACES("subspace iteration: every copy of a repeated eigenvalue") {
  check_repeated_eigenvalue<ExecutionSpace>();
}

template <class ExecutionSpace> void check_threads_and_seeds() {
  // Over 5 chunks of rows (1024 each): the reductions' chunking is tested.
  const auto g = community_graph(5000, 9);
  auto o = subspace_options(16, 3, 7);
  o.subspace.degree = 6;
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  const auto one = spectral_embedding(ExecutionSpace(), g, o);
  omp_set_num_threads(2);
  const auto two = spectral_embedding(ExecutionSpace(), g, o);
  omp_set_num_threads(saved);
  CHECK(one.subspace);
  CHECK(count_differences(one.vectors, two.vectors) == 0);
  CHECK(one.eigenvalues == two.eigenvalues);
  CHECK(one.residuals == two.residuals);
  // The same seed again: the same bits; another seed: other bits, the same spectrum to within
  // the residuals.
  const auto again = spectral_embedding(ExecutionSpace(), g, o);
  CHECK(count_differences(one.vectors, again.vectors) == 0);
  o.seed = 8;
  const auto other = spectral_embedding(ExecutionSpace(), g, o);
  CHECK(count_differences(one.vectors, other.vectors) > 0);
  for (int j = 0; j < 8; ++j)
    CHECK(std::fabs(one.eigenvalues[j] - other.eigenvalues[j]) <=
          one.max_residual + other.max_residual);
}
TTGNN_TEST_HOST_SPACES("subspace iteration: bitwise the same at 1 and 2 threads, seeded") {
  check_threads_and_seeds<ExecutionSpace>();
}

#if defined(KOKKOS_ENABLE_SERIAL) && defined(KOKKOS_ENABLE_OPENMP)
// In the .openmp.2 ctest run OpenMP has 2 threads.
TEST_CASE("subspace iteration: Serial and OpenMP give identical bits [threads]") {
  const auto g = community_graph(5000, 9);
  auto o = subspace_options(16, 3, 7);
  o.subspace.degree = 6;
  const auto serial = spectral_embedding(Kokkos::Serial(), g, o);
  const auto openmp = spectral_embedding(Kokkos::OpenMP(), g, o);
  CHECK(count_differences(serial.vectors, openmp.vectors) == 0);
  CHECK(serial.eigenvalues == openmp.eigenvalues);
}
#endif

template <class ExecutionSpace> void check_direct_call_and_errors() {
  // The solver alone, no known vectors: a graph without isolated nodes, every node in one
  // "group" of its own would be wrong, so: one group = the whole connected graph.
  const auto g = community_graph(300, 11);
  const std::int64_t n = g.num_nodes();
  Kokkos::View<double *, Kokkos::HostSpace> dinv("dinv", n), u("u", n);
  Kokkos::View<std::int64_t *, Kokkos::HostSpace> group("group", n);
  double vol = 0;
  for (std::int64_t v = 0; v < n; ++v)
    vol += static_cast<double>(g.row_map(v + 1) - g.row_map(v));
  for (std::int64_t v = 0; v < n; ++v) {
    const double d = static_cast<double>(g.row_map(v + 1) - g.row_map(v));
    dinv(v) = 1 / std::sqrt(d);
    u(v) = std::sqrt(d / vol);
    group(v) = 0;
  }
  KnownEigenvectors known{group, u, 1};
  SubspaceOptions so;
  so.max_iterations = 30;
  so.tolerance = 1e-9;
  so.seed = 4;
  const auto r = subspace_iteration(ExecutionSpace(), g, dinv, known, 5, so);
  CHECK(r.max_residual <= 1e-9);
  CHECK(r.iterations < 30); // stopped early at the tolerance
  CHECK(r.block == 13);     // 5 + max(8, 5 / 4)
  const Eigen::MatrixXd a = dense_normalized_adjacency(g);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(a);
  for (int j = 0; j < 5; ++j)
    CHECK(std::fabs(r.values[j] - es.eigenvalues()(n - 2 - j)) <= 1e-8);
  CHECK_THROWS_AS(subspace_iteration(ExecutionSpace(), g, dinv, known, n, so), ConfigError);
  CHECK_THROWS_AS(subspace_iteration(ExecutionSpace(), g, dinv, known, 0, so), ConfigError);
}
TTGNN_TEST_HOST_SPACES("subspace iteration: direct call, early stop at a tolerance, errors") {
  check_direct_call_and_errors<ExecutionSpace>();
}
