// SpMM Y = A X over row-major node matrices: ttgnn::spmm (both inner kernels) against
// KokkosSparse::spmv on a LayoutRight and a LayoutLeft multivector, and three ways of doing the
// transpose product A^T X (explicit transpose + gather, atomic scatter, spmv mode "T").
//
//   bench_spmm [--rows N] [--degree D] [--cols F] [--scalar float|double] [--reps R]
//              [--skip-layout-left]
//
// A is N x N with D uniformly random columns per row (the worst case for locality). Threads
// come from OMP_NUM_THREADS. Each kernel runs once to warm up, then R times (fewer if it takes
// more than ~20 s); one JSON line per kernel with the median time and GFLOP/s (2 nnz F flops).
#include "core/csr_transpose.hpp"
#include "core/json_writer.hpp"
#include "core/kokkos_compat.hpp"
#include "core/spmm.hpp"

#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spmv.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <random>
#include <string>
#include <vector>

namespace {

using Space = Kokkos::DefaultExecutionSpace;
using Memory = Space::memory_space;

struct Config {
  std::int64_t rows = 1000000;
  int degree = 10;
  int cols = 64;
  std::string scalar = "double";
  int reps = 7;
  bool layout_left = true;
};

template <class Scalar>
void run(Config const &cfg) {
  const Space space;
  const std::int64_t n = cfg.rows, nnz = n * cfg.degree;
  const int f = cfg.cols;
  // Graph: D uniform random columns per row, sorted (generated on the host, seeded).
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
      for (int d = 0; d < cfg.degree; ++d)
        he(i * cfg.degree + d) = std::int32_t(rng() % std::uint64_t(n));
      std::sort(he.data() + i * cfg.degree, he.data() + (i + 1) * cfg.degree);
    }
    for (std::int64_t k = 0; k < nnz; ++k)
      hv(k) = Scalar(1.0 / cfg.degree);
    Kokkos::deep_copy(row_map, hr);
    Kokkos::deep_copy(entries, he);
    Kokkos::deep_copy(values, hv);
  }
  using Right = Kokkos::View<Scalar **, Kokkos::LayoutRight, Memory>;
  using Left = Kokkos::View<Scalar **, Kokkos::LayoutLeft, Memory>;
  Right x(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::bench::x"), n, f);
  Right y(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::bench::y"), n, f);
  Right y_ref(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::bench::y_ref"), n, f);
  Kokkos::parallel_for(
      "ttgnn::bench::fill_x", Kokkos::RangePolicy<Space>(space, 0, n), KOKKOS_LAMBDA(std::int64_t i) {
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
  auto measure = [&](std::string const &kernel, std::function<void()> const &fn,
                     Right const *check, Right const *reference) {
    fn(); // warm-up (first touch, page faults)
    space.fence();
    std::vector<double> times;
    double total = 0;
    while (int(times.size()) < cfg.reps && (times.size() < 3 || total < 20.0)) {
      const auto t0 = std::chrono::steady_clock::now();
      fn();
      space.fence();
      times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      total += times.back();
    }
    std::sort(times.begin(), times.end());
    const double median = times[times.size() / 2];
    ttgnn::JsonWriter j;
    j.field("bench", "spmm");
    j.field("kernel", kernel);
    j.field("scalar", cfg.scalar);
    j.field("rows", static_cast<long long>(n));
    j.field("nnz", static_cast<long long>(nnz));
    j.field("cols", f);
    j.field("threads", threads);
    j.field("reps", int(times.size()));
    j.field("median_s", median);
    j.field("min_s", times.front());
    j.field("gflops", flops / median * 1e-9);
    if (check && reference)
      j.field("max_abs_diff", max_diff(*check, *reference));
    std::cout << j.str() << std::endl;
  };

  // ---- Y = A X
  const Scalar one = 1, zero = 0;
  measure("ttgnn_row_tiles", [&] {
    ttgnn::spmm(space, one, row_map, entries, values, x, zero, y_ref, ttgnn::SpmmKernel::row_tiles);
  }, nullptr, nullptr);
  measure("ttgnn_vector_lanes", [&] {
    ttgnn::spmm(space, one, row_map, entries, values, x, zero, y, ttgnn::SpmmKernel::vector_lanes);
  }, &y, &y_ref);
  using Matrix = KokkosSparse::CrsMatrix<Scalar, std::int32_t, Kokkos::Device<Space, Memory>, void,
                                         std::int64_t>;
  Matrix a("ttgnn::bench::A", std::int32_t(n), std::int32_t(n), nnz, values, row_map, entries);
  measure("kokkossparse_spmv_layout_right", [&] {
    KokkosSparse::spmv("N", one, a, x, zero, y);
  }, &y, &y_ref);
  if (cfg.layout_left) {
    Left xl(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::bench::x_left"), n, f);
    Left yl(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::bench::y_left"), n, f);
    Kokkos::deep_copy(xl, x);
    measure("kokkossparse_spmv_layout_left", [&] {
      KokkosSparse::spmv("N", one, a, xl, zero, yl);
    }, nullptr, nullptr);
    Kokkos::deep_copy(y, yl);
    ttgnn::JsonWriter j;
    j.field("bench", "spmm_check");
    j.field("kernel", "kokkossparse_spmv_layout_left");
    j.field("max_abs_diff", max_diff(y, y_ref));
    std::cout << j.str() << std::endl;
  }

  // ---- Y = A^T X
  ttgnn::TransposedCsr<std::int32_t, Scalar, Memory> t;
  measure("transpose_build", [&] {
    t = ttgnn::transpose_csr(space, n, row_map, entries, values);
  }, nullptr, nullptr);
  measure("ttgnn_transpose_explicit", [&] {
    ttgnn::spmm(space, one, t.row_map, t.entries, t.values, x, zero, y_ref);
  }, nullptr, nullptr);
  measure("ttgnn_transpose_atomic", [&] {
    ttgnn::spmm_transpose_atomic(space, one, row_map, entries, values, x, zero, y);
  }, &y, &y_ref);
  measure("kokkossparse_spmv_transpose_layout_right", [&] {
    KokkosSparse::spmv("T", one, a, x, zero, y);
  }, &y, &y_ref);
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
