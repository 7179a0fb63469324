// ttgnn config: what this build runs on.
#include "apps/cli_options.hpp"
#include "apps/commands.hpp"
#include "core/linalg/runtime_info.hpp"

#include <Kokkos_Core.hpp>

#include <iostream>

namespace ttgnn::cli {

int run_config(int argc, char const *const *argv) {
  Options opts("config");
  opts.flag("json", "print one JSON line instead of text");
  opts.flag("kokkos", "also print Kokkos' own configuration report");
  if (!opts.parse(argc, argv))
    return 0;
  const RuntimeInfo info = runtime_info();
  if (opts.get_flag("json")) {
    std::cout << to_json(info) << "\n";
    return 0;
  }
  std::cout << "ttgnn version           " << info.ttgnn_version << "\n"
            << "Kokkos version          " << info.kokkos_version << "\n"
            << "Kokkos backends         ";
  for (std::size_t i = 0; i < info.backends.size(); ++i)
    std::cout << (i ? ", " : "") << info.backends[i];
  std::cout << "\n"
            << "default execution space " << info.default_execution_space << "\n"
            << "host threads            " << info.host_threads << "\n"
            << "OpenMP wait policy      "
            << (info.omp_wait_policy.empty() ? "unset (spin, then sleep)" : info.omp_wait_policy)
            << "\n"
            << "BLAS (KokkosKernels)    " << info.blas.vendor << " ("
            << (info.blas.library.empty() ? "not loaded" : info.blas.library) << ")"
            << (info.blas.gemm_ok ? "" : " GEMM SELF-CHECK FAILED") << "\n";
  if (!info.blas.config.empty())
    std::cout << "BLAS config             " << info.blas.config << ", " << info.blas.threads
              << " threads\n";
  if (opts.get_flag("kokkos"))
    Kokkos::print_configuration(std::cout, true);
  return 0;
}

} // namespace ttgnn::cli
