// load_edge_list: CSV / TSV / whitespace, header and comments, gzip, how N is chosen, labels and
// features from .npy (int/float labels, NaN = unlabelled, Fortran-order features).
#include "graph/io/edge_list_loader.hpp"
#include "graph_test_files.hpp"
#include "test_harness.hpp"

#include <limits>
#include <set>

using namespace ttgnn::test;

namespace {

using ArcSet = std::set<std::pair<std::int64_t, std::int64_t>>;

template <class Ordinal> ArcSet arcs_of(ttgnn::Dataset<Ordinal> const &d) {
  ArcSet arcs;
  for (std::int64_t u = 0; u < d.num_nodes(); ++u)
    for (std::int64_t k = d.graph.row_map(u); k < d.graph.row_map(u + 1); ++k)
      arcs.insert({u, d.graph.entries(k)});
  return arcs;
}

const ArcSet path3{{0, 1}, {1, 0}, {1, 2}, {2, 1}};

} // namespace

TEST_CASE("edge list separators, header, comments, gzip") {
  const fs::path dir = scratch_dir("edgelist_formats");
  write_text(dir / "a.csv", "source,target\n0,1\n1,2\n");
  write_text(dir / "b.tsv", "# exported by hand\n0\t1\n\n1\t2\r\n");
  write_text(dir / "c.txt", "  0   1 \n# middle comment\n1 2\n2 2\n"); // self loop dropped
  write_gz(dir / "d.txt.gz", "u v\n0 1\n1 0\n1 2\n");                  // duplicate dropped
  for (char const *name : {"a.csv", "b.tsv", "c.txt", "d.txt.gz"}) {
    CAPTURE(name);
    ttgnn::LoadInfo info;
    auto d = ttgnn::load_edge_list((dir / name).string(), {}, &info);
    CHECK(d.num_nodes() == 3);
    CHECK(arcs_of(d) == path3);
    CHECK(d.num_classes == 0);
    CHECK(d.labels(2) == -1);
    CHECK(d.num_features() == 0);
    CHECK(info.symmetrized);
  }
  CHECK(ttgnn::load_edge_list((dir / "c.txt").string()).name == "c");
}

TEST_CASE("edge list: N from the option, directed arcs, self loops, int64") {
  const fs::path dir = scratch_dir("edgelist_n");
  write_text(dir / "e.txt", "0 1\n1 2\n");
  ttgnn::GenericOptions g;
  g.num_nodes = 5; // nodes 3 and 4 are isolated
  g.directed = true;
  auto d = ttgnn::load_edge_list<std::int64_t>((dir / "e.txt").string(), g);
  CHECK(d.num_nodes() == 5);
  CHECK(arcs_of(d) == ArcSet{{0, 1}, {1, 2}});
  g.directed = false;
  g.self_loops = true;
  auto s = ttgnn::load_edge_list((dir / "e.txt").string(), g);
  CHECK(s.graph.num_arcs() == 4 + 5);
}

TEST_CASE("edge list with .npy labels and features") {
  ttgnn::test::FpTrapOff guard; // NaN labels on purpose
  const fs::path dir = scratch_dir("edgelist_npy");
  write_text(dir / "e.csv", "0,1\n1,2\n");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // 4 rows: node 3 exists (isolated) because the label file says so
  write_text(dir / "y.npy", npy_bytes("<f8", {4, 1}, std::vector<double>{1, nan, 0, 2}));
  write_text(dir / "yi.npy", npy_bytes("<i8", {4}, std::vector<std::int64_t>{1, -1, 0, 2}));
  // Fortran order: column 0 = (0, 1, 2, 3), column 1 = (10, 11, 12, 13)
  write_text(dir / "x.npy",
             npy_bytes("<f8", {4, 2}, std::vector<double>{0, 1, 2, 3, 10, 11, 12, 13}, true));
  for (char const *labels : {"y.npy", "yi.npy"}) {
    ttgnn::GenericOptions g;
    g.labels_npy = (dir / labels).string();
    g.features_npy = (dir / "x.npy").string();
    ttgnn::LoadInfo info;
    auto d = ttgnn::load_edge_list((dir / "e.csv").string(), g, &info);
    CHECK(d.num_nodes() == 4);
    CHECK(d.num_classes == 3);
    CHECK(info.num_classes_source == "max label + 1");
    CHECK(d.labels(0) == 1);
    CHECK(d.labels(1) == -1);
    CHECK(d.labels(3) == 2);
    REQUIRE(d.num_features() == 2);
    CHECK(d.features(2, 0) == 2.0f);
    CHECK(d.features(2, 1) == 12.0f);
    CHECK(d.features(3, 1) == 13.0f);
  }
}

TEST_CASE("edge list: bag-of-words .npy features are held as sparse rows") {
  const fs::path dir = scratch_dir("edgelist_sparse_npy");
  write_text(dir / "e.csv", "0,1\n1,2\n2,3\n");
  // 4 x 10, three non-zeros: sparse rows (3 x 8 + 5 x 8 bytes) beat dense (160 bytes)
  std::vector<float> x(40, 0.0f);
  x[0 * 10 + 3] = 1.0f;
  x[2 * 10 + 9] = 2.0f;
  x[3 * 10 + 0] = -0.5f;
  write_text(dir / "x.npy", npy_bytes("<f4", {4, 10}, x));
  ttgnn::GenericOptions g;
  g.features_npy = (dir / "x.npy").string();
  auto d = ttgnn::load_edge_list((dir / "e.csv").string(), g);
  REQUIRE(d.sparse_features.has_values());
  CHECK(d.features.extent(0) == 0);
  CHECK(d.num_features() == 10);
  CHECK(d.sparse_features.nnz() == 3);
  const auto dense = ttgnn::dense_features(Kokkos::DefaultHostExecutionSpace(), d);
  for (int i = 0; i < 40; ++i)
    CHECK(dense.data()[i] == x[i]);
  g.feature_layout = ttgnn::FeatureLayout::dense;
  auto e = ttgnn::load_edge_list((dir / "e.csv").string(), g);
  CHECK_FALSE(e.sparse_features.has_values());
  REQUIRE(e.features.extent(0) == 4);
  CHECK(e.features(2, 9) == 2.0f);
}
