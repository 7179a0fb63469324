// Two-level size-constrained label propagation, slice packing and in-cluster BFS (see the
// header).
#include "graph/order/label_propagation_order.hpp"

#include "core/counter_rng.hpp"
#include "core/error.hpp"
#include "core/tt/tt_shape.hpp"

#include <algorithm>
#include <numeric>
#include <string>

namespace ttgnn {

namespace {

using Id = std::int64_t;

/// Edge counts per label around one node or cluster: open addressing, cleared through its
/// touched list (so a reset costs what the last use touched, not the table size).
struct LabelCounter {
  std::vector<Id> keys, counts;
  std::vector<std::size_t> touched;
  std::size_t mask = 0;

  void reset(Id expected) {
    std::size_t cap = 16;
    while (cap < 2 * static_cast<std::size_t>(expected) + 1)
      cap <<= 1;
    for (std::size_t s : touched) {
      keys[s] = -1;
      counts[s] = 0;
    }
    touched.clear();
    if (keys.size() < cap) {
      keys.assign(cap, -1);
      counts.assign(cap, 0);
    }
    mask = cap - 1;
  }
  void add(Id label) {
    std::size_t s = static_cast<std::size_t>(
                        (static_cast<std::uint64_t>(label) * 0x9E3779B97F4A7C15ull) >> 17) &
                    mask;
    while (keys[s] != -1 && keys[s] != label)
      s = (s + 1) & mask;
    if (keys[s] == -1) {
      keys[s] = label;
      touched.push_back(s);
    }
    ++counts[s];
  }
  /// The label to join: the one with most edges among those \p fits allows (ties: the current
  /// label first, then a hash of (seed, sweep, unit, label)); \p cur when none beats it.
  template <class Fits>
  Id best(Id cur, Id unit, std::uint64_t seed, int sweep, Fits const &fits) const {
    Id best = cur, best_count = 0;
    std::uint64_t best_tie = 0;
    for (std::size_t s : touched)
      if (keys[s] == cur)
        best_count = counts[s];
    for (std::size_t s : touched) {
      const Id l = keys[s], c = counts[s];
      if (l == cur || c < best_count || !fits(l))
        continue;
      std::uint64_t h = seed ^ (static_cast<std::uint64_t>(sweep) << 56) ^
                        (static_cast<std::uint64_t>(unit) * 0x9E3779B97F4A7C15ull) ^
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

} // namespace

template <class Ordinal>
LabelPropagationOrder label_propagation_order(CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                                              std::vector<std::int64_t> const &n_factors,
                                              std::uint64_t seed, int sweeps) {
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
  auto row_map = graph.row_map;
  auto entries = graph.entries;
  LabelPropagationOrder out;
  std::uint64_t state = seed;
  LabelCounter counter;

  // One level of size-constrained propagation over the nodes: every node joins the label most
  // of its counted neighbours carry, among labels whose cluster has fewer than cap nodes.
  const Tour nodes(n, state);
  auto propagate = [&](std::vector<L> &label, std::vector<L> &size, Id cap, auto const &counts,
                       std::uint64_t salt) {
    label.resize(n);
    size.assign(n, 1);
    std::iota(label.begin(), label.end(), L(0));
    for (int sweep = 0; sweep < sweeps && n > 0; ++sweep) {
      Id moved = 0;
      nodes.visit([&](Id v) {
        const Id begin = row_map(v), end = row_map(v + 1);
        if (begin == end)
          return;
        counter.reset(end - begin);
        for (Id k = begin; k < end; ++k)
          if (static_cast<Id>(entries(k)) != v && counts(v, static_cast<Id>(entries(k))))
            counter.add(label[entries(k)]);
        const Id cur = label[v];
        const Id best =
            counter.best(cur, v, seed ^ salt, sweep, [&](Id l) { return size[l] < cap; });
        if (best != cur) {
          --size[cur];
          ++size[best];
          label[v] = static_cast<L>(best);
          ++moved;
        }
      });
      out.sweeps += 1;
      out.moved_last = moved;
      if (moved * 100 < n)
        break;
    }
  };
  // ---- level 1: super clusters of at most n_2·...·n_K nodes (one core-1 slice)
  std::vector<L> super, super_size;
  propagate(
      super, super_size, slice, [](Id, Id) { return true; }, 0);
  // ---- level 2: inside each super cluster, clusters of at most n_K nodes (one last-digit slot)
  std::vector<L> label, size;
  propagate(
      label, size, fine_cap, [&](Id v, Id w) { return super[v] == super[w]; }, 0x5C);
  // members of every cluster together: cluster l owns bucket[start[l], start[l] + size[l]);
  // its super cluster is then that of its members (clusters never cross super clusters)
  std::vector<L> start(n), bucket(n);
  {
    Id total = 0;
    for (Id l = 0; l < n; ++l) {
      start[l] = static_cast<L>(total);
      total += size[l];
      out.clusters += size[l] > 0 ? 1 : 0;
    }
    std::vector<L> fill(start);
    for (Id v = 0; v < n; ++v)
      bucket[fill[label[v]]++] = static_cast<L>(v);
  }
  for (Id c = 0; c < n; ++c) // super[c] := super cluster of cluster c
    super_size[c] = size[c] > 0 ? super[bucket[start[c]]] : L(0);
  std::swap(super, super_size); // super: by cluster; super_size: free for reuse below

  // ---- super clusters (in label order) packed into slices; inside, their clusters (in label
  // order), each laid out breadth-first over its own edges (the output range is the queue)
  std::vector<L> &fill = super_size; // -> per super cluster: first, then (after) end in `order`
  std::fill(fill.begin(), fill.end(), L(0));
  for (Id c = 0; c < n; ++c)
    if (size[c] > 0)
      ++fill[super[c]];
  for (Id s = 0, total = 0; s < n; ++s) {
    const Id k = fill[s];
    fill[s] = static_cast<L>(total);
    total += k;
  }
  std::vector<L> order(out.clusters);
  for (Id c = 0; c < n; ++c)
    if (size[c] > 0)
      order[fill[super[c]]++] = static_cast<L>(c);
  std::vector<L>().swap(super);
  out.old_to_row = decltype(out.old_to_row)(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::lp_order::old_to_row"), n);
  out.new_to_old = decltype(out.new_to_old)(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::lp_order::new_to_old"), n);
  std::vector<std::uint8_t> visited(n, 0);
  Id spare = rows - n, row = 0, placed = 0, begin = 0;
  for (Id s = 0; s < n; ++s) {
    const Id end = fill[s]; // super cluster s: clusters order[begin, end)
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
    for (Id k = begin; k < end; ++k) {
      const Id c = order[k];
      for (Id m = start[c]; m < start[c] + size[c]; ++m) {
        if (visited[bucket[m]])
          continue;
        visited[bucket[m]] = 1;
        out.new_to_old(placed++) = bucket[m];
        for (Id q = placed - 1; q < placed; ++q) {
          const Id u = out.new_to_old(q);
          for (Id a = row_map(u); a < row_map(u + 1); ++a) {
            const Id w = entries(a);
            if (!visited[w] && static_cast<Id>(label[w]) == c) {
              visited[w] = 1;
              out.new_to_old(placed++) = w;
            }
          }
        }
      }
    }
    for (; row - out.holes < placed; ++row)
      out.old_to_row(out.new_to_old(row - out.holes)) = row;
    begin = end;
  }
  return out;
}

template LabelPropagationOrder
label_propagation_order<std::int32_t>(CsrGraph<std::int32_t, Kokkos::HostSpace> const &,
                                      std::vector<std::int64_t> const &, std::uint64_t, int);
template LabelPropagationOrder
label_propagation_order<std::int64_t>(CsrGraph<std::int64_t, Kokkos::HostSpace> const &,
                                      std::vector<std::int64_t> const &, std::uint64_t, int);

} // namespace ttgnn
