// NpyReader: dtypes, header versions, Fortran order, .npz members (stored and deflated through
// libzip), and the errors for truncated, corrupt or unsupported input.
#include "graph/io/npy_reader.hpp"
#include "graph_test_files.hpp"
#include "test_harness.hpp"

#include <zip.h>

#include <cmath>
#include <limits>

using namespace ttgnn::test;

namespace {

/// Writes an .npz (zip) with the given members, all stored or all deflated.
void write_npz(fs::path const &path,
               std::vector<std::pair<std::string, std::string>> const &members, bool deflate) {
  int err = 0;
  zip_t *z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  REQUIRE(z != nullptr);
  for (auto const &[name, bytes] : members) {
    zip_source_t *src = zip_source_buffer(z, bytes.data(), bytes.size(), 0);
    const zip_int64_t idx = zip_file_add(z, name.c_str(), src, ZIP_FL_OVERWRITE);
    REQUIRE(idx >= 0);
    zip_set_file_compression(z, static_cast<zip_uint64_t>(idx),
                             deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0);
  }
  REQUIRE(zip_close(z) == 0);
}

std::vector<std::int64_t> read_ints(ttgnn::NpyReader &r) {
  std::vector<std::int64_t> v(r.remaining());
  r.read(v.data(), v.size());
  return v;
}

} // namespace

TEST_CASE("npy integer dtypes read back exactly, v1 and v2 headers") {
  const fs::path dir = scratch_dir("npy_ints");
  const std::vector<std::int64_t> i8{0, -1, 5, 1LL << 40, 7, 9};
  write_text(dir / "i8.npy", npy_bytes("<i8", {2, 3}, i8));
  write_text(dir / "i8v2.npy", npy_bytes("<i8", {2, 3}, i8, false, true));
  const std::vector<std::int32_t> i4{3, -4, 2147483647};
  write_text(dir / "i4.npy", npy_bytes("<i4", {3}, i4));
  const std::vector<std::uint8_t> b1{1, 0, 1};
  write_text(dir / "b1.npy", npy_bytes("|b1", {3}, b1));
  for (char const *name : {"i8.npy", "i8v2.npy"}) {
    auto r = ttgnn::NpyReader::open_file((dir / name).string());
    CHECK(r.header().shape == std::vector<std::int64_t>{2, 3});
    CHECK(r.header().kind == 'i');
    CHECK(r.header().item_size == 8);
    CHECK_FALSE(r.header().fortran_order);
    CHECK(read_ints(r) == i8);
  }
  auto r4 = ttgnn::NpyReader::open_file((dir / "i4.npy").string());
  CHECK(r4.header().shape == std::vector<std::int64_t>{3});
  CHECK(read_ints(r4) == std::vector<std::int64_t>{3, -4, 2147483647});
  auto rb = ttgnn::NpyReader::open_file((dir / "b1.npy").string());
  CHECK(read_ints(rb) == std::vector<std::int64_t>{1, 0, 1});
}

TEST_CASE("npy float dtypes: f2 (incl. subnormal, inf, nan), f4, f8") {
  ttgnn::test::FpTrapOff guard; // NaN on purpose
  const fs::path dir = scratch_dir("npy_floats");
  // 1, -2, 0.5, 2^-24 (smallest subnormal), 65504 (largest), -0, +inf, nan
  const std::vector<std::uint16_t> f2{0x3C00, 0xC000, 0x3800, 0x0001,
                                      0x7BFF, 0x8000, 0x7C00, 0x7E00};
  write_text(dir / "f2.npy", npy_bytes("<f2", {8}, f2));
  auto r = ttgnn::NpyReader::open_file((dir / "f2.npy").string());
  std::vector<float> x(8);
  r.read(x.data(), 8);
  CHECK(x[0] == 1.0f);
  CHECK(x[1] == -2.0f);
  CHECK(x[2] == 0.5f);
  CHECK(x[3] == std::ldexp(1.0f, -24));
  CHECK(x[4] == 65504.0f);
  CHECK((x[5] == 0.0f && std::signbit(x[5])));
  CHECK(std::isinf(x[6]));
  CHECK(std::isnan(x[7]));
  CHECK(ttgnn::half_to_float(0x0200) == std::ldexp(1.0f, -15)); // subnormal 2^-15

  const std::vector<double> f8{0.1, -3.5, 1e300};
  write_text(dir / "f8.npy", npy_bytes("<f8", {3}, f8));
  auto r8 = ttgnn::NpyReader::open_file((dir / "f8.npy").string());
  std::vector<double> y(3);
  r8.read(y.data(), 3);
  CHECK(y == f8);
  const std::vector<float> f4{1.25f, -0.0625f};
  write_text(dir / "f4.npy", npy_bytes("<f4", {1, 2}, f4));
  auto r4 = ttgnn::NpyReader::open_file((dir / "f4.npy").string());
  std::vector<double> z(2);
  r4.read(z.data(), 2);
  CHECK(z == std::vector<double>{1.25, -0.0625});
  // floats are not node ids
  auto r4b = ttgnn::NpyReader::open_file((dir / "f4.npy").string());
  std::int64_t id;
  CHECK(contains(error_of([&] { r4b.read(&id, 1); }), "expected an integer dtype"));
}

TEST_CASE("npy header parsing: Fortran order, scalars, unsupported dtypes") {
  auto h =
      ttgnn::parse_npy_header("{'descr': '<f4', 'fortran_order': True, 'shape': (4, 3), }", "x");
  CHECK(h.fortran_order);
  CHECK(h.shape == std::vector<std::int64_t>{4, 3});
  CHECK(h.num_elements() == 12);
  auto s = ttgnn::parse_npy_header("{'descr': '<i8', 'fortran_order': False, 'shape': (), }", "x");
  CHECK(s.shape.empty());
  CHECK(s.num_elements() == 1);
  CHECK(contains(error_of([] {
                   ttgnn::parse_npy_header(
                       "{'descr': '>i8', 'fortran_order': False, 'shape': (2,), }", "big.npy");
                 }),
                 "big.npy: unsupported .npy dtype '>i8'"));
  CHECK(contains(error_of([] {
                   ttgnn::parse_npy_header(
                       "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", "c.npy");
                 }),
                 "unsupported .npy dtype"));
  CHECK(contains(error_of([] {
                   ttgnn::parse_npy_header(
                       "{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (2,), }",
                       "s.npy");
                 }),
                 "structured arrays"));
  CHECK(contains(
      error_of([] { ttgnn::parse_npy_header("{'descr': '<i4', 'shape': (2,), }", "f.npy"); }),
      "no 'fortran_order' entry"));
}

TEST_CASE("npy errors: bad magic, truncated data, missing file") {
  const fs::path dir = scratch_dir("npy_errors");
  write_text(dir / "text.npy", "0,1\n1,2\n");
  CHECK(contains(error_of([&] { ttgnn::NpyReader::open_file((dir / "text.npy").string()); }),
                 "not a .npy array"));
  const std::vector<std::int64_t> v(100, 3);
  std::string bytes = npy_bytes("<i8", {100}, v);
  write_text(dir / "cut.npy", bytes.substr(0, bytes.size() - 40));
  // the header promises 800 bytes and 760 follow: rejected when opened, before callers allocate
  CHECK(contains(error_of([&] { ttgnn::NpyReader::open_file((dir / "cut.npy").string()); }),
                 "data end early"));
  CHECK(contains(error_of([&] { ttgnn::NpyReader::open_file((dir / "none.npy").string()); }),
                 "none.npy: cannot open"));
}

TEST_CASE("npz members, stored and deflated") {
  const fs::path dir = scratch_dir("npz");
  std::vector<std::int64_t> edges(2 * 5000);
  for (std::size_t i = 0; i < edges.size(); ++i)
    edges[i] = static_cast<std::int64_t>((i * 7919) % 1000);
  const std::vector<float> feat{1, 2, 3, 4, 5, 6};
  for (bool deflate : {false, true}) {
    const fs::path npz = dir / (deflate ? "deflated.npz" : "stored.npz");
    write_npz(npz,
              {{"edge_index.npy", npy_bytes("<i8", {2, 5000}, edges)},
               {"node_feat.npy", npy_bytes("<f4", {3, 2}, feat)}},
              deflate);
    auto names = ttgnn::NpyReader::npz_members(npz.string());
    CHECK(names == std::vector<std::string>{"edge_index.npy", "node_feat.npy"});
    auto r = ttgnn::NpyReader::open_npz_member(npz.string(), "edge_index.npy");
    CHECK(r.where() == npz.string() + ":edge_index.npy");
    CHECK(read_ints(r) == edges);
    auto f = ttgnn::NpyReader::open_npz_member(npz.string(), "node_feat.npy");
    std::vector<float> x(6);
    f.read(x.data(), 6);
    CHECK(x == feat);
    CHECK(contains(error_of([&] { ttgnn::NpyReader::open_npz_member(npz.string(), "labels.npy"); }),
                   "archive has no member 'labels.npy'"));
  }
}

TEST_CASE("a truncated or corrupt npz is an error") {
  const fs::path dir = scratch_dir("npz_bad");
  std::vector<std::int64_t> edges(2 * 20000);
  std::uint64_t state = 12345; // pseudo-random payload: deflate cannot squeeze it to nothing
  for (auto &e : edges) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    e = static_cast<std::int64_t>(state >> 44);
  }
  write_npz(dir / "good.npz", {{"edge_index.npy", npy_bytes("<i8", {2, 20000}, edges)}}, true);
  const std::string bytes = read_bytes(dir / "good.npz");

  write_text(dir / "cut.npz", bytes.substr(0, bytes.size() / 2));
  CHECK(contains(error_of([&] {
                   ttgnn::NpyReader::open_npz_member((dir / "cut.npz").string(), "edge_index.npy");
                 }),
                 "not a readable zip archive"));

  std::string bad = bytes;
  for (std::size_t i = bad.size() / 2; i < bad.size() / 2 + 16; ++i)
    bad[i] = static_cast<char>(bad[i] ^ 0x5a);
  write_text(dir / "corrupt.npz", bad);
  const std::string msg = error_of([&] {
    auto r = ttgnn::NpyReader::open_npz_member((dir / "corrupt.npz").string(), "edge_index.npy");
    read_ints(r);
  });
  CHECK(contains(msg, "corrupt.npz:edge_index.npy: corrupt compressed data"));

  CHECK(contains(error_of([&] { ttgnn::NpyReader::npz_members((dir / "absent.npz").string()); }),
                 "absent.npz: missing required file"));
}
