// Two-level size-constrained label propagation, slice packing and in-cluster BFS (see the
// header).
#include "graph/order/label_propagation_order.hpp"

#include "core/counter_rng.hpp"
#include "core/error.hpp"
#include "graph/order/detail/label_weights.hpp"
#include "core/tt/tt_shape.hpp"

#include <Kokkos_Profiling_ScopedRegion.hpp>

#include <algorithm>
#include <numeric>
#include <string>

namespace ttgnn {

namespace {

using Id = std::int64_t;

/// 2^64 / golden ratio (Fibonacci hashing): multiplying by it spreads consecutive ids over the
/// high bits.
constexpr std::uint64_t kGoldenGamma = 0x9E3779B97F4A7C15ull;

/// A sweep in which fewer than this percentage of the nodes change cluster ends the level:
/// the labels have settled, and further sweeps cost O(N + E) each for little change.
constexpr Id kConvergedMovedPercent = 1;

/// Salts XORed into the seed of the tie-break hash (LabelCounter::best), one per level. The
/// values are arbitrary; they only differ, so that level 2 breaks ties with other draws than
/// level 1 for the same (sweep, node, label).
constexpr std::uint64_t kSuperClusterTieSalt = 0;
constexpr std::uint64_t kClusterTieSalt = 0x5C;

/// Edge counts per label around one node or cluster (detail::LabelWeights) and the choice of
/// the label to join.
struct LabelCounter : detail::LabelWeights {
  /// The label to join: the one with most edges among those \p fits allows (ties: the current
  /// label first, then a hash of (seed, sweep, unit, label)); \p cur when none beats it.
  template <class Fits>
  Id best(Id cur, Id unit, std::uint64_t seed, int sweep, Fits const &fits) const {
    Id best = cur, best_count = 0;
    std::uint64_t best_tie = 0;
    for (std::size_t s : touched)
      if (keys[s] == cur)
        best_count = weights[s];
    for (std::size_t s : touched) {
      const Id l = keys[s], c = weights[s];
      if (l == cur || c < best_count || !fits(l))
        continue;
      std::uint64_t h = seed ^ (static_cast<std::uint64_t>(sweep) << 56) ^
                        (static_cast<std::uint64_t>(unit) * kGoldenGamma) ^
                        static_cast<std::uint64_t>(l);
      const std::uint64_t tie = splitmix64_next(h);
      if (c > best_count || (best != cur && tie > best_tie)) {
        best = l;
        best_count = c;
        best_tie = tie;
      }
    }
    return best;
  }
};

Id gcd(Id a, Id b) {
  while (b) {
    const Id t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/// A fixed pseudo-random tour of [0, n): v = (start + i * step) mod n, step coprime to n.
struct Tour {
  Id n, start = 0, step = 1;
  Tour(Id n_, std::uint64_t &state) : n(n_) {
    if (n <= 1)
      return;
    step = static_cast<Id>(splitmix64_next(state) % static_cast<std::uint64_t>(n));
    while (step == 0 || gcd(step, n) != 1)
      step = (step + 1) % n;
    start = static_cast<Id>(splitmix64_next(state) % static_cast<std::uint64_t>(n));
  }
  template <class F> void visit(F const &f) const {
    Id v = start;
    for (Id i = 0; i < n; ++i, v = (v + step) % n)
      f(v);
  }
};

/// Size-constrained label propagation over the nodes of a graph, one level per call to
/// level(): every node, in a fixed seeded tour, joins the label most of its counted neighbours
/// carry, among labels whose cluster has fewer than cap nodes.
template <class Ordinal> class LabelPropagation {
public:
  using L = Ordinal; // labels and sizes are < N: node ids fit them

  /// Draws the visiting tour from \p state.
  LabelPropagation(CsrGraph<Ordinal, Kokkos::HostSpace> const &graph, std::uint64_t seed,
                   int sweeps, std::uint64_t &state)
      : row_map_(graph.row_map), entries_(graph.entries), n_(graph.num_nodes()), nodes_(n_, state),
        seed_(seed), sweeps_(sweeps) {}

  /// One level from singleton clusters: \p label and \p size (by label) of the result. An edge
  /// (v, w) counts when counts(v, w); ties are broken with \p salt (see kClusterTieSalt). Adds
  /// the sweeps run to out.sweeps and sets out.moved_last.
  template <class Counts>
  void level(std::vector<L> &label, std::vector<L> &size, Id cap, Counts const &counts,
             std::uint64_t salt, LabelPropagationOrder &out) {
    label.resize(n_);
    size.assign(n_, 1);
    std::iota(label.begin(), label.end(), L(0));
    for (int sweep = 0; sweep < sweeps_ && n_ > 0; ++sweep) {
      const Id moved = run_sweep(label, size, cap, counts, seed_ ^ salt, sweep);
      out.sweeps += 1;
      out.moved_last = moved;
      if (moved * 100 < kConvergedMovedPercent * n_)
        break;
    }
  }

private:
  /// One sweep over the tour; returns the number of nodes that changed label.
  template <class Counts>
  Id run_sweep(std::vector<L> &label, std::vector<L> &size, Id cap, Counts const &counts,
               std::uint64_t tie_seed, int sweep) {
    Id moved = 0;
    nodes_.visit([&](Id v) {
      const Id begin = row_map_(v), end = row_map_(v + 1);
      if (begin == end)
        return;
      counter_.reset(end - begin);
      for (Id k = begin; k < end; ++k)
        if (static_cast<Id>(entries_(k)) != v && counts(v, static_cast<Id>(entries_(k))))
          counter_.add(label[entries_(k)]);
      const Id cur = label[v];
      const Id best = counter_.best(cur, v, tie_seed, sweep, [&](Id l) { return size[l] < cap; });
      if (best != cur) {
        --size[cur];
        ++size[best];
        label[v] = static_cast<L>(best);
        ++moved;
      }
    });
    return moved;
  }

  decltype(CsrGraph<Ordinal, Kokkos::HostSpace>::row_map) row_map_;
  decltype(CsrGraph<Ordinal, Kokkos::HostSpace>::entries) entries_;
  Id n_;
  Tour nodes_;
  std::uint64_t seed_;
  int sweeps_;
  LabelCounter counter_;
};

/// Members of every cluster together: cluster l owns bucket[start[l], start[l] + size[l]),
/// members in ascending node order. Returns the number of non-empty clusters.
template <class L>
Id bucket_clusters(std::vector<L> const &label, std::vector<L> const &size, std::vector<L> &start,
                   std::vector<L> &bucket) {
  const Id n = static_cast<Id>(label.size());
  Id total = 0, clusters = 0;
  for (Id l = 0; l < n; ++l) {
    start[l] = static_cast<L>(total);
    total += size[l];
    clusters += size[l] > 0 ? 1 : 0;
  }
  std::vector<L> fill(start);
  for (Id v = 0; v < n; ++v)
    bucket[fill[label[v]]++] = static_cast<L>(v);
  return clusters;
}

/// The non-empty clusters grouped by super cluster (both in label order). \p super gives the
/// super cluster of each cluster; on return \p ends[s] is the end in the result of super
/// cluster s's clusters (so they are [ends[s - 1], ends[s])).
template <class L>
std::vector<L> clusters_by_super_cluster(std::vector<L> const &super, std::vector<L> const &size,
                                         Id clusters, std::vector<L> &ends) {
  const Id n = static_cast<Id>(size.size());
  std::fill(ends.begin(), ends.end(), L(0));
  for (Id c = 0; c < n; ++c)
    if (size[c] > 0)
      ++ends[super[c]];
  for (Id s = 0, total = 0; s < n; ++s) {
    const Id k = ends[s];
    ends[s] = static_cast<L>(total);
    total += k;
  }
  std::vector<L> order(clusters);
  for (Id c = 0; c < n; ++c)
    if (size[c] > 0)
      order[ends[super[c]]++] = static_cast<L>(c);
  return order;
}

/// Appends cluster \p c to out.new_to_old from position \p placed on, breadth-first over its
/// own edges from each not yet visited member in turn (the output range is the queue).
template <class Ordinal, class L>
void lay_out_cluster(CsrGraph<Ordinal, Kokkos::HostSpace> const &graph, Id c,
                     std::vector<L> const &label, std::vector<L> const &size,
                     std::vector<L> const &start, std::vector<L> const &bucket,
                     std::vector<std::uint8_t> &visited, Id &placed, LabelPropagationOrder &out) {
  for (Id m = start[c]; m < start[c] + size[c]; ++m) {
    if (visited[bucket[m]])
      continue;
    visited[bucket[m]] = 1;
    out.new_to_old(placed++) = bucket[m];
    for (Id q = placed - 1; q < placed; ++q) {
      const Id u = out.new_to_old(q);
      for (Id a = graph.row_map(u); a < graph.row_map(u + 1); ++a) {
        const Id w = graph.entries(a);
        if (!visited[w] && static_cast<Id>(label[w]) == c) {
          visited[w] = 1;
          out.new_to_old(placed++) = w;
        }
      }
    }
  }
}

/// Packs the super clusters, in order, into the core-1 slices of \p slice rows: one that does
/// not fit the room left in a slice starts the next slice while the spare rows allow it. Fills
/// out.new_to_old, out.old_to_row and out.holes.
template <class Ordinal, class L>
void pack_slices(CsrGraph<Ordinal, Kokkos::HostSpace> const &graph, Id rows, Id slice,
                 std::vector<L> const &label, std::vector<L> const &size,
                 std::vector<L> const &start, std::vector<L> const &bucket,
                 std::vector<L> const &order, std::vector<L> const &ends,
                 LabelPropagationOrder &out) {
  const Id n = graph.num_nodes();
  out.old_to_row = decltype(out.old_to_row)(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::lp_order::old_to_row"), n);
  out.new_to_old = decltype(out.new_to_old)(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::lp_order::new_to_old"), n);
  std::vector<std::uint8_t> visited(n, 0);
  Id spare = rows - n, row = 0, placed = 0, begin = 0;
  for (Id s = 0; s < n; ++s) {
    const Id end = ends[s]; // super cluster s: clusters order[begin, end)
    if (end == begin)
      continue;
    Id nodes_in = 0;
    for (Id k = begin; k < end; ++k)
      nodes_in += size[order[k]];
    const Id room = slice - row % slice;
    if (nodes_in > room && room <= spare) { // start the next slice, leaving `room` rows empty
      row += room;
      spare -= room;
      out.holes += room;
    }
    for (Id k = begin; k < end; ++k)
      lay_out_cluster(graph, order[k], label, size, start, bucket, visited, placed, out);
    for (; row - out.holes < placed; ++row)
      out.old_to_row(out.new_to_old(row - out.holes)) = row;
    begin = end;
  }
}

} // namespace

template <class Ordinal>
LabelPropagationOrder label_propagation_order(CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                                              std::vector<std::int64_t> const &n_factors,
                                              std::uint64_t seed, int sweeps) {
  Kokkos::Profiling::ScopedRegion region("ttgnn::lp_order::compute");
  using L = Ordinal; // labels, sizes and positions are < N: node ids fit them
  const Id n = graph.num_nodes();
  const Id rows = check_row_factors(n_factors, n, "label-propagation order", 2);
  if (sweeps < 1)
    throw ConfigError("label-propagation order: sweeps must be >= 1, got " +
                      std::to_string(sweeps));
  Id slice = 1;
  for (std::size_t k = 1; k < n_factors.size(); ++k)
    slice *= n_factors[k];
  const Id fine_cap = n_factors.back(); // one slot of the last digit
  LabelPropagationOrder out;
  std::uint64_t state = seed;
  LabelPropagation<Ordinal> propagation(graph, seed, sweeps, state);

  // ---- level 1: super clusters of at most n_2·...·n_K nodes (one core-1 slice)
  std::vector<L> super, super_size;
  {
    Kokkos::Profiling::ScopedRegion level_region("ttgnn::lp_order::super_clusters");
    propagation.level(
        super, super_size, slice, [](Id, Id) { return true; }, kSuperClusterTieSalt, out);
  }
  // ---- level 2: inside each super cluster, clusters of at most n_K nodes (one last-digit slot)
  std::vector<L> label, size;
  {
    Kokkos::Profiling::ScopedRegion level_region("ttgnn::lp_order::clusters");
    propagation.level(
        label, size, fine_cap, [&](Id v, Id w) { return super[v] == super[w]; }, kClusterTieSalt,
        out);
  }
  std::vector<L> start(n), bucket(n);
  out.clusters = bucket_clusters(label, size, start, bucket);
  // The super cluster of a cluster is that of its members (clusters never cross super clusters).
  for (Id c = 0; c < n; ++c) // super_size[c] := super cluster of cluster c
    super_size[c] = size[c] > 0 ? super[bucket[start[c]]] : L(0);
  std::swap(super, super_size); // super: by cluster; super_size: free for reuse below

  // ---- super clusters (in label order) packed into slices; inside, their clusters (in label
  // order), each laid out breadth-first over its own edges
  std::vector<L> &ends = super_size;
  const std::vector<L> order = clusters_by_super_cluster(super, size, out.clusters, ends);
  std::vector<L>().swap(super);
  Kokkos::Profiling::ScopedRegion pack_region("ttgnn::lp_order::pack");
  pack_slices(graph, rows, slice, label, size, start, bucket, order, ends, out);
  return out;
}

template LabelPropagationOrder
label_propagation_order<std::int32_t>(CsrGraph<std::int32_t, Kokkos::HostSpace> const &,
                                      std::vector<std::int64_t> const &, std::uint64_t, int);
template LabelPropagationOrder
label_propagation_order<std::int64_t>(CsrGraph<std::int64_t, Kokkos::HostSpace> const &,
                                      std::vector<std::int64_t> const &, std::uint64_t, int);

} // namespace ttgnn
