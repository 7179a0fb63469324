// Per-kernel wall time of any ttgnn run, as a Kokkos Tools library: every labelled
// parallel_for / reduce / scan is timed (the tool asks Kokkos to fence around each, so device
// kernels are timed to completion), and at exit one JSON line per kernel goes to stderr,
// slowest first, then a summary line.
//
//   KOKKOS_TOOLS_LIBS=build/bin/libttgnn_kernel_timer.so build/bin/ttgnn train ...
//
// Output: {"kernel": LABEL, "seconds": S, "calls": N} ... and
// {"kernel_timer": {"run_s": S, "in_kernels_s": S, "kernels": N}}. KERNEL_TIMER_TOP (default
// 30) limits the per-kernel lines.
#include <impl/Kokkos_Profiling_C_Interface.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Total {
  double seconds = 0;
  long calls = 0;
};

struct Timer {
  Clock::time_point start = Clock::now();
  std::map<std::string, Total> totals;
  std::vector<std::pair<std::string, Clock::time_point>> open; // kernels may nest (host)

  void begin(char const *name, std::uint64_t *id) {
    *id = open.size();
    open.emplace_back(name, Clock::now());
  }
  void end(std::uint64_t id) {
    auto &t = totals[open[id].first];
    t.seconds += std::chrono::duration<double>(Clock::now() - open[id].second).count();
    ++t.calls;
    open.resize(id);
  }
};

Timer *timer = nullptr;

// A label as a JSON string body: quotes, backslashes and control characters escaped.
std::string json_escape(std::string const &s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

} // namespace

extern "C" {

void kokkosp_request_tool_settings(std::uint32_t, Kokkos_Tools_ToolSettings *settings) {
  settings->requires_global_fencing = true;
}

void kokkosp_init_library(int, std::uint64_t, std::uint32_t, void *) {
  timer = new Timer;
}

void kokkosp_begin_parallel_for(char const *name, std::uint32_t, std::uint64_t *id) {
  timer->begin(name, id);
}
void kokkosp_end_parallel_for(std::uint64_t id) {
  timer->end(id);
}
void kokkosp_begin_parallel_reduce(char const *name, std::uint32_t, std::uint64_t *id) {
  timer->begin(name, id);
}
void kokkosp_end_parallel_reduce(std::uint64_t id) {
  timer->end(id);
}
void kokkosp_begin_parallel_scan(char const *name, std::uint32_t, std::uint64_t *id) {
  timer->begin(name, id);
}
void kokkosp_end_parallel_scan(std::uint64_t id) {
  timer->end(id);
}

void kokkosp_finalize_library() {
  const double run = std::chrono::duration<double>(Clock::now() - timer->start).count();
  std::vector<std::pair<std::string, Total>> rows(timer->totals.begin(), timer->totals.end());
  std::sort(rows.begin(), rows.end(),
            [](auto const &a, auto const &b) { return a.second.seconds > b.second.seconds; });
  double in_kernels = 0;
  for (auto const &r : rows)
    in_kernels += r.second.seconds;
  char const *top_env = std::getenv("KERNEL_TIMER_TOP");
  const std::size_t top = top_env ? std::strtoul(top_env, nullptr, 10) : 30;
  for (std::size_t k = 0; k < rows.size() && k < top; ++k)
    std::fprintf(stderr, "{\"kernel\": \"%s\", \"seconds\": %.6f, \"calls\": %ld}\n",
                 json_escape(rows[k].first).c_str(), rows[k].second.seconds, rows[k].second.calls);
  std::fprintf(stderr,
               "{\"kernel_timer\": {\"run_s\": %.6f, \"in_kernels_s\": %.6f, \"kernels\": %zu}}\n",
               run, in_kernels, rows.size());
  delete timer;
  timer = nullptr;
}

} // extern "C"
