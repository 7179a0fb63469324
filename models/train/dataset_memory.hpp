#ifndef TTGNN_MODELS_DATASET_MEMORY_HPP
#define TTGNN_MODELS_DATASET_MEMORY_HPP
/// \file dataset_memory.hpp
/// \brief The arrays of a Dataset, by part of the JSON memory breakdown
/// (core/runtime/memory_breakdown.hpp): the CSR into \p graph, dense or sparse features into
/// \p features, labels, years and split ids into \p nodes. A ByteLedger counts each allocation
/// once, so a dataset sharing arrays with another adds only what it owns.

#include "core/runtime/byte_ledger.hpp"
#include "graph/dataset.hpp"

namespace ttgnn {

template <class Ordinal>
void add_dataset_memory(Dataset<Ordinal> const &d, ByteLedger &graph, ByteLedger &features,
                        ByteLedger &nodes) {
  graph.add(d.graph.row_map).add(d.graph.entries);
  features.add(d.features)
      .add(d.sparse_features.row_map)
      .add(d.sparse_features.cols)
      .add(d.sparse_features.values);
  nodes.add(d.labels).add(d.multilabels).add(d.node_year).add(d.train).add(d.valid).add(d.test);
}

} // namespace ttgnn

#endif
