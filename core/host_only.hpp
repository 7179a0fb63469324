#ifndef TTGNN_CORE_HOST_ONLY_HPP
#define TTGNN_CORE_HOST_ONLY_HPP
/// \file host_only.hpp
/// \brief Marks host-only function templates.
///
/// Loading, permutations, sparse features, graph statistics, METIS, the hierarchical partition,
/// Spectra, orderings, the neighbour sampler and the SBM generator work on data in HostSpace;
/// their execution-space argument only chooses the host parallelism (Serial, OpenMP, Threads).
/// Their template parameters end in `HostOnly<ExecutionSpace> host_only = 0` (named: nvcc needs
/// named template parameters around device lambdas), so a call with a device
/// space (Kokkos::Cuda) does not compile; pass Kokkos::DefaultHostExecutionSpace() instead.

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace ttgnn {

/// True when kernels of \p ExecutionSpace can read and write host memory.
template <class ExecutionSpace>
inline constexpr bool is_host_execution_space_v =
    Kokkos::SpaceAccessibility<ExecutionSpace, Kokkos::HostSpace>::accessible;

/// `template <class ExecutionSpace, ..., HostOnly<ExecutionSpace> host_only = 0>`: host spaces
/// only.
template <class ExecutionSpace>
using HostOnly = std::enable_if_t<is_host_execution_space_v<ExecutionSpace>, int>;

} // namespace ttgnn

#endif
