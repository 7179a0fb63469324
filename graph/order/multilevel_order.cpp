// Multilevel hierarchical order: coarsen, partition the coarse graph, project with refinement,
// lay out each core-1 slice (see the header).
#include "graph/order/multilevel_order.hpp"

#include "core/counter_rng.hpp"
#include "core/detail/instantiate.hpp"
#include "core/error.hpp"
#include "core/runtime/peak_memory.hpp"
#include "core/tt/tt_shape.hpp"
#include "graph/detail/group_members.hpp"
#include "graph/order/hierarchical_partition.hpp"
#include "graph/order/multilevel_coarsen.hpp"
#include "graph/order/slot_fm.hpp"

#include <Kokkos_Profiling_ScopedRegion.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

namespace ttgnn {

namespace {

using Id = std::int64_t;
using IdView = Kokkos::View<Id *, Kokkos::HostSpace>;

/// Later coarsening levels merge clusters up to this fraction of a part (1 / kMergeDivisor), so
/// that METIS can still balance the parts out of the coarse nodes.
constexpr Id kMergeDivisor = 8;

/// By default a coarse level is stored when it has at most 1/kStoredArcsDivisor of the input
/// graph's arcs: its ids and weights (16 bytes an arc) then take at most half of what the
/// input's 32-bit neighbour ids take.
constexpr Id kStoredArcsDivisor = 8;

/// A slice is split by METIS when it holds at most this many units (first-level clusters) per
/// slot, else its slots are grown greedily: a METIS k-way call on more (thousands of tiny
/// clusters, as label propagation leaves on graphs without local clustering) costs a good part
/// of a second per slice.
constexpr Id kMetisUnitsPerPart = 8;

/// Whether a slice of \p units units grows its n2 slots (else METIS splits it).
bool grows_slots(Id units, Id n2) {
  return units > kMetisUnitsPerPart * n2;
}

/// Largest number of arcs METIS takes (MetisOptions::arc_limit, idx_t).
Id metis_arc_limit(MetisOptions const &options) {
  const Id idx_max = (Id(1) << (metis_index_bits() - 1)) - 1;
  return options.arc_limit > 0 ? std::min(options.arc_limit, idx_max) : idx_max;
}

/// The METIS imbalance for splitting \p size nodes into \p parts parts of \p cap with
/// \p levels_left levels (this one included) sharing the slack, as hierarchical_partition.
int imbalance_permille(Id parts, Id cap, Id size, int levels_left, int upper) {
  const double share =
      std::pow(static_cast<double>(parts * cap) / static_cast<double>(size), 1.0 / levels_left);
  return static_cast<int>(
      std::clamp<double>(std::floor(1000.0 * (share - 1.0)), 1.0, std::max(1, upper)));
}

/// Share of the slack (as an exponent: a slack factor s becomes s^kUpperSlackShare) that the
/// parts of a level with levels below it may fill where their slots grow. All of it (the level's
/// capacity) left the slots of full slices none: their FM refinement could only exchange nodes,
/// and on the generated 2,449,029-node graph the (i1, i2) share stayed at 89% of the METIS
/// hierarchy's; half of it cut the i1 share of a 100,000-node graph of 4 x 5 blocks to 88%. With
/// 0.85 both levels keep at least 90% on every generated graph measured (docs/SCALE.md).
constexpr double kUpperSlackShare = 0.85;

/// The capacity of a part of this level: all of \p cap on the last level, else an even split
/// of the nodes times kUpperSlackShare of the slack, within [even split, cap].
Id level_capacity(Id parts, Id cap, Id size, int levels_left) {
  if (levels_left <= 1 || size == 0)
    return cap;
  const double share =
      std::pow(static_cast<double>(parts * cap) / static_cast<double>(size), kUpperSlackShare);
  const Id even = (size + parts - 1) / parts;
  return std::min(cap, std::max(even, static_cast<Id>(std::floor(share * static_cast<double>(size) /
                                                                 static_cast<double>(parts)))));
}

/// Parts of the fine nodes (steps 1, 2 of the header); \p levels receives the coarsening.
/// \p slots_per_part: the slots each part is split into below (0: none).
template <class ExecutionSpace, class Ordinal>
std::vector<std::int32_t>
partition_levels(ExecutionSpace const &space, CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                 Id num_parts, Id capacity, Id first_cap, int levels_left, Id slots_per_part,
                 MultilevelOptions const &options, MultilevelStats &stats,
                 std::vector<CoarseLevel> &levels) {
  const Id n = graph.num_nodes();
  if (num_parts < 1 || capacity < 1 || num_parts > std::numeric_limits<std::int32_t>::max() ||
      num_parts > std::numeric_limits<Id>::max() / capacity || num_parts * capacity < n)
    throw ConfigError("multilevel partition: " + std::to_string(n) + " nodes do not fit in " +
                      std::to_string(num_parts) + " parts of " + std::to_string(capacity));
  const std::uint64_t seed = options.metis.seed;
  {
    Kokkos::Profiling::ScopedRegion region("ttgnn::order::coarsen");
    CoarsenOptions co;
    co.seed = seed;
    co.sweeps = std::max(1, options.coarsen_sweeps);
    co.first_cap = std::max<Id>(1, first_cap);
    co.cap = std::max(co.first_cap, capacity / kMergeDivisor);
    co.target_nodes = std::max(options.min_coarse_nodes, options.coarse_nodes_per_part * num_parts);
    co.arc_limit = metis_arc_limit(options.metis);
    co.max_stored_arcs = options.max_stored_arcs >= 0 ? options.max_stored_arcs
                                                      : graph.num_arcs() / kStoredArcsDivisor;
    co.progress = options.progress;
    levels = coarsen_graph(space, graph, co);
  }
  stats.levels = static_cast<int>(levels.size());
  for (auto const &l : levels)
    stats.level_nodes.push_back(l.coarse.num_nodes());
  if (options.progress && !levels.empty())
    options.progress("ordering: coarsened " + std::to_string(n) + " nodes to " +
                     std::to_string(stats.level_nodes.back()) + " in " +
                     std::to_string(levels.size()) + " levels");
  IdView part;
  {
    Kokkos::Profiling::ScopedRegion region("ttgnn::order::partition_coarse");
    MetisOptions mo = options.metis;
    mo.max_arcs_per_node = 0;
    mo.imbalance_permille = imbalance_permille(num_parts, capacity, std::max<Id>(n, 1), levels_left,
                                               options.metis.imbalance_permille);
    MetisResult r;
    if (levels.empty()) {
      r = metis_partition(space, graph, num_parts, mo);
      stats.coarse_arcs = r.arcs_to_metis;
    } else {
      mo.check_symmetric = false; // contraction keeps the symmetry
      CoarseGraph const &cg = levels.back().coarse;
      r = metis_partition(space, cg.graph, num_parts, mo,
                          MetisWeights{cg.node_weight, cg.edge_weight});
      stats.coarse_arcs = cg.graph.num_arcs();
      levels.back().release_arcs(); // only METIS reads the last level's arcs
    }
    stats.metis_calls += r.called_metis;
    part = IdView(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::order::coarse_part"),
                  r.part.extent(0));
    for (Id v = 0; v < static_cast<Id>(part.extent(0)); ++v)
      part(v) = r.part(v);
  }
  Kokkos::Profiling::ScopedRegion region("ttgnn::order::project");
  // Where the parts' slots will grow (more first-level clusters per part than METIS splits
  // quickly), the parts fill only their share of the slack on the way back: the rest is left to
  // the slots, whose FM passes need room to move nodes. Elsewhere METIS splits the parts with
  // its own balance, and they fill their capacity.
  const Id units = levels.empty() ? n : levels.front().coarse.num_nodes();
  const bool slots_grow = slots_per_part > 0 && grows_slots(units / num_parts, slots_per_part);
  const Id cap_here = slots_grow ? level_capacity(num_parts, capacity, n, levels_left) : capacity;
  part = project_partition(space, graph, levels, part, num_parts, cap_here,
                           std::max(1, options.refine_sweeps), seed, options.progress,
                           &stats.refine_moves);
  // The layout reads the clusters of the first two levels only.
  for (std::size_t l = 2; l < levels.size(); ++l)
    levels[l].coarse_of = IdView();
  std::vector<std::int32_t> out(n);
  for (Id v = 0; v < n; ++v)
    out[v] = static_cast<std::int32_t>(part(v));
  stats.spilled.push_back(spill_overfull_parts(graph, out, num_parts, cap_here));
  release_free_memory();
  return out;
}

/// The graph of the units (first-level clusters) of one slice: unit r of the slice is
/// seq[runs[r0 + r] .. runs[r0 + r + 1]); arcs count the fine edges between units of the slice.
struct SliceGraph {
  std::vector<Id> xadj{0}, adj, edge_weight, node_weight;
};

/// Slots of a slice's units by greedy graph growing: slot after slot, from the first unassigned
/// unit in \p seed_order, add the unit with the most edge weight to the slot per node (ties:
/// earlier in \p seed_order) until the slot holds its share of the nodes left, as even as the
/// units allow; a unit that fits no slot keeps slot -1.
std::vector<Id> grow_slots(SliceGraph const &g, std::vector<Id> const &seed_order, Id slots,
                           Id slot_cap) {
  const Id units = static_cast<Id>(g.node_weight.size());
  std::vector<Id> slot(units, -1), conn(units, 0), rank(units), touched;
  for (Id i = 0; i < units; ++i)
    rank[seed_order[i]] = i;
  Id left = 0, next_seed = 0;
  for (Id w : g.node_weight)
    left += w;
  // Edge weight to the slot per node, in 1/4096ths.
  auto key = [&](Id v) { return (conn[v] << 12) / g.node_weight[v]; };
  using Entry = std::pair<Id, Id>; // (key, -rank)
  std::vector<Entry> heap;
  for (Id j = 0; j < slots && left > 0; ++j) {
    const Id target = std::min(slot_cap, (left + slots - j - 1) / (slots - j));
    Id fill = 0;
    heap.clear();
    auto fits = [&](Id u) { return slot[u] < 0 && fill + g.node_weight[u] <= slot_cap; };
    while (fill < target) {
      Id u = -1;
      while (!heap.empty()) {
        std::pop_heap(heap.begin(), heap.end());
        const auto [c, r] = heap.back();
        heap.pop_back();
        const Id v = seed_order[-r];
        if (fits(v) && key(v) == c) {
          u = v;
          break;
        }
      }
      for (Id i = next_seed; u < 0 && i < units; ++i)
        if (fits(seed_order[i]))
          u = seed_order[i];
      if (u < 0)
        break;
      slot[u] = j;
      fill += g.node_weight[u];
      while (next_seed < units && slot[seed_order[next_seed]] >= 0)
        ++next_seed;
      for (Id a = g.xadj[u]; a < g.xadj[u + 1]; ++a) {
        const Id v = g.adj[a];
        if (slot[v] >= 0)
          continue;
        if (conn[v] == 0)
          touched.push_back(v);
        conn[v] += g.edge_weight[a];
        heap.emplace_back(key(v), -rank[v]);
        std::push_heap(heap.begin(), heap.end());
      }
    }
    left -= fill;
    for (Id v : touched)
      conn[v] = 0;
    touched.clear();
  }
  return slot;
}

/// Splits each slice into n_2 slots of \p sub_cap rows and writes the rows (step 3 of the
/// header); returns the nodes that did not fit their unit's slot. \p local holds each node's
/// run in its slice; for the slices whose slots grow node by node it becomes the node's place
/// in the slice.
template <class ExecutionSpace, class Ordinal>
Id lay_out_slices(ExecutionSpace const &space, CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                  std::vector<std::int32_t> const &part, std::vector<Id> const &seq,
                  std::vector<Id> const &runs, std::vector<Id> const &part_runs,
                  std::vector<Id> &local, std::vector<Id> const &run_key,
                  std::vector<Id> const &n_factors, MultilevelOptions const &options,
                  MultilevelStats &stats, IdView old_to_row) {
  const Id p = n_factors[0], n2 = n_factors[1];
  Id sub_cap = 1;
  for (std::size_t k = 2; k < n_factors.size(); ++k)
    sub_cap *= n_factors[k];
  auto row_map = graph.row_map;
  auto entries = graph.entries;
  const Id *sq = seq.data(), *rn = runs.data(), *pr = part_runs.data();
  Id *lc = local.data();
  const Id *rk = run_key.data();
  const std::int32_t *pt = part.data();
  // The graph of slice q's units.
  auto slice_graph = [=](Id q, SliceGraph &s) {
    std::vector<std::pair<Id, Id>> row;
    for (Id r = pr[q]; r < pr[q + 1]; ++r) {
      row.clear();
      for (Id i = rn[r]; i < rn[r + 1]; ++i) {
        const Id v = sq[i];
        for (Id a = row_map(v); a < row_map(v + 1); ++a) {
          const Id w = entries(a);
          if (w != v && pt[w] == q && lc[w] != r - pr[q])
            row.emplace_back(lc[w], 1);
        }
      }
      std::sort(row.begin(), row.end());
      for (std::size_t k = 0; k < row.size(); ++k) {
        if (k > 0 && row[k].first == row[k - 1].first) {
          ++s.edge_weight.back();
          continue;
        }
        s.adj.push_back(row[k].first);
        s.edge_weight.push_back(1);
      }
      s.xadj.push_back(static_cast<Id>(s.adj.size()));
      s.node_weight.push_back(rn[r + 1] - rn[r]);
    }
  };
  // The graph of slice q's nodes (node i: seq[rn[pr[q]] + i], whose local[] holds i).
  auto node_graph = [=](Id q, SliceGraph &s) {
    for (Id i = rn[pr[q]]; i < rn[pr[q + 1]]; ++i) {
      const Id v = sq[i];
      for (Id a = row_map(v); a < row_map(v + 1); ++a) {
        const Id w = entries(a);
        if (w != v && pt[w] == q) {
          s.adj.push_back(lc[w]);
          s.edge_weight.push_back(1);
        }
      }
      s.xadj.push_back(static_cast<Id>(s.adj.size()));
      s.node_weight.push_back(1);
    }
  };
  // Writes slice q's rows: each slot its units' nodes in unit order; the nodes that do not fit
  // their unit's slot (slot by slot), then those of units without a slot, fill the free rows in
  // order. The units are the slice's runs, or with \p per_node its nodes (slot[i] is that of
  // seq[rn[pr[q]] + i]). Returns how many nodes did not fit their unit's slot.
  auto write_rows = [=](Id q, std::vector<Id> const &slot, bool per_node) {
    const Id first = rn[pr[q]];
    const Id units = per_node ? rn[pr[q + 1]] - first : pr[q + 1] - pr[q];
    std::vector<Id> fill(n2, 0);
    std::vector<std::pair<Id, Id>> overflow; // (slot, node), slot n2 for units without one
    for (Id u = 0; u < units; ++u) {
      const Id j = slot[u] >= 0 && slot[u] < n2 ? slot[u] : n2;
      const Id begin = per_node ? first + u : rn[pr[q] + u];
      const Id end = per_node ? begin + 1 : rn[pr[q] + u + 1];
      for (Id i = begin; i < end; ++i) {
        if (j < n2 && fill[j] < sub_cap)
          old_to_row(sq[i]) = (q * n2 + j) * sub_cap + fill[j]++;
        else
          overflow.emplace_back(j, sq[i]);
      }
    }
    std::stable_sort(overflow.begin(), overflow.end(),
                     [](auto const &a, auto const &b) { return a.first < b.first; });
    Id j = 0;
    for (auto const &o : overflow) {
      while (fill[j] >= sub_cap)
        ++j;
      old_to_row(o.second) = (q * n2 + j) * sub_cap + fill[j]++;
    }
    return static_cast<Id>(overflow.size());
  };
  // Slices with too many units for a quick METIS call (thousands of tiny clusters, as label
  // propagation leaves on graphs without local clustering) grow their slots greedily, node by
  // node; the others keep their graph of units for METIS below.
  auto split_by_metis = [=](Id q) { return !grows_slots(pr[q + 1] - pr[q], n2); };
  std::vector<SliceGraph> slices(p);
  SliceGraph *sg = slices.data();
  Id grown_overflow = 0;
  Kokkos::parallel_reduce(
      "ttgnn::order::slice_graphs",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>, Kokkos::IndexType<Id>>(
          space, 0, p),
      [=](Id q, Id &over) {
        if (split_by_metis(q)) {
          slice_graph(q, sg[q]);
          return;
        }
        // The slots grow node by node (the clusters are a few nodes each here, and would only
        // bind the growth), seeded in the order of the nodes' second-level clusters.
        const Id first = rn[pr[q]], size = rn[pr[q + 1]] - first;
        std::vector<std::pair<Id, Id>> keyed(size);
        for (Id r = pr[q]; r < pr[q + 1]; ++r)
          for (Id i = rn[r]; i < rn[r + 1]; ++i)
            keyed[i - first] = {rk[r], i - first};
        for (Id i = 0; i < size; ++i)
          lc[sq[first + i]] = i; // the node's place in the slice, from here on
        SliceGraph g;
        node_graph(q, g);
        std::sort(keyed.begin(), keyed.end());
        std::vector<Id> seed_order(size);
        for (Id i = 0; i < size; ++i)
          seed_order[i] = keyed[i].second;
        over += write_rows(q, grow_slots(g, seed_order, n2, sub_cap), true);
      },
      grown_overflow);
  space.fence();
  Id overflow_total = grown_overflow;
  ProgressMeter meter(options.progress, "ordering: slots laid out", p, "slices");
  for (Id q = 0; q < p; ++q) {
    meter.update(q);
    SliceGraph &s = slices[q];
    const Id units = pr[q + 1] - pr[q];
    const Id size = rn[pr[q + 1]] - rn[pr[q]];
    if (units == 0 || !split_by_metis(q))
      continue;
    CsrGraph<std::int64_t, Kokkos::HostSpace> g;
    g.row_map = decltype(g.row_map)("ttgnn::order::slice_row_map", units + 1);
    g.entries = decltype(g.entries)("ttgnn::order::slice_entries", s.adj.size());
    IdView ew("ttgnn::order::slice_edge_weight", s.adj.size());
    IdView vw("ttgnn::order::slice_node_weight", units);
    for (Id r = 0; r <= units; ++r)
      g.row_map(r) = s.xadj[r];
    for (std::size_t k = 0; k < s.adj.size(); ++k) {
      g.entries(k) = s.adj[k];
      ew(k) = s.edge_weight[k];
    }
    for (Id r = 0; r < units; ++r)
      vw(r) = s.node_weight[r];
    s = SliceGraph();
    MetisOptions mo = options.metis;
    mo.max_arcs_per_node = 0;
    mo.arc_limit = 0; // a slice holds about 1/n_1 of the arcs; METIS' own limit still applies
    mo.check_symmetric = false;
    mo.imbalance_permille =
        imbalance_permille(n2, sub_cap, size, static_cast<int>(n_factors.size()) - 2,
                           options.metis.imbalance_permille);
    const MetisResult r = metis_partition(space, g, n2, mo, MetisWeights{vw, ew});
    stats.metis_calls += r.called_metis;
    std::vector<Id> slot(units);
    for (Id u = 0; u < units; ++u)
      slot[u] = r.part(u);
    overflow_total += write_rows(q, slot, false);
  }
  meter.update(p);
  return overflow_total;
}

/// Refines the level-2 slots (i_1, i_2) on the fine graph, inside each core-1 slice (label
/// propagation, then FM passes in the \p grown slices), then renumbers the rows of every slot in
/// their previous order.
template <class ExecutionSpace, class Ordinal>
void refine_slots(ExecutionSpace const &space, CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                  std::vector<Id> const &n_factors, MultilevelOptions const &options,
                  MultilevelStats &stats, IdView old_to_row, std::vector<char> const &grown) {
  const Id n = graph.num_nodes(), n2 = n_factors[1], slots = n_factors[0] * n2;
  Id sub_cap = 1;
  for (std::size_t k = 2; k < n_factors.size(); ++k)
    sub_cap *= n_factors[k];
  IdView slot(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::order::slot"), n);
  for (Id v = 0; v < n; ++v)
    slot(v) = old_to_row(v) / sub_cap;
  stats.refine_moves +=
      refine_partition(space, graph, slot, slots, sub_cap, std::max(1, options.refine_sweeps),
                       splitmix64_hash(options.metis.seed ^ 0x5107ull), n2, options.progress);
  if (options.slot_fm_passes > 0 && std::find(grown.begin(), grown.end(), char{1}) != grown.end())
    stats.slot_fm_edges +=
        fm_refine_slots(space, graph, slot, slots, n2, sub_cap, options.slot_fm_passes,
                        splitmix64_hash(options.metis.seed ^ 0xF3ull), grown);
  // Each slot's rows in the nodes' previous row order: walk the previous rows in order.
  std::vector<Id> node_at(slots * sub_cap, -1), fill(slots, 0);
  for (Id v = 0; v < n; ++v)
    node_at[old_to_row(v)] = v;
  for (Id v : node_at)
    if (v >= 0)
      old_to_row(v) = slot(v) * sub_cap + fill[slot(v)]++;
}

} // namespace

template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only>
std::vector<std::int32_t>
multilevel_partition(ExecutionSpace const &space, CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                     std::int64_t num_parts, std::int64_t capacity,
                     MultilevelOptions const &options, MultilevelStats *stats) {
  MultilevelStats local;
  std::vector<CoarseLevel> levels;
  const Id first_cap = std::max<Id>(1, capacity / kMergeDivisor);
  return partition_levels(space, graph, num_parts, capacity, first_cap, 1, 0, options,
                          stats ? *stats : local, levels);
}

template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only>
Kokkos::View<std::int64_t *, Kokkos::HostSpace>
multilevel_order(ExecutionSpace const &space, CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                 std::vector<std::int64_t> const &n_factors, MultilevelOptions const &options,
                 MultilevelStats *stats) {
  Kokkos::Profiling::ScopedRegion region("ttgnn::order::multilevel");
  const Id n = graph.num_nodes();
  check_row_factors(n_factors, n, "multilevel order", 2);
  const int num_cores = static_cast<int>(n_factors.size());
  Id slice = 1;
  for (int k = 1; k < num_cores; ++k)
    slice *= n_factors[k];
  MultilevelStats local_stats;
  MultilevelStats &st = stats ? *stats : local_stats;
  std::vector<CoarseLevel> levels;
  std::vector<std::int32_t> part =
      partition_levels(space, graph, n_factors[0], slice, n_factors.back(), num_cores - 1,
                       n_factors[1], options, st, levels);

  Kokkos::Profiling::ScopedRegion layout_region("ttgnn::order::layout");
  // Units: the first-level clusters (at most n_K nodes), or the nodes themselves.
  const Id units = levels.empty() ? n : levels.front().coarse.num_nodes();
  IdView unit_of = levels.empty() ? IdView() : levels.front().coarse_of;
  auto unit = [&](Id v) { return levels.empty() ? v : unit_of(v); };
  // Nodes by (part, unit, id): counting sort by unit, then stably by part.
  IdView unit_start, by_unit;
  detail::group_members(n, units, unit, unit_start, by_unit);
  unit_start = IdView();
  std::vector<Id> seq(n);
  const Id p = n_factors[0];
  std::vector<Id> part_start(p + 1, 0);
  for (Id v = 0; v < n; ++v)
    ++part_start[part[v] + 1];
  for (Id q = 0; q < p; ++q)
    part_start[q + 1] += part_start[q];
  {
    std::vector<Id> fill(part_start.begin(), part_start.end() - 1);
    for (Id i = 0; i < n; ++i)
      seq[fill[part[by_unit(i)]]++] = by_unit(i);
  }
  by_unit = IdView();
  IdView old_to_row(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::order::old_to_row"), n);
  if (num_cores == 2) {
    for (Id q = 0; q < p; ++q)
      for (Id i = part_start[q]; i < part_start[q + 1]; ++i)
        old_to_row(seq[i]) = q * slice + (i - part_start[q]);
    st.spilled.push_back(0);
    return old_to_row;
  }
  // Runs of equal unit inside each slice; local[v] = index of v's run in its slice. The order of
  // the runs where METIS does not split a slice: run_key, their unit's second-level cluster.
  std::vector<Id> runs, run_key, part_runs(p + 1, 0), local(n);
  for (Id q = 0; q < p; ++q) {
    part_runs[q] = static_cast<Id>(runs.size());
    for (Id i = part_start[q]; i < part_start[q + 1]; ++i) {
      const Id u = unit(seq[i]);
      if (i == part_start[q] || u != unit(seq[i - 1])) {
        runs.push_back(i);
        run_key.push_back(levels.size() >= 2 ? levels[1].coarse_of(u) : u);
      }
      local[seq[i]] = static_cast<Id>(runs.size()) - 1 - part_runs[q];
    }
  }
  part_runs[p] = static_cast<Id>(runs.size());
  runs.push_back(n);
  // FM passes only where the slots grew: METIS' own FM refinement split the other slices.
  std::vector<char> grown(n_factors[0]);
  for (Id q = 0; q < n_factors[0]; ++q)
    grown[q] = grows_slots(part_runs[q + 1] - part_runs[q], n_factors[1]);
  st.spilled.push_back(lay_out_slices(space, graph, part, seq, runs, part_runs, local, run_key,
                                      n_factors, options, st, old_to_row));
  // Only old_to_row goes on to the slot refinement.
  for (auto *v : {&seq, &runs, &part_runs, &local, &run_key})
    std::vector<Id>().swap(*v);
  std::vector<std::int32_t>().swap(part);
  levels.clear();
  unit_of = IdView();
  release_free_memory();
  refine_slots(space, graph, n_factors, options, st, old_to_row, grown);
  for (int k = 3; k < num_cores; ++k)
    st.spilled.push_back(0);
  return old_to_row;
}

#define TTGNN_INSTANTIATE_MULTILEVEL(SPACE, ORDINAL)                                               \
  template std::vector<std::int32_t> multilevel_partition<SPACE, ORDINAL>(                         \
      SPACE const &, CsrGraph<ORDINAL, Kokkos::HostSpace> const &, std::int64_t, std::int64_t,     \
      MultilevelOptions const &, MultilevelStats *);                                               \
  template Kokkos::View<std::int64_t *, Kokkos::HostSpace> multilevel_order<SPACE, ORDINAL>(       \
      SPACE const &, CsrGraph<ORDINAL, Kokkos::HostSpace> const &,                                 \
      std::vector<std::int64_t> const &, MultilevelOptions const &, MultilevelStats *);
#define TTGNN_INSTANTIATE_MULTILEVEL_SPACE(SPACE)                                                  \
  TTGNN_INSTANTIATE_MULTILEVEL(SPACE, std::int32_t)                                                \
  TTGNN_INSTANTIATE_MULTILEVEL(SPACE, std::int64_t)

TTGNN_INSTANTIATE_FOR_EACH_HOST_SPACE(TTGNN_INSTANTIATE_MULTILEVEL_SPACE)

} // namespace ttgnn
