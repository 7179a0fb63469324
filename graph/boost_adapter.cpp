#include "graph/boost_adapter.hpp"

#include "core/error.hpp"
#include "graph/csr_build.hpp"

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/cuthill_mckee_ordering.hpp>
#include <boost/graph/strong_components.hpp>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>

namespace ttgnn {

namespace {

using BoostCsr =
    boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, boost::no_property,
                                       boost::no_property, std::size_t, std::size_t>;
using Vertex = boost::graph_traits<BoostCsr>::vertex_descriptor;

/// Copies a symmetric ttgnn CSR (without its self loops) into a Boost CSR graph.
template <class Ordinal>
BoostCsr to_boost(CsrGraph<Ordinal, Kokkos::HostSpace> const &g, char const *who) {
  if (!is_symmetric(Kokkos::DefaultHostExecutionSpace(), g))
    throw ConfigError(std::string(who) + ": the graph must be symmetric (undirected)");
  const std::int64_t n = g.num_nodes();
  std::vector<std::pair<std::size_t, std::size_t>> arcs;
  arcs.reserve(static_cast<std::size_t>(g.num_arcs()));
  for (std::int64_t u = 0; u < n; ++u)
    for (std::int64_t k = g.row_map(u); k < g.row_map(u + 1); ++k)
      if (g.entries(k) != u)
        arcs.emplace_back(static_cast<std::size_t>(u), static_cast<std::size_t>(g.entries(k)));
  return BoostCsr(boost::edges_are_sorted, arcs.begin(), arcs.end(), static_cast<std::size_t>(n));
}

/// Records vertices in discovery order.
struct DiscoverRecorder : boost::default_bfs_visitor {
  std::vector<std::int64_t> *order;
  void discover_vertex(Vertex v, BoostCsr const &) const {
    order->push_back(static_cast<std::int64_t>(v));
  }
};

} // namespace

template <class Ordinal>
std::int64_t boost_connected_components(CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                                        std::vector<std::int64_t> *component) {
  const BoostCsr bg = to_boost(graph, "boost_connected_components");
  const std::size_t n = static_cast<std::size_t>(graph.num_nodes());
  std::vector<std::size_t> comp(n);
  const std::size_t count =
      n == 0 ? 0
             : boost::strong_components(bg, boost::make_iterator_property_map(
                                                comp.begin(), get(boost::vertex_index, bg)));
  if (component) { // renumber by smallest member
    std::vector<std::int64_t> rename(count, -1);
    std::int64_t next = 0;
    component->resize(n);
    for (std::size_t v = 0; v < n; ++v) {
      if (rename[comp[v]] < 0)
        rename[comp[v]] = next++;
      (*component)[v] = rename[comp[v]];
    }
  }
  return static_cast<std::int64_t>(count);
}

template <class Ordinal>
std::vector<std::int64_t> boost_bfs_order(CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                                          std::int64_t source) {
  if (source < 0 || source >= graph.num_nodes())
    throw ConfigError("boost_bfs_order: source " + std::to_string(source) + " outside [0, " +
                      std::to_string(graph.num_nodes()) + ")");
  const BoostCsr bg = to_boost(graph, "boost_bfs_order");
  std::vector<std::int64_t> order;
  DiscoverRecorder visitor;
  visitor.order = &order;
  boost::breadth_first_search(bg, static_cast<Vertex>(source), boost::visitor(visitor));
  return order;
}

template <class Ordinal>
Kokkos::View<std::int64_t *, Kokkos::HostSpace>
boost_reverse_cuthill_mckee(CsrGraph<Ordinal, Kokkos::HostSpace> const &graph) {
  const BoostCsr bg = to_boost(graph, "boost_reverse_cuthill_mckee");
  const std::int64_t n = graph.num_nodes();
  std::vector<Vertex> order(static_cast<std::size_t>(n));
  // Cuthill-McKee emits vertices in visiting order (new -> old); written backwards it is RCM.
  boost::cuthill_mckee_ordering(bg, order.rbegin());
  Kokkos::View<std::int64_t *, Kokkos::HostSpace> new_to_old(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::boost_adapter::rcm"), n);
  for (std::int64_t i = 0; i < n; ++i)
    new_to_old(i) = static_cast<std::int64_t>(order[i]);
  return new_to_old;
}

template <class Ordinal>
std::int64_t bandwidth(CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                       Kokkos::View<std::int64_t *, Kokkos::HostSpace> new_to_old) {
  const std::int64_t n = graph.num_nodes();
  std::vector<std::int64_t> pos(n);
  for (std::int64_t i = 0; i < n; ++i)
    pos[i] = i;
  if (new_to_old.extent(0) > 0) {
    if (static_cast<std::int64_t>(new_to_old.extent(0)) != n)
      throw ConfigError("bandwidth: permutation size differs from the node count");
    for (std::int64_t i = 0; i < n; ++i)
      pos[new_to_old(i)] = i;
  }
  std::int64_t band = 0;
  for (std::int64_t u = 0; u < n; ++u)
    for (std::int64_t k = graph.row_map(u); k < graph.row_map(u + 1); ++k)
      band = std::max(band, std::abs(pos[u] - pos[graph.entries(k)]));
  return band;
}

#define TTGNN_INSTANTIATE_BOOST_ADAPTER(ORDINAL)                                                   \
  template std::int64_t boost_connected_components<ORDINAL>(                                       \
      CsrGraph<ORDINAL, Kokkos::HostSpace> const &, std::vector<std::int64_t> *);                  \
  template std::vector<std::int64_t> boost_bfs_order<ORDINAL>(                                     \
      CsrGraph<ORDINAL, Kokkos::HostSpace> const &, std::int64_t);                                 \
  template Kokkos::View<std::int64_t *, Kokkos::HostSpace> boost_reverse_cuthill_mckee<ORDINAL>(   \
      CsrGraph<ORDINAL, Kokkos::HostSpace> const &);                                               \
  template std::int64_t bandwidth<ORDINAL>(CsrGraph<ORDINAL, Kokkos::HostSpace> const &,           \
                                           Kokkos::View<std::int64_t *, Kokkos::HostSpace>);
TTGNN_INSTANTIATE_BOOST_ADAPTER(std::int32_t)
TTGNN_INSTANTIATE_BOOST_ADAPTER(std::int64_t)

} // namespace ttgnn
