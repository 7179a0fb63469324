// Size-constrained label propagation in synchronous rounds, graph contraction, refinement (see
// the header).
#include "graph/order/multilevel_coarsen.hpp"

#include "core/counter_rng.hpp"
#include "core/detail/instantiate.hpp"
#include "core/error.hpp"
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

using LabelTable = detail::LabelWeights;

/// Label propagation over \p label (weights per label in \p lw, updated) for at most
/// \p sweeps sweeps; a label's weight stays <= cap unless it already exceeded it. Stops early
/// when a sweep moves fewer than 1% of the nodes. \p group > 0: a node only moves to labels l
/// with l / group == its label / group. \p meter (optional) counts the rounds (sweeps x
/// kColours; an early stop leaves it short). Returns the sweeps run.
template <class ExecutionSpace, class Ordinal, class EdgeWeight, class NodeWeight>
int propagate(ExecutionSpace const &space, CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
              EdgeWeight ew, NodeWeight vw, IdView label, IdView lw, Id cap, int sweeps,
              std::uint64_t seed, Id &moves, Id group = 0, ProgressMeter *meter = nullptr) {
  const Id n = graph.num_nodes();
  auto row_map = graph.row_map;
  auto entries = graph.entries;
  using Policy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Id>>;
  IdView target(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::order::lp_target"), n);
  IdView gain(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::order::lp_gain"), n);
  IdView movers(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::order::lp_movers"), n);
  Kokkos::Experimental::UniqueToken<ExecutionSpace> token(space);
  std::vector<LabelTable> tables(token.size());
  LabelTable *tab = tables.data();
  int run = 0;
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    Id moved_sweep = 0;
    const std::uint64_t sweep_seed = hash3(seed, kColourSalt, static_cast<std::uint64_t>(sweep));
    for (std::uint64_t colour = 0; colour < kColours; ++colour) {
      const std::uint64_t round_seed = hash3(sweep_seed, kColourSalt, colour);
      Kokkos::parallel_for("ttgnn::order::lp_propose", Policy(space, 0, n), [=](Id v) {
        target(v) = -1;
        if (hash3(sweep_seed, 0, static_cast<std::uint64_t>(v)) % kColours != colour)
          return;
        const Id b = row_map(v), e = row_map(v + 1);
        if (b == e)
          return;
        const int t = token.acquire();
        LabelTable &table = tab[t];
        table.reset(e - b);
        for (Id a = b; a < e; ++a)
          if (static_cast<Id>(entries(a)) != v)
            table.add(label(entries(a)), ew(a));
        const Id cur = label(v), cur_w = table.get(cur), own = vw(v);
        Id best = -1, best_w = cur_w;
        std::uint64_t best_tie = 0;
        for (std::size_t s : table.touched) {
          const Id l = table.keys[s], w = table.weights[s];
          if (l == cur || w < best_w || lw(l) + own > cap ||
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
          target(v) = best;
          gain(v) = best_w - cur_w;
        }
      });
      Id count = 0;
      Kokkos::parallel_scan(
          "ttgnn::order::lp_collect", Policy(space, 0, n),
          [=](Id v, Id &k, bool final) {
            if (target(v) >= 0) {
              if (final)
                movers(k) = v;
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
        if (gain(a) != gain(b))
          return gain(a) > gain(b);
        const std::uint64_t ha = hash3(round_seed, kOrderSalt, a);
        const std::uint64_t hb = hash3(round_seed, kOrderSalt, b);
        return ha != hb ? ha < hb : a < b;
      });
      for (Id i = 0; i < count; ++i) {
        const Id v = m[i], to = target(v), own = vw(v);
        if (lw(to) + own > cap)
          continue;
        lw(to) += own;
        lw(label(v)) -= own;
        label(v) = to;
        ++moved_sweep;
      }
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

/// The graph of the clusters \p label (labels in [0, n), weight lw(l) > 0 iff used).
template <class ExecutionSpace, class Ordinal, class EdgeWeight>
CoarseLevel contract(ExecutionSpace const &space, CsrGraph<Ordinal, Kokkos::HostSpace> const &g,
                     EdgeWeight ew, IdView label, IdView lw) {
  const Id n = g.num_nodes();
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
  // Members of each coarse node, ascending (counting sort).
  std::vector<Id> start(c + 1, 0), members(n);
  for (Id v = 0; v < n; ++v)
    ++start[coarse_of(v) + 1];
  for (Id k = 0; k < c; ++k)
    start[k + 1] += start[k];
  {
    std::vector<Id> fill(start.begin(), start.end() - 1);
    for (Id v = 0; v < n; ++v)
      members[fill[coarse_of(v)]++] = v;
  }
  const Id *st = start.data(), *mem = members.data();
  auto row_map = g.row_map;
  auto entries = g.entries;
  Kokkos::Experimental::UniqueToken<ExecutionSpace> token(space);
  std::vector<LabelTable> tables(token.size());
  LabelTable *tab = tables.data();
  auto gather = [=](Id k, LabelTable &table) {
    Id arcs = 0;
    for (Id i = st[k]; i < st[k + 1]; ++i)
      arcs += row_map(mem[i] + 1) - row_map(mem[i]);
    table.reset(std::min<Id>(arcs, n));
    for (Id i = st[k]; i < st[k + 1]; ++i)
      for (Id a = row_map(mem[i]); a < row_map(mem[i] + 1); ++a) {
        const Id d = coarse_of(entries(a));
        if (d != k)
          table.add(d, ew(a));
      }
  };
  cg.graph.row_map = decltype(cg.graph.row_map)("ttgnn::order::coarse_row_map", c + 1);
  auto crow = cg.graph.row_map;
  Kokkos::parallel_for("ttgnn::order::coarse_degree", Policy(space, 0, c), [=](Id k) {
    const int t = token.acquire();
    gather(k, tab[t]);
    crow(k + 1) = static_cast<Id>(tab[t].touched.size());
    token.release(t);
  });
  space.fence();
  for (Id k = 0; k < c; ++k)
    crow(k + 1) += crow(k);
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

/// One coarsening level of \p g (weights ew, vw): clusters of weight <= cap. Progress lines
/// (ETA) to \p progress, named \p what.
template <class ExecutionSpace, class Ordinal, class EdgeWeight, class NodeWeight>
CoarseLevel coarsen_once(ExecutionSpace const &space, CsrGraph<Ordinal, Kokkos::HostSpace> const &g,
                         EdgeWeight ew, NodeWeight vw, Id cap, int sweeps, std::uint64_t seed,
                         ProgressLog const &progress, std::string const &what) {
  const Id n = g.num_nodes();
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
  const int run = propagate(space, g, ew, vw, label, lw, cap, sweeps, seed, moves, 0, &meter);
  CoarseLevel level = contract(space, g, ew, label, lw);
  meter.update(rounds + kContractSteps);
  level.cap = cap;
  level.sweeps = run;
  return level;
}

template <class ExecutionSpace, class Ordinal, class EdgeWeight, class NodeWeight>
Id refine(ExecutionSpace const &space, CsrGraph<Ordinal, Kokkos::HostSpace> const &g, EdgeWeight ew,
          NodeWeight vw, IdView part, Id num_parts, Id capacity, int sweeps, std::uint64_t seed,
          Id group = 0, ProgressLog const &progress = {}, std::string const &what = {}) {
  IdView pw("ttgnn::order::part_weight", num_parts);
  for (Id v = 0; v < g.num_nodes(); ++v) {
    if (part(v) < 0 || part(v) >= num_parts)
      throw ConfigError("refine_partition: node " + std::to_string(v) + " has part " +
                        std::to_string(part(v)) + " outside [0, " + std::to_string(num_parts) +
                        ")");
    pw(part(v)) += vw(v);
  }
  Id moves = 0;
  const Id rounds = static_cast<Id>(sweeps) * static_cast<Id>(kColours);
  ProgressMeter meter(progress, what, rounds, "rounds");
  propagate(space, g, ew, vw, part, pw, capacity, sweeps, seed, moves, group, &meter);
  meter.update(rounds);
  return moves;
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
    CoarseLevel level =
        l == 0 ? coarsen_once(space, graph, UnitWeight{}, UnitWeight{}, options.first_cap,
                              options.sweeps, seed, options.progress, what)
               : coarsen_once(space, levels.back().coarse.graph, levels.back().coarse.edge_weight,
                              levels.back().coarse.node_weight, options.cap, options.sweeps, seed,
                              options.progress, what);
    const Id coarse_nodes = level.coarse.graph.num_nodes();
    if (coarse_nodes >= nodes)
      break;
    const bool stalled = coarse_nodes * 100 > kStallPercent * nodes;
    nodes = coarse_nodes;
    arcs = level.coarse.graph.num_arcs();
    levels.push_back(std::move(level));
    if (stalled)
      break;
  }
  return levels;
}

template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only>
std::int64_t refine_partition(ExecutionSpace const &space,
                              CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                              Kokkos::View<std::int64_t *, Kokkos::HostSpace> part,
                              std::int64_t num_parts, std::int64_t capacity, int sweeps,
                              std::uint64_t seed, std::int64_t group, ProgressLog const &progress) {
  return refine(space, graph, UnitWeight{}, UnitWeight{}, part, num_parts, capacity, sweeps, seed,
                group, progress, "ordering: slot refinement");
}

template <class ExecutionSpace, HostOnly<ExecutionSpace> host_only>
std::int64_t refine_partition(ExecutionSpace const &space, CoarseGraph const &graph,
                              Kokkos::View<std::int64_t *, Kokkos::HostSpace> part,
                              std::int64_t num_parts, std::int64_t capacity, int sweeps,
                              std::uint64_t seed) {
  return refine(space, graph.graph, graph.edge_weight, graph.node_weight, part, num_parts, capacity,
                sweeps, seed);
}

#define TTGNN_INSTANTIATE_COARSEN(SPACE, ORDINAL)                                                  \
  template std::vector<CoarseLevel> coarsen_graph<SPACE, ORDINAL>(                                 \
      SPACE const &, CsrGraph<ORDINAL, Kokkos::HostSpace> const &, CoarsenOptions const &);        \
  template std::int64_t refine_partition<SPACE, ORDINAL>(                                          \
      SPACE const &, CsrGraph<ORDINAL, Kokkos::HostSpace> const &,                                 \
      Kokkos::View<std::int64_t *, Kokkos::HostSpace>, std::int64_t, std::int64_t, int,            \
      std::uint64_t, std::int64_t, ProgressLog const &);
#define TTGNN_INSTANTIATE_COARSEN_SPACE(SPACE)                                                     \
  TTGNN_INSTANTIATE_COARSEN(SPACE, std::int32_t)                                                   \
  TTGNN_INSTANTIATE_COARSEN(SPACE, std::int64_t)                                                   \
  template std::int64_t refine_partition<SPACE>(SPACE const &, CoarseGraph const &,                \
                                                Kokkos::View<std::int64_t *, Kokkos::HostSpace>,   \
                                                std::int64_t, std::int64_t, int, std::uint64_t);

TTGNN_INSTANTIATE_FOR_EACH_HOST_SPACE(TTGNN_INSTANTIATE_COARSEN_SPACE)

} // namespace ttgnn
