// The node-order policy of a run (models/pipeline/node_order.hpp).
#include "models/pipeline/node_order.hpp"

#include "core/runtime/byte_ledger.hpp"
#include "core/runtime/peak_memory.hpp"
#include "graph/order/hierarchical_partition.hpp"
#include "graph/order/locality.hpp"
#include "graph/permute_in_place.hpp"

#include <Kokkos_Profiling_ScopedRegion.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

namespace ttgnn {

namespace {

using Clock = std::chrono::steady_clock;
using HostIds = Kokkos::View<std::int64_t *, Kokkos::HostSpace>;
using Scalar = float; // the pipeline's

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string fraction(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f", v);
  return b;
}

/// The widest row the propagation gathers (the input or a hidden layer), in bytes.
std::int64_t propagated_row_bytes(Dataset<std::int32_t> const &data, RunConfig const &c) {
  const std::int64_t in = (uses_features(c.input) ? data.num_features() : 0) +
                          (uses_tt(c.input) || uses_full_table(c.input) ? c.embedding.dim : 0);
  return static_cast<std::int64_t>(sizeof(Scalar)) * std::max(in, c.hidden);
}

/// The locality order of a full-batch run, computed on the graph as loaded, or none. Automatic:
/// only for runs of 50 epochs or more (lp-hier costs about as much as a few epochs' sparse
/// products), when the rows the propagation gathers exceed 32 MiB (less stays in a cache),
/// the run's order leaves neighbours scattered (fewer than 1/4 of the arcs inside one block of
/// rows filling 1 MiB, block_locality) and lp-hier gathers them (at least 1/2 of the arcs,
/// twice as many): there the SpMM reads neighbour rows from cache (docs/SCALE.md).
void choose_locality(Dataset<std::int32_t> const &data, RunConfig const &c, NodeOrder &o,
                     RunLog const &log) {
  const Locality want = c.locality;
  if (c.minibatch_mode() || want.method == OrderMethod::original)
    return;
  const bool scattered_order = c.order == OrderMethod::original || c.order == OrderMethod::random;
  const std::int64_t row_bytes = propagated_row_bytes(data, c);
  if (want.automatic &&
      (!scattered_order || c.epochs < 50 || data.num_nodes() * row_bytes <= (32 << 20)))
    return;
  const auto t0 = Clock::now();
  const std::int64_t block = std::max<std::int64_t>(1, (1 << 20) / row_bytes);
  o.locality_before = block_locality(data.graph, block, o.ordering.permutation.old_to_new);
  if (want.automatic && o.locality_before >= 0.25) {
    o.locality_seconds = since(t0);
    return;
  }
  OrderingOptions lo;
  lo.method = want.method;
  lo.seed = c.seed;
  NodeOrdering l = compute_ordering(Kokkos::DefaultHostExecutionSpace(), data.graph, lo);
  o.locality_after = block_locality(data.graph, block, l.permutation.old_to_new);
  o.locality_seconds = since(t0);
  const std::string change = " (" + fraction(o.locality_before) + " -> " +
                             fraction(o.locality_after) + " of the arcs within a block of " +
                             std::to_string(block) + " rows)";
  if (want.automatic && (o.locality_after < 0.5 || o.locality_after < 2 * o.locality_before)) {
    if (log)
      log("locality: " + to_string(want.method) + " not applied" + change);
    return;
  }
  if (log)
    log("locality: the propagation runs in " + to_string(want.method) + " order" + change);
  o.locality = want.method;
  o.relabel = l.permutation;
  const std::int64_t n = data.num_nodes();
  o.ordered_ids =
      HostIds(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::pipeline::ordered_ids"), n);
  if (uses_tt(c.input))
    o.node_rows =
        HostIds(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::pipeline::node_rows"), n);
  NodeOrdering const &ord = o.ordering;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t v = o.relabel.new_to_old(i);
    o.ordered_ids(i) = ord.implicit_identity ? v : ord.permutation.old_to_new(v);
    if (o.node_rows.extent(0) > 0)
      o.node_rows(i) = ord.row_of(v);
  }
}

} // namespace

std::vector<std::int64_t> default_column_factors(std::vector<std::int64_t> d, OrderMethod order) {
  if (d.size() > 1 && is_hierarchical(order)) {
    d.front() *= d.back();
    d.back() = 1;
  }
  return d;
}

namespace {

/// order_nodes without NodeOrder::data.
NodeOrder plan_order(Dataset<std::int32_t> const &data, RunConfig const &c, RunLog const &log) {
  const std::int64_t n = data.num_nodes();
  EmbeddingConfig const &e = c.embedding;
  const bool tt = uses_tt(c.input);
  std::vector<std::int64_t> n_factors, d_factors;
  if (tt) { // the factors given, else balanced; the default columns follow the order
    const TtShape base = embedding_tt_shape(e, n);
    n_factors = base.n;
    d_factors = e.tt_d.empty() ? default_column_factors(base.d, c.order) : e.tt_d;
  }
  OrderingOptions oo;
  oo.method = c.order;
  oo.seed = c.seed;
  oo.num_parts = c.metis_parts;
  oo.metis.algorithm = c.metis_algorithm;
  oo.multilevel_min_nodes = c.multilevel_min_nodes;
  oo.lp_sweeps = static_cast<int>(c.lp_sweeps);
  oo.progress = log;
  oo.n_factors = tt ? n_factors : default_n_factors(n, 3, e.tt_slack);
  oo.materialize_identity = false; // the original order: no N-entry maps (empty = identity)
  if (log)
    log("ordering nodes: " + to_string(c.order));
  NodeOrder out;
  out.ordering = compute_ordering(Kokkos::DefaultHostExecutionSpace(), data.graph, oo);
  choose_locality(data, c, out, log);
  if (out.locality == OrderMethod::original) {
    out.relabel = out.ordering.permutation;
    if (tt)
      out.node_rows = out.ordering.new_to_row();
  }
  out.table_rows = n;
  if (tt) {
    out.shape = make_tt_shape(out.ordering.rows_used(), e.dim, n_factors, d_factors, e.tt_rank);
    out.table_rows = out.shape.padded_rows();
    // node_rows holds the rows from here on: the ordering's own map (N ids) is not kept.
    if (out.node_rows.extent(0) != 0)
      out.ordering.old_to_row = HostIds();
  }
  return out;
}

} // namespace

NodeOrder order_nodes(Dataset<std::int32_t> const &data, RunConfig const &c, RunLog const &log) {
  Kokkos::Profiling::ScopedRegion region("ttgnn::pipeline::order");
  NodeOrder out = plan_order(data, c, log);
  out.data = out.relabel.size() == 0
                 ? data
                 : apply_permutation(Kokkos::DefaultHostExecutionSpace(), data, out.relabel);
  return out;
}

NodeOrder order_nodes(Dataset<std::int32_t> &&data, RunConfig const &c, RunLog const &log) {
  Kokkos::Profiling::ScopedRegion region("ttgnn::pipeline::order");
  NodeOrder out = plan_order(data, c, log);
  out.data = data; // a View's move copies its handle: the caller's are cleared here
  data = Dataset<std::int32_t>();
  if (out.relabel.size() == 0)
    return out;
  if (log)
    log(owns_arrays(out.data.graph)
            ? "relabelling the graph in its own arrays"
            : "relabelling the graph into a copy (its arrays are shared with another handle)");
  out.data =
      apply_permutation(Kokkos::DefaultHostExecutionSpace(), std::move(out.data), out.relabel);
  release_free_memory(); // the relabelling's buffer came from the heap: its pages go back
  return out;
}

std::int64_t order_map_bytes(NodeOrder const &o, HostIds const &rows) {
  ByteLedger maps;
  maps.add(o.ordering.old_to_row)
      .add(o.ordering.permutation.new_to_old)
      .add(o.ordering.permutation.old_to_new)
      .add(o.relabel.new_to_old)
      .add(o.relabel.old_to_new)
      .add(o.node_rows)
      .add(o.ordered_ids)
      .add(rows);
  return maps.bytes();
}

} // namespace ttgnn
