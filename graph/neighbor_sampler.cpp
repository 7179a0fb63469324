// Layer-wise uniform neighbour sampling (see neighbor_sampler.hpp).
#include "graph/neighbor_sampler.hpp"

#include "core/detail/instantiate.hpp"
#include "core/error.hpp"
#include "core/parse_number.hpp"
#include "core/counter_rng.hpp"
#include "core/runtime/grow_only.hpp"

#include <Kokkos_Profiling_ScopedRegion.hpp>

#include <algorithm>
#include <limits>

namespace ttgnn {

// Named, not anonymous: nvcc wants the enclosing function of a device lambda to be addressable.
namespace sampler_detail {

constexpr std::int32_t kUnmarked = std::numeric_limits<std::int32_t>::max();
constexpr std::uint64_t kSamplerDomain = 0x6E65696768626F72ULL; // "neighbor"

/// Names the stream family of one layer of one batch of one epoch.
inline std::uint64_t stream_domain(std::uint64_t epoch, std::uint64_t batch, std::uint64_t layer) {
  return splitmix64_mix(splitmix64_mix(splitmix64_mix(kSamplerDomain ^ layer) ^ batch) ^ epoch);
}

/// Sorts [first, first + k) ascending: std::sort on the host, insertion sort on a device (k is
/// a fan-out: small).
KOKKOS_INLINE_FUNCTION void sort_small(std::int64_t *first, std::int64_t k) {
  KOKKOS_IF_ON_HOST((std::sort(first, first + k);))
  KOKKOS_IF_ON_DEVICE((for (std::int64_t i = 1; i < k; ++i) {
    const std::int64_t x = first[i];
    std::int64_t j = i;
    for (; j > 0 && first[j - 1] > x; --j)
      first[j] = first[j - 1];
    first[j] = x;
  }))
}

/// Fills the sampled neighbours (global ids) of destination row i: all of them when the row's
/// count equals the degree, else a uniform k-subset by Floyd's algorithm, in CSR order.
template <class Ordinal, class MemorySpace> struct SampleRows {
  Kokkos::View<const std::int64_t *, MemorySpace> g_row_map;
  Kokkos::View<const Ordinal *, MemorySpace> g_entries;
  Kokkos::View<const std::int64_t *, MemorySpace> dst;
  Kokkos::View<const std::int64_t *, MemorySpace> row_map;
  Kokkos::View<std::int64_t *, MemorySpace> picked;
  std::uint64_t seed, domain;

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
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
      bool taken = false;
      for (std::int64_t q = 0; q < n && !taken; ++q)
        taken = out[q] == t;
      out[n++] = taken ? j : t;
    }
    sort_small(out, k);
    for (std::int64_t q = 0; q < k; ++q)
      out[q] = static_cast<std::int64_t>(g_entries(base + out[q]));
  }
};

template <class ExecutionSpace>
using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;

/// The layer-level kernels of one batch on \p ExecutionSpace, over arrays in \p MemorySpace.
/// The host waits on the instance only where it needs a count (a failed seed check, the
/// sampled edges, the new nodes).
template <class ExecutionSpace, class MemorySpace> struct Kernels {
  using Ids = Kokkos::View<std::int64_t *, MemorySpace>;
  using ConstIds = Kokkos::View<const std::int64_t *, MemorySpace>;
  using Marks = Kokkos::View<std::int32_t *, MemorySpace>;
  using Local = Kokkos::View<std::int32_t *, MemorySpace>;

  /// The newly reached nodes of a block, numbered in order of first appearance.
  struct NewNodes {
    Ids rank; // per edge: new nodes first reached before it
    std::int64_t count = 0;
  };

  /// The seeds, copied into \p storage: the destination nodes of the last block.
  static Ids copy_seeds(ExecutionSpace const &space, ConstIds seeds, Ids &storage) {
    const Ids s = grow_entries(storage, "ttgnn::neighbor_sampler::seeds",
                               static_cast<std::int64_t>(seeds.extent(0)));
    Kokkos::deep_copy(space, s, seeds);
    return s;
  }

  /// Clears the marks of the destination nodes that are inside [0, n).
  static void unmark_destinations(ExecutionSpace const &space, Marks mark, Ids dst,
                                  std::int64_t n) {
    Kokkos::parallel_for(
        "ttgnn::neighbor_sampler::unmark_dst",
        Range<ExecutionSpace>(space, 0, static_cast<std::int64_t>(dst.extent(0))),
        KOKKOS_LAMBDA(std::int64_t i) {
          if (dst(i) >= 0 && dst(i) < n)
            mark(dst(i)) = kUnmarked;
        });
    space.fence();
  }

  /// Marks each destination node with its own position. Throws InputError, with the marks
  /// reset, when a node is outside [0, n) or repeated.
  static void mark_destinations(ExecutionSpace const &space, Marks mark, Ids dst, std::int64_t n) {
    const auto m = static_cast<std::int64_t>(dst.extent(0));
    std::int64_t bad = 0;
    Kokkos::parallel_reduce(
        "ttgnn::neighbor_sampler::mark_dst", Range<ExecutionSpace>(space, 0, m),
        KOKKOS_LAMBDA(std::int64_t i, std::int64_t & b) {
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

  /// Row offsets of a block, in \p storage: destination i gets min(deg, fanout) neighbours
  /// (all of them for fanout <= 0); \p nnz is their total. Throws ConfigError when the layer's
  /// positions (destinations and edges) would not fit the int32 marks.
  static Ids row_offsets(ExecutionSpace const &space, ConstIds g_row_map, Ids dst,
                         std::int64_t fanout, int layer, Ids &storage, std::int64_t &nnz) {
    const auto m = static_cast<std::int64_t>(dst.extent(0));
    const Ids row_map = grow_entries(storage, "ttgnn::neighbor_sampler::row_map", m + 1);
    Kokkos::parallel_scan(
        "ttgnn::neighbor_sampler::offsets", Range<ExecutionSpace>(space, 0, m + 1),
        KOKKOS_LAMBDA(std::int64_t i, std::int64_t & sum, bool final) {
          if (final)
            row_map(i) = sum; // row_map(0) = 0
          if (i < m) {
            const std::int64_t deg = g_row_map(dst(i) + 1) - g_row_map(dst(i));
            sum += fanout > 0 && fanout < deg ? fanout : deg;
          }
        },
        nnz);
    if (m + nnz >= static_cast<std::int64_t>(kUnmarked))
      throw ConfigError("ttgnn::NeighborSampler: layer " + std::to_string(layer) + " has " +
                        std::to_string(m + nnz) +
                        " positions, more than 2^31 - 1 local ids; use smaller batches");
    return row_map;
  }

  /// Every node keeps the smallest position where it occurs (destination i at position i,
  /// edge e at m + e); the first occurrences of new nodes are then numbered by a scan.
  static NewNodes number_new_nodes(ExecutionSpace const &space, Marks mark, Ids picked,
                                   std::int64_t m, Ids &storage) {
    const auto nnz = static_cast<std::int64_t>(picked.extent(0));
    Kokkos::parallel_for(
        "ttgnn::neighbor_sampler::first_positions", Range<ExecutionSpace>(space, 0, nnz),
        KOKKOS_LAMBDA(std::int64_t e) {
          Kokkos::atomic_fetch_min(&mark(picked(e)), static_cast<std::int32_t>(m + e));
        });
    NewNodes out;
    out.rank = grow_entries(storage, "ttgnn::neighbor_sampler::new_rank", nnz);
    auto new_rank = out.rank;
    Kokkos::parallel_scan(
        "ttgnn::neighbor_sampler::number_new", Range<ExecutionSpace>(space, 0, nnz),
        KOKKOS_LAMBDA(std::int64_t e, std::int64_t & sum, bool final) {
          if (final)
            new_rank(e) = sum;
          if (mark(picked(e)) == static_cast<std::int32_t>(m + e))
            ++sum;
        },
        out.count);
    return out;
  }

  /// Fills block.entries (in \p entries_storage) with local ids and returns the block's source
  /// nodes (the destinations, then the new nodes; in \p nodes_storage); resets the marks of
  /// all of them.
  static Ids assemble_block(ExecutionSpace const &space, Marks mark, Ids dst, Ids picked,
                            NewNodes const &new_nodes, SampledBlock<MemorySpace> &block,
                            Ids &nodes_storage, Local &entries_storage) {
    const auto m = static_cast<std::int64_t>(dst.extent(0));
    const auto nnz = static_cast<std::int64_t>(picked.extent(0));
    const std::int64_t num_new = new_nodes.count;
    const Ids new_rank = new_nodes.rank;
    block.num_src = m + num_new;
    const Ids src = grow_entries(nodes_storage, "ttgnn::neighbor_sampler::nodes", m + num_new);
    block.entries = grow_entries(entries_storage, "ttgnn::neighbor_sampler::entries", nnz);
    auto entries = block.entries;
    Kokkos::parallel_for(
        "ttgnn::neighbor_sampler::copy_dst", Range<ExecutionSpace>(space, 0, m),
        KOKKOS_LAMBDA(std::int64_t i) { src(i) = dst(i); });
    Kokkos::parallel_for(
        "ttgnn::neighbor_sampler::local_ids", Range<ExecutionSpace>(space, 0, nnz),
        KOKKOS_LAMBDA(std::int64_t e) {
          const std::int64_t first = mark(picked(e));
          const std::int64_t local = first < m ? first : m + new_rank(first - m);
          entries(e) = static_cast<std::int32_t>(local);
          if (first == m + e)
            src(local) = picked(e);
        });
    Kokkos::parallel_for(
        "ttgnn::neighbor_sampler::unmark", Range<ExecutionSpace>(space, 0, m + num_new),
        KOKKOS_LAMBDA(std::int64_t j) { mark(src(j)) = kUnmarked; });
    return src;
  }

  /// Samples block \p layer with destination nodes \p dst into \p block (in \p ws); returns
  /// its source nodes.
  template <class Ordinal>
  static Ids sample_block(ExecutionSpace const &space, CsrGraph<Ordinal, MemorySpace> const &graph,
                          Marks mark, std::uint64_t seed, std::uint64_t domain, int layer,
                          std::int64_t fanout, Ids dst, SampledBlock<MemorySpace> &block,
                          SamplerWorkspace<MemorySpace> &ws) {
    const auto m = static_cast<std::int64_t>(dst.extent(0));
    block.num_dst = m;
    mark_destinations(space, mark, dst, graph.num_nodes());
    std::int64_t nnz = 0;
    try {
      block.row_map =
          row_offsets(space, graph.row_map, dst, fanout, layer, ws.row_maps[layer], nnz);
    } catch (...) { // leave the marks clean for the next sample()
      unmark_destinations(space, mark, dst, graph.num_nodes());
      throw;
    }
    const Ids picked = grow_entries(ws.picked, "ttgnn::neighbor_sampler::picked", nnz);
    Kokkos::parallel_for("ttgnn::neighbor_sampler::sample", Range<ExecutionSpace>(space, 0, m),
                         SampleRows<Ordinal, MemorySpace>{graph.row_map, graph.entries, dst,
                                                          block.row_map, picked, seed, domain});
    const NewNodes new_nodes = number_new_nodes(space, mark, picked, m, ws.new_rank);
    return assemble_block(space, mark, dst, picked, new_nodes, block, ws.nodes[layer],
                          ws.entries[layer]);
  }
};

} // namespace sampler_detail

std::vector<std::int64_t> parse_fanouts(std::string const &text, std::string const &what) {
  std::vector<std::int64_t> out = parse_int_list(text, what);
  for (std::int64_t k : out)
    if (k < 1 && k != -1)
      throw ConfigError(what + ": " + std::to_string(k) + " in '" + text +
                        "': a fan-out is a number of neighbours >= 1, or -1 for all of them");
  return out;
}

template <class Ordinal, class MemorySpace>
NeighborSampler<Ordinal, MemorySpace>::NeighborSampler(graph_type graph,
                                                       std::vector<std::int64_t> fanouts,
                                                       std::uint64_t seed)
    : graph_(graph), fanouts_(std::move(fanouts)), seed_(seed),
      mark_(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::neighbor_sampler::mark"),
            static_cast<std::size_t>(graph.num_nodes())) {
  if (fanouts_.empty())
    throw ConfigError("ttgnn::NeighborSampler: at least one fan-out is needed");
  Kokkos::deep_copy(mark_, sampler_detail::kUnmarked);
}

template <class Ordinal, class MemorySpace>
NeighborSampler<Ordinal, MemorySpace>
NeighborSampler<Ordinal, MemorySpace>::with_fanouts(std::vector<std::int64_t> fanouts) const {
  if (fanouts.empty())
    throw ConfigError("ttgnn::NeighborSampler: at least one fan-out is needed");
  NeighborSampler out(*this); // the scratch is unmarked between sample() calls
  out.fanouts_ = std::move(fanouts);
  out.peak_batch_bytes_ = 0;
  return out;
}

template <class Ordinal, class MemorySpace>
template <class ExecutionSpace>
SampledBatch<MemorySpace>
NeighborSampler<Ordinal, MemorySpace>::sample(ExecutionSpace const &space, seeds_type seeds,
                                              std::uint64_t epoch, std::uint64_t batch,
                                              workspace_type *workspace) {
  static_assert(Kokkos::SpaceAccessibility<ExecutionSpace, MemorySpace>::accessible,
                "ttgnn::NeighborSampler::sample runs on a space that can access its memory");
  Kokkos::Profiling::ScopedRegion region("ttgnn::neighbor_sampler::sample");
  using kernels = sampler_detail::Kernels<ExecutionSpace, MemorySpace>;
  const int num_layers = static_cast<int>(fanouts_.size());
  workspace_type own;
  workspace_type &ws = workspace ? *workspace : own;
  ws.nodes.resize(num_layers + 1);
  ws.row_maps.resize(num_layers);
  ws.entries.resize(num_layers);
  batch_type out;
  out.nodes.resize(num_layers + 1);
  out.blocks.resize(num_layers);
  out.nodes[num_layers] = kernels::copy_seeds(space, seeds, ws.nodes[num_layers]);
  for (int layer = num_layers - 1; layer >= 0; --layer)
    out.nodes[layer] = kernels::sample_block(
        space, graph_, mark_, seed_, sampler_detail::stream_domain(epoch, batch, layer), layer,
        fanouts_[layer], out.nodes[layer + 1], out.blocks[layer], ws);
  space.fence(); // the batch is complete for every instance that reads it
  peak_batch_bytes_ = std::max(peak_batch_bytes_, out.bytes());
  return out;
}

// The sampler per memory space, then its sample() per execution space.
template class NeighborSampler<std::int32_t, Kokkos::HostSpace>;
template class NeighborSampler<std::int64_t, Kokkos::HostSpace>;
#ifdef KOKKOS_ENABLE_CUDA
template class NeighborSampler<std::int32_t, Kokkos::Cuda::memory_space>;
template class NeighborSampler<std::int64_t, Kokkos::Cuda::memory_space>;
#endif

#define TTGNN_INSTANTIATE_SAMPLE(SPACE, ORDINAL)                                                   \
  template SampledBatch<SPACE::memory_space>                                                       \
  NeighborSampler<ORDINAL, SPACE::memory_space>::sample<SPACE>(                                    \
      SPACE const &, Kokkos::View<const std::int64_t *, SPACE::memory_space>, std::uint64_t,       \
      std::uint64_t, SamplerWorkspace<SPACE::memory_space> *);
#define TTGNN_INSTANTIATE_SAMPLE_SPACE(SPACE)                                                      \
  TTGNN_INSTANTIATE_SAMPLE(SPACE, std::int32_t)                                                    \
  TTGNN_INSTANTIATE_SAMPLE(SPACE, std::int64_t)
TTGNN_INSTANTIATE_SERIAL(TTGNN_INSTANTIATE_SAMPLE_SPACE)
TTGNN_INSTANTIATE_OPENMP(TTGNN_INSTANTIATE_SAMPLE_SPACE)
TTGNN_INSTANTIATE_CUDA(TTGNN_INSTANTIATE_SAMPLE_SPACE)
#undef TTGNN_INSTANTIATE_SAMPLE_SPACE
#undef TTGNN_INSTANTIATE_SAMPLE

} // namespace ttgnn
