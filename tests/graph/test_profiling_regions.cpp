// Kokkos Tools regions of the orderings, METIS, the spectral solver, the sampler, the TT-SVD and
// the TT lookup, as a profiler sees them through the push/pop region callbacks: their names,
// where each one nests, and that every region is closed.
#include "core/tt/tt_init.hpp"
#include "core/tt/tt_lookup.hpp"
#include "graph/neighbor_sampler.hpp"
#include "graph/order/hierarchical_partition.hpp"
#include "graph/order/ordering.hpp"
#include "graph/spectral/spectral_embedding.hpp"
#include "order_test_graphs.hpp"
#include "test_harness.hpp"
#include "tt_test_util.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

using namespace ttgnn;

namespace {

/// Records the regions pushed while it lives, each with the path of the regions it was pushed
/// in ("outer/inner"; "" outside any), through Kokkos Tools' region callbacks, which it
/// installs on construction and removes on destruction.
class RegionLog {
public:
  RegionLog() {
    stack().clear();
    pushed().clear();
    unbalanced_pops() = 0;
    Kokkos::Tools::Experimental::set_push_region_callback(&push);
    Kokkos::Tools::Experimental::set_pop_region_callback(&pop);
  }
  ~RegionLog() {
    Kokkos::Tools::Experimental::set_push_region_callback(nullptr);
    Kokkos::Tools::Experimental::set_pop_region_callback(nullptr);
  }
  RegionLog(RegionLog const &) = delete;
  RegionLog &operator=(RegionLog const &) = delete;

  /// Times \p name was pushed directly inside the region path \p parent.
  static std::size_t count(std::string const &name, std::string const &parent) {
    std::size_t n = 0;
    for (auto const &p : pushed())
      n += p.first == name && p.second == parent;
    return n;
  }
  /// Times \p name was pushed, wherever.
  static std::size_t count(std::string const &name) {
    std::size_t n = 0;
    for (auto const &p : pushed())
      n += p.first == name;
    return n;
  }
  /// Every push had its pop, and no pop came without a push.
  static bool balanced() { return stack().empty() && unbalanced_pops() == 0; }

private:
  static std::vector<std::string> &stack() {
    static std::vector<std::string> s;
    return s;
  }
  static std::vector<std::pair<std::string, std::string>> &pushed() {
    static std::vector<std::pair<std::string, std::string>> p;
    return p;
  }
  static int &unbalanced_pops() {
    static int n = 0;
    return n;
  }
  static void push(char const *name) {
    std::string path;
    for (auto const &s : stack())
      path += (path.empty() ? "" : "/") + s;
    pushed().emplace_back(name, path);
    stack().emplace_back(name);
  }
  static void pop() {
    if (stack().empty())
      ++unbalanced_pops();
    else
      stack().pop_back();
  }
};

/// 120 nodes in 8 planted blocks: METIS has real work at every level.
CsrGraph<std::int32_t, Kokkos::HostSpace> planted_graph() {
  return test::make_graph(120, test::planted_partition(120, 8, 300, 40, 5).edges);
}

} // namespace

TTGNN_TEST_HOST_SPACES("profiling regions: a hierarchical METIS order nests every METIS call in "
                       "its level") {
  const auto graph = planted_graph();
  OrderingOptions o;
  o.method = OrderMethod::metis_hier;
  o.n_factors = {4, 4, 8}; // two levels of splits: 1 group into 4 parts, then each part into 4
  o.seed = 3;
  NodeOrdering ordering;
  const std::string compute = "ttgnn::ordering::compute", hier = "ttgnn::hierarchical::partition",
                    level = "ttgnn::hierarchical::level", metis = "ttgnn::metis::partition";
  const std::string in_level = compute + "/" + hier + "/" + level;
  {
    RegionLog log;
    ordering = compute_ordering(ExecutionSpace(), graph, o);
    CHECK(RegionLog::balanced());
    CHECK(RegionLog::count(compute, "") == 1);
    CHECK(RegionLog::count(hier, compute) == 1);
    CHECK(RegionLog::count(level, compute + "/" + hier) == 2);
    // One METIS partition for the whole graph, then one per non-empty part of it.
    std::set<std::int64_t> first_digits;
    for (std::int64_t v = 0; v < ordering.num_nodes; ++v)
      first_digits.insert(ordering.old_to_row(v) / (4 * 8));
    CHECK(RegionLog::count(metis, in_level) == 1 + first_digits.size());
    CHECK(RegionLog::count(metis) == RegionLog::count(metis, in_level)); // none elsewhere
    // METIS itself runs inside its partition call, never outside one.
    CHECK(RegionLog::count("ttgnn::metis::part_graph", in_level + "/" + metis) >= 1);
    CHECK(RegionLog::count("ttgnn::metis::part_graph") ==
          RegionLog::count("ttgnn::metis::part_graph", in_level + "/" + metis));
  }
  // Called directly: one METIS run region per METIS run the result counts.
  RegionLog log;
  const HierarchicalPartition h = hierarchical_partition(ExecutionSpace(), graph, o.n_factors, {});
  CHECK(RegionLog::balanced());
  CHECK(RegionLog::count(hier, "") == 1);
  CHECK(h.metis_calls >= 2);
  CHECK(RegionLog::count("ttgnn::metis::part_graph") == static_cast<std::size_t>(h.metis_calls));
}

TTGNN_TEST_HOST_SPACES("profiling regions: the multilevel order coarsens, partitions the coarse "
                       "graph, projects and lays out, nested in the ordering") {
  const auto graph = planted_graph();
  OrderingOptions o;
  o.method = OrderMethod::metis_hier;
  o.n_factors = {4, 4, 8};
  o.multilevel_min_nodes = 0; // always the multilevel path
  RegionLog log;
  const NodeOrdering ordering = compute_ordering(ExecutionSpace(), graph, o);
  CHECK(ordering.path == "multilevel");
  CHECK(RegionLog::balanced());
  const std::string ml = "ttgnn::ordering::compute/ttgnn::order::multilevel";
  CHECK(RegionLog::count("ttgnn::order::multilevel", "ttgnn::ordering::compute") == 1);
  CHECK(RegionLog::count("ttgnn::order::coarsen", ml) == 1);
  CHECK(RegionLog::count("ttgnn::order::partition_coarse", ml) == 1);
  CHECK(RegionLog::count("ttgnn::order::project", ml) == 1);
  CHECK(RegionLog::count("ttgnn::order::layout", ml) == 1);
  // FM passes run only in slices that grow their slots; METIS splits this graph's slices.
  CHECK(RegionLog::count("ttgnn::order::slot_fm") == 0);
  CHECK(RegionLog::count("ttgnn::metis::partition", ml + "/ttgnn::order::partition_coarse") == 1);
}

TTGNN_TEST_HOST_SPACES("profiling regions: the label-propagation order's two levels and its "
                       "packing nest in the ordering") {
  const auto graph = planted_graph();
  OrderingOptions o;
  o.method = OrderMethod::lp_hier;
  o.n_factors = {4, 4, 8};
  RegionLog log;
  compute_ordering(ExecutionSpace(), graph, o);
  CHECK(RegionLog::balanced());
  const std::string lp = "ttgnn::ordering::compute/ttgnn::lp_order::compute";
  CHECK(RegionLog::count("ttgnn::lp_order::compute", "ttgnn::ordering::compute") == 1);
  CHECK(RegionLog::count("ttgnn::lp_order::super_clusters", lp) == 1);
  CHECK(RegionLog::count("ttgnn::lp_order::clusters", lp) == 1);
  CHECK(RegionLog::count("ttgnn::lp_order::pack", lp) == 1);
  CHECK(RegionLog::count("ttgnn::metis::partition") == 0);
}

TTGNN_TEST_HOST_SPACES("profiling regions: the spectral embedding's eigensolve and residuals") {
  const auto graph = planted_graph();
  SpectralOptions s;
  s.num_vectors = 4;
  RegionLog log;
  spectral_embedding(ExecutionSpace(), graph, s);
  CHECK(RegionLog::balanced());
  CHECK(RegionLog::count("ttgnn::spectral::embedding", "") == 1);
  CHECK(RegionLog::count("ttgnn::spectral::eigensolve", "ttgnn::spectral::embedding") == 1);
  CHECK(RegionLog::count("ttgnn::spectral::residuals", "ttgnn::spectral::embedding") == 1);
}

TTGNN_TEST_HOST_SPACES("profiling regions: one sampler region per sampled batch") {
  const auto graph = planted_graph();
  NeighborSampler<std::int32_t> sampler(graph, {3, 2}, 7);
  Kokkos::View<std::int64_t *, Kokkos::HostSpace> seeds("seeds", 3);
  seeds(0) = 0, seeds(1) = 50, seeds(2) = 119;
  RegionLog log;
  sampler.sample(ExecutionSpace(), seeds, 0, 0);
  sampler.sample(ExecutionSpace(), seeds, 0, 1);
  CHECK(RegionLog::balanced());
  CHECK(RegionLog::count("ttgnn::neighbor_sampler::sample", "") == 2);
}

TEST_CASE("profiling regions: the TT-SVD") {
  const TtShape shape = test::tt_test_shapes()[1];
  std::vector<double> matrix(shape.num_rows * shape.dim());
  for (std::size_t i = 0; i < matrix.size(); ++i)
    matrix[i] = static_cast<double>(i % 7) - 3.0;
  RegionLog log;
  tt_svd(shape, matrix);
  CHECK(RegionLog::balanced());
  CHECK(RegionLog::count("ttgnn::tt_init::tt_svd", "") == 1);
}

TTGNN_TEST_ALL_SPACES("profiling regions: TT lookup forward and backward; the prefix backward "
                      "reuses the forward's plan") {
  using mem = typename ExecutionSpace::memory_space;
  ExecutionSpace space;
  const TtShape s = test::tt_test_shapes()[1];
  auto cores = test::make_cores<float, ExecutionSpace>(s, test::random_host_cores(s, 1));
  TtCores<float, mem> grads(s, "ttgnn::test::grads");
  const std::vector<std::int64_t> ids_h{3, 17, 3, 199, 42, 0};
  const auto ids = test::to_device<ExecutionSpace>(ids_h);
  const auto n = static_cast<std::int64_t>(ids_h.size());
  Kokkos::View<float **, Kokkos::LayoutRight, mem> out("out", n, s.dim()), gr("gr", n, s.dim());
  Kokkos::deep_copy(gr, 1.0f);
  const std::string fwd = "ttgnn::tt_lookup::forward", bwd = "ttgnn::tt_lookup::backward",
                    plan = "ttgnn::tt_lookup::prefix_plan";
  {
    RegionLog log;
    TtLookupWorkspace<float, ExecutionSpace> ws;
    tt_lookup_forward(space, cores, ids, out, TtLookupPath::prefix, ws);
    tt_lookup_backward(space, cores, ids, gr, grads, TtLookupPath::prefix,
                       TtBackwardMode::deterministic, ws);
    // The same ids in another View: the backward plans again.
    const auto copy = test::to_device<ExecutionSpace>(ids_h);
    tt_lookup_backward(space, cores, copy, gr, grads, TtLookupPath::prefix, TtBackwardMode::atomic,
                       ws);
    CHECK(RegionLog::balanced());
    CHECK(RegionLog::count(fwd, "") == 1);
    CHECK(RegionLog::count(plan, fwd) == 1);
    CHECK(RegionLog::count(bwd, "") == 2);
    CHECK(RegionLog::count(plan, bwd) == 1); // the second backward only
  }
  RegionLog log;
  tt_lookup_forward(space, cores, ids, out, TtLookupPath::plain);
  tt_lookup_backward(space, cores, ids, gr, grads, TtLookupPath::plain,
                     TtBackwardMode::deterministic);
  CHECK(RegionLog::balanced());
  CHECK(RegionLog::count(fwd, "") == 1);
  CHECK(RegionLog::count(bwd, "") == 1);
  CHECK(RegionLog::count(plan) == 0); // the plain path has no prefix plan
}
