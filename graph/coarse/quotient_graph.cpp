#include "graph/coarse/quotient_graph.hpp"

#include "core/detail/instantiate.hpp"
#include "core/error.hpp"

#include <Kokkos_Profiling_ScopedRegion.hpp>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

namespace ttgnn {
namespace {

using Id = std::int64_t;

/// The groups adjacent to group g, sorted and unique, into \p out (reused storage).
template <class Ordinal>
void neighbour_groups(CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                      Kokkos::View<const Id *, Kokkos::HostSpace> group,
                      Kokkos::View<const Id *, Kokkos::HostSpace> first,
                      Kokkos::View<const Id *, Kokkos::HostSpace> members, Id g,
                      std::vector<Id> &out) {
  out.clear();
  for (Id m = first(g); m < first(g + 1); ++m) {
    const Id v = members(m);
    for (Id k = graph.row_map(v); k < graph.row_map(v + 1); ++k) {
      const Id h = group(graph.entries(k));
      if (h != g)
        out.push_back(h);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

} // namespace

template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only>
CsrGraph<Ordinal, Kokkos::HostSpace>
quotient_graph(ExecutionSpace const &space, CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
               Kokkos::View<const Id *, Kokkos::HostSpace> group, Id num_groups) {
  Kokkos::Profiling::ScopedRegion region("ttgnn::coarse::quotient_graph");
  const Id n = graph.num_nodes();
  if (static_cast<Id>(group.extent(0)) != n)
    throw ConfigError("quotient_graph: " + std::to_string(group.extent(0)) + " group ids for " +
                      std::to_string(n) + " nodes");
  if (num_groups < 0 || num_groups > static_cast<Id>(std::numeric_limits<Ordinal>::max()))
    throw ConfigError("quotient_graph: " + std::to_string(num_groups) +
                      " groups do not fit the graph's node id type");
  // Members by group (counting sort, stable: members in increasing node id).
  Kokkos::View<Id *, Kokkos::HostSpace> first("ttgnn::coarse::group_first", num_groups + 1);
  for (Id v = 0; v < n; ++v) {
    const Id g = group(v);
    if (g < 0 || g >= num_groups)
      throw ConfigError("quotient_graph: node " + std::to_string(v) + " has group " +
                        std::to_string(g) + ", outside [0, " + std::to_string(num_groups) + ")");
    ++first(g + 1);
  }
  for (Id g = 0; g < num_groups; ++g)
    first(g + 1) += first(g);
  Kokkos::View<Id *, Kokkos::HostSpace> members(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::coarse::members"), n);
  {
    std::vector<Id> next(first.data(), first.data() + num_groups);
    for (Id v = 0; v < n; ++v)
      members(next[group(v)]++) = v;
  }
  // Two passes over the groups in parallel (count, then fill); each group's list is the same
  // whichever thread builds it.
  CsrGraph<Ordinal, Kokkos::HostSpace> q;
  q.row_map = Kokkos::View<Id *, Kokkos::HostSpace>("ttgnn::coarse::row_map", num_groups + 1);
  auto row_map = q.row_map;
  Kokkos::View<const Id *, Kokkos::HostSpace> cfirst = first, cmembers = members;
  using Policy =
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>, Kokkos::IndexType<Id>>;
  Kokkos::parallel_for("ttgnn::coarse::count", Policy(space, 0, num_groups), [=](Id g) {
    thread_local std::vector<Id> adj;
    neighbour_groups(graph, group, cfirst, cmembers, g, adj);
    row_map(g + 1) = static_cast<Id>(adj.size());
  });
  space.fence();
  for (Id g = 0; g < num_groups; ++g)
    row_map(g + 1) += row_map(g);
  q.entries = Kokkos::View<Ordinal *, Kokkos::HostSpace>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::coarse::entries"),
      row_map(num_groups));
  auto entries = q.entries;
  Kokkos::parallel_for("ttgnn::coarse::fill", Policy(space, 0, num_groups), [=](Id g) {
    thread_local std::vector<Id> adj;
    neighbour_groups(graph, group, cfirst, cmembers, g, adj);
    for (std::size_t i = 0; i < adj.size(); ++i)
      entries(row_map(g) + static_cast<Id>(i)) = static_cast<Ordinal>(adj[i]);
  });
  space.fence();
  return q;
}

#define TTGNN_INSTANTIATE_QUOTIENT(SPACE, ORDINAL)                                                 \
  template CsrGraph<ORDINAL, Kokkos::HostSpace> quotient_graph<SPACE, ORDINAL>(                    \
      SPACE const &, CsrGraph<ORDINAL, Kokkos::HostSpace> const &,                                 \
      Kokkos::View<const std::int64_t *, Kokkos::HostSpace>, std::int64_t);
#define TTGNN_INSTANTIATE_QUOTIENT_SPACE(SPACE)                                                    \
  TTGNN_INSTANTIATE_QUOTIENT(SPACE, std::int32_t)                                                  \
  TTGNN_INSTANTIATE_QUOTIENT(SPACE, std::int64_t)

TTGNN_INSTANTIATE_FOR_EACH_HOST_SPACE(TTGNN_INSTANTIATE_QUOTIENT_SPACE)

} // namespace ttgnn
