// LogSoftmaxCrossEntropy: the gradient by finite differences, rows outside the subset,
// refused labels, values by hand in double and float, and count_correct.
#include "core/error.hpp"
#include "models/loss/log_softmax_cross_entropy.hpp"
#include "layer_test_util.hpp"
#include "test_harness.hpp"

#include <cmath>
#include <cstdint>
#include <utility>

namespace {

using namespace ttgnn::test;

template <class Space> void check_cross_entropy_gradients() {
  const Space space;
  using M = typename Space::memory_space;
  auto logits = random_matrix<Space>(6, 4, 41);
  Kokkos::View<std::int32_t *, M> labels("ttgnn::test::labels", 6);
  Kokkos::View<std::int64_t *, M> subset("ttgnn::test::subset", 4);
  auto hl = Kokkos::create_mirror_view(labels);
  auto hs = Kokkos::create_mirror_view(subset);
  const int lab[6] = {3, -1, 0, 2, -1, 1}; // unlabelled rows are outside the subset
  const std::int64_t sub[4] = {5, 0, 2, 3};
  for (int i = 0; i < 6; ++i)
    hl(i) = lab[i];
  for (int i = 0; i < 4; ++i)
    hs(i) = sub[i];
  Kokkos::deep_copy(labels, hl);
  Kokkos::deep_copy(subset, hs);
  ttgnn::LogSoftmaxCrossEntropy<double, Space> ce;
  Mat<Space> grad("ttgnn::test::grad", 6, 4);
  check_gradients<Space>(
      [&] {
        const double l = ce.forward(space, logits, labels, subset);
        return std::make_pair(l, std::fabs(l) + 4.0);
      },
      [&] { ce.backward(space, grad); }, {{"cross entropy logits", flat(logits), flat(grad)}});
  // Rows outside the subset get no gradient.
  auto hg = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), grad);
  for (int j = 0; j < 4; ++j) {
    CHECK(hg(1, j) == 0);
    CHECK(hg(4, j) == 0);
  }
  // A subset node without a valid label is refused.
  hs(0) = 1;
  Kokkos::deep_copy(subset, hs);
  CHECK_THROWS_AS(ce.forward(space, logits, labels, subset), ttgnn::InputError);
}

template <class Space> void check_cross_entropy_by_hand() {
  const Space space;
  using M = typename Space::memory_space;
  // logits [[1, 2, 3], [1, 1, 1]], labels [2, 0]:
  // L = (log(e + e^2 + e^3) - 3 + log 3) / 2 = (0.4076059644443806 + 1.0986122886681098) / 2.
  Mat<Space> logits("ttgnn::test::logits", 2, 3), grad("ttgnn::test::grad", 2, 3);
  auto hl = Kokkos::create_mirror_view(logits);
  hl(0, 0) = 1;
  hl(0, 1) = 2;
  hl(0, 2) = 3;
  hl(1, 0) = hl(1, 1) = hl(1, 2) = 1;
  Kokkos::deep_copy(logits, hl);
  Kokkos::View<std::int32_t *, M> labels("ttgnn::test::labels", 2);
  Kokkos::View<std::int64_t *, M> subset("ttgnn::test::subset", 2);
  auto hlab = Kokkos::create_mirror_view(labels);
  auto hs = Kokkos::create_mirror_view(subset);
  hlab(0) = 2;
  hlab(1) = 0;
  hs(0) = 0;
  hs(1) = 1;
  Kokkos::deep_copy(labels, hlab);
  Kokkos::deep_copy(subset, hs);
  ttgnn::LogSoftmaxCrossEntropy<double, Space> ce;
  const double loss = ce.forward(space, logits, labels, subset);
  CHECK(loss == doctest::Approx((0.4076059644443806 + 1.0986122886681098) / 2).epsilon(1e-14));
  ce.backward(space, grad);
  auto hg = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), grad);
  const double z = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  const double g0[3] = {std::exp(1.0) / z, std::exp(2.0) / z, std::exp(3.0) / z - 1};
  const double g1[3] = {1.0 / 3 - 1, 1.0 / 3, 1.0 / 3};
  for (int j = 0; j < 3; ++j) {
    CHECK(hg(0, j) == doctest::Approx(g0[j] / 2).epsilon(1e-14));
    CHECK(hg(1, j) == doctest::Approx(g1[j] / 2).epsilon(1e-14));
  }
  // Arg-max accuracy: row 0 predicts 2 (right), row 1 predicts 0 on the tie (right).
  CHECK(ttgnn::count_correct(space, logits, labels, subset) == 2);
  // In float too.
  ttgnn::Matrix<float, Space> lf("ttgnn::test::logits_f", 2, 3);
  auto hf = Kokkos::create_mirror_view(lf);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      hf(i, j) = float(hl(i, j));
  Kokkos::deep_copy(lf, hf);
  ttgnn::LogSoftmaxCrossEntropy<float, Space> cef;
  CHECK(cef.forward(space, lf, labels, subset) ==
        doctest::Approx((0.4076059644443806 + 1.0986122886681098) / 2).epsilon(1e-6));
}

} // namespace

TTGNN_TEST_ALL_SPACES("cross entropy gradients") {
  check_cross_entropy_gradients<ExecutionSpace>();
}
TTGNN_TEST_ALL_SPACES("cross entropy by hand") {
  check_cross_entropy_by_hand<ExecutionSpace>();
}
