// Training-speed benchmarks (JSON lines on stdout; bench/run_scale_speed.sh runs every
// full-batch configuration; bench/pyg_peer.py takes the same exported data).
//
//   bench_train --mode export --out DIR [--nodes 1000000 --avg-degree 40 --features 128
//               --classes 16 --seed 0]
//       generates a DC-SBM graph and writes DIR/{row_map,entries,features,labels,train}.npy
//       (CSR of the symmetric graph without self loops, float32 features, int64 ids).
//   bench_train --mode full --data DIR [--model gcn|sage --input feat|emb|tt --dim 64
//               --tt-rank 8 --hidden 256 --layers 3 --epochs 10 --warmup 2]  (the defaults)
//       full-batch training epochs on the exported data (forward, backward, Adam on the weights
//       and on the embedding table or TT cores): median
//       epoch time, peak RSS and the memory breakdown. emb is a full N x dim table (dense
//       gradient), tt a 3-core TT table of rank tt-rank (row of node v = v). --mode gcn is
//       --mode full --model gcn.
//   bench_train --mode bandwidth --data DIR [--hidden 128 --reps 10 --triad-mb 800
//               --orders original,rcm,lp-hier]
//       a STREAM-like triad a[i] = b[i] + s*c[i] (doubles, best of reps, 3 x 8 bytes per
//       element) and the SpMM of the GCN layer (gcn_norm of the graph times an N x hidden
//       float matrix, median of reps), in the same process: the SpMM's bytes (CSR row_map +
//       entries + values, X, Y) / time as a fraction of the triad's bandwidth, one line per
//       node order (the graph relabelled by it). DIR: written by --mode export, or a dataset
//       in the OGB raw layout.
//   bench_train --mode sage-minibatch [--nodes 2449029 --avg-degree 50.5 --features 100
//               --classes 47 --train 0.08 --batch-size 1000 --fanout 5,10,15 --hidden 256
//               --layers 3 --max-batches 40 --input feat|emb|tt --eval] [--data DIR --dim 64
//               --tt-rank 8]
//       ogbn-products-scale mini-batch GraphSAGE (generated in memory): median batch time over
//       the first max-batches batches, the full epoch extrapolated from it (the epoch has
//       ceil(train / batch) batches), sampling share, mean training loss of those batches, peak
//       RSS; --eval adds one layer-wise full-neighbour inference pass over all nodes. Fan-outs
//       input layer first (PyG's num_neighbors is the reverse); layers = number of fan-outs.
//       With --data DIR it trains on the graph of --mode export instead of generating one (the
//       peer bench/pyg_peer.py runs the same fan-outs and batch size on it), with an emb / tt
//       input of width --dim and TT rank --tt-rank (without --data: width 100, rank 8); --eval
//       needs a valid and test split, which an export does not have. The step against its
//       FLOP bound: the mean block sizes of 10 batches sampled as the trainer samples
//       (block_dst/src/edges_mean, input layer first), the step's GEMM FLOPs (per layer two
//       forward, four backward, two at a feature input), the other FLOPs (aggregation,
//       bias, ReLU), the TT chain's FLOPs (3x the forward chain per input row), the least bytes
//       moved, the rate of ttgnn::gemm at the input layer's shape (dst x hidden x hidden), and
//       step_over_flop_bound = median step / (all FLOPs at that rate).
#include "apps/cli_options.hpp"
#include "core/runtime/byte_ledger.hpp"
#include "core/error.hpp"
#include "core/io/json_writer.hpp"
#include "core/kokkos_compat.hpp"
#include "core/runtime/memory_breakdown.hpp"
#include "core/runtime/peak_memory.hpp"
#include "core/linalg/dense_gemm.hpp"
#include "core/linalg/spmm.hpp"
#include "core/tt/tt_init.hpp"
#include "core/tt/tt_shape.hpp"
#include "graph/neighbor_sampler.hpp"
#include "graph/io/npy_reader.hpp"
#include "graph/io/ogb_loader.hpp"
#include "graph/order/locality.hpp"
#include "graph/order/ordering.hpp"
#include "graph/permutation.hpp"
#include "graph/synth/sbm_dataset.hpp"
#include "models/train/full_batch_trainer.hpp"
#include "models/layers/gcn_norm.hpp"
#include "models/train/minibatch_trainer.hpp"
#include "models/embedding/node_input.hpp"
#include "graph/io/npy_writer.hpp"
#include "models/layers/parameter_init.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <random>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace {

using Space = Kokkos::DefaultExecutionSpace;
using Clock = std::chrono::steady_clock;
using HostIds = Kokkos::View<std::int64_t *, Kokkos::HostSpace>;

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty()      ? 0
         : v.size() % 2 ? v[v.size() / 2]
                        : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

ttgnn::SbmConfig sbm_config(ttgnn::cli::Options const &o) {
  ttgnn::SbmConfig c;
  c.num_nodes = o.get_int("nodes");
  c.avg_degree = o.get_double("avg-degree");
  c.num_features = static_cast<int>(o.get_int("features"));
  c.num_classes = static_cast<int>(o.get_int("classes"));
  c.homophily = o.get_double("homophily");
  c.communities = static_cast<int>(o.get_int("communities"));
  c.train_fraction = o.get_double("train");
  c.valid_fraction = o.get_double("valid");
  c.seed = static_cast<std::uint64_t>(o.get_int("seed"));
  return c;
}

template <class View> void write_ids(std::string const &path, View const &v) {
  ttgnn::NpyWriter w(path, "<i8", {static_cast<std::int64_t>(v.extent(0))});
  std::vector<std::int64_t> buf(v.extent(0));
  for (std::size_t i = 0; i < v.extent(0); ++i)
    buf[i] = static_cast<std::int64_t>(v(i));
  w.write(buf.data(), buf.size());
  w.commit();
}

HostIds read_ids(std::string const &path) {
  auto r = ttgnn::NpyReader::open_file(path);
  HostIds out(Kokkos::view_alloc(Kokkos::WithoutInitializing, path), r.remaining());
  r.read(out.data(), out.extent(0));
  return out;
}

/// One-minute load average, -1 when unknown.
double load_average() {
  double l = -1;
  std::ifstream f("/proc/loadavg");
  if (!(f >> l))
    l = -1;
  return l;
}

/// The comma-separated items of \p list.
std::vector<std::string> split_list(std::string const &list) {
  std::vector<std::string> out;
  std::size_t begin = 0;
  while (begin <= list.size()) {
    const std::size_t end = std::min(list.find(',', begin), list.size());
    out.push_back(list.substr(begin, end - begin));
    begin = end + 1;
  }
  return out;
}

/// The exported graph (int32 entries) read back from DIR.
ttgnn::Dataset<std::int32_t> read_graph(std::string const &dir) {
  ttgnn::Dataset<std::int32_t> data;
  data.graph.row_map = read_ids(dir + "/row_map.npy");
  const HostIds e = read_ids(dir + "/entries.npy");
  data.graph.entries = Kokkos::View<std::int32_t *, Kokkos::HostSpace>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "entries"), e.extent(0));
  for (std::size_t k = 0; k < e.extent(0); ++k)
    data.graph.entries(k) = static_cast<std::int32_t>(e(k));
  return data;
}

int run_export(ttgnn::cli::Options const &o) {
  const std::string dir = o.get("out");
  ::mkdir(dir.c_str(), 0755);
  const auto t0 = Clock::now();
  const auto data = ttgnn::make_sbm_dataset(Kokkos::DefaultHostExecutionSpace(), sbm_config(o));
  const double gen = since(t0);
  write_ids(dir + "/row_map.npy", data.graph.row_map);
  write_ids(dir + "/entries.npy", data.graph.entries);
  write_ids(dir + "/labels.npy", data.labels);
  write_ids(dir + "/train.npy", data.train);
  ttgnn::NpyWriter f(dir + "/features.npy", "<f4",
                     {data.num_nodes(), static_cast<std::int64_t>(data.features.extent(1))});
  f.write(data.features.data(), data.features.size());
  f.commit();
  ttgnn::JsonWriter j;
  j.field("bench", "export");
  j.field("nodes", static_cast<long long>(data.num_nodes()));
  j.field("arcs", static_cast<long long>(data.graph.num_arcs()));
  j.field("features", static_cast<long long>(data.features.extent(1)));
  j.field("classes", data.num_classes);
  j.field("generate_s", gen);
  j.field("total_s", since(t0));
  std::cout << j.str() << std::endl;
  return 0;
}

int run_full(ttgnn::cli::Options const &o, std::string const &model_name) {
  using namespace ttgnn;
  using Scalar = float;
  const std::string dir = o.get("data");
  const InputKind kind = parse_input_kind(o.get("input"));
  if (kind != InputKind::features && kind != InputKind::embedding && kind != InputKind::tt)
    throw ConfigError("--input: expected feat, emb or tt");
  Space space;
  Dataset<std::int32_t> data = read_graph(dir);
  const HostIds labels64 = read_ids(dir + "/labels.npy");
  const HostIds train = read_ids(dir + "/train.npy");
  const std::int64_t n = data.num_nodes();
  NodeInput<Scalar, Space> input(n);
  Matrix<Scalar, Space> x;
  if (kind == InputKind::features) { // the features are read only when they are the input
    auto fr = NpyReader::open_file(dir + "/features.npy");
    x = Matrix<Scalar, Space>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "features"), n,
                              fr.header().shape.at(1));
    auto hx = Kokkos::create_mirror_view(x);
    fr.read(hx.data(), hx.size());
    Kokkos::deep_copy(x, hx);
    input.set_features(x);
  }
  const std::int64_t dim = o.get_int("dim");
  std::string tt_shape;
  if (kind == InputKind::embedding) {
    FullEmbeddingOptions fo;
    fo.gradient = FullGradient::dense;
    auto table = std::make_shared<FullEmbedding<Scalar, Space>>(n, dim, fo);
    uniform_fill(Kokkos::View<Scalar *, Space::memory_space>(table->table().data(), n * dim), 0.1,
                 1);
    input.set_full_embedding(table);
  } else if (kind == InputKind::tt) {
    const TtShape shape = make_tt_shape(n, dim, o.get_int("tt-rank"), 3);
    tt_shape = shape.to_string();
    auto table = std::make_shared<TtEmbedding<Scalar, Space>>(shape);
    table->set_cores_from_host(space, tt_init_gaussian(shape, 0.01, 1));
    HostIds rows(Kokkos::view_alloc(Kokkos::WithoutInitializing, "rows"), n);
    for (std::int64_t i = 0; i < n; ++i)
      rows(i) = i;
    input.set_tt_embedding(table, rows);
  }
  Kokkos::View<std::int32_t *, Space::memory_space> labels("labels", n);
  int classes = 0;
  {
    auto hl = Kokkos::create_mirror_view(labels);
    for (std::int64_t i = 0; i < n; ++i) {
      hl(i) = static_cast<std::int32_t>(labels64(i));
      classes = std::max(classes, hl(i) + 1);
    }
    Kokkos::deep_copy(labels, hl);
  }
  auto train_d = Kokkos::create_mirror_view_and_copy(Space::memory_space(), train);
  GnnConfig cfg;
  cfg.kind = parse_gnn_kind(model_name);
  const auto t_norm = Clock::now();
  auto a = cfg.kind == GnnKind::gcn ? gcn_norm<Scalar>(space, data.graph)
                                    : mean_aggregation<Scalar>(space, data.graph);
  const double norm_s = since(t_norm);
  cfg.in_features = input.dim();
  cfg.hidden = o.get_int("hidden");
  cfg.out_features = classes;
  cfg.num_layers = static_cast<int>(o.get_int("layers"));
  cfg.dropout = 0.5;
  cfg.input_dropout = 0.5;
  GnnModel<Scalar, Space> model(cfg);
  TrainOptions t;
  t.lr = 0.01;
  t.weight_decay = 5e-4;
  FullBatchTrainer<Scalar, Space> trainer(space, model, input, a, labels, train_d, train_d, train_d,
                                          t);
  const int warmup = static_cast<int>(o.get_int("warmup")),
            epochs = static_cast<int>(o.get_int("epochs"));
  std::vector<double> times;
  double loss = 0;
  for (int e = 0; e < warmup + epochs; ++e) {
    const auto t0 = Clock::now();
    loss = trainer.train_step();
    space.fence();
    if (e >= warmup)
      times.push_back(since(t0));
  }
  JsonWriter j;
  j.field("bench", "full_batch_epoch");
  j.field("impl", "ttgnn");
  j.field("model", model_name);
  j.field("input", to_string(kind));
  j.field("threads", compat::concurrency(Kokkos::DefaultHostExecutionSpace()));
  j.field("nodes", static_cast<long long>(n));
  j.field("arcs", static_cast<long long>(data.graph.num_arcs()));
  j.field("in_features", static_cast<long long>(cfg.in_features));
  if (!tt_shape.empty())
    j.field("tt_shape", tt_shape);
  j.field("hidden", static_cast<long long>(cfg.hidden));
  j.field("layers", cfg.num_layers);
  j.field("classes", classes);
  j.field("epochs", epochs);
  j.field("epoch_s_median", median(times));
  j.field("epoch_s", times);
  j.field("last_loss", loss);
  j.field("norm_s", norm_s);
  j.field("loadavg_1min", load_average());
  j.field("peak_rss_mb", peak_rss_mb());
  {
    ByteLedger graph, features;
    graph.add(data.graph.row_map).add(data.graph.entries);
    if (x.extent(0))
      features.add(x);
    j.raw("memory", to_json(trainer.memory(graph, features)));
  }
  std::cout << j.str() << std::endl;
  return 0;
}

/// Best-of-reps STREAM triad a = b + s c over doubles, then the median SpMM of gcn_norm(A)
/// times an N x hidden float matrix; one JSON line with both and the bandwidth fraction.
int run_bandwidth(ttgnn::cli::Options const &o) {
  using namespace ttgnn;
  using Scalar = float;
  Space space;
  const int reps = static_cast<int>(o.get_int("reps"));
  const std::int64_t len = o.get_int("triad-mb") * 1000000 / 24; // three arrays of doubles
  using Doubles = Kokkos::View<double *, Space::memory_space>;
  Doubles ta("triad_a", len), tb("triad_b", len), tc("triad_c", len);
  Kokkos::deep_copy(tb, 1.0);
  Kokkos::deep_copy(tc, 2.0);
  double triad_best = 1e300;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = Clock::now();
    Kokkos::parallel_for(
        "bench_train::triad", Kokkos::RangePolicy<Space>(space, 0, len),
        KOKKOS_LAMBDA(std::int64_t i) { ta(i) = tb(i) + 3.0 * tc(i); });
    space.fence();
    triad_best = std::min(triad_best, since(t0));
  }
  const double triad_bytes = 3.0 * 8.0 * static_cast<double>(len);
  const double triad_gbs = triad_bytes / triad_best / 1e9;
  ta = tb = tc = Doubles(); // freed before the graph is read

  const std::string dir = o.get("data");
  std::ifstream probe(dir + "/row_map.npy");
  const Dataset<std::int32_t> data = probe ? read_graph(dir) : load_ogb<std::int32_t>(dir);
  const std::int64_t f = o.get_int("hidden");
  for (std::string const &name : split_list(o.get("orders"))) {
    // the graph relabelled by the order (the SpMM's locality), as the pipeline would
    OrderingOptions oo;
    oo.method = parse_order_method(name);
    oo.seed = static_cast<std::uint64_t>(o.get_int("seed"));
    const NodeOrdering ord = compute_ordering(Kokkos::DefaultHostExecutionSpace(), data.graph, oo);
    const auto graph =
        oo.method == OrderMethod::original
            ? data.graph
            : permute_graph(Kokkos::DefaultHostExecutionSpace(), data.graph, ord.permutation);
    const auto a = gcn_norm<Scalar>(space, graph);
    const std::int64_t n = a.num_rows, nnz = a.num_nonzeros();
    Matrix<Scalar, Space> x("spmm_x", n, f), y("spmm_y", n, f);
    Kokkos::deep_copy(x, Scalar(1));
    std::vector<double> times;
    for (int r = 0; r < reps + 1; ++r) {
      const auto t0 = Clock::now();
      a.apply(space, x, y);
      space.fence();
      if (r > 0)
        times.push_back(since(t0));
    }
    const double spmm_s = median(times);
    // The least an SpMM moves: the CSR once (int64 row_map, int32 entries, float values), X
    // read once, Y written once.
    const double spmm_bytes = 8.0 * static_cast<double>(n + 1) + (4.0 + sizeof(Scalar)) * nnz +
                              2.0 * sizeof(Scalar) * static_cast<double>(n * f);
    const double spmm_gbs = spmm_bytes / spmm_s / 1e9;
    JsonWriter j;
    j.field("bench", "bandwidth");
    j.field("impl", "ttgnn");
    j.field("data", dir);
    j.field("order", name);
    j.field("order_s", ord.seconds);
    // same-block arcs for blocks of rows filling 1 MiB (graph/order/locality.hpp)
    j.field("block_locality",
            block_locality(data.graph, std::max<std::int64_t>(1, (1 << 20) / (4 * f)),
                           ord.permutation.old_to_new));
    j.field("threads", compat::concurrency(Kokkos::DefaultHostExecutionSpace()));
    j.field("triad_elements", static_cast<long long>(len));
    j.field("triad_best_s", triad_best);
    j.field("triad_gb_per_s", triad_gbs);
    j.field("nodes", static_cast<long long>(n));
    j.field("nonzeros", static_cast<long long>(nnz));
    j.field("cols", static_cast<long long>(f));
    j.field("spmm_s_median", spmm_s);
    j.field("spmm_s", times);
    j.field("spmm_bytes", spmm_bytes);
    j.field("spmm_gb_per_s", spmm_gbs);
    j.field("spmm_fraction_of_triad", spmm_gbs / triad_gbs);
    j.field("loadavg_1min", load_average());
    std::cout << j.str() << std::endl;
  }
  return 0;
}

/// The graph, features, labels and training nodes written by --mode export, as a Dataset.
ttgnn::Dataset<std::int32_t> read_dataset(std::string const &dir) {
  ttgnn::Dataset<std::int32_t> data = read_graph(dir);
  data.name = dir;
  const std::int64_t n = data.num_nodes();
  auto fr = ttgnn::NpyReader::open_file(dir + "/features.npy");
  data.features = ttgnn::DenseFeatures(Kokkos::view_alloc(Kokkos::WithoutInitializing, "features"),
                                       n, fr.header().shape.at(1));
  fr.read(data.features.data(), data.features.size());
  const HostIds labels = read_ids(dir + "/labels.npy");
  data.labels = Kokkos::View<std::int32_t *, Kokkos::HostSpace>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "labels"), n);
  for (std::int64_t i = 0; i < n; ++i) {
    data.labels(i) = static_cast<std::int32_t>(labels(i));
    data.num_classes = std::max(data.num_classes, data.labels(i) + 1);
  }
  data.train = read_ids(dir + "/train.npy");
  return data;
}

/// The work of one mini-batch GraphSAGE step, from the mean sizes of sampled blocks (the
/// model's SAGEConv: y = x_dst W_self + mean(x_src over sampled arcs) W_neigh + b).
struct StepWork {
  std::vector<double> dst, src, edges; ///< per layer, input layer first: mean over batches
  double gemm_flops = 0;               ///< forward 2 GEMMs, backward 4 (2 at a feature input)
  double other_flops = 0;              ///< aggregation forward + backward, bias, ReLU
  double tt_flops = 0; ///< TT rows: the plain chain G1 G2 G3 per input row, x 3 (backward 2x)
  double bytes = 0;    ///< least traffic: input rows, activations written and read back, weights
};

/// Samples \p batches batches of \p m.batch_size training seeds (seeded shuffle) with the
/// trainer's sampler and counts the work of one step; widths in_width -> hidden ... -> classes.
StepWork step_work(ttgnn::Dataset<std::int32_t> const &data, ttgnn::MinibatchTrainOptions const &m,
                   std::int64_t in_width, int classes, ttgnn::TtShape const *tt, int batches) {
  using namespace ttgnn;
  const int L = m.model.num_layers;
  NeighborSampler<std::int32_t, Kokkos::HostSpace> sampler(data.graph, m.fanouts, 11);
  std::vector<std::int64_t> train(data.train.data(), data.train.data() + data.train.extent(0));
  std::mt19937_64 rng(12);
  std::shuffle(train.begin(), train.end(), rng);
  StepWork w;
  w.dst.assign(L, 0);
  w.src.assign(L, 0);
  w.edges.assign(L, 0);
  const std::int64_t b = std::min<std::int64_t>(m.batch_size, train.size());
  batches = static_cast<int>(std::min<std::int64_t>(batches, train.size() / b));
  for (int k = 0; k < batches; ++k) {
    HostIds seeds("ttgnn::bench::seeds", b);
    for (std::int64_t i = 0; i < b; ++i)
      seeds(i) = train[k * b + i];
    const auto batch = sampler.sample(Kokkos::DefaultHostExecutionSpace(), seeds, 0, k);
    for (int l = 0; l < L; ++l) {
      w.dst[l] += double(batch.blocks[l].num_dst) / batches;
      w.src[l] += double(batch.blocks[l].num_src) / batches;
      w.edges[l] += double(batch.blocks[l].num_edges()) / batches;
    }
  }
  const bool needs_input_grad = tt != nullptr || m.input != InputKind::features;
  for (int l = 0; l < L; ++l) {
    const double fi = l == 0 ? double(in_width) : double(m.model.hidden);
    const double fo = l + 1 == L ? double(classes) : double(m.model.hidden);
    const double gemm = 2 * 2.0 * w.dst[l] * fi * fo; // x_dst W_self and agg W_neigh
    w.gemm_flops += gemm * ((l > 0 || needs_input_grad) ? 3 : 2);
    w.other_flops += 2.0 * (w.edges[l] + w.dst[l]) * fi + 3.0 * w.dst[l] * fo;
    // float rows: x_src read, agg and y written, each once more in backward; int32 local ids
    // (forward, backward); the two weights: read twice, gradient written, Adam's 7 passes
    w.bytes += 4.0 * 2 * (w.src[l] * fi + w.dst[l] * fi + w.dst[l] * fo) + 4.0 * 2 * w.edges[l] +
               4.0 * 2 * fi * fo * 10;
  }
  if (tt) { // row = G1[i1] (1 x d1 r1) . G2[i2] (r1 x d2 r2) . G3[i3] (r2 x d3)
    auto const &d = tt->d;
    auto const &r = tt->ranks;
    const double chain = 2.0 * d[0] * r[1] * d[1] * r[2] + 2.0 * d[0] * d[1] * r[2] * d[2];
    w.tt_flops = 3 * chain * w.src[0];
  }
  return w;
}

/// GFLOP/s of ttgnn::gemm (OpenBLAS on host) on an m x k times k x n float product.
double gemm_rate(std::int64_t m, std::int64_t k, std::int64_t n, int reps) {
  Space space;
  ttgnn::Matrix<float, Space> a("ttgnn::bench::a", m, k), b("ttgnn::bench::b", k, n),
      c("ttgnn::bench::c", m, n);
  Kokkos::deep_copy(a, 0.5f);
  Kokkos::deep_copy(b, 0.25f);
  std::vector<double> t;
  for (int r = 0; r < reps + 1; ++r) {
    const auto t0 = Clock::now();
    ttgnn::gemm(space, 'N', 'N', 1.0f, a, b, 0.0f, c);
    space.fence();
    if (r > 0)
      t.push_back(since(t0));
  }
  return 2.0 * m * k * n / median(t) * 1e-9;
}

int run_sage(ttgnn::cli::Options const &o) {
  using namespace ttgnn;
  const bool from_file = !o.get("data").empty();
  const auto t0 = Clock::now();
  const auto data = from_file
                        ? read_dataset(o.get("data"))
                        : make_sbm_dataset(Kokkos::DefaultHostExecutionSpace(), sbm_config(o));
  const double gen = since(t0);
  const double rss_data = peak_rss_mb();
  std::fprintf(stderr, "bench_train: %s %lld nodes, %lld arcs in %.1f s (peak RSS %.0f MB)\n",
               from_file ? "read" : "generated", static_cast<long long>(data.num_nodes()),
               static_cast<long long>(data.graph.num_arcs()), gen, rss_data);
  MinibatchTrainOptions m;
  m.model.num_layers = static_cast<int>(o.get_int("layers"));
  m.model.hidden = o.get_int("hidden");
  m.model.dropout = 0.5;
  m.fanouts = parse_fanouts(o.get("fanout"));
  m.batch_size = o.get_int("batch-size");
  m.epochs = 1;
  m.lr = 0.003;
  m.embedding_lr = 0.01;
  m.evaluate = false;
  m.max_batches = o.get_int("max-batches");
  m.input = parse_input_kind(o.get("input"));
  m.embedding.dim = from_file ? o.get_int("dim") : 100;
  m.embedding.tt_rank = from_file ? o.get_int("tt-rank") : 8;
  m.embedding.init = InitMethod::gaussian;
  m.embedding.init_std = 1.0; // the workload timed since the first releases: N(0, 1) entries,
  m.embedding.tt_slack = 1.0; // row factors covering exactly N
  const auto t1 = Clock::now();
  std::vector<double> sample_share;
  m.on_epoch = [&](EpochRecord const &e) {
    sample_share.push_back(e.sample_seconds / e.train_seconds);
    std::fprintf(stderr,
                 "bench_train: %lld batches in %.2f s (sampling %.2f s), %lld sampled "
                 "edges, %lld input rows\n",
                 static_cast<long long>(e.batches), e.train_seconds, e.sample_seconds,
                 static_cast<long long>(e.sampled_edges), static_cast<long long>(e.input_rows));
  };
  const MinibatchResult r = train_minibatch(Space(), data, m);
  m.on_epoch = {};
  const double train_s = since(t1);
  JsonWriter j;
  j.field("bench", "sage_minibatch_epoch");
  j.field("impl", "ttgnn");
  j.field("threads", compat::concurrency(Kokkos::DefaultHostExecutionSpace()));
  j.field("nodes", static_cast<long long>(data.num_nodes()));
  j.field("arcs", static_cast<long long>(data.graph.num_arcs()));
  j.field("features", static_cast<long long>(data.num_features()));
  j.field("train_nodes", static_cast<long long>(data.train.extent(0)));
  j.field("input", o.get("input"));
  if (from_file) {
    j.field("data", o.get("data"));
    j.field("dim", static_cast<long long>(m.embedding.dim));
    j.field("tt_rank", static_cast<long long>(m.embedding.tt_rank));
  }
  if (!r.tt_shape.empty())
    j.field("tt_shape", r.tt_shape);
  j.field("fanouts", m.fanouts);
  j.field("batch_size", static_cast<long long>(m.batch_size));
  j.field("hidden", static_cast<long long>(m.model.hidden));
  j.field("batches_timed", static_cast<long long>(r.history.at(0).batches));
  j.field("batches_per_epoch", static_cast<long long>(r.batches_per_epoch));
  j.field("batch_s_median", r.batch_time_s);
  j.field("epoch_s_extrapolated", r.batch_time_s * static_cast<double>(r.batches_per_epoch));
  j.field("sampling_share", sample_share.empty() ? 0.0 : sample_share[0]);
  j.field("train_loss_mean", r.history.at(0).loss);
  { // the step against its FLOP bound: the work of the sampled blocks at the GEMM rate
    const TtShape shape =
        m.input == InputKind::tt
            ? make_tt_shape(data.num_nodes(), m.embedding.dim, m.embedding.tt_rank)
            : TtShape();
    const std::int64_t in_width =
        m.input == InputKind::features ? data.num_features() : m.embedding.dim;
    const StepWork w = step_work(data, m, in_width, data.num_classes,
                                 m.input == InputKind::tt ? &shape : nullptr, 10);
    const double rate =
        gemm_rate(static_cast<std::int64_t>(w.dst[0]), m.model.hidden, m.model.hidden, 5);
    const double flops = w.gemm_flops + w.other_flops + w.tt_flops;
    j.field("block_dst_mean", w.dst);
    j.field("block_src_mean", w.src);
    j.field("block_edges_mean", w.edges);
    j.field("step_gemm_gflop", w.gemm_flops * 1e-9);
    j.field("step_other_gflop", w.other_flops * 1e-9);
    j.field("step_tt_gflop", w.tt_flops * 1e-9);
    j.field("step_mbytes", w.bytes * 1e-6);
    j.field("gemm_gflops", rate);
    j.field("step_flop_bound_s", flops * 1e-9 / rate);
    j.field("step_over_flop_bound", r.batch_time_s / (flops * 1e-9 / rate));
  }
  j.field(from_file ? "read_s" : "generate_s", gen);
  j.field("train_s", train_s);
  j.field("peak_rss_after_generation_mb", rss_data);
  j.field("peak_rss_mb", r.peak_rss_mb);
  j.raw("memory", to_json(r.memory));
  if (o.get_flag("eval")) {
    // One layer-wise inference pass with the (briefly trained) model: the evaluation cost.
    m.max_batches = 1;
    m.evaluate = true;
    const auto t2 = Clock::now();
    const MinibatchResult e = train_minibatch(Space(), data, m);
    j.field("eval_s", e.history.at(0).eval_seconds);
    j.field("eval_run_s", since(t2));
    j.field("peak_rss_with_eval_mb", peak_rss_mb());
    j.raw("memory_with_eval", to_json(e.memory));
  }
  std::cout << j.str() << std::endl;
  return 0;
}

} // namespace

int main(int argc, char *argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  ttgnn::cli::Options o("bench_train");
  o.value("mode", "export | full | gcn | bandwidth | sage-minibatch", "", true)
      .value("out", "export: output folder", "")
      .value("data",
             "full, sage: folder written by --mode export; bandwidth: that or an OGB raw folder",
             "")
      .value("nodes", "generated nodes", "2449029")
      .value("avg-degree", "generated average degree", "50.5")
      .value("features", "feature dimension", "100")
      .value("classes", "classes", "47")
      .value("homophily", "edge homophily", "0.8")
      .value("communities", "communities per class", "8")
      .value("train", "train fraction", "0.08")
      .value("valid", "valid fraction", "0.02")
      .value("seed", "seed", "0")
      .value("hidden", "hidden width", "256")
      .value("layers", "layers", "3")
      .value("model", "full: gcn | sage", "gcn")
      .value("dim", "full, sage with --data: embedding width (emb, tt)", "64")
      .value("tt-rank", "full, sage with --data: TT rank (tt)", "8")
      .value("epochs", "full: timed epochs", "10")
      .value("warmup", "full: untimed epochs first", "2")
      .value("reps", "bandwidth: repetitions of the triad and of the SpMM", "10")
      .value("triad-mb", "bandwidth: megabytes of the three triad arrays", "800")
      .value("orders",
             "bandwidth: node orders the SpMM runs in (original, random, rcm, metis, "
             "metis-hier, lp-hier)",
             "original")
      .value("batch-size", "sage: batch size", "1000")
      .value("fanout", "sage: fan-outs, input layer first", "5,10,15")
      .value("max-batches", "sage: batches timed", "40")
      .value("input", "full, sage: feat | emb | tt", "feat")
      .flag("eval", "sage: also time one layer-wise inference pass");
  try {
    if (!o.parse(argc, argv, 1))
      return 0;
    const std::string mode = o.get("mode");
    if (mode == "export")
      return run_export(o);
    if (mode == "full")
      return run_full(o, o.get("model"));
    if (mode == "gcn")
      return run_full(o, "gcn");
    if (mode == "bandwidth")
      return run_bandwidth(o);
    if (mode == "sage-minibatch")
      return run_sage(o);
    throw ttgnn::ConfigError("--mode: expected export, full, gcn, bandwidth or sage-minibatch");
  } catch (std::exception const &e) {
    std::fprintf(stderr, "bench_train: %s\n", e.what());
    return 1;
  }
}
