// gcn_norm and mean_aggregation: operator values by hand (symmetric and directed graphs, with
// and without self loops), their transposes, and refused neighbour ids.
#include "core/error.hpp"
#include "models/layers/gcn_norm.hpp"
#include "models/layers/graph_operator.hpp"
#include "layer_test_util.hpp"
#include "test_harness.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

namespace {

using ttgnn::test::make_graph;
using ttgnn::test::Mat;

template <class Space>
std::vector<double> dense_of(ttgnn::GraphOperator<double, Space> const &op, bool transpose) {
  // Applies the operator to the identity: column c of A * I is column c of A.
  const std::int64_t in = transpose ? op.num_rows : op.num_cols;
  const std::int64_t out = transpose ? op.num_cols : op.num_rows;
  Mat<Space> eye("ttgnn::test::eye", in, in), y("ttgnn::test::y", out, in);
  auto he = Kokkos::create_mirror_view(eye);
  for (std::int64_t i = 0; i < in; ++i)
    he(i, i) = 1;
  Kokkos::deep_copy(eye, he);
  if (transpose)
    op.apply_transpose(Space(), eye, y);
  else
    op.apply(Space(), eye, y);
  auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  std::vector<double> d(out * in);
  for (std::int64_t i = 0; i < out; ++i)
    for (std::int64_t j = 0; j < in; ++j)
      d[i * in + j] = hy(i, j);
  return d;
}

template <class Space> void check_gcn_norm_by_hand() {
  const Space space;
  // Path 0 - 1 - 2. With self loops: degrees 2, 3, 2.
  const auto g = make_graph(3, {{0, 1}, {1, 0}, {1, 2}, {2, 1}});
  const auto op = ttgnn::gcn_norm<double>(space, g);
  CHECK(op.symmetric);
  CHECK(op.num_nonzeros() == 7);
  const double r6 = 1 / std::sqrt(6.0);
  const std::vector<double> expected = {0.5, r6, 0, r6, 1.0 / 3, r6, 0, r6, 0.5};
  const auto a = dense_of(op, false), at = dense_of(op, true);
  for (int k = 0; k < 9; ++k) {
    CHECK(a[k] == doctest::Approx(expected[k]).epsilon(1e-15));
    CHECK(at[k] == doctest::Approx(expected[k]).epsilon(1e-15));
  }
  // Without self loops: degrees 1, 2, 1, values 1/sqrt(2) on the arcs.
  const auto op0 = ttgnn::gcn_norm<double>(space, g, false);
  const auto a0 = dense_of(op0, false);
  const double r2 = 1 / std::sqrt(2.0);
  const std::vector<double> expected0 = {0, r2, 0, r2, 0, r2, 0, r2, 0};
  for (int k = 0; k < 9; ++k)
    CHECK(a0[k] == doctest::Approx(expected0[k]).epsilon(1e-15));

  // Directed: rows 0: {1}, 1: {}, 2: {0, 1}. With loops: 0: {0, 1}, 1: {1}, 2: {0, 1, 2};
  // degrees 2, 1, 3; value (i, j) = 1 / sqrt(deg i deg j). The transpose is built.
  const auto d = make_graph(3, {{0, 1}, {2, 0}, {2, 1}});
  const auto opd = ttgnn::gcn_norm<double>(space, d);
  CHECK_FALSE(opd.symmetric);
  const double deg[3] = {2, 1, 3};
  const int pattern[9] = {1, 1, 0, 0, 1, 0, 1, 1, 1};
  const auto ad = dense_of(opd, false), adt = dense_of(opd, true);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const double v = pattern[i * 3 + j] ? 1 / std::sqrt(deg[i] * deg[j]) : 0.0;
      CHECK(ad[i * 3 + j] == doctest::Approx(v).epsilon(1e-15));
      CHECK(adt[j * 3 + i] == doctest::Approx(v).epsilon(1e-15));
    }
  // Out-of-range neighbour ids are refused.
  auto bad = make_graph(3, {{0, 1}});
  bad.entries(0) = 7;
  CHECK_THROWS_AS(ttgnn::gcn_norm<double>(space, bad), ttgnn::InputError);
}

template <class Space> void check_mean_by_hand() {
  const Space space;
  // Path 0 - 1 - 2 plus isolated node 3: rows 0: {1} -> 1, 1: {0, 2} -> 1/2, 2: {1} -> 1.
  const auto g = make_graph(4, {{0, 1}, {1, 0}, {1, 2}, {2, 1}});
  const auto op = ttgnn::mean_aggregation<double>(space, g);
  const std::vector<double> expected = {0, 1, 0, 0, 0.5, 0, 0.5, 0, 0, 1, 0, 0, 0, 0, 0, 0};
  const auto a = dense_of(op, false), at = dense_of(op, true);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      CHECK(a[i * 4 + j] == expected[i * 4 + j]);
      CHECK(at[j * 4 + i] == expected[i * 4 + j]);
    }
  // Directed: transpose built by transpose_csr.
  const auto d = make_graph(3, {{0, 1}, {0, 2}, {2, 1}});
  const auto opd = ttgnn::mean_aggregation<double>(space, d);
  const std::vector<double> ed = {0, 0.5, 0.5, 0, 0, 0, 0, 1, 0};
  const auto ad = dense_of(opd, false), adt = dense_of(opd, true);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      CHECK(ad[i * 3 + j] == ed[i * 3 + j]);
      CHECK(adt[j * 3 + i] == ed[i * 3 + j]);
    }
}

} // namespace

TTGNN_TEST_ALL_SPACES("gcn_norm values by hand") {
  check_gcn_norm_by_hand<ExecutionSpace>();
}
TTGNN_TEST_ALL_SPACES("mean aggregation values by hand") {
  check_mean_by_hand<ExecutionSpace>();
}
