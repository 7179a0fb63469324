// own_csr_gcn: a Kokkos code that already has its graph in CSR Views trains a GCN on it, with a
// TT embedding table as the only node input (no features).
//
// The graph is built here in three kernels (count -> scan -> fill, the usual Kokkos CSR
// build): a ring of cliques, C communities of S nodes, each a clique, the last node of each
// community linked to the first node of the next. A node's label is its community. Nothing in
// a node's own input tells its community: the GCN has to learn it from the structure (and the
// table rows it trains). The table's row factors are chosen so that the first TT digit of a
// node id is its community (ids are contiguous per community), so a community shares its
// core-1 slice: the alignment that the hierarchical METIS order produces on real graphs.
// 4 nodes per community are labelled for training, 4 for validation, the rest is the test set.
// Succeeds (returns 0) when the training accuracy is >= 0.95 and the test accuracy >= 0.9.
//
//   own_csr_gcn [--kokkos-num-threads=N]
#include <ttgnn/graph/csr_graph.hpp>
#include <ttgnn/models/embedding/embedding_init.hpp>
#include <ttgnn/models/train/full_batch_trainer.hpp>
#include <ttgnn/models/layers/gcn_norm.hpp>
#include <ttgnn/models/gnn_model.hpp>
#include <ttgnn/models/embedding/node_input.hpp>
#include <ttgnn/models/embedding/tt_embedding.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstdio>
#include <memory>

namespace {

using Space = Kokkos::DefaultExecutionSpace;
using Memory = Space::memory_space;
using Scalar = float;
using Graph = ttgnn::CsrGraph<std::int32_t, Memory>; // the library's CSR type, on the device

// The neighbour across the ring of node v (-1 when v is not the first or last of its
// community). Communities c and c+1 are linked by (last of c, first of c+1).
KOKKOS_INLINE_FUNCTION std::int64_t bridge(std::int64_t v, std::int64_t c_count,
                                           std::int64_t size) {
  const std::int64_t c = v / size, i = v % size, n = c_count * size;
  if (i == size - 1)
    return ((c + 1) % c_count) * size; // first node of the next community
  if (i == 0)
    return (c * size - 1 + n) % n; // last node of the previous community
  return -1;
}

// Ring of cliques as a CSR graph in Kokkos Views: row_map by a scan of the degrees, then the
// entries of each row written in ascending order (CsrGraph's contract: sorted, no duplicates).
Graph ring_of_cliques(Space const &space, std::int64_t c_count, std::int64_t size) {
  const std::int64_t n = c_count * size;
  Kokkos::View<std::int64_t *, Memory> row_map("own_csr_gcn::row_map", n + 1);
  Kokkos::parallel_scan(
      "own_csr_gcn::row_map", Kokkos::RangePolicy<Space>(space, 0, n + 1),
      KOKKOS_LAMBDA(std::int64_t v, std::int64_t & offset, bool final) {
        if (final)
          row_map(v) = offset; // exclusive scan: row_map(n) = number of arcs
        if (v < n)
          offset += (size - 1) + (bridge(v, c_count, size) >= 0 ? 1 : 0);
      });
  std::int64_t num_arcs = 0;
  Kokkos::deep_copy(space, num_arcs, Kokkos::subview(row_map, n));
  space.fence();
  Kokkos::View<std::int32_t *, Memory> entries("own_csr_gcn::entries", num_arcs);
  Kokkos::parallel_for(
      "own_csr_gcn::entries", Kokkos::RangePolicy<Space>(space, 0, n),
      KOKKOS_LAMBDA(std::int64_t v) {
        const std::int64_t first = (v / size) * size, b = bridge(v, c_count, size);
        std::int64_t k = row_map(v);
        if (b >= 0 && b < first)
          entries(k++) = static_cast<std::int32_t>(b);
        for (std::int64_t u = first; u < first + size; ++u)
          if (u != v)
            entries(k++) = static_cast<std::int32_t>(u);
        if (b >= first + size)
          entries(k++) = static_cast<std::int32_t>(b);
      });
  Graph g;
  g.row_map = row_map;
  g.entries = entries;
  return g;
}

// labels(v) = community of v.
Kokkos::View<std::int32_t *, Memory> community_labels(Space const &space, std::int64_t c_count,
                                                      std::int64_t size) {
  Kokkos::View<std::int32_t *, Memory> labels("own_csr_gcn::labels", c_count * size);
  Kokkos::parallel_for(
      "own_csr_gcn::labels", Kokkos::RangePolicy<Space>(space, 0, c_count * size),
      KOKKOS_LAMBDA(std::int64_t v) { labels(v) = static_cast<std::int32_t>(v / size); });
  return labels;
}

// The nodes at positions [lo, hi) of every community.
Kokkos::View<std::int64_t *, Memory> positions(Space const &space, std::int64_t c_count,
                                               std::int64_t size, std::int64_t lo,
                                               std::int64_t hi) {
  const std::int64_t per = hi - lo;
  Kokkos::View<std::int64_t *, Memory> ids("own_csr_gcn::split", c_count * per);
  Kokkos::parallel_for(
      "own_csr_gcn::split", Kokkos::RangePolicy<Space>(space, 0, c_count * per),
      KOKKOS_LAMBDA(std::int64_t i) { ids(i) = (i / per) * size + lo + i % per; });
  return ids;
}

int run() {
  Space space;
  const std::int64_t communities = 8, size = 32, n = communities * size; // 256 nodes

  // ---- the user's graph, wrapped in ttgnn's CSR type
  const Graph graph = ring_of_cliques(space, communities, size);
  // gcn_norm and the initialisers read the graph on the host: one mirror (no copy when the
  // default space already is a host space).
  const ttgnn::CsrGraph<std::int32_t, Kokkos::HostSpace> host_graph{
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), graph.row_map),
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), graph.entries)};

  // ---- a TT table of 256 x 16: row factors (8, 4, 8), so digit 1 = community
  const ttgnn::TtShape shape = ttgnn::make_tt_shape(n, 16, {communities, 4, size / 4}, {4, 2, 2},
                                                    /*rank=*/4);
  auto table = std::make_shared<ttgnn::TtEmbedding<Scalar, Space>>(shape);
  // Node v is row v (identity order), so row(v) = v for the initialiser and the input.
  Kokkos::View<std::int64_t *, Kokkos::HostSpace> row_of_node("own_csr_gcn::row_of_node", n);
  for (std::int64_t v = 0; v < n; ++v)
    row_of_node(v) = v;
  ttgnn::EmbeddingConfig spec;               // the table: here only its initial values are read
  spec.init = ttgnn::InitMethod::orthogonal; // random orthonormal columns (not spectral)
  spec.init_std = 0.1;
  table->set_cores_from_host(space,
                             ttgnn::initial_tt_cores(shape, host_graph, row_of_node, spec, 1));
  ttgnn::NodeInput<Scalar, Space> input(n);
  input.set_tt_embedding(table, row_of_node);

  // ---- GCN: 2 layers, D^-1/2 (A + I) D^-1/2
  const auto a = ttgnn::gcn_norm<Scalar>(space, host_graph);
  ttgnn::GnnConfig config;
  config.in_features = input.dim();
  config.hidden = 32;
  config.out_features = communities;
  config.input_dropout = 0;
  config.seed = 1;
  ttgnn::GnnModel<Scalar, Space> model(config);

  // ---- full-batch training (Adam for the GNN, a second Adam for the TT cores)
  ttgnn::TrainOptions options;
  options.epochs = 100;
  options.lr = 0.01;
  options.embedding_weight_decay = 0;
  ttgnn::FullBatchTrainer<Scalar, Space> trainer(
      space, model, input, a, community_labels(space, communities, size),
      positions(space, communities, size, 0, 4), positions(space, communities, size, 4, 8),
      positions(space, communities, size, 8, size), options);
  const ttgnn::TrainResult result = trainer.train(); // restores the best validation epoch

  const bool ok = result.train_acc >= 0.95 && result.test_acc >= 0.9;
  std::printf("own_csr_gcn: %s: ring of %lld cliques of %lld nodes (%lld arcs), GCN on a TT "
              "table (%lld parameters, %.1fx compression): train accuracy %.3f, test accuracy "
              "%.3f at epoch %d of %d (need >= 0.95 and >= 0.9; chance %.3f)\n",
              ok ? "OK" : "FAILED", static_cast<long long>(communities),
              static_cast<long long>(size), static_cast<long long>(graph.num_arcs()),
              static_cast<long long>(table->num_parameters()), table->compression(),
              result.train_acc, result.test_acc, result.best_epoch, options.epochs,
              1.0 / static_cast<double>(communities));
  return ok ? 0 : 1;
}

} // namespace

int main(int argc, char *argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  return run();
}
