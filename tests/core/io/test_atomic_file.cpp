// AtomicFileWriter: a file appears whole on commit() or not at all; the temporary file lives
// next to the destination and is removed when the writer is dropped; stale temporaries of a
// killed writer are found by name; the paths of track_temporary go on a signal.
#include "core/io/atomic_file.hpp"
#include "core/error.hpp"
#include "scratch_dir.hpp"
#include "signal_test_util.hpp"
#include "test_harness.hpp"

#include <sys/stat.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(std::string const &name) {
  return ttgnn::test::scratch_dir(name);
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

TEST_CASE("atomic file: commit renames the whole content into place") {
  const fs::path dir = fresh_dir("atomic_commit");
  const fs::path out = dir / "out.bin";
  {
    ttgnn::AtomicFileWriter w(out.string());
    w.write("abc", 3);
    w.write(std::string("\0def", 4));
    w.write(nullptr, 0);          // an empty section: nothing, and no null pointer reaches fwrite
    CHECK_FALSE(fs::exists(out)); // nothing at the destination before commit
    CHECK(count_files(dir) == 1); // the temporary, in the same folder
    w.commit();
    CHECK_THROWS_AS(w.commit(), ttgnn::InputError);
    CHECK_THROWS_AS(w.write("x", 1), ttgnn::InputError);
  }
  CHECK(read_all(out) == std::string("abc\0def", 7));
  CHECK(count_files(dir) == 1);
  // mode as fopen would give it: 0666 less the umask (mkstemp alone gives 0600)
  const mode_t mask = ::umask(0);
  ::umask(mask);
  CHECK((fs::status(out).permissions() & fs::perms::all) == static_cast<fs::perms>(0666 & ~mask));
}

TEST_CASE("atomic file: a writer dropped before commit leaves the old file and no temporary") {
  const fs::path dir = fresh_dir("atomic_abort");
  const fs::path out = dir / "out.txt";
  ttgnn::write_file_atomic(out.string(), "old\n");
  {
    ttgnn::AtomicFileWriter w(out.string());
    w.write("new, half written");
  }
  CHECK(read_all(out) == "old\n");
  CHECK(count_files(dir) == 1);
}

TEST_CASE("atomic file: errors name the path") {
  const fs::path dir = fresh_dir("atomic_errors");
  const std::string missing = (dir / "no" / "such" / "folder" / "out.txt").string();
  try {
    ttgnn::AtomicFileWriter w(missing);
    FAIL("a writer into a missing folder must throw");
  } catch (ttgnn::InputError const &e) {
    CHECK(std::string(e.what()).find(missing) != std::string::npos);
  }
  CHECK_THROWS_AS(ttgnn::AtomicFileWriter(""), ttgnn::InputError);
}

TEST_CASE("atomic file: remove_stale_temporaries removes only PATH.tmp-XXXXXX") {
  const fs::path dir = fresh_dir("atomic_stale");
  const fs::path out = dir / "model.ckpt";
  for (char const *name :
       {"model.ckpt.tmp-a1B2c3", "model.ckpt.tmp-zzzzzz", // stale
        "model.ckpt.tmp-short", "model.ckpt.tmp-toolong1", "other.tmp-a1B2c3", "model.ckpt"})
    std::ofstream(dir / name) << "x";
  CHECK(ttgnn::remove_stale_temporaries(out.string()) == 2);
  CHECK_FALSE(fs::exists(dir / "model.ckpt.tmp-a1B2c3"));
  CHECK_FALSE(fs::exists(dir / "model.ckpt.tmp-zzzzzz"));
  CHECK(count_files(dir) == 4);
  CHECK(fs::exists(dir / "model.ckpt"));
}

// OutputTransaction: the outputs of a command appear together on commit(), or none of them;
// checkpoints (Commit::immediate) appear at once; the temporary files are removed either way.
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

TEST_CASE("track_temporary: a signal removes the listed files and empty folders, nothing else") {
  const fs::path root = fresh_dir("tracked");
  const fs::path tree = root / "tree", kept = root / "kept";
  // the child lists a tree of folders and files, then is stopped by SIGTERM
  CHECK(ttgnn::test::signal_ending_child([&] {
          for (fs::path const &folder : {tree, tree / "a", tree / "a" / "b", kept}) {
            ttgnn::track_temporary(folder.string(), true);
            fs::create_directories(folder);
          }
          for (fs::path const &file : {tree / "x", tree / "a" / "b" / "y"}) {
            ttgnn::track_temporary(file.string(), false);
            std::ofstream(file) << "data";
          }
          std::ofstream(kept / "unlisted") << "stays";
        }) == SIGTERM);
  CHECK(!fs::exists(tree));                      // files, then folders deepest first
  CHECK(read_all(kept / "unlisted") == "stays"); // a folder with an unlisted file stays, whole
}
