#ifndef TTGNN_CORE_KOKKOS_COMPAT_HPP
#define TTGNN_CORE_KOKKOS_COMPAT_HPP
/// \file kokkos_compat.hpp
/// \brief The one place where spellings differ between Kokkos versions (4.x and 5.x).
///
/// Everything else in ttgnn uses APIs common to both, or the names below.

#include <Kokkos_Core.hpp>

#include <string>

#if KOKKOS_VERSION < 40000
#error "ttgnn needs Kokkos 4.0 or newer (scripts/install-deps.sh builds it)"
#endif

namespace ttgnn::compat {

// Math functions usable in kernels (in namespace Kokkos since 3.7).
using Kokkos::exp;
using Kokkos::fabs;
using Kokkos::isfinite;
using Kokkos::isnan;
using Kokkos::log;
using Kokkos::pow;
using Kokkos::sqrt;

/// Host mirror type of a View (`HostMirror` was renamed `host_mirror_type` in Kokkos 4.7).
#if KOKKOS_VERSION >= 40700
template <class View> using host_mirror_t = typename View::host_mirror_type;
#else
template <class View> using host_mirror_t = typename View::HostMirror;
#endif

/// Kokkos' version as "major.minor.patch".
inline std::string kokkos_version_string() {
  const int v = KOKKOS_VERSION;
  return std::to_string(v / 10000) + "." + std::to_string((v / 100) % 100) + "." +
         std::to_string(v % 100);
}

/// Number of threads (or concurrent work items) of an execution space instance.
template <class ExecutionSpace> int concurrency(ExecutionSpace const &space) {
  return static_cast<int>(space.concurrency());
}

} // namespace ttgnn::compat

#endif
