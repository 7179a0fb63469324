// The block locality of a node labelling (graph/order/locality.hpp).
#include "graph/order/locality.hpp"

#include "core/error.hpp"

#include <string>

namespace ttgnn {

template <class Ordinal>
double block_locality(CsrGraph<Ordinal, Kokkos::HostSpace> const &graph, std::int64_t block,
                      Kokkos::View<const std::int64_t *, Kokkos::HostSpace> old_to_new) {
  const std::int64_t n = graph.num_nodes();
  if (block < 1)
    throw ConfigError("block_locality: block " + std::to_string(block) + " < 1");
  const bool relabel = old_to_new.extent(0) > 0;
  if (relabel && static_cast<std::int64_t>(old_to_new.extent(0)) != n)
    throw ConfigError("block_locality: " + std::to_string(old_to_new.extent(0)) + " new ids for " +
                      std::to_string(n) + " nodes");
  std::int64_t same = 0;
  for (std::int64_t u = 0; u < n; ++u) {
    const std::int64_t bu = (relabel ? old_to_new(u) : u) / block;
    for (std::int64_t k = graph.row_map(u); k < graph.row_map(u + 1); ++k) {
      const std::int64_t v = graph.entries(k);
      same += (relabel ? old_to_new(v) : v) / block == bu;
    }
  }
  const std::int64_t arcs = graph.num_arcs();
  return arcs > 0 ? static_cast<double>(same) / static_cast<double>(arcs) : 0.0;
}

template double block_locality<std::int32_t>(CsrGraph<std::int32_t, Kokkos::HostSpace> const &,
                                             std::int64_t,
                                             Kokkos::View<const std::int64_t *, Kokkos::HostSpace>);
template double block_locality<std::int64_t>(CsrGraph<std::int64_t, Kokkos::HostSpace> const &,
                                             std::int64_t,
                                             Kokkos::View<const std::int64_t *, Kokkos::HostSpace>);

} // namespace ttgnn
