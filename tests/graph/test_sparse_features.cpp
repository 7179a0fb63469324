// Sparse feature rows: conversions against a hand-written reference, the structure check, the
// relabelling, and the text reader's layouts (every layout reads the same values; automatic
// follows prefer_sparse_features over the whole file, whatever its first block looked like).
#include "graph/permutation.hpp"
#include "graph/sparse_features.hpp"
#include "graph/io/table_readers.hpp"
#include "graph_test_files.hpp"
#include "test_harness.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace ttgnn::test;
using ttgnn::DenseFeatures;
using ttgnn::FeatureLayout;
using ttgnn::SparseFeatures;

namespace {

/// n x f matrix with about \p density of its entries non-zero (values in {-2.5, ..., 3}, and a
/// few -0.0, which sparse rows must keep), from \p seed.
DenseFeatures random_features(std::int64_t n, std::int64_t f, double density, std::uint64_t seed) {
  DenseFeatures x("x", n, f);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < f; ++j)
      if (u(rng) < density)
        x(i, j) = u(rng) < 0.1 ? -0.0f : static_cast<float>(std::floor(u(rng) * 12) / 2 - 2.5);
  return x;
}

bool same_bits(DenseFeatures const &a, DenseFeatures const &b) {
  return a.extent(0) == b.extent(0) && a.extent(1) == b.extent(1) &&
         (a.size() == 0 || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

/// The dense rows of a feature table, whichever layout it has.
DenseFeatures dense_of(ttgnn::io::FeatureTable const &t) {
  return t.sparse.has_values()
             ? ttgnn::to_dense_features(Kokkos::DefaultHostExecutionSpace(), t.sparse)
             : t.dense;
}

/// Text of the rows of \p x, "%g" values joined by ','.
std::string to_text(DenseFeatures const &x) {
  std::string out;
  char buf[32];
  for (std::size_t i = 0; i < x.extent(0); ++i) {
    for (std::size_t j = 0; j < x.extent(1); ++j) {
      std::snprintf(buf, sizeof buf, j ? ",%g" : "%g", static_cast<double>(x(i, j)));
      out += buf;
    }
    out += '\n';
  }
  return out;
}

} // namespace

template <class ExecutionSpace> void check_round_trip() {
  ExecutionSpace space;
  const DenseFeatures x = random_features(300, 57, 0.05, 7);
  const SparseFeatures s = ttgnn::to_sparse_features(space, x);
  CHECK(s.num_rows() == 300);
  CHECK(s.num_cols == 57);
  CHECK(ttgnn::check_sparse_features(space, s, 300) == "");
  // reference: a row-by-row scan of the dense rows
  std::int64_t k = 0;
  bool match = true;
  for (std::int64_t i = 0; i < 300; ++i) {
    match = match && s.row_map(i) == k;
    for (std::int64_t j = 0; j < 57; ++j)
      if (ttgnn::is_stored_feature(x(i, j))) {
        match = match && s.cols(k) == j && std::memcmp(&s.values(k), &x(i, j), 4) == 0;
        ++k;
      }
  }
  CHECK(match);
  CHECK(s.nnz() == k);
  CHECK(ttgnn::count_stored_features(space, x) == k);
  CHECK(same_bits(ttgnn::to_dense_features(space, s), x)); // -0.0 included
}
TTGNN_TEST_HOST_SPACES("sparse rows round-trip exactly, -0.0 included") {
  check_round_trip<ExecutionSpace>();
}

TEST_CASE("prefer_sparse_features: 8 bytes per value + 8 per row under 4 per entry") {
  // 100 rows x 10 columns: dense 4000 bytes; sparse 8 nnz + 808 < 4000 <=> nnz < 399
  CHECK(ttgnn::prefer_sparse_features(100, 10, 398));
  CHECK_FALSE(ttgnn::prefer_sparse_features(100, 10, 399));
  CHECK_FALSE(ttgnn::prefer_sparse_features(100, 2, 0)); // 808 >= 800: never for 2 columns
  CHECK_FALSE(ttgnn::prefer_sparse_features(0, 10, 0));
}

TEST_CASE("feature layout names") {
  for (auto l : {FeatureLayout::automatic, FeatureLayout::dense, FeatureLayout::sparse})
    CHECK(ttgnn::parse_feature_layout(ttgnn::to_string(l)) == l);
  CHECK(std::string(ttgnn::to_string(FeatureLayout::automatic)) == "auto");
  CHECK_THROWS_AS(ttgnn::parse_feature_layout("csr"), ttgnn::ConfigError);
}

TEST_CASE("check_sparse_features names what is wrong") {
  Kokkos::DefaultHostExecutionSpace space;
  const DenseFeatures x = random_features(20, 9, 0.4, 3);
  auto fresh = [&] {
    SparseFeatures s = ttgnn::to_sparse_features(space, x);
    SparseFeatures c;
    c.num_cols = s.num_cols;
    c.row_map = decltype(c.row_map)("r", s.row_map.extent(0));
    c.cols = decltype(c.cols)("c", s.cols.extent(0));
    c.values = decltype(c.values)("v", s.values.extent(0));
    Kokkos::deep_copy(c.row_map, s.row_map);
    Kokkos::deep_copy(c.cols, s.cols);
    Kokkos::deep_copy(c.values, s.values);
    return c;
  };
  REQUIRE(fresh().nnz() > 10);
  CHECK(ttgnn::check_sparse_features(space, fresh(), 20) == "");
  CHECK(contains(ttgnn::check_sparse_features(space, fresh(), 21), "row offsets"));
  auto s = fresh();
  s.row_map(20) -= 1;
  CHECK(contains(ttgnn::check_sparse_features(space, s, 20), "do not span"));
  s = fresh();
  s.row_map(5) = -3; // a negative offset in the middle
  CHECK(contains(ttgnn::check_sparse_features(space, s, 20), "out of order"));
  s = fresh();
  s.cols(3) = 9; // column == F
  CHECK(contains(ttgnn::check_sparse_features(space, s, 20), "columns out of range"));
  s = fresh();
  s.cols(s.row_map(1)) = s.cols(s.row_map(1) + 1); // a repeated column (row 1 has >= 2 values)
  if (s.row_map(2) - s.row_map(1) >= 2)
    CHECK(contains(ttgnn::check_sparse_features(space, s, 20), "out of order"));
  s = fresh();
  s.values(4) = std::numeric_limits<float>::infinity();
  CHECK(contains(ttgnn::check_sparse_features(space, s, 20), "not finite"));
}

template <class ExecutionSpace> void check_permute() {
  ExecutionSpace space;
  const DenseFeatures x = random_features(60, 13, 0.2, 11);
  std::vector<std::int64_t> order(60);
  for (int i = 0; i < 60; ++i)
    order[i] = (7 * i + 3) % 60; // 7 is coprime with 60: a bijection
  ttgnn::Permutation::IdView n2o("n2o", 60);
  for (int i = 0; i < 60; ++i)
    n2o(i) = order[i];
  const auto perm = ttgnn::Permutation::from_new_to_old(n2o);
  const SparseFeatures p =
      ttgnn::permute_sparse_rows(space, ttgnn::to_sparse_features(space, x), perm);
  CHECK(ttgnn::check_sparse_features(space, p, 60) == "");
  // reference: the dense rows permuted
  CHECK(same_bits(ttgnn::to_dense_features(space, p), ttgnn::permute_rows(space, x, perm)));
}
TTGNN_TEST_HOST_SPACES("permute_sparse_rows equals permuting the dense rows") {
  check_permute<ExecutionSpace>();
}

TEST_CASE("read_features_text: every layout reads the same values") {
  const fs::path dir = scratch_dir("sparse_features_layouts");
  struct Case {
    char const *name;
    double density;
    bool sparse; // what automatic must pick (prefer_sparse_features at this density)
  };
  for (Case c : {Case{"bag", 0.02, true}, Case{"dense", 0.9, false}}) {
    CAPTURE(c.name);
    const DenseFeatures x = random_features(500, 40, c.density, 5);
    const fs::path file = dir / (std::string(c.name) + ".csv.gz");
    write_gz(file, to_text(x));
    const auto a = ttgnn::io::read_features_text(file.string(), 500, FeatureLayout::automatic);
    const auto d = ttgnn::io::read_features_text(file.string(), 500, FeatureLayout::dense);
    const auto s = ttgnn::io::read_features_text(file.string(), 500, FeatureLayout::sparse);
    CHECK(a.sparse.has_values() == c.sparse);
    CHECK(d.dense.extent(0) == 500);
    CHECK_FALSE(d.sparse.has_values());
    CHECK(s.sparse.has_values());
    CHECK(s.dense.extent(0) == 0);
    CHECK(same_bits(dense_of(a), x)); // "%g" of these halves prints them exactly
    CHECK(same_bits(dense_of(d), x));
    CHECK(same_bits(dense_of(s), x));
  }
}

TEST_CASE("read_features_text: a file of one row, with or without its newline") {
  // fuzz_node_feat found that a lone first row (no block after it) lost its stored values
  const fs::path dir = scratch_dir("sparse_features_one_row");
  for (std::string text : {"4 ", "0,2.5,0\n", "0,0,0"}) {
    CAPTURE(text);
    write_text(dir / "one.csv", text);
    const std::int64_t f = 1 + std::count(text.begin(), text.end(), ',');
    for (auto layout : {FeatureLayout::automatic, FeatureLayout::dense, FeatureLayout::sparse}) {
      const auto t = ttgnn::io::read_features_text((dir / "one.csv").string(), 1, layout);
      if (t.sparse.has_values())
        CHECK(ttgnn::check_sparse_features(Kokkos::DefaultHostExecutionSpace(), t.sparse, 1) == "");
      const DenseFeatures x = dense_of(t);
      REQUIRE(x.extent(0) == 1);
      REQUIRE(static_cast<std::int64_t>(x.extent(1)) == f);
      const float expect = text[0] == '4' ? 4.0f : 0.0f;
      CHECK(x(0, 0) == expect);
      if (f == 3)
        CHECK(x(0, 1) == (text[2] == '2' ? 2.5f : 0.0f));
    }
  }
}

TEST_CASE("read_features_text automatic: the whole file decides, not its first block") {
  // 16 columns: sparse rows win when the mean row holds under (4 * 16 - 8) / 8 = 7 values.
  // The reader parses the first block (about 4 MiB) in one layout and may switch after it; the
  // result must still follow the whole file. Rows are 32 bytes: "full" rows hold 16 values,
  // "empty" rows none; 140k rows (4.5 MB) fill more than the first block.
  const fs::path dir = scratch_dir("sparse_features_blocks");
  const std::string full_row = "1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2\n";
  const std::string empty_row = "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n";
  auto rows_of = [](std::string const &row, int count) {
    std::string out;
    out.reserve(row.size() * count);
    for (int i = 0; i < count; ++i)
      out += row;
    return out;
  };
  struct Case {
    char const *file;
    int full_first, empty, full_last;
    bool sparse;
  };
  // mean values per row: 16 * 140 / 400 = 5.6 (sparse); 16 * 260 / 400 = 10.4 (dense); 16
  for (Case c : {Case{"full_then_empty.csv", 140000, 260000, 0, true},
                 Case{"empty_then_full.csv", 0, 260000, 140000, true},
                 Case{"empty_then_more_full.csv", 0, 140000, 260000, false},
                 Case{"full.csv", 140000, 0, 0, false}}) {
    CAPTURE(c.file);
    write_text(dir / c.file, rows_of(full_row, c.full_first) + rows_of(empty_row, c.empty) +
                                 rows_of(full_row, c.full_last));
    const int rows = c.full_first + c.empty + c.full_last;
    const auto t = ttgnn::io::read_features_text((dir / c.file).string(), rows);
    CHECK(t.sparse.has_values() == c.sparse);
    CHECK(t.dense.extent(0) == (c.sparse ? 0u : static_cast<std::size_t>(rows)));
    const DenseFeatures x = dense_of(t);
    REQUIRE(x.extent(0) == static_cast<std::size_t>(rows));
    std::int64_t bad = 0;
    for (int i = 0; i < rows; ++i) {
      const bool full = i < c.full_first || i >= c.full_first + c.empty;
      for (int j = 0; j < 16; ++j)
        bad += x(i, j) != (full ? static_cast<float>(1 + j % 2) : 0.0f);
    }
    CHECK(bad == 0);
    if (c.sparse)
      CHECK(t.sparse.nnz() == 16 * std::int64_t(c.full_first + c.full_last));
  }
}

TEST_CASE("read_features_text: errors name the line in every layout") {
  const fs::path dir = scratch_dir("sparse_features_errors");
  std::string rows;
  for (int i = 0; i < 50; ++i)
    rows += i == 37 ? "0,1,0\n" : "0,0,0,1\n";
  write_text(dir / "ragged.csv", rows);
  std::string nan_rows;
  for (int i = 0; i < 50; ++i)
    nan_rows += i == 41 ? "0,nan,0,0\n" : "0,0,0,1\n";
  write_text(dir / "nan.csv", nan_rows);
  std::string good_rows;
  for (int i = 0; i < 50; ++i)
    good_rows += "0,0,0,1\n";
  write_text(dir / "good.csv", good_rows);
  for (auto layout : {FeatureLayout::automatic, FeatureLayout::dense, FeatureLayout::sparse}) {
    const std::string name = ttgnn::to_string(layout);
    CAPTURE(name);
    const std::string ragged =
        error_of([&] { ttgnn::io::read_features_text((dir / "ragged.csv").string(), 50, layout); });
    CHECK(contains(ragged, "ragged.csv:38:"));
    CHECK(contains(ragged, "expected 4 comma-separated values"));
    const std::string nan =
        error_of([&] { ttgnn::io::read_features_text((dir / "nan.csv").string(), 50, layout); });
    CHECK(contains(nan, "nan.csv:42:"));
    CHECK(contains(nan, "NaN or Inf"));
    const std::string short_file =
        error_of([&] { ttgnn::io::read_features_text((dir / "good.csv").string(), 60, layout); });
    CHECK(contains(short_file, "50 feature rows for 60 nodes"));
  }
}
