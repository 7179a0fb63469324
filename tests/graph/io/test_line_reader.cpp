// LineReader: plain and gzip, errors with file and line, and the block interface.
#include "core/error.hpp"
#include "graph/io/line_reader.hpp"
#include "graph_test_files.hpp"
#include "test_harness.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

fs::path scratch(std::string const &name) {
  static const fs::path dir = ttgnn::test::scratch_dir("line_reader"); // removed at exit
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

TEST_CASE("next_block returns whole lines with their line numbers") {
  std::string text;
  for (int i = 0; i < 1200000; ++i)
    text += std::to_string(i) + "\n";
  text += "tail";
  write_gz(scratch("blocks.csv.gz"), text);
  ttgnn::LineReader in(scratch("blocks.csv.gz").string());
  std::string_view first;
  REQUIRE(in.next(first)); // mixing next() and next_block() keeps the numbering
  CHECK(first == "0");
  std::string_view block;
  std::int64_t first_line = 0, expect_line = 2, blocks = 0;
  std::string rebuilt(first);
  rebuilt += "\n";
  while (in.next_block(block, first_line)) {
    CHECK(first_line == expect_line);
    expect_line += std::count(block.begin(), block.end(), '\n');
    ++blocks;
    rebuilt += block;
  }
  CHECK(blocks > 1); // 9 MB of text come in several ~4 MiB blocks
  CHECK(rebuilt == text);
  CHECK(in.line_number() == 1200001);
}
