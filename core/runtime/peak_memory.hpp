#ifndef TTGNN_CORE_PEAK_MEMORY_HPP
#define TTGNN_CORE_PEAK_MEMORY_HPP
/// \file peak_memory.hpp
/// \brief Peak resident memory of this process, the one measure every report uses, and the
/// return of freed heap memory to the system between stages.

namespace ttgnn {

/// \brief Peak resident set size of this process in MiB: /proc/self/status' VmHWM, else
/// getrusage's ru_maxrss (both in KiB on Linux). Host memory only: GPU memory is not counted.
double peak_rss_mb();

/// \brief Resident set size of this process now, in MiB (/proc/self/status' VmRSS; 0 where
/// that is not available). Host memory only.
double current_rss_mb();

/// \brief Returns the free pages of the C heap to the system (glibc's malloc_trim; nothing
/// elsewhere). glibc serves blocks below its mmap threshold, which grows to the largest block
/// freed (up to 32 MiB), from the heap and keeps their pages after a free, so the arrays one
/// stage frees stay resident, and add to the peak, while the next stage allocates others.
void release_free_memory();

} // namespace ttgnn

#endif
