#ifndef TTGNN_GRAPH_PERMUTE_IN_PLACE_HPP
#define TTGNN_GRAPH_PERMUTE_IN_PLACE_HPP
/// \file permute_in_place.hpp
/// \brief A permutation applied to a graph and its feature rows in their own arrays, with a
/// buffer of about 1/blocks of the arcs instead of a second copy: relabelling a graph that
/// fills most of the memory.
///
/// The rows move block by block of new ids (blocks cut at about equal arc counts). Invariant
/// before block b: the rows of new ids below its first are in place at the front, and every
/// other row lies in the rest of the array, in increasing old id. The block's rows are
/// gathered into the buffer (in parallel); the rows after the block are moved to the end of
/// the array, keeping their order (one serial pass from the back, each row moving towards the
/// end, so that no row overwrites one not yet moved); the buffer is copied into the gap that
/// opens in front of them. Each entry moves about (blocks - 1) / 2 + 2 times. Everything is
/// allocated before the first entry changes. The result does not depend on the number of
/// blocks or threads: it is the same as permute_graph's and permute_rows'.

#include "core/error.hpp"
#include "graph/csr_graph.hpp"
#include "graph/dataset.hpp"
#include "graph/permutation.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace ttgnn {

/// Default number of blocks: a buffer of about a quarter of the arcs.
inline constexpr int permute_in_place_blocks = 4;

namespace detail {

/// \brief Moves the segments of \p data into the new order: old row u starts at pos(u) (it is
/// overwritten with scratch values) and new row i goes to [new_map(i), new_map(i + 1)).
/// \p finish(first, last) is applied to each row once it is in the buffer. Returns the
/// buffer's entries.
template <class ExecutionSpace, class T, class Finish>
std::int64_t
permute_segments_in_place(ExecutionSpace const &space, T *data,
                          Kokkos::View<std::int64_t *, Kokkos::HostSpace> pos,
                          Kokkos::View<const std::int64_t *, Kokkos::HostSpace> new_map,
                          Permutation const &perm, int blocks, Finish finish) {
  const std::int64_t n = perm.size(), total = n == 0 ? 0 : new_map(n);
  blocks = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(blocks, n)));
  std::vector<std::int64_t> first(blocks + 1, n); // block b: new ids [first[b], first[b + 1])
  std::int64_t widest = 0;
  first[0] = 0;
  for (int b = 1; b < blocks; ++b) {
    const std::int64_t target = total / blocks * b + total % blocks * b / blocks;
    first[b] = std::lower_bound(new_map.data(), new_map.data() + n, target) - new_map.data();
    first[b] = std::max(first[b], first[b - 1]);
  }
  for (int b = 0; b < blocks; ++b)
    widest = std::max(widest, new_map(first[b + 1]) - new_map(first[b]));
  Kokkos::View<T *, Kokkos::HostSpace> buffer(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::permute_in_place::buffer"), widest);
  auto n2o = perm.new_to_old;
  auto o2n = perm.old_to_new;
  using Policy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  for (int b = 0; b < blocks; ++b) {
    const std::int64_t i0 = first[b], i1 = first[b + 1], base = new_map(i0);
    Kokkos::parallel_for("ttgnn::permute_in_place::gather", Policy(space, i0, i1),
                         [=](std::int64_t i) {
                           const std::int64_t len = new_map(i + 1) - new_map(i);
                           T *dst = buffer.data() + (new_map(i) - base);
                           std::copy(data + pos(n2o(i)), data + pos(n2o(i)) + len, dst);
                           finish(dst, dst + len);
                         });
    space.fence();
    // The rows after the block to the end, in increasing old id (so from the back).
    std::int64_t end = total;
    for (std::int64_t u = n - 1; u >= 0 && i1 < n; --u) {
      const std::int64_t i = o2n(u);
      if (i < i1)
        continue;
      const std::int64_t len = new_map(i + 1) - new_map(i);
      end -= len;
      if (end != pos(u))
        std::memmove(data + end, data + pos(u), sizeof(T) * static_cast<std::size_t>(len));
      pos(u) = end;
    }
    Kokkos::parallel_for("ttgnn::permute_in_place::place", Policy(space, 0, new_map(i1) - base),
                         [=](std::int64_t k) { data[base + k] = buffer(k); });
    space.fence();
  }
  return widest;
}

} // namespace detail

/// \brief permute_graph(space, g, perm) in g's own arrays: the rows move into the new order
/// through a buffer of about num_arcs / \p blocks entries (see the file comment), where their
/// neighbour ids are renamed and sorted, and g.row_map is replaced by the new offsets. Every
/// other handle of g's entries sees the relabelled graph. Returns the buffer's entries.
template <class ExecutionSpace, class Ordinal>
std::int64_t permute_graph_in_place(ExecutionSpace const &space,
                                    CsrGraph<Ordinal, Kokkos::HostSpace> &g,
                                    Permutation const &perm, int blocks = permute_in_place_blocks) {
  detail::check_host_space<ExecutionSpace>();
  const std::int64_t n = g.num_nodes();
  if (perm.size() != n)
    throw ConfigError("ttgnn::permute_graph_in_place: permutation has " +
                      std::to_string(perm.size()) + " ids, graph has " + std::to_string(n) +
                      " nodes");
  auto o2n = perm.old_to_new;
  const auto row_map = detail::permuted_row_map(space, g.row_map, perm);
  // The old offsets serve as the rows' current positions.
  const std::int64_t buffer =
      detail::permute_segments_in_place(space, g.entries.data(), g.row_map, row_map, perm, blocks,
                                        [=](Ordinal *first, Ordinal *last) {
                                          for (Ordinal *a = first; a != last; ++a)
                                            *a = static_cast<Ordinal>(o2n(*a));
                                          std::sort(first, last);
                                        });
  g.row_map = row_map;
  return buffer;
}

/// \brief permute_rows(space, rows, perm) for a LayoutRight N x F View, in its own memory
/// (buffer of about N / \p blocks rows). Every other handle of \p rows sees the new order.
template <class ExecutionSpace, class Scalar>
void permute_rows_in_place(ExecutionSpace const &space,
                           Kokkos::View<Scalar **, Kokkos::LayoutRight, Kokkos::HostSpace> rows,
                           Permutation const &perm, int blocks = permute_in_place_blocks) {
  detail::check_host_space<ExecutionSpace>();
  const std::int64_t n = static_cast<std::int64_t>(rows.extent(0));
  const std::int64_t width = static_cast<std::int64_t>(rows.extent(1));
  if (n == 0 || width == 0)
    return;
  if (perm.size() != n)
    throw ConfigError("ttgnn::permute_rows_in_place: '" + rows.label() + "' has " +
                      std::to_string(n) + " rows, the permutation " + std::to_string(perm.size()));
  if (!rows.span_is_contiguous())
    throw ConfigError("ttgnn::permute_rows_in_place: '" + rows.label() + "' is not contiguous");
  using Policy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  Kokkos::View<std::int64_t *, Kokkos::HostSpace> pos(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::permute_in_place::pos"), n),
      offsets(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::permute_in_place::offsets"),
              n + 1);
  Kokkos::parallel_for("ttgnn::permute_in_place::row_offsets", Policy(space, 0, n + 1),
                       [=](std::int64_t i) {
                         offsets(i) = i * width;
                         if (i < n)
                           pos(i) = i * width;
                       });
  space.fence();
  detail::permute_segments_in_place(space, rows.data(), pos, offsets, perm, blocks,
                                    [](Scalar *, Scalar *) {});
}

/// Whether \p g's arrays have no other handle than \p g's (so relabelling them in place changes
/// nothing that anyone else reads).
template <class Ordinal> bool owns_arrays(CsrGraph<Ordinal, Kokkos::HostSpace> const &g) {
  return g.row_map.use_count() == 1 && g.entries.use_count() == 1;
}

/// \brief apply_permutation for a dataset given up by the caller: the graph and the dense
/// features are permuted in their own arrays (permute_graph_in_place, permute_rows_in_place),
/// so the peak holds one graph plus a buffer instead of two graphs; the other node arrays as
/// apply_permutation does. An array that another handle still shares (a copy of the Dataset
/// the caller kept) is copied instead, so no other holder sees a change. \p data is left
/// empty; the result holds its arrays.
template <class ExecutionSpace, class Ordinal>
Dataset<Ordinal> apply_permutation(ExecutionSpace const &space, Dataset<Ordinal> &&data,
                                   Permutation const &perm) {
  Dataset<Ordinal> out = data; // a View's move copies its handle: clear the caller's below
  data = Dataset<Ordinal>();
  if (perm.size() != out.num_nodes())
    throw ConfigError("ttgnn::apply_permutation: permutation has " + std::to_string(perm.size()) +
                      " ids, the dataset " + std::to_string(out.num_nodes()) + " nodes");
  if (owns_arrays(out.graph))
    permute_graph_in_place(space, out.graph, perm);
  else
    out.graph = permute_graph(space, out.graph, perm);
  if (out.features.extent(0) > 0 && out.features.use_count() == 1)
    permute_rows_in_place(space, out.features, perm);
  else if (out.features.extent(0) > 0)
    out.features = permute_rows(space, out.features, perm);
  detail::permute_other_arrays(space, out, out, perm);
  return out;
}

} // namespace ttgnn

#endif
