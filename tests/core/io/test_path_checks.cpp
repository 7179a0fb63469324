// require_distinct_paths: an output never names another output or an input, whatever the
// spelling (relative, absolute, a symbolic or a hard link), and never replaces a file inside an
// input folder; an option that is both input and output (a resumed checkpoint) is allowed.
#include "core/error.hpp"
#include "core/io/path_checks.hpp"
#include "scratch_dir.hpp"
#include "test_harness.hpp"

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using ttgnn::NamedPath;
using ttgnn::require_distinct_paths;

namespace {

void touch(fs::path const &p) {
  std::ofstream(p) << "x";
}

/// The message of the ConfigError \p f throws ("" when it throws none).
template <class F> std::string error_of(F &&f) {
  try {
    f();
  } catch (ttgnn::ConfigError const &e) {
    return e.what();
  }
  return "";
}

bool contains(std::string const &s, std::string const &part) {
  return s.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("distinct paths: two outputs naming one file are refused, naming both options") {
  const fs::path dir = ttgnn::test::scratch_dir("paths_outputs");
  const std::string a = (dir / "out.npy").string();
  std::string e = error_of([&] {
    require_distinct_paths({}, {{"--predictions", a}, {"--metrics-out", a}});
  });
  CHECK(contains(e, "--predictions"));
  CHECK(contains(e, "--metrics-out"));
  // another spelling of the same path, before the file exists
  e = error_of([&] {
    require_distinct_paths(
        {}, {{"--predictions", a}, {"--curve-svg", (dir / "." / "out.npy").string()}});
  });
  CHECK(contains(e, "--curve-svg"));
  // through a symbolic link and a hard link to an existing file
  touch(dir / "out.npy");
  fs::create_symlink(dir / "out.npy", dir / "link.npy");
  fs::create_hard_link(dir / "out.npy", dir / "hard.npy");
  CHECK_FALSE(error_of([&] {
                require_distinct_paths({}, {{"--predictions", a},
                                            {"--export-embeddings", (dir / "link.npy").string()}});
              }).empty());
  CHECK_FALSE(error_of([&] {
                require_distinct_paths({}, {{"--predictions", a},
                                            {"--export-embeddings", (dir / "hard.npy").string()}});
              }).empty());
  // different files, and options not given, pass
  CHECK(error_of([&] {
          require_distinct_paths({}, {{"--predictions", a},
                                      {"--export-embeddings", (dir / "e.npy").string()},
                                      {"--metrics-out", ""},
                                      {"--curve-svg", ""}});
        }).empty());
}

TEST_CASE("distinct paths: an output may not overwrite an input, nor a file inside an input "
          "folder") {
  const fs::path dir = ttgnn::test::scratch_dir("paths_inputs");
  fs::create_directories(dir / "data" / "raw");
  touch(dir / "data" / "raw" / "edge.csv");
  touch(dir / "model.ckpt");
  const std::string ckpt = (dir / "model.ckpt").string();
  std::string e = error_of([&] {
    require_distinct_paths({{"--checkpoint", ckpt}}, {{"--predictions", ckpt}});
  });
  CHECK(contains(e, "--predictions"));
  CHECK(contains(e, "--checkpoint"));
  e = error_of([&] {
    require_distinct_paths({{"--dataset", (dir / "data").string()}},
                           {{"--predictions", (dir / "data" / "raw" / "edge.csv").string()}});
  });
  CHECK(contains(e, "--dataset"));
  // a new file inside the dataset folder replaces nothing; a file beside it is elsewhere
  CHECK(error_of([&] {
          require_distinct_paths({{"--dataset", (dir / "data").string()}},
                                 {{"--predictions", (dir / "data" / "p.npy").string()},
                                  {"--metrics-out", (dir / "data-m.csv").string()}});
        }).empty());
  // a resumed checkpoint is read and written by the same option
  CHECK(error_of([&] {
          require_distinct_paths({{"--checkpoint", ckpt}}, {{"--checkpoint", ckpt}});
        }).empty());
}

TEST_CASE("output files: a device is refused (the rename would replace it)") {
  std::string e;
  try {
    ttgnn::require_output_file("--predictions", "/dev/null");
  } catch (ttgnn::ConfigError const &err) {
    e = err.what();
  }
  CHECK(contains(e, "--predictions /dev/null: is not a regular file"));
}
