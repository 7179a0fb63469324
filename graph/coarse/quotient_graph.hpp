#ifndef TTGNN_GRAPH_COARSE_QUOTIENT_GRAPH_HPP
#define TTGNN_GRAPH_COARSE_QUOTIENT_GRAPH_HPP
/// \file quotient_graph.hpp
/// \brief The quotient graph of a node grouping: one node per group, an edge between two
/// different groups when some edge of the graph joins them (unweighted, no self loops, sorted,
/// no duplicates), optionally only each group's heaviest neighbour groups. It is what the spectral
/// init solves when the graph's N x k eigenvectors do not fit
/// (models/embedding/embedding_init.hpp): with the groups the TT row prefixes of a hierarchical
/// order, its nodes are the slots (i_1, ..., i_{K-1}) of the TT table.
///
/// Cost: O(N + arcs) reads and a sort of each group's neighbour groups; memory: the group
/// members (N ids; none when the group ids ascend with the node ids, as on a graph relabelled by
/// its TT rows) and the quotient graph. Deterministic: the result does not depend on the thread
/// count.

#include "core/host_only.hpp"
#include "graph/csr_graph.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace ttgnn {

/// \brief Quotient graph of a symmetric graph under group(v) in [0, num_groups).
///
/// \p max_neighbours > 0 sparsifies it: the weight of a group pair (g, h) is the number of
/// graph arcs from g's members to h's; each group keeps its max_neighbours heaviest neighbour
/// groups (ties: the smaller group id), and the result is the union of the kept arcs and their
/// reverses (symmetric, unweighted; a group ends with at least min(max_neighbours, its
/// neighbour groups) and possibly more). Cost: one sort of each group's neighbour groups, plus
/// O(num_groups * max_neighbours) for the union.
/// \throws ConfigError group size != N, a group id out of range, num_groups beyond Ordinal, or
/// max_neighbours < 0.
template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only = 0>
CsrGraph<Ordinal, Kokkos::HostSpace>
quotient_graph(ExecutionSpace const &space, CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
               Kokkos::View<const std::int64_t *, Kokkos::HostSpace> group, std::int64_t num_groups,
               std::int64_t max_neighbours = 0);

} // namespace ttgnn

#endif
