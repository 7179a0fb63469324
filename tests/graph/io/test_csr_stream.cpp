// read_edges_text_csr (two streaming passes over an edge text file straight into the CSR)
// against build_csr on the same edges: random lists with duplicates, reversed pairs and self
// loops, over several 4 MiB blocks, both ordinal widths, symmetrised or not, with or without
// loops; and its errors.
#include "core/error.hpp"
#include "graph/csr_build.hpp"
#include "graph/io/table_readers.hpp"
#include "graph_test_files.hpp"
#include "test_harness.hpp"

#include <random>
#include <string>
#include <vector>

namespace {

template <class Ordinal>
void check_stream(std::int64_t n, std::int64_t m, std::uint64_t seed, bool sym, bool loops,
                  bool gzip) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> any(0, n - 1),
      hub(0, std::max<std::int64_t>(0, n / 20));
  std::vector<Ordinal> src(m), dst(m);
  std::string text;
  for (std::int64_t e = 0; e < m; ++e) {
    src[e] = static_cast<Ordinal>(rng() % 3 == 0 ? hub(rng) : any(rng));
    dst[e] = static_cast<Ordinal>(rng() % 7 == 0 ? src[e] : any(rng)); // some self loops
    text += std::to_string(src[e]) + "," + std::to_string(dst[e]) + "\n";
  }
  const auto dir = ttgnn::test::scratch_dir("csr_stream");
  const auto path = dir / (gzip ? "edge.csv.gz" : "edge.csv");
  if (gzip)
    ttgnn::test::write_gz(path, text);
  else
    ttgnn::test::write_text(path, text);

  using Host = Kokkos::DefaultHostExecutionSpace;
  using Unmanaged = Kokkos::View<Ordinal const *, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  const ttgnn::CsrBuildOptions options{sym, loops};
  const auto want = ttgnn::build_csr<Host, Ordinal>(Host(), Unmanaged(src.data(), m),
                                                    Unmanaged(dst.data(), m), n, options);
  std::int64_t read = -1;
  const auto got = ttgnn::io::read_edges_text_csr<Ordinal>(
      path.string(), n, ttgnn::io::EdgeTextFormat{}, options, &read);
  CHECK(read == m);
  REQUIRE(got.num_nodes() == n);
  REQUIRE(got.num_arcs() == want.num_arcs());
  bool same_rows = true, same_entries = true;
  for (std::int64_t i = 0; i <= n; ++i)
    same_rows &= got.row_map(i) == want.row_map(i);
  for (std::int64_t k = 0; k < want.num_arcs(); ++k)
    same_entries &= got.entries(k) == want.entries(k);
  CHECK(same_rows);
  CHECK(same_entries);
}

} // namespace

TEST_CASE("read_edges_text_csr equals build_csr of the same edges") {
  std::uint64_t seed = 11;
  for (bool sym : {true, false})
    for (bool loops : {false, true}) {
      check_stream<std::int32_t>(1000, 5000, seed++, sym, loops, true);
      check_stream<std::int64_t>(300, 4000, seed++, sym, loops, false);
      check_stream<std::int32_t>(7, 200, seed++, sym, loops, false); // dense, many duplicates
      check_stream<std::int32_t>(50, 0, seed++, sym, loops, true);   // no edges
    }
  // ~5.6 MB of text: more than one 4 MiB block, several parallel pieces per block
  check_stream<std::int32_t>(200000, 400000, seed++, true, false, true);
}

TEST_CASE("read_edges_text_csr: an id outside [0, N) names the file and line; N must be known") {
  const auto dir = ttgnn::test::scratch_dir("csr_stream_errors");
  const auto path = (dir / "edge.csv").string();
  ttgnn::test::write_text(path, "0,1\n1,2\n2,9\n");
  std::string what;
  try {
    ttgnn::io::read_edges_text_csr<std::int32_t>(path, 5, ttgnn::io::EdgeTextFormat{},
                                                 ttgnn::CsrBuildOptions{});
  } catch (ttgnn::InputError const &e) {
    what = e.what();
  }
  CHECK(what.find(path + ":3:") != std::string::npos);
  CHECK_THROWS_AS(ttgnn::io::read_edges_text_csr<std::int32_t>(path, 0, ttgnn::io::EdgeTextFormat{},
                                                               ttgnn::CsrBuildOptions{}),
                  ttgnn::ConfigError);
}
