#ifndef TTGNN_TESTS_SIGNAL_TEST_UTIL_HPP
#define TTGNN_TESTS_SIGNAL_TEST_UTIL_HPP
/// \file signal_test_util.hpp
/// \brief A forked child that installs the handlers of remove_temporaries_on_signal, runs a
/// body and is stopped by SIGTERM: what a signal leaves behind.

#include "core/io/atomic_file.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <functional>

namespace ttgnn::test {

/// Runs \p body in a child process that then raises SIGTERM; returns the signal that ended the
/// child (0: it ended otherwise, e.g. \p body threw).
inline int signal_ending_child(std::function<void()> const &body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    try {
      remove_temporaries_on_signal();
      body();
      std::raise(SIGTERM);
    } catch (...) {
    }
    ::_exit(2); // not reached when the signal ends the process
  }
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid || !WIFSIGNALED(status))
    return 0;
  return WTERMSIG(status);
}

} // namespace ttgnn::test

#endif
