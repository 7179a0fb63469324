// GCNConv: finite-difference gradient checks, shrinking and growing (both product orders), on
// symmetric and directed graphs and on a sampled block.
#include "models/layers/gcn_conv.hpp"
#include "models/layers/gcn_norm.hpp"
#include "layer_test_util.hpp"
#include "test_harness.hpp"

namespace {

using namespace ttgnn::test;

template <class Space> void check_gcn_gradients() {
  const Space space;
  const auto sym = ttgnn::gcn_norm<double>(space, random_graph(9, 0.35, true, 7));
  const auto dir = ttgnn::gcn_norm<double>(space, random_graph(9, 0.35, false, 8));
  CHECK(sym.symmetric);
  CHECK_FALSE(dir.symmetric);
  for (auto const *a : {&sym, &dir}) {
    ttgnn::GCNConv<double, Space> shrink(5, 3, true, 11), grow(3, 5, true, 12);
    CHECK_FALSE(shrink.aggregate_first());
    CHECK(grow.aggregate_first());
    check_graph_layer<Space>(shrink, *a, 5, 3, a->symmetric ? "gcn 5->3 sym" : "gcn 5->3 dir");
    check_graph_layer<Space>(grow, *a, 3, 5, a->symmetric ? "gcn 3->5 sym" : "gcn 3->5 dir");
  }
  ttgnn::GCNConv<double, Space> block_layer(4, 2, false, 13);
  check_graph_layer<Space>(block_layer, block_operator<Space>(), 4, 2, "gcn block");
}

} // namespace

TTGNN_TEST_ALL_SPACES("gcn conv gradients") {
  check_gcn_gradients<ExecutionSpace>();
}
