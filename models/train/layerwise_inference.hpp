#ifndef TTGNN_MODELS_LAYERWISE_INFERENCE_HPP
#define TTGNN_MODELS_LAYERWISE_INFERENCE_HPP
/// \file layerwise_inference.hpp
/// \brief Layer-wise full-neighbour inference of a GraphSAGE GnnModel (DGL's SAGE.inference):
/// layer l is computed for every node, in chunks of rows, before layer l + 1 starts. Exact
/// (every neighbour is used) and linear in the graph size, unlike sampling an L-hop
/// neighbourhood per node. Evaluation mode: dropout off, BatchNorm on running statistics.
///
/// Reads the model through its documented parameter order (models/gnn_model.hpp: per layer
/// SAGEConv's W_self, W_neigh, b, then BatchNorm's gamma, beta; buffers: running mean and
/// variance); tests/models/train/test_minibatch_trainer.cpp checks the result against the model's
/// own forward on full-neighbour blocks.

#include "core/runtime/byte_ledger.hpp"
#include "core/runtime/grow_only.hpp"
#include "core/linalg/dense_gemm.hpp"
#include "core/error.hpp"
#include "core/kokkos_compat.hpp"
#include "models/layers/block_operator.hpp"
#include "models/gnn_model.hpp"
#include "models/layers/linear.hpp"

#include <Kokkos_Core.hpp>
#include <Kokkos_Sort.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace ttgnn {

namespace detail {

/// y = relu(gamma (y - mean) / sqrt(var + eps) + beta) (no BatchNorm when gamma is empty),
/// then y += h (residual) when h is not empty. Row-wise, in place.
template <class Scalar, class ExecutionSpace>
void sage_inference_activation(ExecutionSpace const &space, Matrix<Scalar, ExecutionSpace> const &y,
                               Kokkos::View<Scalar *, typename ExecutionSpace::memory_space> gamma,
                               Kokkos::View<Scalar *, typename ExecutionSpace::memory_space> beta,
                               Kokkos::View<Scalar *, typename ExecutionSpace::memory_space> mean,
                               Kokkos::View<Scalar *, typename ExecutionSpace::memory_space> var,
                               Matrix<Scalar, ExecutionSpace> const &h, double eps) {
  const std::int64_t rows = static_cast<std::int64_t>(y.extent(0));
  const std::int64_t c = static_cast<std::int64_t>(y.extent(1));
  const bool bn = gamma.extent(0) > 0, residual = h.extent(0) > 0;
  const Scalar e = static_cast<Scalar>(eps);
  Kokkos::parallel_for(
      "ttgnn::layerwise_inference::activation",
      Kokkos::RangePolicy<ExecutionSpace>(space, 0, rows * c), KOKKOS_LAMBDA(std::int64_t k) {
        const std::int64_t i = k / c, j = k % c;
        Scalar v = y(i, j);
        if (bn)
          v = gamma(j) * (v - mean(j)) / compat::sqrt(var(j) + e) + beta(j);
        v = v > Scalar(0) ? v : Scalar(0);
        if (residual)
          v += h(i, j);
        y(i, j) = v;
      });
}

} // namespace detail

/// \brief Memory of one layer-wise inference call, from the sizes of its buffers.
struct LayerwiseMemory {
  /// Largest sum over a layer of the N-row matrices alive together (the previous layer's output
  /// and this layer's; layer 0 has no input matrix).
  std::int64_t node_matrix_bytes = 0;
  /// Largest sum of the per-chunk buffers alive together (ids, input rows, means); bounded by
  /// the chunk size, not by N.
  std::int64_t chunk_buffer_bytes = 0;
  /// Most input rows produced for one chunk of layer 0 (after removing repeated ids).
  std::int64_t max_input_rows = 0;
  /// Input rows produced over all chunks of layer 0 (>= N: a node is produced once per chunk
  /// that reads it).
  std::int64_t input_rows = 0;
  /// With a LayerwiseWorkspace, the bytes it holds after the call: the largest sum over a layer
  /// of the buffers alive together (at most node_matrix_bytes + chunk_buffer_bytes, and a
  /// little alignment); 0 without one.
  std::int64_t workspace_bytes = 0;
};

/// Default rows per step of layer-wise inference: steps large enough to keep the device busy
/// with each step's GEMMs, and chunk buffers that stay at tens of MiB for widths in the
/// hundreds (65536 rows x 256 floats = 64 MiB) whatever the number of nodes.
inline constexpr std::int64_t layerwise_default_chunk = 65536;

/// \brief Rows per step of layer-wise inference when none is asked for: layerwise_default_chunk
/// on host spaces; on Cuda as many as keep a step's buffers (two ids and three rows of \p width
/// values per row) within 1/16 of the device's memory, and at least the default. A step costs
/// one sort, one scan and a few host syncs whatever its size, so a GPU wants few, large steps.
template <class Scalar, class ExecutionSpace>
std::int64_t layerwise_auto_chunk(ExecutionSpace const &space, std::int64_t width) {
#ifdef KOKKOS_ENABLE_CUDA
  if constexpr (std::is_same<ExecutionSpace, Kokkos::Cuda>::value) {
    const auto memory = static_cast<std::int64_t>(space.cuda_device_prop().totalGlobalMem);
    const auto per_row = static_cast<std::int64_t>(
        2 * sizeof(std::int64_t) + 3 * static_cast<std::size_t>(width) * sizeof(Scalar));
    return std::max(layerwise_default_chunk, memory / 16 / per_row);
  }
#endif
  (void)space;
  (void)width;
  return layerwise_default_chunk;
}

namespace detail {

/// keys = [first, first + rows) followed by the chunk's neighbour ids entries[e0, e0 + edges).
template <class ExecutionSpace, class Ordinal> struct LayerwiseChunkKeys {
  using memory_space = typename ExecutionSpace::memory_space;
  Kokkos::View<std::int64_t *, memory_space> keys;
  Kokkos::View<Ordinal *, memory_space> entries;
  std::int64_t first, rows, e0;
  KOKKOS_FUNCTION void operator()(std::int64_t k) const {
    keys(k) = k < rows ? first + k : static_cast<std::int64_t>(entries(e0 + k - rows));
  }
};

/// unique = the distinct values of the sorted keys (an exclusive scan of "first of its run").
template <class ExecutionSpace> struct LayerwiseChunkUnique {
  using memory_space = typename ExecutionSpace::memory_space;
  Kokkos::View<std::int64_t *, memory_space> keys, unique;
  KOKKOS_FUNCTION void operator()(std::int64_t i, std::int64_t &pos, bool final) const {
    if (i == 0 || keys(i) != keys(i - 1)) {
      if (final)
        unique(pos) = keys(i);
      ++pos;
    }
  }
};

/// local(k) = position in unique (sorted, distinct, size u) of key k (as LayerwiseChunkKeys
/// lists them: own rows first, then the neighbours); every key is present.
template <class ExecutionSpace, class Ordinal> struct LayerwiseChunkLocal {
  using memory_space = typename ExecutionSpace::memory_space;
  Kokkos::View<std::int64_t *, memory_space> local, unique;
  Kokkos::View<Ordinal *, memory_space> entries;
  std::int64_t first, rows, e0, u;
  KOKKOS_FUNCTION void operator()(std::int64_t k) const {
    const std::int64_t key =
        k < rows ? first + k : static_cast<std::int64_t>(entries(e0 + k - rows));
    std::int64_t lo = 0, hi = u;
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (unique(mid) < key)
        lo = mid + 1;
      else
        hi = mid;
    }
    local(k) = lo;
  }
};

/// For the chunk's row i and column c: mean(i, c) = inv_degree(first + i) * sum of x over the
/// row's neighbours, self(i, c) = the row's own input row; x holds the chunk's distinct input
/// rows, local maps ids to rows of x (LayerwiseChunkLocal).
template <class Scalar, class ExecutionSpace> struct LayerwiseChunkGather {
  using memory_space = typename ExecutionSpace::memory_space;
  Matrix<Scalar, ExecutionSpace> x, mean, self;
  Kokkos::View<std::int64_t *, memory_space> local, row_map;
  Kokkos::View<float *, memory_space> inv_degree;
  std::int64_t first, rows, e0, cols;
  KOKKOS_FUNCTION void operator()(std::int64_t k) const {
    const std::int64_t i = k / cols, c = k % cols;
    Scalar s = 0;
    for (std::int64_t e = row_map(first + i); e < row_map(first + i + 1); ++e)
      s += x(local(rows + e - e0), c);
    mean(i, c) = s * static_cast<Scalar>(inv_degree(first + i));
    self(i, c) = x(local(i), c);
  }
};

/// Chunks [bounds[j], bounds[j + 1]) of the nodes whose own and neighbour ids number at most
/// \p budget (a single node with more neighbours forms its own chunk).
inline std::vector<std::int64_t>
layerwise_input_chunks(Kokkos::View<const std::int64_t *, Kokkos::HostSpace> row_map,
                       std::int64_t budget) {
  const std::int64_t n = static_cast<std::int64_t>(row_map.extent(0)) - 1;
  std::vector<std::int64_t> bounds{0};
  std::int64_t a = 0;
  while (a < n) {
    std::int64_t b = a + 1;
    while (b < n && (b + 1 - a) + (row_map(b + 1) - row_map(a)) <= budget)
      ++b;
    bounds.push_back(b);
    a = b;
  }
  return bounds;
}

/// out(i, :) = x(ids(i), :).
template <class Scalar, class ExecutionSpace> struct LayerwiseGatherRows {
  Matrix<Scalar, ExecutionSpace> x, out;
  Kokkos::View<const std::int64_t *, typename ExecutionSpace::memory_space> ids;
  std::int64_t cols;
  KOKKOS_FUNCTION void operator()(std::int64_t k) const {
    out(k / cols, k % cols) = x(ids(k / cols), k % cols);
  }
};

/// BatchNorm's eps in inference: BatchNorm1d's default, as GnnModel builds it.
inline constexpr double layerwise_batch_norm_eps = 1e-5;

/// Rows [a, b) of the matrix \p x.
template <class MatrixView>
MatrixView layerwise_rows(MatrixView const &x, std::int64_t a, std::int64_t b) {
  return Kokkos::subview(x, std::make_pair(a, b), Kokkos::ALL);
}

/// One SAGEConv layer of a GnnModel (and its BatchNorm) in evaluation mode.
template <class Scalar, class ExecutionSpace> struct LayerwiseLayer {
  using matrix_type = Matrix<Scalar, ExecutionSpace>;
  using vector_type = Kokkos::View<Scalar *, typename ExecutionSpace::memory_space>;
  std::int64_t in = 0, out = 0; ///< input and output widths
  matrix_type w_self, w_neigh;  ///< in x out
  vector_type bias;
  vector_type gamma, beta, mean, var; ///< BatchNorm's; empty without it and on the last layer
  bool hidden = false;                ///< not the last layer: activation (and BatchNorm)
  bool residual = false;              ///< hidden layer with a residual connection
};

/// The layers of \p model from its documented parameter order. Throws ConfigError for a GCN
/// model or an unexpected layout.
template <class Scalar, class ExecutionSpace>
std::vector<LayerwiseLayer<Scalar, ExecutionSpace>>
layerwise_layers(GnnModel<Scalar, ExecutionSpace, std::int32_t> const &model) {
  using layer_type = LayerwiseLayer<Scalar, ExecutionSpace>;
  using vector_type = typename layer_type::vector_type;
  GnnConfig const &cfg = model.config();
  if (cfg.kind != GnnKind::sage)
    throw ConfigError("layer-wise inference needs a GraphSAGE model");
  const std::vector<vector_type> params = model.parameters();
  const std::vector<vector_type> buffers = model.buffers();
  const std::size_t expected = 3 * cfg.num_layers + (cfg.batch_norm ? 2 * (cfg.num_layers - 1) : 0);
  if (params.size() != expected ||
      buffers.size() != (cfg.batch_norm ? 2 * (cfg.num_layers - 1) : 0u))
    throw ConfigError("ttgnn::sage_layerwise_inference: unexpected parameter layout of the model");
  std::vector<layer_type> layers(cfg.num_layers);
  std::size_t p = 0, q = 0;
  for (int l = 0; l < cfg.num_layers; ++l) {
    layer_type &layer = layers[l];
    layer.in = model.width(l);
    layer.out = model.width(l + 1);
    layer.w_self = typename layer_type::matrix_type(params[p].data(), layer.in, layer.out);
    layer.w_neigh = typename layer_type::matrix_type(params[p + 1].data(), layer.in, layer.out);
    layer.bias = params[p + 2];
    p += 3;
    layer.hidden = l + 1 < cfg.num_layers;
    layer.residual = layer.hidden && model.residual_at(l);
    if (layer.hidden && cfg.batch_norm) {
      layer.gamma = params[p];
      layer.beta = params[p + 1];
      layer.mean = buffers[q];
      layer.var = buffers[q + 1];
      p += 2;
      q += 2;
    }
  }
  return layers;
}

/// yc = t W_neigh + self W_self + b, then the activation of hidden layers (self: the rows' own
/// inputs, also the residual).
template <class Scalar, class ExecutionSpace>
void layerwise_finish(ExecutionSpace const &space,
                      LayerwiseLayer<Scalar, ExecutionSpace> const &layer,
                      Matrix<Scalar, ExecutionSpace> const &yc,
                      Matrix<Scalar, ExecutionSpace> const &t,
                      Matrix<Scalar, ExecutionSpace> const &self) {
  ::ttgnn::gemm(space, 'N', 'N', Scalar(1), t, layer.w_neigh, Scalar(0), yc);
  ::ttgnn::gemm(space, 'N', 'N', Scalar(1), self, layer.w_self, Scalar(1), yc);
  add_bias(space, yc, layer.bias);
  if (layer.hidden)
    sage_inference_activation(space, yc, layer.gamma, layer.beta, layer.mean, layer.var,
                              layer.residual ? self : Matrix<Scalar, ExecutionSpace>(),
                              layerwise_batch_norm_eps);
}

/// Buffers of layer 0's chunks, sized for the largest chunk.
template <class Scalar, class ExecutionSpace> struct LayerwiseChunkBuffers {
  using ids_type = Kokkos::View<std::int64_t *, typename ExecutionSpace::memory_space>;
  using matrix_type = Matrix<Scalar, ExecutionSpace>;
  ids_type keys;    ///< a chunk's own and neighbour ids, then their rows in x
  ids_type unique;  ///< a chunk's distinct ids
  matrix_type x;    ///< the input rows of the distinct ids
  matrix_type t;    ///< mean of the neighbours' input rows, per own row
  matrix_type self; ///< the own rows' input rows
};

/// Rounds \p bytes up to the alignment of the buffers within a LayerwiseWorkspace (that of a
/// Kokkos allocation: the kernels and the GEMMs see the same alignment as in Views of their own).
inline std::int64_t layerwise_aligned(std::int64_t bytes) {
  constexpr std::int64_t align = 128;
  return (bytes + align - 1) / align * align;
}

} // namespace detail

/// \brief Grow-only storage of sage_layerwise_inference, for one call after another (an
/// evaluation after every epoch): one allocation holding, at each layer, what that layer needs at
/// once: its output (N x width), its input (the previous layer's output) and its chunk buffers.
/// The outputs of even layers lie at the start of the allocation, those of odd layers at its
/// end and the chunk buffers between them, so the allocation is the largest sum of one layer's
/// buffers: what a call without a workspace holds at its peak, not one matrix per layer. The
/// first allocation is exact; a later call that needs more replaces it with a quarter more.
template <class Scalar, class ExecutionSpace> class LayerwiseWorkspace {
public:
  using memory_space = typename ExecutionSpace::memory_space;

  /// Bytes of the allocation (memory reports count it).
  std::int64_t bytes() const { return view_bytes(storage_); }
  /// Adds the allocation to \p ledger.
  void add_workspace(ByteLedger &ledger) const { ledger.add(storage_); }
  /// Frees the allocation (the next call allocates again).
  void release() { storage_ = {}; }
  /// The allocation, grown to at least \p bytes (reserve_entries).
  unsigned char *reserve(std::int64_t bytes) {
    reserve_entries(storage_, bytes, "ttgnn::layerwise_inference::workspace");
    return storage_.data();
  }

private:
  Kokkos::View<unsigned char *, memory_space> storage_;
};

namespace detail {

/// \brief The buffers of one sage_layerwise_inference call, sized from its chunks: in a
/// LayerwiseWorkspace (see there), or each a View of its own (an output lives as long as the
/// caller holds it, the others until the end of their layer). Records their sizes in \p mem.
template <class Scalar, class ExecutionSpace> class LayerwiseBuffers {
public:
  using matrix_type = Matrix<Scalar, ExecutionSpace>;
  using ids_type = typename LayerwiseChunkBuffers<Scalar, ExecutionSpace>::ids_type;
  using layer_type = LayerwiseLayer<Scalar, ExecutionSpace>;

  /// \param bounds layer 0's chunks (layerwise_input_chunks), \param chunk later layers' rows
  /// per step
  LayerwiseBuffers(std::vector<layer_type> const &layers, std::int64_t n, std::int64_t chunk,
                   std::vector<std::int64_t> const &bounds,
                   Kokkos::View<const std::int64_t *, Kokkos::HostSpace> row_map,
                   LayerwiseWorkspace<Scalar, ExecutionSpace> *workspace, LayerwiseMemory &mem)
      : layers_(layers), n_(n), later_rows_(std::min(n, chunk)) {
    for (std::size_t j = 0; j + 1 < bounds.size(); ++j) {
      const std::int64_t a = bounds[j], b = bounds[j + 1];
      cap_rows_ = std::max(cap_rows_, b - a);
      cap_keys_ = std::max(cap_keys_, (b - a) + row_map(b) - row_map(a));
    }
    // the distinct ids of a chunk: at most min(ids, N)
    x_rows_ = std::min(cap_keys_, n);
    const std::int64_t in0 = layers.front().in;
    const std::int64_t ids_bytes = cap_keys_ * std::int64_t(sizeof(std::int64_t));
    const std::int64_t x_bytes = x_rows_ * in0 * std::int64_t(sizeof(Scalar));
    const std::int64_t rows_bytes = cap_rows_ * in0 * std::int64_t(sizeof(Scalar));
    // what a call without a workspace holds at once (the N-row matrices, the chunk buffers)
    mem.node_matrix_bytes = output_bytes(0);
    mem.chunk_buffer_bytes = 2 * ids_bytes + x_bytes + 2 * rows_bytes;
    // the workspace: layer 0's output and chunk buffers, then per later layer its output, its
    // input and its step's means (each buffer aligned)
    std::int64_t need = layerwise_aligned(output_bytes(0)) + 2 * layerwise_aligned(ids_bytes) +
                        layerwise_aligned(x_bytes) + 2 * layerwise_aligned(rows_bytes);
    for (std::size_t l = 1; l < layers.size(); ++l) {
      mem.node_matrix_bytes =
          std::max(mem.node_matrix_bytes, output_bytes(l) + output_bytes(l - 1));
      mem.chunk_buffer_bytes = std::max(mem.chunk_buffer_bytes, mean_bytes(l));
      need = std::max(need, layerwise_aligned(output_bytes(l)) +
                                layerwise_aligned(output_bytes(l - 1)) +
                                layerwise_aligned(mean_bytes(l)));
    }
    if (workspace) {
      base_ = workspace->reserve(need);
      size_ = need;
      mem.workspace_bytes = workspace->bytes();
    }
  }

  /// Layer \p l's output, N x its width (in a workspace: at its start for even l, its end for
  /// odd l).
  matrix_type output(std::size_t l) const {
    const std::int64_t width = layers_[l].out;
    if (base_ == nullptr)
      return matrix_type(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::layerwise_inference::h"), n_,
          width);
    const std::int64_t at = l % 2 == 0 ? 0 : size_ - layerwise_aligned(output_bytes(l));
    return matrix_type(reinterpret_cast<Scalar *>(base_ + at), n_, width);
  }

  /// Layer 0's chunk buffers (in a workspace: after layer 0's output).
  LayerwiseChunkBuffers<Scalar, ExecutionSpace> chunk_buffers() const {
    const std::int64_t in = layers_.front().in;
    LayerwiseChunkBuffers<Scalar, ExecutionSpace> buf;
    if (base_ == nullptr) {
      auto alloc = [](std::string const &label) {
        return Kokkos::view_alloc(Kokkos::WithoutInitializing, label);
      };
      buf.keys = ids_type(alloc("ttgnn::layerwise_inference::keys"), cap_keys_);
      buf.unique = ids_type(alloc("ttgnn::layerwise_inference::unique"), cap_keys_);
      buf.x = matrix_type(alloc("ttgnn::layerwise_inference::x"), x_rows_, in);
      buf.t = matrix_type(alloc("ttgnn::layerwise_inference::mean"), cap_rows_, in);
      buf.self = matrix_type(alloc("ttgnn::layerwise_inference::self"), cap_rows_, in);
      return buf;
    }
    std::int64_t at = layerwise_aligned(output_bytes(0));
    buf.keys = ids_type(reinterpret_cast<std::int64_t *>(base_ + at), cap_keys_);
    at += layerwise_aligned(view_bytes(buf.keys));
    buf.unique = ids_type(reinterpret_cast<std::int64_t *>(base_ + at), cap_keys_);
    at += layerwise_aligned(view_bytes(buf.unique));
    buf.x = matrix_type(reinterpret_cast<Scalar *>(base_ + at), x_rows_, in);
    at += layerwise_aligned(view_bytes(buf.x));
    buf.t = matrix_type(reinterpret_cast<Scalar *>(base_ + at), cap_rows_, in);
    at += layerwise_aligned(view_bytes(buf.t));
    buf.self = matrix_type(reinterpret_cast<Scalar *>(base_ + at), cap_rows_, in);
    return buf;
  }

  /// The neighbour means of one step of layer \p l > 0 (in a workspace: between the output of
  /// the layer before, its input, and its own).
  matrix_type later_mean(std::size_t l) const {
    if (base_ == nullptr)
      return matrix_type(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::layerwise_inference::mean"),
          later_rows_, layers_[l].in);
    const std::int64_t even = l % 2 == 0 ? l : l - 1; // the output at the start
    return matrix_type(reinterpret_cast<Scalar *>(base_ + layerwise_aligned(output_bytes(even))),
                       later_rows_, layers_[l].in);
  }

private:
  std::int64_t output_bytes(std::size_t l) const {
    return n_ * layers_[l].out * std::int64_t(sizeof(Scalar));
  }
  std::int64_t mean_bytes(std::size_t l) const {
    return later_rows_ * layers_[l].in * std::int64_t(sizeof(Scalar));
  }

  std::vector<layer_type> const &layers_;
  std::int64_t n_, later_rows_;
  std::int64_t cap_keys_ = 0, cap_rows_ = 0, x_rows_ = 0;
  unsigned char *base_ = nullptr; // the workspace's allocation (none: Views of their own)
  std::int64_t size_ = 0;         // the part of it in use
};

/// Layer 0 for the nodes [a, b) into y: their own and neighbour ids, sorted and made distinct,
/// become the input rows asked of \p input_rows, then the neighbour means and the layer.
template <class Scalar, class ExecutionSpace, class Ordinal, class InputRows>
void layerwise_input_chunk(ExecutionSpace const &space,
                           FullGraphMean<ExecutionSpace, Ordinal> const &graph,
                           InputRows &input_rows,
                           LayerwiseLayer<Scalar, ExecutionSpace> const &layer,
                           LayerwiseChunkBuffers<Scalar, ExecutionSpace> const &buf,
                           Kokkos::View<const std::int64_t *, Kokkos::HostSpace> row_map,
                           std::int64_t a, std::int64_t b, Matrix<Scalar, ExecutionSpace> const &y,
                           LayerwiseMemory &mem) {
  using ids_type = typename LayerwiseChunkBuffers<Scalar, ExecutionSpace>::ids_type;
  using policy = Kokkos::RangePolicy<ExecutionSpace>;
  const std::int64_t r = b - a, e0 = row_map(a), m = r + row_map(b) - e0;
  const ids_type k_m = Kokkos::subview(buf.keys, std::make_pair(std::int64_t(0), m));
  Kokkos::parallel_for("ttgnn::layerwise_inference::chunk_keys", policy(space, 0, m),
                       LayerwiseChunkKeys<ExecutionSpace, Ordinal>{k_m, graph.entries, a, r, e0});
  Kokkos::sort(space, k_m);
  std::int64_t u = 0;
  Kokkos::parallel_scan("ttgnn::layerwise_inference::chunk_unique", policy(space, 0, m),
                        LayerwiseChunkUnique<ExecutionSpace>{k_m, buf.unique}, u);
  // keys are no longer needed: they become the local positions of the ids
  Kokkos::parallel_for(
      "ttgnn::layerwise_inference::chunk_local", policy(space, 0, m),
      LayerwiseChunkLocal<ExecutionSpace, Ordinal>{k_m, buf.unique, graph.entries, a, r, e0, u});
  const Kokkos::View<const std::int64_t *, typename ExecutionSpace::memory_space> ids =
      Kokkos::subview(buf.unique, std::make_pair(std::int64_t(0), u));
  const auto xu = layerwise_rows(buf.x, 0, u), tc = layerwise_rows(buf.t, 0, r),
             sc = layerwise_rows(buf.self, 0, r);
  input_rows(space, ids, xu);
  Kokkos::parallel_for("ttgnn::layerwise_inference::chunk_gather", policy(space, 0, r * layer.in),
                       LayerwiseChunkGather<Scalar, ExecutionSpace>{
                           xu, tc, sc, k_m, graph.row_map, graph.inv_degree, a, r, e0, layer.in});
  layerwise_finish(space, layer, layerwise_rows(y, a, b), tc, sc);
  mem.max_input_rows = std::max(mem.max_input_rows, u);
  mem.input_rows += u;
}

/// Layer 0 into y, in the chunks \p bounds (of at most `chunk` own + neighbour ids).
template <class Scalar, class ExecutionSpace, class Ordinal, class InputRows>
void layerwise_input_layer(ExecutionSpace const &space,
                           FullGraphMean<ExecutionSpace, Ordinal> const &graph,
                           Kokkos::View<const std::int64_t *, Kokkos::HostSpace> host_row_map,
                           InputRows &input_rows,
                           LayerwiseLayer<Scalar, ExecutionSpace> const &layer,
                           std::vector<std::int64_t> const &bounds,
                           LayerwiseChunkBuffers<Scalar, ExecutionSpace> const &buf,
                           Matrix<Scalar, ExecutionSpace> const &y, LayerwiseMemory &mem) {
  for (std::size_t j = 0; j + 1 < bounds.size(); ++j)
    layerwise_input_chunk(space, graph, input_rows, layer, buf, host_row_map, bounds[j],
                          bounds[j + 1], y, mem);
}

/// Layer l > 0 into y from the previous layer's output h, \p chunk rows a step (t: a step's
/// neighbour means, min(N, chunk) rows).
template <class Scalar, class ExecutionSpace, class Ordinal>
void layerwise_later_layer(ExecutionSpace const &space,
                           FullGraphMean<ExecutionSpace, Ordinal> const &graph,
                           LayerwiseLayer<Scalar, ExecutionSpace> const &layer, std::int64_t chunk,
                           Matrix<Scalar, ExecutionSpace> const &h,
                           Matrix<Scalar, ExecutionSpace> const &y,
                           Matrix<Scalar, ExecutionSpace> const &t) {
  const std::int64_t n = graph.num_nodes;
  for (std::int64_t a = 0; a < n; a += chunk) {
    const std::int64_t b = std::min(n, a + chunk);
    const auto tc = layerwise_rows(t, 0, b - a);
    graph.mean_rows(space, a, h, tc);
    layerwise_finish(space, layer, layerwise_rows(y, a, b), tc, layerwise_rows(h, a, b));
  }
}

} // namespace detail

/// \brief Logits of every node (N x classes) from a GraphSAGE GnnModel, layer by layer,
/// without an N x in_features input matrix: layer 0 runs in chunks of nodes, and for each chunk
/// asks \p input_rows for the rows of the chunk's nodes and their neighbours only (each
/// distinct id once per chunk).
/// \param input_rows callable `input_rows(space, ids, out)` that writes the input row of node
/// ids(i) to out(i, :) (ids: `Kokkos::View<const std::int64_t *, memory_space>`, out: Matrix
/// ids.extent(0) x model.width(0)), e.g. a TT lookup or a feature gather
/// \param chunk layer 0: at most this many input rows per step (own and neighbour ids; a single
/// node of larger degree is a step of its own); later layers: rows per step; 0 (the default):
/// layerwise_auto_chunk
/// \param memory when given, receives the sizes of what was allocated (LayerwiseMemory)
/// \param workspace when given, every buffer lives in it (LayerwiseWorkspace: nothing is
/// allocated once it is large enough) and the result views it, valid until its next use; else
/// the buffers are Views of their own and the result is the caller's
/// Memory: the output of layer l and the input of layer l (for l > 0) as N x width matrices (the
/// previous one is freed once the next is done, unless the caller holds it) plus chunk buffers;
/// a workspace holds the largest sum of these over the layers.
/// Throws ConfigError for a GCN model or mismatched shapes.
template <class Scalar, class ExecutionSpace, class Ordinal, class InputRows,
          std::enable_if_t<!Kokkos::is_view<std::decay_t<InputRows>>::value, int> = 0>
Matrix<Scalar, ExecutionSpace> sage_layerwise_inference(
    ExecutionSpace const &space, GnnModel<Scalar, ExecutionSpace, std::int32_t> const &model,
    FullGraphMean<ExecutionSpace, Ordinal> const &graph, InputRows &&input_rows,
    std::int64_t chunk = 0, LayerwiseMemory *memory = nullptr,
    LayerwiseWorkspace<Scalar, ExecutionSpace> *workspace = nullptr) {
  using matrix_type = Matrix<Scalar, ExecutionSpace>;
  const auto layers = detail::layerwise_layers(model);
  if (chunk <= 0) {
    std::int64_t width = 1;
    for (auto const &layer : layers)
      width = std::max(width, layer.in);
    chunk = layerwise_auto_chunk<Scalar>(space, width);
  }
  Kokkos::View<const std::int64_t *, Kokkos::HostSpace> host_row_map = graph.host_row_map;
  if (host_row_map.extent(0) != graph.row_map.extent(0)) // not made by FullGraphMean::build
    host_row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), graph.row_map);
  const std::vector<std::int64_t> bounds = detail::layerwise_input_chunks(host_row_map, chunk);
  LayerwiseMemory mem;
  const detail::LayerwiseBuffers<Scalar, ExecutionSpace> buffers(
      layers, graph.num_nodes, chunk, bounds, host_row_map, workspace, mem);
  matrix_type h; // output of the previous layer (empty before layer 1)
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const matrix_type y = buffers.output(l);
    if (l == 0)
      detail::layerwise_input_layer(space, graph, host_row_map, input_rows, layers[l], bounds,
                                    buffers.chunk_buffers(), y, mem);
    else
      detail::layerwise_later_layer(space, graph, layers[l], chunk, h, y, buffers.later_mean(l));
    space.fence();
    h = y; // frees the previous layer's output (without a workspace)
  }
  if (memory)
    *memory = mem;
  return h;
}

/// \brief As above with the input rows of all N nodes given as a matrix (N x in_features).
template <class Scalar, class ExecutionSpace, class Ordinal>
Matrix<Scalar, ExecutionSpace> sage_layerwise_inference(
    ExecutionSpace const &space, GnnModel<Scalar, ExecutionSpace, std::int32_t> const &model,
    FullGraphMean<ExecutionSpace, Ordinal> const &graph, Matrix<Scalar, ExecutionSpace> const &h0,
    std::int64_t chunk = 0, LayerwiseMemory *memory = nullptr,
    LayerwiseWorkspace<Scalar, ExecutionSpace> *workspace = nullptr) {
  detail::require_extents(h0, graph.num_nodes, model.width(0),
                          "ttgnn::sage_layerwise_inference: h0");
  return sage_layerwise_inference(
      space, model, graph,
      [h0](ExecutionSpace const &s,
           Kokkos::View<const std::int64_t *, typename ExecutionSpace::memory_space> const &ids,
           Matrix<Scalar, ExecutionSpace> const &out) {
        const std::int64_t c = static_cast<std::int64_t>(out.extent(1));
        Kokkos::parallel_for(
            "ttgnn::layerwise_inference::gather_rows",
            Kokkos::RangePolicy<ExecutionSpace>(s, 0, static_cast<std::int64_t>(ids.extent(0)) * c),
            detail::LayerwiseGatherRows<Scalar, ExecutionSpace>{h0, out, ids, c});
      },
      chunk, memory, workspace);
}

} // namespace ttgnn

#endif
