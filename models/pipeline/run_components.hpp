#ifndef TTGNN_MODELS_PIPELINE_RUN_COMPONENTS_HPP
#define TTGNN_MODELS_PIPELINE_RUN_COMPONENTS_HPP
/// \file run_components.hpp
/// \brief The RunConfig -> components translation of the pipeline, in one place: what each
/// setting of a run becomes in the objects both training paths are built from (the GNN's
/// config, the trainers' options, the input of either path with its table initialised). The
/// run itself (pipeline.cpp) builds these and trains; the node order comes from node_order.hpp.

#include "graph/dataset.hpp"
#include "models/embedding/embedding_init.hpp"
#include "models/embedding/minibatch_input.hpp"
#include "models/embedding/node_input.hpp"
#include "models/layers/gnn_config.hpp"
#include "models/pipeline/node_order.hpp"
#include "models/pipeline/run_config.hpp"
#include "models/train/minibatch_trainer.hpp"
#include "models/train/train_options.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace ttgnn {

/// \brief What must match between a checkpoint and the run resuming or evaluating it: the
/// data (by content: \p data_print, data_fingerprint of the dataset as loaded), split, order,
/// seed, locality, TT shape, feature normalisation, metric.
std::string run_fingerprint(std::string const &data_print, RunConfig const &c, NodeOrder const &o);

/// \brief The GNN of the run; \p in_features is the input's width, \p classes the output's.
GnnConfig gnn_config(RunConfig const &c, std::int64_t in_features, std::int64_t classes);

/// \brief What both trainers take from the run: optimisation, early stopping, checkpoints, the
/// fingerprint (run_fingerprint) and the settings stored in checkpoints.
void set_train_options(TrainOptions &to, std::string const &data_print, RunConfig const &c,
                       NodeOrder const &o);

/// \brief The full-batch input of the run on the order \p o: features on the device, a TT
/// table or a full table, initialised (what the initialisation did goes to \p info). Only a
/// full table reads \p data, the dataset as loaded (its init follows the original ids).
NodeInput<float, Kokkos::DefaultExecutionSpace>
make_node_input(Kokkos::DefaultExecutionSpace const &space, Dataset<std::int32_t> const &data,
                RunConfig const &c, NodeOrder const &o, RunLog const &log, EmbeddingInitInfo &info);

/// \brief The embedding of a mini-batch run: the run's, with the TT factors the order was
/// aligned to.
EmbeddingConfig minibatch_embedding(RunConfig const &c, NodeOrder const &o);

/// \brief The mini-batch input of the run on the order \p o (its rows follow the order).
MinibatchInput<float, Kokkos::DefaultExecutionSpace>
make_minibatch_input(Kokkos::DefaultExecutionSpace const &space, RunConfig const &c,
                     NodeOrder const &o, RunLog const &log, EmbeddingInitInfo &info);

/// \brief The mini-batch trainer's options for the run (its input rows follow the order \p o;
/// \p data_print as set_train_options).
MinibatchTrainOptions minibatch_options(std::string const &data_print, RunConfig const &c,
                                        NodeOrder const &o, bool evaluate_only);

} // namespace ttgnn

#endif
