#ifndef TTGNN_GRAPH_PERMUTATION_HPP
#define TTGNN_GRAPH_PERMUTATION_HPP
/// \file permutation.hpp
/// \brief A relabelling of the nodes of a graph, with its direction in the member names, and
/// the functions that apply it to every node-level array of a Dataset at once.
///
/// Convention used everywhere in ttgnn:
///   - an *old* id is the node's id in the dataset as loaded (the original id);
///   - a *new* id is its id after the relabelling;
///   - `new_to_old(i)` is the old id of the node that gets new id i, `old_to_new(v)` the new
///     id of old node v. The two arrays are inverse bijections of [0, N).
/// Applying a permutation gathers: new_array(i) = old_array(new_to_old(i)). Mapping a result
/// computed on the permuted dataset back to original ids: result_old(v) = result_new(old_to_new(v))
/// (unpermute_rows).

#include "core/error.hpp"
#include "graph/csr_graph.hpp"
#include "graph/dataset.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

namespace ttgnn {

/// \brief A bijection of node ids [0, N): `new_to_old` and its inverse `old_to_new`.
struct Permutation {
  using IdView = Kokkos::View<std::int64_t *, Kokkos::HostSpace>;
  IdView new_to_old; ///< new id -> old (original) id
  IdView old_to_new; ///< old (original) id -> new id

  /// Number of nodes.
  std::int64_t size() const { return static_cast<std::int64_t>(new_to_old.extent(0)); }

  /// The identity on \p n nodes.
  static Permutation identity(std::int64_t n) {
    IdView ids(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::permutation::identity"), n);
    for (std::int64_t i = 0; i < n; ++i)
      ids(i) = i;
    Permutation p;
    p.new_to_old = ids;
    p.old_to_new = IdView("ttgnn::permutation::identity_inverse", n);
    Kokkos::deep_copy(p.old_to_new, ids);
    return p;
  }

  /// \brief Builds the permutation from its new -> old array; computes the inverse.
  /// Throws ttgnn::InputError when \p new_to_old is not a bijection of [0, N).
  static Permutation from_new_to_old(IdView new_to_old) {
    Permutation p;
    p.new_to_old = new_to_old;
    p.old_to_new = invert(new_to_old, "new_to_old");
    return p;
  }

  /// \brief Builds the permutation from its old -> new array; computes the inverse.
  /// Throws ttgnn::InputError when \p old_to_new is not a bijection of [0, N).
  static Permutation from_old_to_new(IdView old_to_new) {
    Permutation p;
    p.old_to_new = old_to_new;
    p.new_to_old = invert(old_to_new, "old_to_new");
    return p;
  }

  /// The inverse relabelling (new ids become old ids). Shares the arrays.
  Permutation inverse() const {
    Permutation p;
    p.new_to_old = old_to_new;
    p.old_to_new = new_to_old;
    return p;
  }

  /// \brief `this` followed by \p next (whose old ids are the new ids of `this`):
  /// result.old_to_new(v) = next.old_to_new(old_to_new(v)).
  Permutation then(Permutation const &next) const {
    if (next.size() != size())
      throw ConfigError("ttgnn::Permutation::then: sizes differ (" + std::to_string(size()) +
                        " vs " + std::to_string(next.size()) + ")");
    IdView o2n(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::permutation::old_to_new"),
               size());
    for (std::int64_t v = 0; v < size(); ++v)
      o2n(v) = next.old_to_new(old_to_new(v));
    return from_old_to_new(o2n);
  }

  /// \brief Inverse of a bijection of [0, N); throws InputError naming \p what otherwise.
  static IdView invert(IdView const &map, char const *what) {
    const std::int64_t n = static_cast<std::int64_t>(map.extent(0));
    IdView inv(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::permutation::inverse"), n);
    Kokkos::deep_copy(inv, std::int64_t(-1));
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t j = map(i);
      if (j < 0 || j >= n)
        throw InputError(std::string("permutation ") + what + "[" + std::to_string(i) +
                         "] = " + std::to_string(j) + " is outside [0, " + std::to_string(n) + ")");
      if (inv(j) != -1)
        throw InputError(std::string("permutation ") + what + " is not a bijection: entries " +
                         std::to_string(inv(j)) + " and " + std::to_string(i) + " are both " +
                         std::to_string(j));
      inv(j) = i;
    }
    return inv;
  }
};

namespace detail {
template <class ExecutionSpace> void check_host_space() {
  static_assert(Kokkos::SpaceAccessibility<ExecutionSpace, Kokkos::HostSpace>::accessible,
                "ttgnn permutations run on a host execution space (Serial, OpenMP, Threads)");
}

/// The row offsets of the graph with offsets \p old_rows in the new order of \p perm.
template <class ExecutionSpace>
Kokkos::View<std::int64_t *, Kokkos::HostSpace>
permuted_row_map(ExecutionSpace const &space,
                 Kokkos::View<const std::int64_t *, Kokkos::HostSpace> old_rows,
                 Permutation const &perm) {
  const std::int64_t n = perm.size();
  Kokkos::View<std::int64_t *, Kokkos::HostSpace> row_map("ttgnn::permute_graph::row_map", n + 1);
  auto n2o = perm.new_to_old;
  Kokkos::parallel_scan(
      "ttgnn::permute_graph::offsets",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(space, 0, n),
      [=](std::int64_t i, std::int64_t &sum, bool final) {
        const std::int64_t v = n2o(i);
        sum += old_rows(v + 1) - old_rows(v);
        if (final)
          row_map(i + 1) = sum;
      });
  space.fence();
  return row_map;
}
} // namespace detail

/// \brief The graph with node v renamed old_to_new(v); rows stay sorted, the edge set is the
/// same up to the renaming. Parallel over new rows on \p space (a host space).
template <class ExecutionSpace, class Ordinal>
CsrGraph<Ordinal, Kokkos::HostSpace> permute_graph(ExecutionSpace const &space,
                                                   CsrGraph<Ordinal, Kokkos::HostSpace> const &g,
                                                   Permutation const &perm) {
  detail::check_host_space<ExecutionSpace>();
  const std::int64_t n = g.num_nodes();
  if (perm.size() != n)
    throw ConfigError("ttgnn::permute_graph: permutation has " + std::to_string(perm.size()) +
                      " ids, graph has " + std::to_string(n) + " nodes");
  CsrGraph<Ordinal, Kokkos::HostSpace> out;
  out.row_map = detail::permuted_row_map(space, g.row_map, perm);
  out.entries = decltype(out.entries)(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::permute_graph::entries"),
      g.num_arcs());
  auto row_map = out.row_map;
  auto entries = out.entries;
  auto old_rows = g.row_map;
  auto old_entries = g.entries;
  auto n2o = perm.new_to_old;
  auto o2n = perm.old_to_new;
  using Policy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  // Host lambda (not KOKKOS_LAMBDA): std::sort runs on the host space only.
  Kokkos::parallel_for("ttgnn::permute_graph::fill", Policy(space, 0, n), [=](std::int64_t i) {
    const std::int64_t v = n2o(i);
    std::int64_t k = row_map(i);
    for (std::int64_t a = old_rows(v); a < old_rows(v + 1); ++a)
      entries(k++) = static_cast<Ordinal>(o2n(old_entries(a)));
    std::sort(entries.data() + row_map(i), entries.data() + k);
  });
  space.fence();
  return out;
}

/// \brief Rows of a rank-1 or rank-2 host View in the new order: out(i, ...) =
/// in(new_to_old(i), ...). An empty View (no features) stays empty.
template <class ExecutionSpace, class ViewType>
Kokkos::View<typename ViewType::non_const_data_type, typename ViewType::array_layout,
             Kokkos::HostSpace>
permute_rows(ExecutionSpace const &space, ViewType const &in, Permutation const &perm) {
  detail::check_host_space<ExecutionSpace>();
  using Out = Kokkos::View<typename ViewType::non_const_data_type, typename ViewType::array_layout,
                           Kokkos::HostSpace>;
  constexpr int rank = static_cast<int>(ViewType::rank);
  static_assert(rank == 1 || rank == 2, "permute_rows: rank-1 or rank-2 Views");
  if (in.extent(0) == 0 && (rank == 1 || in.extent(1) == 0))
    return Out(in.label(), in.extent(0), rank == 2 ? in.extent(1) : KOKKOS_INVALID_INDEX);
  if (static_cast<std::int64_t>(in.extent(0)) != perm.size())
    throw ConfigError("ttgnn::permute_rows: '" + in.label() + "' has " +
                      std::to_string(in.extent(0)) + " rows, the permutation " +
                      std::to_string(perm.size()));
  auto n2o = perm.new_to_old;
  using Policy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  if constexpr (rank == 1) {
    Out out(Kokkos::view_alloc(Kokkos::WithoutInitializing, in.label()), in.extent(0));
    Kokkos::parallel_for(
        "ttgnn::permute_rows::rank1", Policy(space, 0, perm.size()),
        KOKKOS_LAMBDA(std::int64_t i) { out(i) = in(n2o(i)); });
    space.fence();
    return out;
  } else {
    Out out(Kokkos::view_alloc(Kokkos::WithoutInitializing, in.label()), in.extent(0),
            in.extent(1));
    const std::int64_t cols = static_cast<std::int64_t>(in.extent(1));
    Kokkos::parallel_for(
        "ttgnn::permute_rows::rank2", Policy(space, 0, perm.size()), KOKKOS_LAMBDA(std::int64_t i) {
          const std::int64_t v = n2o(i);
          for (std::int64_t j = 0; j < cols; ++j)
            out(i, j) = in(v, j);
        });
    space.fence();
    return out;
  }
}

/// \brief Maps a result computed on the permuted dataset back to original ids (inverse of
/// permute_rows): out(v, ...) = in(old_to_new(v), ...).
template <class ExecutionSpace, class ViewType>
auto unpermute_rows(ExecutionSpace const &space, ViewType const &in, Permutation const &perm) {
  return permute_rows(space, in, perm.inverse());
}

/// \brief A list of old node ids (a split) as new ids, in the same order: out(j) =
/// old_to_new(ids(j)). Throws InputError on an id outside [0, N).
template <class ExecutionSpace>
Kokkos::View<std::int64_t *, Kokkos::HostSpace>
map_ids_to_new(ExecutionSpace const &space, Kokkos::View<std::int64_t *, Kokkos::HostSpace> ids,
               Permutation const &perm) {
  detail::check_host_space<ExecutionSpace>();
  const std::int64_t n = perm.size();
  for (std::size_t j = 0; j < ids.extent(0); ++j)
    if (ids(j) < 0 || ids(j) >= n)
      throw InputError("node id list '" + ids.label() + "' entry " + std::to_string(j) + " = " +
                       std::to_string(ids(j)) + " is outside [0, " + std::to_string(n) + ")");
  Kokkos::View<std::int64_t *, Kokkos::HostSpace> out(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, ids.label()), ids.extent(0));
  auto o2n = perm.old_to_new;
  Kokkos::parallel_for(
      "ttgnn::map_ids_to_new",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(
          space, 0, static_cast<std::int64_t>(ids.extent(0))),
      KOKKOS_LAMBDA(std::int64_t j) { out(j) = o2n(ids(j)); });
  space.fence();
  return out;
}

/// \brief Sparse feature rows relabelled by \p perm: row i of the result is row new_to_old(i).
template <class ExecutionSpace>
SparseFeatures permute_sparse_rows(ExecutionSpace const &space, SparseFeatures const &in,
                                   Permutation const &perm) {
  detail::check_host_space<ExecutionSpace>();
  const std::int64_t n = perm.size();
  if (in.num_rows() != n)
    throw ConfigError("ttgnn::permute_sparse_rows: " + std::to_string(in.num_rows()) +
                      " rows, permutation of " + std::to_string(n));
  using Policy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  SparseFeatures out;
  out.num_cols = in.num_cols;
  out.row_map = decltype(out.row_map)("ttgnn::permute_sparse_rows::row_map", n + 1);
  out.cols = decltype(out.cols)(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::permute_sparse_rows::cols"),
      in.nnz());
  out.values = decltype(out.values)(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::permute_sparse_rows::values"),
      in.nnz());
  auto n2o = perm.new_to_old;
  auto in_map = in.row_map, out_map = out.row_map;
  auto in_cols = in.cols, out_cols = out.cols;
  auto in_vals = in.values, out_vals = out.values;
  Kokkos::parallel_scan("ttgnn::permute_sparse_rows::offsets", Policy(space, 0, n),
                        [=](std::int64_t i, std::int64_t &acc, bool final) {
                          const std::int64_t len = in_map(n2o(i) + 1) - in_map(n2o(i));
                          acc += len;
                          if (final)
                            out_map(i + 1) = acc;
                        });
  Kokkos::parallel_for(
      "ttgnn::permute_sparse_rows::fill", Policy(space, 0, n), [=](std::int64_t i) {
        std::int64_t k = out_map(i);
        for (std::int64_t src = in_map(n2o(i)); src < in_map(n2o(i) + 1); ++src, ++k) {
          out_cols(k) = in_cols(src);
          out_vals(k) = in_vals(src);
        }
      });
  space.fence();
  return out;
}

namespace detail {
/// \brief Everything of \p data but the graph and the dense features into \p out (which may be
/// \p data): the name and metadata, and the labels, multi-labels, sparse features, node_year
/// and split ids relabelled by \p perm.
template <class ExecutionSpace, class Ordinal>
void permute_other_arrays(ExecutionSpace const &space, Dataset<Ordinal> const &data,
                          Dataset<Ordinal> &out, Permutation const &perm) {
  out.name = data.name;
  out.num_classes = data.num_classes;
  out.split_name = data.split_name;
  out.eval_metric = data.eval_metric;
  out.labels = permute_rows(space, data.labels, perm);
  if (data.multilabels.extent(0) > 0)
    out.multilabels = permute_rows(space, data.multilabels, perm);
  if (data.sparse_features.has_values())
    out.sparse_features = permute_sparse_rows(space, data.sparse_features, perm);
  if (data.node_year.extent(0) > 0)
    out.node_year = permute_rows(space, data.node_year, perm);
  out.train = map_ids_to_new(space, data.train, perm);
  out.valid = map_ids_to_new(space, data.valid, perm);
  out.test = map_ids_to_new(space, data.test, perm);
}
} // namespace detail

/// \brief The dataset relabelled by \p perm: graph, labels (and multi-label rows), features
/// (dense or sparse),
/// node_year and the split ids together (split lists keep their order, their ids become new
/// ids). Results computed on the
/// returned dataset map back with unpermute_rows(space, result, perm).
template <class ExecutionSpace, class Ordinal>
Dataset<Ordinal> apply_permutation(ExecutionSpace const &space, Dataset<Ordinal> const &data,
                                   Permutation const &perm) {
  Dataset<Ordinal> out;
  out.graph = permute_graph(space, data.graph, perm);
  // 0 x F features (dimension only) or none: nothing to permute
  out.features =
      data.features.extent(0) > 0 ? permute_rows(space, data.features, perm) : data.features;
  detail::permute_other_arrays(space, data, out, perm);
  return out;
}

} // namespace ttgnn

#endif
