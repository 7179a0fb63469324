#ifndef TTGNN_CORE_MEMORY_BREAKDOWN_HPP
#define TTGNN_CORE_MEMORY_BREAKDOWN_HPP
/// \file memory_breakdown.hpp
/// \brief What a training run holds, by part, in MiB, summed from the sizes of the Views the
/// objects hold (core/runtime/byte_ledger.hpp), next to the measured peak resident memory
/// (core/runtime/peak_memory.hpp). The parts do not cover everything (allocator slack, the loader's
/// temporaries, library workspaces, the program itself), so peak_rss_mb - accounted_mb() is
/// what no View explains.

#include "core/io/json_writer.hpp"

#include <cstdint>
#include <string>

namespace ttgnn {

/// \brief Memory by part (MiB = 2^20 bytes), see the file comment.
struct MemoryBreakdown {
  double peak_rss_mb = 0;    ///< peak resident set size of the process (host)
  double graph_mb = 0;       ///< the CSR graph and the operators built from it (both directions)
  double features_mb = 0;    ///< node features (host and device copies, when distinct)
  double table_mb = 0;       ///< embedding table or TT cores, and their gradients
  double optimizer_mb = 0;   ///< optimizer state (moments) of the GNN and of the embedding
  double parameters_mb = 0;  ///< GNN weights and their gradients
  double activations_mb = 0; ///< model workspaces (layer outputs, saved inputs, gradients)
  double sampler_mb = 0;     ///< neighbour sampler scratch and its two batch workspaces
  double eval_mb = 0;        ///< the largest evaluation buffers (N x width matrices, chunks)
  /// Node arrays: labels, split ids, years, and the node order's maps kept beside the dataset
  /// (old_to_new, new_to_old, new_to_row; none for the original order), host and device
  /// copies when distinct.
  double nodes_mb = 0;

  /// Sum of the parts.
  double accounted_mb() const {
    return graph_mb + features_mb + table_mb + optimizer_mb + parameters_mb + activations_mb +
           sampler_mb + eval_mb + nodes_mb;
  }
};

/// The breakdown as a JSON object: {"peak_rss_mb":...,"graph_mb":...,...,"accounted_mb":...}.
inline std::string to_json(MemoryBreakdown const &m) {
  JsonWriter j;
  j.field("peak_rss_mb", m.peak_rss_mb);
  j.field("graph_mb", m.graph_mb);
  j.field("features_mb", m.features_mb);
  j.field("table_mb", m.table_mb);
  j.field("optimizer_mb", m.optimizer_mb);
  j.field("parameters_mb", m.parameters_mb);
  j.field("activations_mb", m.activations_mb);
  j.field("sampler_mb", m.sampler_mb);
  j.field("eval_mb", m.eval_mb);
  j.field("nodes_mb", m.nodes_mb);
  j.field("accounted_mb", m.accounted_mb());
  return j.str();
}

/// Bytes to MiB.
inline double to_mb(std::int64_t bytes) {
  return static_cast<double>(bytes) / (1024.0 * 1024.0);
}

} // namespace ttgnn

#endif
