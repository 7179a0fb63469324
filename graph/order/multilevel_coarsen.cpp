// Size-constrained label propagation in synchronous rounds, graph contraction, refinement (see
// the header).
#include "graph/order/multilevel_coarsen.hpp"

#include "core/counter_rng.hpp"
#include "core/detail/instantiate.hpp"
#include "core/error.hpp"
#include "core/runtime/peak_memory.hpp"
#include "graph/detail/group_members.hpp"
#include "graph/order/detail/label_weights.hpp"

#include <Kokkos_Profiling_ScopedRegion.hpp>

#include <algorithm>
#include <string>
#include <utility>

namespace ttgnn {

namespace {

using Id = std::int64_t;
using IdView = Kokkos::View<Id *, Kokkos::HostSpace>;

/// Salts of the hashes (arbitrary, distinct): the colour of a node in a round, the tie-break
/// between labels, the acceptance order of proposals.
constexpr std::uint64_t kColourSalt = 0xC01011ull;
constexpr std::uint64_t kTieSalt = 0x7E5ull;
constexpr std::uint64_t kOrderSalt = 0x0DE7ull;

/// Rounds per sweep: a node moves in the round of its colour (a seeded hash of (sweep, node)
/// modulo kColours), reading the labels its neighbours took in the earlier rounds. More rounds
/// come closer to one-node-at-a-time propagation (clusters grow faster per sweep) at the same
/// arc reads per sweep.
constexpr std::uint64_t kColours = 8;

/// Progress steps of a level's contraction (a label-propagation round is one).
constexpr Id kContractSteps = 3 * static_cast<Id>(kColours);

/// A level shrinking the node count by less than this (percent) ends the coarsening.
constexpr Id kStallPercent = 90;

std::uint64_t hash3(std::uint64_t seed, std::uint64_t a, std::uint64_t b) {
  return splitmix64_hash(splitmix64_hash(seed ^ a) + b);
}

/// Arc or node weight 1 (the input graph).
struct UnitWeight {
  Id operator()(Id) const { return 1; }
};

/// Prefetch distances (arcs) of the per-arc random reads: the label or cluster of an arc's head
/// (near), and for a level read through its clusters, the head's cluster before that (far).
constexpr Id kPrefetchNear = 6;
constexpr Id kPrefetchFar = 12;

/// The arcs of a stored graph (the input graph or a stored coarse level) as label propagation
/// reads them: for_each(v, f) calls f(neighbour, weight) for every arc of v but a self loop.
template <class Ordinal, class EdgeWeight> struct StoredArcs {
  CsrGraph<Ordinal, Kokkos::HostSpace> graph;
  EdgeWeight ew;
  Id num_nodes() const { return graph.num_nodes(); }
  /// At least the number of distinct neighbours of v.
  Id arc_bound(Id v) const { return graph.row_map(v + 1) - graph.row_map(v); }
  /// \p pre(u) is called kPrefetchNear arcs ahead of f (it prefetches what f will read of u).
  template <class F, class P> void for_each(Id v, F &&f, P &&pre) const {
    const Id e = graph.row_map(v + 1);
    for (Id a = graph.row_map(v); a < e; ++a) {
      if (a + kPrefetchNear < e)
        pre(static_cast<Id>(graph.entries(a + kPrefetchNear)));
      const Id u = static_cast<Id>(graph.entries(a));
      if (u != v)
        f(u, ew(a));
    }
  }
};

/// The arcs of a coarse level that is not stored, read through its clusters of input nodes:
/// node v stands for the input nodes members(start(v)) .. members(start(v + 1) - 1), and each
/// input arc to a node of another cluster is an arc of weight 1. Label propagation sums the
/// weights per label, so it sees the same weights as on the stored coarse graph.
template <class Ordinal> struct ClusterArcs {
  CsrGraph<Ordinal, Kokkos::HostSpace> graph;
  IdView node_of; ///< input node -> node of this level
  IdView start, members;
  Id num_nodes() const { return static_cast<Id>(start.extent(0)) - 1; }
  Id arc_bound(Id v) const {
    Id arcs = 0;
    for (Id i = start(v); i < start(v + 1); ++i)
      arcs += graph.row_map(members(i) + 1) - graph.row_map(members(i));
    return arcs;
  }
  /// \p pre as StoredArcs. The chain of reads to an arc's head cluster (member -> row -> head
  /// -> cluster) is prefetched as a pipeline: rows three members ahead, heads two members ahead,
  /// clusters kPrefetchFar arcs ahead (a member ahead for the first arcs of a row).
  template <class F, class P> void for_each(Id v, F &&f, P &&pre) const {
    const Id first = start(v), last = start(v + 1);
    auto head = [&](Id a) { return static_cast<Id>(graph.entries(a)); };
    auto row = [&](Id i) { return graph.row_map(members(i)); };
    for (Id i = first; i < last; ++i) {
      if (i + 3 < last)
        __builtin_prefetch(&graph.row_map(members(i + 3)));
      if (i + 2 < last)
        __builtin_prefetch(graph.entries.data() + row(i + 2)); // may be one past the end
      if (i + 1 < last) {
        const Id b = row(i + 1), e = std::min(graph.row_map(members(i + 1) + 1), b + kPrefetchFar);
        for (Id a = b; a < e; ++a)
          __builtin_prefetch(&node_of(head(a)));
      }
      const Id e = graph.row_map(members(i) + 1);
      for (Id a = row(i); a < e; ++a) {
        if (a + kPrefetchFar < e)
          __builtin_prefetch(&node_of(head(a + kPrefetchFar)));
        if (a + kPrefetchNear < e)
          pre(node_of(head(a + kPrefetchNear)));
        const Id u = node_of(head(a));
        if (u != v)
          f(u, Id(1));
      }
    }
  }
};

/// The nodes of levels[top] as clusters of the input nodes (the coarse_of maps of levels 0 ..
/// top composed).
template <class ExecutionSpace, class Ordinal>
ClusterArcs<Ordinal> cluster_arcs(ExecutionSpace const &space,
                                  CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                                  std::vector<CoarseLevel> const &levels, std::size_t top) {
  ClusterArcs<Ordinal> arcs{graph, {}, {}, {}};
  const Id n = graph.num_nodes();
  arcs.node_of =
      IdView(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::order::node_of"), n);
  auto node_of = arcs.node_of;
  std::vector<IdView> maps;
  for (std::size_t l = 0; l <= top; ++l)
    maps.push_back(levels[l].coarse_of);
  IdView const *m = maps.data();
  const std::size_t depth = maps.size();
  Kokkos::parallel_for("ttgnn::order::compose_maps",
                       Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Id>>(space, 0, n),
                       [=](Id v) {
                         Id u = v;
                         for (std::size_t l = 0; l < depth; ++l)
                           u = m[l](u);
                         node_of(v) = u;
                       });
  space.fence();
  detail::group_members(
      n, levels[top].coarse.num_nodes(), [&](Id v) { return node_of(v); }, arcs.start,
      arcs.members);
  return arcs;
}

using LabelTable = detail::LabelWeights;

/// Whether proposal \p a (an index into a round's nodes and gains) is taken before \p b among
/// those of the same target: larger gain first, then a seeded hash of the node, then the node.
bool taken_before(Id a, Id b, IdView nodes, IdView gain, std::uint64_t round_seed) {
  if (gain(a) != gain(b))
    return gain(a) > gain(b);
  const Id va = nodes(a), vb = nodes(b);
  const std::uint64_t ha = hash3(round_seed, kOrderSalt, va);
  const std::uint64_t hb = hash3(round_seed, kOrderSalt, vb);
  return ha != hb ? ha < hb : va < vb;
}

/// Exchanges the proposals \p m[0 .. count) (indices into a round's nodes, target and gain)
/// that found no room, in pairs: for two labels p and q, the k-th best mover from p to q with
/// the k-th best from q to p (by gain, then a seeded hash of the node), unless the label that
/// gains weight would exceed \p cap. Every pair lowers the cut (the gains are positive; by their
/// sum less twice the arcs between the two nodes, which the round's colouring makes rare).
/// Returns the nodes moved.
template <class NodeWeight>
Id swap_pairs(Id *m, Id count, IdView nodes, IdView target, IdView gain, NodeWeight vw,
              IdView label, IdView lw, Id cap, std::uint64_t round_seed) {
  auto from = [&](Id i) { return label(nodes(i)); };
  auto pair_key = [&](Id i) {
    return std::make_pair(std::min(from(i), target(i)), std::max(from(i), target(i)));
  };
  std::sort(m, m + count, [&](Id a, Id b) {
    if (pair_key(a) != pair_key(b))
      return pair_key(a) < pair_key(b);
    if (from(a) != from(b))
      return from(a) < from(b);
    return taken_before(a, b, nodes, gain, round_seed);
  });
  Id moved = 0;
  for (Id first = 0; first < count;) {
    Id mid = first, last = first;
    while (mid < count && pair_key(m[mid]) == pair_key(m[first]) && from(m[mid]) == from(m[first]))
      ++mid;
    last = mid;
    while (last < count && pair_key(m[last]) == pair_key(m[first]))
      ++last;
    // m[first, mid): p -> q, m[mid, last): q -> p (empty when no node goes back)
    for (Id a = first, b = mid; a < mid && b < last; ++a, ++b) {
      const Id u = nodes(m[a]), v = nodes(m[b]);
      const Id p = label(u), q = label(v), wu = vw(u), wv = vw(v);
      if ((wv > wu && lw(p) + wv - wu > cap) || (wu > wv && lw(q) + wu - wv > cap))
        continue;
      lw(p) += wv - wu;
      lw(q) += wu - wv;
      label(u) = q;
      label(v) = p;
      moved += 2;
    }
    first = last;
  }
  return moved;
}

/// Label propagation over \p label (weights per label in \p lw, updated) for at most
/// \p sweeps sweeps; a label's weight stays <= cap unless it already exceeded it. Stops early
/// when a sweep moves fewer than 1% of the nodes. \p group > 0: a node only moves to labels l
/// with l / group == its label / group. \p swaps (refinement of full parts): a node proposes
/// its best label whether it has room or not, and proposals that find no room are exchanged in
/// pairs between the same two labels (see swap_pairs). \p meter (optional) counts the rounds
/// (sweeps x kColours; an early stop leaves it short). Returns the sweeps run.
template <class ExecutionSpace, class Arcs, class NodeWeight>
int propagate(ExecutionSpace const &space, Arcs const &arcs, NodeWeight vw, IdView label, IdView lw,
              Id cap, int sweeps, std::uint64_t seed, Id &moves, Id group = 0, bool swaps = false,
              ProgressMeter *meter = nullptr) {
  const Id n = arcs.num_nodes();
  using Policy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Id>>;
  // Per round: its nodes (those of its colour, about n / kColours), their proposals and the
  // movers among them, all indexed by the position in the round.
  IdView nodes, target, gain, movers;
  Kokkos::Experimental::UniqueToken<ExecutionSpace> token(space);
  std::vector<LabelTable> tables(token.size());
  LabelTable *tab = tables.data();
  int run = 0;
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    Id moved_sweep = 0;
    const std::uint64_t sweep_seed = hash3(seed, kColourSalt, static_cast<std::uint64_t>(sweep));
    for (std::uint64_t colour = 0; colour < kColours; ++colour) {
      const std::uint64_t round_seed = hash3(sweep_seed, kColourSalt, colour);
      auto in_round = [=](Id v) {
        return hash3(sweep_seed, 0, static_cast<std::uint64_t>(v)) % kColours == colour;
      };
      // The round's nodes into `nodes` (as many as fit): their count.
      auto collect_round = [&] {
        IdView out = nodes;
        const Id room = static_cast<Id>(out.extent(0));
        Id k_end = 0;
        Kokkos::parallel_scan(
            "ttgnn::order::lp_round_nodes", Policy(space, 0, n),
            [=](Id v, Id &k, bool final) {
              if (in_round(v)) {
                if (final && k < room)
                  out(k) = v;
                ++k;
              }
            },
            k_end);
        return k_end;
      };
      Id size = collect_round();
      if (static_cast<Id>(nodes.extent(0)) < size) {
        nodes = target = gain = movers = IdView(); // free before allocating larger ones
        const Id room = size + size / 8;
        auto alloc = [&](std::string const &label) {
          return IdView(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), room);
        };
        nodes = alloc("ttgnn::order::lp_nodes");
        target = alloc("ttgnn::order::lp_target");
        gain = alloc("ttgnn::order::lp_gain");
        movers = alloc("ttgnn::order::lp_movers");
        size = collect_round();
      }
      auto round_nodes = nodes, round_target = target, round_gain = gain, round_movers = movers;
      Kokkos::parallel_for("ttgnn::order::lp_propose", Policy(space, 0, size), [=](Id i) {
        const Id v = round_nodes(i);
        round_target(i) = -1;
        const Id bound = arcs.arc_bound(v);
        if (bound == 0)
          return;
        const int t = token.acquire();
        LabelTable &table = tab[t];
        table.reset(std::min(bound, n));
        arcs.for_each(
            v,
            [&](Id u, Id w) {
              const Id l = label(u);
              __builtin_prefetch(&lw(l)); // read below for every label touched
              table.add(l, w);
            },
            [&](Id u) { __builtin_prefetch(&label(u)); });
        const Id cur = label(v), cur_w = table.get(cur), own = vw(v);
        Id best = -1, best_w = cur_w;
        std::uint64_t best_tie = 0;
        for (std::size_t s : table.touched) {
          const Id l = table.keys[s], w = table.weights[s];
          if (l == cur || w < best_w || (!swaps && lw(l) + own > cap) ||
              (group > 0 && l / group != cur / group))
            continue;
          const std::uint64_t tie = hash3(round_seed ^ kTieSalt, v, l);
          if (w > best_w || (best >= 0 && tie > best_tie)) {
            best = l;
            best_w = w;
            best_tie = tie;
          }
        }
        token.release(t);
        if (best >= 0) {
          round_target(i) = best;
          round_gain(i) = best_w - cur_w;
        }
      });
      Id count = 0;
      Kokkos::parallel_scan(
          "ttgnn::order::lp_collect", Policy(space, 0, size),
          [=](Id i, Id &k, bool final) {
            if (round_target(i) >= 0) {
              if (final)
                round_movers(k) = i;
              ++k;
            }
          },
          count);
      space.fence();
      // Accept in a fixed order: by target, larger gain first, then a seeded hash of the node.
      Id *m = movers.data();
      std::sort(m, m + count, [&](Id a, Id b) {
        if (target(a) != target(b))
          return target(a) < target(b);
        return taken_before(a, b, nodes, gain, round_seed);
      });
      Id waiting = 0; // proposals without room, moved to the front of m
      for (Id i = 0; i < count; ++i) {
        const Id v = nodes(m[i]), to = target(m[i]), own = vw(v);
        if (lw(to) + own > cap) {
          m[waiting++] = m[i];
          continue;
        }
        lw(to) += own;
        lw(label(v)) -= own;
        label(v) = to;
        ++moved_sweep;
      }
      if (swaps)
        moved_sweep += swap_pairs(m, waiting, nodes, target, gain, vw, label, lw, cap, round_seed);
      if (meter)
        meter->update(static_cast<Id>(sweep) * static_cast<Id>(kColours) + static_cast<Id>(colour) +
                      1);
    }
    ++run;
    moves += moved_sweep;
    if (moved_sweep * 100 < n)
      break;
  }
  return run;
}

/// The clusters \p label of a level's nodes (labels in [0, n), weight lw(l) > 0 iff used) as the
/// next level: coarse_of, node weights and the number of arcs; the coarse graph itself only when
/// store(coarse nodes, coarse arcs) says so.
template <class ExecutionSpace, class Arcs, class Store>
CoarseLevel contract(ExecutionSpace const &space, Arcs const &arcs, IdView label, IdView lw,
                     Store store) {
  const Id n = arcs.num_nodes();
  using Policy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Id>>;
  IdView id_of("ttgnn::order::coarse_id", n + 1);
  Kokkos::parallel_scan("ttgnn::order::coarse_ids", Policy(space, 0, n),
                        [=](Id l, Id &k, bool final) {
                          if (final)
                            id_of(l) = k;
                          k += lw(l) > 0;
                          if (final && l == n - 1)
                            id_of(n) = k;
                        });
  space.fence();
  const Id c = n > 0 ? id_of(n) : 0;
  CoarseLevel level;
  level.coarse_of =
      IdView(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::order::coarse_of"), n);
  auto coarse_of = level.coarse_of;
  CoarseGraph &cg = level.coarse;
  cg.node_weight = IdView("ttgnn::order::node_weight", c);
  auto node_weight = cg.node_weight;
  Kokkos::parallel_for("ttgnn::order::coarse_map", Policy(space, 0, n), [=](Id v) {
    coarse_of(v) = id_of(label(v));
    if (lw(v) > 0)
      node_weight(id_of(v)) = lw(v);
  });
  space.fence();
  id_of = IdView();
  IdView start, members; // the members of each coarse node, ascending
  detail::group_members(
      n, c, [&](Id v) { return coarse_of(v); }, start, members);
  Kokkos::Experimental::UniqueToken<ExecutionSpace> token(space);
  std::vector<LabelTable> tables(token.size());
  LabelTable *tab = tables.data();
  auto gather = [=](Id k, LabelTable &table) {
    Id bound = 0;
    for (Id i = start(k); i < start(k + 1); ++i)
      bound += arcs.arc_bound(members(i));
    table.reset(std::min(bound, c));
    for (Id i = start(k); i < start(k + 1); ++i)
      arcs.for_each(
          members(i),
          [&](Id u, Id w) {
            const Id d = coarse_of(u);
            if (d != k)
              table.add(d, w);
          },
          [&](Id u) { __builtin_prefetch(&coarse_of(u)); });
  };
  IdView crow("ttgnn::order::coarse_row_map", c + 1);
  Kokkos::parallel_for("ttgnn::order::coarse_degree", Policy(space, 0, c), [=](Id k) {
    const int t = token.acquire();
    gather(k, tab[t]);
    crow(k + 1) = static_cast<Id>(tab[t].touched.size());
    token.release(t);
  });
  space.fence();
  for (Id k = 0; k < c; ++k)
    crow(k + 1) += crow(k);
  level.num_arcs = crow(c);
  level.stored = store(c, level.num_arcs);
  if (!level.stored)
    return level;
  cg.graph.row_map = crow;
  cg.graph.entries = decltype(cg.graph.entries)(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::order::coarse_entries"), crow(c));
  cg.edge_weight =
      IdView(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::order::edge_weight"), crow(c));
  auto centries = cg.graph.entries;
  auto cweight = cg.edge_weight;
  Kokkos::parallel_for("ttgnn::order::coarse_fill", Policy(space, 0, c), [=](Id k) {
    const int t = token.acquire();
    LabelTable &table = tab[t];
    gather(k, table);
    std::vector<std::pair<Id, Id>> row;
    row.reserve(table.touched.size());
    for (std::size_t s : table.touched)
      row.emplace_back(table.keys[s], table.weights[s]);
    token.release(t);
    std::sort(row.begin(), row.end());
    for (std::size_t i = 0; i < row.size(); ++i) {
      centries(crow(k) + i) = row[i].first;
      cweight(crow(k) + i) = row[i].second;
    }
  });
  space.fence();
  return level;
}

/// One coarsening level of a level's \p arcs (node weights vw): clusters of weight <= cap.
/// Progress lines (ETA) to \p progress, named \p what.
template <class ExecutionSpace, class Arcs, class NodeWeight, class Store>
CoarseLevel coarsen_once(ExecutionSpace const &space, Arcs const &arcs, NodeWeight vw, Id cap,
                         int sweeps, std::uint64_t seed, Store store, ProgressLog const &progress,
                         std::string const &what) {
  const Id n = arcs.num_nodes();
  IdView label(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::order::label"), n);
  IdView lw(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::order::label_weight"), n);
  Kokkos::parallel_for("ttgnn::order::singletons",
                       Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Id>>(space, 0, n),
                       [=](Id v) {
                         label(v) = v;
                         lw(v) = vw(v);
                       });
  space.fence();
  Id moves = 0;
  // Progress in steps: a label-propagation round is one (it reads the arcs of 1/kColours of the
  // nodes), the contraction kContractSteps (it reads every arc twice and sorts the coarse rows:
  // on the first two levels of a 2.4M-node graph of degree 25 it takes about as long as the 24
  // rounds before it).
  const Id rounds = static_cast<Id>(sweeps) * static_cast<Id>(kColours);
  ProgressMeter meter(progress, what, rounds + kContractSteps, "steps");
  const int run = propagate(space, arcs, vw, label, lw, cap, sweeps, seed, moves, 0, false, &meter);
  CoarseLevel level = contract(space, arcs, label, lw, store);
  meter.update(rounds + kContractSteps);
  level.cap = cap;
  level.sweeps = run;
  return level;
}

/// Refinement of \p part over a level's \p arcs (see refine_partition).
template <class ExecutionSpace, class Arcs, class NodeWeight>
Id refine(ExecutionSpace const &space, Arcs const &arcs, NodeWeight vw, IdView part, Id num_parts,
          Id capacity, int sweeps, std::uint64_t seed, Id group = 0,
          ProgressLog const &progress = {}, std::string const &what = {}) {
  IdView pw("ttgnn::order::part_weight", num_parts);
  for (Id v = 0; v < arcs.num_nodes(); ++v) {
    if (part(v) < 0 || part(v) >= num_parts)
      throw ConfigError("refine_partition: node " + std::to_string(v) + " has part " +
                        std::to_string(part(v)) + " outside [0, " + std::to_string(num_parts) +
                        ")");
    pw(part(v)) += vw(v);
  }
  Id moves = 0;
  const Id rounds = static_cast<Id>(sweeps) * static_cast<Id>(kColours);
  ProgressMeter meter(progress, what, rounds, "rounds");
  propagate(space, arcs, vw, part, pw, capacity, sweeps, seed, moves, group, true, &meter);
  meter.update(rounds);
  return moves;
}

/// Calls f(arcs, node weights) with the arcs of level \p l's coarse graph: stored, or read
/// through its clusters of input nodes.
template <class ExecutionSpace, class Ordinal, class F>
decltype(auto) with_level_arcs(ExecutionSpace const &space,
                               CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                               std::vector<CoarseLevel> const &levels, std::size_t l, F &&f) {
  CoarseGraph const &cg = levels[l].coarse;
  if (levels[l].stored)
    return f(StoredArcs<std::int64_t, IdView>{cg.graph, cg.edge_weight}, cg.node_weight);
  return f(cluster_arcs(space, graph, levels, l), cg.node_weight);
}

} // namespace

template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only>
std::vector<CoarseLevel> coarsen_graph(ExecutionSpace const &space,
                                       CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                                       CoarsenOptions const &options) {
  if (options.first_cap < 1 || options.cap < options.first_cap || options.sweeps < 1)
    throw ConfigError("coarsen_graph: need 1 <= first_cap <= cap and sweeps >= 1 (got " +
                      std::to_string(options.first_cap) + ", " + std::to_string(options.cap) +
                      ", " + std::to_string(options.sweeps) + ")");
  std::vector<CoarseLevel> levels;
  auto small_enough = [&](Id nodes, Id arcs) {
    return nodes <= options.target_nodes && (options.arc_limit <= 0 || arcs <= options.arc_limit);
  };
  Id nodes = graph.num_nodes(), arcs = graph.num_arcs();
  for (int l = 0; l < options.max_levels && !small_enough(nodes, arcs); ++l) {
    const std::uint64_t seed = hash3(options.seed, 0x1E7E1, static_cast<std::uint64_t>(l));
    const std::string what = "ordering: coarsening level " + std::to_string(l + 1) + " (" +
                             std::to_string(nodes) + " nodes, " + std::to_string(arcs) + " arcs)";
    // Stored when within the budget or when it will be the last level (it is partitioned).
    auto store = [&, l, nodes](Id c, Id coarse_arcs) {
      return options.max_stored_arcs < 0 || coarse_arcs <= options.max_stored_arcs ||
             l + 1 == options.max_levels || small_enough(c, coarse_arcs) ||
             c * 100 > kStallPercent * nodes;
    };
    const Id cap = l == 0 ? options.first_cap : options.cap;
    CoarseLevel level =
        l == 0 ? coarsen_once(space, StoredArcs<Ordinal, UnitWeight>{graph, {}}, UnitWeight{}, cap,
                              options.sweeps, seed, store, options.progress, what)
               : with_level_arcs(space, graph, levels, levels.size() - 1,
                                 [&](auto const &level_arcs, IdView vw) {
                                   return coarsen_once(space, level_arcs, vw, cap, options.sweeps,
                                                       seed, store, options.progress, what);
                                 });
    const Id coarse_nodes = level.coarse.num_nodes();
    if (coarse_nodes >= nodes)
      break;
    const bool stalled = coarse_nodes * 100 > kStallPercent * nodes;
    nodes = coarse_nodes;
    arcs = level.num_arcs;
    levels.push_back(std::move(level));
    release_free_memory(); // the level's label-propagation arrays
    if (stalled)
      break;
  }
  if (!levels.empty() && !levels.back().stored) { // a level that did not shrink ended the loop
    CoarseLevel &last = levels.back();
    const Id c = last.coarse.num_nodes();
    IdView identity(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::order::label"), c);
    for (Id v = 0; v < c; ++v)
      identity(v) = v;
    CoarseLevel same = contract(space, cluster_arcs(space, graph, levels, levels.size() - 1),
                                identity, last.coarse.node_weight, [](Id, Id) { return true; });
    last.coarse.graph = same.coarse.graph;
    last.coarse.edge_weight = same.coarse.edge_weight;
    last.stored = true;
  }
  return levels;
}

template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only>
std::int64_t refine_partition(ExecutionSpace const &space,
                              CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                              Kokkos::View<std::int64_t *, Kokkos::HostSpace> part,
                              std::int64_t num_parts, std::int64_t capacity, int sweeps,
                              std::uint64_t seed, std::int64_t group, ProgressLog const &progress) {
  return refine(space, StoredArcs<Ordinal, UnitWeight>{graph, {}}, UnitWeight{}, part, num_parts,
                capacity, sweeps, seed, group, progress, "ordering: slot refinement");
}

template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only>
Kokkos::View<std::int64_t *, Kokkos::HostSpace>
project_partition(ExecutionSpace const &space, CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                  std::vector<CoarseLevel> &levels,
                  Kokkos::View<std::int64_t *, Kokkos::HostSpace> part, std::int64_t num_parts,
                  std::int64_t capacity, int sweeps, std::uint64_t seed,
                  ProgressLog const &progress, std::int64_t *moves) {
  ProgressMeter meter(progress, "ordering: projected", static_cast<Id>(levels.size()), "levels");
  for (Id l = static_cast<Id>(levels.size()) - 1; l >= 0; --l) {
    auto coarse_of = levels[l].coarse_of;
    IdView finer(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::order::part"),
                 coarse_of.extent(0));
    Kokkos::parallel_for(
        "ttgnn::order::project_part",
        Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Id>>(space, 0, coarse_of.extent(0)),
        [=](Id v) { finer(v) = part(coarse_of(v)); });
    space.fence();
    part = finer;
    const std::uint64_t level_seed = splitmix64_hash(seed ^ static_cast<std::uint64_t>(l + 1));
    const Id moved = l > 0 ? with_level_arcs(space, graph, levels, static_cast<std::size_t>(l - 1),
                                             [&](auto const &arcs, IdView vw) {
                                               return refine(space, arcs, vw, part, num_parts,
                                                             capacity, sweeps, level_seed);
                                             })
                           : refine(space, StoredArcs<Ordinal, UnitWeight>{graph, {}}, UnitWeight{},
                                    part, num_parts, capacity, sweeps, level_seed);
    if (l > 0)
      levels[l - 1].release_arcs(); // the stored levels would add up: 7.5 GB on a 2.2B-arc graph
    if (moves)
      *moves += moved;
    meter.update(static_cast<Id>(levels.size()) - l);
  }
  return part;
}

#define TTGNN_INSTANTIATE_COARSEN(SPACE, ORDINAL)                                                  \
  template std::vector<CoarseLevel> coarsen_graph<SPACE, ORDINAL>(                                 \
      SPACE const &, CsrGraph<ORDINAL, Kokkos::HostSpace> const &, CoarsenOptions const &);        \
  template std::int64_t refine_partition<SPACE, ORDINAL>(                                          \
      SPACE const &, CsrGraph<ORDINAL, Kokkos::HostSpace> const &,                                 \
      Kokkos::View<std::int64_t *, Kokkos::HostSpace>, std::int64_t, std::int64_t, int,            \
      std::uint64_t, std::int64_t, ProgressLog const &);                                           \
  template Kokkos::View<std::int64_t *, Kokkos::HostSpace> project_partition<SPACE, ORDINAL>(      \
      SPACE const &, CsrGraph<ORDINAL, Kokkos::HostSpace> const &, std::vector<CoarseLevel> &,     \
      Kokkos::View<std::int64_t *, Kokkos::HostSpace>, std::int64_t, std::int64_t, int,            \
      std::uint64_t, ProgressLog const &, std::int64_t *);
#define TTGNN_INSTANTIATE_COARSEN_SPACE(SPACE)                                                     \
  TTGNN_INSTANTIATE_COARSEN(SPACE, std::int32_t)                                                   \
  TTGNN_INSTANTIATE_COARSEN(SPACE, std::int64_t)

TTGNN_INSTANTIATE_FOR_EACH_HOST_SPACE(TTGNN_INSTANTIATE_COARSEN_SPACE)

} // namespace ttgnn
