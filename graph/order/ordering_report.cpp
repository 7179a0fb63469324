#include "graph/order/ordering_report.hpp"

#include "core/detail/instantiate.hpp"
#include "core/error.hpp"
#include "core/io/json_writer.hpp"
#include "graph/csr_build.hpp"

#include <algorithm>
#include <cstdio>

namespace ttgnn {

namespace {

using Id = std::int64_t;

// divisor[l] = n_{l+1}·...·n_K: rows per level-l slot (divisor[0] = all rows).
std::vector<Id> slot_sizes(std::vector<Id> const &n) {
  std::vector<Id> d(n.size() + 1, 1);
  for (int l = static_cast<int>(n.size()) - 1; l >= 0; --l)
    d[l] = d[l + 1] * n[l];
  return d;
}

std::string format_double(double v, char const *fmt) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

} // namespace

template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only>
std::vector<std::int64_t>
count_shared_prefix_edges(ExecutionSpace const &space,
                          CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                          Kokkos::View<std::int64_t *, Kokkos::HostSpace> old_to_row,
                          std::vector<std::int64_t> const &n_factors) {
  if (static_cast<Id>(old_to_row.extent(0)) != graph.num_nodes())
    throw ConfigError("ordering report: " + std::to_string(old_to_row.extent(0)) + " row ids for " +
                      std::to_string(graph.num_nodes()) + " nodes");
  const auto div = slot_sizes(n_factors);
  std::vector<Id> shared;
  auto row_map = graph.row_map;
  auto entries = graph.entries;
  for (std::size_t l = 1; l < n_factors.size(); ++l) {
    const Id slot = div[l];
    Id count = 0;
    Kokkos::parallel_reduce(
        "ttgnn::ordering_report::shared_prefix",
        Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Id>>(space, 0, graph.num_nodes()),
        KOKKOS_LAMBDA(Id u, Id & sum) {
          const Id su = old_to_row(u) / slot;
          for (Id a = row_map(u); a < row_map(u + 1); ++a) {
            const Id v = entries(a);
            sum += u < v && old_to_row(v) / slot == su;
          }
        },
        count);
    shared.push_back(count);
  }
  return shared;
}

std::vector<SlotOccupancy>
slot_occupancy(Kokkos::View<std::int64_t *, Kokkos::HostSpace> old_to_row,
               std::vector<std::int64_t> const &n_factors) {
  const auto div = slot_sizes(n_factors);
  const Id n = static_cast<Id>(old_to_row.extent(0));
  std::vector<SlotOccupancy> out;
  for (std::size_t l = 1; l < n_factors.size(); ++l) {
    SlotOccupancy occ;
    occ.level = static_cast<int>(l);
    occ.capacity = div[l];
    occ.num_slots = div[0] / div[l];
    std::vector<Id> fill(occ.num_slots, 0);
    for (Id v = 0; v < n; ++v) {
      const Id r = old_to_row(v);
      if (r < 0 || r >= div[0])
        throw ConfigError("ordering report: row id " + std::to_string(r) + " of node " +
                          std::to_string(v) + " outside [0, " + std::to_string(div[0]) + ")");
      ++fill[r / div[l]];
    }
    occ.min_fill = *std::min_element(fill.begin(), fill.end());
    occ.max_fill = *std::max_element(fill.begin(), fill.end());
    occ.mean_fill = static_cast<double>(n) / occ.num_slots;
    occ.empty_slots = std::count(fill.begin(), fill.end(), Id(0));
    out.push_back(occ);
  }
  return out;
}

template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only>
OrderingReport make_ordering_report(ExecutionSpace const &space,
                                    CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                                    NodeOrdering const &ordering) {
  OrderingReport r;
  r.method = to_string(ordering.method);
  r.n_factors = ordering.n_factors;
  r.num_nodes = graph.num_nodes();
  r.num_rows = ordering.num_rows;
  r.num_edges = (graph.num_arcs() - count_self_loops(space, graph)) / 2;
  r.shared_edges = count_shared_prefix_edges(space, graph, ordering.old_to_row, ordering.n_factors);
  Id previous = r.num_edges;
  for (Id s : r.shared_edges) {
    r.shared_fraction.push_back(r.num_edges > 0 ? static_cast<double>(s) / r.num_edges : 1.0);
    r.edge_cut.push_back(previous - s);
    r.cumulative_cut.push_back(r.num_edges - s);
    previous = s;
  }
  r.occupancy = slot_occupancy(ordering.old_to_row, ordering.n_factors);
  r.spilled = ordering.spilled;
  r.metis_parts = ordering.metis_parts;
  r.metis_cut = ordering.metis_cut;
  r.sparsified = ordering.sparsified;
  r.arcs_dropped = ordering.arcs_dropped;
  r.lp_clusters = ordering.lp_clusters;
  r.lp_sweeps = ordering.lp_sweeps;
  r.path = ordering.path;
  r.coarse_levels = ordering.coarse_levels;
  r.seconds = ordering.seconds;
  return r;
}

std::string OrderingReport::to_json() const {
  JsonWriter j;
  j.field("method", method);
  j.field("n_factors", n_factors);
  j.field("num_nodes", static_cast<long long>(num_nodes));
  j.field("num_edges", static_cast<long long>(num_edges));
  j.field("num_rows", static_cast<long long>(num_rows));
  std::string key = "share_i1";
  for (std::size_t l = 0; l < shared_fraction.size(); ++l) {
    if (l > 0)
      key += "i" + std::to_string(l + 1);
    j.field(key, shared_fraction[l]);
  }
  j.field("shared_edges", shared_edges);
  j.field("edge_cut", edge_cut);
  j.field("cumulative_cut", cumulative_cut);
  std::string occ = "[";
  for (std::size_t l = 0; l < occupancy.size(); ++l) {
    JsonWriter o;
    o.field("level", occupancy[l].level);
    o.field("slots", static_cast<long long>(occupancy[l].num_slots));
    o.field("capacity", static_cast<long long>(occupancy[l].capacity));
    o.field("min", static_cast<long long>(occupancy[l].min_fill));
    o.field("max", static_cast<long long>(occupancy[l].max_fill));
    o.field("mean", occupancy[l].mean_fill);
    o.field("empty", static_cast<long long>(occupancy[l].empty_slots));
    occ += (l ? "," : "") + o.str();
  }
  j.raw("occupancy", occ + "]");
  j.field("spilled", spilled);
  j.field("metis_parts", static_cast<long long>(metis_parts));
  j.field("metis_cut", static_cast<long long>(metis_cut));
  j.field("sparsified", sparsified);
  j.field("arcs_dropped", static_cast<long long>(arcs_dropped));
  j.field("lp_clusters", static_cast<long long>(lp_clusters));
  j.field("lp_sweeps", lp_sweeps);
  j.field("path", path);
  j.field("coarse_levels", coarse_levels);
  j.field("seconds", seconds);
  return j.str();
}

std::string OrderingReport::to_text() const {
  std::string s = "order " + method + ", n = (";
  for (std::size_t i = 0; i < n_factors.size(); ++i)
    s += (i ? "," : "") + std::to_string(n_factors[i]);
  s += "), " + std::to_string(num_nodes) + " nodes, " + std::to_string(num_edges) + " edges, " +
       format_double(seconds, "%.3f") + " s" + (path.empty() ? std::string() : ", path " + path) +
       "\n";
  for (std::size_t l = 0; l < shared_fraction.size(); ++l) {
    s += "  level " + std::to_string(l + 1) + ": edges sharing the first " + std::to_string(l + 1) +
         " digit(s) " + format_double(100.0 * shared_fraction[l], "%.2f") + "%, cut " +
         std::to_string(edge_cut[l]) + " at this level (" + std::to_string(cumulative_cut[l]) +
         " cumulative)";
    if (l < occupancy.size())
      s += ", slots " + std::to_string(occupancy[l].num_slots) + " x " +
           std::to_string(occupancy[l].capacity) + " fill min/mean/max " +
           std::to_string(occupancy[l].min_fill) + "/" +
           format_double(occupancy[l].mean_fill, "%.1f") + "/" +
           std::to_string(occupancy[l].max_fill) + ", empty " +
           std::to_string(occupancy[l].empty_slots);
    if (l < spilled.size())
      s += ", spilled " + std::to_string(spilled[l]);
    s += "\n";
  }
  if (metis_cut >= 0)
    s += "  flat METIS: " + std::to_string(metis_parts) + " parts, cut " +
         std::to_string(metis_cut) + "\n";
  if (sparsified)
    s += "  METIS saw a sparsified graph: " + std::to_string(arcs_dropped) + " arcs dropped\n";
  return s;
}

#define TTGNN_INSTANTIATE_REPORT(SPACE, ORDINAL)                                                   \
  template std::vector<std::int64_t> count_shared_prefix_edges<SPACE, ORDINAL>(                    \
      SPACE const &, CsrGraph<ORDINAL, Kokkos::HostSpace> const &,                                 \
      Kokkos::View<std::int64_t *, Kokkos::HostSpace>, std::vector<std::int64_t> const &);         \
  template OrderingReport make_ordering_report<SPACE, ORDINAL>(                                    \
      SPACE const &, CsrGraph<ORDINAL, Kokkos::HostSpace> const &, NodeOrdering const &);
#define TTGNN_INSTANTIATE_REPORT_SPACE(SPACE)                                                      \
  TTGNN_INSTANTIATE_REPORT(SPACE, std::int32_t)                                                    \
  TTGNN_INSTANTIATE_REPORT(SPACE, std::int64_t)

TTGNN_INSTANTIATE_FOR_EACH_HOST_SPACE(TTGNN_INSTANTIATE_REPORT_SPACE)

} // namespace ttgnn
