#include "core/linalg/runtime_info.hpp"

#include "core/linalg/dense_gemm.hpp"
#include "core/io/json_writer.hpp"
#include "core/kokkos_compat.hpp"
#include "ttgnn_config.hpp"

#include <KokkosKernels_config.h>
#include <Kokkos_Core.hpp>

#include <dlfcn.h>

namespace ttgnn {

namespace {

std::string vendor_of(std::string const &path, bool has_openblas_symbol) {
  if (has_openblas_symbol || path.find("openblas") != std::string::npos)
    return "OpenBLAS";
  if (path.find("mkl") != std::string::npos)
    return "MKL";
  if (path.find("blis") != std::string::npos)
    return "BLIS";
  if (path.find("atlas") != std::string::npos)
    return "ATLAS";
  if (path.find("libblas") != std::string::npos)
    return "reference";
  return "unknown";
}

} // namespace

BlasInfo blas_info() {
  BlasInfo info;
  {
    // One small product through ttgnn::gemm, the path every dense layer takes, so the answer
    // is the BLAS those layers really call (and a wrong one would show here).
    using Host = Kokkos::DefaultHostExecutionSpace;
    Matrix<double, Host> a("ttgnn::config::a", 2, 2), c("ttgnn::config::c", 2, 2);
    a(0, 0) = 1, a(0, 1) = 2, a(1, 0) = 3, a(1, 1) = 4;
    gemm(Host(), 'N', 'T', 1.0, a, a, 0.0, c);
    info.gemm_ok = c(0, 0) == 5 && c(0, 1) == 11 && c(1, 0) == 11 && c(1, 1) == 25;
  }
  void *dgemm = dlsym(RTLD_DEFAULT, "dgemm_");
  Dl_info where{};
  if (dgemm && dladdr(dgemm, &where) && where.dli_fname)
    info.library = where.dli_fname;
  using config_fn = char *(*)();
  using threads_fn = int (*)();
  auto config = reinterpret_cast<config_fn>(dlsym(RTLD_DEFAULT, "openblas_get_config"));
  auto threads = reinterpret_cast<threads_fn>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
  if (config)
    info.config = config();
  if (threads)
    info.threads = threads();
#ifdef KOKKOSKERNELS_ENABLE_TPL_BLAS
  info.tpl_enabled = true;
#endif
  info.vendor = info.library.empty() ? "none" : vendor_of(info.library, config != nullptr);
  return info;
}

RuntimeInfo runtime_info() {
  RuntimeInfo info;
  info.ttgnn_version = TTGNN_VERSION_STRING;
  info.kokkos_version = compat::kokkos_version_string();
#ifdef KOKKOS_ENABLE_SERIAL
  info.backends.emplace_back("Serial");
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  info.backends.emplace_back("OpenMP");
#endif
#ifdef KOKKOS_ENABLE_THREADS
  info.backends.emplace_back("Threads");
#endif
#ifdef KOKKOS_ENABLE_CUDA
  info.backends.emplace_back("Cuda");
#endif
#ifdef KOKKOS_ENABLE_HIP
  info.backends.emplace_back("HIP");
#endif
#ifdef KOKKOS_ENABLE_SYCL
  info.backends.emplace_back("SYCL");
#endif
  info.default_execution_space = Kokkos::DefaultExecutionSpace::name();
  info.host_threads = compat::concurrency(Kokkos::DefaultHostExecutionSpace());
  if (char const *policy = std::getenv("OMP_WAIT_POLICY"))
    info.omp_wait_policy = policy;
  info.blas = blas_info();
  return info;
}

std::string to_json(RuntimeInfo const &info) {
  JsonWriter json;
  json.field("ttgnn_version", info.ttgnn_version);
  json.field("kokkos_version", info.kokkos_version);
  json.field("backends", info.backends);
  json.field("default_execution_space", info.default_execution_space);
  json.field("host_threads", info.host_threads);
  json.field("omp_wait_policy", info.omp_wait_policy);
  json.field("blas_vendor", info.blas.vendor);
  json.field("blas_library", info.blas.library);
  json.field("blas_config", info.blas.config);
  json.field("blas_threads", info.blas.threads);
  json.field("blas_gemm_ok", info.blas.gemm_ok);
  return json.str();
}

} // namespace ttgnn
