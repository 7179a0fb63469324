#ifndef TTGNN_GRAPH_SBM_GENERATOR_HPP
#define TTGNN_GRAPH_SBM_GENERATOR_HPP
/// \file sbm_generator.hpp
/// \brief Synthetic node-classification graphs with controlled homophily: a degree-corrected
/// stochastic block model with nested communities, Gaussian features and a stratified split.
///
/// **Model.** The N nodes are split into G = C x M groups ("communities") of sizes differing by
/// at most one; class c owns groups c*M .. c*M+M-1. Which node lands in which group is a random
/// permutation, so node ids carry no information. Each node has a weight theta (1 for all
/// nodes, or a Pareto draw for power-law degrees) normalised to mean 1 within its group.
/// The graph has exactly E = round(N d / 2) undirected edges (d = avg_degree), of three kinds
/// with fixed counts (the block edge counts are fixed, not binomial): E_s = round(round(E h) f)
/// same-community edges, round(E h) - E_s same-class edges between different communities of the
/// class, and E - round(E h) edges between classes (h = homophily, f = community fraction;
/// f = 1 when M = 1). One edge of a kind is drawn as: u with probability
/// proportional to theta over all nodes, then v proportional to theta among the nodes of the
/// allowed kind for u (u's community without u; u's class outside u's community; other
/// classes). So node i's expected degree is theta_i * d, and the edge homophily is exactly
/// round(E h) / E: the target is met exactly, not only in expectation.
///
/// **Duplicates and self loops.** A self loop (only possible for same-community draws) is
/// redrawn on the spot. Duplicate pairs are removed after sorting, and the missing edges of
/// each kind are drawn again from the same distribution ("top-up rounds") until every kind has
/// its exact count. So the edge count, average degree, homophily and community fraction hit
/// their targets exactly (no duplicate-removal bias on them); what the rejection changes is the
/// degree law: a pair is at most one edge, so heavy nodes whose pairs saturate (hubs in small
/// communities) get somewhat fewer edges than theta_i * d and the others slightly more. The
/// number of duplicate draws is reported (0.03% for 2.5M nodes / 60M edges without power law;
/// ~4% with gamma = 2.5 and 8 communities per class).
///
/// **Power-law degrees** (gamma > 2): theta ~ Pareto with P(theta > x) = x^-(gamma-1), capped
/// at the structural cutoff k_max = sqrt(N d) (and at half of the smallest group a node can
/// reach, divided by the share of that kind of edge) so that pairs rarely repeat; degrees then
/// follow P(k) ~ k^-gamma up to k_max.
///
/// **Features**: x_i = mu_{y_i} + z_i, z_i ~ N(0, I_F); mu_c = s * r_c / |r_c| with r_c a
/// Gaussian random direction and s = feature_separation. Each value is the float nearest to a
/// multiple of 1e-4 (a rounding far below the unit noise), written as that short decimal, so
/// the text is compact and reads back to exactly the same float.
///
/// **Split**: per class, a random permutation of its nodes; the first round(train * n_c) are
/// train, the next round(valid * n_c) valid, the rest test (or, when test_fraction >= 0, the
/// next round(test * n_c) of the rest; the others are in no split).
///
/// **Determinism**: every random choice comes from a counter-based stream named by (seed,
/// purpose, chunk/node/class) (core/counter_rng.hpp); chunking depends on the sizes only, so
/// the result is identical for every execution space and thread count.

#include "core/host_only.hpp"
#include "graph/synth/sbm_config.hpp"
#include "graph/synth/sbm_multilabel.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace ttgnn {

/// \brief Generates one dataset from an SbmConfig: node layout at construction (O(N)), then
/// edges, features and split on request.
class SbmGenerator {
public:
  /// \brief The undirected edges, each once, as packed keys `(u << 32) | v` with u < v,
  /// sorted ascending (so by u, then v). Use source() / target() to unpack.
  struct Edges {
    Kokkos::View<std::uint64_t *, Kokkos::HostSpace> keys;
    std::int64_t same_community = 0;   ///< edges inside one community
    std::int64_t same_class_other = 0; ///< same class, different communities
    std::int64_t cross_class = 0;      ///< endpoints in different classes
    std::int64_t draws = 0;            ///< pairs drawn over all rounds (self loops not counted)
    std::int64_t duplicates = 0;       ///< draws dropped as repeats of an earlier pair
    std::int64_t self_loops = 0;       ///< draws with u == v, redrawn
    int rounds = 0;                    ///< sampling rounds (1 + top-up rounds)

    std::int64_t size() const { return static_cast<std::int64_t>(keys.extent(0)); }
    static std::int32_t source(std::uint64_t key) { return static_cast<std::int32_t>(key >> 32); }
    static std::int32_t target(std::uint64_t key) {
      return static_cast<std::int32_t>(key & 0xFFFFFFFFu);
    }
  };

  /// \brief Train / valid / test node ids, each sorted ascending.
  struct Split {
    Kokkos::View<std::int64_t *, Kokkos::HostSpace> train, valid, test;
  };

  /// Progress messages (one line each, no newline).
  using Progress = std::function<void(std::string const &)>;

  /// \brief Validates \p config (ConfigError) and lays out the nodes: groups, labels, weights.
  explicit SbmGenerator(SbmConfig const &config);

  SbmConfig const &config() const { return config_; }
  std::int64_t num_nodes() const { return config_.num_nodes; }
  // The generator keeps only its alias table (12 bytes per node) and per-community constants,
  // so that generating the edges holds the edge keys and little more; the three per-node
  // arrays below are computed on each call, in O(N): call them once, not per node.
  /// Class of each node.
  Kokkos::View<const std::int32_t *, Kokkos::HostSpace> labels() const;
  /// Community of each node, a global id in [0, C*M): class c owns c*M .. c*M+M-1.
  Kokkos::View<const std::int32_t *, Kokkos::HostSpace> communities() const;
  /// Degree weight theta of each node (mean 1 in each community); expected degree theta * d.
  Kokkos::View<const float *, Kokkos::HostSpace> weights() const;
  /// Exact edge counts per kind: {same community, same class other community, cross class}.
  std::vector<std::int64_t> edge_targets() const { return {targets_[0], targets_[1], targets_[2]}; }

  /// \brief Draws the edges in parallel chunks on \p space (a host execution space).
  /// Each round draws every missing edge twice (count per bucket, then place: no second
  /// buffer), sorts and de-duplicates each bucket of keys, and merges new keys into place.
  /// Memory: 8 bytes per edge plus ~2% slack. Throws ConfigError when the requested density
  /// cannot be placed without repeating pairs (checked up front; also after 200 rounds).
  template <class ExecutionSpace>
  Edges generate_edges(ExecutionSpace const &space, Progress const &progress = {}) const;

  /// Class means, C x F (each row has norm feature_separation).
  Kokkos::View<float **, Kokkos::LayoutRight, Kokkos::HostSpace> class_means() const;
  /// \brief Features of nodes first .. first+count-1 into \p out (count x F, row-major), given
  /// \p labels = labels(). Thread-safe; the values do not depend on how the rows are chunked.
  void node_features(Kokkos::View<const std::int32_t *, Kokkos::HostSpace> labels,
                     std::int64_t first, std::int64_t count, float *out) const;
  /// All features, N x F (for small graphs; the writer streams node_features instead).
  template <class ExecutionSpace>
  Kokkos::View<float **, Kokkos::LayoutRight, Kokkos::HostSpace>
  features(ExecutionSpace const &space) const;

  /// The stratified split.
  Split split() const;

  /// \brief The generation record: every parameter, the seed and the achieved values
  /// (homophily, average degree, community fraction, max degree, duplicate draws, ...) as
  /// (key, JSON value) pairs, in a fixed order.
  std::vector<std::pair<std::string, std::string>> record(Edges const &edges) const;

private:
  struct AliasEntry {
    float prob;              // keep the node at this position with this probability ...
    std::int32_t node;       // ... the node at this position
    std::int32_t alias_node; // ... else this one (same community)
  };
  SbmConfig config_;
  std::int64_t group_size_ = 0, big_groups_ = 0; // the first big_groups_ have group_size_+1 nodes
  std::int64_t targets_[3] = {0, 0, 0};
  Kokkos::View<AliasEntry *, Kokkos::HostSpace> table_; // by position (nodes grouped)
  double weight_cap_ = 0;                               // cap of the Pareto draws
  std::vector<double> weight_scale_; // per community: to mean 1 (empty without power law)
  Kokkos::View<float **, Kokkos::LayoutRight, Kokkos::HostSpace> means_;

  std::int64_t group_start(std::int64_t g) const;
  /// Node \p node's weight, \p group its community.
  float weight(std::int64_t node, std::int64_t group) const;
  /// Sets out(v) = value(v, community of v) for every node v.
  template <class T, class F>
  void per_node(Kokkos::View<T *, Kokkos::HostSpace> out, F value) const;
  void assign_groups();
  void set_weight_scales();
  void build_alias_tables();
  void set_targets();

  friend struct SbmEdgeSampler; // the edge-sampling kernel (sbm_generator_edges.cpp)
};

/// Options of write_sbm_dataset.
struct SbmWriteOptions {
  bool gzip = true;                  ///< .csv.gz (parallel gzip members) or plain .csv
  bool force = false;                ///< replace an existing non-empty folder
  std::string split_name = "random"; ///< split/<split_name>/{train,valid,test}
  /// Lines per gzip member / parallel block of the edge, label and split files (feature
  /// files use about the same bytes per block). Changes only the file's internal chunking.
  std::int64_t block_lines = 1 << 19;
  /// tasks > 0: raw/node-label.csv holds T binary columns (graph/synth/sbm_multilabel.hpp) instead
  /// of the class, and meta.csv says multi-label, ROC-AUC (the layout of ogbn-proteins).
  SbmMultilabelOptions multilabel;
  /// K > 0: raw/edge-feat.csv with K features per edge (uniform in [0, 1), 3 decimals, seeded;
  /// not informative: they give ogbn-proteins' file layout only).
  int edge_features = 0;
};

/// \brief Writes the generated dataset into \p out_dir in the OGB raw layout (see
/// OGB_FORMAT.md), through a temporary folder renamed at the end; meta.csv carries
/// add_inverse_edge True, num_classes and the generation record (keys `sbm_*`). Refuses a
/// non-empty \p out_dir unless options.force (InputError, before writing anything; see
/// OgbWriter::check_destination to check before generating).
/// \return the generation record written (SbmGenerator::record).
template <class ExecutionSpace, HostOnly<ExecutionSpace> host_only = 0>
std::vector<std::pair<std::string, std::string>>
write_sbm_dataset(ExecutionSpace const &space, SbmGenerator const &generator,
                  SbmGenerator::Edges const &edges, std::string const &out_dir,
                  SbmWriteOptions const &options, SbmGenerator::Progress const &progress = {});

} // namespace ttgnn

#endif
