#include "graph/coarse/quotient_graph.hpp"

#include "core/detail/instantiate.hpp"
#include "core/error.hpp"
#include "graph/detail/group_members.hpp"

#include <Kokkos_Profiling_ScopedRegion.hpp>

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace ttgnn {
namespace {

using Id = std::int64_t;

/// The groups adjacent to group g, sorted and unique, into \p out (reused storage); with
/// keep > 0 only its keep heaviest (most arcs from g's members; ties: smaller group id), still
/// sorted. \p weighted is scratch storage. Empty \p members: group g holds the ids first(g) ..
/// first(g + 1) - 1.
template <class Ordinal>
void neighbour_groups(CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                      Kokkos::View<const Id *, Kokkos::HostSpace> group,
                      Kokkos::View<const Id *, Kokkos::HostSpace> first,
                      Kokkos::View<const Id *, Kokkos::HostSpace> members, Id g, Id keep,
                      std::vector<Id> &out, std::vector<std::pair<Id, Id>> &weighted) {
  out.clear();
  for (Id m = first(g); m < first(g + 1); ++m) {
    const Id v = members.extent(0) == 0 ? m : members(m);
    for (Id k = graph.row_map(v); k < graph.row_map(v + 1); ++k) {
      const Id h = group(graph.entries(k));
      if (h != g)
        out.push_back(h);
    }
  }
  std::sort(out.begin(), out.end());
  if (keep <= 0) {
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return;
  }
  // (-arcs, group) per neighbour group: the heaviest first, ties by group id.
  weighted.clear();
  for (std::size_t i = 0; i < out.size();) {
    std::size_t j = i;
    while (j < out.size() && out[j] == out[i])
      ++j;
    weighted.emplace_back(-static_cast<Id>(j - i), out[i]);
    i = j;
  }
  out.clear();
  if (static_cast<Id>(weighted.size()) > keep) {
    std::nth_element(weighted.begin(), weighted.begin() + keep, weighted.end());
    weighted.resize(static_cast<std::size_t>(keep));
  }
  for (auto const &w : weighted)
    out.push_back(w.second);
  std::sort(out.begin(), out.end());
}

/// Union of two sorted, unique lists into \p out (cleared first).
void merge_unique(Id const *a, Id na, Id const *b, Id nb, std::vector<Id> &out) {
  out.clear();
  Id i = 0, j = 0;
  while (i < na || j < nb) {
    if (j == nb || (i < na && a[i] < b[j]))
      out.push_back(a[i++]);
    else if (i == na || b[j] < a[i])
      out.push_back(b[j++]);
    else {
      out.push_back(a[i++]);
      ++j;
    }
  }
}

/// Rows 0..num_groups-1 of \p q from \p rows(g, out), which writes row g (sorted, unique) into
/// out: a count pass, the offsets, then a fill pass, both in parallel over the rows (a row is the
/// same whichever thread builds it).
template <class Policy, class Ordinal, class Rows>
void fill_rows(Policy const &policy, Id num_groups, CsrGraph<Ordinal, Kokkos::HostSpace> &q,
               Rows const &rows) {
  auto row_map = q.row_map;
  Kokkos::parallel_for("ttgnn::coarse::count", policy, [=](Id g) {
    thread_local std::vector<Id> adj;
    rows(g, adj);
    row_map(g + 1) = static_cast<Id>(adj.size());
  });
  policy.space().fence();
  for (Id g = 0; g < num_groups; ++g)
    row_map(g + 1) += row_map(g);
  q.entries = Kokkos::View<Ordinal *, Kokkos::HostSpace>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::coarse::entries"),
      row_map(num_groups));
  auto entries = q.entries;
  Kokkos::parallel_for("ttgnn::coarse::fill", policy, [=](Id g) {
    thread_local std::vector<Id> adj;
    rows(g, adj);
    for (std::size_t i = 0; i < adj.size(); ++i)
      entries(row_map(g) + static_cast<Id>(i)) = static_cast<Ordinal>(adj[i]);
  });
  policy.space().fence();
}

} // namespace

template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only>
CsrGraph<Ordinal, Kokkos::HostSpace>
quotient_graph(ExecutionSpace const &space, CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
               Kokkos::View<const Id *, Kokkos::HostSpace> group, Id num_groups,
               Id max_neighbours) {
  Kokkos::Profiling::ScopedRegion region("ttgnn::coarse::quotient_graph");
  const Id n = graph.num_nodes();
  if (static_cast<Id>(group.extent(0)) != n)
    throw ConfigError("quotient_graph: " + std::to_string(group.extent(0)) + " group ids for " +
                      std::to_string(n) + " nodes");
  if (num_groups < 0 || num_groups > static_cast<Id>(std::numeric_limits<Ordinal>::max()))
    throw ConfigError("quotient_graph: " + std::to_string(num_groups) +
                      " groups do not fit the graph's node id type");
  if (max_neighbours < 0)
    throw ConfigError("quotient_graph: max_neighbours must be >= 0 (0: all), got " +
                      std::to_string(max_neighbours));
  bool ascending = true;
  for (Id v = 0; v < n; ++v) {
    if (group(v) < 0 || group(v) >= num_groups)
      throw ConfigError("quotient_graph: node " + std::to_string(v) + " has group " +
                        std::to_string(group(v)) + ", outside [0, " + std::to_string(num_groups) +
                        ")");
    ascending = ascending && (v == 0 || group(v - 1) <= group(v));
  }
  // Members by group, in increasing id; groups in ascending node order (a graph relabelled by
  // its TT rows) are ranges of ids, members empty.
  Kokkos::View<Id *, Kokkos::HostSpace> first, members;
  auto of = [&](Id v) { return group(v); };
  if (ascending)
    first = detail::group_starts(n, num_groups, of);
  else
    detail::group_members(n, num_groups, of, first, members);
  using Policy =
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>, Kokkos::IndexType<Id>>;
  Kokkos::View<const Id *, Kokkos::HostSpace> cfirst = first, cmembers = members;
  CsrGraph<Ordinal, Kokkos::HostSpace> q;
  q.row_map = Kokkos::View<Id *, Kokkos::HostSpace>("ttgnn::coarse::row_map", num_groups + 1);
  const Policy policy(space, 0, num_groups);
  // A keep of at least num_groups - 1 keeps every neighbour group: the full quotient.
  if (max_neighbours == 0 || max_neighbours >= num_groups - 1) {
    fill_rows(policy, num_groups, q, [=](Id g, std::vector<Id> &out) {
      thread_local std::vector<std::pair<Id, Id>> scratch;
      neighbour_groups(graph, group, cfirst, cmembers, g, Id(0), out, scratch);
    });
    return q;
  }
  // Sparsified: each group's kept neighbours (at most max_neighbours, sorted) in a fixed-stride
  // table, in parallel; then the reverse arcs (a counting sort in group order, so each group's
  // list is sorted) and, per group, the union of both lists.
  const Id keep = max_neighbours;
  Kokkos::View<Id *, Kokkos::HostSpace> kept(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::coarse::kept"), num_groups * keep);
  Kokkos::View<Id *, Kokkos::HostSpace> kept_n("ttgnn::coarse::kept_n", num_groups);
  Kokkos::parallel_for("ttgnn::coarse::keep", policy, [=](Id g) {
    thread_local std::vector<Id> adj;
    thread_local std::vector<std::pair<Id, Id>> scratch;
    neighbour_groups(graph, group, cfirst, cmembers, g, keep, adj, scratch);
    kept_n(g) = static_cast<Id>(adj.size());
    for (std::size_t i = 0; i < adj.size(); ++i)
      kept(g * keep + static_cast<Id>(i)) = adj[i];
  });
  space.fence();
  Kokkos::View<Id *, Kokkos::HostSpace> rfirst("ttgnn::coarse::reverse_first", num_groups + 1);
  for (Id g = 0; g < num_groups; ++g)
    for (Id i = 0; i < kept_n(g); ++i)
      ++rfirst(kept(g * keep + i) + 1);
  for (Id g = 0; g < num_groups; ++g)
    rfirst(g + 1) += rfirst(g);
  Kokkos::View<Id *, Kokkos::HostSpace> reverse(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::coarse::reverse"),
      rfirst(num_groups));
  {
    std::vector<Id> next(rfirst.data(), rfirst.data() + num_groups);
    for (Id g = 0; g < num_groups; ++g)
      for (Id i = 0; i < kept_n(g); ++i)
        reverse(next[kept(g * keep + i)]++) = g;
  }
  Kokkos::View<const Id *, Kokkos::HostSpace> ckept = kept, ckept_n = kept_n, crfirst = rfirst,
                                              creverse = reverse;
  fill_rows(policy, num_groups, q, [=](Id g, std::vector<Id> &out) {
    merge_unique(ckept.data() + g * keep, ckept_n(g), creverse.data() + crfirst(g),
                 crfirst(g + 1) - crfirst(g), out);
  });
  return q;
}

#define TTGNN_INSTANTIATE_QUOTIENT(SPACE, ORDINAL)                                                 \
  template CsrGraph<ORDINAL, Kokkos::HostSpace> quotient_graph<SPACE, ORDINAL>(                    \
      SPACE const &, CsrGraph<ORDINAL, Kokkos::HostSpace> const &,                                 \
      Kokkos::View<const std::int64_t *, Kokkos::HostSpace>, std::int64_t, std::int64_t);
#define TTGNN_INSTANTIATE_QUOTIENT_SPACE(SPACE)                                                    \
  TTGNN_INSTANTIATE_QUOTIENT(SPACE, std::int32_t)                                                  \
  TTGNN_INSTANTIATE_QUOTIENT(SPACE, std::int64_t)

TTGNN_INSTANTIATE_FOR_EACH_HOST_SPACE(TTGNN_INSTANTIATE_QUOTIENT_SPACE)

} // namespace ttgnn
