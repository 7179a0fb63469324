#include "core/runtime/progress.hpp"

#include <cstdio>
#include <utility>

namespace ttgnn {

ProgressMeter::ProgressMeter(ProgressLog log, std::string what, std::int64_t total,
                             std::string unit, double quiet_s, double interval_s)
    : log_(std::move(log)), what_(std::move(what)), unit_(std::move(unit)), total_(total),
      quiet_s_(quiet_s), interval_s_(interval_s), t0_(std::chrono::steady_clock::now()) {}

double ProgressMeter::elapsed_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
}

void ProgressMeter::update(std::int64_t done) {
  if (!log_)
    return;
  const double t = elapsed_s();
  const bool last = done >= total_ && last_s_ >= 0;
  if (!last && (t < quiet_s_ || (last_s_ >= 0 && t - last_s_ < interval_s_)))
    return;
  last_s_ = t;
  log_(progress_line(what_, done, total_, unit_, t));
}

std::string progress_line(std::string const &what, std::int64_t done, std::int64_t total,
                          std::string const &unit, double elapsed_s) {
  char buf[160];
  if (done >= total || done <= 0)
    std::snprintf(buf, sizeof buf, ": %lld/%lld %s, %.1f s", static_cast<long long>(done),
                  static_cast<long long>(total), unit.c_str(), elapsed_s);
  else
    std::snprintf(buf, sizeof buf, ": %lld/%lld %s, %.1f s, ETA %.1f s",
                  static_cast<long long>(done), static_cast<long long>(total), unit.c_str(),
                  elapsed_s, elapsed_s * static_cast<double>(total - done) / done);
  return what + buf;
}

} // namespace ttgnn
