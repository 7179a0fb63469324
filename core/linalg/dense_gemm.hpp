#ifndef TTGNN_CORE_DENSE_GEMM_HPP
#define TTGNN_CORE_DENSE_GEMM_HPP
/// \file dense_gemm.hpp
/// \brief C = alpha * op(A) * op(B) + beta * C on row-major (LayoutRight) matrices, through
/// KokkosBlas::gemm (OpenBLAS on the host, cuBLAS on CUDA builds).

#include <Kokkos_Core.hpp>

namespace ttgnn {

/// Row-major matrix on the memory space of \p ExecutionSpace.
template <class Scalar, class ExecutionSpace>
using Matrix = Kokkos::View<Scalar **, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>;

/// \brief C = alpha * op(A) * op(B) + beta * C, op = 'N' (as is) or 'T' (transposed).
/// Throws ttgnn::ConfigError when the shapes do not agree.
/// Instantiated for float and double on every enabled execution space.
template <class ExecutionSpace, class Scalar>
void gemm(ExecutionSpace const &space, char trans_a, char trans_b, Scalar alpha,
          Matrix<Scalar, ExecutionSpace> const &a, Matrix<Scalar, ExecutionSpace> const &b,
          Scalar beta, Matrix<Scalar, ExecutionSpace> const &c);

} // namespace ttgnn

#endif
