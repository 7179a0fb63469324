#ifndef TTGNN_MODELS_SUBSET_INFERENCE_HPP
#define TTGNN_MODELS_SUBSET_INFERENCE_HPP
/// \file subset_inference.hpp
/// \brief Inference of a subset of the nodes (e.g. the test nodes) from their L-hop
/// neighbourhoods, batch by batch, as the OGB examples evaluate huge graphs: each batch of
/// nodes gets one block per layer from a NeighborSampler (graph/neighbor_sampler.hpp), the input
/// rows of the batch's input nodes only, and the model's own forward in evaluation mode.
///
/// With every fan-out <= 0 (all neighbours) the blocks are the exact L-hop neighbourhoods and
/// the result equals layer-wise full-neighbour inference (models/train/layerwise_inference.hpp) on
/// those nodes, up to the order of floating-point sums; with positive fan-outs it is sampled
/// evaluation (seeded: the blocks are a function of the sampler's seed, \p stream and the batch
/// index). Memory follows the batch's L-hop neighbourhood, not N.

#include "core/runtime/byte_ledger.hpp"
#include "core/linalg/dense_gemm.hpp"
#include "core/error.hpp"
#include "core/runtime/grow_only.hpp"
#include "graph/neighbor_sampler.hpp"
#include "models/layers/block_operator.hpp"
#include "models/gnn_model.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace ttgnn {

/// \brief Sizes seen by one sage_subset_inference call.
struct SubsetInferenceMemory {
  std::int64_t max_input_rows = 0;  ///< most input rows of one batch (its L-hop neighbourhood)
  std::int64_t max_block_edges = 0; ///< most sampled edges of one batch, over its blocks
  std::int64_t input_rows = 0;      ///< input rows over all batches
  /// Largest memory of a batch: the model's workspace (layer outputs; models/gnn_model.hpp),
  /// the sampled batch (graph/neighbor_sampler.hpp), its block operators, the input rows x0
  /// and their ids.
  std::int64_t max_batch_bytes = 0;
  /// The model's workspace within max_batch_bytes (buffers it resizes in place: a caller that
  /// already counts the model's training workspace counts only the rest).
  std::int64_t max_model_bytes = 0;
  /// With a SubsetInferenceWorkspace, the bytes it holds after the call (the capacity of the
  /// batches' buffers, kept for the next call, and the output); 0 without one.
  std::int64_t workspace_bytes = 0;
};

/// \brief Grow-only buffers of sage_subset_inference, for one call after another (an evaluation
/// after every epoch): the sampled batch (one batch at a time: a batch's kernels are queued on
/// the space before the next batch is sampled on it), its block operators, its input rows and
/// the output. Nothing is allocated once they hold the largest batch.
template <class Scalar, class ExecutionSpace> struct SubsetInferenceWorkspace {
  using memory_space = typename ExecutionSpace::memory_space;
  SamplerWorkspace<memory_space> sampler;
  std::vector<BlockOperatorWorkspace<Scalar, memory_space>> blocks; ///< one per layer
  GrowingMatrix<Matrix<Scalar, ExecutionSpace>> x0, out;

  /// Adds every buffer (its capacity) to \p ledger (memory reports).
  void add_workspace(ByteLedger &ledger) const {
    ledger.add_all(sampler.nodes).add_all(sampler.row_maps).add_all(sampler.entries);
    ledger.add(sampler.picked).add(sampler.new_rank);
    for (auto const &b : blocks)
      b.add_workspace(ledger);
    ledger.add(x0.storage()).add(out.storage());
  }
  /// Bytes of add_workspace's buffers.
  std::int64_t bytes() const {
    ByteLedger ledger;
    add_workspace(ledger);
    return ledger.bytes();
  }
  /// Frees every buffer (the next call allocates again).
  void release() { *this = SubsetInferenceWorkspace(); }
};

/// \brief Logits of \p nodes (nodes.extent(0) x classes, row i = node nodes(i)) from a
/// GraphSAGE GnnModel; see the file comment. Puts the model in evaluation mode.
/// \param sampler the blocks (fan-outs <= 0: all neighbours, exact); its layers must match the
/// model's
/// \param input_rows callable `input_rows(space, ids, out)` writing the input row of node ids(i)
/// to out(i, :) (as sage_layerwise_inference takes it)
/// \param nodes distinct node ids, \param batch_size nodes per batch
/// \param stream names the sampler's random streams (with the batch index)
/// \param workspace when given, the batches and the output live in its buffers (nothing is
/// allocated once they hold the largest batch) and the result views it, valid until its next
/// use; else in new ones
/// Throws ConfigError for a GCN model, a layer-count mismatch or batch_size < 1; InputError for
/// an out-of-range or repeated node id (from the sampler).
template <class Scalar, class ExecutionSpace, class InputRows>
Matrix<Scalar, ExecutionSpace> sage_subset_inference(
    ExecutionSpace const &space, GnnModel<Scalar, ExecutionSpace, std::int32_t> &model,
    NeighborSampler<std::int32_t, typename ExecutionSpace::memory_space> &sampler,
    InputRows &&input_rows,
    Kokkos::View<const std::int64_t *, typename ExecutionSpace::memory_space> nodes,
    std::int64_t batch_size, std::uint64_t stream, SubsetInferenceMemory *memory = nullptr,
    SubsetInferenceWorkspace<Scalar, ExecutionSpace> *workspace = nullptr) {
  using matrix_type = Matrix<Scalar, ExecutionSpace>;
  GnnConfig const &cfg = model.config();
  if (cfg.kind != GnnKind::sage)
    throw ConfigError("subset inference needs a GraphSAGE model");
  if (sampler.num_layers() != cfg.num_layers)
    throw ConfigError("subset inference: " + std::to_string(sampler.num_layers()) +
                      " fan-outs for " + std::to_string(cfg.num_layers) + " layers");
  if (batch_size < 1)
    throw ConfigError("subset inference: batch size must be >= 1");
  model.set_training(false);
  const std::int64_t n = static_cast<std::int64_t>(nodes.extent(0));
  const std::int64_t classes = model.width(cfg.num_layers);
  const matrix_type out = workspace
                              ? workspace->out.rows("ttgnn::subset_inference::out", n, classes)
                              : matrix_type(Kokkos::view_alloc(Kokkos::WithoutInitializing,
                                                               "ttgnn::subset_inference::out"),
                                            n, classes);
  if (workspace)
    workspace->blocks.resize(static_cast<std::size_t>(cfg.num_layers));
  SubsetInferenceMemory mem;
  for (std::int64_t first = 0, b = 0; first < n; first += batch_size, ++b) {
    const std::int64_t last = std::min(n, first + batch_size);
    const auto seeds = Kokkos::subview(nodes, std::make_pair(first, last));
    std::vector<GraphOperator<Scalar, ExecutionSpace, std::int32_t>> ops;
    std::int64_t n_in = 0, batch_bytes = 0, model_bytes = 0;
    {
      const auto batch = sampler.sample(space, seeds, stream, static_cast<std::uint64_t>(b),
                                        workspace ? &workspace->sampler : nullptr);
      for (std::size_t l = 0; l < batch.blocks.size(); ++l)
        ops.push_back(block_mean_operator<Scalar>(space, batch.blocks[l],
                                                  workspace ? &workspace->blocks[l] : nullptr));
      mem.max_block_edges = std::max(mem.max_block_edges, batch.num_edges());
      const auto ids = batch.input_nodes();
      n_in = static_cast<std::int64_t>(ids.extent(0));
      const matrix_type x0 =
          workspace ? workspace->x0.rows("ttgnn::subset_inference::x0", n_in, model.width(0))
                    : matrix_type(Kokkos::view_alloc(Kokkos::WithoutInitializing,
                                                     "ttgnn::subset_inference::x0"),
                                  n_in, model.width(0));
      input_rows(space, ids, x0);
      // the seeds are the first rows of the last block's output
      Kokkos::deep_copy(space, Kokkos::subview(out, std::make_pair(first, last), Kokkos::ALL),
                        model.forward(space, ops, x0));
      // the model's buffers, the sampled blocks (their node lists hold the input ids), their
      // operators (sharing the blocks' arrays) and the input rows
      ByteLedger held;
      held.add_all(batch.nodes);
      for (auto const &a : ops)
        held.add(a.row_map)
            .add(a.entries)
            .add(a.values)
            .add(a.t_row_map)
            .add(a.t_entries)
            .add(a.t_values);
      held.add(x0);
      model_bytes = model.workspace_bytes();
      batch_bytes = model_bytes + held.bytes();
    }
    mem.max_input_rows = std::max(mem.max_input_rows, n_in);
    mem.input_rows += n_in;
    if (batch_bytes > mem.max_batch_bytes) {
      mem.max_batch_bytes = batch_bytes;
      mem.max_model_bytes = model_bytes;
    }
  }
  space.fence();
  if (workspace)
    mem.workspace_bytes = workspace->bytes();
  if (memory)
    *memory = mem;
  return out;
}

} // namespace ttgnn

#endif
