// TT embedding lookup: rows/s of the forward and of forward+backward for every lookup path
// and backward mode, plus the measured GEMM peak (OpenBLAS through ttgnn::gemm) and memory
// bandwidth (a triad a = b + s·c over 3 x 64 MiB) of this machine at the same thread count,
// and per configuration the bounds of forward + backward (prefix path):
// - FLOPs: 6·B·D·R (per row: P·G forward, dP and dG backward, 2·D·R each) plus 3x the chain
//   of the prefix products per distinct prefix (forward, and twice that backward; for 3 cores
//   6·P·d1·d2·R^2), at the measured GEMM rate: "flop_bound_s";
// - bytes: the output rows written once and the gradient rows read once, 2·B·D·sizeof(Scalar),
//   at the measured triad rate: "byte_bound_s";
// and "fwdbwd_over_bound" = forward + backward time / the larger bound.
//
//   bench_tt_lookup [--n 100,100,100] [--d 8,4,4] [--ranks 8,16,32]
//                   [--batches 1000,10000,100000] [--block 1000] [--reps 9]
//                   [--scalar float|double] [--variants prefix-det,prefix-atomic,plain-atomic]
//                   [--ids random,contiguous,sorted] [--peak 1|0]
//
// --peak 0 leaves out the GEMM line of the other scalar type (the GEMM and triad rates of
// --scalar are always measured: the bounds need them).
//
// ids "random": uniform over the N = prod(n) rows (with repeats); "sorted": the same ids in
// increasing order (the same prefixes and work; the rows of a prefix are then next to each
// other in the output and the gradients); "contiguous": blocks of --block consecutive ids at
// random offsets (as a batch looks after METIS ordering). Threads
// come from OMP_NUM_THREADS. Each measurement runs once to warm up, then --reps times; one
// JSON line each with medians (forward, forward+backward, and the backward alone on the
// forward's plan). GFLOP/s counts the flops the kernels execute (fewer than the plain chain
// with shared prefixes); "chain_gflops" counts the plain chain's flops per row.
#include "core/linalg/dense_gemm.hpp"
#include "core/io/json_writer.hpp"
#include "core/kokkos_compat.hpp"
#include "models/embedding/tt_embedding.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <functional>
#include <iostream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

using Space = Kokkos::DefaultExecutionSpace;
using Memory = Space::memory_space;

struct Config {
  std::vector<std::int64_t> n = {100, 100, 100}, d = {8, 4, 4}, ranks = {8, 16, 32},
                            batches = {1000, 10000, 100000};
  std::int64_t block = 1000;
  int reps = 9;
  std::string scalar = "float";
  std::vector<std::string> variants = {"prefix-det", "prefix-atomic", "plain-atomic"};
  std::vector<std::string> kinds = {"random", "contiguous"};
  bool peak = true;
};

std::vector<std::string> split(std::string const &s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    out.push_back(item);
  return out;
}

std::vector<std::int64_t> split_ints(std::string const &s) {
  std::vector<std::int64_t> out;
  for (auto const &x : split(s))
    out.push_back(std::stoll(x));
  return out;
}

// Process CPU time (all threads), seconds.
double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

// Median wall time of f over reps runs (after one warm-up); *cpu = median CPU time.
double median_seconds(int reps, std::function<void()> const &f, double *cpu = nullptr) {
  f(); // warm-up
  std::vector<double> t, c;
  for (int r = 0; r < reps; ++r) {
    const double c0 = cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    c.push_back(cpu_seconds() - c0);
  }
  std::sort(t.begin(), t.end());
  std::sort(c.begin(), c.end());
  if (cpu)
    *cpu = c[c.size() / 2];
  return t[t.size() / 2];
}

std::vector<std::int64_t> make_ids(std::string const &kind, std::int64_t batch, std::int64_t rows,
                                   std::int64_t block, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::int64_t> ids(batch);
  if (kind == "random" || kind == "sorted") {
    for (auto &x : ids)
      x = std::uniform_int_distribution<std::int64_t>(0, rows - 1)(rng);
    if (kind == "sorted")
      std::sort(ids.begin(), ids.end());
  } else {
    for (std::int64_t b = 0; b < batch; b += block) {
      const auto start = std::uniform_int_distribution<std::int64_t>(0, rows - block)(rng);
      for (std::int64_t i = 0; i < block && b + i < batch; ++i)
        ids[b + i] = start + i;
    }
  }
  return ids;
}

// Median GB/s of a = b + s·c over 3 arrays of 16M Scalars (64 MiB in float), at the thread count
// of the default space (first-touched in parallel, as the kernels' Views are).
template <class Scalar> double triad(int reps) {
  const Space space;
  const std::int64_t n = std::int64_t(1) << 24;
  Kokkos::View<Scalar *, Memory> a("ttgnn::bench::triad_a", n), b("ttgnn::bench::triad_b", n),
      c("ttgnn::bench::triad_c", n);
  Kokkos::deep_copy(b, Scalar(1));
  Kokkos::deep_copy(c, Scalar(2));
  const double t = median_seconds(std::max(reps, 5), [&] {
    Kokkos::parallel_for(
        "ttgnn::bench::triad", Kokkos::RangePolicy<Space>(space, 0, n),
        KOKKOS_LAMBDA(std::int64_t i) { a(i) = b(i) + Scalar(1.5) * c(i); });
    space.fence();
  });
  const double gbs = 3.0 * n * sizeof(Scalar) / t * 1e-9;
  ttgnn::JsonWriter j;
  j.field("bench", "triad");
  j.field("scalar", sizeof(Scalar) == 4 ? "float" : "double");
  j.field("threads", ttgnn::compat::concurrency(Kokkos::DefaultHostExecutionSpace()));
  j.field("gbytes_per_s", gbs);
  std::cout << j.str() << std::endl;
  return gbs;
}

// Median GFLOP/s of a 1024^3 GEMM (prints one JSON line).
template <class Scalar> double peak(int reps) {
  const Space space;
  const int n = 1024;
  ttgnn::Matrix<Scalar, Space> a("a", n, n), b("b", n, n), c("c", n, n);
  Kokkos::deep_copy(a, Scalar(0.5));
  Kokkos::deep_copy(b, Scalar(0.25));
  double best = 1e300;
  const double t = median_seconds(reps, [&] {
    const auto t0 = std::chrono::steady_clock::now();
    ttgnn::gemm(space, 'N', 'N', Scalar(1), a, b, Scalar(0), c);
    space.fence();
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  });
  ttgnn::JsonWriter j;
  j.field("bench", "gemm_peak");
  j.field("scalar", sizeof(Scalar) == 4 ? "float" : "double");
  j.field("threads", ttgnn::compat::concurrency(Kokkos::DefaultHostExecutionSpace()));
  j.field("n", n);
  j.field("seconds", t);
  j.field("gflops", 2.0 * n * n * n / t * 1e-9);
  j.field("best_gflops", 2.0 * n * n * n / best * 1e-9);
  std::cout << j.str() << std::endl;
  return 2.0 * n * n * n / t * 1e-9;
}

template <class Scalar> void run(Config const &cfg, double gemm_gflops, double triad_gbs) {
  const Space space;
  const int nc = static_cast<int>(cfg.n.size());
  std::int64_t rows = 1;
  for (auto x : cfg.n)
    rows *= x;
  for (auto rank : cfg.ranks) {
    auto shape = ttgnn::make_tt_shape(rows, cfg.n, cfg.d, rank);
    const auto dim = shape.dim();
    std::mt19937_64 rng(1234 + rank);
    std::normal_distribution<double> normal(0.0, 1.0 / std::sqrt(double(rank)));
    std::vector<std::vector<double>> host;
    for (int k = 0; k < nc; ++k) {
      host.emplace_back(shape.core_size(k));
      for (auto &x : host.back())
        x = normal(rng);
    }
    for (auto batch : cfg.batches)
      for (auto const &kind : cfg.kinds) {
        auto ids_h = make_ids(kind, batch, rows, cfg.block, 99 + batch);
        Kokkos::View<std::int64_t *, Memory> ids("ids", batch);
        auto mirror = Kokkos::create_mirror_view(ids);
        for (std::int64_t b = 0; b < batch; ++b)
          mirror(b) = ids_h[b];
        Kokkos::deep_copy(ids, mirror);
        Kokkos::View<Scalar **, Kokkos::LayoutRight, Memory> out("out", batch, dim),
            grad("grad", batch, dim);
        Kokkos::deep_copy(grad, Scalar(1e-3));
        std::set<std::int64_t> prefixes;
        for (auto id : ids_h)
          prefixes.insert(id / cfg.n.back());
        const double np = prefixes.size();
        // Flops of the kernels (3 cores): per prefix 2·D'·R·(d_{K-2}·R)... computed generally as
        // the chain over the first K-1 cores; per row 2·R·d (forward), 4·R·d (backward, last
        // core), per prefix 2x the chain (backward through the prefix cores).
        double prefix_chain = 0, full_chain = 0;
        {
          std::int64_t lead = 1;
          for (int k = 0; k < nc; ++k) {
            const double f = 2.0 * lead * shape.ranks[k] * shape.d[k] * shape.ranks[k + 1];
            full_chain += f;
            if (k < nc - 1)
              prefix_chain += f;
            lead *= shape.d[k];
          }
        }
        const double row_last = 2.0 * rank * dim;
        for (auto const &variant : cfg.variants) {
          ttgnn::TtEmbeddingOptions opt;
          opt.path = variant.rfind("plain", 0) == 0 ? ttgnn::TtLookupPath::plain
                                                    : ttgnn::TtLookupPath::prefix;
          opt.mode = variant.find("det") != std::string::npos ? ttgnn::TtBackwardMode::deterministic
                                                              : ttgnn::TtBackwardMode::atomic;
          ttgnn::TtEmbedding<Scalar, Space> emb(shape, opt);
          emb.set_cores_from_host(space, host);
          const int reps = std::max(3, batch >= 100000 ? cfg.reps / 2 : cfg.reps);
          double cf = 0, cfb = 0;
          const double tf = median_seconds(
              reps,
              [&] {
                emb.forward(space, ids, out);
                space.fence();
              },
              &cf);
          const double tfb = median_seconds(
              reps,
              [&] {
                emb.forward(space, ids, out);
                emb.backward(space, ids, grad);
                space.fence();
              },
              &cfb);
          double cb = 0; // the backward alone, on the plan of the last forward
          const double tb = median_seconds(
              reps,
              [&] {
                emb.backward(space, ids, grad);
                space.fence();
              },
              &cb);
          const bool prefix = opt.path == ttgnn::TtLookupPath::prefix;
          const double ffwd = prefix ? np * prefix_chain + batch * row_last : batch * full_chain;
          const double fbwd =
              prefix ? 2 * np * prefix_chain + 2 * batch * row_last : 2 * batch * full_chain;
          ttgnn::JsonWriter j;
          j.field("bench", "tt_lookup");
          j.field("impl", "ttgnn");
          j.field("variant", variant);
          j.field("scalar", cfg.scalar);
          j.field("threads", ttgnn::compat::concurrency(Kokkos::DefaultHostExecutionSpace()));
          j.field("rank", static_cast<long long>(rank));
          j.field("batch", static_cast<long long>(batch));
          j.field("ids", kind);
          j.field("distinct_prefixes", np);
          j.field("fwd_seconds", tf);
          j.field("fwdbwd_seconds", tfb);
          j.field("bwd_seconds", tb);
          j.field("fwd_cpu_seconds", cf);
          j.field("fwdbwd_cpu_seconds", cfb);
          j.field("fwd_rows_per_s", batch / tf);
          j.field("fwdbwd_rows_per_s", batch / tfb);
          j.field("fwd_gflops", ffwd / tf * 1e-9);
          j.field("fwdbwd_gflops", (ffwd + fbwd) / tfb * 1e-9);
          j.field("chain_fwdbwd_gflops", 3 * batch * full_chain / tfb * 1e-9);
          // Bounds of forward + backward (the prefix path's work; see the file comment).
          const double flops = 3 * np * prefix_chain + 3 * batch * row_last;
          const double bytes = 2.0 * batch * dim * sizeof(Scalar);
          const double flop_bound = flops / (gemm_gflops * 1e9);
          const double byte_bound = bytes / (triad_gbs * 1e9);
          j.field("gemm_gflops", gemm_gflops);
          j.field("triad_gbytes_per_s", triad_gbs);
          j.field("flop_bound_s", flop_bound);
          j.field("byte_bound_s", byte_bound);
          j.field("fwdbwd_over_bound", tfb / std::max(flop_bound, byte_bound));
          std::cout << j.str() << std::endl;
        }
      }
  }
}

} // namespace

int main(int argc, char **argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  Config cfg;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--n")
      cfg.n = split_ints(value);
    else if (key == "--d")
      cfg.d = split_ints(value);
    else if (key == "--ranks")
      cfg.ranks = split_ints(value);
    else if (key == "--batches")
      cfg.batches = split_ints(value);
    else if (key == "--block")
      cfg.block = std::stoll(value);
    else if (key == "--reps")
      cfg.reps = std::stoi(value);
    else if (key == "--scalar")
      cfg.scalar = value;
    else if (key == "--variants")
      cfg.variants = split(value);
    else if (key == "--ids") {
      cfg.kinds = split(value);
      for (auto const &k : cfg.kinds)
        if (k != "random" && k != "sorted" && k != "contiguous") {
          std::cerr << "bench_tt_lookup: --ids " << k
                    << ": expected random, sorted or contiguous\n";
          return 2;
        }
    } else if (key == "--peak")
      cfg.peak = value != "0";
    else {
      std::cerr << "bench_tt_lookup: unknown option " << key << "\n";
      return 2;
    }
  }
  // The rates the bounds use, measured at the bench's thread count (--peak 0: without the
  // double-precision GEMM line).
  const bool dbl = cfg.scalar == "double";
  if (cfg.peak)
    dbl ? peak<float>(cfg.reps) : peak<double>(cfg.reps);
  const double gemm = dbl ? peak<double>(cfg.reps) : peak<float>(cfg.reps);
  const double gbs = dbl ? triad<double>(cfg.reps) : triad<float>(cfg.reps);
  if (dbl)
    run<double>(cfg, gemm, gbs);
  else
    run<float>(cfg, gemm, gbs);
  return 0;
}
