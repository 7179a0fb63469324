#ifndef TTGNN_TESTS_LOSS_TEST_UTIL_HPP
#define TTGNN_TESTS_LOSS_TEST_UTIL_HPP
/// \file loss_test_util.hpp
/// \brief Shared by the multi-label loss tests: logits, targets and node ids from host values.

#include "core/linalg/dense_gemm.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ttgnn::test {

template <class Space> using Mat = ttgnn::Matrix<double, Space>;
template <class Space>
using Targets = Kokkos::View<std::int8_t **, Kokkos::LayoutRight, typename Space::memory_space>;
template <class Space> using Ids = Kokkos::View<std::int64_t *, typename Space::memory_space>;

template <class Space> Mat<Space> matrix(std::vector<std::vector<double>> const &rows) {
  Mat<Space> m("ttgnn::test::logits", rows.size(), rows[0].size());
  auto h = Kokkos::create_mirror_view(m);
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < rows[i].size(); ++j)
      h(i, j) = rows[i][j];
  Kokkos::deep_copy(m, h);
  return m;
}

template <class Space> Targets<Space> targets(std::vector<std::vector<int>> const &rows) {
  Targets<Space> y("ttgnn::test::targets", rows.size(), rows[0].size());
  auto h = Kokkos::create_mirror_view(y);
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < rows[i].size(); ++j)
      h(i, j) = static_cast<std::int8_t>(rows[i][j]);
  Kokkos::deep_copy(y, h);
  return y;
}

template <class Space> Ids<Space> ids(std::vector<std::int64_t> const &v) {
  Ids<Space> out("ttgnn::test::ids", v.size());
  auto h = Kokkos::create_mirror_view(out);
  for (std::size_t i = 0; i < v.size(); ++i)
    h(i) = v[i];
  Kokkos::deep_copy(out, h);
  return out;
}

} // namespace ttgnn::test

#endif
