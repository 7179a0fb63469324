// Grow-only workspaces: the first allocation is exact, a growth reserves a quarter more, what
// fits reuses the allocation (same data pointer, no allocation), other columns reallocate,
// and the returned Views have exactly the asked extents; with a BufferCache, released buffers
// serve later requests of their shape.
#include "core/runtime/grow_only.hpp"
#include "test_harness.hpp"

#include <cstdint>

namespace {

using Matrix = Kokkos::View<float **, Kokkos::LayoutRight, Kokkos::HostSpace>;
using Vector = Kokkos::View<std::int64_t *, Kokkos::HostSpace>;

} // namespace

TEST_CASE("GrowingMatrix: exact first, a quarter more on growth, reuse when it fits") {
  ttgnn::GrowingMatrix<Matrix> ws;
  const Matrix a = ws.rows("ttgnn::test::ws", 100, 8);
  a(99, 7) = 5.0f;
  CHECK(a.extent(0) == 100);
  CHECK(a.extent(1) == 8);
  CHECK(ws.storage().extent(0) == 100); // exact
  const Matrix b = ws.rows("ttgnn::test::ws", 60, 8);
  CHECK(b.extent(0) == 60);
  CHECK(b.data() == a.data()); // the leading rows of the same allocation
  CHECK(b.stride(0) == 8);
  const Matrix c = ws.rows("ttgnn::test::ws", 120, 8);
  CHECK(c.extent(0) == 120);
  CHECK(ws.storage().extent(0) == 150); // 120 + 120 / 4
  const Matrix d = ws.rows("ttgnn::test::ws", 150, 8);
  CHECK(d.data() == c.data());
  const Matrix e = ws.rows("ttgnn::test::ws", 10, 3); // other columns: a new, exact allocation
  CHECK(e.extent(1) == 3);
  CHECK(ws.storage().extent(0) == 10);
  const Matrix z = ws.rows("ttgnn::test::ws", 0, 3);
  CHECK(z.extent(0) == 0);
  ws.release();
  CHECK(ws.storage().data() == nullptr);
  CHECK(a(99, 7) == 5.0f); // an earlier View keeps its own allocation alive
}

TEST_CASE("grow_entries and reserve_entries") {
  Vector storage;
  const Vector a = ttgnn::grow_entries(storage, "ttgnn::test::v", 40);
  CHECK(a.extent(0) == 40);
  CHECK(storage.extent(0) == 40);
  const Vector b = ttgnn::grow_entries(storage, "ttgnn::test::v", 12);
  CHECK(b.extent(0) == 12);
  CHECK(b.data() == a.data());
  ttgnn::grow_entries(storage, "ttgnn::test::v", 41);
  CHECK(storage.extent(0) == 51); // 41 + 41 / 4
  CHECK(ttgnn::grow_entries(storage, "ttgnn::test::v", 0).extent(0) == 0);
  Vector r;
  ttgnn::reserve_entries(r, 0, "ttgnn::test::r");
  CHECK(r.data() == nullptr); // nothing asked, nothing allocated
  ttgnn::reserve_entries(r, 7, "ttgnn::test::r");
  CHECK(r.extent(0) == 7);
  ttgnn::reserve_entries(r, 5, "ttgnn::test::r");
  CHECK(r.extent(0) == 7);
}

TEST_CASE("BufferCache: a released buffer serves the next request of its shape; a miss frees "
          "the cache; a buffer still referenced is not cached") {
  ttgnn::BufferCache<Matrix> cache;
  ttgnn::GrowingMatrix<Matrix> a, b, c;
  for (auto *w : {&a, &b, &c})
    w->set_cache(&cache);
  const float *pa = a.rows("ttgnn::test::a", 100, 8).data();
  b.rows("ttgnn::test::b", 50, 4);
  CHECK(cache.misses() == 2); // both first allocations: nothing cached yet
  a.release();
  b.release();
  CHECK(cache.buffers().size() == 2);
  // the fewest rows that fit: a's 100 x 8 for 90 x 8
  CHECK(c.rows("ttgnn::test::c", 90, 8).data() == pa);
  CHECK(cache.hits() == 1);
  CHECK(cache.buffers().size() == 1);
  // no 20 x 3 buffer: the cache is freed and a new allocation made
  const Matrix d = b.rows("ttgnn::test::b", 20, 3);
  CHECK(cache.misses() == 3);
  CHECK(cache.buffers().empty());
  // d still views b's allocation: released, it is not cached (nor freed while d lives)
  d(19, 2) = 1.0f;
  b.release();
  CHECK(cache.buffers().empty());
  CHECK(d(19, 2) == 1.0f);
  c.release();
  CHECK(cache.buffers().size() == 1);
  cache.clear();
  CHECK(cache.buffers().empty());
}
