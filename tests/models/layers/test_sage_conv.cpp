// SAGEConv: finite-difference gradient checks, shrinking, growing and of equal widths, on
// symmetric and directed graphs and on a sampled block, with and without bias; the input
// gradient written over the output gradient (one block of rows and several).
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
    ttgnn::SAGEConv<double, Space> shrink(5, 3, true, 21), grow(3, 5, true, 22),
        equal(4, 4, true, 24);
    check_graph_layer<Space>(shrink, *a, 5, 3, "sage 5->3 " + name);
    check_graph_layer<Space>(grow, *a, 3, 5, "sage 3->5 " + name);
    check_graph_layer<Space>(equal, *a, 4, 4, "sage 4->4 " + name);
    if (a != &block)
      check_in_place_input_gradient<Space>(equal, *a, 4, "sage 4->4 in place " + name);
  }
  ttgnn::SAGEConv<double, Space> no_bias(3, 3, false, 23);
  CHECK(no_bias.parameters().size() == 2);
  check_graph_layer<Space>(no_bias, sym, 3, 3, "sage without bias");

  // more rows than one block of the in-place input gradient
  const int n = 2 * int(ttgnn::kInPlaceGradRows) + 5;
  ttgnn::SAGEConv<double, Space> wide(2, 2, true, 25);
  check_in_place_input_gradient<Space>(wide, cycle_mean_operator<Space>(n), 2, "sage blocks");

  // gx over gy needs equal shapes: a block's 4 output rows are not its 9 input rows
  ttgnn::SAGEConv<double, Space> b(3, 3, true, 26);
  Mat<Space> x = random_matrix<Space>(9, 3, 1), y("ttgnn::test::y", 4, 3);
  Mat<Space> g = random_matrix<Space>(9, 3, 2);
  b.forward(space, block, x, y);
  CHECK_THROWS_AS(b.backward(space, Kokkos::subview(g, std::make_pair(0, 4), Kokkos::ALL), g),
                  ttgnn::ConfigError);
}

} // namespace

TTGNN_TEST_ALL_SPACES("sage conv gradients") {
  check_sage_gradients<ExecutionSpace>();
}
