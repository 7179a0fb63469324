#include "graph/order/metis_partition.hpp"

#include "core/counter_rng.hpp"
#include "core/detail/instantiate.hpp"
#include "core/error.hpp"
#include "graph/csr_build.hpp"

#include <Kokkos_Profiling_ScopedRegion.hpp>
#include <metis.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

namespace ttgnn {

std::string to_string(MetisAlgorithm algorithm) {
  return algorithm == MetisAlgorithm::kway ? "kway" : "rb";
}

MetisAlgorithm parse_metis_algorithm(std::string const &name) {
  if (name == "kway")
    return MetisAlgorithm::kway;
  if (name == "rb")
    return MetisAlgorithm::recursive_bisection;
  throw ConfigError("METIS algorithm: expected kway or rb, got '" + name + "'");
}

static_assert(IDXTYPEWIDTH == 8 * sizeof(idx_t), "metis.h: IDXTYPEWIDTH disagrees with idx_t");
static_assert(sizeof(idx_t) == 4 || sizeof(idx_t) == 8, "METIS idx_t must be 32 or 64 bits");

namespace {

using Id = std::int64_t;

// METIS_SetDefaultOptions writes METIS_NOPTIONS idx_t values of -1. A library built with a
// different idx_t than this header writes twice or half as many bytes: fill a guard region and
// see exactly which entries changed.
int check_index_width() {
  constexpr int guard = 8;
  std::vector<idx_t> buf(2 * METIS_NOPTIONS + guard);
  std::fill(buf.begin(), buf.end(), static_cast<idx_t>(0x5a5a5a5a));
  METIS_SetDefaultOptions(buf.data());
  for (int i = 0; i < static_cast<int>(buf.size()); ++i) {
    const bool want = i < METIS_NOPTIONS;
    if ((buf[i] == -1) != want)
      throw LibraryError("METIS library and metis.h disagree on the width of idx_t (header: " +
                         std::to_string(IDXTYPEWIDTH) +
                         " bits); rebuild against the METIS headers of the installed library");
  }
  return IDXTYPEWIDTH;
}

std::string metis_status(int rc) {
  switch (rc) {
  case METIS_ERROR_INPUT:
    return "METIS_ERROR_INPUT (METIS rejected the graph or an option)";
  case METIS_ERROR_MEMORY:
    return "METIS_ERROR_MEMORY (METIS could not allocate memory)";
  case METIS_ERROR:
    return "METIS_ERROR (METIS reported an internal error)";
  default:
    return "unknown METIS return code " + std::to_string(rc);
  }
}

std::uint64_t splitmix64(std::uint64_t x) {
  return splitmix64_hash(x);
}

// Priority of the undirected edge {u, v}: the same from both ends.
std::uint64_t edge_priority(std::uint64_t seed, Id u, Id v) {
  const Id lo = std::min(u, v), hi = std::max(u, v);
  return splitmix64(splitmix64(seed ^ static_cast<std::uint64_t>(lo)) +
                    static_cast<std::uint64_t>(hi));
}

template <class ExecutionSpace, class Ordinal>
void check_symmetric(ExecutionSpace const &space, CsrGraph<Ordinal, Kokkos::HostSpace> const &g) {
  auto row_map = g.row_map;
  auto entries = g.entries;
  const Id n = g.num_nodes();
  Id missing = 0;
  Kokkos::parallel_reduce(
      "ttgnn::metis::check_symmetric",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Id>>(space, 0, n),
      [=](Id u, Id &sum) {
        for (Id a = row_map(u); a < row_map(u + 1); ++a) {
          const Id v = entries(a);
          if (v < 0 || v >= n) {
            ++sum;
            continue;
          }
          const Ordinal *b = entries.data() + row_map(v), *e = entries.data() + row_map(v + 1);
          if (!std::binary_search(b, e, static_cast<Ordinal>(u)))
            ++sum;
        }
      },
      missing);
  if (missing == 0)
    return;
  for (Id u = 0; u < n; ++u)
    for (Id a = row_map(u); a < row_map(u + 1); ++a) {
      const Id v = entries(a);
      if (v < 0 || v >= n)
        throw InputError("graph for METIS: node " + std::to_string(u) + " has neighbour " +
                         std::to_string(v) + " outside [0, " + std::to_string(n) + ")");
      if (!std::binary_search(entries.data() + row_map(v), entries.data() + row_map(v + 1),
                              static_cast<Ordinal>(u)))
        throw InputError("graph for METIS is not symmetric: arc " + std::to_string(u) + " -> " +
                         std::to_string(v) + " has no reverse (" + std::to_string(missing) +
                         " such arcs); METIS needs an undirected graph");
    }
}

// CSR without self loops in METIS' index type (and the arc weights, when \p edge_weight is
// not empty, into adjwgt).
template <class ExecutionSpace, class Ordinal>
void to_metis(ExecutionSpace const &space, CsrGraph<Ordinal, Kokkos::HostSpace> const &g,
              std::vector<idx_t> &xadj, std::vector<idx_t> &adjncy,
              Kokkos::View<const Id *, Kokkos::HostSpace> edge_weight = {},
              std::vector<idx_t> *adjwgt = nullptr) {
  const Id n = g.num_nodes();
  auto row_map = g.row_map;
  auto entries = g.entries;
  Kokkos::View<Id *, Kokkos::HostSpace> offsets("ttgnn::metis::offsets", n + 1);
  using Policy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Id>>;
  Kokkos::parallel_scan("ttgnn::metis::count", Policy(space, 0, n), [=](Id u, Id &sum, bool final) {
    for (Id a = row_map(u); a < row_map(u + 1); ++a)
      sum += entries(a) != u;
    if (final)
      offsets(u + 1) = sum;
  });
  space.fence();
  xadj.resize(n + 1);
  adjncy.resize(std::max<Id>(offsets(n), 1)); // METIS dislikes a null adjncy
  const bool weighted = adjwgt != nullptr && edge_weight.extent(0) > 0;
  if (weighted)
    adjwgt->resize(adjncy.size());
  idx_t *x = xadj.data(), *adj = adjncy.data(), *wgt = weighted ? adjwgt->data() : nullptr;
  Kokkos::parallel_for("ttgnn::metis::fill", Policy(space, 0, n), [=](Id u) {
    Id k = offsets(u);
    x[u] = static_cast<idx_t>(k);
    for (Id a = row_map(u); a < row_map(u + 1); ++a)
      if (entries(a) != u) {
        if (wgt)
          wgt[k] = static_cast<idx_t>(edge_weight(a));
        adj[k++] = static_cast<idx_t>(entries(a));
      }
  });
  space.fence();
  xadj[n] = static_cast<idx_t>(offsets(n));
}

} // namespace

int metis_index_bits() {
  static std::once_flag once;
  static int bits = 0;
  std::call_once(once, [] { bits = check_index_width(); });
  return bits;
}

template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only>
CsrGraph<Ordinal, Kokkos::HostSpace>
sparsify_graph(ExecutionSpace const &space, CsrGraph<Ordinal, Kokkos::HostSpace> const &g,
               std::int64_t max_arcs_per_node, std::uint64_t seed) {
  if (max_arcs_per_node < 1)
    throw ConfigError("sparsify_graph: keep at least 1 arc per node (got " +
                      std::to_string(max_arcs_per_node) + ")");
  const Id n = g.num_nodes(), k = max_arcs_per_node;
  auto row_map = g.row_map;
  auto entries = g.entries;
  using Policy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Id>>;
  // Threshold of node u: the k-th smallest priority among its non-loop arcs (max if fewer).
  Kokkos::View<std::uint64_t *, Kokkos::HostSpace> threshold(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::sparsify::threshold"), n);
  Kokkos::parallel_for("ttgnn::sparsify::threshold", Policy(space, 0, n), [=](Id u) {
    std::vector<std::uint64_t> pri;
    for (Id a = row_map(u); a < row_map(u + 1); ++a)
      if (entries(a) != u)
        pri.push_back(edge_priority(seed, u, entries(a)));
    if (static_cast<Id>(pri.size()) <= k) {
      threshold(u) = std::numeric_limits<std::uint64_t>::max();
      return;
    }
    std::nth_element(pri.begin(), pri.begin() + (k - 1), pri.end());
    threshold(u) = pri[k - 1];
  });
  auto keep = [=](Id u, Id v) {
    if (u == v)
      return false;
    const std::uint64_t p = edge_priority(seed, u, v);
    return p <= threshold(u) || p <= threshold(v);
  };
  CsrGraph<Ordinal, Kokkos::HostSpace> out;
  out.row_map = decltype(out.row_map)("ttgnn::sparsify::row_map", n + 1);
  auto out_rows = out.row_map;
  Kokkos::parallel_scan("ttgnn::sparsify::count", Policy(space, 0, n),
                        [=](Id u, Id &sum, bool final) {
                          for (Id a = row_map(u); a < row_map(u + 1); ++a)
                            sum += keep(u, entries(a));
                          if (final)
                            out_rows(u + 1) = sum;
                        });
  space.fence();
  out.entries = decltype(out.entries)(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::sparsify::entries"), out_rows(n));
  auto out_entries = out.entries;
  Kokkos::parallel_for("ttgnn::sparsify::fill", Policy(space, 0, n), [=](Id u) {
    Id j = out_rows(u);
    for (Id a = row_map(u); a < row_map(u + 1); ++a)
      if (keep(u, entries(a)))
        out_entries(j++) = entries(a);
  });
  space.fence();
  return out;
}

namespace {

/// Undirected edges of a symmetric graph, self loops excluded.
template <class ExecutionSpace, class Ordinal>
Id count_edges(ExecutionSpace const &space, CsrGraph<Ordinal, Kokkos::HostSpace> const &graph) {
  return (graph.num_arcs() - count_self_loops(space, graph)) / 2;
}

/// The partitions METIS is not needed for: one part or no nodes (all zeros, as r.part is
/// allocated), at least one part per node (singletons), no edges (contiguous blocks). Returns
/// whether r is one of them.
template <class ExecutionSpace>
bool trivial_partition(ExecutionSpace const &space, Id n, Id num_parts, MetisResult &r) {
  auto part = r.part;
  auto all = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Id>>(space, 0, n);
  if (num_parts == 1 || n == 0)
    return true;
  if (num_parts >= n) {
    Kokkos::parallel_for(
        "ttgnn::metis::singletons", all,
        KOKKOS_LAMBDA(Id v) { part(v) = static_cast<std::int32_t>(v); });
    space.fence();
    r.edge_cut = r.num_edges;
    return true;
  }
  if (r.num_edges == 0) {
    Kokkos::parallel_for(
        "ttgnn::metis::blocks", all,
        KOKKOS_LAMBDA(Id v) { part(v) = static_cast<std::int32_t>(v * num_parts / n); });
    space.fence();
    return true;
  }
  return false;
}

/// METIS' input (xadj, adjncy): the graph without self loops, or its sparsification when it
/// has more arcs than METIS takes (options.arc_limit, idx_t) and options.max_arcs_per_node
/// allows one. Records the sparsification and the arcs handed over in \p r.
template <class ExecutionSpace, class Ordinal>
void metis_input(ExecutionSpace const &space, CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                 MetisOptions const &options, MetisResult &r, std::vector<idx_t> &xadj,
                 std::vector<idx_t> &adjncy) {
  const Id n = graph.num_nodes();
  const int bits = metis_index_bits();
  const Id idx_max = static_cast<Id>(std::numeric_limits<idx_t>::max());
  const Id limit = options.arc_limit > 0 ? std::min(options.arc_limit, idx_max) : idx_max;
  if (n > idx_max)
    throw ConfigError("METIS (" + std::to_string(bits) + "-bit idx_t) cannot index " +
                      std::to_string(n) + " nodes");
  const Id arcs = 2 * r.num_edges;
  if (arcs > limit) {
    if (options.max_arcs_per_node <= 0)
      throw ConfigError("graph has " + std::to_string(arcs) + " arcs but METIS (" +
                        std::to_string(bits) + "-bit idx_t) takes at most " +
                        std::to_string(limit) +
                        "; choose a sparsification (keep at most k arcs per node, e.g. "
                        "--metis-max-degree " +
                        std::to_string(std::max<Id>(1, limit / (2 * n))) + ")");
    auto sparse = sparsify_graph(space, graph, options.max_arcs_per_node, options.seed);
    r.sparsified = true;
    r.arcs_dropped = arcs - sparse.num_arcs();
    if (sparse.num_arcs() > limit)
      throw ConfigError("keeping at most " + std::to_string(options.max_arcs_per_node) +
                        " arcs per node still leaves " + std::to_string(sparse.num_arcs()) +
                        " arcs, more than METIS takes (" + std::to_string(limit) +
                        "); choose a smaller k");
    to_metis(space, sparse, xadj, adjncy);
  } else {
    to_metis(space, graph, xadj, adjncy);
  }
  r.arcs_to_metis = xadj[n];
}

/// METIS_OPTION_SEED: the 64-bit seed folded to 31 bits, a non-negative idx_t of either width.
idx_t metis_seed(std::uint64_t seed) {
  return static_cast<idx_t>((seed ^ (seed >> 32)) & 0x7fffffff);
}

/// Runs METIS on (xadj, adjncy) and returns its part of every node.
std::vector<idx_t> call_metis(std::vector<idx_t> &xadj, std::vector<idx_t> &adjncy, Id num_parts,
                              MetisOptions const &options, std::vector<idx_t> *vwgt = nullptr,
                              std::vector<idx_t> *adjwgt = nullptr) {
  idx_t *vw = vwgt && !vwgt->empty() ? vwgt->data() : nullptr;
  idx_t *aw = adjwgt && !adjwgt->empty() ? adjwgt->data() : nullptr;
  const Id n = static_cast<Id>(xadj.size()) - 1;
  idx_t opts[METIS_NOPTIONS];
  METIS_SetDefaultOptions(opts);
  opts[METIS_OPTION_OBJTYPE] = METIS_OBJTYPE_CUT;
  opts[METIS_OPTION_NUMBERING] = 0;
  opts[METIS_OPTION_SEED] = metis_seed(options.seed);
  opts[METIS_OPTION_UFACTOR] = std::max(1, options.imbalance_permille);
  opts[METIS_OPTION_NCUTS] = std::max(1, options.num_cuts);
  idx_t nvtxs = static_cast<idx_t>(n), ncon = 1, nparts = static_cast<idx_t>(num_parts), objval = 0;
  std::vector<idx_t> out(n);
  const bool kway = options.algorithm == MetisAlgorithm::kway;
  Kokkos::Profiling::ScopedRegion region("ttgnn::metis::part_graph");
  const int rc =
      kway ? METIS_PartGraphKway(&nvtxs, &ncon, xadj.data(), adjncy.data(), vw, nullptr, aw,
                                 &nparts, nullptr, nullptr, opts, &objval, out.data())
           : METIS_PartGraphRecursive(&nvtxs, &ncon, xadj.data(), adjncy.data(), vw, nullptr, aw,
                                      &nparts, nullptr, nullptr, opts, &objval, out.data());
  if (rc != METIS_OK)
    throw LibraryError(std::string(kway ? "METIS_PartGraphKway" : "METIS_PartGraphRecursive") +
                       " failed on a graph of " + std::to_string(n) + " nodes and " +
                       std::to_string(xadj[n]) + " arcs into " + std::to_string(num_parts) +
                       " parts: " + metis_status(rc));
  return out;
}

} // namespace

template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only>
MetisResult metis_partition(ExecutionSpace const &space,
                            CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                            std::int64_t num_parts, MetisOptions const &options) {
  return metis_partition(space, graph, num_parts, options, MetisWeights{});
}

namespace {

/// METIS' weights: vwgt and adjwgt (empty when not given), checked (>= 1, sizes, totals that
/// fit idx_t). \p xadj, \p adjncy are METIS' input already built without weights.
template <class ExecutionSpace, class Ordinal>
void metis_weights(ExecutionSpace const &space, CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                   MetisWeights const &weights, std::vector<idx_t> &xadj,
                   std::vector<idx_t> &adjncy, std::vector<idx_t> &vwgt,
                   std::vector<idx_t> &adjwgt) {
  const Id n = graph.num_nodes();
  const Id idx_max = static_cast<Id>(std::numeric_limits<idx_t>::max());
  auto check = [&](Kokkos::View<const Id *, Kokkos::HostSpace> w, Id size, char const *what) {
    if (w.extent(0) == 0)
      return;
    if (static_cast<Id>(w.extent(0)) != size)
      throw ConfigError(std::string("METIS: ") + what + " weights have " +
                        std::to_string(w.extent(0)) + " entries, expected " + std::to_string(size));
    Id total = 0, bad = 0;
    Kokkos::parallel_reduce(
        "ttgnn::metis::weight_total",
        Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Id>>(space, 0, size),
        [=](Id i, Id &sum, Id &low) {
          sum += w(i);
          low += w(i) < 1;
        },
        total, bad);
    if (bad > 0 || total > idx_max)
      throw ConfigError(std::string("METIS: ") + what + " weights must be >= 1 and total at most " +
                        std::to_string(idx_max) + " (total " + std::to_string(total) + ")");
  };
  check(weights.vertex, n, "node");
  check(weights.edge, graph.num_arcs(), "arc");
  if (weights.edge.extent(0) > 0)
    to_metis(space, graph, xadj, adjncy, weights.edge, &adjwgt);
  if (weights.vertex.extent(0) > 0) {
    vwgt.resize(n);
    for (Id v = 0; v < n; ++v)
      vwgt[v] = static_cast<idx_t>(weights.vertex(v));
  }
}

} // namespace

template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only>
MetisResult
metis_partition(ExecutionSpace const &space, CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                std::int64_t num_parts, MetisOptions const &options, MetisWeights const &weights) {
  Kokkos::Profiling::ScopedRegion region("ttgnn::metis::partition");
  const Id n = graph.num_nodes();
  if (num_parts < 1)
    throw ConfigError("METIS: the number of parts must be >= 1 (got " + std::to_string(num_parts) +
                      ")");
  if (num_parts > std::numeric_limits<std::int32_t>::max())
    throw ConfigError("METIS: at most 2^31-1 parts (got " + std::to_string(num_parts) + ")");
  if (options.check_symmetric)
    check_symmetric(space, graph);
  MetisResult r;
  r.num_parts = num_parts;
  r.part = decltype(r.part)("ttgnn::metis::part", n);
  r.num_edges = count_edges(space, graph);
  if (trivial_partition(space, n, num_parts, r))
    return r;

  std::vector<idx_t> xadj, adjncy, vwgt, adjwgt;
  MetisOptions opts = options;
  if (!weights.empty())
    opts.max_arcs_per_node = 0; // weighted graphs are not sparsified
  metis_input(space, graph, opts, r, xadj, adjncy);
  if (!weights.empty())
    metis_weights(space, graph, weights, xadj, adjncy, vwgt, adjwgt);
  const std::vector<idx_t> out = call_metis(xadj, adjncy, num_parts, options, &vwgt, &adjwgt);
  r.called_metis = true;
  for (Id v = 0; v < n; ++v) {
    if (out[v] < 0 || out[v] >= num_parts)
      throw LibraryError("METIS returned part " + std::to_string(out[v]) + " for node " +
                         std::to_string(v) + ", outside [0, " + std::to_string(num_parts) + ")");
    r.part(v) = static_cast<std::int32_t>(out[v]);
  }
  r.edge_cut = count_edge_cut(space, graph, r.part);
  return r;
}

#define TTGNN_INSTANTIATE_METIS(SPACE, ORDINAL)                                                    \
  template MetisResult metis_partition<SPACE, ORDINAL>(                                            \
      SPACE const &, CsrGraph<ORDINAL, Kokkos::HostSpace> const &, std::int64_t,                   \
      MetisOptions const &);                                                                       \
  template MetisResult metis_partition<SPACE, ORDINAL>(                                            \
      SPACE const &, CsrGraph<ORDINAL, Kokkos::HostSpace> const &, std::int64_t,                   \
      MetisOptions const &, MetisWeights const &);                                                 \
  template CsrGraph<ORDINAL, Kokkos::HostSpace> sparsify_graph<SPACE, ORDINAL>(                    \
      SPACE const &, CsrGraph<ORDINAL, Kokkos::HostSpace> const &, std::int64_t, std::uint64_t);
#define TTGNN_INSTANTIATE_METIS_SPACE(SPACE)                                                       \
  TTGNN_INSTANTIATE_METIS(SPACE, std::int32_t)                                                     \
  TTGNN_INSTANTIATE_METIS(SPACE, std::int64_t)

TTGNN_INSTANTIATE_FOR_EACH_HOST_SPACE(TTGNN_INSTANTIATE_METIS_SPACE)

} // namespace ttgnn
