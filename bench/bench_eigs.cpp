// Largest eigenpairs of D^-1/2 A D^-1/2 (ttgnn::spectral_embedding: Spectra Lanczos over a
// Kokkos SpMV) on a generated graph.
//
//   bench_eigs [--nodes N] [--avg-degree D] [--classes C] [--communities M] [--homophily H]
//              [--power-law G] [--k K] [--tol T] [--ncv NCV] [--seed S]
//
// Defaults: N = 1,000,000 nodes, D = 40 (20M undirected edges, 40M arcs), a DC-SBM
// (graph/synth/sbm_generator.hpp) with C = 32 classes, M = 1, homophily 0.8, k = 32 eigenpairs,
// tolerance 1e-8. Threads come from OMP_NUM_THREADS. Prints one JSON line: graph size, time
// to generate, to build the CSR and to solve (wall and CPU seconds), SpMV count and time, restarts,
// largest residual
// ||Av - λv||, the eigenvalue range.
#include "core/io/json_writer.hpp"
#include "core/kokkos_compat.hpp"
#include "graph/csr_build.hpp"
#include "graph/synth/sbm_generator.hpp"
#include "graph/spectral/spectral_embedding.hpp"

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <sys/resource.h>

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
    else if (a == "--seed")
      cfg.seed = opt.seed = std::strtoull(v, nullptr, 10);
    else {
      std::fprintf(stderr, "bench_eigs: unknown option %s\n", a.c_str());
      return 2;
    }
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

  const double cpu0 = cpu_seconds();
  const auto s = ttgnn::spectral_embedding(space, graph, opt);
  const double cpu_eigs = cpu_seconds() - cpu0;

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
  j.field("threads", ttgnn::compat::concurrency(space));
  j.field("seconds_generate", t_generate);
  j.field("seconds_csr", t_csr);
  j.field("seconds_eigs", s.seconds);
  // CPU time of the solve over all threads: on dedicated cores the wall time is at most this
  // (a shared machine stretches the wall time, not the CPU time).
  j.field("cpu_seconds_eigs", cpu_eigs);
  j.field("matvecs", static_cast<long long>(s.matvecs));
  j.field("restarts", static_cast<long long>(s.restarts));
  j.field("ncv", static_cast<long long>(s.lanczos_ncv));
  j.field("components", static_cast<long long>(s.num_components));
  j.field("isolated", static_cast<long long>(s.num_isolated));
  j.field("max_residual", s.max_residual);
  j.field("lambda_1", s.eigenvalues.front());
  j.field("lambda_2", s.eigenvalues.size() > 1 ? s.eigenvalues[1] : s.eigenvalues.front());
  j.field("lambda_k", s.eigenvalues.back());
  std::cout << j.str() << std::endl;
  return 0;
}
