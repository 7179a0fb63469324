#include "graph/order/ordering.hpp"

#include "core/counter_rng.hpp"
#include "core/detail/instantiate.hpp"
#include "core/error.hpp"
#include "core/tt/tt_shape.hpp"
#include "graph/boost_adapter.hpp"
#include "graph/csr_build.hpp"
#include "graph/order/hierarchical_partition.hpp"
#include "graph/order/label_propagation_order.hpp"
#include "graph/order/multilevel_order.hpp"

#include <Kokkos_Profiling_ScopedRegion.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <utility>

namespace ttgnn {

namespace {

using Id = std::int64_t;
using IdView = Kokkos::View<Id *, Kokkos::HostSpace>;

std::uint64_t splitmix64(std::uint64_t &state) {
  return splitmix64_next(state);
}

// Nodes sorted by a key (stable: ties keep ascending old ids), as new -> old.
IdView sort_by_key(IdView const &key, Id num_keys) {
  const Id n = static_cast<Id>(key.extent(0));
  std::vector<Id> start(num_keys + 1, 0);
  for (Id v = 0; v < n; ++v)
    ++start[key(v) + 1];
  for (Id k = 0; k < num_keys; ++k)
    start[k + 1] += start[k];
  IdView n2o(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::ordering::new_to_old"), n);
  for (Id v = 0; v < n; ++v)
    n2o(start[key(v)]++) = v;
  return n2o;
}

// Nodes sorted by distinct row ids, as new -> old.
IdView sort_by_row(IdView const &old_to_row) {
  const Id n = static_cast<Id>(old_to_row.extent(0));
  std::vector<std::pair<Id, Id>> rows(n);
  for (Id v = 0; v < n; ++v)
    rows[v] = {old_to_row(v), v};
  std::sort(rows.begin(), rows.end());
  IdView n2o(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::ordering::new_to_old"), n);
  for (Id i = 0; i < n; ++i)
    n2o(i) = rows[i].second;
  return n2o;
}

// METIS' limit on arcs (MetisOptions::arc_limit, idx_t) against the graph's arcs without self
// loops (what METIS would see).
template <class ExecutionSpace, class Ordinal>
bool exceeds_metis_arcs(ExecutionSpace const &space,
                        CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                        MetisOptions const &metis) {
  const Id idx_max = (Id(1) << (metis_index_bits() - 1)) - 1;
  const Id limit = metis.arc_limit > 0 ? std::min(metis.arc_limit, idx_max) : idx_max;
  if (graph.num_arcs() <= limit)
    return false;
  return graph.num_arcs() - count_self_loops(space, graph) > limit;
}

MultilevelOptions multilevel_options(MetisOptions const &metis, ProgressLog const &progress) {
  MultilevelOptions m;
  m.metis = metis;
  m.progress = progress;
  return m;
}

} // namespace

std::string to_string(OrderMethod method) {
  switch (method) {
  case OrderMethod::original:
    return "original";
  case OrderMethod::random:
    return "random";
  case OrderMethod::metis:
    return "metis";
  case OrderMethod::metis_hier:
    return "metis-hier";
  case OrderMethod::rcm:
    return "rcm";
  case OrderMethod::lp_hier:
    return "lp-hier";
  }
  return "?";
}

bool is_hierarchical(OrderMethod method) {
  return method == OrderMethod::metis_hier || method == OrderMethod::lp_hier;
}

OrderMethod parse_order_method(std::string const &name) {
  for (auto m : {OrderMethod::original, OrderMethod::random, OrderMethod::metis,
                 OrderMethod::metis_hier, OrderMethod::rcm, OrderMethod::lp_hier})
    if (name == to_string(m))
      return m;
  throw ConfigError("unknown order '" + name +
                    "': expected original, random, metis, metis-hier, rcm or lp-hier");
}

Kokkos::View<std::int64_t *, Kokkos::HostSpace> NodeOrdering::new_to_row() const {
  if (implicit_identity)
    return {};
  const Id n = permutation.size();
  IdView out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::ordering::new_to_row"), n);
  for (Id i = 0; i < n; ++i)
    out(i) = old_to_row(permutation.new_to_old(i));
  return out;
}

std::int64_t NodeOrdering::rows_used() const {
  if (implicit_identity)
    return num_nodes;
  Id rows = 0;
  for (Id v = 0; v < static_cast<Id>(old_to_row.extent(0)); ++v)
    rows = std::max(rows, old_to_row(v) + 1);
  return rows;
}

Kokkos::View<std::int64_t *, Kokkos::HostSpace> random_new_to_old(std::int64_t n,
                                                                  std::uint64_t seed) {
  IdView p(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::ordering::random"), n);
  for (Id i = 0; i < n; ++i)
    p(i) = i;
  std::uint64_t state = seed;
  for (Id i = n - 1; i > 0; --i) { // Fisher-Yates; multiply-shift maps 64 bits to [0, i]
    const auto j = static_cast<Id>(
        (static_cast<unsigned __int128>(splitmix64(state)) * static_cast<std::uint64_t>(i + 1)) >>
        64);
    std::swap(p(i), p(j));
  }
  return p;
}

template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only>
NodeOrdering compute_ordering(ExecutionSpace const &space,
                              CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                              OrderingOptions const &options) {
  Kokkos::Profiling::ScopedRegion region("ttgnn::ordering::compute");
  const auto t0 = std::chrono::steady_clock::now();
  const Id n = graph.num_nodes();
  NodeOrdering result;
  result.method = options.method;
  result.num_nodes = n;
  result.n_factors = options.n_factors.empty() ? default_n_factors(n) : options.n_factors;
  result.num_rows = check_row_factors(result.n_factors, n, "node ordering");
  MetisOptions metis = options.metis;
  metis.seed = options.seed;
  IdView n2o;
  switch (options.method) {
  case OrderMethod::original:
    if (options.materialize_identity)
      result.permutation = Permutation::identity(n);
    else
      result.implicit_identity = true;
    break;
  case OrderMethod::random:
    n2o = random_new_to_old(n, options.seed);
    break;
  case OrderMethod::metis: {
    const Id k = options.num_parts > 0 ? options.num_parts : result.n_factors.front();
    IdView key("ttgnn::ordering::part", n);
    if (metis.max_arcs_per_node <= 0 && k > 1 && k < n && exceeds_metis_arcs(space, graph, metis)) {
      // Too many arcs for METIS and no sparsification asked for: partition a coarsened graph,
      // parts of at most (1 + imbalance)·N/k nodes.
      if (k > std::numeric_limits<std::int32_t>::max())
        throw ConfigError("METIS: at most 2^31-1 parts (got " + std::to_string(k) + ")");
      const Id cap = std::max<Id>(
          (n + k - 1) / k,
          static_cast<Id>(std::ceil(n * (1.0 + std::max(1, metis.imbalance_permille) / 1000.0) /
                                    static_cast<double>(k))));
      MultilevelStats stats;
      const std::vector<std::int32_t> part = multilevel_partition(
          space, graph, k, cap, multilevel_options(metis, options.progress), &stats);
      for (Id v = 0; v < n; ++v)
        key(v) = part[v];
      result.metis_cut = count_edge_cut(space, graph, key);
      result.path = "multilevel";
      result.coarse_levels = stats.levels;
    } else {
      const MetisResult r = metis_partition(space, graph, k, metis);
      for (Id v = 0; v < n; ++v)
        key(v) = r.part(v);
      result.metis_cut = r.edge_cut;
      result.sparsified = r.sparsified;
      result.arcs_dropped = r.arcs_dropped;
      result.path = "direct";
    }
    n2o = sort_by_key(key, std::min<Id>(k, std::max<Id>(n, 1))); // k >= n: part(v) = v < n
    result.metis_parts = k;
    break;
  }
  case OrderMethod::metis_hier: {
    const bool by_size = options.multilevel_min_nodes >= 0 && n > options.multilevel_min_nodes;
    if (by_size || exceeds_metis_arcs(space, graph, metis)) {
      MultilevelStats stats;
      result.old_to_row = multilevel_order(space, graph, result.n_factors,
                                           multilevel_options(metis, options.progress), &stats);
      result.spilled = stats.spilled;
      result.path = "multilevel";
      result.coarse_levels = stats.levels;
    } else {
      const HierarchicalPartition h = hierarchical_partition(space, graph, result.n_factors, metis);
      result.old_to_row = h.old_to_row;
      result.spilled = h.spilled;
      result.sparsified = h.sparsified;
      result.arcs_dropped = h.arcs_dropped;
      result.path = "direct";
    }
    result.permutation = Permutation::from_new_to_old(sort_by_row(result.old_to_row));
    break;
  }
  case OrderMethod::rcm:
    n2o = boost_reverse_cuthill_mckee(graph); // graph/boost_adapter.hpp
    break;
  case OrderMethod::lp_hier: {
    LabelPropagationOrder lp =
        label_propagation_order(graph, result.n_factors, options.seed, options.lp_sweeps);
    result.old_to_row = lp.old_to_row;
    result.permutation = Permutation::from_new_to_old(lp.new_to_old); // already in row order
    result.lp_clusters = lp.clusters;
    result.lp_sweeps = lp.sweeps;
    break;
  }
  }
  const bool holes = is_hierarchical(options.method);
  if (!holes && options.method != OrderMethod::original)
    result.permutation = Permutation::from_new_to_old(n2o); // validates the bijection
  if (!holes && !result.implicit_identity)
    result.old_to_row = result.permutation.old_to_new;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

#define TTGNN_INSTANTIATE_ORDERING(SPACE, ORDINAL)                                                 \
  template NodeOrdering compute_ordering<SPACE, ORDINAL>(                                          \
      SPACE const &, CsrGraph<ORDINAL, Kokkos::HostSpace> const &, OrderingOptions const &);
#define TTGNN_INSTANTIATE_ORDERING_SPACE(SPACE)                                                    \
  TTGNN_INSTANTIATE_ORDERING(SPACE, std::int32_t)                                                  \
  TTGNN_INSTANTIATE_ORDERING(SPACE, std::int64_t)

TTGNN_INSTANTIATE_FOR_EACH_HOST_SPACE(TTGNN_INSTANTIATE_ORDERING_SPACE)

} // namespace ttgnn
