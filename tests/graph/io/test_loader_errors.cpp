// Every way bad input is rejected, one case each: the message names the file, the line (for
// text) and what was expected. Each case breaks one file of an otherwise valid dataset.
#include "graph/io/edge_list_loader.hpp"
#include "graph/io/ogb_loader.hpp"
#include "graph_test_files.hpp"
#include "test_harness.hpp"

using namespace ttgnn::test;

namespace {

/// The message of loading \p dir (features read, split s1).
std::string load_error(fs::path const &dir) {
  ttgnn::LoadOptions o;
  o.split = "s1";
  return error_of([&] { ttgnn::load_ogb(dir.string(), o); });
}

/// A valid plain-text dataset with raw/NAME.csv replaced by \p text.
fs::path with_file(std::string const &case_name, std::string const &rel, std::string const &text) {
  const fs::path dir = write_small_ogb("err_" + case_name, false);
  write_text(dir / rel, text);
  return dir;
}

std::string path_in(fs::path const &dir, std::string const &rel) {
  return (dir / rel).string();
}

} // namespace

TEST_CASE("the valid dataset used below loads") {
  CHECK(load_error(write_small_ogb("err_valid", false)).empty());
}

TEST_CASE("malformed edge line") {
  auto dir = with_file("sep", "raw/edge.csv", "0,1\n1,2\n2;0\n3,4\n1,0\n");
  CHECK(load_error(dir) ==
        path_in(dir, "raw/edge.csv") + ":3: expected two node ids separated by ',', got '2;0'");
}

TEST_CASE("non-integer node id") {
  auto dir = with_file("nonint", "raw/edge.csv", "0,1\n1,2.5\n2,0\n3,4\n1,0\n");
  CHECK(load_error(dir) ==
        path_in(dir, "raw/edge.csv") + ":2: expected an integer node id, got '2.5'");
}

TEST_CASE("negative node id") {
  auto dir = with_file("neg", "raw/edge.csv", "0,1\n1,2\n2,0\n-3,4\n1,0\n");
  CHECK(load_error(dir) == path_in(dir, "raw/edge.csv") + ":4: node id -3 is negative");
}

TEST_CASE("node id >= N") {
  auto dir = with_file("big", "raw/edge.csv", "0,1\n1,2\n2,0\n3,4\n1,6\n");
  CHECK(load_error(dir) == path_in(dir, "raw/edge.csv") + ":5: node id 6 >= number of nodes 6");
}

TEST_CASE("edge count differs from num-edge-list") {
  auto dir = with_file("count", "raw/edge.csv", "0,1\n1,2\n2,0\n3,4\n");
  CHECK(load_error(dir) ==
        path_in(dir, "raw/edge.csv") + ": 4 edges but the edge count file says 5");
}

TEST_CASE("label outside [0, C) with C from meta.csv") {
  auto dir = with_file("label_c", "raw/node-label.csv", "0\n1\nnan\n3\n0\n1\n");
  CHECK(load_error(dir) ==
        path_in(dir, "raw/node-label.csv") +
            ":4: node 3 has label 3, outside [0, 3) (num_classes 3 from meta.csv)");
}

TEST_CASE("negative or non-numeric label") {
  auto dir = with_file("label_neg", "raw/node-label.csv", "0\n1\nnan\n-1\n0\n1\n");
  CHECK(load_error(dir) == path_in(dir, "raw/node-label.csv") +
                               ":4: expected a non-negative integer label or nan, got '-1'");
  auto dir2 = with_file("label_txt", "raw/node-label.csv", "0\n1\nnan\ncat\n0\n1\n");
  CHECK(
      contains(load_error(dir2), "node-label.csv:4: expected a non-negative integer label or nan"));
}

TEST_CASE("label file with the wrong number of rows, or a ragged multi-label row") {
  auto dir = with_file("label_rows", "raw/node-label.csv", "0\n1\nnan\n2\n0\n");
  CHECK(load_error(dir) == path_in(dir, "raw/node-label.csv") + ": 5 label lines for 6 nodes");
  // Two columns: multi-label (one column per task); row 3 has one.
  auto dir2 = with_file("label_multi", "raw/node-label.csv", "0,1\n1,0\n0\n1,1\n0,1\n1,0\n");
  CHECK(load_error(dir2) == path_in(dir2, "raw/node-label.csv") +
                                ":3: expected 2 comma-separated labels (as on line 1), got 1");
  auto dir3 =
      with_file("label_multi_value", "raw/node-label.csv", "0,1\n1,0\n0,1\n1,3\n0,1\n1,0\n");
  CHECK(load_error(dir3) ==
        path_in(dir3, "raw/node-label.csv") +
            ":4: label 2 is '3', expected 0, 1, or -1 / nan / an empty field for unknown");
}

TEST_CASE("NaN or Inf feature") {
  ttgnn::test::FpTrapOff guard;
  auto dir = with_file("nan", "raw/node-feat.csv", "1,0.5\n2,-1.25\n3,nan\n4,0\n5,7\n6,-0\n");
  CHECK(load_error(dir) ==
        path_in(dir, "raw/node-feat.csv") + ":3: feature value in column 2 is NaN or Inf");
  auto dir2 = with_file("inf", "raw/node-feat.csv", "1,0.5\n2,-1.25\n3,1\n4,0\n-inf,7\n6,-0\n");
  CHECK(load_error(dir2) ==
        path_in(dir2, "raw/node-feat.csv") + ":5: feature value in column 1 is NaN or Inf");
}

TEST_CASE("ragged feature rows") {
  auto dir = with_file("ragged_short", "raw/node-feat.csv", "1,0.5\n2,-1.25\n3\n4,0\n5,7\n6,-0\n");
  CHECK(load_error(dir) ==
        path_in(dir, "raw/node-feat.csv") +
            ":3: expected 2 comma-separated values (as on the first row), got 1");
  auto dir2 =
      with_file("ragged_long", "raw/node-feat.csv", "1,0.5\n2,-1.25\n3,1\n4,0,9\n5,7\n6,-0\n");
  CHECK(load_error(dir2) ==
        path_in(dir2, "raw/node-feat.csv") +
            ":4: expected 2 comma-separated values (as on the first row), got 3");
}

TEST_CASE("non-numeric feature and missing feature rows") {
  auto dir = with_file("feat_text", "raw/node-feat.csv", "1,0.5\n2,x\n3,1\n4,0\n5,7\n6,-0\n");
  CHECK(load_error(dir) ==
        path_in(dir, "raw/node-feat.csv") + ":2: expected a number in column 2, got 'x'");
  auto dir2 = with_file("feat_rows", "raw/node-feat.csv", "1,0.5\n2,1\n3,1\n4,0\n5,7\n");
  CHECK(load_error(dir2) == path_in(dir2, "raw/node-feat.csv") + ": 5 feature rows for 6 nodes");
}

TEST_CASE("truncated gzip") {
  const fs::path dir = write_small_ogb("err_gz_cut", true);
  std::string text;
  for (int i = 0; i < 20000; ++i)
    text += std::to_string(i % 6) + "," + std::to_string((i * 7) % 6) + "\n";
  write_gz(dir / "raw/edge.csv.gz", text);
  const std::string bytes = read_bytes(dir / "raw/edge.csv.gz");
  write_text(dir / "raw/edge.csv.gz", bytes.substr(0, bytes.size() / 2));
  const std::string msg = load_error(dir);
  CHECK(contains(msg, path_in(dir, "raw/edge.csv.gz")));
  CHECK(contains(msg, "truncated"));
}

TEST_CASE("corrupt gzip") {
  const fs::path dir = write_small_ogb("err_gz_bad", true);
  std::string text;
  for (int i = 0; i < 20000; ++i)
    text += std::to_string(i % 6) + "," + std::to_string((i * 5) % 6) + "\n";
  write_gz(dir / "raw/edge.csv.gz", text);
  std::string bytes = read_bytes(dir / "raw/edge.csv.gz");
  for (std::size_t i = 20; i < 40; ++i)
    bytes[i] = static_cast<char>(bytes[i] ^ 0x3c);
  write_text(dir / "raw/edge.csv.gz", bytes);
  const std::string msg = load_error(dir);
  CHECK(contains(msg, path_in(dir, "raw/edge.csv.gz")));
  CHECK((contains(msg, "corrupt") || contains(msg, "truncated")));
}

TEST_CASE("truncated or corrupt zip (papers100M layout)") {
  const fs::path dir = scratch_dir("err_zip");
  write_text(dir / "raw/data.npz", "PK\x03\x04 this is not a complete zip archive");
  CHECK(contains(error_of([&] { ttgnn::load_ogb(dir.string()); }),
                 path_in(dir, "raw/data.npz") + ": not a readable zip archive"));
}

TEST_CASE("missing required files and folders") {
  auto dir = write_small_ogb("err_missing", false);
  fs::remove(dir / "raw/num-node-list.csv");
  CHECK(load_error(dir) == path_in(dir, "raw/num-node-list") + ".csv[.gz]: missing required file");
  auto dir2 = write_small_ogb("err_missing_split", false);
  fs::remove(dir2 / "split/s1/valid.csv");
  CHECK(load_error(dir2) == path_in(dir2, "split/s1/valid") + ".csv[.gz]: missing required file");
  ttgnn::LoadOptions o;
  o.split = "nosuch";
  CHECK(error_of([&] { ttgnn::load_ogb(dir2.string(), o); }) ==
        path_in(dir2, "split/nosuch") + ": split folder not found (available: s1)");
  CHECK(error_of([] { ttgnn::load_ogb("/nonexistent/dataset"); }) ==
        "/nonexistent/dataset: dataset folder not found");
  const fs::path empty = scratch_dir("err_empty");
  CHECK(load_error(empty) ==
        path_in(empty, "raw") + ": missing required folder (not an OGB layout)");
}

TEST_CASE("split id out of range, meta.csv disagreeing with the count files") {
  auto dir = with_file("split_id", "split/s1/test.csv", "3\n9\n");
  CHECK(load_error(dir) ==
        path_in(dir, "split/s1/test.csv") + ":2: node id 9 >= number of nodes 6");
  auto dir2 = with_file("meta_n", "meta.csv", "key,value\nnum_nodes,7\n");
  CHECK(load_error(dir2) == path_in(dir2, "meta.csv") + ": num_nodes 7 but " +
                                path_in(dir2, "raw/num-node-list.csv") + " says 6");
  auto dir3 = with_file("count_text", "raw/num-node-list.csv", "six\n");
  CHECK(load_error(dir3) == path_in(dir3, "raw/num-node-list.csv") +
                                ":1: expected one non-negative integer, got 'six'");
}

TEST_CASE("a split that lists a node twice") {
  auto dir = with_file("split_twice", "split/s1/valid.csv", "4\n5\n4\n");
  CHECK(load_error(dir) == path_in(dir, "split/s1/valid.csv") +
                               ":3: node 4 is listed twice (a split lists each node once)");
}

TEST_CASE("a split that lists an unlabelled node") {
  auto dir = with_file("split_unlabelled", "split/s1/test.csv", "3\n4\n2\n");
  CHECK(load_error(dir) == path_in(dir, "split/s1/test.csv") +
                               ":3: node 2 is unlabelled in the label file; a split lists "
                               "labelled nodes only");
}

TEST_CASE("generic edge list: bad line, id >= num_nodes, bad .npy labels/features") {
  ttgnn::test::FpTrapOff guard;
  const fs::path dir = scratch_dir("err_generic");
  write_text(dir / "edges.txt", "# comment\nsrc dst\n0 1\n1 2 3\n");
  CHECK(error_of([&] { ttgnn::load_edge_list((dir / "edges.txt").string()); }) ==
        (dir / "edges.txt").string() +
            ":4: expected two node ids separated by ',', a tab or spaces, got '1 2 3'");
  write_text(dir / "edges2.txt", "0\t1\n1\t4\n");
  ttgnn::GenericOptions g;
  g.num_nodes = 4;
  CHECK(error_of([&] { ttgnn::load_edge_list((dir / "edges2.txt").string(), g); }) ==
        (dir / "edges2.txt").string() + ":2: node id 4 >= number of nodes 4");

  write_text(dir / "edges3.txt", "0,1\n1,2\n");
  write_text(dir / "labels.npy", npy_bytes("<i8", {3}, std::vector<std::int64_t>{0, 5, 1}));
  g = {};
  g.labels_npy = (dir / "labels.npy").string();
  g.num_classes = 3;
  CHECK(error_of([&] { ttgnn::load_edge_list((dir / "edges3.txt").string(), g); }) ==
        g.labels_npy +
            ": node 1 has label 5, outside [0, 3) (num_classes 3 from the num_classes option)");
  write_text(dir / "labels_frac.npy", npy_bytes("<f4", {3}, std::vector<float>{0, 1.5f, 1}));
  g.labels_npy = (dir / "labels_frac.npy").string();
  CHECK(contains(error_of([&] { ttgnn::load_edge_list((dir / "edges3.txt").string(), g); }),
                 "labels_frac.npy: label of node 1 is 1.5"));

  g = {};
  const float inf = std::numeric_limits<float>::infinity();
  write_text(dir / "feat.npy", npy_bytes("<f4", {3, 2}, std::vector<float>{0, 1, 2, inf, 4, 5}));
  g.features_npy = (dir / "feat.npy").string();
  CHECK(error_of([&] { ttgnn::load_edge_list((dir / "edges3.txt").string(), g); }) ==
        g.features_npy + ": feature of node 1, column 1 is NaN or Inf");
  write_text(dir / "feat4.npy", npy_bytes("<f4", {4, 1}, std::vector<float>{0, 1, 2, 3}));
  write_text(dir / "labels3.npy", npy_bytes("<i4", {3}, std::vector<std::int32_t>{0, 1, 1}));
  g.features_npy = (dir / "feat4.npy").string();
  g.labels_npy = (dir / "labels3.npy").string();
  CHECK(error_of([&] { ttgnn::load_edge_list((dir / "edges3.txt").string(), g); }) ==
        g.features_npy + ": 4 rows, expected 3 (as in the labels file)");
  CHECK(error_of([&] { ttgnn::load_edge_list((dir / "none.txt").string()); }) ==
        (dir / "none.txt").string() + ": missing required file");
}
