// TT lookup at ranks 16 and 32 with d = 8,4,4 (dim 128): the kernels whose team scratch exceeds
// the space's level-0 limit run on level-1 scratch (rank 32's chain backward needs about
// 48 KiB), and forward rows and core gradients of every path and mode still match a host
// reference written out for three cores, in double (tolerance: a few hundred terms of size
// <= 1 per entry, 1e-12) and float (the same count of float roundings).
#include "core/tt/tt_lookup.hpp"
#include "test_harness.hpp"
#include "tt_test_util.hpp"

#include <cmath>
#include <limits>
#include <random>

using namespace ttgnn;

namespace {

using HostCores = std::vector<std::vector<double>>;

TtShape wide_shape(std::int64_t rank) {
  TtShape s;
  s.num_rows = 210;
  s.n = {5, 6, 7};
  s.d = {8, 4, 4};
  s.ranks = {1, rank, rank, 1};
  s.validate();
  return s;
}

// Entry (a, j, b) of slice i of core k (r_k x d_k x r_{k+1}, row-major).
double at(TtShape const &s, HostCores const &g, int k, std::int64_t i, std::int64_t a,
          std::int64_t j, std::int64_t b) {
  const auto r0 = s.ranks[k], d = s.d[k], r1 = s.ranks[k + 1];
  return g[k][((i * r0 + a) * d + j) * r1 + b];
}

// Gradients of loss = sum_b sum_x w(b, x) row(ids[b])(x), x = (j0 d1 + j1) d2 + j2, by the
// explicit three-core sums: dG1[i1](a, j1, b) = sum_{j0, j2} w G0[i0](0, j0, a) G2[i2](b, j2, 0)
// and likewise for G0 and G2.
HostCores host_grads(TtShape const &s, HostCores const &g, std::vector<std::int64_t> const &ids,
                     std::vector<double> const &w) {
  HostCores grads;
  for (auto const &core : g)
    grads.emplace_back(core.size(), 0.0);
  const auto d0 = s.d[0], d1 = s.d[1], d2 = s.d[2], r1 = s.ranks[1], r2 = s.ranks[2];
  for (std::size_t b = 0; b < ids.size(); ++b) {
    std::int64_t dig[3];
    mixed_radix_digits(ids[b], 3, s.n.data(), dig);
    double const *wb = &w[b * s.dim()];
    for (std::int64_t j0 = 0; j0 < d0; ++j0)
      for (std::int64_t j1 = 0; j1 < d1; ++j1)
        for (std::int64_t j2 = 0; j2 < d2; ++j2) {
          const double wx = wb[(j0 * d1 + j1) * d2 + j2];
          for (std::int64_t a = 0; a < r1; ++a)
            for (std::int64_t c = 0; c < r2; ++c) {
              const double x = at(s, g, 0, dig[0], 0, j0, a), y = at(s, g, 1, dig[1], a, j1, c),
                           z = at(s, g, 2, dig[2], c, j2, 0);
              grads[0][(dig[0] * d0 + j0) * r1 + a] += wx * y * z;
              grads[1][((dig[1] * r1 + a) * d1 + j1) * r2 + c] += wx * x * z;
              grads[2][(dig[2] * r2 + c) * d2 + j2] += wx * x * y;
            }
        }
  }
  return grads;
}

template <class ExecutionSpace, class Scalar> void check_wide(std::int64_t rank) {
  using mem = typename ExecutionSpace::memory_space;
  ExecutionSpace space;
  const auto s = wide_shape(rank);
  const auto host = test::random_host_cores(s, 61 + rank);
  // 300 ids with repeats and shared prefixes
  std::mt19937_64 rng(62);
  std::vector<std::int64_t> ids_h(300);
  for (auto &id : ids_h)
    id = std::int64_t(rng() % 60) * 3 + std::int64_t(rng() % 3);
  std::vector<double> w(ids_h.size() * s.dim());
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto &x : w)
    x = u(rng);
  const auto ref = host_grads(s, host, ids_h, w);
  // Each entry sums at most 300 x 32 x 32 products of three numbers <= 1 in magnitude, each
  // rounded a few times: relative error per term ~4 eps, absolute <= 300 * 1024 * 4 eps.
  const double tol = 300.0 * 1024 * 4 * std::numeric_limits<Scalar>::epsilon();
  auto cores = test::make_cores<Scalar, ExecutionSpace>(s, host);
  auto ids = test::to_device<ExecutionSpace>(ids_h);
  Kokkos::View<Scalar **, Kokkos::LayoutRight, mem> out("ttgnn::test::out", ids_h.size(), s.dim()),
      gr("ttgnn::test::grad_rows", ids_h.size(), s.dim());
  auto gh = Kokkos::create_mirror_view(gr);
  for (std::size_t i = 0; i < w.size(); ++i)
    gh.data()[i] = Scalar(w[i]);
  Kokkos::deep_copy(gr, gh);
  for (auto path : {TtLookupPath::plain, TtLookupPath::prefix})
    for (auto mode : {TtBackwardMode::deterministic, TtBackwardMode::atomic}) {
      CAPTURE(int(path));
      CAPTURE(int(mode));
      TtLookupWorkspace<Scalar, ExecutionSpace> ws;
      tt_lookup_forward(space, cores, ids, out, path, ws);
      auto oh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
      for (std::size_t b = 0; b < ids_h.size(); b += 37) {
        const auto row = test::host_row(s, host, ids_h[b]);
        for (std::int64_t x = 0; x < s.dim(); ++x)
          CHECK(std::fabs(double(oh(b, x)) - row[x]) <=
                1024 * 4 * std::numeric_limits<Scalar>::epsilon());
      }
      TtCores<Scalar, mem> grads(s, "ttgnn::test::grads");
      tt_lookup_backward(space, cores, Kokkos::View<const std::int64_t *, mem>(ids),
                         Kokkos::View<const Scalar **, Kokkos::LayoutRight, mem>(gr), grads, path,
                         mode, ws);
      for (int k = 0; k < 3; ++k) {
        const auto got = copy_core_to_host(space, grads, k);
        REQUIRE(got.size() == ref[k].size());
        for (std::size_t i = 0; i < got.size(); ++i)
          CHECK(std::fabs(double(got[i]) - ref[k][i]) <= tol);
      }
    }
}

} // namespace

TTGNN_TEST_ALL_SPACES("tt lookup at rank 16 and 32: level-1 scratch where level 0 is too small") {
  using functor = detail::TtChainBackwardGrouped<float, ExecutionSpace>;
  const auto s32 = wide_shape(32);
  TtCores<float, typename ExecutionSpace::memory_space> c32(s32, "ttgnn::test::c32");
  const detail::TtDeviceCores<const float, typename ExecutionSpace::memory_space> g32(c32);
  const auto bytes32 =
      detail::team_bytes<float, ExecutionSpace>(functor::buffer_size(g32, 3)); // plain path
  // the chain backward at rank 32 takes level 1 on host spaces (about 33 KiB > 32 KiB; it
  // took 48 KiB, level 1 on every space, before the slices' transposes moved out of scratch
  // into one transpose per call, tt_backward_kernels.hpp's transpose_cores)
  CHECK(bytes32 > 32 * 1024);
  if constexpr (detail::host_space_v<ExecutionSpace>)
    CHECK(detail::scratch_level<ExecutionSpace>(bytes32) == 1);
  for (std::int64_t rank : {16, 32}) {
    CAPTURE(rank);
    check_wide<ExecutionSpace, double>(rank);
    check_wide<ExecutionSpace, float>(rank);
  }
}
