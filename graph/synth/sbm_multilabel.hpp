#ifndef TTGNN_GRAPH_SBM_MULTILABEL_HPP
#define TTGNN_GRAPH_SBM_MULTILABEL_HPP
/// \file sbm_multilabel.hpp
/// \brief Multi-label targets for a generated graph (`ttgnn generate --multilabel T`): task t
/// is positive on a random half of the planted communities, so it is learnable from the graph
/// exactly as far as the communities are; each entry is then flipped with probability
/// `noise` and hidden (unknown, -1) with probability `unknown`. Deterministic in the seed.

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace ttgnn {

/// \brief Settings of sbm_multilabels.
struct SbmMultilabelOptions {
  int tasks = 0;        ///< T binary tasks (0: single-label dataset)
  double noise = 0.1;   ///< probability that an entry is flipped
  double unknown = 0.0; ///< probability that an entry is unknown (-1)
  std::uint64_t seed = 0;
};

/// \brief N x T targets (1 / 0 / -1) from each node's community in [0, num_communities).
/// Task t's positive communities: each community independently with probability 1/2, and at
/// least one community on each side (when num_communities >= 2). ConfigError for T < 1 or
/// probabilities outside [0, 1].
Kokkos::View<std::int8_t **, Kokkos::LayoutRight, Kokkos::HostSpace>
sbm_multilabels(Kokkos::View<const std::int32_t *, Kokkos::HostSpace> communities,
                std::int64_t num_communities, SbmMultilabelOptions const &options);

} // namespace ttgnn

#endif
