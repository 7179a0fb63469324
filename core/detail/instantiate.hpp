#ifndef TTGNN_CORE_DETAIL_INSTANTIATE_HPP
#define TTGNN_CORE_DETAIL_INSTANTIATE_HPP
/// \file instantiate.hpp
/// \brief Explicit instantiations over the enabled Kokkos execution spaces, for the .cpp files
/// that compile a template once per space.
///
/// A file defines a macro that instantiates its templates for one space and hands it over:
///
///     #define TTGNN_INSTANTIATE_STATS(SPACE) template GraphStats compute_graph_stats<SPACE>(...);
///     TTGNN_INSTANTIATE_FOR_EACH_SPACE(TTGNN_INSTANTIATE_STATS)
///     #undef TTGNN_INSTANTIATE_STATS
///
/// TTGNN_INSTANTIATE_FOR_EACH_SPACE(MACRO) expands MACRO(Kokkos::Serial), MACRO(Kokkos::OpenMP),
/// MACRO(Kokkos::Threads) and MACRO(Kokkos::Cuda), each only where Kokkos enables that space;
/// TTGNN_INSTANTIATE_FOR_EACH_HOST_SPACE(MACRO) the first three (host-only code: METIS, Spectra,
/// orderings). A file that serves a narrower set names its spaces one by one with
/// TTGNN_INSTANTIATE_SERIAL, _OPENMP, _THREADS and _CUDA (each expands to nothing where its
/// space is disabled).

#include <Kokkos_Core.hpp>

#ifdef KOKKOS_ENABLE_SERIAL
#define TTGNN_INSTANTIATE_SERIAL(MACRO) MACRO(Kokkos::Serial)
#else
#define TTGNN_INSTANTIATE_SERIAL(MACRO)
#endif

#ifdef KOKKOS_ENABLE_OPENMP
#define TTGNN_INSTANTIATE_OPENMP(MACRO) MACRO(Kokkos::OpenMP)
#else
#define TTGNN_INSTANTIATE_OPENMP(MACRO)
#endif

#ifdef KOKKOS_ENABLE_THREADS
#define TTGNN_INSTANTIATE_THREADS(MACRO) MACRO(Kokkos::Threads)
#else
#define TTGNN_INSTANTIATE_THREADS(MACRO)
#endif

#ifdef KOKKOS_ENABLE_CUDA
#define TTGNN_INSTANTIATE_CUDA(MACRO) MACRO(Kokkos::Cuda)
#else
#define TTGNN_INSTANTIATE_CUDA(MACRO)
#endif

/// MACRO(space) for each enabled host execution space: Serial, OpenMP, Threads.
#define TTGNN_INSTANTIATE_FOR_EACH_HOST_SPACE(MACRO)                                               \
  TTGNN_INSTANTIATE_SERIAL(MACRO)                                                                  \
  TTGNN_INSTANTIATE_OPENMP(MACRO)                                                                  \
  TTGNN_INSTANTIATE_THREADS(MACRO)

/// MACRO(space) for each enabled execution space: Serial, OpenMP, Threads, Cuda.
#define TTGNN_INSTANTIATE_FOR_EACH_SPACE(MACRO)                                                    \
  TTGNN_INSTANTIATE_FOR_EACH_HOST_SPACE(MACRO)                                                     \
  TTGNN_INSTANTIATE_CUDA(MACRO)

#endif
