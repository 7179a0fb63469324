// Progress lines: the ETA by linear extrapolation, silence for short stages, one line per
// interval, and the closing line of a stage that printed.
#include "core/runtime/progress.hpp"
#include "test_harness.hpp"

#include <string>
#include <vector>

TEST_CASE("progress: line format and ETA") {
  CHECK(ttgnn::progress_line("order", 1, 4, "levels", 2.0) ==
        "order: 1/4 levels, 2.0 s, ETA 6.0 s");
  CHECK(ttgnn::progress_line("order", 4, 4, "levels", 8.31) == "order: 4/4 levels, 8.3 s");
  CHECK(ttgnn::progress_line("order", 0, 4, "levels", 0.5) == "order: 0/4 levels, 0.5 s");
}

TEST_CASE("progress: a short stage prints nothing; a long one prints, then closes") {
  std::vector<std::string> lines;
  auto log = [&](std::string const &s) { lines.push_back(s); };
  {
    ttgnn::ProgressMeter quiet(log, "fast", 3, "steps", /*quiet_s=*/60, /*interval_s=*/5);
    for (int i = 1; i <= 3; ++i)
      quiet.update(i);
  }
  CHECK(lines.empty());
  ttgnn::ProgressMeter loud(log, "slow", 3, "steps", /*quiet_s=*/0, /*interval_s=*/60);
  loud.update(1); // first line once past quiet_s
  loud.update(2); // within the interval: nothing
  loud.update(3); // the last step closes the stage
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].rfind("slow: 1/3 steps, ", 0) == 0);
  CHECK(lines[0].find("ETA") != std::string::npos);
  CHECK(lines[1].rfind("slow: 3/3 steps, ", 0) == 0);
  CHECK(lines[1].find("ETA") == std::string::npos);
  // An empty log is a no-op.
  ttgnn::ProgressMeter none({}, "none", 1, "steps", 0, 0);
  none.update(1);
}
