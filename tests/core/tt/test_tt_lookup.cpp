// TT forward lookup: materialize against a per-entry host reference; every lookup path
// against rows of the materialized table (float and double, 2/3/4 cores, random, contiguous
// and repeated ids); the prefix path against the plain path; errors.
#include "core/error.hpp"
#include "core/tt/tt_lookup.hpp"
#include "test_harness.hpp"
#include "tt_test_util.hpp"

#include <cmath>
#include <limits>

using namespace ttgnn;

template <class ExecutionSpace>
using Rows = Kokkos::View<double **, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>;

// Rounding bound of one table entry computed in Scalar: a chain of K products whose inner sums
// have ranks[k] terms has error <= (K + sum of ranks) * u * (sum of |terms|) to first order
// (u = eps/2); sum of |terms| is the entry of the table of absolute values. Factor 2 margin,
// plus one rounding of the double reference to Scalar (materialize).
static double entry_tolerance(TtShape const &s, double eps, double abs_entry) {
  double terms = s.num_cores();
  for (auto r : s.ranks)
    terms += r;
  return (terms + 1) * eps * abs_entry;
}

template <class ExecutionSpace> void check_materialize() {
  for (auto const &s : test::tt_test_shapes()) {
    CAPTURE(s.to_string());
    auto host = test::random_host_cores(s, 11);
    auto cores = test::make_cores<double, ExecutionSpace>(s, host);
    auto table = materialize(ExecutionSpace(), cores);
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), table);
    REQUIRE(h.extent(0) == std::size_t(s.num_rows));
    REQUIRE(h.extent(1) == std::size_t(s.dim()));
    // Independent reference: every entry as the explicit sum over all rank indices.
    const int nc = s.num_cores();
    double max_err = 0;
    for (std::int64_t id = 0; id < s.num_rows; ++id) {
      std::int64_t dig[max_tt_cores];
      mixed_radix_digits(id, nc, s.n.data(), dig);
      for (std::int64_t col = 0; col < s.dim(); ++col) {
        std::int64_t jd[max_tt_cores];
        mixed_radix_digits(col, nc, s.d.data(), jd);
        std::int64_t num_paths = 1;
        for (int k = 1; k < nc; ++k)
          num_paths *= s.ranks[k];
        double ref = 0;
        for (std::int64_t path = 0; path < num_paths; ++path) {
          std::int64_t a[max_tt_cores + 1] = {0};
          std::int64_t rest = path;
          for (int k = nc - 1; k >= 1; --k) {
            a[k] = rest % s.ranks[k];
            rest /= s.ranks[k];
          }
          a[nc] = 0;
          double prod = 1;
          for (int k = 0; k < nc; ++k) {
            const auto cols = s.d[k] * s.ranks[k + 1];
            prod *=
                host[k][(dig[k] * s.ranks[k] + a[k]) * cols + jd[k] * s.ranks[k + 1] + a[k + 1]];
          }
          ref += prod;
        }
        max_err = std::max(max_err, std::fabs(ref - h(id, col)));
      }
    }
    CHECK(max_err < 1e-12); // entries are O(10); double sums of <= 24 terms
  }
}

TTGNN_TEST_ALL_SPACES("tt lookup: materialize matches the explicit sum over rank paths") {
  check_materialize<ExecutionSpace>();
}

template <class ExecutionSpace, class Scalar> void check_paths_match_table() {
  using mem = typename ExecutionSpace::memory_space;
  ExecutionSpace space;
  for (auto const &s : test::tt_test_shapes()) {
    auto host = test::random_host_cores(s, 23);
    auto cores = test::make_cores<Scalar, ExecutionSpace>(s, host);
    auto table =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), materialize(space, cores));
    // Table of absolute values, for the rounding bound.
    std::vector<std::vector<double>> abs_host = host;
    for (auto &c : abs_host)
      for (auto &x : c)
        x = std::fabs(double(Scalar(x)));
    auto abs_table = Kokkos::create_mirror_view_and_copy(
        Kokkos::HostSpace(),
        materialize(space, test::make_cores<double, ExecutionSpace>(s, abs_host)));
    TtLookupWorkspace<Scalar, ExecutionSpace> ws;
    for (char const *kind : {"random", "contiguous", "repeated"})
      for (auto path : {TtLookupPath::plain, TtLookupPath::prefix}) {
        CAPTURE(s.to_string());
        CAPTURE(kind);
        CAPTURE(int(path));
        const std::int64_t batch = std::string(kind) == "contiguous" ? 100 : 257;
        auto ids_h = test::test_ids(s, kind, 5, batch);
        auto ids = test::to_device<ExecutionSpace>(ids_h);
        Kokkos::View<Scalar **, Kokkos::LayoutRight, mem> out("out", batch, s.dim());
        Kokkos::deep_copy(out, Scalar(777)); // every entry must be overwritten
        tt_lookup_forward(space, cores, ids, out, path, ws);
        auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
        int bad = 0;
        for (std::int64_t b = 0; b < batch; ++b)
          for (std::int64_t j = 0; j < s.dim(); ++j) {
            const double tol =
                entry_tolerance(s, std::numeric_limits<Scalar>::epsilon(), abs_table(ids_h[b], j));
            if (std::fabs(double(h(b, j)) - double(table(ids_h[b], j))) > tol)
              ++bad;
          }
        CHECK(bad == 0);
      }
  }
}

TTGNN_TEST_ALL_SPACES("tt lookup: plain and prefix paths equal rows of the materialized table") {
  check_paths_match_table<ExecutionSpace, double>();
  check_paths_match_table<ExecutionSpace, float>();
}

template <class ExecutionSpace, class Scalar> void check_prefix_equals_plain() {
  using mem = typename ExecutionSpace::memory_space;
  ExecutionSpace space;
  // A larger 3-core table with many shared prefixes, and the 2/4-core test shapes.
  auto shapes = test::tt_test_shapes();
  shapes.push_back(make_tt_shape(5000, {10, 20, 30}, {4, 4, 2}, 8));
  for (auto const &s : shapes) {
    CAPTURE(s.to_string());
    auto cores = test::make_cores<Scalar, ExecutionSpace>(s, test::random_host_cores(s, 3));
    auto ids_h = test::test_ids(s, "random", 9, 3000);
    for (std::int64_t b = 0; b < 1000; ++b) // plus a contiguous run
      ids_h[b] = (300 + b) % s.num_rows;
    auto ids = test::to_device<ExecutionSpace>(ids_h);
    Kokkos::View<Scalar **, Kokkos::LayoutRight, mem> plain("plain", ids_h.size(), s.dim()),
        prefix("prefix", ids_h.size(), s.dim());
    tt_lookup_forward(space, cores, ids, plain, TtLookupPath::plain);
    tt_lookup_forward(space, cores, ids, prefix, TtLookupPath::prefix);
    auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), plain);
    auto b = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), prefix);
    double max_abs = 0, max_diff = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      max_abs = std::max(max_abs, std::fabs(double(a.data()[i])));
      max_diff = std::max(max_diff, std::fabs(double(a.data()[i]) - double(b.data()[i])));
    }
    CHECK(max_abs > 0.1);
    CHECK(max_diff <= 1e-6 * max_abs);
  }
}

TTGNN_TEST_ALL_SPACES("tt lookup: the prefix path equals the plain path to 1e-6 relative") {
  check_prefix_equals_plain<ExecutionSpace, double>();
  check_prefix_equals_plain<ExecutionSpace, float>();
}

template <class ExecutionSpace> void check_errors() {
  using mem = typename ExecutionSpace::memory_space;
  ExecutionSpace space;
  auto s = test::tt_test_shapes()[1];
  auto cores = test::make_cores<double, ExecutionSpace>(s, test::random_host_cores(s, 1));
  auto ids = test::to_device<ExecutionSpace>({0, 5, s.num_rows}); // the last one is padding
  Kokkos::View<double **, Kokkos::LayoutRight, mem> out("out", 3, s.dim());
  for (auto path : {TtLookupPath::plain, TtLookupPath::prefix}) {
    CHECK_THROWS_AS(tt_lookup_forward(space, cores, ids, out, path), InputError);
    auto neg = test::to_device<ExecutionSpace>({-1, 0, 1});
    CHECK_THROWS_AS(tt_lookup_forward(space, cores, neg, out, path), InputError);
    Kokkos::View<double **, Kokkos::LayoutRight, mem> wrong("wrong", 3, s.dim() + 1);
    auto good = test::to_device<ExecutionSpace>({0, 1, 2});
    CHECK_THROWS_AS(tt_lookup_forward(space, cores, good, wrong, path), ConfigError);
    // An empty batch is fine.
    Kokkos::View<double **, Kokkos::LayoutRight, mem> none("none", 0, s.dim());
    tt_lookup_forward(space, cores, test::to_device<ExecutionSpace>({}), none, path);
  }
  CHECK(parse_tt_lookup_path("prefix") == TtLookupPath::prefix);
  CHECK(parse_tt_backward_mode("atomic") == TtBackwardMode::atomic);
  CHECK_THROWS_AS(parse_tt_lookup_path("fast"), ConfigError);
  CHECK_THROWS_AS(parse_tt_backward_mode("random"), ConfigError);
}

TTGNN_TEST_ALL_SPACES("tt lookup: bad ids and shapes are reported") {
  check_errors<ExecutionSpace>();
}
