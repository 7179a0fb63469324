// build_csr against a std::set reference on random edge lists (with duplicates, reversed
// pairs and self loops), for both ordinal widths, symmetrised or not, with or without loops.
#include "core/error.hpp"
#include "graph/csr_build.hpp"
#include "test_harness.hpp"

#include <random>
#include <set>
#include <utility>
#include <vector>

namespace {

using Arc = std::pair<std::int64_t, std::int64_t>;

/// The arcs the CSR must hold, by the definition in csr_build.hpp.
std::set<Arc> reference(std::vector<Arc> const &edges, std::int64_t n, bool sym, bool loops) {
  std::set<Arc> arcs;
  for (auto [u, v] : edges) {
    if (u == v)
      continue;
    arcs.insert({u, v});
    if (sym)
      arcs.insert({v, u});
  }
  if (loops)
    for (std::int64_t v = 0; v < n; ++v)
      arcs.insert({v, v});
  return arcs;
}

template <class ExecutionSpace, class Ordinal>
void check_random(std::int64_t n, std::int64_t m, std::uint64_t seed, bool sym, bool loops) {
  using Mem = typename ExecutionSpace::memory_space;
  std::mt19937_64 rng(seed);
  // a skewed id distribution gives some long rows and many repeated pairs
  std::uniform_int_distribution<std::int64_t> any(0, n - 1),
      hub(0, std::max<std::int64_t>(0, n / 20));
  std::vector<Arc> edges(m);
  for (auto &e : edges) {
    e.first = rng() % 3 == 0 ? hub(rng) : any(rng);
    e.second = rng() % 7 == 0 ? e.first : any(rng); // some self loops
  }
  Kokkos::View<Ordinal *, Mem> src("src", m), dst("dst", m);
  auto hs = Kokkos::create_mirror_view(src);
  auto hd = Kokkos::create_mirror_view(dst);
  for (std::int64_t e = 0; e < m; ++e) {
    hs(e) = static_cast<Ordinal>(edges[e].first);
    hd(e) = static_cast<Ordinal>(edges[e].second);
  }
  Kokkos::deep_copy(src, hs);
  Kokkos::deep_copy(dst, hd);
  auto g = ttgnn::build_csr<ExecutionSpace, Ordinal>(ExecutionSpace(), src, dst, n,
                                                     ttgnn::CsrBuildOptions{sym, loops});
  auto row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.row_map);
  auto entries = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.entries);

  const auto expect = reference(edges, n, sym, loops);
  REQUIRE(g.num_nodes() == n);
  REQUIRE(g.num_arcs() == static_cast<std::int64_t>(expect.size()));
  CHECK(row_map(0) == 0);
  std::set<Arc> got;
  bool sorted_unique = true;
  for (std::int64_t u = 0; u < n; ++u)
    for (std::int64_t k = row_map(u); k < row_map(u + 1); ++k) {
      got.insert({u, entries(k)});
      if (k > row_map(u) && !(entries(k - 1) < entries(k)))
        sorted_unique = false;
    }
  CHECK(sorted_unique);
  CHECK(got == expect);
  CHECK(ttgnn::is_symmetric(ExecutionSpace(), g) == (got == reference(edges, n, true, loops)));
  CHECK(ttgnn::count_self_loops(ExecutionSpace(), g) == (loops ? n : 0));
}

} // namespace

TTGNN_TEST_ALL_SPACES("build_csr matches a std::set reference on random edge lists") {
  std::uint64_t seed = 1;
  for (bool sym : {true, false})
    for (bool loops : {false, true}) {
      check_random<ExecutionSpace, std::int32_t>(1000, 5000, seed++, sym, loops);
      check_random<ExecutionSpace, std::int64_t>(300, 4000, seed++, sym, loops);
      check_random<ExecutionSpace, std::int32_t>(7, 200, seed++, sym,
                                                 loops); // dense, many duplicates
      check_random<ExecutionSpace, std::int32_t>(50, 0, seed++, sym, loops); // no edges
    }
}

TTGNN_TEST_ALL_SPACES("build_csr rejects ids outside [0, N)") {
  using Mem = typename ExecutionSpace::memory_space;
  Kokkos::View<std::int32_t *, Mem> src("src", 2), dst("dst", 2);
  auto h = Kokkos::create_mirror_view(dst);
  h(0) = 1;
  h(1) = 5;
  Kokkos::deep_copy(dst, h);
  CHECK_THROWS_AS((ttgnn::build_csr<ExecutionSpace, std::int32_t>(ExecutionSpace(), src, dst, 5)),
                  ttgnn::InputError);
}

TTGNN_TEST_ALL_SPACES("is_symmetric detects a one-way arc") {
  using Mem = typename ExecutionSpace::memory_space;
  Kokkos::View<std::int32_t *, Mem> src("src", 3), dst("dst", 3);
  auto hs = Kokkos::create_mirror_view(src);
  auto hd = Kokkos::create_mirror_view(dst);
  const int pairs[3][2] = {{0, 1}, {1, 0}, {1, 2}};
  for (int e = 0; e < 3; ++e) {
    hs(e) = pairs[e][0];
    hd(e) = pairs[e][1];
  }
  Kokkos::deep_copy(src, hs);
  Kokkos::deep_copy(dst, hd);
  auto directed = ttgnn::build_csr<ExecutionSpace, std::int32_t>(
      ExecutionSpace(), src, dst, 3, ttgnn::CsrBuildOptions{false, false});
  CHECK(directed.num_arcs() == 3);
  CHECK_FALSE(ttgnn::is_symmetric(ExecutionSpace(), directed));
  auto sym = ttgnn::build_csr<ExecutionSpace, std::int32_t>(ExecutionSpace(), src, dst, 3);
  CHECK(sym.num_arcs() == 4);
  CHECK(ttgnn::is_symmetric(ExecutionSpace(), sym));
}
