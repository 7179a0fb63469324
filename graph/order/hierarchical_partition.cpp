#include "graph/order/hierarchical_partition.hpp"

#include "core/error.hpp"
#include "core/tt/tt_shape.hpp"

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
  // Nodes of each part, ascending.
  std::vector<Id> start(p + 1, 0), members(n);
  for (Id q = 0; q < p; ++q)
    start[q + 1] = start[q] + sizes[q];
  {
    std::vector<Id> fill(start.begin(), start.end() - 1);
    for (Id v = 0; v < n; ++v)
      members[fill[part[v]]++] = v;
  }
  std::vector<Id> conn(p, 0), part_conn(p, 0);
  std::vector<std::int32_t> touched;
  Id moved = 0;
  for (Id big = 0; big < p; ++big) {
    if (sizes[big] <= capacity)
      continue;
    Id excess = sizes[big] - capacity;
    // Candidates with their links (part, edges) to other parts; score = best link to a part with
    // room minus edges kept inside `big`.
    struct Cand {
      Id v, score, link_begin, link_end;
    };
    std::vector<Cand> cands;
    std::vector<std::pair<std::int32_t, Id>> links;
    std::fill(part_conn.begin(), part_conn.end(), 0);
    for (Id m = start[big]; m < start[big + 1]; ++m) {
      const Id v = members[m];
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
      const Id begin = static_cast<Id>(links.size());
      for (std::int32_t q : touched) {
        if (sizes[q] < capacity)
          best = std::max(best, conn[q]);
        part_conn[q] += conn[q];
        links.emplace_back(q, conn[q]);
        conn[q] = 0;
      }
      cands.push_back({v, best - inside, begin, static_cast<Id>(links.size())});
    }
    std::sort(cands.begin(), cands.end(), [](Cand const &a, Cand const &b) {
      return a.score != b.score ? a.score > b.score : a.v < b.v;
    });
    for (std::size_t c = 0; c < cands.size() && excess > 0; ++c) {
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
      for (Id l = cands[c].link_begin; l < cands[c].link_end; ++l)
        consider(links[l].first, links[l].second);
      if (target < 0) // no edge into a part with room: follow the part's own edges
        for (Id q = 0; q < p; ++q)
          if (part_conn[q] > 0)
            consider(q, part_conn[q]);
      if (target < 0)
        for (Id q = 0; q < p; ++q)
          consider(q, 0);
      part[cands[c].v] = static_cast<std::int32_t>(target);
      ++sizes[target];
      --sizes[big];
      --excess;
      ++moved;
    }
  }
  return moved;
}

template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only>
HierarchicalPartition hierarchical_partition(ExecutionSpace const &space,
                                             CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                                             std::vector<std::int64_t> const &n_factors,
                                             MetisOptions const &options) {
  const Id n = graph.num_nodes();
  const int num_cores = static_cast<int>(n_factors.size());
  check_row_factors(n_factors, n, "hierarchical partition", 2);
  // capacity[l]: rows under one level-(l+1) part = n_{l+2}·...·n_K.
  std::vector<Id> capacity(num_cores, 1);
  for (int l = num_cores - 2; l >= 0; --l)
    capacity[l] = capacity[l + 1] * n_factors[l + 1];

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
    const Id p = n_factors[level], cap = capacity[level];
    const int levels_left = num_cores - 1 - level;
    if (level > 0) {
      for (Id g = 0; g < groups.count(); ++g)
        for (Id i = groups.offsets[g]; i < groups.offsets[g + 1]; ++i) {
          group_of[groups.nodes[i]] = g;
          local_of[groups.nodes[i]] = static_cast<std::int32_t>(i - groups.offsets[g]);
        }
    }
    Groups next;
    next.nodes.resize(n);
    next.offsets.assign(groups.count() * p + 1, 0);
    for (Id g = 0; g < groups.count(); ++g) {
      const Id s = groups.size(g);
      std::vector<std::int32_t> part(s, 0);
      if (s > 0 && p > 1) {
        MetisOptions opts = options;
        const double share = std::pow(static_cast<double>(p * cap) / s, 1.0 / levels_left);
        opts.imbalance_permille = static_cast<int>(std::clamp<double>(
            std::floor(1000.0 * (share - 1.0)), 1.0, std::max(1, options.imbalance_permille)));
        MetisResult r;
        if (level == 0) {
          r = metis_partition(space, graph, p, opts);
          for (Id v = 0; v < s; ++v)
            part[v] = r.part(v);
          result.spilled[level] += spill_overfull_parts(graph, part, p, cap);
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
          result.spilled[level] += spill_overfull_parts(sub, part, p, cap);
        }
        result.metis_calls += r.called_metis;
        result.sparsified = result.sparsified || r.sparsified;
        result.arcs_dropped += r.arcs_dropped;
      }
      // Bucket the group's nodes by part, keeping ascending old ids.
      const Id base = g * p;
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
    groups = std::move(next);
  }
  // Group g of the last level is the prefix (p_1, ..., p_{K-1}) in mixed radix.
  result.old_to_row = decltype(result.old_to_row)(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::hierarchical::old_to_row"), n);
  const Id last = n_factors.back();
  for (Id g = 0; g < groups.count(); ++g)
    for (Id i = groups.offsets[g]; i < groups.offsets[g + 1]; ++i)
      result.old_to_row(groups.nodes[i]) = g * last + (i - groups.offsets[g]);
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

#ifdef KOKKOS_ENABLE_SERIAL
TTGNN_INSTANTIATE_HIER_SPACE(Kokkos::Serial)
#endif
#ifdef KOKKOS_ENABLE_OPENMP
TTGNN_INSTANTIATE_HIER_SPACE(Kokkos::OpenMP)
#endif
#ifdef KOKKOS_ENABLE_THREADS
TTGNN_INSTANTIATE_HIER_SPACE(Kokkos::Threads)
#endif

} // namespace ttgnn
