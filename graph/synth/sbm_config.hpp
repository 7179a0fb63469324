#ifndef TTGNN_GRAPH_SBM_CONFIG_HPP
#define TTGNN_GRAPH_SBM_CONFIG_HPP
/// \file sbm_config.hpp
/// \brief Parameters of the synthetic graph generator (see sbm_generator.hpp).

#include <cstdint>

namespace ttgnn {

/// \brief Parameters of a degree-corrected stochastic block model with planted classes,
/// nested communities, Gaussian features and a stratified split. Defaults give a small,
/// homophilous graph.
struct SbmConfig {
  std::int64_t num_nodes = 10000; ///< N, at most 2^30
  int num_classes = 5;            ///< C, node labels 0 .. C-1 (class sizes differ by at most M)
  double avg_degree = 10; ///< target mean degree; the graph gets round(N * avg_degree / 2) edges
  double homophily = 0.8; ///< edge homophily h: fraction of edges joining same-class nodes
  int communities = 1;    ///< M communities per class (1 = none)
  /// Fraction of same-class edges that stay inside one community (used when M > 1; with M = 1
  /// every same-class edge is inside the class' only community).
  double community_fraction = 0.8;
  /// Exponent gamma of a power-law degree distribution P(k) ~ k^-gamma, gamma > 2; 0 = off
  /// (then every node has the same expected degree).
  double power_law = 0;
  int num_features = 0;            ///< F, 0 = no features
  double feature_separation = 1.0; ///< norm of each class mean; the noise has unit variance
  double train_fraction = 0.6;     ///< per class, rounded to the nearest node
  double valid_fraction = 0.2;     ///< per class; the rest of each class is test
  /// Per class, rounded to the nearest node (at most what train and valid leave); < 0: the
  /// rest of the class. Nodes in no split keep their label (ogbn-papers100M tests 0.19%).
  double test_fraction = -1;
  std::uint64_t seed = 0; ///< the same seed gives the same dataset, at any thread count

  /// Number of undirected edges the generator produces: round(N * avg_degree / 2).
  std::int64_t num_edges() const;
  /// Throws ttgnn::ConfigError naming the first parameter out of range.
  void validate() const;
};

} // namespace ttgnn

#endif
