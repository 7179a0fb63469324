#include "graph/order/hierarchical_partition.hpp"

#include "core/detail/instantiate.hpp"
#include "core/error.hpp"
#include "core/tt/tt_shape.hpp"

#include <Kokkos_Profiling_ScopedRegion.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

namespace ttgnn {

namespace {

using Id = std::int64_t;

// Product of n, or -1 on int64 overflow.
Id checked_product(std::vector<Id> const &n) {
  Id p = 1;
  for (Id f : n) {
    if (f > 0 && p > std::numeric_limits<Id>::max() / f)
      return -1;
    p *= f;
  }
  return p;
}

// Nodes of the groups of one level: group g is nodes[offsets[g] .. offsets[g+1]), ascending.
struct Groups {
  std::vector<Id> nodes, offsets;
  Id size(Id g) const { return offsets[g + 1] - offsets[g]; }
  Id count() const { return static_cast<Id>(offsets.size()) - 1; }
};

// Subgraph induced by group g, local ids = positions in the group (ascending old ids keep rows
// sorted). group_of/local_of describe the current level.
template <class Ordinal>
CsrGraph<std::int32_t, Kokkos::HostSpace>
induced_subgraph(CsrGraph<Ordinal, Kokkos::HostSpace> const &g, Groups const &groups, Id group,
                 std::vector<Id> const &group_of, std::vector<std::int32_t> const &local_of) {
  const Id s = groups.size(group);
  const Id *nodes = groups.nodes.data() + groups.offsets[group];
  CsrGraph<std::int32_t, Kokkos::HostSpace> sub;
  sub.row_map = decltype(sub.row_map)("ttgnn::hierarchical::sub_row_map", s + 1);
  for (Id i = 0; i < s; ++i) {
    const Id u = nodes[i];
    Id deg = 0;
    for (Id a = g.row_map(u); a < g.row_map(u + 1); ++a)
      deg += g.entries(a) != u && group_of[g.entries(a)] == group;
    sub.row_map(i + 1) = sub.row_map(i) + deg;
  }
  sub.entries = decltype(sub.entries)(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::hierarchical::sub_entries"),
      sub.row_map(s));
  Id k = 0;
  for (Id i = 0; i < s; ++i) {
    const Id u = nodes[i];
    for (Id a = g.row_map(u); a < g.row_map(u + 1); ++a) {
      const Id w = g.entries(a);
      if (w != u && group_of[w] == group)
        sub.entries(k++) = local_of[w];
    }
  }
  return sub;
}

// Better target for a spilled node: more shared edges, then less loaded, then nearer index.
struct TargetRank {
  Id edges, load, distance, index;
  bool better_than(TargetRank const &o) const {
    if (edges != o.edges)
      return edges > o.edges;
    if (load != o.load)
      return load < o.load;
    if (distance != o.distance)
      return distance < o.distance;
    return index < o.index;
  }
};

} // namespace

std::vector<std::int64_t> default_n_factors(std::int64_t num_nodes, int num_cores, double slack) {
  if (num_cores < 2 || num_cores > 4)
    throw ConfigError("TT shapes have 2 to 4 cores (got " + std::to_string(num_cores) + ")");
  if (!(slack >= 1.0) || !std::isfinite(slack))
    throw ConfigError("row-factor slack must be >= 1 (got " + std::to_string(slack) + ")");
  if (num_nodes < 0)
    throw ConfigError("number of nodes must be >= 0");
  const Id target = std::max<Id>(1, static_cast<Id>(std::ceil(slack * num_nodes)));
  std::vector<Id> n(num_cores,
                    std::max<Id>(1, static_cast<Id>(std::ceil(std::pow(target, 1.0 / num_cores)))));
  while (checked_product(n) >= 0 && checked_product(n) < target)
    for (auto &f : n)
      ++f;
  // Take 1 off the first largest factor while the product stays >= target: balanced and
  // non-decreasing.
  for (;;) {
    const auto it = std::max_element(n.begin(), n.end());
    if (*it == 1)
      break;
    --*it;
    if (checked_product(n) < target) {
      ++*it;
      break;
    }
  }
  std::sort(n.begin(), n.end());
  return n;
}

namespace {

// Nodes of each part, ascending: part q owns members[start[q] .. start[q+1]).
struct PartMembers {
  std::vector<Id> start, members;
};

PartMembers part_members(std::vector<std::int32_t> const &part, std::vector<Id> const &sizes) {
  const Id n = static_cast<Id>(part.size()), p = static_cast<Id>(sizes.size());
  PartMembers pm;
  pm.start.assign(p + 1, 0);
  pm.members.resize(n);
  for (Id q = 0; q < p; ++q)
    pm.start[q + 1] = pm.start[q] + sizes[q];
  std::vector<Id> fill(pm.start.begin(), pm.start.end() - 1);
  for (Id v = 0; v < n; ++v)
    pm.members[fill[part[v]]++] = v;
  return pm;
}

// The nodes of one overfull part that may leave it, each with its links (part, edges) to
// other parts, links[link_begin .. link_end); score = best link to a part with room minus
// edges kept inside the part. part_conn[q]: edges from the whole part to part q.
struct SpillCandidates {
  struct Cand {
    Id v, score, link_begin, link_end;
  };
  std::vector<Cand> cands;
  std::vector<std::pair<std::int32_t, Id>> links;
  std::vector<Id> part_conn;
};

// Candidates of part `big` in descending score (ties: smaller node id). conn is scratch of
// num_parts zeros, left zero.
template <class Ordinal>
void spill_candidates(CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                      std::vector<std::int32_t> const &part, PartMembers const &pm, Id big,
                      std::vector<Id> const &sizes, Id capacity, std::vector<Id> &conn,
                      SpillCandidates &sc) {
  std::vector<std::int32_t> touched;
  sc.cands.clear();
  sc.links.clear();
  std::fill(sc.part_conn.begin(), sc.part_conn.end(), 0);
  for (Id m = pm.start[big]; m < pm.start[big + 1]; ++m) {
    const Id v = pm.members[m];
    Id inside = 0;
    touched.clear();
    for (Id a = graph.row_map(v); a < graph.row_map(v + 1); ++a) {
      const Id w = graph.entries(a);
      if (w == v)
        continue;
      const std::int32_t q = part[w];
      if (q == big) {
        ++inside;
      } else {
        if (conn[q]++ == 0)
          touched.push_back(q);
      }
    }
    Id best = 0;
    const Id begin = static_cast<Id>(sc.links.size());
    for (std::int32_t q : touched) {
      if (sizes[q] < capacity)
        best = std::max(best, conn[q]);
      sc.part_conn[q] += conn[q];
      sc.links.emplace_back(q, conn[q]);
      conn[q] = 0;
    }
    sc.cands.push_back({v, best - inside, begin, static_cast<Id>(sc.links.size())});
  }
  using Cand = SpillCandidates::Cand;
  std::sort(sc.cands.begin(), sc.cands.end(), [](Cand const &a, Cand const &b) {
    return a.score != b.score ? a.score > b.score : a.v < b.v;
  });
}

// Where candidate c of part `big` goes (rule in the header): the best-ranked part with room
// among its own links, else among the whole part's links, else among all parts.
Id spill_target(SpillCandidates const &sc, std::size_t c, Id big, std::vector<Id> const &sizes,
                Id capacity) {
  const Id p = static_cast<Id>(sizes.size());
  Id target = -1;
  TargetRank best{};
  auto consider = [&](Id q, Id edges) {
    if (q == big || sizes[q] >= capacity)
      return;
    const TargetRank r{edges, sizes[q], q > big ? q - big : big - q, q};
    if (target < 0 || r.better_than(best)) {
      target = q;
      best = r;
    }
  };
  for (Id l = sc.cands[c].link_begin; l < sc.cands[c].link_end; ++l)
    consider(sc.links[l].first, sc.links[l].second);
  if (target < 0) // no edge into a part with room: follow the part's own edges
    for (Id q = 0; q < p; ++q)
      if (sc.part_conn[q] > 0)
        consider(q, sc.part_conn[q]);
  if (target < 0)
    for (Id q = 0; q < p; ++q)
      consider(q, 0);
  return target;
}

} // namespace

template <class Ordinal>
std::int64_t spill_overfull_parts(CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                                  std::vector<std::int32_t> &part, std::int64_t num_parts,
                                  std::int64_t capacity) {
  const Id n = graph.num_nodes(), p = num_parts;
  if (static_cast<Id>(part.size()) != n)
    throw ConfigError("spill_overfull_parts: part has " + std::to_string(part.size()) +
                      " entries for " + std::to_string(n) + " nodes");
  if (capacity < 0 || (capacity > 0 && p > std::numeric_limits<Id>::max() / capacity) ||
      n > p * capacity)
    throw ConfigError("spill_overfull_parts: " + std::to_string(n) + " nodes do not fit in " +
                      std::to_string(p) + " parts of " + std::to_string(capacity));
  std::vector<Id> sizes(p, 0);
  for (Id v = 0; v < n; ++v)
    ++sizes[part[v]];
  if (std::all_of(sizes.begin(), sizes.end(), [&](Id s) { return s <= capacity; }))
    return 0;
  const PartMembers pm = part_members(part, sizes);
  std::vector<Id> conn(p, 0);
  SpillCandidates sc;
  sc.part_conn.assign(p, 0);
  Id moved = 0;
  for (Id big = 0; big < p; ++big) {
    if (sizes[big] <= capacity)
      continue;
    Id excess = sizes[big] - capacity;
    spill_candidates(graph, part, pm, big, sizes, capacity, conn, sc);
    for (std::size_t c = 0; c < sc.cands.size() && excess > 0; ++c) {
      const Id target = spill_target(sc, c, big, sizes, capacity);
      part[sc.cands[c].v] = static_cast<std::int32_t>(target);
      ++sizes[target];
      --sizes[big];
      --excess;
      ++moved;
    }
  }
  return moved;
}

namespace {

// capacity[l]: rows under one level-(l+1) part = n_{l+2}·...·n_K.
std::vector<Id> level_capacities(std::vector<Id> const &n_factors) {
  const int num_cores = static_cast<int>(n_factors.size());
  std::vector<Id> capacity(num_cores, 1);
  for (int l = num_cores - 2; l >= 0; --l)
    capacity[l] = capacity[l + 1] * n_factors[l + 1];
  return capacity;
}

// group_of[v]: v's group; local_of[v]: v's position in it.
void index_groups(Groups const &groups, std::vector<Id> &group_of,
                  std::vector<std::int32_t> &local_of) {
  for (Id g = 0; g < groups.count(); ++g)
    for (Id i = groups.offsets[g]; i < groups.offsets[g + 1]; ++i) {
      group_of[groups.nodes[i]] = g;
      local_of[groups.nodes[i]] = static_cast<std::int32_t>(i - groups.offsets[g]);
    }
}

// Rows of the last level: group g is the prefix (p_1, ..., p_{K-1}) in mixed radix, its nodes
// the last digit in order.
Kokkos::View<std::int64_t *, Kokkos::HostSpace> rows_of_groups(Groups const &groups, Id n,
                                                               Id last) {
  Kokkos::View<std::int64_t *, Kokkos::HostSpace> old_to_row(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::hierarchical::old_to_row"), n);
  for (Id g = 0; g < groups.count(); ++g)
    for (Id i = groups.offsets[g]; i < groups.offsets[g + 1]; ++i)
      old_to_row(groups.nodes[i]) = g * last + (i - groups.offsets[g]);
  return old_to_row;
}

// Appends group g's nodes to next, bucketed by part (next groups g·p .. g·p + p-1), keeping
// ascending old ids.
void bucket_by_part(Groups const &groups, Id g, std::vector<std::int32_t> const &part, Id p,
                    Groups &next) {
  const Id s = groups.size(g), base = g * p;
  std::vector<Id> count(p, 0);
  for (Id i = 0; i < s; ++i)
    ++count[part[i]];
  for (Id q = 0; q < p; ++q)
    next.offsets[base + q + 1] = next.offsets[base + q] + count[q];
  std::vector<Id> fill(p);
  for (Id q = 0; q < p; ++q)
    fill[q] = next.offsets[base + q];
  for (Id i = 0; i < s; ++i)
    next.nodes[fill[part[i]]++] = groups.nodes[groups.offsets[g] + i];
}

// One split of a level.
struct SplitLevel {
  int level;       // 0 = the whole graph
  Id parts, cap;   // parts per group, nodes per part
  int levels_left; // levels still to split, this one included
};

// The METIS parts of group g (local ids) with every overfull part spilled (counted in
// result.spilled[level]); the group is the whole graph at level 0, else its induced subgraph.
template <class ExecutionSpace, class Ordinal>
std::vector<std::int32_t>
partition_group(ExecutionSpace const &space, CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                Groups const &groups, Id g, std::vector<Id> const &group_of,
                std::vector<std::int32_t> const &local_of, SplitLevel const &split,
                MetisOptions const &options, HierarchicalPartition &result) {
  const Id s = groups.size(g), p = split.parts, cap = split.cap;
  std::vector<std::int32_t> part(s, 0);
  if (s == 0 || p <= 1)
    return part;
  MetisOptions opts = options;
  const double share = std::pow(static_cast<double>(p * cap) / s, 1.0 / split.levels_left);
  opts.imbalance_permille = static_cast<int>(std::clamp<double>(
      std::floor(1000.0 * (share - 1.0)), 1.0, std::max(1, options.imbalance_permille)));
  MetisResult r;
  if (split.level == 0) {
    r = metis_partition(space, graph, p, opts);
    for (Id v = 0; v < s; ++v)
      part[v] = r.part(v);
    result.spilled[split.level] += spill_overfull_parts(graph, part, p, cap);
  } else {
    if (s > std::numeric_limits<std::int32_t>::max())
      throw ConfigError("hierarchical partition: a part of " + std::to_string(s) +
                        " nodes is too large for a 32-bit subgraph");
    opts.check_symmetric = false; // induced subgraphs of a symmetric graph are symmetric
    auto sub = induced_subgraph(graph, groups, g, group_of, local_of);
#ifdef KOKKOS_ENABLE_SERIAL
    // A parallel launch costs more than converting a small subgraph (thousands of calls).
    if (sub.num_arcs() < (Id(1) << 20))
      r = metis_partition(Kokkos::Serial(), sub, p, opts);
    else
#endif
      r = metis_partition(space, sub, p, opts);
    for (Id v = 0; v < s; ++v)
      part[v] = r.part(v);
    result.spilled[split.level] += spill_overfull_parts(sub, part, p, cap);
  }
  result.metis_calls += r.called_metis;
  result.sparsified = result.sparsified || r.sparsified;
  result.arcs_dropped += r.arcs_dropped;
  return part;
}

} // namespace

template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only>
HierarchicalPartition hierarchical_partition(ExecutionSpace const &space,
                                             CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                                             std::vector<std::int64_t> const &n_factors,
                                             MetisOptions const &options) {
  Kokkos::Profiling::ScopedRegion region("ttgnn::hierarchical::partition");
  const Id n = graph.num_nodes();
  const int num_cores = static_cast<int>(n_factors.size());
  check_row_factors(n_factors, n, "hierarchical partition", 2);
  const std::vector<Id> capacity = level_capacities(n_factors);

  HierarchicalPartition result;
  result.n_factors = n_factors;
  result.spilled.assign(num_cores - 1, 0);
  Groups groups;
  groups.nodes.resize(n);
  for (Id v = 0; v < n; ++v)
    groups.nodes[v] = v;
  groups.offsets = {0, n};
  std::vector<Id> group_of(n, 0);
  std::vector<std::int32_t> local_of(n, 0);

  for (int level = 0; level + 1 < num_cores; ++level) {
    Kokkos::Profiling::ScopedRegion level_region("ttgnn::hierarchical::level");
    const SplitLevel split{level, n_factors[level], capacity[level], num_cores - 1 - level};
    if (level > 0)
      index_groups(groups, group_of, local_of);
    Groups next;
    next.nodes.resize(n);
    next.offsets.assign(groups.count() * split.parts + 1, 0);
    for (Id g = 0; g < groups.count(); ++g) {
      const std::vector<std::int32_t> part =
          partition_group(space, graph, groups, g, group_of, local_of, split, options, result);
      bucket_by_part(groups, g, part, split.parts, next);
    }
    groups = std::move(next);
  }
  result.old_to_row = rows_of_groups(groups, n, n_factors.back());
  return result;
}

#define TTGNN_INSTANTIATE_HIER(SPACE, ORDINAL)                                                     \
  template HierarchicalPartition hierarchical_partition<SPACE, ORDINAL>(                           \
      SPACE const &, CsrGraph<ORDINAL, Kokkos::HostSpace> const &,                                 \
      std::vector<std::int64_t> const &, MetisOptions const &);
#define TTGNN_INSTANTIATE_HIER_SPACE(SPACE)                                                        \
  TTGNN_INSTANTIATE_HIER(SPACE, std::int32_t)                                                      \
  TTGNN_INSTANTIATE_HIER(SPACE, std::int64_t)

template std::int64_t
spill_overfull_parts<std::int32_t>(CsrGraph<std::int32_t, Kokkos::HostSpace> const &,
                                   std::vector<std::int32_t> &, std::int64_t, std::int64_t);
template std::int64_t
spill_overfull_parts<std::int64_t>(CsrGraph<std::int64_t, Kokkos::HostSpace> const &,
                                   std::vector<std::int32_t> &, std::int64_t, std::int64_t);

TTGNN_INSTANTIATE_FOR_EACH_HOST_SPACE(TTGNN_INSTANTIATE_HIER_SPACE)

} // namespace ttgnn
