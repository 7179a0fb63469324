#ifndef TTGNN_GRAPH_ORDER_METHOD_HPP
#define TTGNN_GRAPH_ORDER_METHOD_HPP
/// \file order_method.hpp
/// \brief The node orderings ttgnn compares, by name (ordering.hpp computes them).

#include <string>

namespace ttgnn {

/// The orderings ttgnn compares.
enum class OrderMethod {
  original,   ///< ids as loaded
  random,     ///< seeded uniform random permutation
  metis,      ///< flat METIS k-way, contiguous ids per part (DGL reorder_graph, the paper's code)
  metis_hier, ///< hierarchical METIS aligned to the TT row factors (hierarchical_partition.hpp)
  rcm,        ///< reverse Cuthill-McKee (boost_reverse_cuthill_mckee), a bandwidth-reducing order
  lp_hier     ///< label-propagation clusters packed into core-1 slices, BFS inside
              ///< (label_propagation_order.hpp): O(N + E) time, O(N) memory
};

/// "original", "random", "metis", "metis-hier", "rcm", "lp-hier".
std::string to_string(OrderMethod method);
/// Inverse of to_string; throws ConfigError listing the choices.
OrderMethod parse_order_method(std::string const &name);
/// metis-hier and lp-hier: node ids are mixed-radix TT row ids whose leading digits are
/// clusters of the graph (rows may have holes).
bool is_hierarchical(OrderMethod method);

} // namespace ttgnn

#endif
