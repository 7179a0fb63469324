// Largest eigenpairs of D^-1/2 A D^-1/2 (ttgnn::spectral_embedding) on a generated graph, by
// Spectra's Lanczos, by block subspace iteration, or both (then compared).
//
//   bench_eigs [--nodes N] [--avg-degree D] [--classes C] [--communities M] [--homophily H]
//              [--power-law G] [--k K] [--tol T] [--ncv NCV] [--seed S]
//              [--solver lanczos|subspace|both] [--iterations I] [--degree m] [--block b]
//
// Defaults: N = 1,000,000 nodes, D = 40 (20M undirected edges, 40M arcs), a DC-SBM
// (graph/synth/sbm_generator.hpp) with C = 32 classes, M = 1, homophily 0.8, k = 32 eigenpairs,
// Lanczos to tolerance 1e-8; subspace iteration with SubspaceOptions' defaults. `ttgnn generate
// --nodes N --avg-degree 25 --communities 8 --features 0 --seed 1`'s graph is --classes 5
// --communities 8 --avg-degree 25 --seed 1. Threads come from OMP_NUM_THREADS. Prints one JSON
// line: graph size, time to generate, to build the CSR and, per solver, to solve (wall and CPU
// seconds), products, largest residual ||Av - λv||, the eigenvalue range and the peak RSS so far;
// with both, the largest eigenvalue difference and the sines of the largest principal angles
// between the two k-column spans and between their first 8 columns.
#include "core/io/json_writer.hpp"
#include "core/kokkos_compat.hpp"
#include "graph/csr_build.hpp"
#include "graph/synth/sbm_generator.hpp"
#include "graph/spectral/spectral_embedding.hpp"

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <sys/resource.h>
#include <vector>

namespace {

using Space = Kokkos::DefaultHostExecutionSpace;

// User + system CPU seconds of the process, all threads.
double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Peak resident set of the process so far, MiB.
double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024.0;
}

// Smallest eigenvalue of the symmetric c x c matrix s (row-major), by cyclic Jacobi rotations.
double smallest_eigenvalue(std::vector<double> s, std::int64_t c) {
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0;
    for (std::int64_t p = 0; p < c; ++p)
      for (std::int64_t q = p + 1; q < c; ++q)
        off += s[p * c + q] * s[p * c + q];
    if (off < 1e-30)
      break;
    for (std::int64_t p = 0; p < c; ++p)
      for (std::int64_t q = p + 1; q < c; ++q) {
        const double apq = s[p * c + q];
        if (std::fabs(apq) < 1e-300)
          continue;
        const double theta = (s[q * c + q] - s[p * c + p]) / (2 * apq);
        const double t = (theta >= 0 ? 1 : -1) / (std::fabs(theta) + std::sqrt(theta * theta + 1));
        const double cs = 1 / std::sqrt(t * t + 1), sn = t * cs;
        for (std::int64_t r = 0; r < c; ++r) { // columns p, q
          const double x = s[r * c + p], y = s[r * c + q];
          s[r * c + p] = cs * x - sn * y;
          s[r * c + q] = sn * x + cs * y;
        }
        for (std::int64_t r = 0; r < c; ++r) { // rows p, q
          const double x = s[p * c + r], y = s[q * c + r];
          s[p * c + r] = cs * x - sn * y;
          s[q * c + r] = sn * x + cs * y;
        }
      }
  }
  double low = s[0];
  for (std::int64_t p = 1; p < c; ++p)
    low = std::min(low, s[p * c + p]);
  return low;
}

// Sine of the largest principal angle between the spans of the first `cols` columns of a and b
// (orthonormal columns): sqrt(1 - σ_min(Aᵀ B)²), σ_min² the smallest eigenvalue of MᵀM.
template <class V> double sin_largest_angle(V const &a, V const &b, std::int64_t cols) {
  const std::int64_t n = a.extent(0);
  std::vector<double> m(cols * cols, 0.0), s(cols * cols, 0.0);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t p = 0; p < cols; ++p)
      for (std::int64_t q = 0; q < cols; ++q)
        m[p * cols + q] += a(i, p) * b(i, q);
  for (std::int64_t p = 0; p < cols; ++p)
    for (std::int64_t q = 0; q < cols; ++q)
      for (std::int64_t r = 0; r < cols; ++r)
        s[p * cols + q] += m[r * cols + p] * m[r * cols + q];
  return std::sqrt(std::max(0.0, 1 - smallest_eigenvalue(s, cols)));
}

void report(ttgnn::JsonWriter &j, std::string const &p, ttgnn::SpectralEmbedding const &s,
            double cpu) {
  j.field(p + "seconds", s.seconds);
  // CPU time of the solve over all threads: on dedicated cores the wall time is at most this
  // (a shared machine stretches the wall time, not the CPU time).
  j.field(p + "cpu_seconds", cpu);
  j.field(p + "peak_rss_mib", peak_rss_mib());
  j.field(p + "matvecs", static_cast<long long>(s.matvecs));
  j.field(p + "restarts", static_cast<long long>(s.restarts));
  j.field(p + "ncv", static_cast<long long>(s.lanczos_ncv));
  j.field(p + "block", static_cast<long long>(s.subspace_block));
  j.field(p + "iterations", static_cast<long long>(s.subspace_iterations));
  j.field(p + "max_residual", s.max_residual);
  j.field(p + "lambda_2", s.eigenvalues.size() > 1 ? s.eigenvalues[1] : s.eigenvalues.front());
  j.field(p + "lambda_k", s.eigenvalues.back());
}

} // namespace

int main(int argc, char *argv[]) {
  setenv("OMP_PROC_BIND", "false", 0);
  Kokkos::ScopeGuard guard(argc, argv);
  ttgnn::SbmConfig cfg;
  cfg.num_nodes = 1000000;
  cfg.avg_degree = 40;
  cfg.num_classes = 32;
  cfg.communities = 1;
  cfg.homophily = 0.8;
  cfg.seed = 1;
  ttgnn::SpectralOptions opt;
  opt.num_vectors = 32;
  opt.tolerance = 1e-8;
  std::string solver = "lanczos";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "bench_eigs: %s needs a value\n", a.c_str());
      return 2;
    }
    const char *v = argv[++i];
    if (a == "--nodes")
      cfg.num_nodes = std::atoll(v);
    else if (a == "--avg-degree")
      cfg.avg_degree = std::atof(v);
    else if (a == "--classes")
      cfg.num_classes = std::atoi(v);
    else if (a == "--communities")
      cfg.communities = std::atoi(v);
    else if (a == "--homophily")
      cfg.homophily = std::atof(v);
    else if (a == "--power-law")
      cfg.power_law = std::atof(v);
    else if (a == "--k")
      opt.num_vectors = std::atoi(v);
    else if (a == "--tol")
      opt.tolerance = std::atof(v);
    else if (a == "--ncv")
      opt.ncv = std::atoi(v);
    else if (a == "--solver")
      solver = v;
    else if (a == "--iterations")
      opt.subspace.max_iterations = std::atoi(v);
    else if (a == "--degree")
      opt.subspace.degree = std::atoi(v);
    else if (a == "--block")
      opt.subspace.block_size = std::atoi(v);
    else if (a == "--seed")
      cfg.seed = opt.seed = std::strtoull(v, nullptr, 10);
    else {
      std::fprintf(stderr, "bench_eigs: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  if (solver != "lanczos" && solver != "subspace" && solver != "both") {
    std::fprintf(stderr, "bench_eigs: --solver is lanczos, subspace or both\n");
    return 2;
  }
  const Space space;
  auto t0 = std::chrono::steady_clock::now();
  ttgnn::SbmGenerator gen(cfg);
  const auto edges = gen.generate_edges(space);
  const double t_generate = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  const std::int64_t m = edges.size();
  Kokkos::View<std::int32_t *, Kokkos::HostSpace> src("ttgnn::bench_eigs::src", m),
      dst("ttgnn::bench_eigs::dst", m);
  auto keys = edges.keys;
  Kokkos::parallel_for(
      "ttgnn::bench_eigs::unpack", Kokkos::RangePolicy<Space>(space, 0, m), KOKKOS_LAMBDA(int e) {
        src(e) = static_cast<std::int32_t>(keys(e) >> 32);
        dst(e) = static_cast<std::int32_t>(keys(e) & 0xFFFFFFFFu);
      });
  space.fence();
  const auto graph = ttgnn::build_csr<Space, std::int32_t>(space, src, dst, cfg.num_nodes);
  const double t_csr = seconds_since(t0);
  std::fprintf(stderr, "bench_eigs: %lld nodes, %lld arcs; generate %.1f s, csr %.1f s\n",
               static_cast<long long>(graph.num_nodes()), static_cast<long long>(graph.num_arcs()),
               t_generate, t_csr);

  ttgnn::JsonWriter j;
  j.field("bench", "eigs");
  j.field("nodes", static_cast<long long>(graph.num_nodes()));
  j.field("edges", static_cast<long long>(m));
  j.field("arcs", static_cast<long long>(graph.num_arcs()));
  j.field("classes", cfg.num_classes);
  j.field("communities", cfg.communities);
  j.field("homophily", cfg.homophily);
  j.field("power_law", cfg.power_law);
  j.field("k", opt.num_vectors);
  j.field("tol", opt.tolerance);
  j.field("degree", opt.subspace.degree);
  j.field("max_iterations", opt.subspace.max_iterations);
  j.field("threads", ttgnn::compat::concurrency(space));
  j.field("seconds_generate", t_generate);
  j.field("seconds_csr", t_csr);
  j.field("peak_rss_mib_graph", peak_rss_mib());
  ttgnn::SpectralEmbedding sub, lan;
  // Subspace iteration first: its peak RSS is then its own.
  if (solver != "lanczos") {
    auto o = opt;
    o.solver = ttgnn::SpectralSolver::subspace;
    const double cpu0 = cpu_seconds();
    sub = ttgnn::spectral_embedding(space, graph, o);
    report(j, "subspace_", sub, cpu_seconds() - cpu0);
    std::fprintf(stderr, "bench_eigs: subspace %.1f s, residual %.3g\n", sub.seconds,
                 sub.max_residual);
  }
  if (solver != "subspace") {
    auto o = opt;
    o.solver = ttgnn::SpectralSolver::lanczos;
    const double cpu0 = cpu_seconds();
    lan = ttgnn::spectral_embedding(space, graph, o);
    report(j, "lanczos_", lan, cpu_seconds() - cpu0);
  }
  if (solver == "both") {
    double err = 0;
    for (std::size_t c = 0; c < lan.eigenvalues.size(); ++c)
      err = std::max(err, std::fabs(lan.eigenvalues[c] - sub.eigenvalues[c]));
    j.field("max_eigenvalue_difference", err);
    j.field("sin_angle_all", sin_largest_angle(lan.vectors, sub.vectors, opt.num_vectors));
    j.field("sin_angle_first8",
            sin_largest_angle(lan.vectors, sub.vectors, std::min(8, opt.num_vectors)));
  }
  std::cout << j.str() << std::endl;
  return 0;
}
