#ifndef TTGNN_TESTS_FUZZ_FUZZ_COMMON_HPP
#define TTGNN_TESTS_FUZZ_FUZZ_COMMON_HPP
/// \file fuzz_common.hpp
/// \brief Shared by the libFuzzer targets: Kokkos initialised once per process
/// (LLVMFuzzerInitialize, finalised at exit) and a per-process scratch file that each input is
/// written to, so the real path-taking readers run on it. Include from exactly one translation unit
/// per fuzzer.

#include "core/error.hpp"

#include <Kokkos_Core.hpp>

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace ttgnn::fuzz {

/// \brief A file in /tmp, created once with mkstemps and rewritten with each input.
class ScratchFile {
public:
  /// \param suffix file name ending, e.g. ".csv" (readers detect gzip/zip by content).
  explicit ScratchFile(std::string const &suffix) {
    char const *tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/ttgnn-fuzz-XXXXXX" + suffix;
    const int fd = ::mkstemps(pattern.data(), static_cast<int>(suffix.size()));
    if (fd < 0) {
      std::perror("ttgnn fuzz: mkstemps");
      std::abort();
    }
    ::close(fd);
    path_ = pattern;
  }
  ~ScratchFile() { ::unlink(path_.c_str()); }
  ScratchFile(ScratchFile const &) = delete;
  ScratchFile &operator=(ScratchFile const &) = delete;

  /// Replaces the file's content with \p size bytes at \p data.
  void write(void const *data, std::size_t size) const {
    std::FILE *f = std::fopen(path_.c_str(), "wb");
    if (!f || (size > 0 && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0) {
      std::perror("ttgnn fuzz: writing the scratch file");
      std::abort();
    }
  }
  std::string const &path() const { return path_; }

private:
  std::string path_;
};

/// Number of lines a LineReader sees in \p size bytes (a last line without '\n' counts).
inline std::int64_t count_lines(std::uint8_t const *data, std::size_t size) {
  std::int64_t n = 0;
  for (std::size_t i = 0; i < size; ++i)
    n += data[i] == '\n';
  return n + (size > 0 && data[size - 1] != '\n' ? 1 : 0);
}

/// Runs \p f, swallowing the errors a reader is allowed to throw for bad input (ttgnn::Error).
/// Anything else escapes and libFuzzer reports it as a crash (an uncaught exception aborts).
template <class F> void expect_ok_or_error(F &&f) {
  try {
    f();
  } catch (ttgnn::Error const &) {
  }
}

} // namespace ttgnn::fuzz

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  // One host thread: the fuzzers run many processes side by side (scripts/fuzz.sh).
  ::setenv("OMP_NUM_THREADS", "1", 0);
  ::setenv("OMP_PROC_BIND", "false", 0);
  int argc = 1;
  char name[] = "ttgnn-fuzz";
  char *argv[] = {name, nullptr};
  Kokkos::initialize(argc, argv);
  std::atexit([] { Kokkos::finalize(); });
  return 0;
}

#endif
