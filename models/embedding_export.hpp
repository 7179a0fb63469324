#ifndef TTGNN_MODELS_EMBEDDING_EXPORT_HPP
#define TTGNN_MODELS_EMBEDDING_EXPORT_HPP
/// \file embedding_export.hpp
/// \brief Writes the learned node embeddings as a float32 `.npy` array (N x d) in ORIGINAL
/// node order: row v is the embedding of original node v, i.e. the table row of its new id
/// old_to_new(v) (NodeInput::node_rows maps that to its TT row). Streamed in chunks, written
/// to a temporary file and renamed.

#include "core/error.hpp"
#include "models/node_input.hpp"
#include "models/npy_writer.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace ttgnn {

/// \brief Exports the embedding table of \p input in original id order.
/// \param old_to_new original id -> id in the (permuted) dataset the input was built for
/// \param chunk rows looked up per step (bounds the memory used)
template <class Scalar, class ExecutionSpace>
void export_embeddings_npy(ExecutionSpace const &space, NodeInput<Scalar, ExecutionSpace> &input,
                           Kokkos::View<std::int64_t *, Kokkos::HostSpace> old_to_new,
                           std::string const &path, std::int64_t chunk = 65536) {
  if (!input.has_embedding())
    throw ConfigError("--export-embeddings: the input (" + to_string(input.kind()) +
                      ") has no embedding table; use --input emb, tt or feat+tt");
  const std::int64_t n = input.num_nodes(), d = input.embedding_dim();
  if (static_cast<std::int64_t>(old_to_new.extent(0)) != n)
    throw ConfigError("export_embeddings_npy: old_to_new has " +
                      std::to_string(old_to_new.extent(0)) + " entries for " + std::to_string(n) +
                      " nodes");
  using memory_space = typename ExecutionSpace::memory_space;
  NpyWriter out(path, "<f4", {n, d});
  chunk = std::max<std::int64_t>(1, std::min(chunk, n));
  Kokkos::View<std::int64_t *, memory_space> nodes("ttgnn::export::nodes", chunk);
  Matrix<Scalar, ExecutionSpace> rows("ttgnn::export::rows", chunk, d);
  auto nodes_h = Kokkos::create_mirror_view(nodes);
  auto rows_h = Kokkos::create_mirror_view(rows);
  std::vector<float> buffer(static_cast<std::size_t>(chunk * d));
  for (std::int64_t first = 0; first < n; first += chunk) {
    const std::int64_t count = std::min(chunk, n - first);
    for (std::int64_t i = 0; i < count; ++i)
      nodes_h(i) = old_to_new(first + i);
    Kokkos::deep_copy(nodes, nodes_h);
    auto sub_nodes = Kokkos::subview(nodes, std::make_pair(std::int64_t(0), count));
    auto sub_rows = Kokkos::subview(rows, std::make_pair(std::int64_t(0), count), Kokkos::ALL);
    input.lookup_embedding(space, sub_nodes, sub_rows);
    space.fence();
    Kokkos::deep_copy(rows_h, rows);
    for (std::int64_t i = 0; i < count * d; ++i)
      buffer[i] = static_cast<float>(rows_h.data()[i]);
    out.write(buffer.data(), static_cast<std::size_t>(count * d));
  }
  out.commit();
}

} // namespace ttgnn

#endif
