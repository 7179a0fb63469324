// cora_end_to_end: node classification on Cora without its features, the node input being a
// TT embedding table: load -> order -> TT table (spectral init) -> GCN -> full-batch training.
// The same run as the README's first command (`ttgnn train --input tt --order metis-hier
// --init spectral ...`), written with the library's building blocks.
//
//   cora_end_to_end [DATASET_DIR] [--kokkos-num-threads=N]
//
// DATASET_DIR is a folder in the OGB raw layout, e.g. the repository's datasets/cora (the
// default, relative to the working directory). Succeeds (returns 0) when the test accuracy is
// above 0.5: chance is about 0.14 for 7 classes, and this setting reaches 0.67 ± 0.03 over
// seeds.
#include <ttgnn/core/tt_shape.hpp>
#include <ttgnn/graph/ogb_loader.hpp>
#include <ttgnn/graph/ordering.hpp>
#include <ttgnn/graph/permutation.hpp>
#include <ttgnn/models/embedding_init.hpp>
#include <ttgnn/models/full_batch_trainer.hpp>
#include <ttgnn/models/gcn_norm.hpp>
#include <ttgnn/models/gnn_model.hpp>
#include <ttgnn/models/node_input.hpp>
#include <ttgnn/models/tt_embedding.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>

namespace {

using Space = Kokkos::DefaultExecutionSpace; // CUDA when enabled, else OpenMP or Serial
using Host = Kokkos::DefaultHostExecutionSpace;
using Scalar = float;

// A host View copied to Space's memory (no copy when that is host memory).
template <class HostView> auto to_device(HostView const &h) {
  return Kokkos::create_mirror_view_and_copy(Space::memory_space(), h);
}

int run(std::string const &dir) {
  Space space;
  Host host; // loading, ordering and initialisation run on the host
  const std::int64_t dim = 16, rank = 8;
  const std::uint64_t seed = 0;

  // ---- 1. load: graph (CSR, symmetric), labels and the Planetoid split; no features
  ttgnn::LoadOptions load;
  load.split = "planetoid";
  load.features = false;
  const ttgnn::Dataset<std::int32_t> data = ttgnn::load_ogb<std::int32_t>(dir, load);
  const std::int64_t n = data.num_nodes();

  // ---- 2. TT row factors for N nodes (5% free rows: 14 x 14 x 15 for Cora), then the
  // hierarchical METIS order aligned with them: graph neighbours share TT prefixes.
  const ttgnn::TtShape suggested = ttgnn::make_tt_shape(n, dim, rank, 3, 1.05);
  ttgnn::OrderingOptions order;
  order.method = ttgnn::OrderMethod::metis_hier;
  order.n_factors = suggested.n;
  order.seed = seed;
  const ttgnn::NodeOrdering ordering = ttgnn::compute_ordering(host, data.graph, order);
  // Relabel every node array (graph, labels, split) with the order: node ids become "new" ids.
  const ttgnn::Dataset<std::int32_t> pdata =
      ttgnn::apply_permutation(host, data, ordering.permutation);

  // ---- 3. the TT table: enough rows for the largest TT row used (the order leaves holes),
  // cores from the graph's spectrum (TT-SVD of its leading eigenvectors)
  std::int64_t rows = 0;
  for (std::int64_t v = 0; v < n; ++v)
    rows = std::max(rows, ordering.old_to_row(v) + 1);
  const ttgnn::TtShape shape = ttgnn::make_tt_shape(rows, dim, suggested.n, suggested.d, rank);
  auto table = std::make_shared<ttgnn::TtEmbedding<Scalar, Space>>(shape);
  ttgnn::EmbeddingInitOptions init;
  init.method = ttgnn::InitMethod::spectral;
  init.init_std = 0.1;
  init.seed = seed;
  // The initialiser reads the original graph; old_to_row places node v's vector at its row.
  table->set_cores_from_host(space,
                             ttgnn::initial_tt_cores(shape, data.graph, ordering.old_to_row, init));
  ttgnn::NodeInput<Scalar, Space> input(n);
  input.set_tt_embedding(table, ordering.new_to_row()); // new id -> TT row

  // ---- 4. a 2-layer GCN (hidden 64, dropout 0.5 on the input rows and between layers)
  const auto a = ttgnn::gcn_norm<Scalar>(space, pdata.graph); // D^-1/2 (A + I) D^-1/2
  ttgnn::GnnConfig config;
  config.in_features = input.dim();
  config.hidden = 64;
  config.out_features = data.num_classes;
  config.dropout = 0.5;
  config.input_dropout = 0.5;
  config.seed = seed;
  ttgnn::GnnModel<Scalar, Space> model(config);

  // ---- 5. full-batch training: Adam (lr 0.01, weight decay 5e-4 on the GNN, none on the
  // table), 200 epochs, the epoch with the best validation accuracy is kept
  ttgnn::TrainOptions options;
  options.epochs = 200;
  options.lr = 0.01;
  options.weight_decay = 5e-4;
  options.embedding_weight_decay = 0;
  ttgnn::FullBatchTrainer<Scalar, Space> trainer(space, model, input, a, to_device(pdata.labels),
                                                 to_device(pdata.train), to_device(pdata.valid),
                                                 to_device(pdata.test), options);
  const ttgnn::TrainResult result = trainer.train();

  const double compression = double(n) * double(dim) / double(table->num_parameters());
  const double bound = 0.5;
  const bool ok = result.test_acc > bound;
  std::printf("cora_end_to_end: %s: test accuracy %.3f (valid %.3f, epoch %d of %d; need > %.2f, "
              "chance ~0.14); TT table %s, %lld parameters for %lld x %lld (%.1fx compression); "
              "%lld GNN parameters\n",
              ok ? "OK" : "FAILED", result.test_acc, result.valid_acc, result.best_epoch,
              options.epochs, bound, shape.to_string().c_str(),
              static_cast<long long>(table->num_parameters()), static_cast<long long>(n),
              static_cast<long long>(dim), compression,
              static_cast<long long>(model.num_parameters()));
  return ok ? 0 : 1;
}

} // namespace

int main(int argc, char *argv[]) {
  Kokkos::ScopeGuard guard(argc, argv); // removes the --kokkos-* arguments
  const std::string dir = argc > 1 ? argv[1] : "datasets/cora";
  try {
    return run(dir);
  } catch (std::exception const &e) { // ttgnn::InputError (bad files), ConfigError, ...
    std::fprintf(stderr, "cora_end_to_end: %s\n", e.what());
    return 2;
  }
}
