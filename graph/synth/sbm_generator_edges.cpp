// SbmGenerator::generate_edges: parallel edge sampling in fixed chunks, bucketing by the smaller
// endpoint, sort + unique per bucket, and top-up rounds until every kind has its exact count.
//
// Keys inside this file are (a << 32) | (b << 2) | kind with a < b (N <= 2^30): sorting them
// sorts by (a, b), and the kind rides along for free (it is a function of the pair anyway).
#include "core/error.hpp"
#include "core/kokkos_compat.hpp"
#include "core/counter_rng.hpp"
#include "graph/synth/detail/sbm_detail.hpp"
#include "graph/synth/sbm_generator.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace ttgnn {

/// Draws one edge of a given kind (see sbm_generator.hpp for the model).
struct SbmEdgeSampler {
  SbmGenerator::AliasEntry const *table;
  std::int64_t n, q, r, big_end, m; // big_end = r * (q + 1) positions in the larger groups

  std::int64_t group_start(std::int64_t g) const { return g * q + std::min(g, r); }
  std::int64_t group_of(std::int64_t pos) const {
    return pos < big_end ? pos / (q + 1) : r + (pos - big_end) / q;
  }
  std::int32_t pick(std::int64_t pos, CounterRng &rng) const {
    const SbmGenerator::AliasEntry e = table[pos];
    if (e.prob >= 1.0f)
      return e.node;
    return rng.uniform() < e.prob ? e.node : e.alias_node;
  }
  std::uint64_t draw(int kind, CounterRng &rng, std::int64_t &self_loops) const {
    const auto pu = static_cast<std::int64_t>(rng.below(n));
    const std::int32_t u = pick(pu, rng);
    const std::int64_t g = group_of(pu), gs = group_start(g), ge = group_start(g + 1);
    std::int32_t v;
    if (kind == 0) {
      for (;;) {
        v = pick(gs + static_cast<std::int64_t>(rng.below(ge - gs)), rng);
        if (v != u)
          break;
        ++self_loops;
      }
    } else {
      const std::int64_t c = g / m, cs = group_start(c * m), ce = group_start(c * m + m);
      std::int64_t pv;
      if (kind == 1) { // u's class outside u's community
        pv = cs + static_cast<std::int64_t>(rng.below((ce - cs) - (ge - gs)));
        if (pv >= gs)
          pv += ge - gs;
      } else { // outside u's class
        pv = static_cast<std::int64_t>(rng.below(n - (ce - cs)));
        if (pv >= cs)
          pv += ce - cs;
      }
      v = pick(pv, rng);
    }
    const auto a = static_cast<std::uint64_t>(std::min(u, v));
    const auto b = static_cast<std::uint64_t>(std::max(u, v));
    return (a << 32) | (b << 2) | static_cast<std::uint64_t>(kind);
  }
};

namespace {

constexpr std::int64_t kChunk = 1 << 16; // min draws per stream; sizes, not threads, set it
constexpr int kMaxRounds = 200;

/// Buckets are contiguous ranges of the smaller endpoint, sized for equal expected counts
/// (the minimum of two uniform ids has density 2(1 - x)); a table over 2^16 coarse blocks of
/// ids maps an id to its bucket in O(1).
struct BucketMap {
  int shift = 0;
  std::int64_t count = 1;
  std::vector<std::int32_t> of_block;

  BucketMap(std::int64_t n, std::int64_t edges) {
    while (((n - 1) >> shift) >= (1 << 16))
      ++shift;
    const std::int64_t blocks = ((n - 1) >> shift) + 1;
    count = std::clamp<std::int64_t>(edges / 32768, 1, std::min<std::int64_t>(8192, blocks));
    of_block.resize(blocks);
    for (std::int64_t k = 0; k < blocks; ++k) {
      const double x =
          std::min(1.0, (static_cast<double>(k) + 0.5) *
                            static_cast<double>(std::int64_t{1} << shift) / static_cast<double>(n));
      const double mass = 1 - (1 - x) * (1 - x);
      of_block[k] = static_cast<std::int32_t>(
          std::min<std::int64_t>(count - 1, static_cast<std::int64_t>(mass * count)));
    }
  }
  std::int64_t operator()(std::uint64_t key) const { return of_block[(key >> 32) >> shift]; }
};

struct Chunk {
  int kind;
  std::int64_t index, draws;
};

} // namespace

namespace sbm_detail {

void relayout_regions(std::uint64_t *store, std::vector<std::int64_t> &base,
                      std::vector<std::int64_t> &cap, std::vector<std::int64_t> const &size,
                      std::vector<std::int64_t> const &fresh) {
  const auto nb = static_cast<std::int64_t>(cap.size());
  std::int64_t used = 0, keys = 0;
  for (std::int64_t b = 0; b < nb; ++b) {
    used += size[b] + fresh[b];
    keys += size[b];
  }
  const std::int64_t spare = base[nb] - used;
  if (spare < 0)
    throw Error("sbm generator: internal error: edge store too small");
  std::vector<std::int64_t> new_base(nb + 1, 0);
  std::int64_t given = 0;
  for (std::int64_t b = 0; b < nb; ++b) {
    const std::int64_t share =
        keys > 0 ? static_cast<std::int64_t>(static_cast<double>(spare) * size[b] / keys) : 0;
    cap[b] = size[b] + fresh[b] + std::min(share, spare - given);
    given += cap[b] - size[b] - fresh[b];
    new_base[b + 1] = new_base[b] + cap[b];
  }
  cap[nb - 1] += base[nb] - new_base[nb]; // the rounding remainder
  new_base[nb] = base[nb];
  auto move = [&](std::int64_t b) {
    std::memmove(store + new_base[b], store + base[b], sizeof(std::uint64_t) * size[b]);
  };
  for (std::int64_t b = 0; b < nb; ++b)
    if (new_base[b] <= base[b])
      move(b);
  for (std::int64_t b = nb - 1; b >= 0; --b)
    if (new_base[b] > base[b])
      move(b);
  base = new_base;
}

} // namespace sbm_detail

template <class ExecutionSpace>
SbmGenerator::Edges SbmGenerator::generate_edges(ExecutionSpace const &space,
                                                 Progress const &progress) const {
  static_assert(Kokkos::SpaceAccessibility<ExecutionSpace, Kokkos::HostSpace>::accessible,
                "SbmGenerator::generate_edges needs a host execution space");
  using Policy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
  const std::int64_t n = config_.num_nodes, total = targets_[0] + targets_[1] + targets_[2];
  const SbmEdgeSampler sampler{
      table_.data(),      n, group_size_, big_groups_, big_groups_ * (group_size_ + 1),
      config_.communities};
  const std::uint64_t seed = config_.seed;
  const BucketMap bucket(n, total);
  const std::int64_t nb = bucket.count;
  // At most ~2048 chunks per round keeps the (chunk x bucket) count table small for huge E.
  const std::int64_t chunk_draws = std::max<std::int64_t>(kChunk, (total + 2047) / 2048);

  Edges out;
  // store: bucket b owns [base[b], base[b] + cap[b]); its first size[b] keys are sorted, unique.
  Kokkos::View<std::uint64_t *, Kokkos::HostSpace> store("ttgnn::sbm::edge_keys", 0);
  std::vector<std::int64_t> base(nb + 1, 0), cap(nb, 0), size(nb, 0);
  std::int64_t have[3] = {0, 0, 0};
  for (int round = 0;; ++round) {
    const std::int64_t deficit[3] = {targets_[0] - have[0], targets_[1] - have[1],
                                     targets_[2] - have[2]};
    if (deficit[0] + deficit[1] + deficit[2] == 0)
      break;
    if (round == kMaxRounds)
      throw ConfigError("sbm generator: " + std::to_string(deficit[0] + deficit[1] + deficit[2]) +
                        " edges still missing after " + std::to_string(kMaxRounds) +
                        " rounds: the requested graph is too dense for its communities (lower "
                        "--avg-degree or --power-law weight)");
    std::vector<Chunk> chunks;
    for (int kind = 0; kind < 3; ++kind)
      for (std::int64_t i = 0; i * chunk_draws < deficit[kind]; ++i)
        chunks.push_back({kind, i, std::min(chunk_draws, deficit[kind] - i * chunk_draws)});
    const auto nc = static_cast<std::int64_t>(chunks.size());
    auto stream = [&](Chunk const &c) {
      return CounterRng(seed,
                        sbm_detail::stream::edges + 3 * static_cast<std::uint64_t>(round) + c.kind,
                        static_cast<std::uint64_t>(c.index));
    };

    // Pass 1: count draws per (chunk, bucket).
    std::vector<std::int64_t> offsets(nc * nb, 0), loops(nc, 0);
    Kokkos::parallel_for("ttgnn::sbm::count_draws", Policy(space, 0, nc), [&](std::int64_t ci) {
      CounterRng rng = stream(chunks[ci]);
      std::int64_t *row = offsets.data() + ci * nb;
      for (std::int64_t d = 0; d < chunks[ci].draws; ++d)
        ++row[bucket(sampler.draw(chunks[ci].kind, rng, loops[ci]))];
    });
    space.fence();
    // Exclusive scan: chunk ci writes its bucket-b keys at start[b] + offsets[ci * nb + b].
    std::vector<std::int64_t> drawn(nb, 0);
    for (std::int64_t ci = 0; ci < nc; ++ci)
      for (std::int64_t b = 0; b < nb; ++b) {
        const std::int64_t c = offsets[ci * nb + b];
        offsets[ci * nb + b] = drawn[b];
        drawn[b] += c;
      }
    std::vector<std::int64_t> start(nb + 1, 0);
    if (round == 0) { // the draws go straight into the store, with ~1.6% slack for top-ups
      for (std::int64_t b = 0; b < nb; ++b) {
        cap[b] = drawn[b] + drawn[b] / 64 + 64;
        base[b + 1] = base[b] + cap[b];
      }
      store = decltype(store)(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::sbm::edge_keys"), base[nb]);
      start = base;
    } else {
      for (std::int64_t b = 0; b < nb; ++b)
        start[b + 1] = start[b] + drawn[b];
    }
    Kokkos::View<std::uint64_t *, Kokkos::HostSpace> staging =
        round == 0 ? store
                   : decltype(store)(
                         Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::sbm::topup_keys"),
                         start[nb]);
    // Pass 2: the same draws again (same streams), written to their places.
    std::uint64_t *keys = staging.data();
    Kokkos::parallel_for("ttgnn::sbm::place_draws", Policy(space, 0, nc), [&](std::int64_t ci) {
      CounterRng rng = stream(chunks[ci]);
      std::int64_t *row = offsets.data() + ci * nb, ignored = 0;
      for (std::int64_t d = 0; d < chunks[ci].draws; ++d) {
        const std::uint64_t key = sampler.draw(chunks[ci].kind, rng, ignored);
        const std::int64_t b = bucket(key);
        keys[start[b] + row[b]++] = key;
      }
    });
    space.fence();

    // Sort + unique each bucket's new keys, drop those already stored, count kinds.
    std::vector<std::int64_t> fresh(nb, 0), kinds(3 * nb, 0);
    std::uint64_t *stored = store.data();
    Kokkos::parallel_for("ttgnn::sbm::dedupe", Policy(space, 0, nb), [&](std::int64_t b) {
      std::uint64_t *first = keys + start[b], *last = first + drawn[b];
      std::sort(first, last);
      last = std::unique(first, last);
      if (round > 0) {
        std::uint64_t const *old = stored + base[b], *old_end = old + size[b];
        last = std::remove_if(first, last,
                              [&](std::uint64_t k) { return std::binary_search(old, old_end, k); });
      }
      fresh[b] = last - first;
      for (std::uint64_t *k = first; k != last; ++k)
        ++kinds[3 * b + (*k & 3)];
    });
    space.fence();
    if (round == 0) {
      size = fresh;
    } else {
      // A bucket that outgrows its room borrows free room from the others: the total always
      // suffices (keys + new keys <= E <= draws of round 0 <= the store), so the regions are
      // re-laid in place, regions moving left in increasing order, then those moving right in
      // decreasing order (neither overwrites keys not yet moved).
      bool relayout = false;
      for (std::int64_t b = 0; b < nb; ++b)
        relayout |= size[b] + fresh[b] > cap[b];
      if (relayout)
        sbm_detail::relayout_regions(stored, base, cap, size, fresh);
      // Merge from the back: old keys and new keys are both sorted and disjoint.
      Kokkos::parallel_for("ttgnn::sbm::merge", Policy(space, 0, nb), [&](std::int64_t b) {
        std::uint64_t *old = stored + base[b];
        std::uint64_t const *add = keys + start[b];
        std::int64_t i = size[b] - 1, j = fresh[b] - 1, k = size[b] + fresh[b] - 1;
        while (j >= 0)
          old[k--] = (i >= 0 && old[i] > add[j]) ? old[i--] : add[j--];
        size[b] += fresh[b];
      });
      space.fence();
    }
    std::int64_t draws = 0, added = 0;
    for (std::int64_t ci = 0; ci < nc; ++ci) {
      draws += chunks[ci].draws;
      out.self_loops += loops[ci];
    }
    for (std::int64_t b = 0; b < nb; ++b)
      for (int kind = 0; kind < 3; ++kind) {
        have[kind] += kinds[3 * b + kind];
        added += kinds[3 * b + kind];
      }
    out.draws += draws;
    out.duplicates += draws - added;
    out.rounds = round + 1;
    if (progress)
      progress("edges: round " + std::to_string(round) + ": " + std::to_string(draws) + " draws, " +
               std::to_string(draws - added) + " duplicates, " +
               std::to_string(have[0] + have[1] + have[2]) + " of " + std::to_string(total) +
               " edges");
  }

  // Compact the buckets to the front (in order: the result is globally sorted) and unpack.
  std::int64_t pos = 0;
  for (std::int64_t b = 0; b < nb && store.extent(0) > 0; ++b) {
    std::memmove(store.data() + pos, store.data() + base[b], sizeof(std::uint64_t) * size[b]);
    pos += size[b];
  }
  std::uint64_t *data = store.data();
  Kokkos::parallel_for("ttgnn::sbm::unpack", Kokkos::RangePolicy<ExecutionSpace>(space, 0, pos),
                       [=](std::int64_t i) {
                         const std::uint64_t k = data[i];
                         data[i] = ((k >> 32) << 32) | ((k & 0xFFFFFFFFu) >> 2);
                       });
  space.fence();
  out.keys = Kokkos::subview(store, std::make_pair(std::int64_t{0}, pos));
  out.same_community = have[0];
  out.same_class_other = have[1];
  out.cross_class = have[2];
  return out;
}

#ifdef KOKKOS_ENABLE_SERIAL
template SbmGenerator::Edges SbmGenerator::generate_edges<Kokkos::Serial>(Kokkos::Serial const &,
                                                                          Progress const &) const;
#endif
#ifdef KOKKOS_ENABLE_OPENMP
template SbmGenerator::Edges SbmGenerator::generate_edges<Kokkos::OpenMP>(Kokkos::OpenMP const &,
                                                                          Progress const &) const;
#endif

} // namespace ttgnn
