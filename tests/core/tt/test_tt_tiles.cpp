// TT prefix tiles (core/tt/detail/tt_tiles.hpp): multiply-shift division; the tiles depend
// only on the grouping; forward and backward of the last core for the widths d = 1, 4, 5, 8, 16
// and ranks with and without a vector tail, by the CPU micro-kernels and by the team (device)
// kernels run on host spaces, against a host reference in double within a bound derived from
// the summation order; finite differences for the new widths; bitwise equality across thread
// counts with many tiles.
#include "core/tt/tt_lookup.hpp"
#include "test_harness.hpp"
#include "tt_test_util.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

using namespace ttgnn;

using test::host_loss;
using test::HostCores;
using test::random_weights;

TEST_CASE("tt tiles: multiply-shift division equals integer division") {
  const std::int64_t max32 = 0xffffffff;
  std::mt19937_64 rng(3);
  for (std::int64_t d :
       {std::int64_t(1), std::int64_t(2), std::int64_t(3), std::int64_t(7), std::int64_t(135),
        std::int64_t(1) << 16, std::int64_t(65537), std::int64_t(1000003), max32 - 1, max32,
        max32 + 1, std::int64_t(1) << 40}) {
    CAPTURE(d);
    const detail::FastDiv fd(d);
    std::vector<std::int64_t> xs = {
        0, 1, d - 1, d, d + 1, max32 - 1, max32, max32 + 1, std::int64_t(1) << 45};
    for (int i = 0; i < 20000; ++i)
      xs.push_back(std::uniform_int_distribution<std::int64_t>(0, max32)(rng));
    for (int i = 0; i < 2000; ++i) // near multiples of d, where a rounding error would show
      xs.push_back(
          std::min(max32, d * std::uniform_int_distribution<std::int64_t>(0, max32 / d)(rng)) -
          (i % 3 == 0 ? 1 : 0));
    int bad = 0;
    for (auto x : xs)
      if (x >= 0 && fd.div(x) != x / d)
        ++bad;
    CHECK(bad == 0);
  }
}

// Shapes whose last core has d = 1, 4, 5, 8, 16 and ranks that fill whole vectors (8, 16) or
// leave a tail (3, 12), with 2, 3 and 4 cores.
static std::vector<TtShape> width_shapes() {
  return {test::tt_shape(200, {6, 5, 7}, {2, 3, 1}, {1, 8, 8, 1}),
          test::tt_shape(110, {4, 5, 6}, {3, 2, 5}, {1, 3, 16, 1}),
          test::tt_shape(60, {5, 4, 3}, {2, 1, 16}, {1, 4, 8, 1}),
          test::tt_shape(99, {9, 11}, {4, 8}, {1, 12, 1}),
          test::tt_shape(170, {3, 4, 3, 5}, {2, 2, 2, 4}, {1, 2, 3, 8, 1}),
          test::tt_shape(300, {5, 6, 10}, {3, 3, 4}, {1, 5, 3, 1})};
}

// Reference gradients on the host in double: for each row, dG_k[i_k] += L_k^T · M_k, with the
// chain L (forward) and M (backward) of the row (core/tt/detail/tt_backward_kernels.hpp's
// notation), from cores g and row weights w (batch x dim). With |g| and |w| it gives, for
// every entry, the sum of the magnitudes of the terms the kernels add up.
static HostCores host_grads(TtShape const &s, HostCores const &g,
                            std::vector<std::int64_t> const &ids, std::vector<double> const &w) {
  const int nc = s.num_cores();
  HostCores out;
  for (int k = 0; k < nc; ++k)
    out.emplace_back(g[k].size(), 0.0);
  for (std::size_t b = 0; b < ids.size(); ++b) {
    std::int64_t dig[max_tt_cores];
    mixed_radix_digits(ids[b], nc, s.n.data(), dig);
    // lefts[k] = L_k, (d0···d_{k-1}) x r_k
    std::vector<std::vector<double>> lefts(nc + 1);
    lefts[0] = {1.0};
    std::int64_t lead = 1;
    for (int k = 0; k < nc; ++k) {
      const auto ra = s.ranks[k], cols = s.d[k] * s.ranks[k + 1];
      const double *slice = g[k].data() + dig[k] * ra * cols;
      lefts[k + 1].assign(lead * cols, 0.0);
      for (std::int64_t x = 0; x < lead; ++x)
        for (std::int64_t a = 0; a < ra; ++a)
          for (std::int64_t c = 0; c < cols; ++c)
            lefts[k + 1][x * cols + c] += lefts[k][x * ra + a] * slice[a * cols + c];
      lead *= s.d[k];
    }
    // m = dL/dL_{k+1} reshaped (D_k x d_k·r_{k+1}), walking back.
    std::vector<double> m(w.begin() + b * s.dim(), w.begin() + (b + 1) * s.dim());
    for (int k = nc - 1; k >= 0; --k) {
      lead /= s.d[k];
      const auto ra = s.ranks[k], cols = s.d[k] * s.ranks[k + 1];
      const double *slice = g[k].data() + dig[k] * ra * cols;
      double *dslice = out[k].data() + dig[k] * ra * cols;
      std::vector<double> next(lead * ra, 0.0);
      for (std::int64_t x = 0; x < lead; ++x)
        for (std::int64_t a = 0; a < ra; ++a)
          for (std::int64_t c = 0; c < cols; ++c) {
            dslice[a * cols + c] += lefts[k][x * ra + a] * m[x * cols + c];
            next[x * ra + a] += m[x * cols + c] * slice[a * cols + c];
          }
      m.swap(next);
    }
  }
  return out;
}

static HostCores absolute(HostCores g) {
  for (auto &c : g)
    for (auto &x : c)
      x = std::fabs(x);
  return g;
}

template <class ExecutionSpace, class Scalar>
Kokkos::View<Scalar **, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>
rows_view(std::vector<double> const &w, std::int64_t batch, std::int64_t dim) {
  Kokkos::View<Scalar **, Kokkos::LayoutRight, typename ExecutionSpace::memory_space> v(
      "ttgnn::test::rows", batch, dim);
  auto h = Kokkos::create_mirror_view(v);
  for (std::size_t i = 0; i < w.size(); ++i)
    h.data()[i] = Scalar(w[i]);
  Kokkos::deep_copy(v, h);
  return v;
}

// Forward and backward of the prefix path with the CPU micro-kernels (Host = true, only on
// host spaces) or the team kernels that devices run (Host = false): rows, then gradients of
// every core (the chain part in deterministic mode).
template <bool Host, class ExecutionSpace, class Scalar> struct TileRun {
  std::vector<double> rows;
  HostCores grads;
  std::int64_t tiles = 0;
};

template <bool Host, class ExecutionSpace, class Scalar>
TileRun<Host, ExecutionSpace, Scalar> run_tiles(TtShape const &s, HostCores const &host,
                                                std::vector<std::int64_t> const &ids_h,
                                                std::vector<double> const &w) {
  using mem = typename ExecutionSpace::memory_space;
  ExecutionSpace space;
  auto cores = test::make_cores<Scalar, ExecutionSpace>(s, host);
  TtCores<Scalar, mem> grads(s, "ttgnn::test::grads");
  auto ids = test::to_device<ExecutionSpace>(ids_h);
  const auto batch = static_cast<std::int64_t>(ids_h.size());
  Kokkos::View<Scalar **, Kokkos::LayoutRight, mem> out("ttgnn::test::out", batch, s.dim());
  Kokkos::deep_copy(out, Scalar(777)); // every entry must be overwritten
  auto gr = rows_view<ExecutionSpace, Scalar>(w, batch, s.dim());
  TtLookupWorkspace<Scalar, ExecutionSpace> ws;
  detail::TtDeviceCores<const Scalar, mem> g(cores);
  detail::TtDeviceCores<Scalar, mem> gg(grads);
  detail::build_prefix_plan(space, g, Kokkos::View<const std::int64_t *, mem>(ids), s.num_rows,
                            cores.core(0).data(), ws, "test");
  detail::tiles_forward<Host>(space, g, out, ws);
  detail::tiles_backward<Host>(space, g,
                               Kokkos::View<const Scalar **, Kokkos::LayoutRight, mem>(gr), gg, ws);
  const auto np = ws.num_prefixes;
  const auto last = s.num_cores() - 1;
  detail::chain_backward_grouped(
      space, g, gg,
      Kokkos::View<const std::int64_t *, mem>(
          Kokkos::subview(ws.rows_by_prefix.keys, Kokkos::make_pair(std::int64_t(0), np))),
      Kokkos::View<const Scalar **, Kokkos::LayoutRight, mem>(
          Kokkos::subview(ws.dprefix, Kokkos::make_pair(std::int64_t(0), np), Kokkos::ALL())),
      last, ws);
  TileRun<Host, ExecutionSpace, Scalar> r;
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  r.rows.assign(h.data(), h.data() + h.size());
  for (int k = 0; k < s.num_cores(); ++k) {
    auto v = copy_core_to_host(space, grads, k);
    r.grads.emplace_back(v.begin(), v.end());
  }
  r.tiles = ws.num_tiles;
  return r;
}

// Rounding bounds. An entry computed in Scalar as a sum of products, where each value has gone
// through at most n roundings of additions and multiplications (with or without FMA), differs
// from the exact value by at most gamma_n = n·u / (1 - n·u) (u = eps / 2) times the sum of the
// magnitudes of all the terms (Higham, Accuracy and Stability of Numerical Algorithms, §3.1-3.5);
// the magnitudes come from the same computation on |cores| and |weights| in double. We use eps
// instead of u (a factor 2 of margin) and count n per entry:
// - a row entry: P has been through the chain (K - 1 products, inner sums over the ranks: at
//   most K + sum of ranks roundings), then r_{K-1} terms of P · G: n = K + 2 sum of ranks;
// - a gradient entry: the same chain for P and dP, the D'·d terms of one row's contribution
//   (the d·R terms of dP per row), and the rows that share the slice, at most the batch, added
//   one by one, then the tiles in order: n = 2 (K + sum of ranks) + D'·d + batch + tiles.
static double gamma_bound(double eps, double n) {
  return n * eps / (1 - n * eps);
}

template <class Scalar>
void check_rows(TtShape const &s, HostCores const &host, std::vector<std::int64_t> const &ids,
                std::vector<double> const &rows) {
  double sum_ranks = 0;
  for (auto r : s.ranks)
    sum_ranks += double(r);
  const double gam =
      gamma_bound(std::numeric_limits<Scalar>::epsilon(), s.num_cores() + 2 * sum_ranks + 2);
  const auto abs_host = absolute(host);
  int bad = 0;
  double max_abs = 0;
  for (std::size_t b = 0; b < ids.size(); ++b) {
    const auto ref = test::host_row(s, host, ids[b]);
    const auto mag = test::host_row(s, abs_host, ids[b]);
    for (std::int64_t j = 0; j < s.dim(); ++j) {
      max_abs = std::max(max_abs, std::fabs(ref[j]));
      if (!(std::fabs(rows[b * s.dim() + j] - ref[j]) <= gam * mag[j]))
        ++bad;
    }
  }
  CHECK(max_abs > 0.1); // not vacuous
  CHECK(bad == 0);
}

template <class Scalar>
void check_grads(TtShape const &s, HostCores const &host, std::vector<std::int64_t> const &ids,
                 std::vector<double> const &w, HostCores const &got, std::int64_t tiles) {
  const auto ref = host_grads(s, host, ids, w);
  std::vector<double> abs_w(w);
  for (auto &x : abs_w)
    x = std::fabs(x);
  const auto mag = host_grads(s, absolute(host), ids, abs_w);
  double sum_ranks = 0;
  for (auto r : s.ranks)
    sum_ranks += double(r);
  const double n =
      2 * (s.num_cores() + sum_ranks) + double(s.dim()) + double(ids.size()) + double(tiles) + 2;
  const double gam = gamma_bound(std::numeric_limits<Scalar>::epsilon(), n);
  int bad = 0;
  double max_abs = 0;
  for (int k = 0; k < s.num_cores(); ++k)
    for (std::size_t i = 0; i < ref[k].size(); ++i) {
      max_abs = std::max(max_abs, std::fabs(ref[k][i]));
      if (!(std::fabs(got[k][i] - ref[k][i]) <= gam * mag[k][i] + 1e-300))
        ++bad;
    }
  CHECK(max_abs > 0.1);
  CHECK(bad == 0);
}

template <class ExecutionSpace, class Scalar> void check_widths_against_reference() {
  for (auto const &s : width_shapes()) {
    CAPTURE(s.to_string());
    auto host = test::random_host_cores(s, 61);
    // Many tiles: 9000 rows over at most tile_rows = 2048 rows a tile.
    auto ids = test::test_ids(s, "random", 62, 9000);
    for (std::int64_t b = 0; b < 500; ++b) // a contiguous run and repeats
      ids[b] = (40 + b / 3) % s.num_rows;
    auto w = random_weights(ids.size() * s.dim(), 63);
    auto team = run_tiles<false, ExecutionSpace, Scalar>(s, host, ids, w);
    CHECK(team.tiles >= 4);
    check_rows<Scalar>(s, host, ids, team.rows);
    check_grads<Scalar>(s, host, ids, w, team.grads, team.tiles);
    if constexpr (detail::host_space_v<ExecutionSpace>) {
      auto cpu = run_tiles<true, ExecutionSpace, Scalar>(s, host, ids, w);
      CHECK(cpu.tiles == team.tiles);
      check_rows<Scalar>(s, host, ids, cpu.rows);
      check_grads<Scalar>(s, host, ids, w, cpu.grads, cpu.tiles);
    }
  }
}

TTGNN_TEST_ALL_SPACES("tt tiles: rows and gradients for d = 1, 4, 5, 8, 16 match the host "
                      "reference within the rounding bound") {
  check_widths_against_reference<ExecutionSpace, float>();
  check_widths_against_reference<ExecutionSpace, double>();
}

template <class ExecutionSpace> void check_widths_finite_differences() {
  using mem = typename ExecutionSpace::memory_space;
  ExecutionSpace space;
  for (auto const &s : width_shapes()) {
    CAPTURE(s.to_string());
    auto host = test::random_host_cores(s, 71);
    auto ids = test::test_ids(s, "random", 72, 90);
    for (std::int64_t b = 0; b < 20; ++b)
      ids[b] = (11 + b / 2) % s.num_rows;
    auto w = random_weights(ids.size() * s.dim(), 73);
    std::vector<double> abs_w(w);
    for (auto &x : abs_w)
      x = std::fabs(x);
    // The loss is linear in each core entry: the central difference with step h is exact up
    // to the rounding of the two losses, at most ~4 eps (loss of absolute values) / h.
    const double h = 0.5;
    const double tol =
        16 * std::numeric_limits<double>::epsilon() * host_loss(s, absolute(host), ids, abs_w) / h;
    const HostCores fd = test::finite_difference_grads(s, host, ids, w, h);
    for (auto mode : {TtBackwardMode::deterministic, TtBackwardMode::atomic}) {
      CAPTURE(int(mode));
      auto cores = test::make_cores<double, ExecutionSpace>(s, host);
      TtCores<double, mem> grads(s, "ttgnn::test::grads");
      auto ids_d = test::to_device<ExecutionSpace>(ids);
      auto gr = rows_view<ExecutionSpace, double>(w, std::int64_t(ids.size()), s.dim());
      tt_lookup_backward(space, cores, ids_d, gr, grads, TtLookupPath::prefix, mode);
      HostCores got;
      for (int k = 0; k < s.num_cores(); ++k)
        got.push_back(copy_core_to_host(space, grads, k));
      const auto e = test::max_error(got, fd);
      CHECK(e.ref > 1.0);
      CHECK(e.err <= tol);
    }
  }
}

TTGNN_TEST_ALL_SPACES("tt tiles: finite differences of every core entry for d = 1, 4, 5, 8, 16") {
  check_widths_finite_differences<ExecutionSpace>();
}

template <class ExecutionSpace> void check_tiles_follow_the_grouping() {
  using mem = typename ExecutionSpace::memory_space;
  ExecutionSpace space;
  auto s = width_shapes()[1];
  auto cores = test::make_cores<float, ExecutionSpace>(s, test::random_host_cores(s, 81));
  auto ids_h = test::test_ids(s, "random", 82, 30000);
  for (std::int64_t b = 0; b < 3000; ++b) // one long prefix: 3000 repeats of an id
    ids_h[b] = 7;
  auto ids = test::to_device<ExecutionSpace>(ids_h);
  TtLookupWorkspace<float, ExecutionSpace> ws;
  detail::TtDeviceCores<const float, mem> g(cores);
  detail::build_prefix_plan(space, g, Kokkos::View<const std::int64_t *, mem>(ids), s.num_rows,
                            cores.core(0).data(), ws, "test");
  const auto np = ws.num_prefixes, tiles = ws.num_tiles;
  auto first = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ws.prefix_first);
  auto tile = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ws.tile_first);
  auto row = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ws.tile_row);
  auto digit = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ws.tile_digit);
  const std::int64_t per_tile = detail::tile_rows(s.n.back());
  REQUIRE(first(np) == ids_h.size());
  REQUIRE(tile(0) == 0);
  REQUIRE(tile(tiles) == np);
  // A tile starts exactly at the prefixes whose first row crosses a multiple of per_tile.
  std::int64_t expected = 0;
  for (std::int64_t p = 0; p < np; ++p)
    if (p == 0 || first(p) / per_tile != first(p - 1) / per_tile)
      ++expected;
  CHECK(tiles == expected);
  int bad = 0;
  for (std::int64_t t = 0; t < tiles; ++t) {
    const auto p = tile(t);
    if (tile(t + 1) <= p || (p > 0 && first(p) / per_tile == first(p - 1) / per_tile))
      ++bad;
  }
  CHECK(bad == 0);
  // Sorted rows: every batch row once, prefixes non-decreasing, rows increasing within a
  // prefix (stable), digits = id mod n[K-1].
  std::vector<int> seen(ids_h.size(), 0);
  for (std::int64_t p = 0; p < np; ++p)
    for (auto x = first(p); x < first(p + 1); ++x) {
      const auto id = ids_h[row(x)];
      ++seen[row(x)];
      if (digit(x) != std::uint32_t(id % s.n.back()))
        ++bad;
      if (x > first(p) &&
          (row(x) <= row(x - 1) || id / s.n.back() != ids_h[row(x - 1)] / s.n.back()))
        ++bad;
      if (p > 0 && x == first(p) && id / s.n.back() <= ids_h[row(x - 1)] / s.n.back())
        ++bad;
    }
  CHECK(bad == 0);
  CHECK(std::count(seen.begin(), seen.end(), 1) == std::int64_t(ids_h.size()));
}

TTGNN_TEST_ALL_SPACES("tt tiles: 32-bit plan, tiles start where rows cross multiples of the "
                      "tile length") {
  check_tiles_follow_the_grouping<ExecutionSpace>();
}

#if defined(KOKKOS_ENABLE_SERIAL) && defined(KOKKOS_ENABLE_OPENMP)
static bool bitwise_equal(std::vector<double> const &a, std::vector<double> const &b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

// Runs in the .openmp.1 and .openmp.2 ctest entries: tiles run in any order on any thread,
// each by one thread, and the tile copies are summed in tile order, so the bits match Serial.
TEST_CASE("tt tiles: rows and gradients are bitwise equal on Serial and OpenMP [threads]") {
  INFO("OpenMP threads: " << Kokkos::OpenMP::concurrency());
  for (auto const &s : width_shapes()) {
    CAPTURE(s.to_string());
    auto host = test::random_host_cores(s, 91);
    auto ids = test::test_ids(s, "random", 92, 20000);
    auto w = random_weights(ids.size() * s.dim(), 93);
    auto a = run_tiles<true, Kokkos::Serial, float>(s, host, ids, w);
    auto b = run_tiles<true, Kokkos::OpenMP, float>(s, host, ids, w);
    CHECK(a.tiles > 4);
    CHECK(bitwise_equal(a.rows, b.rows));
    for (int k = 0; k < s.num_cores(); ++k)
      CHECK(bitwise_equal(a.grads[k], b.grads[k]));
    auto at = run_tiles<false, Kokkos::Serial, float>(s, host, ids, w);
    auto bt = run_tiles<false, Kokkos::OpenMP, float>(s, host, ids, w);
    CHECK(bitwise_equal(at.rows, bt.rows));
    for (int k = 0; k < s.num_cores(); ++k)
      CHECK(bitwise_equal(at.grads[k], bt.grads[k]));
  }
}
#endif
