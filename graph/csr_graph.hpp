#ifndef TTGNN_GRAPH_CSR_GRAPH_HPP
#define TTGNN_GRAPH_CSR_GRAPH_HPP
/// \file csr_graph.hpp
/// \brief A graph in compressed sparse row form, in KokkosKernels' vocabulary (`row_map`,
/// `entries`), so it wraps into a KokkosSparse::CrsMatrix / StaticCrsGraph without copying.

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace ttgnn {

/// \brief CSR adjacency: the neighbours of node v are entries(row_map(v)) ..
/// entries(row_map(v+1)-1), sorted ascending, without duplicates.
///
/// \tparam Ordinal node id type of `entries`: std::int32_t while N < 2^31, std::int64_t beyond.
/// \tparam MemorySpace where the arrays live.
/// Offsets (`row_map`) are always 64-bit: ogbn-papers100M has ~3.2e9 arcs.
template <class Ordinal = std::int32_t, class MemorySpace = Kokkos::HostSpace> struct CsrGraph {
  using ordinal_type = Ordinal;
  using offset_type = std::int64_t;
  using memory_space = MemorySpace;

  Kokkos::View<offset_type *, MemorySpace> row_map; ///< num_nodes + 1 offsets, row_map(0) == 0
  Kokkos::View<Ordinal *, MemorySpace> entries;     ///< num_arcs neighbour ids

  /// Number of nodes.
  std::int64_t num_nodes() const {
    return row_map.extent(0) == 0 ? 0 : static_cast<std::int64_t>(row_map.extent(0)) - 1;
  }
  /// Number of stored arcs (an undirected edge counts twice).
  std::int64_t num_arcs() const { return static_cast<std::int64_t>(entries.extent(0)); }
};

/// \brief \p graph in \p MemorySpace: shares its arrays when it lives there already (or in a
/// memory \p MemorySpace's mirror is), else a copy.
template <class MemorySpace, class Ordinal, class FromSpace>
CsrGraph<Ordinal, MemorySpace> graph_in_space(CsrGraph<Ordinal, FromSpace> const &graph) {
  CsrGraph<Ordinal, MemorySpace> out;
  out.row_map =
      Kokkos::create_mirror_view_and_copy(MemorySpace(), graph.row_map, "ttgnn::graph::row_map");
  out.entries =
      Kokkos::create_mirror_view_and_copy(MemorySpace(), graph.entries, "ttgnn::graph::entries");
  return out;
}

} // namespace ttgnn

#endif
