#ifndef TTGNN_GRAPH_CSR_BUILD_HPP
#define TTGNN_GRAPH_CSR_BUILD_HPP
/// \file csr_build.hpp
/// \brief Builds a CsrGraph from an edge list on any Kokkos execution space:
/// count -> parallel_scan -> fill, then sort every row and drop duplicate arcs.

#include "graph/csr_graph.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace ttgnn {

/// \brief How an edge list becomes a CSR graph.
struct CsrBuildOptions {
  /// Store (v,u) for every input pair (u,v): the undirected graph (default for node
  /// classification). When false, only the arcs u -> v as given are stored.
  bool symmetrize = true;
  /// Give every node exactly one self loop (v,v), as GCN's A + I wants. Self loops present in
  /// the input are always dropped first, so false means "no self loops at all".
  bool self_loops = false;
};

/// \brief Builds the CSR adjacency of the edges (src(e), dst(e)).
///
/// The result has 64-bit row_map, neighbour lists sorted ascending and free of duplicates.
/// Runs in parallel on \p space (count, scan, fill, per-row sort, compact).
/// \param space execution space instance that runs the kernels
/// \param src, dst endpoints of each input edge, each in [0, num_nodes)
/// \param num_nodes number of nodes N
/// \param options symmetrisation and self loops
/// \throws InputError when an endpoint lies outside [0, num_nodes)
template <class ExecutionSpace, class Ordinal>
CsrGraph<Ordinal, typename ExecutionSpace::memory_space>
build_csr(ExecutionSpace const &space,
          Kokkos::View<Ordinal const *, typename ExecutionSpace::memory_space> src,
          Kokkos::View<Ordinal const *, typename ExecutionSpace::memory_space> dst,
          std::int64_t num_nodes, CsrBuildOptions const &options = {});

/// \brief True when every arc u -> v has its reverse v -> u (rows must be sorted). Exact. On a
/// host-accessible space it is a serial streaming comparison with the transpose (memory-bound,
/// faster than searching), elsewhere a parallel binary search per arc.
template <class ExecutionSpace, class Ordinal>
bool is_symmetric(ExecutionSpace const &space,
                  CsrGraph<Ordinal, typename ExecutionSpace::memory_space> const &graph);

/// \brief Number of self loops (arcs v -> v).
template <class ExecutionSpace, class Ordinal>
std::int64_t
count_self_loops(ExecutionSpace const &space,
                 CsrGraph<Ordinal, typename ExecutionSpace::memory_space> const &graph);

} // namespace ttgnn

#endif
