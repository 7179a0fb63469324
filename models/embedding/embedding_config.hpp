#ifndef TTGNN_MODELS_EMBEDDING_CONFIG_HPP
#define TTGNN_MODELS_EMBEDDING_CONFIG_HPP
/// \file embedding_config.hpp
/// \brief The one description of a node embedding table (full or TT): its width, TT shape,
/// initialisation and optimiser settings. Full-batch and mini-batch inputs, the initialisation
/// (embedding_init.hpp) and the run settings (models/pipeline/run_config.hpp) all take this
/// struct, so every setting means the same on both training paths.

#include "core/tt/tt_modes.hpp"
#include "core/tt/tt_shape.hpp"
#include "models/embedding/init_method.hpp"

#include <cstdint>
#include <vector>

namespace ttgnn {

/// \brief The embedding table (full or TT), its initial values and its optimiser.
struct EmbeddingConfig {
  std::int64_t dim = 64;          ///< columns of the table
  std::int64_t tt_rank = 0;       ///< uniform TT rank (0: resolved_tt_rank's default, 8 or 16)
  std::vector<std::int64_t> tt_n; ///< TT row factors (empty: balanced with tt_slack)
  std::vector<std::int64_t> tt_d; ///< TT column factors (empty: from dim)
  double tt_slack = 1.05;         ///< default row factors: product >= tt_slack * N
  InitMethod init = InitMethod::orthogonal;
  /// Root-mean-square entry of the initial table (0.1: 0.04 better test accuracy than 1 on
  /// held-out generated graphs, docs/RESULTS.md).
  double init_std = 0.1;
  double spectral_exponent = 0.5; ///< spectral init: column j scaled by |lambda_j|^exponent
  /// Spectral init of a TT table: above this many entries (nodes x dim) of the graph's
  /// eigenvector matrix it starts from the eigenvectors of its slot graph (embedding_init.hpp).
  /// 2^25: 524,288 nodes at dim 64. Measured (docs/SCALE.md): the same test accuracy as the
  /// graph's own spectrum on Cora and a 100k-node graph, at a fraction of the time.
  std::int64_t spectral_max_entries = std::int64_t{1} << 25;
  /// TT backward: deterministic (grouped by prefix) or atomic (core/tt/tt_modes.hpp)
  TtBackwardMode backward = TtBackwardMode::deterministic;
  double lr = -1;          ///< < 0: the GNN's
  double weight_decay = 0; ///< < 0: the GNN's (decaying the table costs accuracy)
};

/// \brief The TT rank of \p spec: its tt_rank, or when that is 0 the default for a graph of
/// \p num_nodes nodes of which \p num_train are training nodes: 16 when at least a quarter of
/// the nodes are training nodes, else 8. With few labels (Planetoid's 20 per class) the smaller
/// table generalises better; with half the nodes labelled rank 16 reaches the full table where
/// rank 8 stays 0.01-0.03 below it (docs/RESULTS.md, "The TT rank against the full table").
std::int64_t resolved_tt_rank(EmbeddingConfig const &spec, std::int64_t num_nodes,
                              std::int64_t num_train);

/// \brief The TT shape of a table of \p num_rows rows under \p spec (tt_rank > 0): the row
/// factors tt_n, else balanced with product >= tt_slack * num_rows; the column factors tt_d,
/// else \p dim factored as evenly as possible; as many cores as the factors given (3 when
/// none). ConfigError for an impossible shape.
TtShape embedding_tt_shape(EmbeddingConfig const &spec, std::int64_t num_rows);

} // namespace ttgnn

#endif
