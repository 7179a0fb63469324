#ifndef TTGNN_MODELS_TRAIN_TRAINING_REPORT_HPP
#define TTGNN_MODELS_TRAIN_TRAINING_REPORT_HPP
/// \file training_report.hpp
/// \brief What both trainers report the same way: the checkpoint fingerprint of the model and
/// its input, and the memory breakdown of the objects a training run holds.

#include "core/runtime/byte_ledger.hpp"
#include "core/runtime/memory_breakdown.hpp"
#include "core/runtime/peak_memory.hpp"
#include "models/train/train_options.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace ttgnn {

/// "[8,16,...]": the extents of a list of flat Views.
template <class View> std::string extents_string(std::vector<View> const &views) {
  std::string s;
  for (auto const &v : views)
    s += (s.empty() ? "" : ",") + std::to_string(v.extent(0));
  return "[" + s + "]";
}

/// \brief The part of a checkpoint fingerprint that names the model, its input and optimizer:
/// "<kind> layers=L widths=in/hidden/out residual=r bn=b input=<input> params=[..] emb=[..]
/// optimizer=adam". \p input describes the input (kind and TT shape), \p input_params are its
/// trainable Views.
template <class Model, class View>
std::string training_fingerprint(Model const &model, std::string const &input,
                                 std::vector<View> const &input_params, OptimizerKind optimizer) {
  auto const &c = model.config();
  return to_string(c.kind) + " layers=" + std::to_string(c.num_layers) +
         " widths=" + std::to_string(c.in_features) + "/" + std::to_string(c.hidden) + "/" +
         std::to_string(c.out_features) + " residual=" + std::to_string(c.residual) +
         " bn=" + std::to_string(c.batch_norm) + " input=" + input +
         " params=" + extents_string(model.parameters()) + " emb=" + extents_string(input_params) +
         " optimizer=" + to_string(optimizer);
}

/// \brief The memory breakdown (core/runtime/memory_breakdown.hpp) of a model, its input and
/// the training loop, next to the \p graph and \p features the caller holds (each allocation
/// counts once): table or TT cores with gradients, optimizer moments of the GNN and of the
/// embedding, GNN parameters, gradients and buffers, and activations (the model's largest
/// workspace, \p extra_activation_bytes, the loop's gradients and the input's workspace, or
/// \p released_input_bytes when the input freed a larger one before now). peak_rss_mb is set;
/// sampler_mb, eval_mb and nodes_mb are left to the caller.
template <class Model, class Input, class Loop>
MemoryBreakdown training_memory(Model const &model, Input const &input, Loop const &loop,
                                ByteLedger graph, ByteLedger features,
                                std::int64_t extra_activation_bytes = 0,
                                std::int64_t released_input_bytes = 0) {
  ByteLedger table, optimizer, params, work;
  loop.add_memory(optimizer, work);
  ByteLedger with_input = work; // the input's buffers beyond the loop's (aliases count once)
  input.add_memory(features, table, optimizer, with_input);
  const std::int64_t input_bytes = with_input.bytes() - work.bytes();
  params.add_all(model.parameters()).add_all(model.gradients()).add_all(model.buffers());
  MemoryBreakdown m;
  m.peak_rss_mb = peak_rss_mb();
  m.graph_mb = to_mb(graph.bytes());
  m.features_mb = to_mb(features.bytes());
  m.table_mb = to_mb(table.bytes());
  m.optimizer_mb = to_mb(optimizer.bytes());
  m.parameters_mb = to_mb(params.bytes());
  m.activations_mb = to_mb(model.peak_workspace_bytes() + extra_activation_bytes + work.bytes() +
                           std::max(input_bytes, released_input_bytes));
  return m;
}

} // namespace ttgnn

#endif
