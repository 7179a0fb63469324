// The layers with dense weights: parameters() aliases the weights, gradients accumulate until
// zero_grad, shapes are checked, and seeds reproduce the initialisation.
#include "core/error.hpp"
#include "models/layers/linear.hpp"
#include "models/layers/sage_conv.hpp"
#include "test_harness.hpp"

#include <cmath>
#include <cstddef>

namespace {

template <class Space> void check_parameters_and_seeds() {
  const Space space;
  ttgnn::Linear<float, Space> a(16, 8, true, ttgnn::Init::glorot, 3),
      b(16, 8, true, ttgnn::Init::glorot, 3);
  ttgnn::Linear<float, Space> c(16, 8, true, ttgnn::Init::glorot, 4);
  CHECK(a.num_parameters() == 16 * 8 + 8);
  auto wa = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.parameters()[0]);
  auto wb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b.parameters()[0]);
  auto wc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c.parameters()[0]);
  const double bound = std::sqrt(6.0 / 24.0);
  int same = 0, differ = 0, outside = 0;
  for (std::size_t k = 0; k < wa.extent(0); ++k) {
    same += wa(k) == wb(k);
    differ += wa(k) != wc(k);
    outside += std::fabs(wa(k)) > bound;
  }
  CHECK(same == 128);
  CHECK(differ == 128);
  CHECK(outside == 0);
  // parameters() aliases the weight: writing through it changes the layer's output.
  Kokkos::deep_copy(a.parameters()[0], 0.0f);
  Kokkos::deep_copy(a.parameters()[1], 2.0f);
  ttgnn::Matrix<float, Space> x("ttgnn::test::x", 3, 16), y("ttgnn::test::y", 3, 8);
  Kokkos::deep_copy(x, 1.0f);
  a.forward(space, x, y);
  auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  CHECK(hy(2, 7) == 2.0f);
  // Gradients accumulate until zero_grad.
  ttgnn::Matrix<float, Space> gy("ttgnn::test::gy", 3, 8), none;
  Kokkos::deep_copy(gy, 1.0f);
  a.zero_grad(space);
  a.backward(space, gy, none);
  a.backward(space, gy, none);
  auto gb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.gradients()[1]);
  CHECK(gb(0) == 6.0f);
  a.zero_grad(space);
  Kokkos::deep_copy(gb, a.gradients()[1]);
  CHECK(gb(0) == 0.0f);
  // Shapes are checked.
  ttgnn::Matrix<float, Space> wrong("ttgnn::test::wrong", 3, 5);
  CHECK_THROWS_AS(a.forward(space, wrong, y), ttgnn::ConfigError);
  CHECK_THROWS_AS(a.forward(space, x, wrong), ttgnn::ConfigError);
  // GCN and SAGE reset deterministically from the seed.
  ttgnn::SAGEConv<float, Space> s1(6, 4, true, 9), s2(6, 4, true, 1);
  s2.reset_parameters(9);
  for (std::size_t k = 0; k < 3; ++k) {
    auto p1 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s1.parameters()[k]);
    auto p2 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s2.parameters()[k]);
    for (std::size_t i = 0; i < p1.extent(0); ++i)
      CHECK(p1(i) == p2(i));
  }
}

} // namespace

TTGNN_TEST_ALL_SPACES("parameters alias, seeds reproduce, shapes checked") {
  check_parameters_and_seeds<ExecutionSpace>();
}
