#ifndef TTGNN_CORE_TT_LOOKUP_IMPL_HPP
#define TTGNN_CORE_TT_LOOKUP_IMPL_HPP
/// \file tt_lookup_impl.hpp
/// \brief Definitions of tt_lookup_forward / tt_lookup_backward (included by tt_lookup.hpp).

#include "core/tt/tt_lookup.hpp"

#include <Kokkos_Profiling_ScopedRegion.hpp>

namespace ttgnn {

namespace detail {

/// Team scratch bytes for \p scalars Scalars split over at most 8 buffers.
template <class Scalar, class ExecutionSpace> std::size_t team_bytes(int scalars) {
  return scratch_bytes<Scalar, ExecutionSpace>(static_cast<std::size_t>(scalars)) + 8 * 64;
}

/// Runs \p functor over \p league teams (nothing when league is 0) whose products have about
/// \p q columns (the vector length on a device).
template <class ExecutionSpace, class Functor>
void launch_teams(ExecutionSpace const &space, char const *label, std::int64_t league,
                  std::size_t bytes, int q, Functor functor) {
  if (league <= 0)
    return;
  functor.level = scratch_level<ExecutionSpace>(bytes);
  Kokkos::parallel_for(label, make_team_policy(space, league, bytes, q), functor);
}

/// Widest product of a chain over cores 0..e-1: the columns of a slice.
template <class Cores> int chain_cols(Cores const &g, int e) {
  int q = 1;
  for (int k = 0; k < e; ++k)
    q = std::max(q, g.slice_cols(k));
  return q;
}

/// Groups the rows of \p ids by prefix and computes P for every distinct prefix.
template <class ExecutionSpace, class Scalar>
void build_prefix_plan(
    ExecutionSpace const &space,
    TtDeviceCores<const Scalar, typename ExecutionSpace::memory_space> const &g,
    Kokkos::View<const std::int64_t *, typename ExecutionSpace::memory_space> ids,
    std::int64_t num_rows, void const *core0, TtLookupWorkspace<Scalar, ExecutionSpace> &ws,
    char const *what) {
  Kokkos::Profiling::ScopedRegion region("ttgnn::tt_lookup::prefix_plan");
  const int last = g.num_cores - 1;
  const auto batch = static_cast<std::int64_t>(ids.extent(0));
  reserve_entries(ws.keys, batch, "ttgnn::tt_lookup::keys");
  auto keys = Kokkos::subview(ws.keys, Kokkos::make_pair(std::int64_t(0), batch));
  const auto descents = digit_keys(space, ids, g, g.num_cores, -1, keys, num_rows, what);
  std::int64_t bound = 1;
  for (int k = 0; k < last; ++k)
    bound *= g.n[k];
  group_by_key(space,
               Kokkos::View<const std::int64_t *, typename ExecutionSpace::memory_space>(keys),
               bound, ws.rows_by_prefix, descents == 0 ? 1 : 0);
  const auto np = ws.rows_by_prefix.num_groups;
  const int lead = g.lead(last), rank = g.r[last];
  reserve_rows(ws.prefix, std::max<std::int64_t>(np, 1), lead * rank, "ttgnn::tt_lookup::prefix");
  using forward = TtChainForward<Scalar, ExecutionSpace>;
  forward f;
  f.g = g;
  f.keys = ws.rows_by_prefix.keys;
  f.out = ws.prefix;
  f.e = last;
  f.buffer = forward::buffer_size(g, last);
  launch_teams(space, "ttgnn::tt_lookup::prefix_products", np,
               team_bytes<Scalar, ExecutionSpace>(2 * f.buffer), chain_cols(g, last), f);
  ws.num_prefixes = np;
  ws.plan_ids = ids.data();
  ws.plan_size = ids.extent(0);
  ws.plan_core0 = core0;
}

/// A rows x cols matrix over the workspace's segment sums (grown only).
template <class Scalar, class ExecutionSpace>
auto segment_matrix(TtLookupWorkspace<Scalar, ExecutionSpace> &ws, std::int64_t rows, int cols) {
  reserve_entries(ws.segment_sums, std::max<std::int64_t>(rows * cols, 1),
                  "ttgnn::tt_lookup::segment_sums");
  return Kokkos::View<Scalar **, Kokkos::LayoutRight, typename ExecutionSpace::memory_space,
                      Kokkos::MemoryUnmanaged>(ws.segment_sums.data(), rows, cols);
}

/// Adds the segment sums \p partial of \p seg's groups into their slices of \p grads.
template <class ExecutionSpace, class Scalar, class Partial>
void combine_segments(ExecutionSpace const &space,
                      TtDeviceCores<Scalar, typename ExecutionSpace::memory_space> const &grads,
                      TtSegments<typename ExecutionSpace::memory_space> const &seg,
                      Partial const &partial) {
  TtSegmentCombine<Scalar, ExecutionSpace> f;
  f.grads = grads;
  f.seg = seg;
  f.partial = partial;
  launch_teams(space, "ttgnn::tt_lookup::combine_segments", seg.first_group[max_tt_cores], 0, 32,
               f);
}

/// Deterministic chain backward over items with keys \p item_keys and upstream gradients.
template <class ExecutionSpace, class Scalar>
void chain_backward_grouped(
    ExecutionSpace const &space,
    TtDeviceCores<const Scalar, typename ExecutionSpace::memory_space> const &g,
    TtDeviceCores<Scalar, typename ExecutionSpace::memory_space> const &grads,
    Kokkos::View<const std::int64_t *, typename ExecutionSpace::memory_space> item_keys,
    Kokkos::View<const Scalar **, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>
        upstream,
    int e, TtLookupWorkspace<Scalar, ExecutionSpace> &ws) {
  using functor_type = TtChainBackwardGrouped<Scalar, ExecutionSpace>;
  const auto items = static_cast<std::int64_t>(item_keys.extent(0));
  functor_type f;
  f.g = g;
  f.keys = item_keys;
  f.upstream = upstream;
  f.e = e;
  reserve_entries(ws.digit_keys, items, "ttgnn::tt_lookup::digit_keys");
  auto dk = Kokkos::subview(ws.digit_keys, Kokkos::make_pair(std::int64_t(0), items));
  int max_slice, max_lead;
  chain_sizes(g, e, max_slice, max_lead);
  for (int k = 0; k < e; ++k) {
    const auto descents = digit_keys(space, item_keys, g, e, k, dk);
    group_by_key(space,
                 Kokkos::View<const std::int64_t *, typename ExecutionSpace::memory_space>(dk),
                 g.n[k], ws.by_digit[k], descents == 0 ? 1 : 0);
    f.order[k] = ws.by_digit[k].order;
    add_segments(space, ws.by_digit[k], k, g.r[k] * g.slice_cols(k), ws.segment_first[k], f.seg);
  }
  f.partial = segment_matrix(ws, f.seg.first_row[max_tt_cores], max_slice);
  launch_teams(space, "ttgnn::tt_lookup::chain_backward_grouped", f.seg.first_row[max_tt_cores],
               team_bytes<Scalar, ExecutionSpace>(functor_type::buffer_size(g, e)),
               chain_cols(g, e), f);
  combine_segments(space, grads, f.seg, f.partial);
}

/// Atomic chain backward over items.
template <class ExecutionSpace, class Scalar>
void chain_backward_atomic(
    ExecutionSpace const &space,
    TtDeviceCores<const Scalar, typename ExecutionSpace::memory_space> const &g,
    TtDeviceCores<Scalar, typename ExecutionSpace::memory_space> const &grads,
    Kokkos::View<const std::int64_t *, typename ExecutionSpace::memory_space> item_keys,
    Kokkos::View<const Scalar **, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>
        upstream,
    int e) {
  using functor_type = TtChainBackwardAtomic<Scalar, ExecutionSpace>;
  functor_type f;
  f.g = g;
  f.grads = grads;
  f.keys = item_keys;
  f.upstream = upstream;
  f.e = e;
  launch_teams(space, "ttgnn::tt_lookup::chain_backward_atomic",
               static_cast<std::int64_t>(item_keys.extent(0)),
               team_bytes<Scalar, ExecutionSpace>(functor_type::buffer_size(g, e)),
               chain_cols(g, e), f);
}

template <class Scalar, class MemorySpace>
void check_same_shape(TtCores<Scalar, MemorySpace> const &a, TtCores<Scalar, MemorySpace> const &b,
                      char const *what) {
  if (a.shape().to_string() != b.shape().to_string() || a.shape().num_rows != b.shape().num_rows)
    throw ConfigError(std::string(what) + ": the gradient cores have shape " +
                      b.shape().to_string() + ", the cores " + a.shape().to_string());
}

template <class View>
void check_rows_view(View const &v, std::int64_t batch, std::int64_t dim, char const *what) {
  if (static_cast<std::int64_t>(v.extent(0)) != batch ||
      static_cast<std::int64_t>(v.extent(1)) != dim)
    throw ConfigError(std::string(what) + ": expected a " + std::to_string(batch) + " x " +
                      std::to_string(dim) + " View, got " + std::to_string(v.extent(0)) + " x " +
                      std::to_string(v.extent(1)));
}

} // namespace detail

/// \brief out(b, :) = row ids(b) of the TT table, for every b in the batch.
/// \param ids node ids in [0, num_rows) (InputError otherwise), any order, repeats allowed.
/// \param out batch x dim, overwritten.
/// \param ws keeps the prefix plan for the backward call of the same batch.
template <class ExecutionSpace, class Scalar>
void tt_lookup_forward(
    ExecutionSpace const &space,
    TtCores<Scalar, typename ExecutionSpace::memory_space> const &cores,
    Kokkos::View<const std::int64_t *, typename ExecutionSpace::memory_space> ids,
    Kokkos::View<detail::identity_t<Scalar> **, Kokkos::LayoutRight,
                 typename ExecutionSpace::memory_space>
        out,
    TtLookupPath path, TtLookupWorkspace<Scalar, ExecutionSpace> &ws) {
  Kokkos::Profiling::ScopedRegion region("ttgnn::tt_lookup::forward");
  using memory_space = typename ExecutionSpace::memory_space;
  const auto batch = static_cast<std::int64_t>(ids.extent(0));
  detail::check_rows_view(out, batch, cores.shape().dim(), "tt_lookup_forward: out");
  detail::TtDeviceCores<const Scalar, memory_space> g(cores);
  ws.plan_ids = nullptr;
  if (path == TtLookupPath::plain) {
    detail::check_ids(space, ids, cores.shape().num_rows, "tt_lookup_forward");
    using functor_type = detail::TtChainForward<Scalar, ExecutionSpace>;
    functor_type f;
    f.g = g;
    f.keys = ids;
    f.out = out;
    f.e = g.num_cores;
    f.buffer = functor_type::buffer_size(g, g.num_cores);
    detail::launch_teams(space, "ttgnn::tt_lookup::forward_plain", batch,
                         detail::team_bytes<Scalar, ExecutionSpace>(2 * f.buffer),
                         detail::chain_cols(g, g.num_cores), f);
    return;
  }
  detail::build_prefix_plan(space, g, ids, cores.shape().num_rows, cores.core(0).data(), ws,
                            "tt_lookup_forward");
  using functor_type = detail::TtLastCoreForward<Scalar, ExecutionSpace>;
  functor_type f;
  f.g = g;
  f.ids = ids;
  f.order = ws.rows_by_prefix.order;
  f.row_prefix = ws.rows_by_prefix.group_of;
  f.prefix = ws.prefix;
  f.out = out;
  detail::launch_teams(space, "ttgnn::tt_lookup::forward_prefix_rows", batch,
                       detail::team_bytes<Scalar, ExecutionSpace>(functor_type::buffer_size(g)),
                       g.d[g.num_cores - 1], f);
}

/// \brief grads += dL/dcores given grad_rows = dL/d(out of the forward on the same ids).
/// \param grads gradient cores of the same shape as \p cores (ConfigError otherwise).
/// \param grad_rows batch x dim.
template <class ExecutionSpace, class Scalar>
void tt_lookup_backward(
    ExecutionSpace const &space,
    TtCores<Scalar, typename ExecutionSpace::memory_space> const &cores,
    Kokkos::View<const std::int64_t *, typename ExecutionSpace::memory_space> ids,
    Kokkos::View<const detail::identity_t<Scalar> **, Kokkos::LayoutRight,
                 typename ExecutionSpace::memory_space>
        grad_rows,
    TtCores<Scalar, typename ExecutionSpace::memory_space> const &grads, TtLookupPath path,
    TtBackwardMode mode, TtLookupWorkspace<Scalar, ExecutionSpace> &ws) {
  Kokkos::Profiling::ScopedRegion region("ttgnn::tt_lookup::backward");
  using memory_space = typename ExecutionSpace::memory_space;
  using const_matrix = Kokkos::View<const Scalar **, Kokkos::LayoutRight, memory_space>;
  const auto batch = static_cast<std::int64_t>(ids.extent(0));
  detail::check_same_shape(cores, grads, "tt_lookup_backward");
  detail::check_rows_view(grad_rows, batch, cores.shape().dim(), "tt_lookup_backward: grad_rows");
  detail::TtDeviceCores<const Scalar, memory_space> g(cores);
  detail::TtDeviceCores<Scalar, memory_space> gg(grads);
  const int nc = g.num_cores, last = nc - 1;
  const bool atomic = mode == TtBackwardMode::atomic;
  if (path == TtLookupPath::plain) {
    detail::check_ids(space, ids, cores.shape().num_rows, "tt_lookup_backward");
    if (atomic)
      detail::chain_backward_atomic(space, g, gg, ids, grad_rows, nc);
    else
      detail::chain_backward_grouped(space, g, gg, ids, grad_rows, nc, ws);
    return;
  }
  if (ws.plan_ids != static_cast<void const *>(ids.data()) || ws.plan_size != ids.extent(0) ||
      ws.plan_core0 != static_cast<void const *>(cores.core(0).data())) {
    detail::build_prefix_plan(space, g, ids, cores.shape().num_rows, cores.core(0).data(), ws,
                              "tt_lookup_backward");
  }
  const auto np = ws.num_prefixes;
  const auto rows = Kokkos::make_pair(std::int64_t(0), np);
  const int lead = g.lead(last), rank = g.r[last];
  reserve_rows(ws.dprefix, std::max<std::int64_t>(np, 1), lead * rank, "ttgnn::tt_lookup::dprefix");
  const_matrix prefix = Kokkos::subview(ws.prefix, rows, Kokkos::ALL());
  {
    using functor_type = detail::TtLastCoreBackward<Scalar, ExecutionSpace>;
    functor_type f;
    f.g = g;
    f.grads = gg;
    f.ids = ids;
    f.order = ws.rows_by_prefix.order;
    f.offsets = ws.rows_by_prefix.offsets;
    f.grad_rows = grad_rows;
    f.prefix = prefix;
    f.dprefix = ws.dprefix;
    f.atomic = atomic;
    detail::launch_teams(space, "ttgnn::tt_lookup::backward_last_core", np,
                         detail::team_bytes<Scalar, ExecutionSpace>(functor_type::buffer_size(g)),
                         rank, f);
  }
  if (!atomic) {
    auto keys = Kokkos::subview(ws.keys, Kokkos::make_pair(std::int64_t(0), batch));
    const auto descents = detail::digit_keys(space, ids, g, nc, last, keys);
    auto &by_last = ws.by_digit[last];
    group_by_key(space, Kokkos::View<const std::int64_t *, memory_space>(keys), g.n[last], by_last,
                 descents == 0 ? 1 : 0);
    using functor_type = detail::TtLastCoreGrad<Scalar, ExecutionSpace>;
    functor_type f;
    f.g = g;
    detail::add_segments(space, by_last, last, g.d[last] * g.r[last], ws.segment_first[last],
                         f.seg);
    const auto segments = f.seg.first_row[max_tt_cores];
    f.partial = detail::segment_matrix(ws, segments, g.d[last] * g.r[last]);
    f.order = by_last.order;
    f.row_prefix = ws.rows_by_prefix.group_of;
    f.grad_rows = grad_rows;
    f.prefix = prefix;
    detail::launch_teams(space, "ttgnn::tt_lookup::backward_last_core_grouped", segments,
                         detail::team_bytes<Scalar, ExecutionSpace>(functor_type::buffer_size(g)),
                         rank, f);
    detail::combine_segments(space, gg, f.seg, f.partial);
  }
  Kokkos::View<const std::int64_t *, memory_space> prefix_keys =
      Kokkos::subview(ws.rows_by_prefix.keys, rows);
  const_matrix dprefix = Kokkos::subview(ws.dprefix, rows, Kokkos::ALL());
  if (atomic)
    detail::chain_backward_atomic(space, g, gg, prefix_keys, dprefix, last);
  else
    detail::chain_backward_grouped(space, g, gg, prefix_keys, dprefix, last, ws);
}

/// \brief tt_lookup_forward with a temporary workspace.
template <class ExecutionSpace, class Scalar>
void tt_lookup_forward(
    ExecutionSpace const &space,
    TtCores<Scalar, typename ExecutionSpace::memory_space> const &cores,
    Kokkos::View<const std::int64_t *, typename ExecutionSpace::memory_space> ids,
    Kokkos::View<detail::identity_t<Scalar> **, Kokkos::LayoutRight,
                 typename ExecutionSpace::memory_space>
        out,
    TtLookupPath path) {
  TtLookupWorkspace<Scalar, ExecutionSpace> ws;
  tt_lookup_forward(space, cores, ids, out, path, ws);
}

/// \brief tt_lookup_backward with a temporary workspace.
template <class ExecutionSpace, class Scalar>
void tt_lookup_backward(
    ExecutionSpace const &space,
    TtCores<Scalar, typename ExecutionSpace::memory_space> const &cores,
    Kokkos::View<const std::int64_t *, typename ExecutionSpace::memory_space> ids,
    Kokkos::View<const detail::identity_t<Scalar> **, Kokkos::LayoutRight,
                 typename ExecutionSpace::memory_space>
        grad_rows,
    TtCores<Scalar, typename ExecutionSpace::memory_space> const &grads, TtLookupPath path,
    TtBackwardMode mode) {
  TtLookupWorkspace<Scalar, ExecutionSpace> ws;
  tt_lookup_backward(space, cores, ids, grad_rows, grads, path, mode, ws);
}

} // namespace ttgnn

#endif
