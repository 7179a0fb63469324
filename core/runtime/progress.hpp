#ifndef TTGNN_CORE_RUNTIME_PROGRESS_HPP
#define TTGNN_CORE_RUNTIME_PROGRESS_HPP
/// \file progress.hpp
/// \brief Progress lines with an ETA for long host stages (orderings, eigensolvers):
/// `"<what>: 3/8 <unit>, 12.1 s, ETA 20.2 s"`. Silent for a stage that ends within
/// `quiet_s` seconds (the first line comes once the stage has run that long), then at most
/// one line every `interval_s` seconds, and a last line when the stage completes.

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace ttgnn {

/// Receives one progress line at a time (no newline).
using ProgressLog = std::function<void(std::string const &)>;

/// \brief Reports the steps of one stage to a ProgressLog (a no-op when the log is empty).
class ProgressMeter {
public:
  ProgressMeter(ProgressLog log, std::string what, std::int64_t total, std::string unit,
                double quiet_s = 2.0, double interval_s = 5.0);
  /// \p done of total steps are finished; prints when the stage is long enough and the last
  /// line is old enough (or done == total after an earlier line).
  void update(std::int64_t done);
  double elapsed_s() const;

private:
  ProgressLog log_;
  std::string what_, unit_;
  std::int64_t total_;
  double quiet_s_, interval_s_, last_s_ = -1;
  std::chrono::steady_clock::time_point t0_;
};

/// "<what>: <done>/<total> <unit>, <elapsed> s, ETA <eta> s" (ETA by linear extrapolation).
std::string progress_line(std::string const &what, std::int64_t done, std::int64_t total,
                          std::string const &unit, double elapsed_s);

} // namespace ttgnn

#endif
