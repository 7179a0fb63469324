// TtEmbeddingBag and EmbeddingBag (models/embedding/tt_embedding_bag.hpp, embedding_bag.hpp):
// bags against a host reference on the table in double (sum, mean, weighted; empty bags first,
// inside and last; ids repeated inside a bag and across bags; offsets with and without the last
// one) within a rounding bound derived from the summation; the full table's gradient against
// the reference; finite differences of every TT core entry (double); bitwise equality across
// thread counts; every validation error, thrown before anything is written; workspaces reused
// across batches of different sizes, and bags of one index each (the path without the per-index
// workspace) equal to the general path.
#include "models/embedding/embedding_bag.hpp"
#include "models/embedding/tt_embedding_bag.hpp"
#include "test_harness.hpp"
#include "tt_test_util.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace ttgnn;

namespace {

using HostCores = std::vector<std::vector<double>>;

// One batch of bags: indices, B offsets (bag b = [offsets[b], offsets[b + 1]), the last to the
// end), per-sample weights (empty: none).
struct Bags {
  std::vector<std::int64_t> ids, offsets;
  std::vector<double> weights;
  std::int64_t num_bags() const { return static_cast<std::int64_t>(offsets.size()); }
  std::int64_t begin(std::int64_t b) const { return offsets[b]; }
  std::int64_t end(std::int64_t b) const {
    return b + 1 < num_bags() ? offsets[b + 1] : static_cast<std::int64_t>(ids.size());
  }
};

// Bags of sizes 0 (first), 3, 1, 5, 0 (inside), 4, 2, 7, 1, 0 (last): ids random, with an id
// repeated inside bag 1 and the same id again in bags 3 and 7.
Bags make_bags(TtShape const &s, std::uint64_t seed, bool weighted) {
  const std::vector<std::int64_t> sizes = {0, 3, 1, 5, 0, 4, 2, 7, 1, 0};
  Bags bags;
  std::int64_t n = 0;
  for (auto z : sizes) {
    bags.offsets.push_back(n);
    n += z;
  }
  bags.ids = test::test_ids(s, "random", seed, n);
  bags.ids[2] = bags.ids[0];  // inside bag 1 (indices 0..2)
  bags.ids[5] = bags.ids[0];  // bag 3 (indices 4..8)
  bags.ids[14] = bags.ids[0]; // bag 7 (indices 15..21 after bags 5, 6)
  bags.ids[16] = bags.ids[0];
  if (weighted) {
    std::mt19937_64 rng(seed + 1);
    std::uniform_real_distribution<double> u(-2, 2);
    for (std::int64_t i = 0; i < n; ++i)
      bags.weights.push_back(double(float(u(rng)))); // exact in float and double
  }
  return bags;
}

// A device View of v (no View at all when v is empty: "no per-sample weights").
template <class T, class ExecutionSpace>
Kokkos::View<T *, typename ExecutionSpace::memory_space> to_view(std::vector<double> const &v) {
  if (v.empty())
    return {};
  Kokkos::View<T *, typename ExecutionSpace::memory_space> out("ttgnn::test::values", v.size());
  auto h = Kokkos::create_mirror_view(out);
  for (std::size_t i = 0; i < v.size(); ++i)
    h(i) = T(v[i]);
  Kokkos::deep_copy(out, h);
  return out;
}

template <class ExecutionSpace>
Kokkos::View<std::int64_t *, typename ExecutionSpace::memory_space>
offsets_view(Bags const &bags, bool include_last) {
  auto off = bags.offsets;
  if (include_last)
    off.push_back(static_cast<std::int64_t>(bags.ids.size()));
  return test::to_device<ExecutionSpace>(off);
}

template <class View> std::vector<double> to_host(View const &v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  std::vector<double> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    out[i] = double(h.data()[i]);
  return out;
}

HostCores absolute(HostCores g) {
  for (auto &c : g)
    for (auto &x : c)
      x = std::fabs(x);
  return g;
}

// The bags in double from the host cores \p g (|w| when abs, with |g| this is the sum of the
// magnitudes of the terms of each entry).
std::vector<double> host_bags(TtShape const &s, HostCores const &g, Bags const &bags, BagMode mode,
                              bool abs = false) {
  const auto dim = s.dim();
  std::vector<double> out(bags.num_bags() * dim, 0.0);
  for (std::int64_t b = 0; b < bags.num_bags(); ++b) {
    for (auto i = bags.begin(b); i < bags.end(b); ++i) {
      const auto row = test::host_row(s, g, bags.ids[i]);
      const double w = bags.weights.empty() ? 1.0 : bags.weights[i];
      for (std::int64_t j = 0; j < dim; ++j)
        out[b * dim + j] += (abs ? std::fabs(w) : w) * row[j];
    }
    const auto len = bags.end(b) - bags.begin(b);
    if (mode == BagMode::mean && len > 0)
      for (std::int64_t j = 0; j < dim; ++j)
        out[b * dim + j] /= double(len);
  }
  return out;
}

// Rounding bound (Higham, §3.1-3.5): a value that has gone through at most n roundings of
// additions and multiplications differs from the exact one by at most gamma_n = n·u / (1 - n·u)
// times the sum of the magnitudes of its terms; eps instead of u (a factor 2 of margin).
double gamma_bound(double eps, double n) {
  return n * eps / (1 - n * eps);
}

// Roundings of a bag entry: the row entry (the cores rounded to Scalar, the chain and the last
// product: K + 2·sum of ranks + 2, as tests/core/tt/test_tt_tiles.cpp counts them), then the
// weight's product, the bag's additions (at most its size) and the mean's division.
double bag_roundings(TtShape const &s, std::int64_t max_bag) {
  double sum_ranks = 0;
  for (auto r : s.ranks)
    sum_ranks += double(r);
  return s.num_cores() + 2 * sum_ranks + 2 + double(max_bag) + 2;
}

std::int64_t max_bag(Bags const &bags) {
  std::int64_t m = 0;
  for (std::int64_t b = 0; b < bags.num_bags(); ++b)
    m = std::max(m, bags.end(b) - bags.begin(b));
  return m;
}

// Checks got (bags x dim) against the reference within the bound; empty bags exactly zero.
template <class Scalar>
void check_bags(TtShape const &s, HostCores const &host, Bags const &bags, BagMode mode,
                std::vector<double> const &got) {
  const auto ref = host_bags(s, host, bags, mode);
  const auto mag = host_bags(s, absolute(host), bags, mode, true);
  const double gam =
      gamma_bound(std::numeric_limits<Scalar>::epsilon(), bag_roundings(s, max_bag(bags)));
  REQUIRE(got.size() == ref.size());
  int bad = 0, bad_empty = 0;
  double max_abs = 0;
  for (std::int64_t b = 0; b < bags.num_bags(); ++b)
    for (std::int64_t j = 0; j < s.dim(); ++j) {
      const auto x = b * s.dim() + j;
      max_abs = std::max(max_abs, std::fabs(ref[x]));
      if (bags.end(b) == bags.begin(b))
        bad_empty += got[x] != 0.0 ? 1 : 0;
      else if (!(std::fabs(got[x] - ref[x]) <= gam * mag[x]))
        ++bad;
    }
  CHECK(max_abs > 0.1); // not vacuous
  CHECK(bad == 0);
  CHECK(bad_empty == 0);
}

struct Variant {
  BagMode mode;
  bool weighted;
  char const *name;
};
const Variant variants[] = {
    {BagMode::sum, false, "sum"}, {BagMode::mean, false, "mean"}, {BagMode::sum, true, "weighted"}};

/// Calls f(shape, variant, include_last_offset) for every test shape, variant and offsets form.
template <class F> void for_each_case(F const &f) {
  for (auto const &s : test::tt_test_shapes())
    for (auto const &v : variants)
      for (bool last : {false, true}) {
        CAPTURE(s.to_string());
        CAPTURE(v.name);
        CAPTURE(last);
        f(s, v, last);
      }
}

} // namespace

template <class ExecutionSpace, class Scalar> void check_tt_bags_against_reference() {
  using Bag = TtEmbeddingBag<Scalar, ExecutionSpace>;
  ExecutionSpace space;
  for_each_case([&](TtShape const &s, Variant const &v, bool last) {
    for (auto path : {TtLookupPath::prefix, TtLookupPath::plain}) {
      CAPTURE(int(path));
      const auto host = test::random_host_cores(s, 11);
      const auto bags = make_bags(s, 12, v.weighted);
      Bag bag(s, BagOptions{v.mode, last}, TtEmbeddingOptions{path, {}});
      bag.set_cores_from_host(space, host);
      auto ids = test::to_device<ExecutionSpace>(bags.ids);
      auto offsets = offsets_view<ExecutionSpace>(bags, last);
      auto w = to_view<Scalar, ExecutionSpace>(bags.weights);
      CHECK(bag.num_bags(offsets) == bags.num_bags());
      typename Bag::rows_type out("ttgnn::test::out", bags.num_bags(), s.dim());
      Kokkos::deep_copy(out, Scalar(777)); // every entry must be overwritten
      if (v.weighted)
        bag.forward(space, ids, offsets, out, w);
      else
        bag.forward(space, ids, offsets, out);
      check_bags<Scalar>(s, host, bags, v.mode, to_host(out));
    }
  });
}

TTGNN_TEST_ALL_SPACES("tt embedding bag: sum, mean and weighted bags match the host reference "
                      "within the rounding bound") {
  check_tt_bags_against_reference<ExecutionSpace, float>();
  check_tt_bags_against_reference<ExecutionSpace, double>();
}

// The full table holds the TT table's rows (rounded to Scalar): the same reference and bound.
// Its dense gradient: row id = sum over the occurrences i of id of w(i)·grad_bags(bag of i)
// (/ size in mean mode), at most max_bag·(bags) terms, each rounded twice.
template <class ExecutionSpace, class Scalar> void check_full_bags_against_reference() {
  using Bag = EmbeddingBag<Scalar, ExecutionSpace>;
  ExecutionSpace space;
  for_each_case([&](TtShape const &s, Variant const &v, bool last) {
    const auto host = test::random_host_cores(s, 21);
    const auto bags = make_bags(s, 22, v.weighted);
    Bag bag(s.num_rows, s.dim(), BagOptions{v.mode, last},
            FullEmbeddingOptions{FullGradient::dense, TtBackwardMode::deterministic});
    {
      auto t = Kokkos::create_mirror_view(bag.table().table());
      for (std::int64_t id = 0; id < s.num_rows; ++id) {
        const auto row = test::host_row(s, host, id);
        for (std::int64_t j = 0; j < s.dim(); ++j)
          t(id, j) = Scalar(row[j]);
      }
      Kokkos::deep_copy(bag.table().table(), t);
    }
    auto ids = test::to_device<ExecutionSpace>(bags.ids);
    auto offsets = offsets_view<ExecutionSpace>(bags, last);
    auto w = to_view<Scalar, ExecutionSpace>(bags.weights);
    typename Bag::rows_type out("ttgnn::test::out", bags.num_bags(), s.dim());
    Kokkos::deep_copy(out, Scalar(777));
    bag.forward(space, ids, offsets, out, w);
    check_bags<Scalar>(s, host, bags, v.mode, to_host(out));

    // backward with grad_bags in [-1, 1]
    std::mt19937_64 rng(23);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<double> gb(bags.num_bags() * s.dim());
    for (auto &x : gb)
      x = double(Scalar(u(rng)));
    auto grad_bags = to_view<Scalar, ExecutionSpace>(gb);
    typename Bag::const_rows_type gbv(grad_bags.data(), bags.num_bags(), s.dim());
    bag.zero_grad(space);
    bag.backward(space, ids, offsets, gbv, w);
    const auto got = to_host(bag.table().dense_gradient());
    std::vector<double> ref(s.num_rows * s.dim(), 0.0), mag(ref.size(), 0.0);
    for (std::int64_t b = 0; b < bags.num_bags(); ++b) {
      const auto len = bags.end(b) - bags.begin(b);
      for (auto i = bags.begin(b); i < bags.end(b); ++i) {
        double f = bags.weights.empty() ? 1.0 : bags.weights[i];
        if (v.mode == BagMode::mean)
          f /= double(len);
        for (std::int64_t j = 0; j < s.dim(); ++j) {
          ref[bags.ids[i] * s.dim() + j] += f * gb[b * s.dim() + j];
          mag[bags.ids[i] * s.dim() + j] += std::fabs(f * gb[b * s.dim() + j]);
        }
      }
    }
    const double gam =
        gamma_bound(std::numeric_limits<Scalar>::epsilon(), double(bags.ids.size()) + 2);
    int bad = 0;
    for (std::size_t x = 0; x < ref.size(); ++x)
      if (!(std::fabs(got[x] - ref[x]) <= gam * mag[x]))
        ++bad;
    CHECK(bad == 0);
  });
}

TTGNN_TEST_ALL_SPACES("embedding bag (full table): bags and the dense gradient match the host "
                      "reference within the rounding bound") {
  check_full_bags_against_reference<ExecutionSpace, float>();
  check_full_bags_against_reference<ExecutionSpace, double>();
}

// loss = sum_{b, j} c(b, j) · bag(b, j), in double on the host.
static double host_loss(TtShape const &s, HostCores const &g, Bags const &bags, BagMode mode,
                        std::vector<double> const &c, bool abs = false) {
  const auto out = host_bags(s, g, bags, mode, abs);
  double loss = 0;
  for (std::size_t x = 0; x < out.size(); ++x)
    loss += (abs ? std::fabs(c[x]) : c[x]) * out[x];
  return loss;
}

// The loss is linear in each single core entry (a row uses one slice of each core), so the
// central difference with step h is exact up to rounding: the host losses (double) are off by at
// most gamma_m·L_abs each (L_abs: the loss on |cores| + h, |w|, |c|), the difference by
// 2·gamma_m·L_abs / (2h); the kernel's gradient entry by gamma_n·(its terms' magnitudes, the
// same central difference of L_abs), n counting as for the rows plus the bags and the chain
// backward's sums over the batch.
template <class ExecutionSpace> void check_finite_differences() {
  ExecutionSpace space;
  const double eps = std::numeric_limits<double>::epsilon();
  for (auto const &s : test::tt_test_shapes())
    for (auto path : {TtLookupPath::prefix, TtLookupPath::plain})
      for (auto const &v : variants) {
        CAPTURE(s.to_string());
        CAPTURE(v.name);
        const auto host = test::random_host_cores(s, 31);
        const auto bags = make_bags(s, 32, v.weighted);
        TtEmbeddingBag<double, ExecutionSpace> bag(s, BagOptions{v.mode, false},
                                                   TtEmbeddingOptions{path, {}});
        bag.set_cores_from_host(space, host);
        auto ids = test::to_device<ExecutionSpace>(bags.ids);
        auto offsets = offsets_view<ExecutionSpace>(bags, false);
        auto w = to_view<double, ExecutionSpace>(bags.weights);
        std::mt19937_64 rng(33);
        std::uniform_real_distribution<double> u(-1, 1);
        std::vector<double> c(bags.num_bags() * s.dim());
        for (auto &x : c)
          x = u(rng);
        auto cv = to_view<double, ExecutionSpace>(c);
        typename TtEmbeddingBag<double, ExecutionSpace>::const_rows_type grad_bags(
            cv.data(), bags.num_bags(), s.dim());
        typename TtEmbeddingBag<double, ExecutionSpace>::rows_type out("ttgnn::test::out",
                                                                       bags.num_bags(), s.dim());
        bag.forward(space, ids, offsets, out, w);
        bag.zero_grad(space);
        bag.backward(space, ids, offsets, grad_bags, w);

        const double h = 0.5;
        // the host's roundings: a bag entry's, its product with c, the sum over all entries
        const double m = bag_roundings(s, max_bag(bags)) + double(c.size()) + 2;
        const double n = 2 * m + double(s.dim()) + double(bags.ids.size()) + 8;
        const auto abs_host = absolute(host);
        int bad = 0, checked = 0;
        double max_grad = 0;
        for (int k = 0; k < s.num_cores(); ++k) {
          const auto got = copy_core_to_host(space, bag.table().core_gradients(), k);
          for (std::size_t x = 0; x < host[k].size(); ++x) {
            auto p = host, q = host;
            p[k][x] += h;
            q[k][x] -= h;
            const double fd =
                (host_loss(s, p, bags, v.mode, c) - host_loss(s, q, bags, v.mode, c)) / (2 * h);
            auto ap = abs_host, aq = abs_host;
            ap[k][x] += h;
            aq[k][x] -= h;
            const double l_abs = host_loss(s, ap, bags, v.mode, c, true);
            const double terms = (l_abs - host_loss(s, aq, bags, v.mode, c, true)) / (2 * h);
            const double tol = gamma_bound(eps, n) * terms + gamma_bound(eps, m) * l_abs / h;
            max_grad = std::max(max_grad, std::fabs(fd));
            ++checked;
            if (!(std::fabs(got[x] - fd) <= tol))
              ++bad;
          }
        }
        CHECK(checked > 100);
        CHECK(max_grad > 0.1);
        CHECK(bad == 0);
      }
}

TTGNN_TEST_ALL_SPACES("tt embedding bag: core gradients equal finite differences (double)") {
  check_finite_differences<ExecutionSpace>();
}

// Each validation error, before anything is written: out keeps its values.
template <class ExecutionSpace> void check_errors() {
  using Bag = TtEmbeddingBag<float, ExecutionSpace>;
  using Full = EmbeddingBag<float, ExecutionSpace>;
  ExecutionSpace space;
  const auto s = test::tt_test_shapes()[1];
  const auto host = test::random_host_cores(s, 41);
  Bag sum_bag(s), mean_bag(s, BagOptions{BagMode::mean, false}),
      last_bag(s, BagOptions{BagMode::sum, true});
  sum_bag.set_cores_from_host(space, host);
  Full full(s.num_rows, s.dim());
  auto ids = test::to_device<ExecutionSpace>({3, 4, 5, 6, 7});
  auto bad_ids = test::to_device<ExecutionSpace>({3, 4, s.num_rows, 6, -1});
  auto off = [](std::vector<std::int64_t> o) { return test::to_device<ExecutionSpace>(o); };
  auto w5 = to_view<float, ExecutionSpace>({1, 2, 3, 4, 5});
  auto w4 = to_view<float, ExecutionSpace>({1, 2, 3, 4});
  typename Bag::rows_type out("ttgnn::test::out", 2, s.dim());
  Kokkos::deep_copy(out, 777.0f);
  using doctest::Contains;

  CHECK_THROWS_WITH_AS(sum_bag.forward(space, bad_ids, off({0, 2}), out),
                       Contains("2 node ids are outside [0, 200)"), InputError);
  CHECK_THROWS_WITH_AS(full.forward(space, bad_ids, off({0, 2}), out),
                       Contains("2 node ids are outside"), InputError);
  CHECK_THROWS_WITH_AS(sum_bag.forward(space, ids, off({0, 3, 2}), out),
                       Contains("non-decreasing, but offsets[2] = 2 < offsets[1] = 3"), InputError);
  CHECK_THROWS_WITH_AS(sum_bag.forward(space, ids, off({1, 3}), out),
                       Contains("the first offset must be 0, got offsets[0] = 1"), InputError);
  CHECK_THROWS_WITH_AS(sum_bag.forward(space, ids, off({0, 6}), out),
                       Contains("offsets[1] = 6 is outside [0, 5]"), InputError);
  CHECK_THROWS_WITH_AS(sum_bag.forward(space, ids, off({0, 2}), out, w4),
                       Contains("per_sample_weights has 4 entries, indices has 5"), InputError);
  CHECK_THROWS_WITH_AS(mean_bag.forward(space, ids, off({0, 2}), out, w5),
                       Contains("only supported with sum pooling"), ConfigError);
  CHECK_THROWS_WITH_AS(last_bag.forward(space, ids, off({0, 2, 4}), out),
                       Contains("the last offset must equal the number of indices (5)"),
                       InputError);
  CHECK_THROWS_WITH_AS(last_bag.forward(space, ids, off({}), out), Contains("include_last_offset"),
                       InputError);
  CHECK_THROWS_WITH_AS(sum_bag.forward(space, ids, off({}), out), Contains("offsets is empty"),
                       InputError);
  CHECK_THROWS_WITH_AS(sum_bag.forward(space, ids, off({0, 2, 4}), out),
                       Contains("expected a 3 x 24 View"), ConfigError);
  // backward validates the same way
  typename Bag::const_rows_type grad(out.data(), 2, s.dim());
  CHECK_THROWS_WITH_AS(sum_bag.backward(space, ids, off({0, 6}), grad), Contains("outside [0, 5]"),
                       InputError);
  CHECK_THROWS_WITH_AS(mean_bag.backward(space, ids, off({0, 2}), grad, w5),
                       Contains("only supported with sum pooling"), ConfigError);
  CHECK_THROWS_WITH_AS(full.backward(space, ids, off({0, 2}), grad, w4),
                       Contains("per_sample_weights has 4 entries"), InputError);
  const auto h = to_host(out);
  CHECK(std::all_of(h.begin(), h.end(), [](double x) { return x == 777.0; }));
  const auto g = copy_core_to_host(space, sum_bag.table().core_gradients(), 0);
  CHECK(std::all_of(g.begin(), g.end(), [](float x) { return x == 0.0f; }));
}

TTGNN_TEST_ALL_SPACES("tt embedding bag: invalid ids, offsets and weights are rejected before "
                      "any work") {
  check_errors<ExecutionSpace>();
}

namespace {

// n bags of one index each, their own (offsets 0, 1, ..., n - 1).
Bags single_bags(TtShape const &s, std::uint64_t seed, std::int64_t n, bool weighted) {
  Bags bags;
  bags.ids = test::test_ids(s, "random", seed, n);
  for (std::int64_t b = 0; b < n; ++b)
    bags.offsets.push_back(b);
  if (weighted) {
    std::mt19937_64 rng(seed + 1);
    std::uniform_real_distribution<double> u(-2, 2);
    for (std::int64_t i = 0; i < n; ++i)
      bags.weights.push_back(double(float(u(rng))));
  }
  return bags;
}

// The same bags and one empty bag after them: never bags of one index each.
Bags with_empty_bag(Bags bags) {
  bags.offsets.push_back(static_cast<std::int64_t>(bags.ids.size()));
  return bags;
}

struct BagPass {
  std::vector<double> out;
  HostCores grads;
};

// forward, zero_grad and backward (grad_bags = c) of \p bag on \p bags.
template <class Scalar, class ExecutionSpace>
BagPass bag_pass(TtEmbeddingBag<Scalar, ExecutionSpace> &bag, TtShape const &s, Bags const &bags,
                 std::vector<double> const &c, bool last) {
  ExecutionSpace space;
  using Bag = TtEmbeddingBag<Scalar, ExecutionSpace>;
  auto ids = test::to_device<ExecutionSpace>(bags.ids);
  auto offsets = offsets_view<ExecutionSpace>(bags, last);
  auto w = to_view<Scalar, ExecutionSpace>(bags.weights);
  auto cv = to_view<Scalar, ExecutionSpace>(c);
  typename Bag::const_rows_type grad_bags(cv.data(), bags.num_bags(), s.dim());
  typename Bag::rows_type out("ttgnn::test::out", bags.num_bags(), s.dim());
  Kokkos::deep_copy(out, Scalar(777));
  bag.forward(space, ids, offsets, out, w);
  bag.zero_grad(space);
  bag.backward(space, ids, offsets, grad_bags, w);
  BagPass r;
  r.out = to_host(out);
  for (int k = 0; k < s.num_cores(); ++k) {
    auto g = copy_core_to_host(space, bag.table().core_gradients(), k);
    r.grads.emplace_back(g.begin(), g.end());
  }
  return r;
}

} // namespace

// One layer runs batches of different sizes one after the other (bags of one index each, then
// general bags, then bags of one again, larger and smaller), reusing its workspaces. Every
// forward is within the rounding bound of the host reference; every result equals exactly
// (values and core gradients) that of a fresh layer given the same bags with an empty bag
// appended, which never takes the bags-of-one path: a bag of one row is that row (its mean
// too; times its weight when weighted) and its gradient row is the bag's gradient, with no
// rounding on either path. A layer that saw only bags of one holds no per-index workspace.
template <class ExecutionSpace, class Scalar> void check_workspace_reuse_and_single_bags() {
  using Bag = TtEmbeddingBag<Scalar, ExecutionSpace>;
  ExecutionSpace space;
  for_each_case([&](TtShape const &s, Variant const &v, bool last) {
    const auto host = test::random_host_cores(s, 61);
    const std::vector<Bags> batches = {
        single_bags(s, 62, 40, v.weighted), make_bags(s, 63, v.weighted),
        single_bags(s, 64, 300, v.weighted), single_bags(s, 65, 7, v.weighted),
        make_bags(s, 66, v.weighted)};
    Bag reused(s, BagOptions{v.mode, last});
    reused.set_cores_from_host(space, host);
    std::mt19937_64 rng(67);
    std::uniform_real_distribution<double> u(-1, 1);
    for (std::size_t t = 0; t < batches.size(); ++t) {
      CAPTURE(t);
      auto const &bags = batches[t];
      std::vector<double> c(bags.num_bags() * s.dim());
      for (auto &x : c)
        x = double(Scalar(u(rng)));
      const auto got = bag_pass(reused, s, bags, c, last);
      check_bags<Scalar>(s, host, bags, v.mode, got.out);

      Bag fresh(s, BagOptions{v.mode, last});
      fresh.set_cores_from_host(space, host);
      auto c1 = c;
      c1.resize(c.size() + s.dim(), 0.0);
      const auto ref = bag_pass(fresh, s, with_empty_bag(bags), c1, last);
      int differ = 0;
      for (std::size_t x = 0; x < got.out.size(); ++x)
        differ += got.out[x] == ref.out[x] ? 0 : 1;
      for (std::size_t x = got.out.size(); x < ref.out.size(); ++x)
        differ += ref.out[x] == 0.0 ? 0 : 1; // the empty bag
      CHECK(differ == 0);
      for (int k = 0; k < s.num_cores(); ++k)
        CHECK(got.grads[k] == ref.grads[k]);
    }
    if (!v.weighted) {
      Bag singles(s, BagOptions{v.mode, last});
      singles.set_cores_from_host(space, host);
      std::vector<double> c(300 * s.dim(), 0.5);
      bag_pass(singles, s, batches[2], c, last);
      ByteLedger all, table;
      singles.add_workspace(all);
      singles.table().add_workspace(table);
      CHECK(all.bytes() == table.bytes());
    }
  });
}

TTGNN_TEST_ALL_SPACES("tt embedding bag: workspaces reused across batch sizes, and bags of one "
                      "index, give the reference's values") {
  check_workspace_reuse_and_single_bags<ExecutionSpace, float>();
  check_workspace_reuse_and_single_bags<ExecutionSpace, double>();
}

#if defined(KOKKOS_ENABLE_SERIAL) && defined(KOKKOS_ENABLE_OPENMP)
namespace {

struct BagRun {
  std::vector<double> out;
  HostCores grads;
  std::vector<double> full_out, full_grad;
};

// Many bags of 0 to 40 ids over a table whose prefixes are shared (many tiles), forward and
// backward of the TT bag and of the full-table bag, all in float.
template <class ExecutionSpace>
BagRun run_bags(TtShape const &s, HostCores const &host, Bags const &bags,
                std::vector<double> const &c, Variant v) {
  ExecutionSpace space;
  TtEmbeddingBag<float, ExecutionSpace> bag(s, BagOptions{v.mode, false});
  bag.set_cores_from_host(space, host);
  auto ids = test::to_device<ExecutionSpace>(bags.ids);
  auto offsets = offsets_view<ExecutionSpace>(bags, false);
  auto w = to_view<float, ExecutionSpace>(bags.weights);
  auto cv = to_view<float, ExecutionSpace>(c);
  typename TtEmbeddingBag<float, ExecutionSpace>::const_rows_type grad_bags(
      cv.data(), bags.num_bags(), s.dim());
  typename TtEmbeddingBag<float, ExecutionSpace>::rows_type out("ttgnn::test::out", bags.num_bags(),
                                                                s.dim());
  bag.forward(space, ids, offsets, out, w);
  bag.backward(space, ids, offsets, grad_bags, w);
  BagRun r;
  r.out = to_host(out);
  for (int k = 0; k < s.num_cores(); ++k) {
    auto g = copy_core_to_host(space, bag.table().core_gradients(), k);
    r.grads.emplace_back(g.begin(), g.end());
  }
  EmbeddingBag<float, ExecutionSpace> full(s.num_rows, s.dim(), BagOptions{v.mode, false},
                                           FullEmbeddingOptions{FullGradient::dense, {}});
  Kokkos::deep_copy(full.table().table(), materialize(space, bag.table().cores()));
  full.forward(space, ids, offsets, out, w);
  full.backward(space, ids, offsets, grad_bags, w);
  r.full_out = to_host(out);
  r.full_grad = to_host(full.table().dense_gradient());
  return r;
}

bool bitwise_equal(std::vector<double> const &a, std::vector<double> const &b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

} // namespace

// Runs in the .openmp.1 and .openmp.2 ctest entries.
TEST_CASE("tt embedding bag: bags and gradients are bitwise equal on Serial and OpenMP "
          "[threads]") {
  INFO("OpenMP threads: " << Kokkos::OpenMP::concurrency());
  const TtShape s = make_tt_shape(30000, {30, 40, 25}, {4, 4, 2}, 8);
  const auto host = test::random_host_cores(s, 51);
  Bags bags;
  std::mt19937_64 rng(52);
  std::int64_t n = 0;
  for (int b = 0; b < 3000; ++b) {
    bags.offsets.push_back(n);
    n += std::uniform_int_distribution<std::int64_t>(0, 40)(rng);
  }
  bags.ids = test::test_ids(s, "random", 53, n);
  std::vector<double> c(bags.num_bags() * s.dim());
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto &x : c)
    x = u(rng);
  for (auto const &v : variants) {
    CAPTURE(v.name);
    bags.weights.clear();
    if (v.weighted)
      for (std::int64_t i = 0; i < n; ++i)
        bags.weights.push_back(u(rng));
    const auto a = run_bags<Kokkos::Serial>(s, host, bags, c, v);
    const auto b = run_bags<Kokkos::OpenMP>(s, host, bags, c, v);
    CHECK(bitwise_equal(a.out, b.out));
    for (int k = 0; k < s.num_cores(); ++k)
      CHECK(bitwise_equal(a.grads[k], b.grads[k]));
    CHECK(bitwise_equal(a.full_out, b.full_out));
    CHECK(bitwise_equal(a.full_grad, b.full_grad));
  }
}
#endif
