// The RunConfig -> components translation (models/pipeline/run_components.hpp).
#include "models/pipeline/run_components.hpp"

#include "core/runtime/communicator.hpp"
#include "models/pipeline/pipeline.hpp"

#include <Kokkos_Profiling_ScopedRegion.hpp>

#include <memory>
#include <string>
#include <vector>

namespace ttgnn {

namespace {

using Space = Kokkos::DefaultExecutionSpace;
using Scalar = float;

/// Logs the embedding table the run builds (none for plain features).
void log_table(RunConfig const &c, NodeOrder const &o, std::int64_t n, RunLog const &log) {
  if (!log)
    return;
  if (uses_tt(c.input))
    log("TT table " + o.shape.to_string() + ", init " + to_string(c.embedding.init));
  else if (uses_full_table(c.input))
    log("full table " + std::to_string(n) + " x " + std::to_string(c.embedding.dim) + ", init " +
        to_string(c.embedding.init));
}

} // namespace

std::string run_fingerprint(std::string const &data_print, RunConfig const &c, NodeOrder const &o) {
  return data_print + " split=" + c.data.split + " order=" + to_string(c.order) +
         " seed=" + std::to_string(c.seed) +
         (o.locality != OrderMethod::original ? " locality=" + to_string(o.locality) : "") +
         (uses_tt(c.input) ? " tt=" + o.shape.to_string() : "") +
         " feature_norm=" + to_string(c.data.feature_norm) +
         " metric=" + to_string(run_metric(c, o.data));
}

GnnConfig gnn_config(RunConfig const &c, std::int64_t in_features, std::int64_t classes) {
  GnnConfig g;
  g.kind = c.model;
  g.in_features = in_features;
  g.hidden = c.hidden;
  g.out_features = classes;
  g.num_layers = c.layers;
  g.dropout = c.dropout;
  g.input_dropout = c.input_dropout;
  g.residual = c.residual;
  g.batch_norm = c.batch_norm;
  g.seed = c.seed;
  return g;
}

void set_train_options(TrainOptions &to, std::string const &data_print, RunConfig const &c,
                       NodeOrder const &o) {
  to.epochs = c.epochs;
  to.optimizer = c.optimizer;
  to.lr = c.lr;
  to.weight_decay = c.weight_decay;
  to.embedding_lr = c.embedding.lr;
  to.embedding_weight_decay = c.embedding.weight_decay;
  to.schedule.warmup_epochs = c.lr_warmup;
  to.schedule.plateau_factor = c.plateau_factor;
  to.schedule.plateau_patience = c.plateau_patience;
  to.patience = c.patience;
  to.checkpoint_path = c.checkpoint;
  to.checkpoint_every = c.checkpoint_every;
  to.resume = c.resume;
  to.fingerprint = run_fingerprint(data_print, c, o);
  to.run_config = to_text(c);
}

NodeInput<Scalar, Space> make_node_input(Space const &space, Dataset<std::int32_t> const &data,
                                         RunConfig const &c, NodeOrder const &o, RunLog const &log,
                                         EmbeddingInitInfo &info) {
  Kokkos::Profiling::ScopedRegion region("ttgnn::pipeline::init");
  Dataset<std::int32_t> const &pdata = o.data;
  const std::int64_t n = pdata.num_nodes();
  NodeInput<Scalar, Space> input(n);
  if (uses_features(c.input)) {
    const DenseFeatures x = dense_features(Kokkos::DefaultHostExecutionSpace(), pdata);
    Matrix<Scalar, Space> f(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::pipeline::features"), x.extent(0),
        x.extent(1));
    Kokkos::deep_copy(f, x);
    input.set_features(f);
  }
  log_table(c, o, n, log);
  if (uses_tt(c.input)) {
    TtEmbeddingOptions tto;
    tto.mode = c.embedding.backward;
    auto table = std::make_shared<TtEmbedding<Scalar, Space>>(o.shape, tto);
    // The relabelled graph with its rows (as the mini-batch input): the spectral solve's
    // products then gather neighbours that the order put close.
    table->set_cores_from_host(space, initial_tt_cores(o.shape, pdata.graph, o.node_rows,
                                                       c.embedding, c.seed, &info, log));
    input.set_tt_embedding(table, o.node_rows);
  } else if (uses_full_table(c.input)) {
    FullEmbeddingOptions fo;
    fo.gradient = FullGradient::dense;
    fo.mode = c.embedding.backward;
    auto table = std::make_shared<FullEmbedding<Scalar, Space>>(n, c.embedding.dim, fo);
    // the rows of the ordering; under a locality order node i starts from row ordered_ids(i)
    const auto values =
        initial_full_table(n, c.embedding.dim, data.graph, o.ordering.permutation.old_to_new,
                           c.embedding, c.seed, &info, log);
    auto h = Kokkos::create_mirror_view(table->table());
    const std::int64_t d = c.embedding.dim;
    const bool moved = o.ordered_ids.extent(0) > 0;
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < d; ++j)
        h(i, j) = static_cast<Scalar>(values[(moved ? o.ordered_ids(i) : i) * d + j]);
    Kokkos::deep_copy(table->table(), h);
    input.set_full_embedding(table);
  }
  return input;
}

MinibatchInput<Scalar, Space> make_minibatch_input(Space const &space, RunConfig const &c,
                                                   NodeOrder const &o, RunLog const &log,
                                                   EmbeddingInitInfo &info) {
  Kokkos::Profiling::ScopedRegion region("ttgnn::pipeline::init");
  Dataset<std::int32_t> const &pdata = o.data;
  log_table(c, o, pdata.num_nodes(), log);
  // TT rows follow the ordering (holes under metis-hier); a full table has one row per node
  const bool tt = uses_tt(c.input);
  return MinibatchInput<Scalar, Space>(space, pdata, c.input, minibatch_embedding(c, o), c.seed,
                                       o.node_rows, tt ? o.shape.num_rows : 0, &info, log);
}

EmbeddingConfig minibatch_embedding(RunConfig const &c, NodeOrder const &o) {
  EmbeddingConfig e = c.embedding;
  if (uses_tt(c.input)) { // the shape the order was aligned to
    e.tt_n = o.shape.n;
    e.tt_d = o.shape.d;
  }
  return e;
}

MinibatchTrainOptions minibatch_options(std::string const &data_print, RunConfig const &c,
                                        NodeOrder const &o, bool evaluate_only) {
  Dataset<std::int32_t> const &data = o.data;
  MinibatchTrainOptions m;
  set_train_options(m, data_print, c, o);
  m.model = gnn_config(c, 0, 0); // widths and kind: the trainer's
  m.fanouts =
      c.minibatch.fanouts.empty() ? std::vector<std::int64_t>(c.layers, 10) : c.minibatch.fanouts;
  // a batch larger than the training set is the whole set: buffers sized for it, not for the
  // number typed (the batches are the same)
  const auto num_train = std::max<std::int64_t>(1, static_cast<std::int64_t>(data.train.extent(0)));
  m.batch_size = std::min(c.minibatch.batch_size, num_train);
  m.eval_every = c.minibatch.eval_every;
  m.max_batches = c.minibatch.max_batches;
  m.eval_nodes = c.minibatch.eval_nodes;
  m.eval_fanouts = c.minibatch.eval_fanouts;
  m.eval_batch_size =
      std::min(c.minibatch.eval_batch_size, std::max<std::int64_t>(1, data.num_nodes()));
  m.eval_chunk = c.minibatch.eval_chunk;
  m.memory_budget = c.memory_budget;
  m.communicator = Communicator::world(); // mpirun -np P: data parallel (docs/DISTRIBUTED.md)
  m.evaluate_only = evaluate_only;
  m.seed = c.seed;
  m.metric = c.metric;
  m.input = c.input;
  m.embedding = minibatch_embedding(c, o);
  return m;
}

} // namespace ttgnn
