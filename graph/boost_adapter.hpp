#ifndef TTGNN_GRAPH_BOOST_ADAPTER_HPP
#define TTGNN_GRAPH_BOOST_ADAPTER_HPP
/// \file boost_adapter.hpp
/// \brief Boost.Graph algorithms run on a ttgnn CsrGraph: connected components, BFS order and
/// reverse Cuthill-McKee order. Boost stays in boost_adapter.cpp; this header exposes only
/// ttgnn and Kokkos types.
///
/// Every function treats the CSR as an undirected graph and therefore requires it to be
/// symmetric (as build_csr makes it by default); a non-symmetric graph throws ConfigError.
/// Self loops are ignored.

#include "graph/csr_graph.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <vector>

namespace ttgnn {

/// \brief Connected components (Boost strong_components on the symmetric digraph, which are the
/// undirected components).
/// \param graph symmetric CSR
/// \param component when not null, receives the component id of every node, numbered 0.. in
/// order of each component's smallest node id
/// \return the number of components (an isolated node is a component)
template <class Ordinal>
std::int64_t boost_connected_components(CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                                        std::vector<std::int64_t> *component = nullptr);

/// \brief Breadth-first search order from \p source (Boost breadth_first_search): the nodes
/// reachable from \p source in the order they are discovered; neighbours are visited in CSR
/// (ascending id) order.
template <class Ordinal>
std::vector<std::int64_t> boost_bfs_order(CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                                          std::int64_t source);

/// \brief Reverse Cuthill-McKee ordering (Boost cuthill_mckee_ordering, every component started
/// from a pseudo-peripheral node), a bandwidth-reducing order.
/// \return new -> old: element i is the old (original) id of the node that gets new id i.
/// It feeds Permutation::from_new_to_old directly.
template <class Ordinal>
Kokkos::View<std::int64_t *, Kokkos::HostSpace>
boost_reverse_cuthill_mckee(CsrGraph<Ordinal, Kokkos::HostSpace> const &graph);

/// \brief Bandwidth max |new(u) - new(v)| over the arcs (u, v) of \p graph after relabelling by
/// \p new_to_old (an empty view means the identity).
template <class Ordinal>
std::int64_t bandwidth(CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                       Kokkos::View<std::int64_t *, Kokkos::HostSpace> new_to_old);

} // namespace ttgnn

#endif
