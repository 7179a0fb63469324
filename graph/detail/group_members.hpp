#ifndef TTGNN_GRAPH_DETAIL_GROUP_MEMBERS_HPP
#define TTGNN_GRAPH_DETAIL_GROUP_MEMBERS_HPP
/// \file group_members.hpp
/// \brief The members of each group of nodes, by a counting sort (host).

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <vector>

namespace ttgnn::detail {

/// \brief The c + 1 offsets of \p c groups of the nodes 0 .. n-1 (node v in group of(v), in
/// [0, c), not checked): group g has start(g + 1) - start(g) members.
template <class Of>
Kokkos::View<std::int64_t *, Kokkos::HostSpace> group_starts(std::int64_t n, std::int64_t c,
                                                             Of of) {
  Kokkos::View<std::int64_t *, Kokkos::HostSpace> start("ttgnn::graph::group_start", c + 1);
  for (std::int64_t v = 0; v < n; ++v)
    ++start(of(v) + 1);
  for (std::int64_t g = 0; g < c; ++g)
    start(g + 1) += start(g);
  return start;
}

/// \brief Members of \p c groups of the nodes 0 .. n-1, node v in group of(v) (in [0, c), not
/// checked): group g holds members(start(g)) .. members(start(g + 1) - 1), in increasing node
/// id. start gets c + 1 offsets.
template <class Of>
void group_members(std::int64_t n, std::int64_t c, Of of,
                   Kokkos::View<std::int64_t *, Kokkos::HostSpace> &start,
                   Kokkos::View<std::int64_t *, Kokkos::HostSpace> &members) {
  start = group_starts(n, c, of);
  members = Kokkos::View<std::int64_t *, Kokkos::HostSpace>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::graph::group_members"), n);
  std::vector<std::int64_t> fill(start.data(), start.data() + c);
  for (std::int64_t v = 0; v < n; ++v)
    members(fill[of(v)]++) = v;
}

} // namespace ttgnn::detail

#endif
