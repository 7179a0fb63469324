// Dropout: finite-difference gradient checks (with ReLU, and fused with ReLU), the fused
// kernels against ReLU then Dropout, seeded masks against the counter-based formula, the
// keep rate, row keys, evaluation, special values (NaN, -0, inf) and errors.
#include "core/counter_rng.hpp"
#include "core/error.hpp"
#include "models/layers/dropout.hpp"
#include "models/layers/parameter_init.hpp"
#include "models/layers/relu.hpp"
#include "layer_test_util.hpp"
#include "test_harness.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace {

using namespace ttgnn::test;

template <class View> std::vector<double> to_host(View const &v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<double>(h.data(), h.data() + h.size());
}

/// Dropout::forward_relu / backward_relu seen as one plain layer (for check_plain_layer).
template <class Space> struct FusedReluDropout {
  ttgnn::Dropout<double, Space> &dropout;
  auto parameters() const { return dropout.parameters(); }
  auto gradients() const { return dropout.gradients(); }
  void zero_grad(Space const &space) { dropout.zero_grad(space); }
  void forward(Space const &space, Mat<Space> const &x, Mat<Space> const &y) {
    dropout.forward_relu(space, x, y);
  }
  void backward(Space const &space, Mat<Space> const &gy, Mat<Space> const &gx) {
    dropout.backward_relu(space, gy, gx);
  }
};

/// The fused kernels against ReLU then Dropout: the same mask stream, bitwise equal outputs and
/// input gradients (both compute relu(x) * (1 / (1 - p)) on kept entries, and y > 0 marks
/// exactly the kept, positive entries), in training and in evaluation, in place or not.
template <class Space> void check_fused_relu_dropout() {
  const Space space;
  const std::int64_t n = 37, m = 29;
  auto x = random_matrix<Space>(n, m, 41); // about half the entries negative
  auto gy = random_matrix<Space>(n, m, 42);
  for (bool training : {true, false}) {
    CAPTURE(training);
    ttgnn::ReLU<double, Space> relu;
    ttgnn::Dropout<double, Space> apart(0.35, 9), fused(0.35, 9);
    apart.set_training(training);
    fused.set_training(training);
    Mat<Space> r("ttgnn::test::relu", n, m), y1("ttgnn::test::y1", n, m);
    Mat<Space> g1("ttgnn::test::g1", n, m), gr("ttgnn::test::gr", n, m);
    for (int step = 0; step < 2; ++step) { // two masks of the stream
      relu.forward(space, x, r);
      apart.forward(space, r, y1);
      apart.backward(space, gy, g1);
      relu.backward(space, g1, gr);
      Mat<Space> y2("ttgnn::test::y2", n, m), g2("ttgnn::test::g2", n, m);
      Kokkos::deep_copy(y2, x); // in place: y2 is x on entry
      fused.forward_relu(space, y2, y2);
      Kokkos::deep_copy(g2, gy);
      fused.backward_relu(space, g2, g2);
      CHECK(fused.step() == apart.step());
      auto h1 = to_host(y1), h2 = to_host(y2), hg1 = to_host(gr), hg2 = to_host(g2);
      std::int64_t differ = 0, kept = 0;
      for (std::size_t k = 0; k < h1.size(); ++k) {
        differ += (h1[k] != h2[k]) + (hg1[k] != hg2[k]);
        kept += h2[k] != 0;
      }
      CHECK(differ == 0);
      // kept ~ Binomial(n m, (1 - p) P(x > 0)) with P(x > 0) = 1/2 (eval: p = 0)
      const double q = (training ? 0.65 : 1.0) * 0.5, nn = double(n * m);
      CHECK(std::fabs(kept - nn * q) <= 6 * std::sqrt(nn * q * (1 - q)));
    }
    // a plain backward after a fused forward (and the converse) is refused
    CHECK_THROWS_AS(fused.backward(space, gy, g1), ttgnn::ConfigError);
    apart.forward(space, x, y1);
    CHECK_THROWS_AS(apart.backward_relu(space, gy, g1), ttgnn::ConfigError);
  }
}

/// Special values: the fused ReLU + dropout gives bitwise what ReLU gives (NaN and -0 map to
/// +0, +inf stays) when nothing is dropped (evaluation); in training a NaN input never leaks
/// into the output (ReLU maps it to 0 first), and +inf gives inf where kept and NaN (inf * 0,
/// as in PyTorch) where dropped.
template <class Space> void check_fused_relu_special_values() {
  FpTrapOff guard; // NaN and inf are the inputs here
  const Space space;
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> v = {std::nan(""), -0.0, inf, -inf, 1.5, -2.0, 0.0, 3e-310};
  const std::int64_t n = 3, m = std::int64_t(v.size());
  Mat<Space> x("ttgnn::test::x", n, m), r("ttgnn::test::r", n, m), y("ttgnn::test::y", n, m);
  auto hx = Kokkos::create_mirror_view(x);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < m; ++j)
      hx(i, j) = v[j];
  Kokkos::deep_copy(x, hx);
  ttgnn::ReLU<double, Space> relu;
  relu.forward(space, x, r);
  for (bool training : {false, true}) {
    CAPTURE(training);
    ttgnn::Dropout<double, Space> fused(0.5, 3);
    fused.set_training(training);
    fused.forward_relu(space, x, y);
    auto hr = to_host(r), hy = to_host(y);
    for (std::size_t k = 0; k < hy.size(); ++k) {
      CAPTURE(k);
      if (!training) {
        CHECK(std::memcmp(&hr[k], &hy[k], sizeof(double)) == 0);
      } else if (std::isinf(hr[k])) {
        CHECK((std::isnan(hy[k]) || hy[k] == hr[k]));
      } else { // dropped (+0), or kept and scaled by 1 / (1 - p) = 2
        CHECK(!std::isnan(hy[k]));
        CHECK(!std::signbit(hy[k]));
        CHECK((hy[k] == 0 || hy[k] == 2 * hr[k]));
      }
    }
  }
}

template <class Space> void check_elementwise_gradients() {
  ttgnn::ReLU<double, Space> relu;
  check_plain_layer<Space>(relu, 6, 5, 5, "relu", 0.05);
  ttgnn::Dropout<double, Space> dropout(0.4, 77);
  check_plain_layer<Space>(dropout, 6, 5, 5, "dropout (training, mask 0)", 0,
                           [&] { dropout.set_step(0); });
  dropout.set_training(false);
  check_plain_layer<Space>(dropout, 6, 5, 5, "dropout (eval)");
  // fused ReLU + dropout: entries kept 0.05 away from the kink, as for relu
  ttgnn::Dropout<double, Space> fused(0.4, 78);
  FusedReluDropout<Space> fused_layer{fused};
  check_plain_layer<Space>(fused_layer, 6, 5, 5, "relu + dropout (training, mask 0)", 0.05,
                           [&] { fused.set_step(0); });
  fused.set_training(false);
  check_plain_layer<Space>(fused_layer, 6, 5, 5, "relu + dropout (eval)", 0.05);
}

/// Row keys: row i draws the mask of row keys(i) of an unkeyed call. Keys = rows of x in
/// reverse order: keyed row i equals unkeyed row n - 1 - i (same seed and step); identity keys
/// equal the unkeyed mask. A wrong key count is refused.
template <class Space> void check_row_keys(std::int64_t n, std::int64_t m, double p) {
  const Space space;
  auto x = random_matrix<Space>(n, m, 73, 0.01);
  auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  Mat<Space> y1("ttgnn::test::y1", n, m), y2("ttgnn::test::y2", n, m), y3("ttgnn::test::y3", n, m);
  ttgnn::Dropout<double, Space> unkeyed(p, 5);
  unkeyed.forward(space, x, y1);
  auto h1 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y1);
  auto h2 = Kokkos::create_mirror_view(y2);
  auto h3 = Kokkos::create_mirror_view(y3);
  {
    using Keys = Kokkos::View<std::int64_t *, typename Space::memory_space>;
    Keys rev("ttgnn::test::rev", n), id("ttgnn::test::id", n);
    auto hr = Kokkos::create_mirror_view(rev);
    auto hi = Kokkos::create_mirror_view(id);
    for (std::int64_t i = 0; i < n; ++i) {
      hr(i) = n - 1 - i;
      hi(i) = i;
    }
    Kokkos::deep_copy(rev, hr);
    Kokkos::deep_copy(id, hi);
    Mat<Space> xr("ttgnn::test::xr", n, m); // x with its rows reversed
    auto hxr = Kokkos::create_mirror_view(xr);
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < m; ++j)
        hxr(i, j) = hx(n - 1 - i, j);
    Kokkos::deep_copy(xr, hxr);
    ttgnn::Dropout<double, Space> keyed(p, 5), ident(p, 5);
    keyed.set_row_keys(rev);
    ident.set_row_keys(id);
    keyed.forward(space, xr, y2);
    ident.forward(space, x, y3);
    Kokkos::deep_copy(h2, y2);
    Kokkos::deep_copy(h3, y3);
    std::int64_t keyed_differ = 0, ident_differ = 0;
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < m; ++j) {
        keyed_differ += h2(i, j) != h1(n - 1 - i, j);
        ident_differ += h3(i, j) != h1(i, j);
      }
    CHECK(keyed_differ == 0);
    CHECK(ident_differ == 0);
    Mat<Space> small("ttgnn::test::small", n - 1, m);
    CHECK_THROWS_AS(keyed.forward(space, small, small), ttgnn::ConfigError);
  }
}

template <class Space> void check_dropout_behaviour() {
  const Space space;
  const std::int64_t n = 400, m = 250; // 100000 entries
  auto x = random_matrix<Space>(n, m, 71, 0.01);
  Mat<Space> y1("ttgnn::test::y1", n, m), y2("ttgnn::test::y2", n, m), y3("ttgnn::test::y3", n, m);
  const double p = 0.3;
  ttgnn::Dropout<double, Space> a(p, 5), b(p, 5), c(p, 6);
  a.forward(space, x, y1);
  b.forward(space, x, y2);
  c.forward(space, x, y3);
  CHECK(a.step() == 1);
  auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  auto h1 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y1);
  auto h2 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y2);
  auto h3 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y3);
  // p rounded to the draws' resolution: threshold round(p 2^16), scale 1 / (1 - rounded p)
  const std::uint32_t threshold = static_cast<std::uint32_t>(std::round(p * 65536.0));
  const double scale = 65536.0 / (65536.0 - threshold);
  CHECK(std::fabs(scale - 1 / (1 - p)) <= 1 / (1 - p) * 2e-5);
  std::int64_t kept = 0, same_as_other_seed = 0, mismatched = 0, bad_scale = 0;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < m; ++j) {
      if (h1(i, j) != h2(i, j))
        ++mismatched;
      if ((h1(i, j) != 0) == (h3(i, j) != 0))
        ++same_as_other_seed;
      if (h1(i, j) != 0) {
        ++kept;
        if (std::fabs(h1(i, j) - hx(i, j) * scale) > 1e-15)
          ++bad_scale;
      }
    }
  CHECK(mismatched == 0); // same seed, same step: same mask
  CHECK(bad_scale == 0);  // kept entries are scaled by 1 / (1 - p)
  // Reference: entry k of mask number s of seed z is kept iff its 16-bit draw, bits
  // 16 (k mod 4) .. 16 (k mod 4) + 15 of mix64(key + (k div 4) gamma) with
  // key = mix64(mix64(z) ^ mix64(s)) (output k div 4 of the splitmix64 stream starting at key),
  // is >= round(p 2^16)
  namespace rng = ttgnn::layer_rng;
  const std::uint64_t key = rng::mix64(rng::mix64(5) ^ rng::mix64(0));
  std::int64_t formula_mismatch = 0;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < m; ++j) {
      const std::uint64_t k = static_cast<std::uint64_t>(i * m + j);
      const std::uint64_t word = rng::mix64(key + (k / 4) * ttgnn::splitmix64_gamma());
      const bool keep = ((word >> (16 * (k % 4))) & 0xffffu) >= threshold;
      if (hx(i, j) != 0) // x is kept 0.01 away from 0: a kept entry is non-zero
        formula_mismatch += keep != (h1(i, j) != 0) ? 1 : 0;
    }
  CHECK(formula_mismatch == 0);
  // Kept count ~ Binomial(N, 1 - p): mean 70000, sigma = sqrt(N p (1 - p)) ~ 145; allow 6 sigma.
  const double nn = double(n * m), sigma = std::sqrt(nn * p * (1 - p));
  CHECK(std::fabs(double(kept) - nn * (1 - p)) <= 6 * sigma);
  // Another seed gives an independent mask: agreement ~ p^2 + (1-p)^2 = 0.58 of the entries.
  const double agree = 0.58 * nn, sigma_agree = std::sqrt(nn * 0.58 * 0.42);
  CHECK(std::fabs(double(same_as_other_seed) - agree) <= 6 * sigma_agree);
  // The next step draws a new mask; reset_parameters(seed) restarts the stream.
  a.forward(space, x, y2);
  Kokkos::deep_copy(h2, y2);
  std::int64_t differ = 0;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < m; ++j)
      differ += (h1(i, j) != 0) != (h2(i, j) != 0);
  CHECK(differ > 0);
  a.reset_parameters(5);
  a.forward(space, x, y2);
  Kokkos::deep_copy(h2, y2);
  differ = 0;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < m; ++j)
      differ += h1(i, j) != h2(i, j);
  CHECK(differ == 0);
  // Evaluation: identity.
  a.set_training(false);
  a.forward(space, x, y2);
  Kokkos::deep_copy(h2, y2);
  differ = 0;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < m; ++j)
      differ += h2(i, j) != hx(i, j);
  CHECK(differ == 0);
  check_row_keys<Space>(n, m, p);  // rows of 250 entries: four draws from up to four mixes
  check_row_keys<Space>(60, 8, p); // rows of 8 entries: four draws from one mix
  using D = ttgnn::Dropout<double, Space>;
  CHECK_THROWS_AS(D(1.0), ttgnn::ConfigError);
}

} // namespace

TTGNN_TEST_ALL_SPACES("relu and dropout gradients") {
  check_elementwise_gradients<ExecutionSpace>();
}
TTGNN_TEST_ALL_SPACES("fused relu + dropout equals relu then dropout") {
  check_fused_relu_dropout<ExecutionSpace>();
}
// The OpenMP threads keep the floating-point trap test_main enables (FpTrapOff acts on the
// calling thread only), so the special values run on Serial, the same host kernel, and CUDA.
#ifdef KOKKOS_ENABLE_SERIAL
TEST_CASE("fused relu + dropout maps NaN, -0 and inf as ReLU does<Kokkos::Serial>") {
  check_fused_relu_special_values<Kokkos::Serial>();
}
#endif
#ifdef KOKKOS_ENABLE_CUDA
TEST_CASE("fused relu + dropout maps NaN, -0 and inf as ReLU does<Kokkos::Cuda>") {
  check_fused_relu_special_values<Kokkos::Cuda>();
}
#endif
TTGNN_TEST_ALL_SPACES("dropout is seeded and keeps 1 - p") {
  check_dropout_behaviour<ExecutionSpace>();
}
