#ifndef TTGNN_TESTS_SPECTRAL_TEST_UTIL_HPP
#define TTGNN_TESTS_SPECTRAL_TEST_UTIL_HPP
/// \file spectral_test_util.hpp
/// \brief Shared by the eigensolver tests: the dense D^-1/2 A D^-1/2 of a small graph and a
/// host View as an Eigen matrix, both computed independently of the library.

#include <Eigen/Dense>

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace ttgnn::test {

/// Dense normalized adjacency D^-1/2 A D^-1/2 of a host CSR graph.
template <class Graph> Eigen::MatrixXd dense_normalized_adjacency(Graph const &g) {
  const auto n = g.num_nodes();
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(n, n);
  for (std::int64_t u = 0; u < n; ++u) {
    const double du = static_cast<double>(g.row_map(u + 1) - g.row_map(u));
    for (std::int64_t k = g.row_map(u); k < g.row_map(u + 1); ++k) {
      const std::int64_t v = g.entries(k);
      const double dv = static_cast<double>(g.row_map(v + 1) - g.row_map(v));
      a(u, v) = 1.0 / std::sqrt(du * dv);
    }
  }
  return a;
}

/// A rank-2 host View as a dense matrix.
template <class View> Eigen::MatrixXd as_matrix(View const &x) {
  Eigen::MatrixXd v(x.extent(0), x.extent(1));
  for (std::size_t i = 0; i < x.extent(0); ++i)
    for (std::size_t j = 0; j < x.extent(1); ++j)
      v(i, j) = x(i, j);
  return v;
}

} // namespace ttgnn::test

#endif
