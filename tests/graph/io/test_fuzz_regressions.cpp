// Regression tests for what the libFuzzer targets in tests/fuzz found (scripts/fuzz.sh): each
// input here once crashed, hung, hit undefined behaviour or asked for absurd memory; now it
// gives a clean InputError (or, for the cache, a rejected file).
#include "core/io/checksum.hpp"
#include "graph/io/edge_list_loader.hpp"
#include "graph/io/graph_cache.hpp"
#include "graph/io/npy_reader.hpp"
#include "graph/io/table_readers.hpp"
#include "graph_test_files.hpp"
#include "test_harness.hpp"

#include <zip.h>

#include <iterator>

using namespace ttgnn::test;

TEST_CASE("fuzz: checksum of zero bytes at a null pointer (empty cache sections)") {
  // UBSan: "applying non-zero offset 8 to null pointer" in checksum64 for an empty View.
  // 0xef46db3751d8e999 is XXH64 of the empty input with seed 0 (xxHash reference).
  const char byte = 0;
  CHECK(ttgnn::checksum64(nullptr, 0, 0) == 0xef46db3751d8e999ULL);
  CHECK(ttgnn::checksum64(nullptr, 0, 42) == ttgnn::checksum64(&byte, 0, 42));
  CHECK(ttgnn::parallel_checksum64(nullptr, 0, 7) == ttgnn::checksum64(&byte, 0, 7));
}

TEST_CASE("fuzz: an .npy header promising more data than the file holds") {
  // Was: read_features_npy / read_labels_npy allocated 4e12 elements (ASan
  // allocation-size-too-big); load_edge_list takes N from that shape.
  const fs::path dir = scratch_dir("fuzz_npy");
  const std::vector<float> three{1, 2, 3};
  write_text(dir / "big.npy", npy_bytes("<f4", {4000000000000}, three));
  const std::string path = (dir / "big.npy").string();
  CHECK(contains(error_of([&] { ttgnn::io::npy_shape(path, ""); }), "data end early"));
  CHECK(contains(error_of([&] { ttgnn::io::read_features_npy(path, "", 4000000000000); }),
                 "only 12 bytes follow"));
  CHECK(contains(error_of([&] { ttgnn::io::read_labels_npy(path, "", 4000000000000); }),
                 "data end early"));
  // the exact fit still loads
  write_text(dir / "ok.npy", npy_bytes("<f4", {3}, three));
  auto x = ttgnn::io::read_features_npy((dir / "ok.npy").string(), "", 3);
  CHECK(x(2, 0) == 3.0f);
}

TEST_CASE("fuzz: an .npy shape whose product overflows int64") {
  // Was: UBSan signed integer overflow in NpyHeader::num_elements().
  CHECK(contains(error_of([] {
                   ttgnn::parse_npy_header("{'descr': '<f4', 'fortran_order': False, 'shape': "
                                           "(4000000000000, 4000000000000), }",
                                           "f.npy");
                 }),
                 "more than 2^63 elements"));
}

TEST_CASE("fuzz: an .npz member whose .npy header promises more than the member holds") {
  const fs::path dir = scratch_dir("fuzz_npz");
  const std::vector<std::int64_t> edges{0, 1, 1, 2};
  const std::string bytes = npy_bytes("<i8", {2, 1000000000000}, edges);
  for (bool deflate : {false, true}) {
    const fs::path npz = dir / (deflate ? "deflated.npz" : "stored.npz");
    int err = 0;
    zip_t *z = zip_open(npz.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
    REQUIRE(z != nullptr);
    zip_source_t *src = zip_source_buffer(z, bytes.data(), bytes.size(), 0);
    const zip_int64_t idx = zip_file_add(z, "edge_index.npy", src, ZIP_FL_OVERWRITE);
    REQUIRE(idx >= 0);
    zip_set_file_compression(z, static_cast<zip_uint64_t>(idx),
                             deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0);
    REQUIRE(zip_close(z) == 0);
    // Was: read_edges_npz resized its arrays to 1e12 edges before reading any.
    CHECK(contains(error_of([&] {
                     ttgnn::io::read_edges_npz<std::int64_t>(npz.string(), "edge_index.npy", 0);
                   }),
                   "data end early"));
  }
}

TEST_CASE("fuzz: an edge list whose one stray id would make N huge") {
  // Was: "0,633\n0,000...138904762" made load_edge_list build a 139M-node CSR (libFuzzer
  // timeout, ~2 GB). N taken from the largest id must leave most nodes an edge.
  const fs::path dir = scratch_dir("fuzz_edges");
  write_text(dir / "stray.csv", "0,633\n0,138904762\n");
  const std::string msg =
      error_of([&] { ttgnn::load_edge_list<std::int32_t>((dir / "stray.csv").string()); });
  CHECK(contains(msg, "largest node id 138904762 but only 2 edges"));
  CHECK(contains(msg, "num_nodes"));
  // contiguous ids and isolated nodes within reason still load
  write_text(dir / "fine.csv", "0,1\n5,2\n");
  CHECK(ttgnn::load_edge_list<std::int32_t>((dir / "fine.csv").string()).num_nodes() == 6);
}

TEST_CASE("fuzz: a cache whose row_map runs past the entries, then comes back") {
  // Was: check_structure walked row 0 over entries [0, 100) of 5 before seeing row 1 go
  // backwards (ASan heap-buffer-overflow). The checksum is right: only the structure is wrong.
  const fs::path dir = scratch_dir("fuzz_cache");
  ttgnn::Dataset<std::int32_t> d;
  d.name = "bad";
  d.graph.row_map = decltype(d.graph.row_map)("row_map", 3);
  d.graph.row_map(1) = 100;
  d.graph.row_map(2) = 5;
  d.graph.entries = decltype(d.graph.entries)("entries", 5);
  const std::string path = (dir / "bad.ttgnn").string();
  ttgnn::write_graph_cache(path, "key", d);
  ttgnn::Dataset<std::int32_t> out;
  std::string detail;
  CHECK(ttgnn::read_graph_cache(path, "key", out, &detail) == ttgnn::CacheStatus::corrupt);
  CHECK(contains(detail, "CSR rows out of order"));
}

TEST_CASE("fuzz: a cache header with a negative feature row count and a huge column count") {
  // tests/fuzz/regressions/fuzz_graph_cache/crash-efe2...: found on the 16-core machine (UBSan
  // signed overflow in the fuzz target's own size arithmetic, now fixed there). The reader must
  // reject the file (it says why) without overflowing either.
  std::ifstream in(std::string(TTGNN_SOURCE_DIR) + "/tests/fuzz/regressions/fuzz_graph_cache/"
                                                   "crash-efe2edff7b795c39fdf68833c70412931103b938",
                   std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(bytes.size() > 1);
  const fs::path dir = scratch_dir("fuzz_cache_sizes");
  write_text(dir / "g.cache", bytes.substr(1)); // the first byte is the target's mode byte
  for (std::string key : {"", "key"}) {
    ttgnn::Dataset<std::int32_t> out;
    std::string detail;
    CHECK(ttgnn::read_graph_cache((dir / "g.cache").string(), key, out, &detail) !=
          ttgnn::CacheStatus::hit);
    CHECK(!detail.empty());
  }
}
