// Layers composed through the Layer interface as a trainer builds them, checked end to end by
// finite differences: GCNConv, BatchNorm1d, ReLU and Dropout in place, GCNConv, cross entropy.
#include "models/layers/batch_norm.hpp"
#include "models/layers/dropout.hpp"
#include "models/layers/gcn_conv.hpp"
#include "models/layers/gcn_norm.hpp"
#include "models/layers/layer.hpp"
#include "models/layers/relu.hpp"
#include "models/loss/log_softmax_cross_entropy.hpp"
#include "layer_test_util.hpp"
#include "test_harness.hpp"

#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace {

using namespace ttgnn::test;

/// A two-layer GCN as the trainer will build it, checked end to end:
/// GCNConv -> BatchNorm1d -> ReLU (in place) -> Dropout (in place) -> GCNConv -> cross entropy.
template <class Space> void check_stack_gradients() {
  const Space space;
  using M = typename Space::memory_space;
  const auto a = ttgnn::gcn_norm<double>(space, random_graph(10, 0.3, true, 51));
  const std::int64_t n = a.num_rows;
  ttgnn::GCNConv<double, Space> conv1(4, 6, true, 1), conv2(6, 3, true, 2);
  ttgnn::BatchNorm1d<double, Space> bn(6);
  ttgnn::ReLU<double, Space> relu;
  ttgnn::Dropout<double, Space> drop(0.25, 3);
  ttgnn::LogSoftmaxCrossEntropy<double, Space> ce;
  randomise_parameters(conv1, 60);
  randomise_parameters(conv2, 61);
  randomise_parameters(bn, 62);
  auto x = random_matrix<Space>(n, 4, 52, 0);
  Mat<Space> h("ttgnn::test::h", n, 6), out("ttgnn::test::out", n, 3);
  Mat<Space> gout("ttgnn::test::gout", n, 3), gh("ttgnn::test::gh", n, 6),
      gx("ttgnn::test::gx", n, 4);
  Kokkos::View<std::int32_t *, M> labels("ttgnn::test::labels", n);
  Kokkos::View<std::int64_t *, M> subset("ttgnn::test::subset", n);
  auto hl = Kokkos::create_mirror_view(labels);
  auto hs = Kokkos::create_mirror_view(subset);
  for (std::int64_t i = 0; i < n; ++i) {
    hl(i) = int(i % 3);
    hs(i) = i;
  }
  Kokkos::deep_copy(labels, hl);
  Kokkos::deep_copy(subset, hs);
  std::vector<Variable<Space>> vars;
  for (auto const &v : parameter_variables<Space>(conv1, "conv1"))
    vars.push_back(v);
  for (auto const &v : parameter_variables<Space>(bn, "bn"))
    vars.push_back(v);
  for (auto const &v : parameter_variables<Space>(conv2, "conv2"))
    vars.push_back(v);
  vars.push_back({"stack input", flat(x), flat(gx)});
  check_gradients<Space>(
      [&] {
        conv1.forward(space, a, x, h);
        bn.forward(space, h, h);
        relu.forward(space, h, h);
        drop.set_step(0);
        drop.forward(space, h, h);
        conv2.forward(space, a, h, out);
        const double l = ce.forward(space, out, labels, subset);
        return std::make_pair(l, std::fabs(l) + 10.0);
      },
      [&] {
        for (auto *layer : std::vector<ttgnn::Layer<double, Space> *>{&conv1, &bn, &conv2})
          layer->zero_grad(space);
        ce.backward(space, gout);
        conv2.backward(space, gout, gh);
        drop.backward(space, gh, gh);
        relu.backward(space, gh, gh);
        bn.backward(space, gh, gh);
        conv1.backward(space, gh, gx);
      },
      vars);
}

} // namespace

TTGNN_TEST_ALL_SPACES("two-layer gcn stack gradients") {
  check_stack_gradients<ExecutionSpace>();
}
