#ifndef TTGNN_GRAPH_SBM_DATASET_HPP
#define TTGNN_GRAPH_SBM_DATASET_HPP
/// \file sbm_dataset.hpp
/// \brief A generated (DC-SBM) dataset built directly in memory, without writing the OGB folder
/// and reading it back: the same graph, labels, features and split as `ttgnn generate` writes
/// for the same SbmConfig (graph/synth/sbm_generator.hpp).

#include "core/host_only.hpp"
#include "graph/dataset.hpp"
#include "graph/synth/sbm_config.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ttgnn {

/// \brief Generates the dataset of \p config on \p space (a host execution space): symmetric
/// CSR without self loops, labels, features (0 x 0 when num_features == 0) and the split
/// (train/valid/test, named "random").
/// \param record when not null, receives the generator's record (achieved homophily, ...)
template <class ExecutionSpace, HostOnly<ExecutionSpace> host_only = 0>
Dataset<std::int32_t>
make_sbm_dataset(ExecutionSpace const &space, SbmConfig const &config,
                 std::vector<std::pair<std::string, std::string>> *record = nullptr);

} // namespace ttgnn

#endif
