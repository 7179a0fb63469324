#include "core/linalg/dense_gemm.hpp"

#include "core/detail/instantiate.hpp"
#include "core/error.hpp"

#include <KokkosBlas3_gemm.hpp>

#include <string>

namespace ttgnn {

template <class ExecutionSpace, class Scalar>
void gemm(ExecutionSpace const &space, char trans_a, char trans_b, Scalar alpha,
          Matrix<Scalar, ExecutionSpace> const &a, Matrix<Scalar, ExecutionSpace> const &b,
          Scalar beta, Matrix<Scalar, ExecutionSpace> const &c) {
  auto valid = [](char t) { return t == 'N' || t == 'T'; };
  if (!valid(trans_a) || !valid(trans_b))
    throw ConfigError("ttgnn::gemm: transpose flags must be 'N' or 'T'");
  const auto m = trans_a == 'N' ? a.extent(0) : a.extent(1);
  const auto k = trans_a == 'N' ? a.extent(1) : a.extent(0);
  const auto kb = trans_b == 'N' ? b.extent(0) : b.extent(1);
  const auto n = trans_b == 'N' ? b.extent(1) : b.extent(0);
  if (k != kb || c.extent(0) != m || c.extent(1) != n)
    throw ConfigError("ttgnn::gemm: shapes do not agree: op(A) is " + std::to_string(m) + "x" +
                      std::to_string(k) + ", op(B) is " + std::to_string(kb) + "x" +
                      std::to_string(n) + ", C is " + std::to_string(c.extent(0)) + "x" +
                      std::to_string(c.extent(1)));
  const char ta[2] = {trans_a, '\0'}, tb[2] = {trans_b, '\0'};
  // KokkosKernels calls the BLAS (TPL) only for Views whose device is the execution space's own.
  // A HostSpace View's device is the default host space's (OpenMP), so on Serial the matrices
  // are seen as Device<Serial, HostSpace> (unmanaged): else Serial took KokkosKernels' own
  // blocked kernel, many times slower than OpenBLAS.
  using Device = Kokkos::Device<ExecutionSpace, typename ExecutionSpace::memory_space>;
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  using In = Kokkos::View<const Scalar **, Kokkos::LayoutRight, Device, Unmanaged>;
  using Out = Kokkos::View<Scalar **, Kokkos::LayoutRight, Device, Unmanaged>;
  auto as_in = [](Matrix<Scalar, ExecutionSpace> const &x) {
    return In(x.data(), x.extent(0), x.extent(1));
  };
  if (a.span_is_contiguous() && b.span_is_contiguous() && c.span_is_contiguous())
    KokkosBlas::gemm(space, ta, tb, alpha, as_in(a), as_in(b), beta,
                     Out(c.data(), c.extent(0), c.extent(1))); // on the caller's instance (stream)
  else
    KokkosBlas::gemm(space, ta, tb, alpha, a, b, beta, c);
}

#define TTGNN_INSTANTIATE_GEMM(SPACE, SCALAR)                                                      \
  template void gemm<SPACE, SCALAR>(SPACE const &, char, char, SCALAR,                             \
                                    Matrix<SCALAR, SPACE> const &, Matrix<SCALAR, SPACE> const &,  \
                                    SCALAR, Matrix<SCALAR, SPACE> const &);
#define TTGNN_INSTANTIATE_GEMM_SPACE(SPACE)                                                        \
  TTGNN_INSTANTIATE_GEMM(SPACE, float)                                                             \
  TTGNN_INSTANTIATE_GEMM(SPACE, double)

TTGNN_INSTANTIATE_SERIAL(TTGNN_INSTANTIATE_GEMM_SPACE)
TTGNN_INSTANTIATE_OPENMP(TTGNN_INSTANTIATE_GEMM_SPACE)
TTGNN_INSTANTIATE_CUDA(TTGNN_INSTANTIATE_GEMM_SPACE)
#undef TTGNN_INSTANTIATE_GEMM_SPACE
#undef TTGNN_INSTANTIATE_GEMM

} // namespace ttgnn
