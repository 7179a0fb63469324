// TT initializations and host utilities: materialize_host against a brute-force sum over
// ranks, tt_gram_host against W^T W of the materialized table, Gaussian variance within
// statistical tolerance, orthogonal W^T W = I (direct and fallback), TT-SVD exactness for an
// exact TT-rank matrix and reported = actual error under truncation, determinism by seed.
#include "core/error.hpp"
#include "core/tt/tt_init.hpp"
#include "test_harness.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace {

ttgnn::TtShape shape_of(std::int64_t rows, std::vector<std::int64_t> n, std::vector<std::int64_t> d,
                        std::vector<std::int64_t> ranks) {
  ttgnn::TtShape s;
  s.num_rows = rows;
  s.n = std::move(n);
  s.d = std::move(d);
  s.ranks = std::move(ranks);
  return s;
}

std::int64_t prod(std::vector<std::int64_t> const &v) {
  std::int64_t p = 1;
  for (auto x : v)
    p *= x;
  return p;
}

/// A^T A of a row-major rows x dim matrix.
std::vector<double> gram(std::vector<double> const &a, std::int64_t rows, std::int64_t dim) {
  std::vector<double> g(dim * dim, 0.0);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t i = 0; i < dim; ++i)
      for (std::int64_t j = 0; j < dim; ++j)
        g[i * dim + j] += a[r * dim + i] * a[r * dim + j];
  return g;
}

double max_off_identity(std::vector<double> const &g, std::int64_t dim) {
  double e = 0;
  for (std::int64_t i = 0; i < dim; ++i)
    for (std::int64_t j = 0; j < dim; ++j)
      e = std::max(e, std::fabs(g[i * dim + j] - (i == j ? 1.0 : 0.0)));
  return e;
}

double max_abs_diff(std::vector<double> const &a, std::vector<double> const &b) {
  REQUIRE(a.size() == b.size());
  double e = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    e = std::max(e, std::fabs(a[i] - b[i]));
  return e;
}

double relative_error(std::vector<double> const &approx, std::vector<double> const &exact) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < exact.size(); ++i) {
    num += (approx[i] - exact[i]) * (approx[i] - exact[i]);
    den += exact[i] * exact[i];
  }
  return std::sqrt(num / den);
}

/// The input of tt_svd as it sees it: the first num_rows rows, zero-padded to prod(n) rows.
std::vector<double> zero_padded(std::vector<double> a, ttgnn::TtShape const &s) {
  a.resize(prod(s.n) * prod(s.d), 0.0);
  return a;
}

} // namespace

TEST_CASE("materialize_host equals the explicit sum over ranks (3 cores, padding)") {
  // Row (i1,i2,i3), column (j1,j2,j3):
  //   sum_{a,b} G1[i1](0, j1, a) G2[i2](a, j2, b) G3[i3](b, j3, 0),
  // with G_k[i](a, j, b) stored at ((i·r_k + a)·d_k + j)·r_{k+1} + b.
  const auto s = shape_of(50, {3, 4, 5}, {2, 3, 2}, {1, 3, 2, 1});
  const auto cores = ttgnn::tt_init_gaussian(s, 1.0, 7);
  const auto w = ttgnn::materialize_host(s, cores);
  const auto wp = ttgnn::materialize_host(s, cores, true);
  REQUIRE(w.size() == 50u * 12u);
  REQUIRE(wp.size() == 60u * 12u);
  double max_err = 0;
  for (std::int64_t id = 0; id < 60; ++id)
    for (std::int64_t col = 0; col < 12; ++col) {
      const std::int64_t i1 = id / 20, i2 = (id / 5) % 4, i3 = id % 5;
      const std::int64_t j1 = col / 6, j2 = (col / 2) % 3, j3 = col % 2;
      double ref = 0;
      for (std::int64_t a = 0; a < 3; ++a)
        for (std::int64_t b = 0; b < 2; ++b)
          ref += cores[0][((i1 * 1 + 0) * 2 + j1) * 3 + a] *
                 cores[1][((i2 * 3 + a) * 3 + j2) * 2 + b] * cores[2][((i3 * 2 + b) * 2 + j3)];
      max_err = std::max(max_err, std::fabs(wp[id * 12 + col] - ref));
      if (id < 50)
        CHECK(w[id * 12 + col] == wp[id * 12 + col]);
    }
  CHECK(max_err <= 1e-14); // 6 products of O(1) numbers per entry
  CHECK_THROWS_AS(ttgnn::materialize_host(s, {cores[0], cores[1]}), ttgnn::ConfigError);
}

TEST_CASE("tt_gram_host equals W^T W of the materialized table, real rows and padded") {
  for (auto const &s :
       {shape_of(50, {3, 4, 5}, {2, 3, 2}, {1, 3, 2, 1}), shape_of(13, {4, 5}, {3, 2}, {1, 4, 1}),
        shape_of(100, {2, 3, 4, 5}, {2, 1, 2, 2}, {1, 2, 3, 2, 1}),
        shape_of(60, {3, 4, 5}, {2, 3, 2}, {1, 3, 2, 1})}) {
    CAPTURE(s.num_rows);
    const auto cores = ttgnn::tt_init_gaussian(s, 1.0, 3);
    const std::int64_t dim = prod(s.d);
    const auto w = ttgnn::materialize_host(s, cores);
    const auto wp = ttgnn::materialize_host(s, cores, true);
    // Entries of W^T W are sums of <= 120 products of O(1) numbers: 1e-12 is ~50 ulp.
    CHECK(max_abs_diff(ttgnn::tt_gram_host(s, cores), gram(w, s.num_rows, dim)) <= 1e-12);
    CHECK(max_abs_diff(ttgnn::tt_gram_host(s, cores, true), gram(wp, prod(s.n), dim)) <= 1e-12);
  }
}

TEST_CASE("gaussian init: sigma formula and table variance within 5 standard errors") {
  // sigma = (target / prod inner ranks)^(1/(2K)): ranks [1,4,4,1], target 1 -> 2^(-2/3).
  CHECK(ttgnn::tt_gaussian_sigma(shape_of(64, {4, 4, 4}, {2, 2, 2}, {1, 4, 4, 1}), 1.0) ==
        doctest::Approx(0.62996052494743658).epsilon(1e-14));
  CHECK_THROWS_AS(ttgnn::tt_gaussian_sigma(shape_of(64, {4, 4, 4}, {2, 2, 2}, {1, 4, 4, 1}), 0),
                  ttgnn::ConfigError);
  for (auto const &s :
       {shape_of(64, {4, 4, 4}, {2, 2, 2}, {1, 4, 4, 1}), shape_of(30, {5, 6}, {4, 2}, {1, 6, 1}),
        shape_of(64, {2, 4, 2, 4}, {2, 2, 1, 2}, {1, 3, 2, 3, 1})}) {
    CAPTURE(s.num_cores());
    const double target = 0.5;
    // Entries of one table share cores, so they are not independent; tables from different
    // seeds are. Per seed, S = mean of W² over the table (E[S] = target) and
    // M = mean of W (E[M] = 0); over 400 seeds the means are within 5 standard errors
    // (estimated from the same samples) of target and 0, except with probability ~6e-7.
    const int seeds = 400;
    std::vector<double> ms(seeds), ss(seeds);
    for (int t = 0; t < seeds; ++t) {
      const auto w = ttgnn::materialize_host(s, ttgnn::tt_init_gaussian(s, target, 1000 + t));
      double sum = 0, sum2 = 0;
      for (double x : w) {
        sum += x;
        sum2 += x * x;
      }
      ms[t] = sum / w.size();
      ss[t] = sum2 / w.size();
    }
    auto mean_se = [&](std::vector<double> const &x) {
      double m = 0, v = 0;
      for (double y : x)
        m += y;
      m /= x.size();
      for (double y : x)
        v += (y - m) * (y - m);
      return std::pair<double, double>{m, std::sqrt(v / (x.size() - 1) / x.size())};
    };
    const auto [s_mean, s_se] = mean_se(ss);
    const auto [m_mean, m_se] = mean_se(ms);
    MESSAGE("mean square " << s_mean << " +- " << s_se << " (target " << target << "), mean "
                           << m_mean << " +- " << m_se);
    CHECK(std::fabs(s_mean - target) <= 5 * s_se);
    CHECK(std::fabs(m_mean) <= 5 * m_se);
    CHECK(s_se <= 0.05 * target); // the test can tell a 25% error in the variance
  }
  // Core entries themselves: sample variance of n i.i.d. N(0, sigma²) has standard error
  // sigma²·sqrt(2/(n-1)).
  const auto big = shape_of(4096, {16, 16, 16}, {4, 4, 4}, {1, 8, 8, 1});
  const double sigma = ttgnn::tt_gaussian_sigma(big, 1.0);
  const auto cores = ttgnn::tt_init_gaussian(big, 1.0, 5);
  for (auto const &c : cores) {
    double m2 = 0;
    for (double x : c)
      m2 += x * x;
    m2 /= c.size();
    CHECK(std::fabs(m2 - sigma * sigma) <= 5 * sigma * sigma * std::sqrt(2.0 / (c.size() - 1)));
  }
}

TEST_CASE("inits are deterministic for a seed and differ between seeds") {
  const auto s = shape_of(500, {8, 8, 8}, {2, 2, 2}, {1, 4, 4, 1}); // direct orthogonal
  const auto f = shape_of(512, {8, 8, 8}, {4, 4, 4}, {1, 4, 4, 1}); // orthogonal fallback
  CHECK(ttgnn::tt_init_gaussian(s, 1.0, 42) == ttgnn::tt_init_gaussian(s, 1.0, 42));
  CHECK(ttgnn::tt_init_gaussian(s, 1.0, 42) != ttgnn::tt_init_gaussian(s, 1.0, 43));
  CHECK(ttgnn::tt_init_orthogonal(s, 42).cores == ttgnn::tt_init_orthogonal(s, 42).cores);
  CHECK(ttgnn::tt_init_orthogonal(s, 42).cores != ttgnn::tt_init_orthogonal(s, 43).cores);
  CHECK(ttgnn::tt_init_orthogonal(f, 42).cores == ttgnn::tt_init_orthogonal(f, 42).cores);
  CHECK(ttgnn::tt_init_orthogonal(f, 42).cores != ttgnn::tt_init_orthogonal(f, 43).cores);
  // Every core differs between seeds (not only core 0).
  const auto a = ttgnn::tt_init_gaussian(s, 1.0, 1), b = ttgnn::tt_init_gaussian(s, 1.0, 2);
  for (int k = 0; k < 3; ++k)
    CHECK(a[k] != b[k]);
}

TEST_CASE("orthogonal init, direct construction: W^T W = I") {
  struct Case {
    ttgnn::TtShape shape;
    bool padding_zero;
  };
  // Conditions ranks[k]·d[k] <= n[k]·ranks[k+1]: [8,8,8]/[2,2,2]/R=4: 2<=32, 8<=32, 8<=8.
  // d = 128 as [8,4,4] with R = 16 needs n[2] >= 64: [4,8,64]: 8<=64, 64<=128, 64<=64.
  // N = 1536 = 3·(8·64): core-0 slice 3 holds only padding and is dropped (8 <= 3·16), so the
  // padding rows are zero. N = 2000 ends inside slice 3: the guarantee is on the padded table.
  const std::vector<Case> cases{
      {shape_of(512, {8, 8, 8}, {2, 2, 2}, {1, 4, 4, 1}), true},
      {shape_of(2048, {4, 8, 64}, {8, 4, 4}, {1, 16, 16, 1}), true},
      {shape_of(1536, {4, 8, 64}, {8, 4, 4}, {1, 16, 16, 1}), true},
      {shape_of(2000, {4, 8, 64}, {8, 4, 4}, {1, 16, 16, 1}), false},
      {shape_of(16, {4, 4}, {2, 2}, {1, 2, 1}), true},
      {shape_of(100, {2, 4, 4, 4}, {2, 2, 2, 2}, {1, 2, 2, 2, 1}), false}};
  for (auto const &c : cases) {
    const auto &s = c.shape;
    CAPTURE(s.num_rows);
    CAPTURE(s.d[0]);
    REQUIRE(ttgnn::tt_orthogonal_direct_possible(s));
    const auto init = ttgnn::tt_init_orthogonal(s, 9);
    CHECK(init.direct);
    CHECK(init.padding_rows_zero == c.padding_zero);
    const std::int64_t dim = prod(s.d), padded = prod(s.n);
    const auto wp = ttgnn::materialize_host(s, init.cores, true);
    const double padded_err = max_off_identity(gram(wp, padded, dim), dim);
    const auto w = ttgnn::materialize_host(s, init.cores);
    const double real_err = max_off_identity(gram(w, s.num_rows, dim), dim);
    MESSAGE("direct orthogonal, N=" << s.num_rows << " d=" << dim << ": max|W^T W - I| padded "
                                    << padded_err << ", real rows " << real_err);
    // Products of orthonormal factors: rounding only, ~1e-15; the bound asked is 1e-5.
    CHECK(padded_err <= 1e-12);
    CHECK(init.padded_gram_error <= 1e-12); // its own (contracted) measure of the same thing
    CHECK(std::fabs(init.gram_error - real_err) <= 1e-12);
    if (c.padding_zero) {
      CHECK(real_err <= 1e-12);
      for (std::size_t i = w.size(); i < wp.size(); ++i)
        CHECK(wp[i] == 0.0);
    } else {
      CHECK(real_err > 1e-6); // the padding rows carry part of the unit column norms
    }
  }
  // scale multiplies the table: W^T W = scale² I.
  const auto s = shape_of(512, {8, 8, 8}, {2, 2, 2}, {1, 4, 4, 1});
  const auto w1 = ttgnn::materialize_host(s, ttgnn::tt_init_orthogonal(s, 9).cores);
  const auto w3 = ttgnn::materialize_host(s, ttgnn::tt_init_orthogonal(s, 9, 3.0).cores);
  for (std::size_t i = 0; i < w1.size(); ++i)
    CHECK(w3[i] == doctest::Approx(3 * w1[i]).epsilon(1e-14));
}

TEST_CASE("orthogonal init, TT-SVD fallback for shapes the construction does not allow") {
  // [4,4,4]/[2,2,2] with ranks 8 = full TT ranks (unfoldings are 8 x 64 and 64 x 8), but
  // R·d3 = 16 > n3 = 4: fallback, and TT-SVD at full rank is exact.
  {
    const auto s = shape_of(64, {4, 4, 4}, {2, 2, 2}, {1, 8, 8, 1});
    REQUIRE_FALSE(ttgnn::tt_orthogonal_direct_possible(s));
    const auto init = ttgnn::tt_init_orthogonal(s, 4);
    CHECK_FALSE(init.direct);
    const auto w = ttgnn::materialize_host(s, init.cores);
    const double err = max_off_identity(gram(w, 64, 8), 8);
    MESSAGE("fallback at full rank: max|W^T W - I| " << err << ", TT-SVD error "
                                                     << init.tt_svd_error);
    CHECK(err <= 1e-12);
    CHECK(init.tt_svd_error <= 1e-12);
  }
  // Lossy fallbacks: [8,8,8]/[4,4,4]/R=4 (R·d3 = 16 > 8) and d = 128 as [8,4,4] over
  // [10,10,10] with R = 16 (R·d3 = 64 > 10). The reported errors must equal the measured ones.
  for (auto const &s : {shape_of(512, {8, 8, 8}, {4, 4, 4}, {1, 4, 4, 1}),
                        shape_of(1000, {10, 10, 10}, {8, 4, 4}, {1, 16, 16, 1}),
                        shape_of(450, {8, 8, 8}, {4, 4, 4}, {1, 4, 4, 1})}) {
    REQUIRE_FALSE(ttgnn::tt_orthogonal_direct_possible(s));
    const auto init = ttgnn::tt_init_orthogonal(s, 4);
    CHECK_FALSE(init.direct);
    const std::int64_t dim = prod(s.d);
    const auto w = ttgnn::materialize_host(s, init.cores);
    const auto wp = ttgnn::materialize_host(s, init.cores, true);
    const double err = max_off_identity(gram(w, s.num_rows, dim), dim);
    const double padded_err = max_off_identity(gram(wp, prod(s.n), dim), dim);
    MESSAGE("fallback N=" << s.num_rows << " d=" << dim << " R=" << s.ranks[1]
                          << ": max|W^T W - I| " << err << " (padded " << padded_err
                          << "), TT-SVD relative error " << init.tt_svd_error);
    CHECK(std::fabs(init.gram_error - err) <= 1e-12);
    CHECK(std::fabs(init.padded_gram_error - padded_err) <= 1e-12);
    CHECK(init.tt_svd_error > 0.1); // a random orthonormal matrix is far from rank 4 or 16
    CHECK(init.tt_svd_error < 1.0);
  }
  CHECK_THROWS_AS(ttgnn::tt_init_orthogonal(shape_of(4, {2, 2}, {4, 2}, {1, 1, 1}), 1),
                  ttgnn::ConfigError); // 4 rows cannot hold 8 orthonormal columns
}

TEST_CASE("tt_svd of a matrix of exact TT rank reconstructs it") {
  for (auto const &s :
       {shape_of(60, {4, 5, 3}, {2, 3, 2}, {1, 3, 4, 1}), shape_of(20, {4, 5}, {3, 4}, {1, 5, 1}),
        shape_of(96, {2, 4, 3, 4}, {2, 2, 3, 1}, {1, 2, 3, 2, 1}),
        shape_of(512, {8, 8, 8}, {4, 4, 4}, {1, 4, 4, 1})}) {
    CAPTURE(s.num_rows);
    const auto a = ttgnn::materialize_host(s, ttgnn::tt_init_gaussian(s, 1.0, 17));
    const auto r = ttgnn::tt_svd(s, a);
    const double err = relative_error(ttgnn::materialize_host(s, r.cores), a);
    MESSAGE("exact TT rank, N=" << s.num_rows << ": relative error " << err << " (reported "
                                << r.relative_error << ")");
    CHECK(err <= 1e-10);
    CHECK(r.relative_error <= 1e-10);
    CHECK(r.effective_ranks == s.ranks);
  }
  // Caps above what the unfoldings allow: first unfolding is 8 x 90, so rank 8; the cores
  // keep the shape's ranks 20, zero-padded, and reconstruct exactly.
  const auto s = shape_of(60, {4, 5, 3}, {2, 3, 2}, {1, 20, 20, 1});
  const auto small = shape_of(60, {4, 5, 3}, {2, 3, 2}, {1, 3, 4, 1});
  const auto a = ttgnn::materialize_host(small, ttgnn::tt_init_gaussian(small, 1.0, 2));
  const auto r = ttgnn::tt_svd(s, a);
  CHECK(r.cores[0].size() == 4u * 1 * 2 * 20);
  CHECK(r.effective_ranks == std::vector<std::int64_t>{1, 8, 6, 1});
  CHECK(relative_error(ttgnn::materialize_host(s, r.cores), a) <= 1e-10);
}

TEST_CASE("tt_svd of a large first unfolding (randomized range finder): exact rank and noise") {
  // n_0·d_0 = 1200 > 1024 rows and 3600 columns: the range finder path. A TT-rank-(4, 4) table
  // is reconstructed to rounding (the range finder is exact when the rank is at most r + 16).
  // With Gaussian noise E added, each truncation discards at most what the best rank-r
  // approximation of its unfolding does, which is at most ||E||_F, plus what the power iterations
  // leave of it; over the two truncations the TT-SVD error is at most sqrt(2)·||E||_F (Oseledets
  // 2011, Thm. 2.2) for exact SVDs. The bound asserted, 1.5·||E||_F / ||A + E||_F, leaves 6%
  // for the range finder.
  const auto s = shape_of(270000, {300, 30, 30}, {4, 2, 2}, {1, 4, 4, 1});
  const auto a = ttgnn::materialize_host(s, ttgnn::tt_init_gaussian(s, 1.0, 23));
  const auto r = ttgnn::tt_svd(s, a);
  CHECK(relative_error(ttgnn::materialize_host(s, r.cores), a) <= 1e-10);
  CHECK(r.relative_error <= 1e-10);
  auto noisy = a;
  double noise2 = 0, total2 = 0, a2 = 0;
  std::uint64_t state = 5;
  for (auto &x : noisy) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const double e = 0.05 * (static_cast<double>(state >> 11) * 0x1.0p-53 - 0.5);
    a2 += x * x;
    x += e;
    noise2 += e * e;
    total2 += x * x;
  }
  const auto rn = ttgnn::tt_svd(s, noisy);
  const double err = relative_error(ttgnn::materialize_host(s, rn.cores), noisy);
  const double bound = 1.5 * std::sqrt(noise2 / total2);
  MESSAGE("noise " << std::sqrt(noise2 / a2) << " of the table: error " << err << ", bound "
                   << bound);
  CHECK(err > 0.1 * bound); // the noise is really there
  CHECK(err <= bound);
  CHECK(rn.relative_error == doctest::Approx(err).epsilon(1e-8).scale(0));
}

TEST_CASE("tt_svd with a lower rank cap reports the error it makes") {
  // Rank-(4,4) matrices truncated to ranks (2,2) or (3,1): the reported error (from the
  // discarded parts of each SVD, which are orthogonal) equals the measured error over the
  // padded table (padding rows are zero in the input but not in the TT approximation).
  struct Case {
    std::int64_t rows;
    std::vector<std::int64_t> cap;
  };
  for (auto const &c : {Case{60, {1, 2, 2, 1}}, Case{47, {1, 2, 2, 1}}, Case{60, {1, 3, 1, 1}}}) {
    const auto full = shape_of(c.rows, {4, 5, 3}, {2, 3, 2}, {1, 4, 4, 1});
    const auto a = ttgnn::materialize_host(full, ttgnn::tt_init_gaussian(full, 1.0, 8));
    const auto s = shape_of(c.rows, {4, 5, 3}, {2, 3, 2}, c.cap);
    const auto r = ttgnn::tt_svd(s, a);
    const double err = relative_error(ttgnn::materialize_host(s, r.cores, true), zero_padded(a, s));
    MESSAGE("truncated N=" << c.rows << " ranks " << c.cap[1] << "," << c.cap[2] << ": reported "
                           << r.relative_error << ", measured " << err);
    CHECK(err > 1e-3);
    CHECK(r.relative_error == doctest::Approx(err).epsilon(1e-10).scale(0));
    // A matrix given up: the same truncations bit for bit, and its storage freed.
    std::vector<double> given = a;
    const auto moved = ttgnn::tt_svd(s, std::move(given));
    CHECK(given.empty());
    CHECK(given.capacity() == 0);
    CHECK(moved.cores == r.cores);
    CHECK(moved.relative_error == r.relative_error);
    CHECK(moved.effective_ranks == r.effective_ranks);
  }
}

TEST_CASE("tt_svd column scaling and the spectral init") {
  const auto s = shape_of(60, {4, 5, 3}, {2, 3, 2}, {1, 3, 4, 1});
  const auto a = ttgnn::materialize_host(s, ttgnn::tt_init_gaussian(s, 1.0, 31));
  // Column scales of Kronecker form, scale(j1,j2,j3) = u[j1]·v[j2]·x[j3], keep the TT ranks
  // (a rank-1 factor per core), so the scaled matrix is still reconstructed exactly. The
  // eigenvalues are ±scale², and the spectral init uses sqrt|lambda|.
  const double u[2] = {0.5, 2.0}, v[3] = {1.0, 3.0, 0.25}, x[2] = {1.5, 0.75};
  std::vector<double> lambda(12), scale(12);
  for (int c = 0; c < 12; ++c) {
    scale[c] = u[c / 6] * v[(c / 2) % 3] * x[c % 2];
    lambda[c] = (c % 2 ? -1.0 : 1.0) * scale[c] * scale[c];
  }
  std::vector<double> scaled = a;
  for (int r = 0; r < 60; ++r)
    for (int c = 0; c < 12; ++c)
      scaled[r * 12 + c] *= scale[c];
  const auto r1 = ttgnn::tt_init_spectral(s, a, lambda); // exponent 0.5
  const auto r2 = ttgnn::tt_svd(s, a, scale);
  CHECK(relative_error(ttgnn::materialize_host(s, r1.cores), scaled) <= 1e-10);
  CHECK(relative_error(ttgnn::materialize_host(s, r2.cores), scaled) <= 1e-10);
  CHECK(r1.relative_error <= 1e-10);
  const auto r0 = ttgnn::tt_init_spectral(s, a, lambda, 0.0); // unscaled
  CHECK(relative_error(ttgnn::materialize_host(s, r0.cores), a) <= 1e-10);
  CHECK_THROWS_AS(ttgnn::tt_svd(s, std::vector<double>(10)), ttgnn::ConfigError);
  CHECK_THROWS_AS(ttgnn::tt_svd(s, a, std::vector<double>(5)), ttgnn::ConfigError);
  CHECK_THROWS_AS(ttgnn::tt_init_spectral(s, a, std::vector<double>(11)), ttgnn::ConfigError);
  CHECK_THROWS_AS(ttgnn::tt_svd(shape_of(60, {4, 5, 3}, {2, 3, 2}, {2, 3, 4, 1}), a),
                  ttgnn::ConfigError);
  CHECK_THROWS_AS(ttgnn::tt_svd(shape_of(61, {4, 5, 3}, {2, 3, 2}, {1, 3, 4, 1}), a),
                  ttgnn::ConfigError);
  // The zero matrix: error 0, not 0/0.
  const auto z = ttgnn::tt_svd(s, std::vector<double>(60 * 12, 0.0));
  CHECK(z.relative_error == 0.0);
}
