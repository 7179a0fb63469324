#ifndef TTGNN_TESTS_SCRATCH_DIR_HPP
#define TTGNN_TESTS_SCRATCH_DIR_HPP
/// \file scratch_dir.hpp
/// \brief A scratch folder per test process. ctest runs the instances of one test program
/// (NAME.serial, NAME.openmp.1, ...) at the same time, so a fixed folder name would let one
/// process read another's files.

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace ttgnn::test {

namespace fs = std::filesystem;

/// Removes the scratch folders of this process at exit (unless TTGNN_KEEP_SCRATCH is set).
struct ScratchRegistry {
  std::vector<fs::path> dirs;
  ~ScratchRegistry() {
    if (std::getenv("TTGNN_KEEP_SCRATCH"))
      return;
    std::error_code ec;
    for (auto const &d : dirs)
      fs::remove_all(d, ec);
  }
};

/// A fresh empty folder under the system temp folder, unique to this process and \p name;
/// removed when the test program exits.
inline fs::path scratch_dir(std::string const &name) {
  static ScratchRegistry registry;
  fs::path dir =
      fs::temp_directory_path() / ("ttgnn_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  registry.dirs.push_back(dir);
  return dir;
}

} // namespace ttgnn::test

#endif
