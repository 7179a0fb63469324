// gather_rows against a host loop: float and int8 rows, repeated and unordered ids, a single
// column, 112 columns (multi-label targets) and no ids; for_each_entry visits every entry once,
// for_each_span every index once in aligned pieces.
#include "core/linalg/for_each_entry.hpp"
#include "core/linalg/gather_rows.hpp"
#include "test_harness.hpp"

#include <cstdint>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

namespace {

template <class T, class Space> void check_gather(std::int64_t n, std::int64_t m, std::int64_t b) {
  using mem = typename Space::memory_space;
  Space space;
  std::mt19937_64 rng(7 + n + m + b);
  Kokkos::View<T **, Kokkos::LayoutRight, mem> src("ttgnn::test::src", n, m),
      out("ttgnn::test::out", b, m);
  Kokkos::View<std::int64_t *, mem> ids("ttgnn::test::ids", b);
  auto hs = Kokkos::create_mirror_view(src);
  auto hi = Kokkos::create_mirror_view(ids);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < m; ++j)
      hs(i, j) = T(std::int64_t(rng() % 200) - 100);
  for (std::int64_t i = 0; i < b; ++i)
    hi(i) = std::int64_t(rng() % std::uint64_t(n)); // repeats, any order
  Kokkos::deep_copy(src, hs);
  Kokkos::deep_copy(ids, hi);
  ttgnn::gather_rows(space, src, ids, out);
  auto ho = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  int wrong = 0;
  for (std::int64_t i = 0; i < b; ++i)
    for (std::int64_t j = 0; j < m; ++j)
      wrong += ho(i, j) != hs(hi(i), j);
  CHECK(wrong == 0);
}

} // namespace

TTGNN_TEST_ALL_SPACES("gather_rows copies the rows named by the ids") {
  for (auto const &shape : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{10, 3, 25},
                            {1000, 1, 5000},
                            {300, 112, 777},
                            {5, 4, 0}}) {
    const std::int64_t n = std::get<0>(shape), m = std::get<1>(shape), b = std::get<2>(shape);
    INFO("n " << n << ", m " << m << ", ids " << b);
    check_gather<float, ExecutionSpace>(n, m, b);
    check_gather<std::int8_t, ExecutionSpace>(n, m, b);
  }
}

namespace {

/// for_each_entry writes every (i, j) once: out(i, j) = 1000 i + j, then += 1 (each entry
/// visited exactly once), against the host formula.
template <class Space> void check_for_each_entry(std::int64_t rows, std::int64_t cols) {
  Space space;
  Kokkos::View<std::int64_t **, Kokkos::LayoutRight, typename Space::memory_space> out(
      "ttgnn::test::entries", rows, cols);
  ttgnn::for_each_entry(
      space, "ttgnn::test::set", rows, cols,
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t j) { out(i, j) = 1000 * i + j; });
  ttgnn::for_each_entry(
      space, "ttgnn::test::add", rows, cols,
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t j) { out(i, j) += 1; });
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  int wrong = 0;
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j)
      wrong += h(i, j) != 1000 * i + j + 1;
  CHECK(wrong == 0);
}

} // namespace

TTGNN_TEST_ALL_SPACES("for_each_entry visits every entry of a matrix once") {
  for (auto const &shape :
       {std::pair<std::int64_t, std::int64_t>{1, 1}, {37, 5}, {1000, 112}, {0, 7}, {9, 0}}) {
    const std::int64_t rows = shape.first, cols = shape.second;
    INFO(rows << " x " << cols);
    check_for_each_entry<ExecutionSpace>(rows, cols);
  }
}

namespace {

/// for_each_span covers [0, n) once, in pieces that start at multiples of the grain and hold a
/// multiple of it (but the last): out(k) counts the visits of k; bad counts misaligned pieces.
template <class Space> void check_for_each_span(std::int64_t n, std::int64_t grain) {
  Space space;
  Kokkos::View<int *, typename Space::memory_space> out("ttgnn::test::visits", n);
  Kokkos::View<int, typename Space::memory_space> bad("ttgnn::test::bad");
  ttgnn::for_each_span(
      space, "ttgnn::test::span", n,
      KOKKOS_LAMBDA(std::int64_t begin, std::int64_t end) {
        if (begin % grain != 0 || (end != n && (end - begin) % grain != 0) || end <= begin)
          Kokkos::atomic_add(&bad(), 1);
        for (std::int64_t k = begin; k < end; ++k)
          out(k) += 1;
      },
      grain);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), bad);
  int wrong = 0;
  for (std::int64_t k = 0; k < n; ++k)
    wrong += h(k) != 1;
  CHECK(wrong == 0);
  CHECK(hb() == 0);
}

} // namespace

TTGNN_TEST_ALL_SPACES("for_each_span covers a range once in grain-aligned pieces") {
  for (auto const &shape : {std::pair<std::int64_t, std::int64_t>{0, 1},
                            {1, 1},
                            {5, 4},
                            {4096, 1},
                            {4097, 4},
                            {100003, 4},
                            {50000, 3}}) {
    INFO("n " << shape.first << ", grain " << shape.second);
    check_for_each_span<ExecutionSpace>(shape.first, shape.second);
  }
}
