#ifndef TTGNN_MODELS_GCN_NORM_HPP
#define TTGNN_MODELS_GCN_NORM_HPP
/// \file gcn_norm.hpp
/// \brief The two normalised adjacency operators of the GNN layers, built once per graph from a
/// host CsrGraph: GCN's D^-1/2 (A + I) D^-1/2 (as PyG's gcn_norm) and the mean over
/// neighbours (GraphSAGE-mean).
///
/// Row i of the CsrGraph lists the nodes whose features flow into node i (for the symmetric
/// graphs of node classification, its neighbours). Degrees are row lengths.

#include "core/error.hpp"
#include "graph/csr_graph.hpp"
#include "models/layers/graph_operator.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace ttgnn {

namespace detail {

/// Throws InputError unless every entry of `g` is a node id.
template <class Ordinal>
void check_entries(CsrGraph<Ordinal, Kokkos::HostSpace> const &g, char const *who) {
  const std::int64_t n = g.num_nodes();
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t k = g.row_map(i); k < g.row_map(i + 1); ++k)
      if (g.entries(k) < 0 || static_cast<std::int64_t>(g.entries(k)) >= n)
        throw InputError(std::string(who) + ": node " + std::to_string(i) + " has neighbour " +
                         std::to_string(static_cast<std::int64_t>(g.entries(k))) +
                         ", expected an id in [0, " + std::to_string(n) + ")");
}

/// True when every arc (i, j) has its reverse (j, i); rows must be sorted (CsrGraph's contract).
template <class Ordinal>
bool structurally_symmetric(CsrGraph<Ordinal, Kokkos::HostSpace> const &g) {
  const std::int64_t n = g.num_nodes();
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t k = g.row_map(i); k < g.row_map(i + 1); ++k) {
      const std::int64_t j = g.entries(k);
      const Ordinal *b = g.entries.data() + g.row_map(j), *e = g.entries.data() + g.row_map(j + 1);
      if (!std::binary_search(b, e, static_cast<Ordinal>(i)))
        return false;
    }
  return true;
}

/// Copies host arrays into a GraphOperator on `space`.
template <class Scalar, class ExecutionSpace, class Ordinal>
GraphOperator<Scalar, ExecutionSpace, Ordinal>
upload_operator(ExecutionSpace const &space, std::int64_t n,
                Kokkos::View<std::int64_t *, Kokkos::HostSpace> row_map,
                Kokkos::View<Ordinal *, Kokkos::HostSpace> entries,
                Kokkos::View<Scalar *, Kokkos::HostSpace> values, bool symmetric,
                char const *label) {
  using memory_space = typename ExecutionSpace::memory_space;
  const std::string l = std::string("ttgnn::") + label;
  GraphOperator<Scalar, ExecutionSpace, Ordinal> op;
  op.num_rows = op.num_cols = n;
  op.row_map = Kokkos::create_mirror_view_and_copy(memory_space(), row_map, l + "::row_map");
  op.entries = Kokkos::create_mirror_view_and_copy(memory_space(), entries, l + "::entries");
  op.values = Kokkos::create_mirror_view_and_copy(memory_space(), values, l + "::values");
  op.symmetric = symmetric;
  op.t_row_map = op.row_map;
  op.t_entries = op.entries;
  op.t_values = op.values;
  (void)space;
  return op;
}

} // namespace detail

/// \brief GCN's normalised adjacency D^-1/2 (A + I) D^-1/2, like PyG's gcn_norm: a self loop is
/// added to every node that has none, deg(i) = length of row i (self loop included) and the
/// value of (i, j) is deg(i)^-1/2 deg(j)^-1/2 (0 for a zero degree, possible only without self
/// loops). Values are computed once, in double, on the host.
/// \param graph host CSR (rows sorted, as CsrGraph promises)
/// \param add_self_loops add the missing (i, i) arcs
/// The transpose aliases the operator when the graph is symmetric, else it is built.
template <class Scalar, class ExecutionSpace, class Ordinal>
GraphOperator<Scalar, ExecutionSpace, Ordinal>
gcn_norm(ExecutionSpace const &space, CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
         bool add_self_loops = true) {
  detail::check_entries(graph, "ttgnn::gcn_norm");
  const std::int64_t n = graph.num_nodes();
  Kokkos::View<std::int64_t *, Kokkos::HostSpace> row_map("ttgnn::gcn_norm::row_map", n + 1);
  std::vector<Ordinal> cols;
  cols.reserve(static_cast<std::size_t>(graph.num_arcs() + (add_self_loops ? n : 0)));
  for (std::int64_t i = 0; i < n; ++i) {
    const Ordinal *b = graph.entries.data() + graph.row_map(i);
    const Ordinal *e = graph.entries.data() + graph.row_map(i + 1);
    const Ordinal self = static_cast<Ordinal>(i);
    const Ordinal *at = std::lower_bound(b, e, self);
    cols.insert(cols.end(), b, at);
    if (add_self_loops && (at == e || *at != self))
      cols.push_back(self);
    cols.insert(cols.end(), at, e);
    row_map(i + 1) = static_cast<std::int64_t>(cols.size());
  }
  const std::int64_t nnz = static_cast<std::int64_t>(cols.size());
  Kokkos::View<Ordinal *, Kokkos::HostSpace> entries(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::gcn_norm::entries"), nnz);
  std::copy(cols.begin(), cols.end(), entries.data());
  std::vector<double> inv_sqrt(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const double deg = static_cast<double>(row_map(i + 1) - row_map(i));
    inv_sqrt[i] = deg > 0 ? 1.0 / std::sqrt(deg) : 0.0;
  }
  Kokkos::View<Scalar *, Kokkos::HostSpace> values(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::gcn_norm::values"), nnz);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t k = row_map(i); k < row_map(i + 1); ++k)
      values(k) = static_cast<Scalar>(inv_sqrt[i] * inv_sqrt[entries(k)]);
  CsrGraph<Ordinal, Kokkos::HostSpace> with_loops{row_map, entries};
  const bool symmetric = detail::structurally_symmetric(with_loops);
  auto op = detail::upload_operator<Scalar, ExecutionSpace, Ordinal>(space, n, row_map, entries,
                                                                     values, symmetric, "gcn_norm");
  if (!symmetric) {
    auto t = transpose_csr(space, n, op.row_map, op.entries, op.values);
    op.t_row_map = t.row_map;
    op.t_entries = t.entries;
    op.t_values = t.values;
  }
  return op;
}

/// \brief Mean over neighbours: value of (i, j) is 1 / deg(i), so row i of A X is the average
/// of X over the neighbours of i (zeros for a node without neighbours). No self loops.
/// The transpose shares row_map/entries when the graph is symmetric (values 1 / deg(j)),
/// else it is built.
template <class Scalar, class ExecutionSpace, class Ordinal>
GraphOperator<Scalar, ExecutionSpace, Ordinal>
mean_aggregation(ExecutionSpace const &space, CsrGraph<Ordinal, Kokkos::HostSpace> const &graph) {
  detail::check_entries(graph, "ttgnn::mean_aggregation");
  const std::int64_t n = graph.num_nodes(), nnz = graph.num_arcs();
  auto degree = [&](std::int64_t i) {
    return static_cast<double>(graph.row_map(i + 1) - graph.row_map(i));
  };
  Kokkos::View<Scalar *, Kokkos::HostSpace> values(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::mean_aggregation::values"), nnz);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t k = graph.row_map(i); k < graph.row_map(i + 1); ++k)
      values(k) = static_cast<Scalar>(1.0 / degree(i));
  auto op = detail::upload_operator<Scalar, ExecutionSpace, Ordinal>(
      space, n, graph.row_map, graph.entries, values, false, "mean_aggregation");
  if (detail::structurally_symmetric(graph)) {
    // A^T(i, j) = A(j, i) = 1 / deg(j), on the same structure.
    Kokkos::View<Scalar *, Kokkos::HostSpace> t_values(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::mean_aggregation::t_values"), nnz);
    for (std::int64_t k = 0; k < nnz; ++k)
      t_values(k) = static_cast<Scalar>(1.0 / degree(graph.entries(k)));
    op.t_values = Kokkos::create_mirror_view_and_copy(
        typename ExecutionSpace::memory_space(), t_values, "ttgnn::mean_aggregation::t_values");
  } else {
    auto t = transpose_csr(space, n, op.row_map, op.entries, op.values);
    op.t_row_map = t.row_map;
    op.t_entries = t.entries;
    op.t_values = t.values;
  }
  return op;
}

} // namespace ttgnn

#endif
