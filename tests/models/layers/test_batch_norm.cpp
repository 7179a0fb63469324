// BatchNorm1d: finite-difference gradient checks (training, evaluation, without affine) and
// the running statistics by hand.
#include "core/error.hpp"
#include "models/layers/batch_norm.hpp"
#include "layer_test_util.hpp"
#include "test_harness.hpp"

#include <cmath>

namespace {

using namespace ttgnn::test;

template <class Space> void check_batch_norm_gradients() {
  ttgnn::BatchNorm1d<double, Space> bn(4);
  randomise_parameters(bn, 31);
  check_plain_layer<Space>(bn, 9, 4, 4, "batch norm (training)");
  bn.set_training(false);
  check_plain_layer<Space>(bn, 9, 4, 4, "batch norm (eval)");
  ttgnn::BatchNorm1d<double, Space> plain(3, 1e-5, 0.1, false);
  CHECK(plain.parameters().empty());
  check_plain_layer<Space>(plain, 7, 3, 3, "batch norm without affine");
}

template <class Space> void check_batch_norm_running_stats() {
  const Space space;
  // Column 0: 1, 2, 3, 4 (mean 2.5, biased var 1.25, unbiased 5/3); column 1: 0, 0, 0, 4
  // (mean 1, biased var 3, unbiased 4).
  Mat<Space> x("ttgnn::test::x", 4, 2), y("ttgnn::test::y", 4, 2);
  auto hx = Kokkos::create_mirror_view(x);
  const double v[4][2] = {{1, 0}, {2, 0}, {3, 0}, {4, 4}};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j)
      hx(i, j) = v[i][j];
  Kokkos::deep_copy(x, hx);
  ttgnn::BatchNorm1d<double, Space> bn(2, 1e-5, 0.1);
  auto hg = Kokkos::create_mirror_view(bn.weight());
  auto hb = Kokkos::create_mirror_view(bn.bias());
  hg(0) = 2;
  hg(1) = 0.5;
  hb(0) = 1;
  hb(1) = -1;
  Kokkos::deep_copy(bn.weight(), hg);
  Kokkos::deep_copy(bn.bias(), hb);
  bn.forward(space, x, y);
  auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  // Training output uses the batch statistics.
  CHECK(hy(0, 0) == doctest::Approx(2 * (1 - 2.5) / std::sqrt(1.25 + 1e-5) + 1).epsilon(1e-12));
  CHECK(hy(3, 1) == doctest::Approx(0.5 * (4 - 1) / std::sqrt(3 + 1e-5) - 1).epsilon(1e-12));
  auto rm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), bn.running_mean());
  auto rv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), bn.running_var());
  CHECK(rm(0) == doctest::Approx(0.1 * 2.5).epsilon(1e-14));
  CHECK(rm(1) == doctest::Approx(0.1 * 1.0).epsilon(1e-14));
  CHECK(rv(0) == doctest::Approx(0.9 + 0.1 * 5.0 / 3.0).epsilon(1e-14));
  CHECK(rv(1) == doctest::Approx(0.9 + 0.1 * 4.0).epsilon(1e-14));
  // Evaluation: y = gamma (x - running_mean) / sqrt(running_var + eps) + beta.
  bn.set_training(false);
  bn.forward(space, x, y);
  Kokkos::deep_copy(hy, y);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j)
      CHECK(hy(i, j) == doctest::Approx(hg(j) * (v[i][j] - rm(j)) / std::sqrt(rv(j) + 1e-5) + hb(j))
                            .epsilon(1e-12));
  // Running statistics do not move in evaluation.
  auto rm2 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), bn.running_mean());
  CHECK(rm2(0) == rm(0));
  CHECK(bn.buffers().size() == 2);
  // One row cannot be normalised in training.
  bn.set_training(true);
  Mat<Space> one("ttgnn::test::one", 1, 2);
  CHECK_THROWS_AS(bn.forward(space, one, one), ttgnn::ConfigError);
}

} // namespace

TTGNN_TEST_ALL_SPACES("batch norm gradients") {
  check_batch_norm_gradients<ExecutionSpace>();
}
TTGNN_TEST_ALL_SPACES("batch norm running statistics") {
  check_batch_norm_running_stats<ExecutionSpace>();
}
