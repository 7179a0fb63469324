// The pipeline layer (models/pipeline/pipeline.hpp): the typed settings round-trip through
// their text form, one refusal message for what mini-batch training does not implement, a
// multi-label split where ROC-AUC is undefined refused on load, feature normalisation, both
// training paths on a generated graph with the one definition of
// compression, and evaluate_checkpoint reproducing the scores and logits of the trained run.
#include "core/error.hpp"
#include "graph/io/npy_reader.hpp"
#include "graph/synth/sbm_dataset.hpp"
#include "graph_test_files.hpp"
#include "core/io/checkpoint.hpp"
#include "core/runtime/memory_check.hpp"
#include "models/pipeline/pipeline.hpp"
#include "scratch_dir.hpp"
#include "test_harness.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

namespace {

ttgnn::Dataset<std::int32_t> sbm(std::int64_t n, int features) {
  ttgnn::SbmConfig c;
  c.num_nodes = n;
  c.num_classes = 4;
  c.avg_degree = 8;
  c.homophily = 0.85;
  c.communities = 2;
  c.num_features = features;
  c.feature_separation = 1.5;
  c.seed = 5;
  return ttgnn::make_sbm_dataset(Kokkos::DefaultHostExecutionSpace(), c);
}

// A short mini-batch GraphSAGE run on a TT input of dim 16, rank 4, in the order \p order.
ttgnn::RunConfig small_minibatch_tt(ttgnn::OrderMethod order) {
  ttgnn::RunConfig c;
  c.input = ttgnn::InputKind::tt;
  c.order = order;
  c.embedding.dim = 16;
  c.embedding.tt_rank = 4;
  c.hidden = 16;
  c.epochs = 2;
  c.seed = 3;
  c.model = ttgnn::GnnKind::sage;
  c.minibatch.batch_size = 64;
  c.minibatch.fanouts = {4, 4};
  return c;
}

std::string scratch(std::string const &name) {
  static const auto dir = ttgnn::test::scratch_dir("pipeline");
  return (dir / name).string();
}

} // namespace

TEST_CASE("RunConfig: text round trip of every field; unknown keys are refused") {
  ttgnn::RunConfig c;
  c.data.dataset = "some/folder";
  c.data.feature_norm = ttgnn::FeatureNorm::row;
  c.input = ttgnn::InputKind::features_tt;
  c.order = ttgnn::OrderMethod::metis_hier;
  c.locality = ttgnn::parse_locality("rcm");
  c.embedding.tt_n = {10, 11, 12};
  c.embedding.tt_d = {4, 2, 2};
  c.embedding.init = ttgnn::InitMethod::spectral;
  c.embedding.init_std = 0.3125;
  c.embedding.backward = ttgnn::TtBackwardMode::atomic;
  c.model = ttgnn::GnnKind::sage;
  c.optimizer = ttgnn::OptimizerKind::adamw;
  c.lr = 1.0 / 3.0; // needs all 17 digits to come back bit for bit
  c.metric = ttgnn::NodeMetric::f1_macro;
  c.minibatch.batch_size = 128;
  c.minibatch.fanouts = {5, 10};
  c.seed = 18446744073709551615ull;
  c.residual = true;
  const std::string text = ttgnn::to_text(c);
  const ttgnn::RunConfig back = ttgnn::run_config_from_text(text);
  CHECK(ttgnn::to_text(back) == text);
  CHECK(back.lr == c.lr);
  CHECK(back.seed == c.seed);
  CHECK(back.embedding.tt_n == c.embedding.tt_n);
  CHECK(back.metric == c.metric);
  CHECK(back.order == ttgnn::OrderMethod::metis_hier);
  CHECK(ttgnn::to_string(back.locality) == "rcm");
  CHECK_THROWS_AS(ttgnn::run_config_from_text(text + "no_such_setting=1\n"), ttgnn::ConfigError);
  CHECK_THROWS_AS(ttgnn::run_config_from_text("lr=fast\n"), ttgnn::ConfigError);
  CHECK_THROWS_AS(ttgnn::run_config_from_text("order=sideways\n"), ttgnn::ConfigError);
  // every number is read whole, and the error names the key
  CHECK_THROWS_WITH_AS(ttgnn::run_config_from_text("hidden=12abc\n"),
                       "run config: hidden: expected an integer, got '12abc'", ttgnn::ConfigError);
  CHECK_THROWS_WITH_AS(ttgnn::run_config_from_text("epochs=2.5\n"),
                       "run config: epochs: expected an integer, got '2.5'", ttgnn::ConfigError);
  CHECK_THROWS_WITH_AS(ttgnn::run_config_from_text("seed=-1\n"),
                       "run config: seed: expected a non-negative integer, got '-1'",
                       ttgnn::ConfigError);
  CHECK_THROWS_AS(ttgnn::run_config_from_text("residual=yes\n"), ttgnn::ConfigError);
  CHECK_THROWS_AS(ttgnn::run_config_from_text("tt_n=10,x,12\n"), ttgnn::ConfigError);
}

TEST_CASE("check_run_config: one message for what mini-batch training does not implement") {
  ttgnn::RunConfig c;
  c.model = ttgnn::GnnKind::sage;
  c.minibatch.batch_size = 64;
  c.minibatch.fanouts = {5, 5};
  ttgnn::check_run_config(c); // fine
  auto message = [](ttgnn::RunConfig const &bad) -> std::string {
    try {
      ttgnn::check_run_config(bad);
    } catch (ttgnn::ConfigError const &e) {
      return e.what();
    }
    return "";
  };
  const std::string suffix = "is not implemented for mini-batch training (--batch-size); drop it "
                             "or train full batch";
  ttgnn::RunConfig a = c;
  a.input = ttgnn::InputKind::features_embedding;
  CHECK(message(a) == "--input feat+emb " + suffix);
  ttgnn::RunConfig b = c; // the schedule is the training loop's, on both paths
  b.lr_warmup = 3;
  b.plateau_factor = 0.5;
  CHECK(message(b).empty());
  b.minibatch.eval_nodes = ttgnn::EvalNodes::test; // a plateau needs a validation metric
  CHECK(message(b).find("computes no validation metric") != std::string::npos);
  ttgnn::RunConfig d = c; // the TT cores' atomic backward and weight decay work on both paths
  d.input = ttgnn::InputKind::tt;
  d.embedding.backward = ttgnn::TtBackwardMode::atomic;
  d.embedding.weight_decay = 1e-4;
  CHECK(message(d).empty());
  d.input = ttgnn::InputKind::embedding; // a full table's row-sparse gradient and Adam: neither
  CHECK(message(d) ==
        "--emb-weight-decay with --input emb (row-sparse Adam has no weight decay) " + suffix);
  d.embedding.weight_decay = 0;
  CHECK(message(d) ==
        "--tt-backward atomic with --input emb (the row-sparse gradient is merged by a sort) " +
            suffix);
  ttgnn::RunConfig e = c;
  e.model = ttgnn::GnnKind::gcn;
  CHECK(message(e).find("trains GraphSAGE") != std::string::npos);
  ttgnn::RunConfig f = c;
  f.minibatch.fanouts = {5, 5, 5};
  CHECK(message(f).find("3 fan-outs for 2 layers") != std::string::npos);
  ttgnn::RunConfig h;
  h.embedding.spectral_exponent = -0.5;
  CHECK(message(h) == "--spectral-exponent must be >= 0");
  ttgnn::RunConfig g;
  g.metrics_out = "/no/such/folder/m.csv";
  CHECK(message(g).find("does not exist") != std::string::npos);
}

TEST_CASE("check_run_sizes: all nodes' input rows only for full batch, their hidden rows only "
          "when every node is evaluated") {
  // A dataset of N nodes with no arrays behind it (the check reads the counts only), N chosen
  // from this machine's memory M: N x 512 input floats take 2M; the TT row maps (16 bytes a
  // row) M/64 at most; N x 64 hidden floats M/4; N x 2048 hidden floats 8M.
  const double memory = static_cast<double>(ttgnn::machine_memory_bytes());
  REQUIRE(memory > 0);
  const auto n = static_cast<std::int64_t>(memory / 1024);
  REQUIRE(n < std::numeric_limits<std::int32_t>::max());
  static std::int64_t offsets[1] = {0};
  ttgnn::Dataset<std::int32_t> data;
  data.graph.row_map =
      Kokkos::View<std::int64_t *, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(offsets, n + 1);
  data.num_classes = 4;
  REQUIRE(data.num_nodes() == n);
  ttgnn::RunConfig c;
  c.model = ttgnn::GnnKind::sage;
  c.input = ttgnn::InputKind::tt;
  c.embedding.dim = 512;
  c.embedding.tt_rank = 8;
  c.hidden = 64;
  auto refusal = [&](ttgnn::RunConfig const &r) -> std::string {
    try {
      ttgnn::check_run_sizes(r, data);
    } catch (ttgnn::ConfigError const &e) {
      return e.what();
    }
    return "";
  };
  CHECK(refusal(c).find("--emb-dim 512: the input rows of " + std::to_string(n) + " nodes") == 0);
  ttgnn::RunConfig m = c; // mini-batch: a batch's rows, layer-wise evaluation one chunk at a time
  m.minibatch.batch_size = 1024;
  m.minibatch.fanouts = {5, 5};
  CHECK(refusal(m).empty());
  m.hidden = 2048; // layer-wise evaluation of every node holds a hidden layer of all of them
  CHECK(refusal(m).find("--hidden 2048: one hidden layer of " + std::to_string(n) + " nodes") == 0);
  m.minibatch.eval_nodes = ttgnn::EvalNodes::test; // only the test nodes' neighbourhoods
  CHECK(refusal(m).empty());
}

TEST_CASE("normalize_feature_rows: every nonzero row sums to 1 in absolute value") {
  auto data = sbm(200, 6);
  ttgnn::DenseFeatures before("before", data.features.extent(0), data.features.extent(1));
  Kokkos::deep_copy(before, data.features); // a copy (a host mirror of a host View aliases it)
  data.features(3, 0) = 0;                  // a row with a zero stays finite
  ttgnn::normalize_feature_rows(data);
  for (std::int64_t i = 0; i < data.num_nodes(); ++i) {
    double s = 0;
    for (std::int64_t j = 0; j < 6; ++j)
      s += std::fabs(data.features(i, j));
    CHECK(s == doctest::Approx(1.0).epsilon(1e-5));
    // direction kept: ratios of entries unchanged (j = 1, 2 are nonzero in generated data)
    CHECK(data.features(i, 1) * before(i, 2) ==
          doctest::Approx(data.features(i, 2) * before(i, 1)).epsilon(1e-4));
  }
}

TEST_CASE("run_training: full batch and mini-batch on a generated graph, one compression") {
  const auto data = sbm(600, 0);
  ttgnn::RunConfig c;
  c.input = ttgnn::InputKind::tt;
  c.order = ttgnn::OrderMethod::metis_hier;
  c.embedding.dim = 16;
  c.embedding.tt_rank = 4;
  c.hidden = 16;
  c.epochs = 30;
  c.weight_decay = 0;
  c.seed = 2;
  const auto full = ttgnn::run_training(Kokkos::DefaultExecutionSpace(), data, c);
  REQUIRE(full.has_tt);
  // d = 16 factored as balanced as possible, largest first, is 4,2,2; on a hierarchical
  // order the default moves the last core's factor onto the first, on others it does not.
  // Explicit factors are kept as given.
  CHECK(full.tt_shape.d == std::vector<std::int64_t>{8, 2, 1});
  ttgnn::RunConfig x = c;
  x.epochs = 1;
  x.order = ttgnn::OrderMethod::random;
  CHECK(ttgnn::run_training(Kokkos::DefaultExecutionSpace(), data, x).tt_shape.d ==
        std::vector<std::int64_t>{4, 2, 2});
  x.order = ttgnn::OrderMethod::metis_hier;
  x.embedding.tt_d = {2, 2, 4};
  CHECK(ttgnn::run_training(Kokkos::DefaultExecutionSpace(), data, x).tt_shape.d ==
        std::vector<std::int64_t>{2, 2, 4});
  // compression: N x d over the trainable TT entries, sum_k r_{k-1} n_k d_k r_k
  std::int64_t params = 0;
  for (std::size_t k = 0; k < full.tt_shape.n.size(); ++k)
    params += full.tt_shape.ranks[k] * full.tt_shape.n[k] * full.tt_shape.d[k] *
              full.tt_shape.ranks[k + 1];
  CHECK(full.embedding_params == params);
  CHECK(full.compression() == doctest::Approx(600.0 * 16.0 / double(params)));
  CHECK(full.table_rows == full.tt_shape.padded_rows());
  CHECK(full.table_rows >= 600);
  CHECK(full.last_epoch == 30);
  CHECK(full.history.size() == 30u);
  // 4 classes, h = 0.85: a TT embedding on a METIS order learns it well above chance (0.25)
  CHECK(full.test_score > 0.5);

  ttgnn::RunConfig m = c;
  m.model = ttgnn::GnnKind::sage;
  m.minibatch.batch_size = 64;
  m.minibatch.fanouts = {5, 5};
  m.epochs = 8;
  m.lr = 0.01;
  const auto mb = ttgnn::run_training(Kokkos::DefaultExecutionSpace(), data, m);
  CHECK(mb.embedding_params == params); // same ordering and TT shape on both paths
  CHECK(mb.tt_shape.d == full.tt_shape.d);
  CHECK(mb.compression() == doctest::Approx(full.compression()));
  CHECK(mb.batches_per_epoch == (static_cast<std::int64_t>(data.train.extent(0)) + 63) / 64);
  CHECK(mb.last_epoch == 8);
  CHECK(mb.test_score > 0.4);

  ttgnn::RunConfig e = c;
  e.input = ttgnn::InputKind::embedding;
  const auto table = ttgnn::run_training(Kokkos::DefaultExecutionSpace(), data, e);
  CHECK(table.compression() == doctest::Approx(1.0)); // N rows, no holes under metis-hier
  CHECK(table.table_rows == 600);
}

TEST_CASE("default_tt_rank: 16 from a quarter of the nodes in the training set, else 8") {
  auto data = sbm(600, 0);
  auto with_train = [&](std::int64_t k) {
    auto d = data;
    d.train = Kokkos::subview(data.train, Kokkos::make_pair<std::int64_t>(0, k));
    return d;
  };
  REQUIRE(data.train.extent(0) >= 150);
  CHECK(ttgnn::default_tt_rank(with_train(150)) == 16); // 4 * 150 = 600 nodes
  CHECK(ttgnn::default_tt_rank(with_train(149)) == 8);
  CHECK(ttgnn::default_tt_rank(with_train(12)) == 8);
  ttgnn::RunConfig c; // tt_rank 0: chosen by run_training, and the shape says which
  c.input = ttgnn::InputKind::tt;
  c.order = ttgnn::OrderMethod::metis_hier;
  c.embedding.dim = 16;
  c.epochs = 1;
  CHECK(ttgnn::run_training(Kokkos::DefaultExecutionSpace(), with_train(150), c).tt_shape.ranks ==
        std::vector<std::int64_t>{1, 16, 16, 1});
  CHECK(ttgnn::run_training(Kokkos::DefaultExecutionSpace(), with_train(149), c).tt_shape.ranks ==
        std::vector<std::int64_t>{1, 8, 8, 1});
  c.embedding.tt_rank = 3; // an explicit rank is kept
  CHECK(ttgnn::run_training(Kokkos::DefaultExecutionSpace(), with_train(150), c).tt_shape.ranks ==
        std::vector<std::int64_t>{1, 3, 3, 1});
}

TEST_CASE("run_training: the original order keeps no N-entry node map in the memory report") {
  const auto data = sbm(700, 0);
  const double mib = 1024.0 * 1024.0, n = 700;
  ttgnn::RunConfig c = small_minibatch_tt(ttgnn::OrderMethod::original);
  c.predictions_out = scratch("original_logits.npy");
  c.export_embeddings = scratch("original_emb.npy");
  // table: the TT cores and their gradients only (a row map would add 8 bytes per node)
  const auto mb = ttgnn::run_training(Kokkos::DefaultExecutionSpace(), data, c);
  CHECK(mb.table_rows >= 700);
  CHECK(mb.memory.table_mb * mib == doctest::Approx(2.0 * 4 * mb.embedding_params));
  CHECK(std::filesystem::file_size(c.predictions_out) >= 700u * 4u * sizeof(float));
  CHECK(std::filesystem::file_size(c.export_embeddings) >= 700u * 16u * sizeof(float));
  ttgnn::RunConfig full = c;
  full.minibatch.batch_size = 0;
  full.model = ttgnn::GnnKind::gcn;
  const auto fb = ttgnn::run_training(Kokkos::DefaultExecutionSpace(), data, full);
  CHECK(fb.memory.table_mb * mib == doctest::Approx(2.0 * 4 * fb.embedding_params));
  // the hierarchical order has holes: its map is real and reported
  ttgnn::RunConfig hier = c;
  hier.order = ttgnn::OrderMethod::metis_hier;
  const auto h = ttgnn::run_training(Kokkos::DefaultExecutionSpace(), data, hier);
  CHECK(h.memory.table_mb * mib == doctest::Approx(2.0 * 4 * h.embedding_params + 8.0 * n));
}

TEST_CASE("run_training: a dataset taken over is relabelled in its own arrays, unless shared") {
  const ttgnn::RunConfig c = small_minibatch_tt(ttgnn::OrderMethod::metis_hier); // relabelled
  const auto shared = sbm(700, 0);
  const auto kept = ttgnn::run_training(Kokkos::DefaultExecutionSpace(), shared, c);
  auto owned = sbm(700, 0);
  const double graph_mb = double(owned.graph.row_map.span() * sizeof(std::int64_t) +
                                 owned.graph.entries.span() * sizeof(std::int32_t)) /
                          (1024.0 * 1024.0);
  std::vector<std::string> lines;
  const ttgnn::RunLog log = [&](std::string const &line) { lines.push_back(line); };
  auto logged = [&](std::string const &text) {
    return std::count(lines.begin(), lines.end(), text);
  };
  const auto moved = ttgnn::run_training(Kokkos::DefaultExecutionSpace(), std::move(owned), c, log);
  CHECK(owned.num_nodes() == 0); // the caller's references are cleared
  CHECK(logged("relabelling the graph in its own arrays") == 1);
  CHECK(moved.test_score == kept.test_score); // the same run
  REQUIRE(moved.history.size() == kept.history.size());
  for (std::size_t e = 0; e < kept.history.size(); ++e)
    CHECK(moved.history[e].loss == kept.history[e].loss);
  // the memory report counts the loaded graph beside the ordered one only where it is held
  CHECK(kept.memory.graph_mb - moved.memory.graph_mb == doctest::Approx(graph_mb));
  // A dataset given up while another handle still shares its arrays is relabelled into a copy:
  // the other handle's graph is unchanged, and so is the run.
  auto given = sbm(700, 0);
  const auto alias = given;
  lines.clear();
  const auto copied =
      ttgnn::run_training(Kokkos::DefaultExecutionSpace(), std::move(given), c, log);
  CHECK(logged("relabelling the graph into a copy (its arrays are shared with another handle)") ==
        1);
  std::int64_t differ = 0;
  for (std::size_t a = 0; a < alias.graph.entries.extent(0); ++a)
    differ += alias.graph.entries(a) != shared.graph.entries(a);
  CHECK(differ == 0);
  CHECK(copied.test_score == kept.test_score);
}

TEST_CASE("evaluate_checkpoint: the trained run's scores and logits, from the file alone") {
  const auto data = sbm(500, 8);
  ttgnn::RunConfig c;
  c.input = ttgnn::InputKind::features_tt;
  c.order = ttgnn::OrderMethod::metis;
  c.embedding.dim = 8;
  c.embedding.tt_rank = 3;
  c.epochs = 12;
  c.seed = 4;
  c.checkpoint = scratch("run.ckpt");
  c.predictions_out = scratch("trained.npy");
  std::filesystem::remove(c.checkpoint);
  const auto trained = ttgnn::run_training(Kokkos::DefaultExecutionSpace(), data, c);

  ttgnn::RunConfig stored = ttgnn::checkpoint_run_config(c.checkpoint);
  CHECK(ttgnn::to_text(stored) == ttgnn::to_text(c));
  stored.predictions_out = scratch("evaluated.npy");
  const auto evaluated = ttgnn::evaluate_checkpoint(Kokkos::DefaultExecutionSpace(), data, stored);
  CHECK(evaluated.best_epoch == trained.best_epoch);
  CHECK(evaluated.checkpoint_epoch == 12);
  CHECK(evaluated.test_score == doctest::Approx(trained.test_score).epsilon(1e-12));
  CHECK(evaluated.valid_score == doctest::Approx(trained.valid_score).epsilon(1e-12));
  CHECK(evaluated.history.size() == trained.history.size());
  // the same logits (same parameters, same kernels): both .npy files byte-identical
  auto bytes = [](std::string const &p) {
    std::FILE *f = std::fopen(p.c_str(), "rb");
    REQUIRE(f);
    std::vector<char> b;
    for (int ch; (ch = std::fgetc(f)) != EOF;)
      b.push_back(static_cast<char>(ch));
    std::fclose(f);
    return b;
  };
  const auto a = bytes(c.predictions_out), b = bytes(stored.predictions_out);
  const std::size_t payload = 500u * 4u * sizeof(float); // N x C float32 after the header
  CHECK(a.size() > payload);
  CHECK(a.size() <= payload + 256u);
  CHECK(a == b);

  // other data is refused (the fingerprint holds the data's checksum)
  const auto other = sbm(501, 8);
  CHECK_THROWS_AS(ttgnn::evaluate_checkpoint(Kokkos::DefaultExecutionSpace(), other, stored),
                  ttgnn::ConfigError);
  // a checkpoint without run settings is named as such
  ttgnn::Checkpoint bare;
  bare.put_string("format", "ttgnn-full-batch-trainer");
  bare.save(scratch("bare.ckpt"));
  CHECK_THROWS_AS(ttgnn::checkpoint_run_config(scratch("bare.ckpt")), ttgnn::ConfigError);
}

namespace {

/// The profiling regions of a run, as the Kokkos Tools region callbacks see them.
struct RegionLog {
  static std::vector<std::string> &stack() {
    static std::vector<std::string> s;
    return s;
  }
  /// (region, its parent or "") in push order
  static std::vector<std::pair<std::string, std::string>> &pushed() {
    static std::vector<std::pair<std::string, std::string>> p;
    return p;
  }
  static int &unbalanced() {
    static int n = 0;
    return n;
  }
  static void push(char const *name) {
    pushed().emplace_back(name, stack().empty() ? std::string() : stack().back());
    stack().emplace_back(name);
  }
  static void pop() {
    if (stack().empty())
      ++unbalanced();
    else
      stack().pop_back();
  }
  static std::size_t count(std::string const &name, std::string const &parent) {
    std::size_t n = 0;
    for (auto const &p : pushed())
      n += p.first == name && p.second == parent;
    return n;
  }
};

} // namespace

TEST_CASE("profiling regions: load, order, init, spectral, epochs, steps, evaluations and "
          "checkpoints nest and close") {
  namespace tools = Kokkos::Tools::Experimental;
  RegionLog::stack().clear();
  RegionLog::pushed().clear();
  tools::set_push_region_callback(&RegionLog::push);
  tools::set_pop_region_callback(&RegionLog::pop);
  const auto data = sbm(300, 0);
  ttgnn::RunConfig c;
  c.input = ttgnn::InputKind::tt;
  c.order = ttgnn::OrderMethod::metis_hier;
  c.embedding.init = ttgnn::InitMethod::spectral;
  c.embedding.dim = 8;
  c.embedding.tt_rank = 2;
  c.hidden = 8;
  c.epochs = 3;
  c.checkpoint = scratch("regions.ckpt");
  c.checkpoint_every = 2;
  ttgnn::run_training(Kokkos::DefaultExecutionSpace(), data, c);
  ttgnn::RunConfig m = c; // the mini-batch path
  m.model = ttgnn::GnnKind::sage;
  m.minibatch.batch_size = 100;
  m.minibatch.fanouts = {3, 3};
  m.epochs = 2;
  m.checkpoint = scratch("regions_mb.ckpt");
  ttgnn::run_training(Kokkos::DefaultExecutionSpace(), data, m);
  tools::set_push_region_callback(nullptr);
  tools::set_pop_region_callback(nullptr);

  CHECK(RegionLog::unbalanced() == 0);
  CHECK(RegionLog::stack().empty()); // every region closed
  const std::string run = "ttgnn::pipeline::run", epoch = "ttgnn::train::epoch";
  CHECK(RegionLog::count(run, "") == 2);
  CHECK(RegionLog::count("ttgnn::pipeline::order", run) == 2);
  CHECK(RegionLog::count("ttgnn::pipeline::init", run) == 2); // the input of either path
  CHECK(RegionLog::count("ttgnn::embedding::spectral", "ttgnn::pipeline::init") == 2);
  CHECK(RegionLog::count(epoch, run) == 3 + 2);
  CHECK(RegionLog::count("ttgnn::train::step", epoch) == 3 + 2);
  CHECK(RegionLog::count("ttgnn::train::evaluate", epoch) == 3 + 2);
  // every 2nd epoch and the last: epochs 2 and 3 of the full-batch run, epoch 2 of the other
  CHECK(RegionLog::count("ttgnn::train::checkpoint", epoch) == 2 + 1);
  // the loader's region, outside a run
  ttgnn::LoadedData const loaded = [] {
    ttgnn::RunConfig l;
    l.data.dataset = TTGNN_SOURCE_DIR "/datasets/cora";
    RegionLog::pushed().clear();
    namespace tools = Kokkos::Tools::Experimental;
    tools::set_push_region_callback(&RegionLog::push);
    tools::set_pop_region_callback(&RegionLog::pop);
    auto d = ttgnn::load_run_data(l, {});
    tools::set_push_region_callback(nullptr);
    tools::set_pop_region_callback(nullptr);
    return d;
  }();
  CHECK(loaded.data.num_nodes() == 2708);
  CHECK(RegionLog::count("ttgnn::pipeline::load", "") == 1);
  CHECK(RegionLog::stack().empty());
}

TEST_CASE("a multi-label split where no task has both classes is refused on load") {
  // small dataset (tests/graph_test_files.hpp) with two binary tasks; split s1: train {0, 1},
  // valid {5}, test {3, 4}. Node 5 is positive on both tasks: no valid task has both classes.
  const auto dir = ttgnn::test::write_small_ogb("ml_one_class", false);
  ttgnn::test::write_text(dir / "raw/node-label.csv", "1,0\n0,1\n1,1\n1,0\n0,1\n1,1\n");
  ttgnn::RunConfig c;
  c.data.dataset = dir.string();
  c.data.split = "s1";
  c.input = ttgnn::InputKind::embedding;
  CHECK(ttgnn::test::error_of([&] { ttgnn::load_run_data(c, {}); }) ==
        dir.string() + ": split s1: no task has both a positive and a negative target among the "
                       "1 valid nodes: ROC-AUC is undefined there (choose --metric f1_micro or "
                       "another split)");
  c.metric = ttgnn::NodeMetric::f1_micro; // defined on any set
  CHECK(ttgnn::load_run_data(c, {}).data.multilabels.extent(1) == 2);
}

namespace {

std::vector<float> read_floats(std::string const &path) {
  auto r = ttgnn::NpyReader::open_file(path);
  std::vector<float> v(static_cast<std::size_t>(r.remaining()));
  r.read(v.data(), v.size());
  return v;
}

/// Largest |a - b| over the largest |a|.
double relative_gap(std::vector<float> const &a, std::vector<float> const &b) {
  REQUIRE(a.size() == b.size());
  double gap = 0, scale = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    gap = std::max(gap, std::fabs(double(a[i]) - double(b[i])));
    scale = std::max(scale, std::fabs(double(a[i])));
  }
  return gap / scale;
}

} // namespace

// A locality order relabels the propagation only: every node keeps its dropout masks and its
// initial table row, and results come back in the original ids. So the run equals the run
// without it up to the order of floating-point sums (an SpMM row sums its neighbours in
// another order): float32 rounding, ~1e-7 relative per operation, grown over a few epochs
// far below 1e-3. A different mask or initial row would move the losses by ~1e-2 and more.
TEST_CASE("run_training: a locality order is invisible in losses, scores, logits and table") {
  const auto data = sbm(600, 12);
  for (auto input :
       {ttgnn::InputKind::features, ttgnn::InputKind::embedding, ttgnn::InputKind::tt}) {
    CAPTURE(ttgnn::to_string(input));
    ttgnn::RunConfig c;
    c.input = input;
    c.order = input == ttgnn::InputKind::tt ? ttgnn::OrderMethod::metis_hier
                                            : ttgnn::OrderMethod::original;
    c.embedding.dim = 16;
    c.embedding.tt_rank = 4;
    c.hidden = 16;
    c.dropout = 0.5;
    c.input_dropout = 0.5;
    c.epochs = 6;
    c.seed = 7;
    c.locality = ttgnn::parse_locality("none");
    c.predictions_out = scratch("plain_logits.npy");
    if (input != ttgnn::InputKind::features)
      c.export_embeddings = scratch("plain_emb.npy");
    const auto plain = ttgnn::run_training(Kokkos::DefaultExecutionSpace(), data, c);
    CHECK(plain.locality == "none");
    for (char const *method : {"random", "lp-hier"}) {
      CAPTURE(method);
      ttgnn::RunConfig l = c;
      l.locality = ttgnn::parse_locality(method);
      l.predictions_out = scratch("local_logits.npy");
      if (!c.export_embeddings.empty())
        l.export_embeddings = scratch("local_emb.npy");
      const auto local = ttgnn::run_training(Kokkos::DefaultExecutionSpace(), data, l);
      CHECK(local.locality == method);
      REQUIRE(local.history.size() == plain.history.size());
      for (std::size_t e = 0; e < plain.history.size(); ++e)
        CHECK(local.history[e].loss == doctest::Approx(plain.history[e].loss).epsilon(1e-4));
      CHECK(std::fabs(local.test_score - plain.test_score) <= 2.0 / double(data.test.extent(0)));
      CHECK(relative_gap(read_floats(c.predictions_out), read_floats(l.predictions_out)) < 1e-3);
      if (!c.export_embeddings.empty())
        CHECK(relative_gap(read_floats(c.export_embeddings), read_floats(l.export_embeddings)) <
              1e-3);
    }
  }
  // automatic: a graph whose rows fit a cache is left as it is
  ttgnn::RunConfig a;
  a.input = ttgnn::InputKind::embedding;
  a.epochs = 50;
  a.patience = 1;
  CHECK(ttgnn::run_training(Kokkos::DefaultExecutionSpace(), data, a).locality == "none");
  // mini-batch training has no propagation to relabel: a forced order is refused
  a.model = ttgnn::GnnKind::sage;
  a.minibatch.batch_size = 64;
  a.locality = ttgnn::parse_locality("rcm");
  CHECK_THROWS_AS(ttgnn::run_training(Kokkos::DefaultExecutionSpace(), data, a),
                  ttgnn::ConfigError);
  CHECK_THROWS_AS(ttgnn::parse_locality("nearby"), ttgnn::ConfigError);
}

TEST_CASE("run_training: a memory budget changes no result and refuses what no schedule fits") {
  const auto data = sbm(500, 12);
  ttgnn::RunConfig full;
  full.input = ttgnn::InputKind::features_tt;
  full.embedding.dim = 8;
  full.embedding.tt_rank = 3;
  full.hidden = 16;
  full.layers = 3;
  full.dropout = 0.3;
  full.batch_norm = true;
  full.epochs = 3;
  full.seed = 4;
  ttgnn::RunConfig mini = full;
  mini.model = ttgnn::GnnKind::sage;
  mini.minibatch.batch_size = 50;
  mini.minibatch.fanouts = {4, -1, 3};
  for (auto const &c : {full, mini}) {
    CAPTURE(c.minibatch_mode());
    const auto base = ttgnn::run_training(Kokkos::DefaultExecutionSpace(), data, c);
    CHECK(base.memory_plan.budget_mb == 0);
    ttgnn::RunConfig b = c;
    b.memory_budget = std::int64_t(64) << 30; // room for every layer: the budgeted path, no replay
    const auto got = ttgnn::run_training(Kokkos::DefaultExecutionSpace(), data, b);
    CHECK(got.memory_plan.budget_mb == 65536.0);
    CHECK(got.memory_plan.layers == std::vector<std::string>(3, "all"));
    CHECK(got.memory_plan.predicted_peak_mb > got.memory_plan.fixed_mb);
    CHECK(got.memory_plan.predicted_peak_mb < 65536.0);
    REQUIRE(got.history.size() == base.history.size());
    for (std::size_t e = 0; e < base.history.size(); ++e) {
      CHECK(got.history[e].loss == base.history[e].loss); // bitwise
      CHECK(got.history[e].valid_acc == base.history[e].valid_acc);
    }
    CHECK(got.test_score == base.test_score);
    b.memory_budget = 1 << 20;
    CHECK_THROWS_WITH_AS(ttgnn::run_training(Kokkos::DefaultExecutionSpace(), data, b),
                         doctest::Contains("is too small"), ttgnn::ConfigError);
  }
}
