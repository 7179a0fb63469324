// Linear: finite-difference gradient checks with and without bias.
#include "models/layers/linear.hpp"
#include "layer_test_util.hpp"
#include "test_harness.hpp"

namespace {

using ttgnn::test::check_plain_layer;

template <class Space> void check_linear_gradients() {
  ttgnn::Linear<double, Space> with_bias(5, 3, true, ttgnn::Init::kaiming, 1);
  check_plain_layer<Space>(with_bias, 7, 5, 3, "linear");
  ttgnn::Linear<double, Space> no_bias(4, 6, false, ttgnn::Init::glorot, 2);
  CHECK(no_bias.parameters().size() == 1);
  check_plain_layer<Space>(no_bias, 7, 4, 6, "linear without bias");
}

} // namespace

TTGNN_TEST_ALL_SPACES("linear gradients") {
  check_linear_gradients<ExecutionSpace>();
}
