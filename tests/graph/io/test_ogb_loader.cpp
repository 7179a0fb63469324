// load_ogb on small folders written here (text, gzip, and the papers100M .npz layout, stored
// and deflated), edge-direction options, splits, node_year, and the bundled Cora.
#include "graph/io/ogb_loader.hpp"
#include "graph_test_files.hpp"
#include "test_harness.hpp"

#include <zip.h>

#include <cmath>
#include <limits>
#include <set>

using namespace ttgnn::test;

namespace {

template <class Ordinal>
std::set<std::pair<std::int64_t, std::int64_t>> arcs_of(ttgnn::Dataset<Ordinal> const &d) {
  std::set<std::pair<std::int64_t, std::int64_t>> arcs;
  for (std::int64_t u = 0; u < d.num_nodes(); ++u)
    for (std::int64_t k = d.graph.row_map(u); k < d.graph.row_map(u + 1); ++k)
      arcs.insert({u, d.graph.entries(k)});
  return arcs;
}

using ArcSet = std::set<std::pair<std::int64_t, std::int64_t>>;
const ArcSet symmetric_arcs{{0, 1}, {0, 2}, {1, 0}, {1, 2}, {2, 0}, {2, 1}, {3, 4}, {4, 3}};
const ArcSet directed_arcs{{0, 1}, {1, 2}, {2, 0}, {3, 4}, {1, 0}};

template <class Ordinal> void check_small(ttgnn::Dataset<Ordinal> const &d, bool features = true) {
  CHECK(d.name == "small");
  CHECK(d.num_nodes() == 6);
  CHECK(d.num_classes == 3);
  const std::vector<int> labels{0, 1, -1, 2, 0, 1};
  for (int i = 0; i < 6; ++i)
    CHECK(d.labels(i) == labels[i]);
  REQUIRE(d.num_features() == 2);
  if (features) {
    REQUIRE(d.features.extent(0) == 6);
    for (int i = 0; i < 12; ++i)
      CHECK(d.features.data()[i] == small_feat_values[i]);
  } else {
    CHECK(d.features.extent(0) == 0);
  }
  REQUIRE(d.node_year.extent(0) == 6);
  CHECK(d.node_year(5) == 2006);
}

void write_npz(fs::path const &path,
               std::vector<std::pair<std::string, std::string>> const &members, bool deflate) {
  fs::create_directories(path.parent_path());
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

} // namespace

TEST_CASE("OGB text layout, plain and gzip, int32 and int64") {
  for (bool gz : {false, true}) {
    const fs::path dir = write_small_ogb(gz ? "ogb_gz" : "ogb_plain", gz);
    ttgnn::LoadInfo info;
    auto d = ttgnn::load_ogb<std::int32_t>(dir.string(), {}, &info);
    check_small(d);
    CHECK(arcs_of(d) == symmetric_arcs); // no meta direction keys: symmetrised
    CHECK(info.symmetrized);
    CHECK(info.num_classes_source == "meta.csv");
    CHECK(info.cache == ttgnn::CacheStatus::disabled);
    CHECK(d.split_name.empty());
    CHECK(d.eval_metric.empty()); // meta.csv names no evaluator
    CHECK(d.train.extent(0) == 0);
    auto d64 = ttgnn::load_ogb<std::int64_t>(dir.string());
    check_small(d64);
    CHECK(arcs_of(d64) == symmetric_arcs);
  }
}

TEST_CASE("OGB split, self loops and features=false") {
  const fs::path dir = write_small_ogb("ogb_split", true);
  ttgnn::LoadOptions o;
  o.split = "s1";
  o.self_loops = true;
  o.features = false;
  auto d = ttgnn::load_ogb(dir.string(), o);
  check_small(d, false);
  CHECK(d.split_name == "s1");
  REQUIRE(d.train.extent(0) == 2);
  CHECK(d.train(1) == 1);
  REQUIRE(d.valid.extent(0) == 1);
  CHECK(d.valid(0) == 5);
  REQUIRE(d.test.extent(0) == 2);
  CHECK(d.test(1) == 4);
  ArcSet with_loops = symmetric_arcs;
  for (int v = 0; v < 6; ++v)
    with_loops.insert({v, v});
  CHECK(arcs_of(d) == with_loops);
}

TEST_CASE("edge direction: meta.csv says directed, options override") {
  const fs::path dir =
      write_small_ogb("ogb_directed", false, "add_inverse_edge,False\nis_directed,True\n");
  ttgnn::LoadInfo info;
  auto d = ttgnn::load_ogb(dir.string(), {}, &info);
  CHECK_FALSE(info.symmetrized);
  CHECK(arcs_of(d) == directed_arcs);
  ttgnn::LoadOptions o;
  o.edges = ttgnn::LoadOptions::Edges::symmetrize;
  CHECK(arcs_of(ttgnn::load_ogb(dir.string(), o)) == symmetric_arcs);

  const fs::path undirected =
      write_small_ogb("ogb_undirected", false, "add_inverse_edge,True\nis_directed,False\n");
  CHECK(arcs_of(ttgnn::load_ogb(undirected.string())) == symmetric_arcs);
  o.edges = ttgnn::LoadOptions::Edges::directed;
  CHECK(arcs_of(ttgnn::load_ogb(undirected.string(), o)) == directed_arcs);
}

TEST_CASE("meta.csv's eval metric is the dataset's evaluator") {
  const fs::path dir = write_small_ogb("ogb_metric", false, "eval metric,rocauc\n");
  CHECK(ttgnn::load_ogb(dir.string()).eval_metric == "rocauc");
}

TEST_CASE("labels without meta.csv: C = max label + 1") {
  const fs::path dir = write_small_ogb("ogb_nometa", false);
  fs::remove(dir / "meta.csv");
  ttgnn::LoadInfo info;
  auto d = ttgnn::load_ogb(dir.string(), {}, &info);
  CHECK(d.num_classes == 3);
  CHECK(info.num_classes_source == "max label + 1");
  CHECK(d.name == "ttgnn_test_ogb_nometa_" + std::to_string(getpid()));
}

TEST_CASE("papers100M binary layout (.npz), stored and deflated, equals the text layout") {
  ttgnn::test::FpTrapOff guard; // node_label holds NaN
  const std::vector<std::int64_t> c_order{0, 1, 2, 3, 1, /* dst: */ 1, 2, 0, 4, 0};
  const std::vector<std::int64_t> f_order{0, 1, 1, 2, 2, 0, 3, 4, 1, 0}; // (src,dst) pairs
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> labels{0, 1, nan, 2, 0, 1};
  const std::vector<std::uint16_t> half{0x3C00, 0x3800, 0x4000, 0xBD00, 0x4200, 0x2266,
                                        0x4400, 0x0000, 0x4500, 0x4700, 0x4600, 0x8000};
  const std::vector<std::int64_t> years{2001, 2002, 2003, 2004, 2005, 2006};
  const std::vector<std::int64_t> n{6}, e{5};
  for (bool deflate : {false, true})
    for (bool fortran : {false, true}) {
      const fs::path dir = scratch_dir("ogb_npz");
      write_npz(dir / "raw" / "data.npz",
                {{"edge_index.npy", npy_bytes("<i8", {2, 5}, fortran ? f_order : c_order, fortran)},
                 {"num_nodes_list.npy", npy_bytes("<i8", {1}, n)},
                 {"num_edges_list.npy", npy_bytes("<i8", {1}, e)},
                 {"node_feat.npy", npy_bytes("<f2", {6, 2}, half)},
                 {"node_year.npy", npy_bytes("<i8", {6, 1}, years)}},
                deflate);
      write_npz(dir / "raw" / "node-label.npz",
                {{"node_label.npy", npy_bytes("<f8", {6, 1}, labels)}}, deflate);
      write_gz(dir / "split" / "time" / "train.csv.gz", "0\n");
      write_gz(dir / "split" / "time" / "valid.csv.gz", "1\n");
      write_gz(dir / "split" / "time" / "test.csv.gz", "3\n");
      ttgnn::LoadOptions o;
      o.split = "time";
      ttgnn::LoadInfo info;
      auto d = ttgnn::load_ogb(dir.string(), o, &info);
      CHECK(d.num_nodes() == 6);
      CHECK(arcs_of(d) == symmetric_arcs);
      CHECK(d.num_classes == 3);
      CHECK(info.num_classes_source == "max label + 1");
      CHECK(d.labels(2) == -1);
      CHECK(d.labels(3) == 2);
      REQUIRE(d.num_features() == 2);
      // f2 values: 1, 0.5, 2, -1.25, 3, ~0.0125 (0x2266), 4, 0, 5, 7, 6, -0
      CHECK(d.features(1, 1) == -1.25f);
      CHECK(d.features(2, 1) == doctest::Approx(0.0125).epsilon(1e-3)); // f2 has 11 bits
      CHECK(d.features(4, 1) == 7.0f);
      CHECK(d.node_year(3) == 2004);
      CHECK(d.test(0) == 3);
      o.features = false;
      CHECK(ttgnn::load_ogb(dir.string(), o).num_features() == 2);
    }
}

TEST_CASE("bundled Cora loads with the provenance's counts") {
  ttgnn::LoadOptions o;
  o.split = "planetoid";
  auto d = ttgnn::load_ogb(TTGNN_SOURCE_DIR "/datasets/cora", o);
  CHECK(d.num_nodes() == 2708);
  CHECK(d.graph.num_arcs() == 10556);
  CHECK(d.num_classes == 7);
  CHECK(d.num_features() == 1433);
  std::vector<std::int64_t> counts(7, 0);
  for (int i = 0; i < 2708; ++i)
    ++counts.at(d.labels(i));
  CHECK(counts == std::vector<std::int64_t>{351, 217, 418, 818, 426, 298, 180});
  // 1.3% non-zero: held as sparse rows, exactly the non-zeros
  REQUIRE(d.sparse_features.has_values());
  CHECK(d.features.extent(0) == 0);
  CHECK(d.sparse_features.nnz() == 49216);
  const auto x = ttgnn::dense_features(Kokkos::DefaultHostExecutionSpace(), d);
  REQUIRE(x.extent(0) == 2708);
  REQUIRE(x.extent(1) == 1433);
  double sum = 0; // binary bag of words with 49216 non-zeros (PROVENANCE.txt)
  std::int64_t nonzero = 0, non_binary = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sum += x.data()[i];
    nonzero += x.data()[i] != 0;
    non_binary += x.data()[i] != 0 && x.data()[i] != 1;
  }
  CHECK(nonzero == 49216);
  CHECK(sum == 49216);
  CHECK(non_binary == 0);
  CHECK(d.train.extent(0) == 140);
  CHECK(d.valid.extent(0) == 500);
  CHECK(d.test.extent(0) == 1000);
  CHECK(d.train(139) == 139); // Planetoid train = nodes 0..139
}

// ---- multi-label node targets (ogbn-proteins' layout: one column per task)

namespace {
// N = 6, T = 3: 0/1, "1.0", -1, nan and an empty field (pandas' NaN) for unknown.
const std::string multilabel_csv = "1,0,1\n0,1.0,-1\nnan,,0\n1,1,1\n0,0,0\n-1,1,0\n";
const std::int8_t multilabel_expected[6][3] = {{1, 0, 1}, {0, 1, -1}, {-1, -1, 0},
                                               {1, 1, 1}, {0, 0, 0},  {-1, 1, 0}};
} // namespace

TEST_CASE("multi-label node-label files load as N x T targets (text, gzip and npz)") {
  for (bool gz : {false, true}) {
    const fs::path dir = write_small_ogb("ogb_multilabel", gz);
    if (gz)
      write_gz(dir / "raw" / "node-label.csv.gz", multilabel_csv);
    else
      write_text(dir / "raw" / "node-label.csv", multilabel_csv);
    ttgnn::LoadOptions o;
    o.split = "s1";
    for (std::string cache : {std::string(), (dir / "cache").string()})
      for (int pass = 0; pass < (cache.empty() ? 1 : 2); ++pass) { // cache: write, then hit
        o.cache_dir = cache;
        ttgnn::LoadInfo info;
        auto d = ttgnn::load_ogb(dir.string(), o, &info);
        CAPTURE(gz);
        CAPTURE(pass);
        REQUIRE(d.is_multilabel());
        CHECK(d.num_classes == 3); // tasks, from the columns (meta.csv's num_classes ignored)
        REQUIRE(d.multilabels.extent(0) == 6);
        REQUIRE(d.multilabels.extent(1) == 3);
        for (int v = 0; v < 6; ++v)
          for (int t = 0; t < 3; ++t)
            CHECK(d.multilabels(v, t) == multilabel_expected[v][t]);
        for (int v = 0; v < 6; ++v)
          CHECK(d.labels(v) == -1);
        if (pass == 1)
          CHECK(info.cache == ttgnn::CacheStatus::hit);
      }
  }
  // The binary layout: node-label.npz's node_label.npy of shape (N, T), float with NaN.
  const double nan = std::nan("");
  std::vector<double> values;
  for (auto const &row : multilabel_expected)
    for (std::int8_t y : row)
      values.push_back(y < 0 ? nan : double(y));
  const std::vector<std::int64_t> n{6}, e{5};
  const std::vector<std::int64_t> edges{0, 1, 2, 3, 1, 1, 2, 0, 4, 0};
  const fs::path dir = scratch_dir("ogb_multilabel_npz");
  write_npz(dir / "raw" / "data.npz",
            {{"edge_index.npy", npy_bytes("<i8", {2, 5}, edges)},
             {"num_nodes_list.npy", npy_bytes("<i8", {1}, n)},
             {"num_edges_list.npy", npy_bytes("<i8", {1}, e)}},
            true);
  write_npz(dir / "raw" / "node-label.npz", {{"node_label.npy", npy_bytes("<f8", {6, 3}, values)}},
            true);
  write_gz(dir / "split" / "species" / "train.csv.gz", "0\n1\n");
  write_gz(dir / "split" / "species" / "valid.csv.gz", "2\n");
  write_gz(dir / "split" / "species" / "test.csv.gz", "3\n");
  ttgnn::LoadOptions o;
  o.split = "species";
  auto d = ttgnn::load_ogb(dir.string(), o);
  REQUIRE(d.is_multilabel());
  CHECK(d.num_classes == 3);
  for (int v = 0; v < 6; ++v)
    for (int t = 0; t < 3; ++t)
      CHECK(d.multilabels(v, t) == multilabel_expected[v][t]);
}

TEST_CASE("bad multi-label rows name the file and line") {
  const fs::path dir = write_small_ogb("ogb_multilabel_bad", false);
  const fs::path label = dir / "raw" / "node-label.csv";
  ttgnn::LoadOptions o;
  o.split = "s1";
  auto load = [&] { ttgnn::load_ogb(dir.string(), o); };
  write_text(label, "1,0,1\n0,1\n1,1,1\n0,0,0\n1,1,0\n0,0,1\n"); // ragged row 2
  std::string msg = error_of(load);
  CHECK(contains(msg, label.string() + ":2:"));
  CHECK(contains(msg, "expected 3 comma-separated labels"));
  write_text(label, "1,0,1\n0,1,1\n1,2,1\n0,0,0\n1,1,0\n0,0,1\n"); // 2 is not a binary label
  msg = error_of(load);
  CHECK(contains(msg, label.string() + ":3:"));
  CHECK(contains(msg, "label 2 is '2'"));
  write_text(label, "1,0,1\n0,1,1\n1,0,1\n0,0,0\n1,x,0\n0,0,1\n");
  CHECK(contains(error_of(load), label.string() + ":5:"));
  write_text(label, "1,0,1\n0,1,1\n1,0,1\n"); // too few rows
  CHECK(contains(error_of(load), "3 label rows for 6 nodes"));
}
