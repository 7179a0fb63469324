// GCNConv: finite-difference gradient checks, shrinking, growing and of equal widths (both
// product orders, both backward forms), on symmetric and directed graphs and on a sampled
// block; the input gradient written over the output gradient.
#include "models/layers/gcn_conv.hpp"
#include "models/layers/gcn_norm.hpp"
#include "layer_test_util.hpp"
#include "test_harness.hpp"

#include <string>

namespace {

using namespace ttgnn::test;

template <class Space> void check_gcn_gradients() {
  const Space space;
  const auto sym = ttgnn::gcn_norm<double>(space, random_graph(9, 0.35, true, 7));
  const auto dir = ttgnn::gcn_norm<double>(space, random_graph(9, 0.35, false, 8));
  CHECK(sym.symmetric);
  CHECK_FALSE(dir.symmetric);
  for (auto const *a : {&sym, &dir}) {
    ttgnn::GCNConv<double, Space> shrink(5, 3, true, 11), grow(3, 5, true, 12),
        equal(4, 4, true, 14);
    CHECK_FALSE(shrink.aggregate_first());
    CHECK(grow.aggregate_first());
    CHECK(equal.aggregate_first());
    CHECK_FALSE(shrink.keeps_ax());
    CHECK(grow.keeps_ax());
    CHECK_FALSE(equal.keeps_ax());
    const std::string name = a->symmetric ? " sym" : " dir";
    check_graph_layer<Space>(shrink, *a, 5, 3, "gcn 5->3" + name);
    check_graph_layer<Space>(grow, *a, 3, 5, "gcn 3->5" + name);
    check_graph_layer<Space>(equal, *a, 4, 4, "gcn 4->4" + name);
    check_in_place_input_gradient<Space>(equal, *a, 4, "gcn 4->4 in place" + name);
  }
  ttgnn::GCNConv<double, Space> block_layer(4, 2, false, 13), block_equal(3, 3, true, 15);
  check_graph_layer<Space>(block_layer, block_operator<Space>(), 4, 2, "gcn block");
  check_graph_layer<Space>(block_equal, block_operator<Space>(), 3, 3, "gcn block 3->3");
}

} // namespace

TTGNN_TEST_ALL_SPACES("gcn conv gradients") {
  check_gcn_gradients<ExecutionSpace>();
}
