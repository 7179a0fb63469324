// Layer-wise uniform neighbour sampling (see neighbor_sampler.hpp).
#include "graph/neighbor_sampler.hpp"

#include "core/error.hpp"
#include "core/parse_number.hpp"
#include "core/counter_rng.hpp"
#include "core/runtime/grow_only.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <sstream>

namespace ttgnn {

namespace {

constexpr std::int32_t kUnmarked = std::numeric_limits<std::int32_t>::max();
constexpr std::uint64_t kSamplerDomain = 0x6E65696768626F72ULL; // "neighbor"

using HostIds = Kokkos::View<std::int64_t *, Kokkos::HostSpace>;

/// Names the stream family of one layer of one batch of one epoch.
std::uint64_t stream_domain(std::uint64_t epoch, std::uint64_t batch, std::uint64_t layer) {
  return splitmix64_mix(splitmix64_mix(splitmix64_mix(kSamplerDomain ^ layer) ^ batch) ^ epoch);
}

/// Fills the sampled neighbours (global ids) of destination row i: all of them when the row's
/// count equals the degree, else a uniform k-subset by Floyd's algorithm, in CSR order.
template <class Ordinal> struct SampleRows {
  Kokkos::View<const std::int64_t *, Kokkos::HostSpace> g_row_map;
  Kokkos::View<const Ordinal *, Kokkos::HostSpace> g_entries;
  Kokkos::View<const std::int64_t *, Kokkos::HostSpace> dst;
  Kokkos::View<const std::int64_t *, Kokkos::HostSpace> row_map;
  HostIds picked;
  std::uint64_t seed, domain;

  void operator()(std::int64_t i) const {
    const std::int64_t v = dst(i);
    const std::int64_t base = g_row_map(v), deg = g_row_map(v + 1) - base;
    const std::int64_t begin = row_map(i), k = row_map(i + 1) - begin;
    std::int64_t *out = picked.data() + begin;
    if (k == deg) {
      for (std::int64_t j = 0; j < deg; ++j)
        out[j] = static_cast<std::int64_t>(g_entries(base + j));
      return;
    }
    // Floyd (Bentley & Floyd 1987): for j = deg-k .. deg-1 draw t in [0, j]; take t unless
    // already taken, else j. Every k-subset of [0, deg) is equally likely.
    CounterRng rng(seed, domain, static_cast<std::uint64_t>(v));
    std::int64_t n = 0;
    for (std::int64_t j = deg - k; j < deg; ++j) {
      const std::int64_t t =
          static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(j + 1)));
      const bool taken = std::find(out, out + n, t) != out + n;
      out[n++] = taken ? j : t;
    }
    std::sort(out, out + k);
    for (std::int64_t q = 0; q < k; ++q)
      out[q] = static_cast<std::int64_t>(g_entries(base + out[q]));
  }
};

template <class ExecutionSpace>
using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
using Marks = Kokkos::View<std::int32_t *, Kokkos::HostSpace>;
using RowMap = Kokkos::View<std::int64_t *, Kokkos::HostSpace>;

/// The seeds, copied into \p storage: the destination nodes of the last block.
template <class ExecutionSpace>
HostIds copy_seeds(ExecutionSpace const &space,
                   Kokkos::View<const std::int64_t *, Kokkos::HostSpace> seeds, HostIds &storage) {
  const HostIds s = grow_entries(storage, "ttgnn::neighbor_sampler::seeds",
                                 static_cast<std::int64_t>(seeds.extent(0)));
  Kokkos::deep_copy(space, s, seeds);
  return s;
}

/// Clears the marks of the destination nodes that are inside [0, n).
template <class ExecutionSpace>
void unmark_destinations(ExecutionSpace const &space, Marks mark, HostIds dst, std::int64_t n) {
  Kokkos::parallel_for("ttgnn::neighbor_sampler::unmark_dst",
                       Range<ExecutionSpace>(space, 0, static_cast<std::int64_t>(dst.extent(0))),
                       [=](std::int64_t i) {
                         if (dst(i) >= 0 && dst(i) < n)
                           mark(dst(i)) = kUnmarked;
                       });
  space.fence();
}

/// Marks each destination node with its own position. Throws InputError, with the marks reset,
/// when a node is outside [0, n) or repeated.
template <class ExecutionSpace>
void mark_destinations(ExecutionSpace const &space, Marks mark, HostIds dst, std::int64_t n) {
  const auto m = static_cast<std::int64_t>(dst.extent(0));
  std::int64_t bad = 0;
  Kokkos::parallel_reduce(
      "ttgnn::neighbor_sampler::mark_dst", Range<ExecutionSpace>(space, 0, m),
      [=](std::int64_t i, std::int64_t &b) {
        const std::int64_t v = dst(i);
        if (v < 0 || v >= n)
          ++b;
        else if (Kokkos::atomic_fetch_min(&mark(v), static_cast<std::int32_t>(i)) != kUnmarked)
          ++b;
      },
      bad);
  if (bad == 0)
    return;
  unmark_destinations(space, mark, dst, n);
  throw InputError("ttgnn::NeighborSampler: " + std::to_string(bad) + " of " + std::to_string(m) +
                   " seed ids are outside [0, " + std::to_string(n) + ") or repeated");
}

/// Row offsets of a block, in \p storage: destination i gets min(deg, fanout) neighbours (all
/// of them for fanout <= 0). Throws ConfigError when the layer's positions (destinations and
/// edges) would not fit the int32 marks.
template <class ExecutionSpace>
RowMap row_offsets(ExecutionSpace const &space,
                   Kokkos::View<const std::int64_t *, Kokkos::HostSpace> g_row_map, HostIds dst,
                   std::int64_t fanout, int layer, RowMap &storage) {
  const auto m = static_cast<std::int64_t>(dst.extent(0));
  const RowMap row_map = grow_entries(storage, "ttgnn::neighbor_sampler::row_map", m + 1);
  row_map(0) = 0;
  Kokkos::parallel_scan("ttgnn::neighbor_sampler::offsets", Range<ExecutionSpace>(space, 0, m),
                        [=](std::int64_t i, std::int64_t &sum, bool final) {
                          const std::int64_t deg = g_row_map(dst(i) + 1) - g_row_map(dst(i));
                          sum += fanout > 0 && fanout < deg ? fanout : deg;
                          if (final)
                            row_map(i + 1) = sum;
                        });
  space.fence();
  const std::int64_t nnz = row_map(m);
  if (m + nnz >= static_cast<std::int64_t>(kUnmarked))
    throw ConfigError("ttgnn::NeighborSampler: layer " + std::to_string(layer) + " has " +
                      std::to_string(m + nnz) +
                      " positions, more than 2^31 - 1 local ids; use smaller batches");
  return row_map;
}

/// The newly reached nodes of a block, numbered in order of first appearance.
struct NewNodes {
  HostIds rank; // per edge: new nodes first reached before it
  std::int64_t count = 0;
};

/// Every node keeps the smallest position where it occurs (destination i at position i, edge e
/// at m + e); the first occurrences of new nodes are then numbered by a scan.
template <class ExecutionSpace>
NewNodes number_new_nodes(ExecutionSpace const &space, Marks mark, HostIds picked, std::int64_t m,
                          HostIds &storage) {
  const auto nnz = static_cast<std::int64_t>(picked.extent(0));
  Kokkos::parallel_for("ttgnn::neighbor_sampler::first_positions",
                       Range<ExecutionSpace>(space, 0, nnz), [=](std::int64_t e) {
                         Kokkos::atomic_fetch_min(&mark(picked(e)),
                                                  static_cast<std::int32_t>(m + e));
                       });
  NewNodes out;
  out.rank = grow_entries(storage, "ttgnn::neighbor_sampler::new_rank", nnz);
  auto new_rank = out.rank;
  Kokkos::parallel_scan(
      "ttgnn::neighbor_sampler::number_new", Range<ExecutionSpace>(space, 0, nnz),
      [=](std::int64_t e, std::int64_t &sum, bool final) {
        if (final)
          new_rank(e) = sum;
        if (mark(picked(e)) == static_cast<std::int32_t>(m + e))
          ++sum;
      },
      out.count);
  space.fence();
  return out;
}

/// Fills block.entries (in \p entries_storage) with local ids and returns the block's source
/// nodes (the destinations, then the new nodes; in \p nodes_storage); resets the marks of all
/// of them.
template <class ExecutionSpace>
HostIds assemble_block(ExecutionSpace const &space, Marks mark, HostIds dst, HostIds picked,
                       NewNodes const &new_nodes, SampledBlock &block, HostIds &nodes_storage,
                       Kokkos::View<std::int32_t *, Kokkos::HostSpace> &entries_storage) {
  const auto m = static_cast<std::int64_t>(dst.extent(0));
  const auto nnz = static_cast<std::int64_t>(picked.extent(0));
  const std::int64_t num_new = new_nodes.count;
  const HostIds new_rank = new_nodes.rank;
  block.num_src = m + num_new;
  const HostIds src = grow_entries(nodes_storage, "ttgnn::neighbor_sampler::nodes", m + num_new);
  block.entries = grow_entries(entries_storage, "ttgnn::neighbor_sampler::entries", nnz);
  auto entries = block.entries;
  Kokkos::parallel_for("ttgnn::neighbor_sampler::copy_dst", Range<ExecutionSpace>(space, 0, m),
                       [=](std::int64_t i) { src(i) = dst(i); });
  Kokkos::parallel_for("ttgnn::neighbor_sampler::local_ids", Range<ExecutionSpace>(space, 0, nnz),
                       [=](std::int64_t e) {
                         const std::int64_t first = mark(picked(e));
                         const std::int64_t local = first < m ? first : m + new_rank(first - m);
                         entries(e) = static_cast<std::int32_t>(local);
                         if (first == m + e)
                           src(local) = picked(e);
                       });
  Kokkos::parallel_for("ttgnn::neighbor_sampler::unmark",
                       Range<ExecutionSpace>(space, 0, m + num_new),
                       [=](std::int64_t j) { mark(src(j)) = kUnmarked; });
  space.fence();
  return src;
}

/// Samples block \p layer with destination nodes \p dst into \p block (in \p ws); returns
/// its source nodes.
template <class ExecutionSpace, class Ordinal>
HostIds sample_block(ExecutionSpace const &space, CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                     Marks mark, std::uint64_t seed, std::uint64_t domain, int layer,
                     std::int64_t fanout, HostIds dst, SampledBlock &block, SamplerWorkspace &ws) {
  const auto m = static_cast<std::int64_t>(dst.extent(0));
  block.num_dst = m;
  mark_destinations(space, mark, dst, graph.num_nodes());
  try {
    block.row_map = row_offsets(space, graph.row_map, dst, fanout, layer, ws.row_maps[layer]);
  } catch (...) { // leave the marks clean for the next sample()
    unmark_destinations(space, mark, dst, graph.num_nodes());
    throw;
  }
  const HostIds picked =
      grow_entries(ws.picked, "ttgnn::neighbor_sampler::picked", block.row_map(m));
  Kokkos::parallel_for(
      "ttgnn::neighbor_sampler::sample", Range<ExecutionSpace>(space, 0, m),
      SampleRows<Ordinal>{graph.row_map, graph.entries, dst, block.row_map, picked, seed, domain});
  const NewNodes new_nodes = number_new_nodes(space, mark, picked, m, ws.new_rank);
  return assemble_block(space, mark, dst, picked, new_nodes, block, ws.nodes[layer],
                        ws.entries[layer]);
}

} // namespace

std::int64_t SampledBatch::num_edges() const {
  std::int64_t total = 0;
  for (auto const &b : blocks)
    total += b.num_edges();
  return total;
}

std::int64_t SampledBatch::bytes() const {
  ByteLedger ledger;
  ledger.add_all(nodes);
  for (auto const &b : blocks)
    ledger.add(b.row_map).add(b.entries);
  return ledger.bytes();
}

std::vector<std::int64_t> parse_fanouts(std::string const &text, std::string const &what) {
  std::vector<std::int64_t> out = parse_int_list(text, what);
  for (std::int64_t k : out)
    if (k < 1 && k != -1)
      throw ConfigError(what + ": " + std::to_string(k) + " in '" + text +
                        "': a fan-out is a number of neighbours >= 1, or -1 for all of them");
  return out;
}

template <class Ordinal>
NeighborSampler<Ordinal>::NeighborSampler(CsrGraph<Ordinal, Kokkos::HostSpace> graph,
                                          std::vector<std::int64_t> fanouts, std::uint64_t seed)
    : graph_(graph), fanouts_(std::move(fanouts)), seed_(seed),
      mark_(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::neighbor_sampler::mark"),
            static_cast<std::size_t>(graph.num_nodes())) {
  if (fanouts_.empty())
    throw ConfigError("ttgnn::NeighborSampler: at least one fan-out is needed");
  Kokkos::deep_copy(mark_, kUnmarked);
}

template <class Ordinal>
NeighborSampler<Ordinal>
NeighborSampler<Ordinal>::with_fanouts(std::vector<std::int64_t> fanouts) const {
  if (fanouts.empty())
    throw ConfigError("ttgnn::NeighborSampler: at least one fan-out is needed");
  NeighborSampler out(*this); // the scratch is unmarked between sample() calls
  out.fanouts_ = std::move(fanouts);
  out.peak_batch_bytes_ = 0;
  return out;
}

template <class Ordinal>
template <class ExecutionSpace>
SampledBatch NeighborSampler<Ordinal>::sample(
    ExecutionSpace const &space, Kokkos::View<const std::int64_t *, Kokkos::HostSpace> seeds,
    std::uint64_t epoch, std::uint64_t batch, SamplerWorkspace *workspace) {
  static_assert(Kokkos::SpaceAccessibility<ExecutionSpace, Kokkos::HostSpace>::accessible,
                "ttgnn::NeighborSampler::sample runs on a host execution space");
  const int num_layers = static_cast<int>(fanouts_.size());
  SamplerWorkspace own;
  SamplerWorkspace &ws = workspace ? *workspace : own;
  ws.nodes.resize(num_layers + 1);
  ws.row_maps.resize(num_layers);
  ws.entries.resize(num_layers);
  SampledBatch out;
  out.nodes.resize(num_layers + 1);
  out.blocks.resize(num_layers);
  out.nodes[num_layers] = copy_seeds(space, seeds, ws.nodes[num_layers]);
  for (int layer = num_layers - 1; layer >= 0; --layer)
    out.nodes[layer] =
        sample_block(space, graph_, mark_, seed_, stream_domain(epoch, batch, layer), layer,
                     fanouts_[layer], out.nodes[layer + 1], out.blocks[layer], ws);
  peak_batch_bytes_ = std::max(peak_batch_bytes_, out.bytes());
  return out;
}

template class NeighborSampler<std::int32_t>;
template class NeighborSampler<std::int64_t>;

#define TTGNN_INSTANTIATE_SAMPLE(SPACE, ORDINAL)                                                   \
  template SampledBatch NeighborSampler<ORDINAL>::sample<SPACE>(                                   \
      SPACE const &, Kokkos::View<const std::int64_t *, Kokkos::HostSpace>, std::uint64_t,         \
      std::uint64_t, SamplerWorkspace *);
#ifdef KOKKOS_ENABLE_SERIAL
TTGNN_INSTANTIATE_SAMPLE(Kokkos::Serial, std::int32_t)
TTGNN_INSTANTIATE_SAMPLE(Kokkos::Serial, std::int64_t)
#endif
#ifdef KOKKOS_ENABLE_OPENMP
TTGNN_INSTANTIATE_SAMPLE(Kokkos::OpenMP, std::int32_t)
TTGNN_INSTANTIATE_SAMPLE(Kokkos::OpenMP, std::int64_t)
#endif
#undef TTGNN_INSTANTIATE_SAMPLE

} // namespace ttgnn
