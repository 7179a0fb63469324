#ifndef TTGNN_CORE_RUNTIME_INFO_HPP
#define TTGNN_CORE_RUNTIME_INFO_HPP
/// \file runtime_info.hpp
/// \brief What this ttgnn build runs on: versions, Kokkos backends, threads, and the BLAS
/// library that KokkosKernels' host BLAS calls resolve to.

#include <string>
#include <vector>

namespace ttgnn {

/// \brief The BLAS that `dgemm_` resolves to in this process.
struct BlasInfo {
  std::string library;      ///< path of the shared object defining dgemm_ ("" when none is loaded)
  std::string vendor;       ///< "OpenBLAS", "reference", "MKL", ... or "unknown"
  std::string config;       ///< openblas_get_config() when the library is OpenBLAS
  int threads = 0;          ///< openblas_get_num_threads() when available, else 0
  bool gemm_ok = false;     ///< a 2x2 ttgnn::gemm gave the right answer
  bool tpl_enabled = false; ///< KokkosKernels was built to call a BLAS library on the host
};

/// \brief Facts about the running build; Kokkos must be initialized.
struct RuntimeInfo {
  std::string ttgnn_version;
  std::string kokkos_version;          ///< the Kokkos headers this was compiled against
  std::vector<std::string> backends;   ///< enabled Kokkos backends, e.g. {"Serial", "OpenMP"}
  std::string default_execution_space; ///< Kokkos::DefaultExecutionSpace::name()
  int host_threads = 0;                ///< concurrency of the default host execution space
  /// OMP_WAIT_POLICY as the OpenMP runtime saw it ("" = unset: libgomp spins, then sleeps).
  std::string omp_wait_policy;
  BlasInfo blas;
};

/// \brief Finds the BLAS library that provides dgemm_ in this process.
BlasInfo blas_info();

/// \brief Collects RuntimeInfo. Requires Kokkos to be initialized.
RuntimeInfo runtime_info();

/// \brief RuntimeInfo as a one-line JSON object.
std::string to_json(RuntimeInfo const &info);

} // namespace ttgnn

#endif
