// OutputTransaction: the outputs of a command appear together on commit(), or none of them;
// checkpoints (Commit::immediate) appear at once; the temporary files are removed either way.
#include "core/error.hpp"
#include "core/io/atomic_file.hpp"
#include "test_harness.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(std::string const &name) {
  const fs::path dir = fs::path(TTGNN_BINARY_DIR) / "test_scratch" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string read_all(fs::path const &p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::size_t count_files(fs::path const &dir) {
  return static_cast<std::size_t>(
      std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

} // namespace

TEST_CASE("output transaction: outputs appear together on commit, in place of the old ones") {
  const fs::path dir = fresh_dir("transaction_commit");
  ttgnn::write_file_atomic((dir / "a").string(), "old a");
  {
    ttgnn::OutputTransaction t;
    ttgnn::write_file_atomic((dir / "a").string(), "new a");
    ttgnn::write_file_atomic((dir / "b").string(), "new b");
    CHECK(read_all(dir / "a") == "old a"); // nothing renamed yet
    CHECK_FALSE(fs::exists(dir / "b"));
    CHECK(count_files(dir) == 3); // a and the two finished temporaries
    CHECK(t.pending() == std::vector<std::string>{(dir / "a").string(), (dir / "b").string()});
    t.commit();
    CHECK(t.pending().empty());
  }
  CHECK(read_all(dir / "a") == "new a");
  CHECK(read_all(dir / "b") == "new b");
  CHECK(count_files(dir) == 2);
  // closed: writes commit at once again
  ttgnn::write_file_atomic((dir / "c").string(), "c");
  CHECK(read_all(dir / "c") == "c");
}

TEST_CASE("output transaction: dropped without commit, no output appears and no temporary is "
          "left") {
  const fs::path dir = fresh_dir("transaction_drop");
  ttgnn::write_file_atomic((dir / "a").string(), "old a");
  try {
    ttgnn::OutputTransaction t;
    ttgnn::write_file_atomic((dir / "a").string(), "new a");
    ttgnn::write_file_atomic((dir / "b").string(), "new b");
    throw ttgnn::InputError("the run failed");
  } catch (ttgnn::InputError const &) {
  }
  CHECK(read_all(dir / "a") == "old a");
  CHECK_FALSE(fs::exists(dir / "b"));
  CHECK(count_files(dir) == 1);
}

TEST_CASE("output transaction: immediate writers (checkpoints) commit at once, one transaction "
          "at a time") {
  const fs::path dir = fresh_dir("transaction_immediate");
  ttgnn::OutputTransaction t;
  {
    ttgnn::AtomicFileWriter w((dir / "ckpt").string(), ttgnn::AtomicFileWriter::Commit::immediate);
    w.write("state");
    w.commit();
  }
  CHECK(read_all(dir / "ckpt") == "state");
  CHECK(t.pending().empty());
  CHECK_THROWS_AS(ttgnn::OutputTransaction(), ttgnn::InputError);
}
