// SbmGenerator::generate_edges: parallel edge sampling in fixed chunks, bucketing by the smaller
// endpoint, sort + unique per bucket, and top-up rounds until every kind has its exact count.
//
// Keys inside this file are (a << 32) | (b << 2) | kind with a < b (N <= 2^30): sorting them
// sorts by (a, b), and the kind rides along for free (it is a function of the pair anyway).
#include "core/detail/instantiate.hpp"
#include "core/error.hpp"
#include "core/kokkos_compat.hpp"
#include "core/counter_rng.hpp"
#include "graph/synth/detail/sbm_detail.hpp"
#include "graph/synth/sbm_generator.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

namespace ttgnn {

namespace {

/// Kinds of edge: same community, same class in another community, other class.
constexpr int kKinds = 3;
/// Low bits of a key holding its kind.
constexpr int kKindBits = 2;
constexpr std::uint64_t kKindMask = (std::uint64_t{1} << kKindBits) - 1;

} // namespace

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
    return (a << 32) | (b << kKindBits) | static_cast<std::uint64_t>(kind);
  }
};

namespace {

constexpr std::int64_t kChunk = 1 << 16; // min draws per stream; sizes, not threads, set it
/// At most this many chunks per round (larger chunks for huge E) keeps the (chunk x bucket)
/// count table small.
constexpr std::int64_t kMaxChunksPerRound = 2048;
/// Top-up rounds before giving up: a feasible density needs a few (each round redraws only the
/// duplicates of the last); 200 stops the requests whose pairs of some kind run out.
constexpr int kMaxRounds = 200;
/// The id -> bucket table covers the ids in at most 2^16 coarse blocks (256 KiB of int32).
constexpr std::int64_t kMaxCoarseBlocks = std::int64_t{1} << 16;
/// Expected keys per bucket: 32768 keys (256 KiB), so that a bucket's sort stays small while
/// the buckets give the parallel loops many independent pieces.
constexpr std::int64_t kKeysPerBucket = 32768;
/// At most this many buckets, which bounds the (chunk x bucket) count table.
constexpr std::int64_t kMaxBuckets = 8192;
/// Room of a bucket in round 0: its draws plus 1/64 of them (~1.6%) plus 64 keys, so that the
/// top-up rounds rarely need to re-lay the store.
constexpr std::int64_t kSlackDivisor = 64;
constexpr std::int64_t kSlackKeys = 64;

template <class ExecutionSpace>
using DynamicPolicy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
using KeyView = Kokkos::View<std::uint64_t *, Kokkos::HostSpace>;

/// Buckets are contiguous ranges of the smaller endpoint, sized for equal expected counts
/// (the minimum of two uniform ids has density 2(1 - x)); a table over 2^16 coarse blocks of
/// ids maps an id to its bucket in O(1).
struct BucketMap {
  int shift = 0;
  std::int64_t count = 1;
  std::vector<std::int32_t> of_block;

  BucketMap(std::int64_t n, std::int64_t edges) {
    while (((n - 1) >> shift) >= kMaxCoarseBlocks)
      ++shift;
    const std::int64_t blocks = ((n - 1) >> shift) + 1;
    count = std::clamp<std::int64_t>(edges / kKeysPerBucket, 1,
                                     std::min<std::int64_t>(kMaxBuckets, blocks));
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

/// The edge keys: bucket b owns [base[b], base[b] + cap[b]); its first size[b] keys are
/// sorted, unique.
struct KeyStore {
  KeyView keys;
  std::vector<std::int64_t> base, cap, size;

  explicit KeyStore(std::int64_t buckets)
      : keys("ttgnn::sbm::edge_keys", 0), base(buckets + 1, 0), cap(buckets, 0), size(buckets, 0) {}
};

/// One sampling round: its chunks of draws, where they are written, and what they add.
struct Round {
  int index;
  std::vector<Chunk> chunks;
  std::vector<std::int64_t> offsets; // per (chunk, bucket): draws, then where the chunk writes
  std::vector<std::int64_t> loops;   // per chunk: self loops redrawn
  std::vector<std::int64_t> drawn;   // per bucket: draws
  std::vector<std::int64_t> start;   // bucket b's draws are staging[start[b] ...]
  KeyView staging;                   // the store itself in round 0, else a buffer of its own
  std::vector<std::int64_t> fresh;   // per bucket: new unique keys
  std::vector<std::int64_t> kinds;   // per (bucket, kind): new unique keys

  Round(int round, std::vector<Chunk> round_chunks)
      : index(round), chunks(std::move(round_chunks)) {}
  std::int64_t num_chunks() const { return static_cast<std::int64_t>(chunks.size()); }
};

/// The draws of a round: each kind's deficit in chunks of at most \p chunk_draws.
std::vector<Chunk> plan_chunks(std::int64_t const (&deficit)[kKinds], std::int64_t chunk_draws) {
  std::vector<Chunk> chunks;
  for (int kind = 0; kind < kKinds; ++kind)
    for (std::int64_t i = 0; i * chunk_draws < deficit[kind]; ++i)
      chunks.push_back({kind, i, std::min(chunk_draws, deficit[kind] - i * chunk_draws)});
  return chunks;
}

/// The stream of one chunk, named by (seed, round, kind, chunk): both passes of a round draw
/// the same keys from it.
CounterRng chunk_stream(std::uint64_t seed, int round, Chunk const &c) {
  return CounterRng(seed,
                    sbm_detail::stream::edges + kKinds * static_cast<std::uint64_t>(round) + c.kind,
                    static_cast<std::uint64_t>(c.index));
}

/// Pass 1: counts the draws per (chunk, bucket) and the self loops per chunk; then an
/// exclusive scan over the chunks turns the counts into each chunk's write offset in each
/// bucket, and r.drawn holds the draws per bucket.
template <class ExecutionSpace>
void count_draws(ExecutionSpace const &space, SbmEdgeSampler const &sampler,
                 BucketMap const &bucket, std::uint64_t seed, Round &r) {
  const std::int64_t nc = r.num_chunks(), nb = bucket.count;
  r.offsets.assign(nc * nb, 0);
  r.loops.assign(nc, 0);
  Kokkos::parallel_for("ttgnn::sbm::count_draws", DynamicPolicy<ExecutionSpace>(space, 0, nc),
                       [&](std::int64_t ci) {
                         Chunk const &chunk = r.chunks[ci];
                         CounterRng rng = chunk_stream(seed, r.index, chunk);
                         std::int64_t *row = r.offsets.data() + ci * nb;
                         for (std::int64_t d = 0; d < chunk.draws; ++d)
                           ++row[bucket(sampler.draw(chunk.kind, rng, r.loops[ci]))];
                       });
  space.fence();
  // Chunk ci writes its bucket-b keys at start[b] + offsets[ci * nb + b].
  r.drawn.assign(nb, 0);
  for (std::int64_t ci = 0; ci < nc; ++ci)
    for (std::int64_t b = 0; b < nb; ++b) {
      const std::int64_t c = r.offsets[ci * nb + b];
      r.offsets[ci * nb + b] = r.drawn[b];
      r.drawn[b] += c;
    }
}

/// Where the round's draws go: in round 0 straight into the store, allocated for them with
/// slack for the top-ups; in later rounds into a staging buffer of their own.
void reserve_room(KeyStore &store, Round &r) {
  const auto nb = static_cast<std::int64_t>(r.drawn.size());
  r.start.assign(nb + 1, 0);
  if (r.index == 0) {
    for (std::int64_t b = 0; b < nb; ++b) {
      store.cap[b] = r.drawn[b] + r.drawn[b] / kSlackDivisor + kSlackKeys;
      store.base[b + 1] = store.base[b] + store.cap[b];
    }
    store.keys = KeyView(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::sbm::edge_keys"),
                         store.base[nb]);
    r.start = store.base;
    r.staging = store.keys;
  } else {
    for (std::int64_t b = 0; b < nb; ++b)
      r.start[b + 1] = r.start[b] + r.drawn[b];
    r.staging = KeyView(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::sbm::topup_keys"),
                        r.start[nb]);
  }
}

/// Pass 2: the same draws again (same streams), each key written to its place in r.staging.
template <class ExecutionSpace>
void place_draws(ExecutionSpace const &space, SbmEdgeSampler const &sampler,
                 BucketMap const &bucket, std::uint64_t seed, Round &r) {
  const std::int64_t nb = bucket.count;
  std::uint64_t *keys = r.staging.data();
  Kokkos::parallel_for("ttgnn::sbm::place_draws",
                       DynamicPolicy<ExecutionSpace>(space, 0, r.num_chunks()),
                       [&](std::int64_t ci) {
                         Chunk const &chunk = r.chunks[ci];
                         CounterRng rng = chunk_stream(seed, r.index, chunk);
                         std::int64_t *row = r.offsets.data() + ci * nb, ignored = 0;
                         for (std::int64_t d = 0; d < chunk.draws; ++d) {
                           const std::uint64_t key = sampler.draw(chunk.kind, rng, ignored);
                           const std::int64_t b = bucket(key);
                           keys[r.start[b] + row[b]++] = key;
                         }
                       });
  space.fence();
}

/// Sorts and de-duplicates each bucket's new keys, drops those already stored, and counts
/// what is left (r.fresh) by kind (r.kinds).
template <class ExecutionSpace>
void dedupe_draws(ExecutionSpace const &space, KeyStore const &store, Round &r) {
  const auto nb = static_cast<std::int64_t>(r.drawn.size());
  r.fresh.assign(nb, 0);
  r.kinds.assign(kKinds * nb, 0);
  std::uint64_t *keys = r.staging.data();
  std::uint64_t const *stored = store.keys.data();
  Kokkos::parallel_for(
      "ttgnn::sbm::dedupe", DynamicPolicy<ExecutionSpace>(space, 0, nb), [&](std::int64_t b) {
        std::uint64_t *first = keys + r.start[b], *last = first + r.drawn[b];
        std::sort(first, last);
        last = std::unique(first, last);
        if (r.index > 0) {
          std::uint64_t const *old = stored + store.base[b], *old_end = old + store.size[b];
          last = std::remove_if(
              first, last, [&](std::uint64_t k) { return std::binary_search(old, old_end, k); });
        }
        r.fresh[b] = last - first;
        for (std::uint64_t *k = first; k != last; ++k)
          ++r.kinds[kKinds * b + (*k & kKindMask)];
      });
  space.fence();
}

/// Adds the round's new keys to the store: those of round 0 are in place already; those of a
/// top-up round are merged into their buckets.
template <class ExecutionSpace>
void store_fresh(ExecutionSpace const &space, KeyStore &store, Round const &r) {
  if (r.index == 0) {
    store.size = r.fresh;
    return;
  }
  const auto nb = static_cast<std::int64_t>(r.fresh.size());
  // A bucket that outgrows its room borrows free room from the others: the total always
  // suffices (keys + new keys <= E <= draws of round 0 <= the store), so the regions are
  // re-laid in place, regions moving left in increasing order, then those moving right in
  // decreasing order (neither overwrites keys not yet moved).
  bool relayout = false;
  for (std::int64_t b = 0; b < nb; ++b)
    relayout |= store.size[b] + r.fresh[b] > store.cap[b];
  std::uint64_t *stored = store.keys.data();
  if (relayout)
    sbm_detail::relayout_regions(stored, store.base, store.cap, store.size, r.fresh);
  // Merge from the back: old keys and new keys are both sorted and disjoint.
  std::uint64_t const *keys = r.staging.data();
  Kokkos::parallel_for(
      "ttgnn::sbm::merge", DynamicPolicy<ExecutionSpace>(space, 0, nb), [&](std::int64_t b) {
        std::uint64_t *old = stored + store.base[b];
        std::uint64_t const *add = keys + r.start[b];
        std::int64_t i = store.size[b] - 1, j = r.fresh[b] - 1, k = store.size[b] + r.fresh[b] - 1;
        while (j >= 0)
          old[k--] = (i >= 0 && old[i] > add[j]) ? old[i--] : add[j--];
        store.size[b] += r.fresh[b];
      });
  space.fence();
}

/// Adds the round's draws, self loops, duplicates and new edges per kind to \p out and
/// \p have, and reports the round.
void tally_round(Round const &r, std::int64_t total, SbmGenerator::Progress const &progress,
                 SbmGenerator::Edges &out, std::int64_t (&have)[kKinds]) {
  std::int64_t draws = 0, added = 0;
  for (std::int64_t ci = 0; ci < r.num_chunks(); ++ci) {
    draws += r.chunks[ci].draws;
    out.self_loops += r.loops[ci];
  }
  const auto nb = static_cast<std::int64_t>(r.fresh.size());
  for (std::int64_t b = 0; b < nb; ++b)
    for (int kind = 0; kind < kKinds; ++kind) {
      have[kind] += r.kinds[kKinds * b + kind];
      added += r.kinds[kKinds * b + kind];
    }
  out.draws += draws;
  out.duplicates += draws - added;
  out.rounds = r.index + 1;
  if (progress)
    progress("edges: round " + std::to_string(r.index) + ": " + std::to_string(draws) + " draws, " +
             std::to_string(draws - added) + " duplicates, " +
             std::to_string(have[0] + have[1] + have[2]) + " of " + std::to_string(total) +
             " edges");
}

/// Moves the buckets to the front of the store, in order (so the keys are globally sorted),
/// and unpacks each key to (u << 32) | v. Returns the number of keys.
template <class ExecutionSpace>
std::int64_t compact_and_unpack(ExecutionSpace const &space, KeyStore &store) {
  const auto nb = static_cast<std::int64_t>(store.size.size());
  std::int64_t pos = 0;
  for (std::int64_t b = 0; b < nb && store.keys.extent(0) > 0; ++b) {
    std::memmove(store.keys.data() + pos, store.keys.data() + store.base[b],
                 sizeof(std::uint64_t) * store.size[b]);
    pos += store.size[b];
  }
  std::uint64_t *data = store.keys.data();
  Kokkos::parallel_for("ttgnn::sbm::unpack", Kokkos::RangePolicy<ExecutionSpace>(space, 0, pos),
                       [=](std::int64_t i) {
                         const std::uint64_t k = data[i];
                         data[i] = ((k >> 32) << 32) | ((k & 0xFFFFFFFFu) >> kKindBits);
                       });
  space.fence();
  return pos;
}

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
  const std::int64_t n = config_.num_nodes, total = targets_[0] + targets_[1] + targets_[2];
  const SbmEdgeSampler sampler{
      table_.data(),      n, group_size_, big_groups_, big_groups_ * (group_size_ + 1),
      config_.communities};
  const std::uint64_t seed = config_.seed;
  const BucketMap bucket(n, total);
  const std::int64_t chunk_draws =
      std::max<std::int64_t>(kChunk, (total + kMaxChunksPerRound - 1) / kMaxChunksPerRound);

  Edges out;
  KeyStore store(bucket.count);
  std::int64_t have[kKinds] = {0, 0, 0};
  for (int round = 0;; ++round) {
    const std::int64_t deficit[kKinds] = {targets_[0] - have[0], targets_[1] - have[1],
                                          targets_[2] - have[2]};
    if (deficit[0] + deficit[1] + deficit[2] == 0)
      break;
    if (round == kMaxRounds)
      throw ConfigError("sbm generator: " + std::to_string(deficit[0] + deficit[1] + deficit[2]) +
                        " edges still missing after " + std::to_string(kMaxRounds) +
                        " rounds: the requested graph is too dense for its communities (lower "
                        "--avg-degree or --power-law weight)");
    Round r(round, plan_chunks(deficit, chunk_draws));
    // A round of a large graph takes minutes: its steps are reported once it runs 2 s.
    const auto t0 = std::chrono::steady_clock::now();
    auto step = [&](char const *what) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (progress && s >= 2.0)
        progress("edges: round " + std::to_string(round) + ": " + what + " (" +
                 std::to_string(static_cast<std::int64_t>(s)) + " s into the round)");
    };
    count_draws(space, sampler, bucket, seed, r);
    step("draws counted, 1/4");
    reserve_room(store, r);
    place_draws(space, sampler, bucket, seed, r);
    step("draws placed, 2/4");
    dedupe_draws(space, store, r);
    step("duplicates removed, 3/4");
    store_fresh(space, store, r);
    step("new edges stored, 4/4");
    tally_round(r, total, progress, out, have);
  }

  const std::int64_t pos = compact_and_unpack(space, store);
  out.keys = Kokkos::subview(store.keys, std::make_pair(std::int64_t{0}, pos));
  out.same_community = have[0];
  out.same_class_other = have[1];
  out.cross_class = have[2];
  return out;
}

#define TTGNN_INSTANTIATE_GENERATE_EDGES(SPACE)                                                    \
  template SbmGenerator::Edges SbmGenerator::generate_edges<SPACE>(SPACE const &,                  \
                                                                   Progress const &) const;
TTGNN_INSTANTIATE_SERIAL(TTGNN_INSTANTIATE_GENERATE_EDGES)
TTGNN_INSTANTIATE_OPENMP(TTGNN_INSTANTIATE_GENERATE_EDGES)
#undef TTGNN_INSTANTIATE_GENERATE_EDGES

} // namespace ttgnn
