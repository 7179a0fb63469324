// SAGEConv: finite-difference gradient checks, shrinking and growing, on symmetric and
// directed graphs and on a sampled block, with and without bias.
#include "models/layers/gcn_norm.hpp"
#include "models/layers/sage_conv.hpp"
#include "layer_test_util.hpp"
#include "test_harness.hpp"

#include <string>

namespace {

using namespace ttgnn::test;

template <class Space> void check_sage_gradients() {
  const Space space;
  const auto sym = ttgnn::mean_aggregation<double>(space, random_graph(9, 0.35, true, 9));
  const auto dir = ttgnn::mean_aggregation<double>(space, random_graph(9, 0.35, false, 10));
  const auto block = block_operator<Space>();
  for (auto const *a : {&sym, &dir, &block}) {
    const std::string name = a == &sym ? "sym" : a == &dir ? "dir" : "block";
    ttgnn::SAGEConv<double, Space> shrink(5, 3, true, 21), grow(3, 5, true, 22);
    check_graph_layer<Space>(shrink, *a, 5, 3, "sage 5->3 " + name);
    check_graph_layer<Space>(grow, *a, 3, 5, "sage 3->5 " + name);
  }
  ttgnn::SAGEConv<double, Space> no_bias(3, 3, false, 23);
  CHECK(no_bias.parameters().size() == 2);
  check_graph_layer<Space>(no_bias, sym, 3, 3, "sage without bias");
}

} // namespace

TTGNN_TEST_ALL_SPACES("sage conv gradients") {
  check_sage_gradients<ExecutionSpace>();
}
