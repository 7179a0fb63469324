// SpMM Y = A X over row-major node matrices: ttgnn::spmm (both inner kernels) against
// KokkosSparse::spmv on a LayoutRight and a LayoutLeft multivector, and three ways of doing the
// transpose product A^T X (explicit transpose + gather, atomic scatter, spmv mode "T").
//
//   bench_spmm [--rows N] [--degree D] [--cols F] [--scalar float|double] [--reps R]
//              [--skip-layout-left] [--write-graph PREFIX]
//
// A is N x N with D distinct uniformly random columns per row, values 1/D (the worst case for
// locality). Threads come from OMP_NUM_THREADS. Each kernel runs once to warm up (its result is
// checked against ttgnn's), then R times, round-robin with the others (LayoutLeft at most 3 times:
// it is ~10x slower); one JSON line per kernel with the median wall time and GFLOP/s (2 nnz F
// flops), and the median process CPU time (meaningful when other jobs share the cores).
#include "core/linalg/csr_transpose.hpp"
#include "core/io/json_writer.hpp"
#include "core/kokkos_compat.hpp"
#include "core/linalg/spmm.hpp"

#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spmv.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

using Space = Kokkos::DefaultExecutionSpace;
using Memory = Space::memory_space;

/// CPU time of this process (all threads), in seconds.
double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

/// One-minute load average (how busy the machine was), -1 when unknown.
double load_average() {
  double l = -1;
  if (FILE *f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &l) != 1)
      l = -1;
    std::fclose(f);
  }
  return l;
}

struct Config {
  std::int64_t rows = 1000000;
  int degree = 10;
  int cols = 64;
  std::string scalar = "double";
  int reps = 7;
  bool layout_left = true;
  std::string write_graph; ///< prefix of the graph files for bench_spmm_torch.py ("": none)
};

template <class Scalar> void run(Config const &cfg) {
  const Space space;
  const std::int64_t n = cfg.rows, nnz = n * cfg.degree;
  const int f = cfg.cols;
  // Graph: D distinct uniform random columns per row, sorted (generated on the host, seeded).
  Kokkos::View<std::int64_t *, Memory> row_map("ttgnn::bench::row_map", n + 1);
  Kokkos::View<std::int32_t *, Memory> entries("ttgnn::bench::entries", nnz);
  Kokkos::View<Scalar *, Memory> values("ttgnn::bench::values", nnz);
  {
    auto hr = Kokkos::create_mirror_view(row_map);
    auto he = Kokkos::create_mirror_view(entries);
    auto hv = Kokkos::create_mirror_view(values);
    std::mt19937_64 rng(42);
    for (std::int64_t i = 0; i <= n; ++i)
      hr(i) = i * cfg.degree;
    for (std::int64_t i = 0; i < n; ++i) {
      std::int32_t *row = he.data() + i * cfg.degree;
      for (int d = 0; d < cfg.degree; ++d) {
        std::int32_t j;
        do
          j = std::int32_t(rng() % std::uint64_t(n));
        while (std::find(row, row + d, j) != row + d);
        row[d] = j;
      }
      std::sort(row, row + cfg.degree);
    }
    for (std::int64_t k = 0; k < nnz; ++k)
      hv(k) = Scalar(1.0 / cfg.degree);
    Kokkos::deep_copy(row_map, hr);
    Kokkos::deep_copy(entries, he);
    Kokkos::deep_copy(values, hv);
    if (!cfg.write_graph.empty()) { // for bench_spmm_torch.py: raw little-endian arrays
      std::ofstream r(cfg.write_graph + ".row_map.i64", std::ios::binary);
      r.write(reinterpret_cast<char const *>(hr.data()), std::streamsize((n + 1) * 8));
      std::ofstream e(cfg.write_graph + ".entries.i32", std::ios::binary);
      e.write(reinterpret_cast<char const *>(he.data()), std::streamsize(nnz * 4));
      if (!r || !e) {
        std::cerr << "bench_spmm: cannot write " << cfg.write_graph << ".*\n";
        std::exit(1);
      }
    }
  }
  using Right = Kokkos::View<Scalar **, Kokkos::LayoutRight, Memory>;
  using Left = Kokkos::View<Scalar **, Kokkos::LayoutLeft, Memory>;
  Right x(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::bench::x"), n, f);
  Right y(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::bench::y"), n, f);
  Right y_ref(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::bench::y_ref"), n, f);
  Kokkos::parallel_for(
      "ttgnn::bench::fill_x", Kokkos::RangePolicy<Space>(space, 0, n),
      KOKKOS_LAMBDA(std::int64_t i) {
        for (int c = 0; c < f; ++c)
          x(i, c) = Scalar(((i * 131 + c * 17) % 97) / 97.0 - 0.5);
      });
  space.fence();

  const double flops = 2.0 * double(nnz) * f;
  const int threads = ttgnn::compat::concurrency(space);
  auto max_diff = [&](Right const &a, Right const &b) {
    double m = 0;
    Kokkos::parallel_reduce(
        "ttgnn::bench::diff", Kokkos::RangePolicy<Space>(space, 0, n),
        KOKKOS_LAMBDA(std::int64_t i, double &v) {
          for (int c = 0; c < f; ++c) {
            const double d = ttgnn::compat::fabs(double(a(i, c)) - double(b(i, c)));
            v = d > v ? d : v;
          }
        },
        Kokkos::Max<double>(m));
    return m;
  };
  // Kernels run round-robin (one repetition of each in turn), so a burst of load from other
  // processes hits all of them alike. Each writes its own output, checked after the warm-up.
  struct Kernel {
    std::string name;
    std::function<void()> run;
    Right const *output; ///< compared with `reference` after the warm-up (nullptr: none)
    Right const *reference;
    int max_reps;
    std::vector<double> wall, cpu;
    double diff = -1;
  };
  std::vector<Kernel> kernels;
  auto add = [&](std::string name, std::function<void()> run, Right const *output,
                 Right const *reference, int max_reps) {
    kernels.push_back(Kernel{std::move(name), std::move(run), output, reference, max_reps, {}, {}});
  };
  const Scalar one = 1, zero = 0;
  Right y_t(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::bench::y_t"), n, f);
  Right y_t_ref(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::bench::y_t_ref"), n, f);
  using Matrix = KokkosSparse::CrsMatrix<Scalar, std::int32_t, Kokkos::Device<Space, Memory>, void,
                                         std::int64_t>;
  Matrix a("ttgnn::bench::A", std::int32_t(n), std::int32_t(n), nnz, values, row_map, entries);
  Left xl, yl;
  Right y_left_copy;
  ttgnn::TransposedCsr<std::int32_t, Scalar, Memory> t;

  // ---- Y = A X
  add(
      "ttgnn_row_tiles",
      [&] {
        ttgnn::spmm(space, one, row_map, entries, values, x, zero, y_ref,
                    ttgnn::SpmmKernel::row_tiles);
      },
      nullptr, nullptr, cfg.reps);
  add(
      "ttgnn_vector_lanes",
      [&] {
        ttgnn::spmm(space, one, row_map, entries, values, x, zero, y,
                    ttgnn::SpmmKernel::vector_lanes);
      },
      &y, &y_ref, cfg.reps);
  add(
      "kokkossparse_spmv_layout_right", [&] { KokkosSparse::spmv("N", one, a, x, zero, y); }, &y,
      &y_ref, cfg.reps);
  if (cfg.layout_left) {
    xl = Left(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::bench::x_left"), n, f);
    yl = Left(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::bench::y_left"), n, f);
    y_left_copy =
        Right(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::bench::y_lc"), n, f);
    Kokkos::deep_copy(xl, x);
    add(
        "kokkossparse_spmv_layout_left",
        [&] {
          KokkosSparse::spmv("N", one, a, xl, zero, yl);
          Kokkos::deep_copy(space, y_left_copy, yl); // layout conversion (included in the time)
        },
        &y_left_copy, &y_ref, std::min(cfg.reps, 3));
  }
  // ---- Y = A^T X: build the transpose (count, scan, fill, sort), gather over it; or scatter.
  add(
      "transpose_build", [&] { t = ttgnn::transpose_csr(space, n, row_map, entries, values); },
      nullptr, nullptr, cfg.reps);
  add(
      "ttgnn_transpose_explicit",
      [&] { ttgnn::spmm(space, one, t.row_map, t.entries, t.values, x, zero, y_t_ref); }, nullptr,
      nullptr, cfg.reps);
  add(
      "ttgnn_transpose_atomic",
      [&] { ttgnn::spmm_transpose_atomic(space, one, row_map, entries, values, x, zero, y_t); },
      &y_t, &y_t_ref, cfg.reps);
  add(
      "kokkossparse_spmv_transpose_layout_right",
      [&] { KokkosSparse::spmv("T", one, a, x, zero, y_t); }, &y_t, &y_t_ref, cfg.reps);

  for (auto &k : kernels) { // warm-up (first touch, page faults) and correctness check
    k.run();
    space.fence();
    if (k.output && k.reference)
      k.diff = max_diff(*k.output, *k.reference);
  }
  for (int r = 0; r < cfg.reps; ++r)
    for (auto &k : kernels) {
      if (r >= k.max_reps)
        continue;
      const double c0 = cpu_seconds();
      const auto t0 = std::chrono::steady_clock::now();
      k.run();
      space.fence();
      k.wall.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      k.cpu.push_back(cpu_seconds() - c0);
    }
  for (auto &k : kernels) {
    std::sort(k.wall.begin(), k.wall.end());
    std::sort(k.cpu.begin(), k.cpu.end());
    const double median = k.wall[k.wall.size() / 2], cpu_median = k.cpu[k.cpu.size() / 2];
    ttgnn::JsonWriter j;
    j.field("bench", "spmm");
    j.field("kernel", k.name);
    j.field("scalar", cfg.scalar);
    j.field("rows", static_cast<long long>(n));
    j.field("nnz", static_cast<long long>(nnz));
    j.field("cols", f);
    j.field("threads", threads);
    j.field("reps", int(k.wall.size()));
    j.field("median_s", median);
    j.field("min_s", k.wall.front());
    const double kernel_flops = k.name == "transpose_build" ? 0.0 : flops; // build: no flops
    j.field("gflops", kernel_flops / median * 1e-9);
    // Process CPU time (all threads): robust to other processes sharing the cores.
    j.field("cpu_median_s", cpu_median);
    j.field("gflops_per_cpu_s", kernel_flops / cpu_median * 1e-9);
    j.field("loadavg_1min", load_average());
    if (k.diff >= 0)
      j.field("max_abs_diff", k.diff);
    std::cout << j.str() << std::endl;
  }
}

} // namespace

int main(int argc, char **argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  Config cfg;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "bench_spmm: " << arg << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--rows")
      cfg.rows = std::stoll(next());
    else if (arg == "--degree")
      cfg.degree = std::stoi(next());
    else if (arg == "--cols")
      cfg.cols = std::stoi(next());
    else if (arg == "--scalar")
      cfg.scalar = next();
    else if (arg == "--reps")
      cfg.reps = std::stoi(next());
    else if (arg == "--skip-layout-left")
      cfg.layout_left = false;
    else if (arg == "--write-graph")
      cfg.write_graph = next();
    else if (arg.rfind("--kokkos", 0) != 0) {
      std::cerr << "bench_spmm: unknown option " << arg << "\n";
      return 2;
    }
  }
  if (cfg.scalar == "double")
    run<double>(cfg);
  else if (cfg.scalar == "float")
    run<float>(cfg);
  else {
    std::cerr << "bench_spmm: --scalar must be float or double\n";
    return 2;
  }
  return 0;
}
