#ifndef TTGNN_GRAPH_ORDER_LOCALITY_HPP
#define TTGNN_GRAPH_ORDER_LOCALITY_HPP
/// \file locality.hpp
/// \brief How well a node labelling serves a sparse product Y = A X that gathers the rows of
/// X at the neighbours' ids: the fraction of arcs whose two ends lie in the same block of
/// `block` consecutive ids (a block of rows that fits a core's cache). 1: every neighbour
/// row is near the row being written; about block / N for ids in random order.

#include "graph/csr_graph.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace ttgnn {

/// \brief The fraction of the arcs (u, v) of \p graph with id(u) / block == id(v) / block,
/// where id(v) = old_to_new(v) (the labelling's new ids; an empty View: v itself). 0 for a
/// graph without arcs. O(E), serial.
/// \throws ConfigError block < 1, or old_to_new not of N entries.
template <class Ordinal>
double block_locality(CsrGraph<Ordinal, Kokkos::HostSpace> const &graph, std::int64_t block,
                      Kokkos::View<const std::int64_t *, Kokkos::HostSpace> old_to_new = {});

} // namespace ttgnn

#endif
