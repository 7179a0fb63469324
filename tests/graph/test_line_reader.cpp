// LineReader (plain and gzip, errors with file and line) and the OGB summary of bundled Cora.
#include "core/error.hpp"
#include "graph/line_reader.hpp"
#include "graph/ogb_summary.hpp"
#include "test_harness.hpp"

#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

fs::path scratch(std::string const &name) {
  fs::path dir = fs::temp_directory_path() / ("ttgnn_test_line_reader_" + std::to_string(getpid()));
  fs::create_directories(dir);
  return dir / name;
}

void write_gz(fs::path const &path, std::string const &text) {
  gzFile gz = gzopen(path.c_str(), "wb");
  REQUIRE(gz != nullptr);
  gzwrite(gz, text.data(), static_cast<unsigned>(text.size()));
  gzclose(gz);
}

std::vector<std::string> read_all(fs::path const &path) {
  ttgnn::LineReader in(path.string());
  std::vector<std::string> lines;
  std::string_view line;
  while (in.next(line))
    lines.emplace_back(line);
  return lines;
}

std::string error_of(std::function<void()> const &f) {
  try {
    f();
  } catch (ttgnn::InputError const &e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST_CASE("line reader returns the same lines from plain and gzip files") {
  const std::string text = "a,b\r\n1,2\n\nlast-without-newline";
  const std::vector<std::string> expect{"a,b", "1,2", "", "last-without-newline"};
  std::ofstream(scratch("plain.csv")) << text;
  write_gz(scratch("packed.csv.gz"), text);
  CHECK(read_all(scratch("plain.csv")) == expect);
  CHECK(read_all(scratch("packed.csv.gz")) == expect);
}

TEST_CASE("line reader handles lines longer than its buffer") {
  std::string big(3 << 20, 'x');
  write_gz(scratch("long.csv.gz"), big + "\nshort\n");
  auto lines = read_all(scratch("long.csv.gz"));
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == big);
  CHECK(lines[1] == "short");
}

TEST_CASE("line reader errors name the file and line") {
  std::ofstream(scratch("three.csv")) << "1\n2\n3\n";
  ttgnn::LineReader in(scratch("three.csv").string());
  std::string_view line;
  in.next(line);
  in.next(line);
  const std::string msg = error_of([&] { in.fail("expected a label"); });
  CHECK(msg == scratch("three.csv").string() + ":2: expected a label");

  CHECK(error_of([] {
          ttgnn::LineReader r("/nonexistent/edge.csv");
        }).find("/nonexistent/edge.csv: cannot open") == 0);
}

TEST_CASE("a truncated gzip file is an error, not a short file") {
  std::string text;
  for (int i = 0; i < 20000; ++i)
    text += std::to_string(i * 7919 % 100003) + "," + std::to_string(i) + "\n";
  write_gz(scratch("full.csv.gz"), text);
  std::ifstream full(scratch("full.csv.gz"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(full)), {});
  std::ofstream(scratch("cut.csv.gz"), std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  const std::string msg = error_of([] { read_all(scratch("cut.csv.gz")); });
  CHECK(msg.find(scratch("cut.csv.gz").string()) == 0);
  CHECK(msg.find("truncated") != std::string::npos);
}

TEST_CASE("OGB summary of the bundled Cora matches its provenance") {
  const auto s = ttgnn::read_ogb_summary(TTGNN_SOURCE_DIR "/datasets/cora");
  CHECK(s.num_nodes == 2708);
  CHECK(s.num_edges == 5278);
  CHECK(s.num_classes == 7);
  CHECK(s.num_labelled == 2708);
  CHECK(s.num_features == 1433);
  CHECK(s.class_counts == std::vector<std::int64_t>{351, 217, 418, 818, 426, 298, 180});
}

TEST_CASE("OGB summary rejects a missing count file and a bad label") {
  const fs::path dir = scratch("bad_ogb");
  fs::create_directories(dir / "raw");
  CHECK(error_of([&] { ttgnn::read_ogb_summary(dir.string()); }).find("missing required file") !=
        std::string::npos);
  std::ofstream(dir / "raw" / "num-node-list.csv") << "3\n";
  std::ofstream(dir / "raw" / "num-edge-list.csv") << "2\n";
  std::ofstream(dir / "raw" / "node-label.csv") << "0\n-1\n1\n";
  CHECK(error_of([&] { ttgnn::read_ogb_summary(dir.string()); }) ==
        (dir / "raw" / "node-label.csv").string() +
            ":2: expected a non-negative integer label or nan, got '-1'");
}
