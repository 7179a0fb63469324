// TT backward: finite-difference check of every core entry for every (path, mode) with 2, 3 and
// 4 cores; float against double; accumulation; the deterministic mode is bitwise reproducible
// (twice, with and without the forward's plan, and Serial against OpenMP at 1 or 2 threads);
// groups long enough for many segments match the atomic sum in double.
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

// Gradients of every path and mode, as host vectors per core.
template <class ExecutionSpace, class Scalar>
HostCores kernel_grads(TtShape const &s, HostCores const &host,
                       std::vector<std::int64_t> const &ids_h, std::vector<double> const &w,
                       TtLookupPath path, TtBackwardMode mode, bool with_forward = true) {
  using mem = typename ExecutionSpace::memory_space;
  ExecutionSpace space;
  auto cores = test::make_cores<Scalar, ExecutionSpace>(s, host);
  TtCores<Scalar, mem> grads(s, "ttgnn::test::grads");
  auto ids = test::to_device<ExecutionSpace>(ids_h);
  Kokkos::View<Scalar **, Kokkos::LayoutRight, mem> out("out", ids_h.size(), s.dim()),
      gr("grad_rows", ids_h.size(), s.dim());
  auto gh = Kokkos::create_mirror_view(gr);
  for (std::size_t i = 0; i < w.size(); ++i)
    gh.data()[i] = Scalar(w[i]);
  Kokkos::deep_copy(gr, gh);
  TtLookupWorkspace<Scalar, ExecutionSpace> ws;
  if (with_forward)
    tt_lookup_forward(space, cores, ids, out, path, ws);
  tt_lookup_backward(space, cores, ids, gr, grads, path, mode, ws);
  HostCores result;
  for (int k = 0; k < s.num_cores(); ++k) {
    auto v = copy_core_to_host(space, grads, k);
    result.emplace_back(v.begin(), v.end());
  }
  return result;
}

template <class ExecutionSpace> void check_finite_differences() {
  for (auto const &s : test::tt_test_shapes()) {
    CAPTURE(s.to_string());
    auto host = test::random_host_cores(s, 31);
    auto ids = test::test_ids(s, "random", 7, 120);
    for (std::int64_t b = 0; b < 30; ++b) // a contiguous run and repeats
      ids[b] = (40 + b / 2) % s.num_rows;
    auto w = random_weights(ids.size() * s.dim(), 8);
    // The loss is linear in each single core entry, so the central difference with step h is
    // exact up to rounding: |error| <= ~4 * eps * (loss of absolute values) / h.
    const double h = 0.5;
    const double tol =
        16 * std::numeric_limits<double>::epsilon() * host_loss(s, host, ids, w, true) / h;
    const HostCores fd = test::finite_difference_grads(s, host, ids, w, h);
    for (auto path : {TtLookupPath::plain, TtLookupPath::prefix})
      for (auto mode : {TtBackwardMode::deterministic, TtBackwardMode::atomic}) {
        CAPTURE(int(path));
        CAPTURE(int(mode));
        auto g = kernel_grads<ExecutionSpace, double>(s, host, ids, w, path, mode);
        const auto e = test::max_error(g, fd);
        CHECK(e.ref > 1.0); // the check is not vacuous
        CHECK(e.err <= tol);
      }
  }
}

TTGNN_TEST_ALL_SPACES("tt backward: finite differences of every core entry (double)") {
  check_finite_differences<ExecutionSpace>();
}

template <class ExecutionSpace> void check_float_and_accumulation() {
  using mem = typename ExecutionSpace::memory_space;
  ExecutionSpace space;
  auto s = test::tt_test_shapes()[1];
  auto host = test::random_host_cores(s, 5);
  auto ids = test::test_ids(s, "random", 3, 300);
  auto w = random_weights(ids.size() * s.dim(), 4);
  auto ref = kernel_grads<ExecutionSpace, double>(s, host, ids, w, TtLookupPath::plain,
                                                  TtBackwardMode::deterministic);
  for (auto path : {TtLookupPath::plain, TtLookupPath::prefix})
    for (auto mode : {TtBackwardMode::deterministic, TtBackwardMode::atomic}) {
      auto g = kernel_grads<ExecutionSpace, float>(s, host, ids, w, path, mode);
      // Float rounding: each gradient entry sums <= 300 rows x <= 40 products of O(1) terms.
      const auto e = test::max_error(g, ref);
      CHECK(e.err <= 2e-5 * e.ref);
    }
  // backward adds into the gradient: twice the same batch gives twice the gradient.
  auto cores = test::make_cores<double, ExecutionSpace>(s, host);
  TtCores<double, mem> grads(s);
  auto ids_d = test::to_device<ExecutionSpace>(ids);
  Kokkos::View<double **, Kokkos::LayoutRight, mem> gr("gr", ids.size(), s.dim());
  auto gh = Kokkos::create_mirror_view(gr);
  for (std::size_t i = 0; i < w.size(); ++i)
    gh.data()[i] = w[i];
  Kokkos::deep_copy(gr, gh);
  for (auto path : {TtLookupPath::plain, TtLookupPath::prefix})
    for (auto mode : {TtBackwardMode::deterministic, TtBackwardMode::atomic}) {
      fill_zero(space, grads);
      tt_lookup_backward(space, cores, ids_d, gr, grads, path, mode);
      tt_lookup_backward(space, cores, ids_d, gr, grads, path, mode);
      for (int k = 0; k < s.num_cores(); ++k) {
        auto v = copy_core_to_host(space, grads, k);
        double max_err = 0;
        for (std::size_t i = 0; i < v.size(); ++i)
          max_err = std::max(max_err, std::fabs(v[i] - 2 * ref[k][i]));
        CHECK(max_err <= 1e-11);
      }
    }
  TtCores<double, mem> wrong(make_tt_shape(s.num_rows, s.n, s.d, 2));
  CHECK_THROWS_AS(tt_lookup_backward(space, cores, ids_d, gr, wrong, TtLookupPath::prefix,
                                     TtBackwardMode::atomic),
                  ConfigError);
}

TTGNN_TEST_ALL_SPACES("tt backward: float matches double; gradients accumulate") {
  check_float_and_accumulation<ExecutionSpace>();
}

static bool bitwise_equal(HostCores const &a, HostCores const &b) {
  if (a.size() != b.size())
    return false;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (a[k].size() != b[k].size() ||
        std::memcmp(a[k].data(), b[k].data(), a[k].size() * sizeof(double)) != 0)
      return false;
  return true;
}

// A batch large enough for several radix-sort chunks, with heavy slice sharing.
static std::vector<std::int64_t> big_batch(TtShape const &s) {
  auto ids = test::test_ids(s, "random", 17, 3000);
  for (std::int64_t b = 0; b < 1500; ++b)
    ids[b] = (b * 7) % s.num_rows;
  return ids;
}

template <class ExecutionSpace, class Scalar> void check_reproducible() {
  for (auto const &s : test::tt_test_shapes()) {
    CAPTURE(s.to_string());
    auto host = test::random_host_cores(s, 41);
    auto ids = big_batch(s);
    auto w = random_weights(ids.size() * s.dim(), 42);
    for (auto path : {TtLookupPath::plain, TtLookupPath::prefix}) {
      auto a = kernel_grads<ExecutionSpace, Scalar>(s, host, ids, w, path,
                                                    TtBackwardMode::deterministic, true);
      auto b = kernel_grads<ExecutionSpace, Scalar>(s, host, ids, w, path,
                                                    TtBackwardMode::deterministic, true);
      auto c = kernel_grads<ExecutionSpace, Scalar>(s, host, ids, w, path,
                                                    TtBackwardMode::deterministic, false);
      CHECK(bitwise_equal(a, b));
      CHECK(bitwise_equal(a, c)); // the forward's plan gives the same result as a fresh one
    }
  }
}

TTGNN_TEST_ALL_SPACES("tt backward: the deterministic mode is bitwise reproducible") {
  check_reproducible<ExecutionSpace, double>();
  check_reproducible<ExecutionSpace, float>();
}

// Long groups: 3000 items over cores of 3 to 8 digits put hundreds of items in a group, so the
// deterministic backward sums each group in many segments (tt_segments.hpp). In float it
// agrees with the atomic backward in double (no grouping at all) within the rounding bound of a
// sum of (items + chain) terms: (3000 + 64) eps_float times the same gradient with |cores| and
// |weights| (the sum of the terms' magnitudes). A segment lost or added would be off by about
// 1 % of that sum, thirty times the bound.
template <class ExecutionSpace> void check_segmented_sums() {
  for (auto const &s : test::tt_test_shapes()) {
    CAPTURE(s.to_string());
    auto host = test::random_host_cores(s, 51);
    auto ids = big_batch(s);
    auto w = random_weights(ids.size() * s.dim(), 52);
    REQUIRE(detail::segment_length(std::int64_t(ids.size()), 1) * 3 <
            std::int64_t(ids.size()) / *std::max_element(s.n.begin(), s.n.end()));
    HostCores abs_host = host;
    for (auto &core : abs_host)
      for (auto &x : core)
        x = std::fabs(x);
    std::vector<double> abs_w(w);
    for (auto &x : abs_w)
      x = std::fabs(x);
    const double tol = (double(ids.size()) + 64) * std::numeric_limits<float>::epsilon();
    for (auto path : {TtLookupPath::plain, TtLookupPath::prefix}) {
      auto det =
          kernel_grads<ExecutionSpace, float>(s, host, ids, w, path, TtBackwardMode::deterministic);
      auto ref =
          kernel_grads<ExecutionSpace, double>(s, host, ids, w, path, TtBackwardMode::atomic);
      auto mag = kernel_grads<ExecutionSpace, double>(s, abs_host, ids, abs_w, path,
                                                      TtBackwardMode::atomic);
      for (std::size_t k = 0; k < det.size(); ++k)
        for (std::size_t i = 0; i < det[k].size(); ++i)
          CHECK(std::fabs(det[k][i] - ref[k][i]) <= tol * mag[k][i] + 1e-30);
    }
  }
}

TTGNN_TEST_ALL_SPACES("tt backward: groups summed in many segments match the serial sum") {
  check_segmented_sums<ExecutionSpace>();
}

#if defined(KOKKOS_ENABLE_SERIAL) && defined(KOKKOS_ENABLE_OPENMP)
// Runs in the .openmp.1 and .openmp.2 ctest entries (OpenMP at 1 and 2 threads) and compares
// with Serial (1 thread) in the same process.
TEST_CASE("tt backward: deterministic gradients are bitwise equal on Serial and OpenMP "
          "[threads]") {
  INFO("OpenMP threads: " << Kokkos::OpenMP::concurrency());
  for (auto const &s : test::tt_test_shapes()) {
    CAPTURE(s.to_string());
    auto host = test::random_host_cores(s, 43);
    auto ids = big_batch(s);
    auto w = random_weights(ids.size() * s.dim(), 44);
    for (auto path : {TtLookupPath::plain, TtLookupPath::prefix}) {
      auto a = kernel_grads<Kokkos::Serial, double>(s, host, ids, w, path,
                                                    TtBackwardMode::deterministic);
      auto b = kernel_grads<Kokkos::OpenMP, double>(s, host, ids, w, path,
                                                    TtBackwardMode::deterministic);
      CHECK(bitwise_equal(a, b));
      auto af =
          kernel_grads<Kokkos::Serial, float>(s, host, ids, w, path, TtBackwardMode::deterministic);
      auto bf =
          kernel_grads<Kokkos::OpenMP, float>(s, host, ids, w, path, TtBackwardMode::deterministic);
      CHECK(bitwise_equal(af, bf));
    }
  }
  // A batch above detail::serial_range_threshold: the parallel radix sort groups it.
  auto s = test::tt_test_shapes()[1];
  auto host = test::random_host_cores(s, 45);
  auto ids = test::test_ids(s, "random", 46, 70000);
  auto w = random_weights(ids.size() * s.dim(), 47);
  auto a = kernel_grads<Kokkos::Serial, double>(s, host, ids, w, TtLookupPath::prefix,
                                                TtBackwardMode::deterministic);
  auto b = kernel_grads<Kokkos::OpenMP, double>(s, host, ids, w, TtLookupPath::prefix,
                                                TtBackwardMode::deterministic);
  CHECK(bitwise_equal(a, b));
}
#endif
