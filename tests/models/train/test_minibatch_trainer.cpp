// Mini-batch training pieces: block mean operators (values and gradients by finite
// differences), layer-wise full-neighbour inference equal to the model on full-neighbour
// blocks (also with the input rows produced per chunk, within chunk-bounded buffers), subset
// inference of some nodes equal to layer-wise inference on them, mini-batch inputs (row-sparse
// updates only touch the batch's rows, feat+tt columns), and short end-to-end runs on a generated
// graph (learning, determinism, early stopping).
#include "core/error.hpp"
#include "graph/neighbor_sampler.hpp"
#include "graph/synth/sbm_dataset.hpp"
#include "models/layers/block_operator.hpp"
#include "models/gnn_model.hpp"
#include "models/train/layerwise_inference.hpp"
#include "models/embedding/minibatch_input.hpp"
#include "models/train/minibatch_trainer.hpp"
#include "models/train/subset_inference.hpp"
#include "epoch_allocations.hpp"
#include "scratch_dir.hpp"
#include "test_harness.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace {

using HostIds = Kokkos::View<std::int64_t *, Kokkos::HostSpace>;

ttgnn::Dataset<std::int32_t> small_sbm(std::int64_t n, double h, int features, std::uint64_t seed) {
  ttgnn::SbmConfig c;
  c.num_nodes = n;
  c.num_classes = 4;
  c.avg_degree = 8;
  c.homophily = h;
  c.num_features = features;
  c.feature_separation = 1.5;
  c.seed = seed;
  return ttgnn::make_sbm_dataset(Kokkos::DefaultHostExecutionSpace(), c);
}

template <class Space>
ttgnn::Matrix<double, Space> random_matrix(std::int64_t r, std::int64_t c, std::uint64_t seed) {
  ttgnn::Matrix<double, Space> m("m", r, c);
  auto h = Kokkos::create_mirror_view(m);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  for (std::int64_t i = 0; i < r; ++i)
    for (std::int64_t j = 0; j < c; ++j)
      h(i, j) = u(rng);
  Kokkos::deep_copy(m, h);
  return m;
}

/// Rows ids(i) of x.
template <class Space>
ttgnn::Matrix<double, Space> gather(ttgnn::Matrix<double, Space> const &x, HostIds ids) {
  ttgnn::Matrix<double, Space> out("g", ids.extent(0), x.extent(1));
  auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  auto ho = Kokkos::create_mirror_view(out);
  for (std::size_t i = 0; i < ids.extent(0); ++i)
    for (std::size_t j = 0; j < x.extent(1); ++j)
      ho(i, j) = hx(ids(i), j);
  Kokkos::deep_copy(out, ho);
  return out;
}

/// A sampler over \p data's graph in the memory of \p ExecutionSpace (sampling on that space).
template <class ExecutionSpace>
ttgnn::NeighborSampler<std::int32_t, typename ExecutionSpace::memory_space>
sampler_in(ttgnn::Dataset<std::int32_t> const &data, std::vector<std::int64_t> fanouts,
           std::uint64_t seed) {
  using memory_space = typename ExecutionSpace::memory_space;
  return {ttgnn::graph_in_space<memory_space>(data.graph), std::move(fanouts), seed};
}

/// \p ids in the memory of \p ExecutionSpace.
template <class ExecutionSpace> auto ids_in(HostIds ids) {
  return Kokkos::create_mirror_view_and_copy(typename ExecutionSpace::memory_space(), ids);
}

/// \p ids on the host.
template <class Ids> HostIds host_ids(Ids const &ids) {
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ids);
}

template <class ExecutionSpace> void check_block_operator() {
  ExecutionSpace space;
  auto data = small_sbm(200, 0.7, 0, 5);
  ttgnn::NeighborSampler<std::int32_t> sampler(data.graph, {3, 4}, 11);
  HostIds seeds("seeds", 6);
  for (int i = 0; i < 6; ++i)
    seeds(i) = 7 * i + 1;
  auto batch = sampler.sample(Kokkos::DefaultHostExecutionSpace(), seeds, 0, 0);
  // The same batch sampled on the space: its operators against host references on the first.
  auto dbatch = sampler_in<ExecutionSpace>(data, {3, 4}, 11)
                    .sample(space, ids_in<ExecutionSpace>(seeds), 0, 0);
  // Values: row i of A x is the mean of x over row i's sampled sources (host reference).
  auto op = ttgnn::block_mean_operator<double>(space, dbatch.blocks[0]);
  auto const &blk = batch.blocks[0];
  auto x = random_matrix<ExecutionSpace>(blk.num_src, 5, 3);
  ttgnn::Matrix<double, ExecutionSpace> y("y", blk.num_dst, 5);
  op.apply(space, x, y);
  auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  for (std::int64_t i = 0; i < blk.num_dst; ++i)
    for (int c = 0; c < 5; ++c) {
      double s = 0;
      const std::int64_t k = blk.row_map(i + 1) - blk.row_map(i);
      for (std::int64_t e = blk.row_map(i); e < blk.row_map(i + 1); ++e)
        s += hx(blk.entries(e), c);
      CHECK(hy(i, c) == doctest::Approx(k ? s / k : 0.0).epsilon(1e-12));
    }
  // The same operators built in one reused workspace, block after block (both layers, twice):
  // the same products A x and A^T y, bit for bit.
  ttgnn::BlockOperatorWorkspace<double, typename ExecutionSpace::memory_space> ws;
  for (int round = 0; round < 2; ++round)
    for (auto const &b : dbatch.blocks) {
      const auto fresh = ttgnn::block_mean_operator<double>(space, b);
      const auto reused = ttgnn::block_mean_operator<double>(space, b, &ws);
      auto xb = random_matrix<ExecutionSpace>(b.num_src, 3, 4 + round);
      auto yb = random_matrix<ExecutionSpace>(b.num_dst, 3, 6 + round);
      ttgnn::Matrix<double, ExecutionSpace> f1("f1", b.num_dst, 3), r1("r1", b.num_dst, 3),
          f2("f2", b.num_src, 3), r2("r2", b.num_src, 3);
      fresh.apply(space, xb, f1);
      reused.apply(space, xb, r1);
      fresh.apply_transpose(space, yb, f2);
      reused.apply_transpose(space, yb, r2);
      auto h1 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f1);
      auto g1 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), r1);
      auto h2 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f2);
      auto g2 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), r2);
      int differ = 0;
      for (std::int64_t i = 0; i < b.num_dst; ++i)
        for (int c = 0; c < 3; ++c)
          differ += h1(i, c) != g1(i, c);
      for (std::int64_t i = 0; i < b.num_src; ++i)
        for (int c = 0; c < 3; ++c)
          differ += h2(i, c) != g2(i, c);
      CHECK(differ == 0);
    }
  // Gradients through a 2-layer SAGE model on the blocks, by central differences on x0 (double:
  // step 1e-6, truncation O(h^2) ~ 1e-12, rounding ~1e-10 / 1e-6; tolerance 1e-6 relative).
  ttgnn::GnnConfig cfg;
  cfg.kind = ttgnn::GnnKind::sage;
  cfg.in_features = 3;
  cfg.hidden = 4;
  cfg.out_features = 2;
  cfg.num_layers = 2;
  cfg.dropout = 0;
  cfg.input_dropout = 0;
  cfg.seed = 9;
  ttgnn::GnnModel<double, ExecutionSpace, std::int32_t> model(cfg);
  std::vector<ttgnn::GraphOperator<double, ExecutionSpace, std::int32_t>> ops;
  for (auto const &b : dbatch.blocks)
    ops.push_back(ttgnn::block_mean_operator<double>(space, b));
  auto x0 = random_matrix<ExecutionSpace>(batch.blocks[0].num_src, 3, 4);
  auto w = random_matrix<ExecutionSpace>(6, 2, 5); // loss = sum(logits * w)
  auto hw = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), w);
  auto loss = [&]() {
    auto const &out = model.forward(space, ops, x0);
    auto ho = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    double s = 0;
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 2; ++j)
        s += ho(i, j) * hw(i, j);
    return s;
  };
  loss();
  ttgnn::Matrix<double, ExecutionSpace> gx("gx", x0.extent(0), 3);
  model.zero_grad(space);
  model.backward(space, w, gx);
  auto hg = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), gx);
  auto hx0 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x0);
  double max_err = 0, max_g = 0;
  for (std::size_t i = 0; i < x0.extent(0); ++i)
    for (int j = 0; j < 3; ++j) {
      const double v = hx0(i, j), step = 1e-6;
      hx0(i, j) = v + step;
      Kokkos::deep_copy(x0, hx0);
      const double up = loss();
      hx0(i, j) = v - step;
      Kokkos::deep_copy(x0, hx0);
      const double down = loss();
      hx0(i, j) = v;
      Kokkos::deep_copy(x0, hx0);
      max_err = std::max(max_err, std::abs((up - down) / (2 * step) - hg(i, j)));
      max_g = std::max(max_g, std::abs(hg(i, j)));
    }
  CHECK(max_g > 1e-3); // the check is not vacuous
  CHECK(max_err < 1e-6 * std::max(1.0, max_g));
}

TTGNN_TEST_ALL_SPACES("block mean operators: values and gradients through SAGE layers") {
  check_block_operator<ExecutionSpace>();
}

template <class ExecutionSpace> void check_layerwise() {
  ExecutionSpace space;
  auto data = small_sbm(150, 0.6, 0, 8);
  const std::int64_t n = data.num_nodes();
  for (int variant = 0; variant < 2; ++variant) {
    ttgnn::GnnConfig cfg;
    cfg.kind = ttgnn::GnnKind::sage;
    cfg.in_features = variant ? 12 : 4; // 12 > hidden: transform-first path of the first layer
    cfg.hidden = 6;
    cfg.out_features = 3;
    cfg.num_layers = 3;
    cfg.dropout = 0.3;
    cfg.batch_norm = variant == 1;
    cfg.residual = variant == 1;
    cfg.seed = 2;
    ttgnn::GnnModel<double, ExecutionSpace, std::int32_t> model(cfg);
    auto h0 = random_matrix<ExecutionSpace>(n, cfg.in_features, 6);
    // One training-mode forward on a sampled batch moves the BatchNorm running statistics away
    // from (0, 1), so evaluation mode really uses them.
    HostIds seeds("seeds", 40);
    for (int i = 0; i < 40; ++i)
      seeds(i) = 3 * i;
    auto b = sampler_in<ExecutionSpace>(data, {2, 2, 2}, 1)
                 .sample(space, ids_in<ExecutionSpace>(seeds), 0, 0);
    std::vector<ttgnn::GraphOperator<double, ExecutionSpace, std::int32_t>> ops;
    for (auto const &blk : b.blocks)
      ops.push_back(ttgnn::block_mean_operator<double>(space, blk));
    model.set_training(true);
    model.forward(space, ops, gather<ExecutionSpace>(h0, host_ids(b.input_nodes())));
    model.set_training(false);
    // Reference: the model itself on full-neighbour blocks of every node (seeds in reverse).
    HostIds every("every", n);
    for (std::int64_t i = 0; i < n; ++i)
      every(i) = n - 1 - i;
    auto fb = sampler_in<ExecutionSpace>(data, {-1, -1, -1}, 0)
                  .sample(space, ids_in<ExecutionSpace>(every), 0, 0);
    ops.clear();
    for (auto const &blk : fb.blocks)
      ops.push_back(ttgnn::block_mean_operator<double>(space, blk));
    auto ref = Kokkos::create_mirror_view_and_copy(
        Kokkos::HostSpace(),
        model.forward(space, ops, gather<ExecutionSpace>(h0, host_ids(fb.input_nodes()))));
    auto full = ttgnn::FullGraphMean<ExecutionSpace, std::int32_t>::build(space, data.graph);
    for (std::int64_t chunk : {std::int64_t(1000), std::int64_t(17)}) {
      auto got = Kokkos::create_mirror_view_and_copy(
          Kokkos::HostSpace(), ttgnn::sage_layerwise_inference(space, model, full, h0, chunk));
      REQUIRE(got.extent(0) == std::size_t(n));
      double err = 0, scale = 0;
      for (std::int64_t i = 0; i < n; ++i)
        for (int c = 0; c < 3; ++c) {
          err = std::max(err, std::abs(got(every(i), c) - ref(i, c)));
          scale = std::max(scale, std::abs(ref(i, c)));
        }
      // Same sums in another order, inverse degrees rounded to float (relative 6e-8).
      CHECK(scale > 1e-2);
      CHECK(err < 1e-6 * std::max(1.0, scale));
    }
  }
}

TTGNN_TEST_ALL_SPACES("layer-wise inference equals the model on full-neighbour blocks") {
  check_layerwise<ExecutionSpace>();
}

/// Input rows of a TT MinibatchInput, as the evaluation asks for them.
template <class ExecutionSpace> struct TtRows {
  ttgnn::MinibatchInput<double, ExecutionSpace> *input;
  std::int64_t calls = 0, rows = 0;
  void
  operator()(ExecutionSpace const &s,
             Kokkos::View<const std::int64_t *, typename ExecutionSpace::memory_space> const &ids,
             ttgnn::Matrix<double, ExecutionSpace> const &out) {
    ++calls;
    rows += static_cast<std::int64_t>(ids.extent(0));
    input->forward(s, ids, out);
  }
};

/// A 3-layer SAGE model (in -> 6 -> 6 -> 3) with BatchNorm statistics moved away from (0, 1).
template <class ExecutionSpace>
ttgnn::GnnModel<double, ExecutionSpace, std::int32_t>
trained_sage(ttgnn::Dataset<std::int32_t> const &data, std::int64_t in, bool bn_residual) {
  ExecutionSpace space;
  ttgnn::GnnConfig cfg;
  cfg.kind = ttgnn::GnnKind::sage;
  cfg.in_features = in;
  cfg.hidden = 6;
  cfg.out_features = 3;
  cfg.num_layers = 3;
  cfg.dropout = 0.3;
  cfg.batch_norm = bn_residual;
  cfg.residual = bn_residual;
  cfg.seed = 4;
  ttgnn::GnnModel<double, ExecutionSpace, std::int32_t> model(cfg);
  auto x = random_matrix<ExecutionSpace>(data.num_nodes(), in, 12);
  HostIds seeds("seeds", 30);
  for (int i = 0; i < 30; ++i)
    seeds(i) = 4 * i + 1;
  auto b = sampler_in<ExecutionSpace>(data, {2, 2, 2}, 1)
               .sample(space, ids_in<ExecutionSpace>(seeds), 0, 0);
  std::vector<ttgnn::GraphOperator<double, ExecutionSpace, std::int32_t>> ops;
  for (auto const &blk : b.blocks)
    ops.push_back(ttgnn::block_mean_operator<double>(space, blk));
  model.set_training(true);
  model.forward(space, ops, gather<ExecutionSpace>(x, host_ids(b.input_nodes())));
  model.set_training(false);
  return model;
}

template <class ExecutionSpace> void check_layerwise_without_table() {
  ExecutionSpace space;
  auto data = small_sbm(140, 0.6, 0, 9);
  const std::int64_t n = data.num_nodes(), nnz = data.graph.num_arcs();
  std::int64_t max_degree = 0;
  for (std::int64_t v = 0; v < n; ++v)
    max_degree = std::max(max_degree, data.graph.row_map(v + 1) - data.graph.row_map(v));
  // TT rows of width 40, wider than the model (6): an N x 40 input matrix would dominate.
  ttgnn::EmbeddingConfig spec;
  spec.dim = 40;
  spec.tt_rank = 3;
  spec.init = ttgnn::InitMethod::gaussian;
  ttgnn::MinibatchInput<double, ExecutionSpace> input(space, data, ttgnn::InputKind::tt, spec, 5);
  using Mem = typename ExecutionSpace::memory_space;
  Kokkos::View<std::int64_t *, Mem> all("all", n);
  Kokkos::parallel_for(
      "test::iota", Kokkos::RangePolicy<ExecutionSpace>(space, 0, n),
      KOKKOS_LAMBDA(std::int64_t i) { all(i) = i; });
  ttgnn::Matrix<double, ExecutionSpace> h0("h0", n, 40);
  input.forward(space, all, h0);
  auto full = ttgnn::FullGraphMean<ExecutionSpace, std::int32_t>::build(space, data.graph);
  for (bool bn : {false, true}) {
    auto model = trained_sage<ExecutionSpace>(data, 40, bn);
    // Reference: the model on full-neighbour blocks of every node, from the materialised rows.
    HostIds every("every", n);
    for (std::int64_t i = 0; i < n; ++i)
      every(i) = i;
    auto fb = sampler_in<ExecutionSpace>(data, {-1, -1, -1}, 0)
                  .sample(space, ids_in<ExecutionSpace>(every), 0, 0);
    std::vector<ttgnn::GraphOperator<double, ExecutionSpace, std::int32_t>> ops;
    for (auto const &blk : fb.blocks)
      ops.push_back(ttgnn::block_mean_operator<double>(space, blk));
    auto ref = Kokkos::create_mirror_view_and_copy(
        Kokkos::HostSpace(),
        model.forward(space, ops, gather<ExecutionSpace>(h0, host_ids(fb.input_nodes()))));
    double scale = 0;
    for (std::int64_t i = 0; i < n; ++i)
      for (int c = 0; c < 3; ++c)
        scale = std::max(scale, std::abs(ref(i, c)));
    REQUIRE(scale > 1e-2);
    // chunk 1: every node alone with its neighbours; 9: a few; n + nnz: everything at once
    for (std::int64_t chunk : {std::int64_t(1), std::int64_t(9), n + nnz}) {
      TtRows<ExecutionSpace> rows{&input};
      ttgnn::LayerwiseMemory mem;
      auto got = Kokkos::create_mirror_view_and_copy(
          Kokkos::HostSpace(),
          ttgnn::sage_layerwise_inference(space, model, full, rows, chunk, &mem));
      REQUIRE(got.extent(0) == std::size_t(n));
      double err = 0;
      for (std::int64_t i = 0; i < n; ++i)
        for (int c = 0; c < 3; ++c)
          err = std::max(err, std::abs(got(i, c) - ref(i, c)));
      // same sums in another order, inverse degrees rounded to float (relative 6e-8)
      CHECK(err < 1e-6 * std::max(1.0, scale));
      // Never an N x 40 matrix: the N-row matrices are two of width 6 (a layer's input and
      // output), 2 x 140 x 6 doubles, against 140 x 40 for the input rows.
      CHECK(mem.node_matrix_bytes == 2 * n * 6 * 8);
      // A chunk's own and neighbour ids: at most max(chunk, 1 + max degree) rows of 40.
      const std::int64_t cap = std::max(chunk, 1 + max_degree);
      CHECK(mem.max_input_rows <= cap);
      CHECK(rows.rows == mem.input_rows);
      CHECK(mem.chunk_buffer_bytes <= 2 * cap * 8 + 3 * std::min(n, cap) * 40 * 8);
      if (chunk == 1) // one node per step: itself and its (distinct) neighbours
        CHECK(mem.input_rows == n + nnz);
      if (chunk == n + nnz) { // one step: every node once
        CHECK(rows.calls == 1);
        CHECK(mem.input_rows == n);
      }
      // In a workspace: the same rows bit for bit and the same sizes, in one allocation of no
      // more than the call above held at once (its largest layer: output, input and chunk
      // buffers, each aligned to 128 bytes); a second call allocates nothing.
      ttgnn::LayerwiseWorkspace<double, ExecutionSpace> ws;
      ttgnn::LayerwiseMemory wmem;
      auto in_ws = Kokkos::create_mirror_view_and_copy(
          Kokkos::HostSpace(),
          ttgnn::sage_layerwise_inference(space, model, full, rows, chunk, &wmem, &ws));
      for (std::int64_t i = 0; i < n; ++i)
        for (int c = 0; c < 3; ++c)
          CHECK(in_ws(i, c) == got(i, c));
      CHECK(wmem.node_matrix_bytes == mem.node_matrix_bytes);
      CHECK(wmem.chunk_buffer_bytes == mem.chunk_buffer_bytes);
      CHECK(wmem.input_rows == mem.input_rows);
      CHECK(mem.workspace_bytes == 0);
      CHECK(wmem.workspace_bytes == ws.bytes());
      CHECK(ws.bytes() > mem.node_matrix_bytes);
      CHECK(ws.bytes() <= mem.node_matrix_bytes + mem.chunk_buffer_bytes + 7 * 128);
      const auto again = ttgnn::test::EpochAllocations::during(
          [&] { ttgnn::sage_layerwise_inference(space, model, full, rows, chunk, nullptr, &ws); });
      CHECK(again.empty());
      CHECK(wmem.workspace_bytes == ws.bytes());
    }
  }
}

TTGNN_TEST_ALL_SPACES("layer-wise inference produces the input rows per chunk, no N x d matrix") {
  check_layerwise_without_table<ExecutionSpace>();
}

template <class ExecutionSpace> void check_subset_inference() {
  ExecutionSpace space;
  auto data = small_sbm(160, 0.6, 0, 21);
  const std::int64_t n = data.num_nodes();
  std::int64_t max_degree = 0;
  for (std::int64_t v = 0; v < n; ++v)
    max_degree = std::max(max_degree, data.graph.row_map(v + 1) - data.graph.row_map(v));
  ttgnn::EmbeddingConfig spec;
  spec.dim = 12;
  spec.tt_rank = 3;
  spec.init = ttgnn::InitMethod::gaussian;
  ttgnn::MinibatchInput<double, ExecutionSpace> input(space, data, ttgnn::InputKind::tt, spec, 6);
  auto model = trained_sage<ExecutionSpace>(data, 12, true);
  auto full = ttgnn::FullGraphMean<ExecutionSpace, std::int32_t>::build(space, data.graph);
  TtRows<ExecutionSpace> rows{&input};
  auto all = Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(), ttgnn::sage_layerwise_inference(space, model, full, rows, 50));
  // 37 scattered nodes in batches of 10
  HostIds nodes("nodes", 37);
  for (int i = 0; i < 37; ++i)
    nodes(i) = (97 * i + 13) % n;
  auto subset = [&](std::vector<std::int64_t> fanouts, std::uint64_t stream,
                    ttgnn::SubsetInferenceMemory *mem) {
    auto sampler = sampler_in<ExecutionSpace>(data, fanouts, 17);
    return Kokkos::create_mirror_view_and_copy(
        Kokkos::HostSpace(),
        ttgnn::sage_subset_inference(space, model, sampler, rows, ids_in<ExecutionSpace>(nodes), 10,
                                     stream, mem));
  };
  auto max_diff = [&](auto const &a, auto const &b) { // a: subset rows, b: subset rows or all
    double err = 0;
    for (int i = 0; i < 37; ++i)
      for (int c = 0; c < 3; ++c)
        err = std::max(err, std::abs(a(i, c) - (b.extent(0) == 37u ? b(i, c) : b(nodes(i), c))));
    return err;
  };
  double scale = 0;
  for (int i = 0; i < 37; ++i)
    for (int c = 0; c < 3; ++c)
      scale = std::max(scale, std::abs(all(nodes(i), c)));
  REQUIRE(scale > 1e-2);
  // Exact: every neighbour, the layer-wise rows of those nodes (sums in another order).
  ttgnn::SubsetInferenceMemory mem;
  auto exact = subset({-1, -1, -1}, 0, &mem);
  CHECK(max_diff(exact, all) < 1e-6 * std::max(1.0, scale));
  CHECK(mem.max_input_rows > 10);
  CHECK(mem.max_input_rows <= n);
  CHECK(mem.max_batch_bytes > mem.max_input_rows * 12 * 8); // the input rows and more
  CHECK(mem.max_model_bytes > 0);                           // the model's part of it
  CHECK(mem.max_model_bytes < mem.max_batch_bytes);
  // Fan-outs above every degree sample every neighbour: exact too.
  auto wide = subset({max_degree + 1, max_degree + 1, max_degree + 1}, 3, nullptr);
  CHECK(max_diff(wide, all) < 1e-6 * std::max(1.0, scale));
  // Fan-out 2: sampled, a function of (seed, stream, batch): the same twice, not the exact rows.
  auto s1 = subset({2, 2, 2}, 5, nullptr), s2 = subset({2, 2, 2}, 5, nullptr);
  CHECK(max_diff(s1, s2) == 0.0);
  CHECK(max_diff(s1, all) > 1e-3 * scale);
  // In a workspace, exact or sampled: the same rows bit for bit, and once it holds the largest
  // batch a call allocates nothing.
  for (std::vector<std::int64_t> fanouts : {std::vector<std::int64_t>{-1, -1, -1}, {2, 2, 2}}) {
    auto sampler = sampler_in<ExecutionSpace>(data, fanouts, 17);
    const auto nodes_d = ids_in<ExecutionSpace>(nodes);
    ttgnn::SubsetInferenceWorkspace<double, ExecutionSpace> ws;
    ttgnn::SubsetInferenceMemory wmem;
    auto in_ws = Kokkos::create_mirror_view_and_copy(
        Kokkos::HostSpace(),
        ttgnn::sage_subset_inference(space, model, sampler, rows, nodes_d, 10, 5, &wmem, &ws));
    CHECK(max_diff(in_ws, subset(fanouts, 5, nullptr)) == 0.0);
    CHECK(wmem.workspace_bytes == ws.bytes());
    CHECK(wmem.workspace_bytes > wmem.max_input_rows * 12 * 8); // the input rows and more
    const auto again = ttgnn::test::EpochAllocations::during([&] {
      ttgnn::sage_subset_inference(space, model, sampler, rows, nodes_d, 10, 5, nullptr, &ws);
    });
    CHECK(again.empty());
  }
  // Errors: layers against fan-outs, batch size, repeated nodes.
  auto two = sampler_in<ExecutionSpace>(data, {-1, -1}, 0);
  const auto nodes_in = ids_in<ExecutionSpace>(nodes);
  CHECK_THROWS_AS(ttgnn::sage_subset_inference(space, model, two, rows, nodes_in, 10, 0),
                  ttgnn::ConfigError);
  auto three = sampler_in<ExecutionSpace>(data, {-1, -1, -1}, 0);
  CHECK_THROWS_AS(ttgnn::sage_subset_inference(space, model, three, rows, nodes_in, 0, 0),
                  ttgnn::ConfigError);
  HostIds twice("twice", 2);
  twice(0) = twice(1) = 5;
  CHECK_THROWS_AS(
      ttgnn::sage_subset_inference(space, model, three, rows, ids_in<ExecutionSpace>(twice), 10, 0),
      ttgnn::InputError);
}

TTGNN_TEST_ALL_SPACES("subset inference from L-hop neighbourhoods equals layer-wise on them") {
  check_subset_inference<ExecutionSpace>();
}

template <class ExecutionSpace> void check_inputs() {
  ExecutionSpace space;
  auto data = small_sbm(120, 0.8, 5, 2);
  using Input = ttgnn::MinibatchInput<double, ExecutionSpace>;
  using Mem = typename ExecutionSpace::memory_space;
  Kokkos::View<std::int64_t *, Mem> ids("ids", 4);
  auto hid = Kokkos::create_mirror_view(ids);
  const std::int64_t pick[4] = {3, 50, 7, 119};
  for (int i = 0; i < 4; ++i)
    hid(i) = pick[i];
  Kokkos::deep_copy(ids, hid);
  // Full table: only the looked-up rows change after a row-sparse Adam step.
  ttgnn::EmbeddingConfig o;
  o.dim = 6;
  o.tt_rank = 2;
  ttgnn::AdamOptions adam;
  adam.lr = 0.1;
  Input emb(space, data, ttgnn::InputKind::embedding, o, 0);
  emb.set_optimizer(space, adam, ttgnn::OptimizerKind::adam);
  CHECK(emb.dim() == 6);
  CHECK(emb.num_parameters() == 120 * 6);
  // A real copy (create_mirror_view would alias the table on host spaces).
  auto before = Kokkos::create_mirror(Kokkos::HostSpace(), emb.full()->table());
  Kokkos::deep_copy(before, emb.full()->table());
  ttgnn::Matrix<double, ExecutionSpace> rows("rows", 4, 6);
  emb.forward(space, ids, rows);
  auto hr = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rows);
  for (int i = 0; i < 4; ++i)
    for (int c = 0; c < 6; ++c)
      CHECK(hr(i, c) == before(pick[i], c));
  ttgnn::Matrix<double, ExecutionSpace> g("g", 4, 6);
  Kokkos::deep_copy(g, 1.0);
  emb.zero_grad(space);
  emb.backward(space, g);
  emb.step(space);
  auto after = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), emb.full()->table());
  for (int r = 0; r < 120; ++r) {
    const bool touched = r == 3 || r == 50 || r == 7 || r == 119;
    for (int c = 0; c < 6; ++c)
      if (touched) // first Adam step: w -= lr * sign(g)
        CHECK(after(r, c) == doctest::Approx(before(r, c) - 0.1).epsilon(1e-6));
      else
        CHECK(after(r, c) == before(r, c));
  }
  // feat+tt: features first, then the TT rows; the TT part gets the last columns' gradient.
  o.dim = 8;
  Input ft(space, data, ttgnn::InputKind::features_tt, o, 0);
  Input tt(space, data, ttgnn::InputKind::tt, o, 0); // same seed: same cores
  CHECK(ft.dim() == 13);
  ttgnn::Matrix<double, ExecutionSpace> a("a", 4, 13), b("b", 4, 8);
  ft.forward(space, ids, a);
  tt.forward(space, ids, b);
  auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
  const auto xf = ttgnn::dense_features(Kokkos::DefaultHostExecutionSpace(), data);
  for (int i = 0; i < 4; ++i) {
    for (int c = 0; c < 5; ++c)
      CHECK(ha(i, c) == doctest::Approx(xf(pick[i], c)));
    for (int c = 0; c < 8; ++c)
      CHECK(ha(i, 5 + c) == hb(i, c));
  }
  auto ga = random_matrix<ExecutionSpace>(4, 13, 1);
  ttgnn::Matrix<double, ExecutionSpace> gb("gb", 4, 8);
  Kokkos::deep_copy(gb, Kokkos::subview(ga, Kokkos::ALL, std::make_pair(5, 13)));
  ft.zero_grad(space);
  tt.zero_grad(space);
  ft.backward(space, ga);
  tt.backward(space, gb);
  auto same_core_gradients = [](Input const &p, Input const &q) {
    auto pg = p.tt()->gradients(), qg = q.tt()->gradients();
    REQUIRE(pg.size() == qg.size());
    for (std::size_t k = 0; k < pg.size(); ++k) {
      auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), pg[k]);
      auto y = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), qg[k]);
      for (std::size_t e = 0; e < x.extent(0); ++e)
        CHECK(x(e) == y(e));
    }
  };
  same_core_gradients(ft, tt);
  // Freeing the workspace kept for backward (before an evaluation): it returns what the memory
  // report counted, leaves nothing, and the next forward / backward gives the same gradients
  // as an input that never freed it.
  auto workspace = [](Input const &in) {
    ttgnn::ByteLedger f, t, opt, w;
    in.add_memory(f, t, opt, w);
    return w.bytes();
  };
  const std::int64_t held = workspace(ft);
  CHECK(held > 4 * 8 * 8); // the TT plan and the 4 x 8 embedding rows (double)
  CHECK(ft.release_workspace() == held);
  CHECK(workspace(ft) == 0);
  CHECK(ft.release_workspace() == 0);
  Input fresh(space, data, ttgnn::InputKind::features_tt, o, 0); // ft's cores (no step taken)
  for (Input *in : {&ft, &fresh}) {
    in->zero_grad(space);
    in->forward(space, ids, a);
    in->backward(space, ga);
  }
  CHECK(workspace(ft) == held);
  same_core_gradients(ft, fresh);
}

TTGNN_TEST_ALL_SPACES("mini-batch inputs: sparse rows, feat+tt columns") {
  check_inputs<ExecutionSpace>();
}

template <class ExecutionSpace> void check_training() {
  ExecutionSpace space;
  auto data = small_sbm(600, 0.9, 8, 1);
  ttgnn::MinibatchTrainOptions o;
  o.model.num_layers = 2;
  o.model.hidden = 16;
  o.fanouts = {5, 5};
  o.batch_size = 64;
  o.epochs = 6;
  o.lr = 0.01;
  o.model.dropout = 0.2;
  o.seed = 3;
  o.input = ttgnn::InputKind::features;
  auto r = ttgnn::train_minibatch(space, data, o);
  REQUIRE(r.history.size() == 6u);
  CHECK(r.batches_per_epoch == (360 + 63) / 64);
  CHECK(r.history[5].loss < r.history[0].loss);
  // 4 classes: chance is 0.25. h = 0.9 and separated features make the task easy; a 2-layer
  // SAGE gets > 0.9 on such graphs in a few epochs (ideal is ~1.0).
  CHECK(r.test_acc > 0.8);
  CHECK(r.best_epoch >= 1);
  CHECK(r.gnn_params == (8 * 16 * 2 + 16) + (16 * 4 * 2 + 4)); // W_self, W_neigh, b per layer
  // Same seed: the same run, loss for loss.
  auto r2 = ttgnn::train_minibatch(space, data, o);
  for (std::size_t e = 0; e < r.history.size(); ++e)
    CHECK(r2.history[e].loss == r.history[e].loss);
  // The same features as sparse rows: batches gather the same values, so the run is the same
  // loss for loss (and inference, which expands all rows, the same accuracy).
  auto sparse = data;
  sparse.sparse_features =
      ttgnn::to_sparse_features(Kokkos::DefaultHostExecutionSpace(), data.features);
  sparse.features = ttgnn::DenseFeatures();
  REQUIRE(sparse.num_features() == 8);
  auto r3 = ttgnn::train_minibatch(space, sparse, o);
  REQUIRE(r3.history.size() == r.history.size());
  for (std::size_t e = 0; e < r.history.size(); ++e)
    CHECK(r3.history[e].loss == r.history[e].loss);
  CHECK(r3.test_acc == r.test_acc);
  // A TT embedding (no features, 20x fewer parameters than the table) learns the homophilous
  // graph too (chance 0.25); only rows of the batches' input nodes are looked up.
  o.input = ttgnn::InputKind::tt;
  o.embedding.dim = 16;
  o.embedding.tt_rank = 4;
  o.embedding_lr = 0.02;
  o.epochs = 8;
  auto t = ttgnn::train_minibatch(space, data, o);
  CHECK(t.embedding_params > 0);
  CHECK(t.compression > 1.0);
  CHECK(t.history.back().loss < t.history.front().loss);
  CHECK(t.test_acc > 0.75); // seed 3: 0.94 on Serial
  // The training loop's schedule: a linear warm-up over 4 epochs scales both learning rates by
  // e/4 (the GNN's is recorded); it changes the run from the first update on.
  o.schedule.warmup_epochs = 4;
  auto w = ttgnn::train_minibatch(space, data, o);
  REQUIRE(w.history.size() == t.history.size());
  for (int e = 1; e <= 4; ++e)
    CHECK(w.history[e - 1].lr == doctest::Approx(o.lr * e / 4.0).epsilon(1e-15));
  CHECK(w.history[5].lr == o.lr);
  CHECK(w.history[0].loss != t.history[0].loss);
  o.schedule = {};
  // Early stopping with patience 1 on a learning rate of 0: no gain after the first evaluation.
  o.input = ttgnn::InputKind::features;
  o.lr = 0;
  o.patience = 1;
  o.max_batches = 1;
  auto s = ttgnn::train_minibatch(space, data, o);
  CHECK(s.stop == ttgnn::StopReason::early_stopping);
  CHECK(s.history.size() == 2u);
  CHECK(s.history[0].batches == 1);
  // Fan-outs must match the layers.
  o.fanouts = {5};
  CHECK_THROWS_AS(ttgnn::train_minibatch(space, data, o), ttgnn::ConfigError);
}

TTGNN_TEST_ALL_SPACES("mini-batch GraphSAGE learns a generated graph, deterministically") {
  check_training<ExecutionSpace>();
}

template <class ExecutionSpace> void check_eval_nodes_and_memory() {
  ExecutionSpace space;
  auto data = small_sbm(500, 0.9, 0, 4);
  ttgnn::MinibatchTrainOptions o;
  o.model.num_layers = 2;
  o.model.hidden = 16;
  o.fanouts = {5, 5};
  o.batch_size = 64;
  o.epochs = 2;
  o.lr = 0.01;
  o.seed = 8;
  o.input = ttgnn::InputKind::tt;
  o.embedding.dim = 16;
  o.embedding.tt_rank = 4;
  o.embedding_lr = 0.02;
  const auto all = ttgnn::train_minibatch(space, data, o);
  // Valid and test nodes from their full 2-hop neighbourhoods: the layer-wise logits of those
  // nodes up to float rounding in another summation order (relative ~1e-6), so the loss agrees
  // to 1e-4 and an accuracy by at most one node changing its arg-max on a near tie.
  o.eval_nodes = ttgnn::EvalNodes::valid_test;
  o.eval_batch_size = 50;
  const auto vt = ttgnn::train_minibatch(space, data, o);
  REQUIRE(vt.history.size() == all.history.size());
  const double nv = double(data.valid.extent(0)), nt = double(data.test.extent(0));
  for (std::size_t e = 0; e < vt.history.size(); ++e) {
    CHECK(vt.history[e].loss == all.history[e].loss); // training is untouched
    CHECK(vt.history[e].train_acc == -1.0);
    CHECK(std::abs(vt.history[e].valid_acc - all.history[e].valid_acc) <= 1.0 / nv + 1e-12);
    CHECK(std::abs(vt.history[e].test_acc - all.history[e].test_acc) <= 1.0 / nt + 1e-12);
    CHECK(vt.history[e].valid_loss == doctest::Approx(all.history[e].valid_loss).epsilon(1e-4));
  }
  CHECK(vt.test_acc > 0.35); // chance 0.25 (0.51 after these two epochs)
  // Test nodes only: no valid metric; every evaluation is selected, so the last one is kept.
  o.eval_nodes = ttgnn::EvalNodes::test;
  const auto t = ttgnn::train_minibatch(space, data, o);
  CHECK(t.valid_acc == -1.0);
  CHECK(t.best_epoch == 2);
  CHECK(std::abs(t.test_acc - all.history.back().test_acc) <= 1.0 / nt + 1e-12);
  // Sampled evaluation (fan-outs 2, 2): seeded, the same twice.
  o.eval_fanouts = {2, 2};
  const auto s1 = ttgnn::train_minibatch(space, data, o),
             s2 = ttgnn::train_minibatch(space, data, o);
  CHECK(s1.test_acc == s2.test_acc);
  o.eval_fanouts = {2};
  CHECK_THROWS_AS(ttgnn::train_minibatch(space, data, o), ttgnn::ConfigError);
  CHECK_THROWS_AS(ttgnn::parse_eval_nodes("train"), ttgnn::ConfigError);
  CHECK(ttgnn::parse_eval_nodes("valid+test") == ttgnn::EvalNodes::valid_test);
  // The memory report, from the sizes of the Views (float): TT cores and their gradients;
  // Adam's two moments of the GNN and of the cores; the GNN's weights and gradients; the graph
  // (host CSR, shared with the evaluation operator on host spaces, and 1 / degree).
  const auto &m = all.memory;
  const double mib = 1024.0 * 1024.0;
  const std::int64_t n = data.num_nodes(), arcs = data.graph.num_arcs();
  CHECK(m.peak_rss_mb == all.peak_rss_mb);
  CHECK(m.table_mb * mib == doctest::Approx(2.0 * 4 * all.embedding_params));
  CHECK(m.optimizer_mb * mib == doctest::Approx(2.0 * 4 * (all.embedding_params + all.gnn_params)));
  CHECK(m.parameters_mb * mib == doctest::Approx(2.0 * 4 * all.gnn_params));
  CHECK(m.features_mb == 0.0);
  const bool shared = Kokkos::SpaceAccessibility<ExecutionSpace, Kokkos::HostSpace>::accessible;
  CHECK(m.graph_mb * mib ==
        doctest::Approx(double((shared ? 1 : 2) * ((n + 1) * 8 + arcs * 4) + n * 4)));
  CHECK(m.activations_mb > 0);
  CHECK(m.sampler_mb * mib > 4.0 * n); // the per-node scratch and a batch
  CHECK(m.eval_mb > 0);
  // labels (int32) and split ids (int64), on the host and, when distinct, on the device
  const double splits = double(data.train.extent(0) + data.valid.extent(0) + data.test.extent(0));
  CHECK(m.nodes_mb * mib == doctest::Approx((shared ? 1 : 2) * (4.0 * n + 8.0 * splits)));
  CHECK(m.accounted_mb() < m.peak_rss_mb);
  CHECK(vt.memory.eval_mb > 0);
}

TTGNN_TEST_ALL_SPACES("mini-batch evaluation of valid/test nodes only, and the memory report") {
  check_eval_nodes_and_memory<ExecutionSpace>();
}

/// The bytes of a file.
std::vector<char> file_bytes(std::string const &path) {
  std::vector<char> b;
  std::FILE *f = std::fopen(path.c_str(), "rb");
  REQUIRE(f);
  for (int ch; (ch = std::fgetc(f)) != EOF;)
    b.push_back(static_cast<char>(ch));
  std::fclose(f);
  return b;
}

/// The original order stores no node -> row map (graph/order/ordering.hpp implicit_identity): no
/// row map and no output order must train exactly as the explicit identity maps, and leave no
/// N-entry array in the memory report.
template <class ExecutionSpace> void check_identity_rows() {
  ExecutionSpace space;
  const auto data = small_sbm(400, 0.85, 0, 9);
  const std::int64_t n = data.num_nodes();
  const auto dir = ttgnn::test::scratch_dir("identity_rows");
  ttgnn::MinibatchTrainOptions o;
  o.model.num_layers = 2;
  o.model.hidden = 16;
  o.fanouts = {4, 4};
  o.batch_size = 64;
  o.epochs = 2;
  o.lr = 0.01;
  o.model.dropout = 0.1;
  o.seed = 5;
  o.input = ttgnn::InputKind::tt;
  o.embedding.dim = 8;
  o.embedding.tt_rank = 3;
  o.embedding.init = ttgnn::InitMethod::gaussian;
  o.predictions_path = (dir / "implicit_logits.npy").string();
  o.embeddings_path = (dir / "implicit_emb.npy").string();
  const auto implicit = ttgnn::train_minibatch(space, data, o); // rows {}, output_order {}
  HostIds iota("iota", n);
  for (std::int64_t v = 0; v < n; ++v)
    iota(v) = v;
  o.predictions_path = (dir / "explicit_logits.npy").string();
  o.embeddings_path = (dir / "explicit_emb.npy").string();
  o.output_order = iota;
  const auto explicit_map = ttgnn::train_minibatch(space, data, o, iota, n);
  REQUIRE(implicit.history.size() == explicit_map.history.size());
  for (std::size_t e = 0; e < implicit.history.size(); ++e) {
    CHECK(implicit.history[e].loss == explicit_map.history[e].loss);
    CHECK(implicit.history[e].valid_loss == explicit_map.history[e].valid_loss);
  }
  CHECK(implicit.test_acc == explicit_map.test_acc);
  CHECK(implicit.embedding_params == explicit_map.embedding_params);
  CHECK(file_bytes((dir / "implicit_logits.npy").string()) ==
        file_bytes((dir / "explicit_logits.npy").string()));
  CHECK(file_bytes((dir / "implicit_emb.npy").string()) ==
        file_bytes((dir / "explicit_emb.npy").string()));
  // the table ledger: cores and their gradients, plus the N int64 map only when there is one
  const double mib = 1024.0 * 1024.0;
  CHECK(implicit.memory.table_mb * mib == doctest::Approx(2.0 * 4 * implicit.embedding_params));
  CHECK(explicit_map.memory.table_mb * mib ==
        doctest::Approx(2.0 * 4 * implicit.embedding_params + 8.0 * n));
}

TTGNN_TEST_ALL_SPACES("mini-batch TT input: no row map is the identity, bit for bit") {
  check_identity_rows<ExecutionSpace>();
}

} // namespace

/// Once the grow-only batch buffers cover the batches' sizes, mini-batch steps allocate no View:
/// GraphSAGE with BatchNorm, residuals and dropout on a TT input (sampled blocks of varying
/// sizes, a smaller last batch); evaluation off, so that every allocation counted is a training
/// step's. A buffer is allocated exactly the first time and grows by a quarter more than asked
/// after that: the first epoch allocates, the second at most regrows a buffer that a larger
/// batch outgrew, and from the third on nothing is allocated.
template <class ExecutionSpace> void check_steady_state_allocations() {
  ExecutionSpace space;
  auto data = small_sbm(600, 0.9, 0, 5);
  ttgnn::MinibatchTrainOptions o;
  o.model.num_layers = 3;
  o.model.hidden = 16;
  o.model.batch_norm = true;
  o.model.residual = true;
  o.model.dropout = 0.3;
  o.fanouts = {4, 4, 4};
  o.batch_size = 50;
  o.epochs = 5;
  o.evaluate = false;
  o.seed = 11;
  o.input = ttgnn::InputKind::tt;
  o.embedding.dim = 16;
  o.embedding.tt_rank = 4;
  ttgnn::test::EpochAllocations allocations;
  o.on_epoch = allocations.on_epoch();
  const auto r = allocations.record([&] { return ttgnn::train_minibatch(space, data, o); });
  auto const &epochs = allocations.epochs;
  REQUIRE(epochs.size() == 5);
  CHECK(r.batches_per_epoch == (360 + 49) / 50);
  using Count = ttgnn::test::EpochAllocations;
  CHECK(Count::total(epochs[0]) > 0); // the first epoch sizes the buffers
  CHECK(Count::total(epochs[1]) < Count::total(epochs[0]));
  allocations.check_none_from(2);
}

TTGNN_TEST_ALL_SPACES("steady-state mini-batch steps allocate no View") {
  check_steady_state_allocations<ExecutionSpace>();
}

/// As above with an evaluation after every epoch: layer-wise over every node (\p nodes = all)
/// or subset inference of the valid and test / the test nodes, exact or with sampled evaluation
/// fan-outs (\p eval_fanouts), on a TT input (with an explicit node -> row map when \p row_map),
/// a full table (row-sparse gradient) or node features; the metric and the validation loss
/// included. Evaluation's buffers are grow-only too, kept from one evaluation to the next: the
/// first epoch allocates, and from the third on nothing is.
template <class ExecutionSpace>
void check_steady_state_eval_allocations(ttgnn::EvalNodes nodes, ttgnn::InputKind input,
                                         std::vector<std::int64_t> eval_fanouts = {},
                                         bool row_map = false) {
  INFO("evaluation of " << ttgnn::to_string(nodes) << " on input " << ttgnn::to_string(input)
                        << (row_map ? " with a row map" : "")
                        << (eval_fanouts.empty() ? ", all neighbours" : ", sampled"));
  ExecutionSpace space;
  const bool features = input == ttgnn::InputKind::features;
  auto data = small_sbm(600, 0.9, features ? 8 : 0, 5);
  const std::int64_t n = data.num_nodes();
  ttgnn::MinibatchTrainOptions o;
  o.model.num_layers = 3;
  o.model.hidden = 16;
  o.model.batch_norm = true;
  o.model.residual = true;
  o.model.dropout = 0.3;
  o.fanouts = {4, 4, 4};
  o.batch_size = 50;
  o.epochs = 5;
  o.eval_every = 1;
  o.eval_nodes = nodes;
  o.eval_fanouts = std::move(eval_fanouts);
  o.eval_batch_size = 40;
  o.eval_chunk = 150; // several chunks of layer-wise inference
  o.seed = 11;
  o.input = input;
  o.embedding.dim = 16;
  o.embedding.tt_rank = 4;
  HostIds rows("rows", row_map ? n : 0); // node v reads embedding row n - 1 - v
  for (std::int64_t v = 0; v < static_cast<std::int64_t>(rows.extent(0)); ++v)
    rows(v) = n - 1 - v;
  ttgnn::test::EpochAllocations allocations;
  o.on_epoch = allocations.on_epoch();
  const auto r = allocations.record([&] {
    return row_map ? ttgnn::train_minibatch(space, data, o, rows, n)
                   : ttgnn::train_minibatch(space, data, o);
  });
  auto const &epochs = allocations.epochs;
  REQUIRE(epochs.size() == 5);
  for (auto const &rec : r.history)
    CHECK(rec.evaluated);
  CHECK(ttgnn::test::EpochAllocations::total(epochs[0]) > 0); // the first epoch sizes the buffers
  allocations.check_none_from(2);
}

TTGNN_TEST_ALL_SPACES("steady-state mini-batch epochs with layer-wise evaluation allocate no "
                      "View") {
  using ttgnn::EvalNodes;
  using ttgnn::InputKind;
  check_steady_state_eval_allocations<ExecutionSpace>(EvalNodes::all, InputKind::tt);
  check_steady_state_eval_allocations<ExecutionSpace>(EvalNodes::all, InputKind::tt, {}, true);
  check_steady_state_eval_allocations<ExecutionSpace>(EvalNodes::all, InputKind::embedding);
  check_steady_state_eval_allocations<ExecutionSpace>(EvalNodes::all, InputKind::features);
}

TTGNN_TEST_ALL_SPACES("steady-state mini-batch epochs with subset evaluation allocate no View") {
  using ttgnn::EvalNodes;
  using ttgnn::InputKind;
  check_steady_state_eval_allocations<ExecutionSpace>(EvalNodes::valid_test, InputKind::tt);
  check_steady_state_eval_allocations<ExecutionSpace>(EvalNodes::valid_test, InputKind::features);
  check_steady_state_eval_allocations<ExecutionSpace>(EvalNodes::valid_test, InputKind::tt,
                                                      {3, 3, 3});
  check_steady_state_eval_allocations<ExecutionSpace>(EvalNodes::test, InputKind::tt);
  check_steady_state_eval_allocations<ExecutionSpace>(EvalNodes::test, InputKind::features,
                                                      {3, 3, 3});
}
