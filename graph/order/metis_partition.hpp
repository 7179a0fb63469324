#ifndef TTGNN_GRAPH_METIS_PARTITION_HPP
#define TTGNN_GRAPH_METIS_PARTITION_HPP
/// \file metis_partition.hpp
/// \brief Graph partitioning with METIS 5 (k-way or recursive bisection, edge-cut objective),
/// seeded, with METIS' index width checked and its return codes turned into
/// ttgnn::LibraryError. METIS itself is only included by metis_partition.cpp.
///
/// METIS indexes nodes and arcs with `idx_t` (32-bit in Debian's build): a graph with more
/// arcs than idx_t holds (ogbn-papers100M: ~3.2e9) is refused unless the caller allows a
/// sparsification (keep at most k arcs per node, chosen with a seed); the result says whether
/// it happened and how many arcs were dropped.

#include "core/host_only.hpp"
#include "graph/csr_graph.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace ttgnn {

/// Which METIS driver partitions the graph.
enum class MetisAlgorithm {
  kway,               ///< METIS_PartGraphKway (multilevel k-way)
  recursive_bisection ///< METIS_PartGraphRecursive
};

/// "kway" or "rb".
std::string to_string(MetisAlgorithm algorithm);
/// Inverse of to_string; throws ConfigError naming the choices.
MetisAlgorithm parse_metis_algorithm(std::string const &name);

/// \brief Settings of one METIS call.
struct MetisOptions {
  MetisAlgorithm algorithm = MetisAlgorithm::kway;
  std::uint64_t seed = 0;      ///< METIS_OPTION_SEED (folded to a non-negative idx_t)
  int imbalance_permille = 30; ///< METIS_OPTION_UFACTOR: largest part <= (1 + u/1000)·average
  int num_cuts = 1;            ///< METIS_OPTION_NCUTS: best of this many partitionings
  /// Sparsification for graphs with more arcs than METIS can index: 0 refuses such graphs
  /// (ConfigError); k > 0 keeps, for every node, the arcs to its k neighbours of smallest seeded
  /// edge priority, plus every arc its neighbour keeps (so the graph stays symmetric). Graphs that
  /// fit are never sparsified.
  std::int64_t max_arcs_per_node = 0;
  /// Largest number of arcs handed to METIS; 0 = the largest idx_t. Tests lower it to reach the
  /// refusal and sparsification paths on small graphs.
  std::int64_t arc_limit = 0;
  bool check_symmetric = true; ///< verify that every arc has its reverse (O(arcs·log degree))
};

/// \brief Part of every node and what the call did.
struct MetisResult {
  Kokkos::View<std::int32_t *, Kokkos::HostSpace> part; ///< part of node v in [0, num_parts)
  std::int64_t num_parts = 0;
  std::int64_t num_edges = 0;     ///< undirected edges of the input graph, self loops excluded
  std::int64_t edge_cut = 0;      ///< edges of the input graph whose ends lie in different parts
  bool called_metis = false;      ///< false for the trivial cases (k = 1, k >= N, no edges)
  bool sparsified = false;        ///< METIS saw a sparsified graph (see max_arcs_per_node)
  std::int64_t arcs_to_metis = 0; ///< arcs METIS saw (self loops removed)
  std::int64_t arcs_dropped = 0;  ///< arcs removed by the sparsification
};

/// \brief Optional weights of a METIS call (empty Views: every node and arc weighs 1).
struct MetisWeights {
  /// Weight of node v (>= 1; N entries or empty): METIS balances the parts' total weight.
  Kokkos::View<const std::int64_t *, Kokkos::HostSpace> vertex;
  /// Weight of arc a, aligned with graph.entries (>= 1, equal on both arcs of an edge; num_arcs
  /// entries or empty): METIS minimises the weight of the cut.
  Kokkos::View<const std::int64_t *, Kokkos::HostSpace> edge;
  bool empty() const { return vertex.extent(0) == 0 && edge.extent(0) == 0; }
};

/// \brief Partitions a symmetric graph into \p num_parts parts minimising the edge cut.
///
/// Self loops are removed before METIS sees the graph. k = 1 puts every node in part 0;
/// k >= N puts node v in part v (parts N..k-1 stay empty); a graph without edges is split into
/// k contiguous blocks of ids. Deterministic for a seed.
/// \param space host execution space for the conversions and the cut count.
/// \throws ConfigError k < 1, too many nodes or arcs for idx_t (see MetisOptions);
///         InputError the graph is not symmetric; LibraryError METIS failed (input, memory).
template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only = 0>
MetisResult metis_partition(ExecutionSpace const &space,
                            CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                            std::int64_t num_parts, MetisOptions const &options = {});

/// \brief The same with node and arc weights (the coarse graphs of multilevel_order.hpp). The
/// trivial cases ignore the weights; edge_cut counts edges, not weights. Weighted graphs are
/// never sparsified: one with more arcs than METIS takes is refused (ConfigError), as is one
/// whose total node or arc weight does not fit idx_t.
template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only = 0>
MetisResult
metis_partition(ExecutionSpace const &space, CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                std::int64_t num_parts, MetisOptions const &options, MetisWeights const &weights);

/// \brief The symmetric subgraph that keeps, for each node, the arcs to its \p max_arcs_per_node
/// neighbours of smallest priority hash(seed, {u, v}), and every arc whose reverse is kept.
/// Self loops are dropped. Each undirected edge is kept or dropped as a whole.
template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only = 0>
CsrGraph<Ordinal, Kokkos::HostSpace>
sparsify_graph(ExecutionSpace const &space, CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
               std::int64_t max_arcs_per_node, std::uint64_t seed);

/// \brief Undirected edges {u, v}, u != v, with part(u) != part(v).
template <class ExecutionSpace, class Ordinal, class PartView,
          HostOnly<ExecutionSpace> host_only = 0>
std::int64_t count_edge_cut(ExecutionSpace const &space,
                            CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                            PartView const &part) {
  auto row_map = graph.row_map;
  auto entries = graph.entries;
  std::int64_t cut = 0;
  Kokkos::parallel_reduce(
      "ttgnn::metis::edge_cut",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(space, 0,
                                                                           graph.num_nodes()),
      KOKKOS_LAMBDA(std::int64_t u, std::int64_t & sum) {
        for (std::int64_t a = row_map(u); a < row_map(u + 1); ++a) {
          const std::int64_t v = entries(a);
          if (u < v && part(u) != part(v))
            ++sum;
        }
      },
      cut);
  return cut;
}

/// Bits of METIS' idx_t, checked once against the library at run time (LibraryError when the
/// header and the shared library disagree).
int metis_index_bits();

} // namespace ttgnn

#endif
