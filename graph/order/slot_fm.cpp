#include "graph/order/slot_fm.hpp"

#include "core/counter_rng.hpp"
#include "core/detail/instantiate.hpp"
#include "core/error.hpp"
#include "graph/detail/group_members.hpp"

#include <Kokkos_Profiling_ScopedRegion.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace ttgnn {
namespace {

using Id = std::int64_t;
using IdView = Kokkos::View<Id *, Kokkos::HostSpace>;
using Local = std::int32_t; // a node or slot of one slice

/// A move of a node, ranked by gain, then a seeded hash of (node, target).
struct Move {
  Id gain = 0;
  std::uint64_t tie = 0;
  Local node = -1, to = -1;
};

bool ranks_below(Move const &a, Move const &b) {
  if (a.gain != b.gain)
    return a.gain < b.gain;
  return a.tie != b.tie ? a.tie < b.tie : a.node < b.node;
}

/// One slice: its nodes in local ids (arcs between them only), their slots and the FM passes.
class SliceFm {
public:
  SliceFm(std::vector<Id> node, std::vector<Id> offset, std::vector<Local> adj,
          std::vector<Local> slot, Local slots, Id capacity, std::uint64_t seed)
      : node_(std::move(node)), offset_(std::move(offset)), adj_(std::move(adj)),
        slot_(std::move(slot)), cap_(capacity), seed_(seed), size_(slots, 0), in_slot_(slots),
        where_(slot_.size()), count_(slots, 0) {
    for (Local i = 0; i < num_nodes(); ++i) {
      ++size_[slot_[i]];
      where_[i] = static_cast<Local>(in_slot_[slot_[i]].size());
      in_slot_[slot_[i]].push_back(i);
    }
  }

  Local num_nodes() const { return static_cast<Local>(slot_.size()); }
  std::vector<Local> const &slots() const { return slot_; }

  /// One pass (see slot_fm.hpp); returns the edges it brought inside slots (>= 0).
  Id pass() {
    const Local n = num_nodes();
    std::vector<char> locked(n, 0);
    std::vector<std::pair<Local, Local>> log; // (node, slot it left)
    std::vector<Move> heap;
    auto push = [&](Local i) {
      const Move m = best_move(i, false);
      if (m.to >= 0) {
        heap.push_back(m);
        std::push_heap(heap.begin(), heap.end(), ranks_below);
      }
    };
    for (Local i = 0; i < n; ++i)
      push(i);
    const std::size_t patience = std::max<std::size_t>(64, static_cast<std::size_t>(n) / 32);
    Id gained = 0, best = 0;
    std::size_t best_len = 0, since_best = 0;
    Local over = -1; // the slot above capacity, if any
    while (true) {
      Move m;
      if (over < 0) { // the best move of the heap still valid
        while (!heap.empty()) {
          std::pop_heap(heap.begin(), heap.end(), ranks_below);
          const Move top = heap.back();
          heap.pop_back();
          if (locked[top.node])
            continue;
          const Move now = best_move(top.node, false);
          if (now.to >= 0 && now.gain == top.gain && now.tie == top.tie) {
            m = now;
            break;
          }
          if (now.to >= 0) { // stale: back with its current gain
            heap.push_back(now);
            std::push_heap(heap.begin(), heap.end(), ranks_below);
          }
        }
      } else { // the best move out of the full slot into one with room
        for (Local j : in_slot_[over]) {
          if (locked[j])
            continue;
          const Move c = best_move(j, true);
          if (c.to >= 0 && (m.to < 0 || ranks_below(m, c)))
            m = c;
        }
      }
      if (m.to < 0)
        break;
      log.emplace_back(m.node, slot_[m.node]);
      place(m.node, m.to);
      locked[m.node] = 1;
      gained += m.gain;
      over = size_[m.to] > cap_ ? m.to : -1;
      if (over < 0 && gained > best) {
        best = gained;
        best_len = log.size();
        since_best = 0;
      } else if (++since_best > patience) {
        break;
      }
      for (Id k = offset_[m.node]; k < offset_[m.node + 1]; ++k)
        if (!locked[adj_[k]])
          push(adj_[k]);
    }
    for (std::size_t k = log.size(); k-- > best_len;)
      place(log[k].first, log[k].second);
    return best;
  }

private:
  /// The best move of node i: to the slot its arcs point to most (room_only: among the slots
  /// below capacity, else those at most at capacity), ties by a seeded hash; with room_only and
  /// no such neighbour slot, to the first slot with room. to = -1: none.
  Move best_move(Local i, bool room_only) {
    touched_.clear();
    for (Id k = offset_[i]; k < offset_[i + 1]; ++k) {
      const Local s = slot_[adj_[k]];
      if (count_[s]++ == 0)
        touched_.push_back(s);
    }
    const Local own = slot_[i];
    const Id own_arcs = count_[own];
    Move best;
    auto allowed = [&](Local s) {
      return s != own && (room_only ? size_[s] < cap_ : size_[s] <= cap_);
    };
    for (Local s : touched_) { // the hash only where the gains tie
      if (!allowed(s))
        continue;
      const Id gain = count_[s] - own_arcs;
      if (best.to >= 0 && gain < best.gain)
        continue;
      const Move c{gain, hash(i, s), i, s};
      if (best.to < 0 || ranks_below(best, c))
        best = c;
    }
    for (Local s : touched_)
      count_[s] = 0;
    if (best.to < 0 && room_only)
      for (Local s = 0; s < static_cast<Local>(size_.size()); ++s)
        if (allowed(s))
          return Move{-own_arcs, hash(i, s), i, s};
    return best;
  }

  std::uint64_t hash(Local i, Local s) const {
    return splitmix64_hash(splitmix64_hash(seed_ ^ static_cast<std::uint64_t>(node_[i])) ^
                           static_cast<std::uint64_t>(s));
  }

  void place(Local i, Local to) {
    const Local from = slot_[i];
    auto &src = in_slot_[from];
    const Local last = src.back();
    src[where_[i]] = last;
    where_[last] = where_[i];
    src.pop_back();
    --size_[from];
    where_[i] = static_cast<Local>(in_slot_[to].size());
    in_slot_[to].push_back(i);
    ++size_[to];
    slot_[i] = to;
  }

  std::vector<Id> node_, offset_;
  std::vector<Local> adj_, slot_;
  Id cap_;
  std::uint64_t seed_;
  std::vector<Id> size_;
  std::vector<std::vector<Local>> in_slot_;
  std::vector<Local> where_;
  std::vector<Id> count_;
  std::vector<Local> touched_;
};

} // namespace

template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only>
std::int64_t fm_refine_slots(ExecutionSpace const &space,
                             CsrGraph<Ordinal, Kokkos::HostSpace> const &graph, IdView part,
                             std::int64_t num_parts, std::int64_t group, std::int64_t capacity,
                             int passes, std::uint64_t seed, std::vector<char> const &only) {
  Kokkos::Profiling::ScopedRegion region("ttgnn::order::slot_fm");
  const Id n = graph.num_nodes();
  if (group < 1 || num_parts < 1 || num_parts % group != 0 || group > (Id(1) << 30))
    throw ConfigError("fm_refine_slots: need 1 <= group <= 2^30 dividing num_parts (got " +
                      std::to_string(group) + " and " + std::to_string(num_parts) + ")");
  if (static_cast<Id>(part.extent(0)) != n)
    throw ConfigError("fm_refine_slots: " + std::to_string(part.extent(0)) + " parts for " +
                      std::to_string(n) + " nodes");
  std::vector<Id> size(num_parts, 0);
  for (Id v = 0; v < n; ++v) {
    if (part(v) < 0 || part(v) >= num_parts)
      throw ConfigError("fm_refine_slots: node " + std::to_string(v) + " has part " +
                        std::to_string(part(v)) + " outside [0, " + std::to_string(num_parts) +
                        ")");
    ++size[part(v)];
  }
  for (Id p = 0; p < num_parts; ++p)
    if (size[p] > capacity)
      throw ConfigError("fm_refine_slots: slot " + std::to_string(p) + " holds " +
                        std::to_string(size[p]) + " nodes, above the capacity " +
                        std::to_string(capacity));
  const Id slices = num_parts / group;
  if (!only.empty() && static_cast<Id>(only.size()) != slices)
    throw ConfigError("fm_refine_slots: " + std::to_string(only.size()) + " slice flags for " +
                      std::to_string(slices) + " slices");
  IdView start, members;
  detail::group_members(
      n, slices, [&](Id v) { return part(v) / group; }, start, members);
  for (Id s = 0; s < slices; ++s)
    if (start(s + 1) - start(s) > (Id(1) << 30))
      throw ConfigError("fm_refine_slots: a slice of more than 2^30 nodes");
  // part is only read until every slice is refined: each slice's result waits in its own vector.
  Kokkos::View<Local *, Kokkos::HostSpace> local(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::order::slot_fm_local"), n);
  std::vector<std::vector<Local>> result(slices);
  std::vector<Id> gained(slices, 0);
  std::vector<Local> *res = result.data();
  Id *gain = gained.data();
  using Policy =
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>, Kokkos::IndexType<Id>>;
  char const *flag = only.empty() ? nullptr : only.data();
  Kokkos::parallel_for("ttgnn::order::slot_fm", Policy(space, 0, slices), [=](Id s) {
    const Id b = start(s), count = start(s + 1) - b;
    if (flag && !flag[s])
      return; // left as it is: nothing to write back
    std::vector<Id> node(count), offset(count + 1, 0);
    std::vector<Local> adj, slot(count);
    for (Id a = 0; a < count; ++a) {
      node[a] = members(b + a);
      local(node[a]) = static_cast<Local>(a);
      slot[a] = static_cast<Local>(part(node[a]) - s * group);
    }
    for (Id a = 0; a < count; ++a) {
      const Id v = node[a];
      for (Id k = graph.row_map(v); k < graph.row_map(v + 1); ++k) {
        const Id u = static_cast<Id>(graph.entries(k));
        if (u != v && part(u) / group == s)
          adj.push_back(local(u));
      }
      offset[a + 1] = static_cast<Id>(adj.size());
    }
    SliceFm fm(std::move(node), std::move(offset), std::move(adj), std::move(slot),
               static_cast<Local>(group), capacity, splitmix64_hash(seed ^ static_cast<Id>(s)));
    for (int p = 0; p < passes; ++p) {
      const Id g = fm.pass();
      gain[s] += g;
      if (g <= 0)
        break;
    }
    res[s] = fm.slots();
  });
  space.fence();
  Kokkos::parallel_for("ttgnn::order::slot_fm_write", Policy(space, 0, slices), [=](Id s) {
    if (flag && !flag[s])
      return;
    for (Id a = 0; a < start(s + 1) - start(s); ++a)
      part(members(start(s) + a)) = s * group + res[s][a];
  });
  space.fence();
  Id total = 0;
  for (Id g : gained)
    total += g;
  return total;
}

#define TTGNN_INSTANTIATE_SLOT_FM(SPACE, ORDINAL)                                                  \
  template std::int64_t fm_refine_slots<SPACE, ORDINAL>(                                           \
      SPACE const &, CsrGraph<ORDINAL, Kokkos::HostSpace> const &,                                 \
      Kokkos::View<std::int64_t *, Kokkos::HostSpace>, std::int64_t, std::int64_t, std::int64_t,   \
      int, std::uint64_t, std::vector<char> const &);
#define TTGNN_INSTANTIATE_SLOT_FM_SPACE(SPACE)                                                     \
  TTGNN_INSTANTIATE_SLOT_FM(SPACE, std::int32_t)                                                   \
  TTGNN_INSTANTIATE_SLOT_FM(SPACE, std::int64_t)

TTGNN_INSTANTIATE_FOR_EACH_HOST_SPACE(TTGNN_INSTANTIATE_SLOT_FM_SPACE)

} // namespace ttgnn
