#ifndef TTGNN_CORE_PEAK_MEMORY_HPP
#define TTGNN_CORE_PEAK_MEMORY_HPP
/// \file peak_memory.hpp
/// \brief Peak resident memory of this process, the one measure every report uses.

namespace ttgnn {

/// \brief Peak resident set size of this process in MiB: /proc/self/status' VmHWM, else
/// getrusage's ru_maxrss (both in KiB on Linux). Host memory only: GPU memory is not counted.
double peak_rss_mb();

/// \brief Resident set size of this process now, in MiB (/proc/self/status' VmRSS; 0 where
/// that is not available). Host memory only.
double current_rss_mb();

} // namespace ttgnn

#endif
