#ifndef TTGNN_MODELS_GRAPH_OPERATOR_HPP
#define TTGNN_MODELS_GRAPH_OPERATOR_HPP
/// \file graph_operator.hpp
/// \brief A weighted sparse aggregation operator A (CSR on the execution space's memory) with
/// its transpose, the object graph layers multiply node matrices with: Y = A X in forward,
/// G_X = A^T G_Y in backward.
///
/// Built once per graph (models/layers/gcn_norm.hpp: gcn_norm, mean_aggregation) or per sampled
/// block (make_graph_operator). Rows are output nodes, columns input nodes; for a sampled
/// block (num_rows <= num_cols) the output nodes are the first num_rows input nodes.

#include "core/linalg/csr_transpose.hpp"
#include "core/linalg/dense_gemm.hpp"
#include "core/error.hpp"
#include "core/linalg/spmm.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace ttgnn {

/// \brief CSR operator with values, plus its transpose (aliasing the forward arrays when A is
/// symmetric, sharing row_map/entries when only the structure is).
/// \tparam Scalar value type, \tparam ExecutionSpace where it is applied,
/// \tparam Ordinal column index type (std::int32_t up to 2^31 nodes).
template <class Scalar, class ExecutionSpace, class Ordinal = std::int32_t> struct GraphOperator {
  using scalar_type = Scalar;
  using execution_space = ExecutionSpace;
  using memory_space = typename ExecutionSpace::memory_space;
  using ordinal_type = Ordinal;

  std::int64_t num_rows = 0; ///< output nodes
  std::int64_t num_cols = 0; ///< input nodes
  Kokkos::View<std::int64_t *, memory_space> row_map;
  Kokkos::View<Ordinal *, memory_space> entries;
  Kokkos::View<Scalar *, memory_space> values; ///< empty View: all ones
  /// A^T (num_cols rows); views alias the forward ones when `symmetric`.
  Kokkos::View<std::int64_t *, memory_space> t_row_map;
  Kokkos::View<Ordinal *, memory_space> t_entries;
  Kokkos::View<Scalar *, memory_space> t_values;
  bool symmetric = false; ///< A^T == A (values included)

  /// Number of stored nonzeros.
  std::int64_t num_nonzeros() const { return static_cast<std::int64_t>(entries.extent(0)); }

  /// \brief y = alpha * A * x + beta * y; x is num_cols x F, y num_rows x F.
  template <class XMatrix, class YMatrix>
  void apply(ExecutionSpace const &space, XMatrix const &x, YMatrix const &y,
             Scalar alpha = Scalar(1), Scalar beta = Scalar(0)) const {
    check_rows(x, num_cols, "A * X: X");
    spmm(space, alpha, row_map, entries, values, x, beta, y);
  }
  /// \brief y = alpha * A^T * x + beta * y; x is num_rows x F, y num_cols x F.
  template <class XMatrix, class YMatrix>
  void apply_transpose(ExecutionSpace const &space, XMatrix const &x, YMatrix const &y,
                       Scalar alpha = Scalar(1), Scalar beta = Scalar(0)) const {
    check_rows(x, num_rows, "A^T * X: X");
    spmm(space, alpha, t_row_map, t_entries, t_values, x, beta, y);
  }

private:
  template <class View> static void check_rows(View const &x, std::int64_t rows, char const *what) {
    if (static_cast<std::int64_t>(x.extent(0)) != rows)
      throw ConfigError(std::string("ttgnn::GraphOperator: ") + what + " has " +
                        std::to_string(x.extent(0)) + " rows, expected " + std::to_string(rows));
  }
};

/// \brief GraphOperator over existing device CSR arrays (e.g. a sampled block); the transpose
/// is built with transpose_csr (count -> scan -> fill -> sort) unless `symmetric` says A^T == A.
/// \param num_cols number of input nodes (every entry must be below it)
/// \param values nonzero weights, or an empty View for all ones
template <class Scalar, class ExecutionSpace, class Ordinal>
GraphOperator<Scalar, ExecutionSpace, Ordinal>
make_graph_operator(ExecutionSpace const &space, std::int64_t num_cols,
                    Kokkos::View<std::int64_t *, typename ExecutionSpace::memory_space> row_map,
                    Kokkos::View<Ordinal *, typename ExecutionSpace::memory_space> entries,
                    Kokkos::View<Scalar *, typename ExecutionSpace::memory_space> values,
                    bool symmetric = false) {
  GraphOperator<Scalar, ExecutionSpace, Ordinal> op;
  op.num_rows = row_map.extent(0) == 0 ? 0 : static_cast<std::int64_t>(row_map.extent(0)) - 1;
  op.num_cols = num_cols;
  op.row_map = row_map;
  op.entries = entries;
  op.values = values;
  op.symmetric = symmetric;
  if (symmetric) {
    if (op.num_rows != num_cols)
      throw ConfigError("ttgnn::make_graph_operator: a symmetric operator must be square, got " +
                        std::to_string(op.num_rows) + "x" + std::to_string(num_cols));
    op.t_row_map = row_map;
    op.t_entries = entries;
    op.t_values = values;
  } else {
    auto t = transpose_csr(space, num_cols, row_map, entries, values);
    op.t_row_map = t.row_map;
    op.t_entries = t.entries;
    op.t_values = t.values;
  }
  return op;
}

} // namespace ttgnn

#endif
