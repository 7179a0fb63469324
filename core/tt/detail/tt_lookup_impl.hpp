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

/// \brief The prefix plan of a batch: keys id / n[K-1] by multiply-shift (FastDiv), the rows
/// grouped by prefix (stable sort), per sorted row its batch row and last digit in 32 bits,
/// per prefix its first sorted row, the tiles (tt_tiles.hpp), and P for every prefix.
template <class ExecutionSpace, class Scalar>
void build_prefix_plan(
    ExecutionSpace const &space,
    TtDeviceCores<const Scalar, typename ExecutionSpace::memory_space> const &g,
    Kokkos::View<const std::int64_t *, typename ExecutionSpace::memory_space> ids,
    std::int64_t num_rows, void const *core0, TtLookupWorkspace<Scalar, ExecutionSpace> &ws,
    char const *what) {
  Kokkos::Profiling::ScopedRegion region("ttgnn::tt_lookup::prefix_plan");
  using memory_space = typename ExecutionSpace::memory_space;
  const int last = g.num_cores - 1;
  const auto batch = static_cast<std::int64_t>(ids.extent(0));
  constexpr std::int64_t max32 = 0xffffffff;
  if (batch > max32 || g.n[last] > max32)
    throw ConfigError(std::string(what) + ": the prefix path takes batches and last factors "
                                          "below 2^32 rows (32-bit row indices and digits)");
  reserve_entries(ws.keys, batch, "ttgnn::tt_lookup::keys");
  auto keys = Kokkos::subview(ws.keys, Kokkos::make_pair(std::int64_t(0), batch));
  const FastDiv fd(g.n[last]);
  const std::int64_t n_last = g.n[last];
  constexpr std::int64_t bad_unit = std::int64_t(1) << 32;
  const auto acc = sum_range(
      space, "ttgnn::tt_lookup::prefix_keys", 0, batch,
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t & sum) {
        const auto id = ids(i);
        const auto key = fd.div(id);
        keys(i) = key;
        if (id < 0 || id >= num_rows)
          sum += bad_unit;
        if (i > 0 && key < fd.div(ids(i - 1)))
          sum += 1;
      });
  if (acc / bad_unit > 0)
    throw InputError(std::string(what) + ": " + std::to_string(acc / bad_unit) +
                     " node ids are outside [0, " + std::to_string(num_rows) + ")");
  std::int64_t bound = 1;
  for (int k = 0; k < last; ++k)
    bound *= g.n[k];
  group_by_key(space, Kokkos::View<const std::int64_t *, memory_space>(keys), bound,
               ws.rows_by_prefix, acc % bad_unit == 0 ? 1 : 0);
  const auto np = ws.rows_by_prefix.num_groups;
  reserve_entries(ws.tile_row, std::max<std::int64_t>(batch, 1), "ttgnn::tt_lookup::tile_row");
  reserve_entries(ws.tile_digit, std::max<std::int64_t>(batch, 1), "ttgnn::tt_lookup::tile_digit");
  reserve_entries(ws.prefix_first, np + 1, "ttgnn::tt_lookup::prefix_first");
  reserve_entries(ws.tile_first, np + 1, "ttgnn::tt_lookup::tile_first");
  const auto order = ws.rows_by_prefix.order, offsets = ws.rows_by_prefix.offsets;
  const auto trow = ws.tile_row, tdigit = ws.tile_digit, pfirst = ws.prefix_first;
  const auto tfirst = ws.tile_first;
  for_range(
      space, "ttgnn::tt_lookup::tile_rows", 0, batch, KOKKOS_LAMBDA(std::int64_t x) {
        const auto row = order(x);
        const auto id = ids(row);
        trow(x) = static_cast<std::uint32_t>(row);
        tdigit(x) = static_cast<std::uint32_t>(id - fd.div(id) * n_last);
      });
  const std::int64_t per_tile = tile_rows(n_last);
  ws.num_tiles = scan_range(
      space, "ttgnn::tt_lookup::tiles", 0, np + 1,
      KOKKOS_LAMBDA(std::int64_t p, std::int64_t & update, bool final) {
        if (final)
          pfirst(p) = static_cast<std::uint32_t>(offsets(p));
        const bool starts = p == np || p == 0 || offsets(p) / per_tile != offsets(p - 1) / per_tile;
        if (starts && final)
          tfirst(update) = p;
        if (starts && p < np)
          update += 1;
      });
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

/// The tiles of the workspace's plan.
template <class Scalar, class ExecutionSpace>
TtTilePlan<typename ExecutionSpace::memory_space>
tile_plan(TtLookupWorkspace<Scalar, ExecutionSpace> const &ws) {
  TtTilePlan<typename ExecutionSpace::memory_space> plan;
  plan.row = ws.tile_row;
  plan.digit = ws.tile_digit;
  plan.first = ws.prefix_first;
  plan.tile = ws.tile_first;
  plan.num_tiles = ws.num_tiles;
  return plan;
}

/// \brief Forward of the planned rows, one tile at a time: out(row, :) = P · G_{K-1}[i]. \p
/// HostKernels: the CPU micro-kernels (tt_tile_host.hpp, Gx built here), else the team kernel
/// (any space; the one devices run).
template <bool HostKernels, class ExecutionSpace, class Scalar>
void tiles_forward(
    ExecutionSpace const &space,
    TtDeviceCores<const Scalar, typename ExecutionSpace::memory_space> const &g,
    Kokkos::View<Scalar **, Kokkos::LayoutRight, typename ExecutionSpace::memory_space> out,
    TtLookupWorkspace<Scalar, ExecutionSpace> &ws) {
  const int last = g.num_cores - 1;
  const int lead = g.lead(last), rank = g.r[last], dl = g.d[last];
  const auto prefix = Kokkos::subview(
      ws.prefix, Kokkos::make_pair(std::int64_t(0), ws.num_prefixes), Kokkos::ALL());
  if constexpr (HostKernels) {
    const TtTileDims dims = tile_dims(lead, rank, dl, static_cast<int>(sizeof(Scalar)));
    const int period = dims.period;
    const std::int64_t size = g.n[last] * rank * period;
    reserve_entries(ws.last_core, size, "ttgnn::tt_lookup::last_core");
    const auto gx = ws.last_core;
    for_range(
        space, "ttgnn::tt_lookup::expand_last_core", 0, size, KOKKOS_LAMBDA(std::int64_t e) {
          const std::int64_t i = e / (std::int64_t(rank) * period);
          const int x = static_cast<int>(e - i * rank * period), r = x / period;
          gx(e) = g.slice(last, i)[r * dl + (x - r * period) % dl];
        });
    TtTileForwardHost<Scalar, ExecutionSpace> f;
    f.plan = tile_plan(ws);
    f.dims = dims;
    f.prefix = prefix;
    f.gx = gx;
    f.out = out;
    launch_teams(space, "ttgnn::tt_lookup::forward_tiles", ws.num_tiles,
                 team_bytes<Scalar, ExecutionSpace>(rank * dims.pexp_ld), 1, f);
  } else {
    TtTileForwardTeam<Scalar, ExecutionSpace> f;
    f.plan = tile_plan(ws);
    f.g = g;
    f.prefix = prefix;
    f.out = out;
    launch_teams(space, "ttgnn::tt_lookup::forward_tiles", ws.num_tiles,
                 team_bytes<Scalar, ExecutionSpace>(lead * rank), lead * dl, f);
  }
}

/// \brief Backward of the planned rows, one tile at a time: dprefix(p, :) = dL/dP for every
/// prefix, and the last core's gradient of each tile's rows into its copy; then grads of the
/// last core += the copies in tile order. \p HostKernels as in tiles_forward.
template <bool HostKernels, class ExecutionSpace, class Scalar>
void tiles_backward(
    ExecutionSpace const &space,
    TtDeviceCores<const Scalar, typename ExecutionSpace::memory_space> const &g,
    Kokkos::View<const Scalar **, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>
        grad_rows,
    TtDeviceCores<Scalar, typename ExecutionSpace::memory_space> const &grads,
    TtLookupWorkspace<Scalar, ExecutionSpace> &ws) {
  using memory_space = typename ExecutionSpace::memory_space;
  const int last = g.num_cores - 1;
  const int lead = g.lead(last), rank = g.r[last], dl = g.d[last];
  const std::int64_t np = ws.num_prefixes, tiles = ws.num_tiles;
  const std::int64_t slice = std::int64_t(dl) * rank, core_size = g.n[last] * slice;
  reserve_rows(ws.dprefix, std::max<std::int64_t>(np, 1), lead * rank, "ttgnn::tt_lookup::dprefix");
  reserve_entries(ws.tile_partial, std::max<std::int64_t>(tiles * core_size, 1),
                  "ttgnn::tt_lookup::tile_partial");
  Kokkos::View<Scalar **, Kokkos::LayoutRight, memory_space, Kokkos::MemoryUnmanaged> partial(
      ws.tile_partial.data(), tiles, core_size);
  const auto prefix =
      Kokkos::subview(ws.prefix, Kokkos::make_pair(std::int64_t(0), np), Kokkos::ALL());
  if constexpr (HostKernels) {
    reserve_entries(ws.last_core, core_size, "ttgnn::tt_lookup::last_core");
    const auto gt = ws.last_core;
    for_range(
        space, "ttgnn::tt_lookup::transpose_last_core", 0, core_size,
        KOKKOS_LAMBDA(std::int64_t e) { // gt(i, j, r) = G(i, r, j)
          const std::int64_t i = e / slice;
          const int x = static_cast<int>(e - i * slice), j = x / rank, r = x - j * rank;
          gt(e) = g.slice(last, i)[r * dl + j];
        });
    TtTileBackwardHost<Scalar, ExecutionSpace> f;
    f.plan = tile_plan(ws);
    f.dims = tile_dims(lead, rank, dl, static_cast<int>(sizeof(Scalar)));
    f.prefix = prefix;
    f.grad_rows = grad_rows;
    f.gt = gt;
    f.dprefix = ws.dprefix;
    f.partial = partial;
    launch_teams(space, "ttgnn::tt_lookup::backward_tiles", tiles, 0, 1, f);
  } else {
    TtTileBackwardTeam<Scalar, ExecutionSpace> f;
    f.plan = tile_plan(ws);
    f.g = g;
    f.prefix = prefix;
    f.grad_rows = grad_rows;
    f.dprefix = ws.dprefix;
    f.partial = partial;
    launch_teams(space, "ttgnn::tt_lookup::backward_tiles", tiles,
                 team_bytes<Scalar, ExecutionSpace>(lead * rank), rank, f);
  }
  // grads(i, r, j) += partial(0, (i, j, r)) + ... in tile order, chunks of entries in parallel.
  constexpr std::int64_t chunk = 256;
  const auto chunks = (core_size + chunk - 1) / chunk;
  Kokkos::parallel_for(
      "ttgnn::tt_lookup::sum_tiles", Kokkos::RangePolicy<ExecutionSpace>(space, 0, chunks),
      KOKKOS_LAMBDA(std::int64_t c) {
        const std::int64_t e0 = c * chunk, e1 = Kokkos::min(e0 + chunk, core_size);
        Scalar acc[chunk];
        for (auto e = e0; e < e1; ++e) {
          const std::int64_t i = e / slice;
          const int x = static_cast<int>(e - i * slice), j = x / rank, r = x - j * rank;
          acc[e - e0] = grads.slice(last, i)[r * dl + j];
        }
        for (std::int64_t t = 0; t < tiles; ++t)
          for (auto e = e0; e < e1; ++e)
            acc[e - e0] += partial(t, e);
        for (auto e = e0; e < e1; ++e) {
          const std::int64_t i = e / slice;
          const int x = static_cast<int>(e - i * slice), j = x / rank, r = x - j * rank;
          grads.slice(last, i)[r * dl + j] = acc[e - e0];
        }
      });
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
  f.gt = transpose_cores(space, g, e, ws.cores_transposed);
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
    int e, TtLookupWorkspace<Scalar, ExecutionSpace> &ws) {
  using functor_type = TtChainBackwardAtomic<Scalar, ExecutionSpace>;
  functor_type f;
  f.g = g;
  f.gt = transpose_cores(space, g, e, ws.cores_transposed);
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
  detail::tiles_forward<detail::host_space_v<ExecutionSpace>>(space, g, out, ws);
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
      detail::chain_backward_atomic(space, g, gg, ids, grad_rows, nc, ws);
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
  // The last core (deterministic in both modes: tile copies, no atomics), then the chain.
  detail::tiles_backward<detail::host_space_v<ExecutionSpace>>(space, g, grad_rows, gg, ws);
  Kokkos::View<const std::int64_t *, memory_space> prefix_keys =
      Kokkos::subview(ws.rows_by_prefix.keys, rows);
  const_matrix dprefix = Kokkos::subview(ws.dprefix, rows, Kokkos::ALL());
  if (atomic)
    detail::chain_backward_atomic(space, g, gg, prefix_keys, dprefix, last, ws);
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
