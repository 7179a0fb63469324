#ifndef TTGNN_MODELS_EMBEDDING_EXPORT_HPP
#define TTGNN_MODELS_EMBEDDING_EXPORT_HPP
/// \file embedding_export.hpp
/// \brief Writes per-node rows (learned embeddings, logits) as a float32 `.npy` array in
/// ORIGINAL node order: row v belongs to original node v, i.e. to its new id old_to_new(v)
/// (the input maps that to its table row). Written to a temporary file and renamed; embeddings
/// are streamed in chunks.

#include "core/error.hpp"
#include "core/linalg/dense_gemm.hpp"
#include "models/embedding/input_kind.hpp"
#include "graph/io/npy_writer.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace ttgnn {

/// \brief Streams N rows of \p width floats to a float32 `.npy` (N x width) in original node
/// order: row v holds the row of node old_to_new(v), produced per chunk of at most \p chunk
/// nodes by `rows(space, ids, out)` (ids: device new ids, out: count x width). An empty
/// \p old_to_new is the identity on \p num_nodes nodes (else num_nodes must be its size).
template <class Scalar, class ExecutionSpace, class RowsFn>
void write_node_rows_npy(ExecutionSpace const &space, std::string const &path,
                         Kokkos::View<const std::int64_t *, Kokkos::HostSpace> old_to_new,
                         std::int64_t num_nodes, std::int64_t width, RowsFn &&rows,
                         std::int64_t chunk = 65536) {
  using memory_space = typename ExecutionSpace::memory_space;
  const bool identity = old_to_new.extent(0) == 0;
  const std::int64_t n = num_nodes;
  if (!identity && static_cast<std::int64_t>(old_to_new.extent(0)) != n)
    throw ConfigError("write_node_rows_npy: old_to_new has " +
                      std::to_string(old_to_new.extent(0)) + " entries for " + std::to_string(n) +
                      " nodes");
  NpyWriter out(path, "<f4", {n, width});
  chunk = std::max<std::int64_t>(1, std::min(chunk, n));
  Kokkos::View<std::int64_t *, memory_space> nodes("ttgnn::export::nodes", chunk);
  Matrix<Scalar, ExecutionSpace> values("ttgnn::export::rows", chunk, width);
  auto nodes_h = Kokkos::create_mirror_view(nodes);
  auto values_h = Kokkos::create_mirror_view(values);
  std::vector<float> buffer(static_cast<std::size_t>(chunk * width));
  for (std::int64_t first = 0; first < n; first += chunk) {
    const std::int64_t count = std::min(chunk, n - first);
    for (std::int64_t i = 0; i < count; ++i)
      nodes_h(i) = identity ? first + i : old_to_new(first + i);
    Kokkos::deep_copy(nodes, nodes_h);
    const Kokkos::View<const std::int64_t *, memory_space> ids =
        Kokkos::subview(nodes, std::make_pair(std::int64_t(0), count));
    const Matrix<Scalar, ExecutionSpace> sub =
        Kokkos::subview(values, std::make_pair(std::int64_t(0), count), Kokkos::ALL);
    rows(space, ids, sub);
    space.fence();
    Kokkos::deep_copy(values_h, values);
    for (std::int64_t i = 0; i < count * width; ++i)
      buffer[i] = static_cast<float>(values_h.data()[i]);
    out.write(buffer.data(), static_cast<std::size_t>(count * width));
  }
  out.commit();
}

/// \brief Writes an N x k matrix (e.g. the logits of every node) as float32 `.npy` in original
/// node order: row v = row old_to_new(v) of \p m; an empty \p old_to_new is the identity
/// (all the rows of \p m in their order).
template <class MatrixView>
void write_matrix_npy(std::string const &path, MatrixView const &m,
                      Kokkos::View<const std::int64_t *, Kokkos::HostSpace> old_to_new) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m);
  const bool identity = old_to_new.extent(0) == 0;
  const std::int64_t n = identity ? static_cast<std::int64_t>(h.extent(0))
                                  : static_cast<std::int64_t>(old_to_new.extent(0)),
                     k = static_cast<std::int64_t>(h.extent(1));
  NpyWriter out(path, "<f4", {n, k});
  std::vector<float> row(static_cast<std::size_t>(k));
  for (std::int64_t v = 0; v < n; ++v) {
    for (std::int64_t j = 0; j < k; ++j)
      row[j] = static_cast<float>(h(identity ? v : old_to_new(v), j));
    out.write(row.data(), row.size());
  }
  out.commit();
}

/// \brief Exports the embedding table of \p input (a NodeInput or a MinibatchInput) in
/// original id order; ConfigError naming --export-embeddings when it has no table.
/// \param old_to_new original id -> id in the (permuted) dataset the input was built for;
/// empty: the identity (the original order)
/// \param chunk rows looked up per step (bounds the memory used)
template <class ExecutionSpace, class Input>
void export_embeddings_npy(ExecutionSpace const &space, Input &input,
                           Kokkos::View<const std::int64_t *, Kokkos::HostSpace> old_to_new,
                           std::string const &path, std::int64_t chunk = 65536) {
  using Scalar = typename Input::matrix_type::non_const_value_type;
  if (!input.has_embedding())
    throw ConfigError("--export-embeddings: the input (" + to_string(input.kind()) +
                      ") has no embedding table; use --input emb, tt or feat+tt");
  if (old_to_new.extent(0) != 0 &&
      static_cast<std::int64_t>(old_to_new.extent(0)) != input.num_nodes())
    throw ConfigError("export_embeddings_npy: old_to_new has " +
                      std::to_string(old_to_new.extent(0)) + " entries for " +
                      std::to_string(input.num_nodes()) + " nodes");
  write_node_rows_npy<Scalar>(
      space, path, old_to_new, input.num_nodes(), input.embedding_dim(),
      [&input](ExecutionSpace const &s, auto const &ids, auto const &out) {
        input.lookup_embedding(s, ids, out);
      },
      chunk);
}

/// \brief The per-node outputs of a trained model, where asked (an empty path: none), in
/// original node order (\p old_to_new as above): \p predictions_path gets the N x C logits
/// that \p logits() returns, \p embeddings_path the embedding rows of \p input. Both trainers'
/// runs write their outputs through this.
template <class ExecutionSpace, class Input, class LogitsFn>
void write_node_outputs(ExecutionSpace const &space, std::string const &predictions_path,
                        std::string const &embeddings_path,
                        Kokkos::View<const std::int64_t *, Kokkos::HostSpace> old_to_new,
                        Input &input, LogitsFn &&logits, std::int64_t chunk = 65536) {
  if (!embeddings_path.empty())
    export_embeddings_npy(space, input, old_to_new, embeddings_path, chunk);
  if (!predictions_path.empty())
    write_matrix_npy(predictions_path, logits(), old_to_new);
}

} // namespace ttgnn

#endif
