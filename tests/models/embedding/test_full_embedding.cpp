// FullEmbedding: forward gathers table rows; backward into a dense gradient (deterministic and
// atomic) and into a row-sparse one (distinct ids, summed rows, merged across calls) equals a
// host scatter-add; parameters() aliases the table; errors.
#include "core/error.hpp"
#include "models/embedding/full_embedding.hpp"
#include "test_harness.hpp"

#include <cmath>
#include <map>
#include <random>

using namespace ttgnn;

template <class ExecutionSpace> void check_full_embedding() {
  using mem = typename ExecutionSpace::memory_space;
  using Emb = FullEmbedding<double, ExecutionSpace>;
  ExecutionSpace space;
  const std::int64_t n = 40, d = 6, batch = 90;
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  Kokkos::View<std::int64_t *, mem> ids("ids", batch);
  auto ids_h = Kokkos::create_mirror_view(ids);
  for (std::int64_t b = 0; b < batch; ++b)
    ids_h(b) = b < 30 ? b % 7 : std::int64_t(rng() % n);
  Kokkos::deep_copy(ids, ids_h);
  Kokkos::View<double **, Kokkos::LayoutRight, mem> gr("gr", batch, d), out("out", batch, d);
  auto gr_h = Kokkos::create_mirror_view(gr);
  for (std::size_t i = 0; i < gr_h.size(); ++i)
    gr_h.data()[i] = u(rng);
  Kokkos::deep_copy(gr, gr_h);
  // Host reference of the gradient: scatter-add in batch order.
  std::map<std::int64_t, std::vector<double>> ref;
  for (std::int64_t b = 0; b < batch; ++b) {
    auto &row = ref[ids_h(b)];
    row.resize(d);
    for (std::int64_t j = 0; j < d; ++j)
      row[j] += gr_h(b, j);
  }
  // Sums of <= 20 terms in [-1, 1], in another order than the reference: <= 20 * 2 eps * 20.
  const double tol = 1e-13;

  for (auto mode : {TtBackwardMode::deterministic, TtBackwardMode::atomic}) {
    Emb emb(n, d, {FullGradient::dense, mode});
    CHECK(emb.num_parameters() == n * d);
    CHECK(emb.compression() == 1.0);
    auto params = emb.parameters();
    REQUIRE(params.size() == 1);
    CHECK(params[0].data() == emb.table().data()); // aliases the table
    auto tab_h = Kokkos::create_mirror_view(emb.table());
    for (std::size_t i = 0; i < tab_h.size(); ++i)
      tab_h.data()[i] = u(rng);
    Kokkos::deep_copy(emb.table(), tab_h);
    emb.forward(space, ids, out);
    auto out_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    for (std::int64_t b = 0; b < batch; ++b)
      for (std::int64_t j = 0; j < d; ++j)
        CHECK(out_h(b, j) == tab_h(ids_h(b), j));
    emb.backward(space, ids, gr);
    emb.backward(space, ids, gr); // accumulates
    auto g = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), emb.dense_gradient());
    CHECK(emb.gradients()[0].data() == emb.dense_gradient().data());
    for (std::int64_t r = 0; r < n; ++r)
      for (std::int64_t j = 0; j < d; ++j) {
        const double want = ref.count(r) ? 2 * ref[r][j] : 0.0;
        CHECK(std::fabs(g(r, j) - want) <= 2 * tol);
      }
    emb.zero_grad(space);
    g = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), emb.dense_gradient());
    for (std::size_t i = 0; i < g.size(); ++i)
      CHECK(g.data()[i] == 0.0);
  }

  Emb sparse(n, d, {FullGradient::sparse});
  CHECK_THROWS_AS(sparse.gradients(), ConfigError);
  // Two calls: the first half of the batch, then the whole batch; rows merge.
  auto half = Kokkos::subview(ids, Kokkos::make_pair(std::int64_t(0), batch / 2));
  auto half_gr = Kokkos::subview(gr, Kokkos::make_pair(std::int64_t(0), batch / 2), Kokkos::ALL());
  sparse.backward(space, half, half_gr);
  sparse.backward(space, ids, gr);
  std::map<std::int64_t, std::vector<double>> ref2 = ref;
  for (std::int64_t b = 0; b < batch / 2; ++b)
    for (std::int64_t j = 0; j < d; ++j)
      ref2[ids_h(b)][j] += gr_h(b, j);
  REQUIRE(sparse.sparse_size() == std::int64_t(ref2.size()));
  auto sid = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sparse.sparse_ids());
  auto srows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sparse.sparse_rows());
  std::int64_t i = 0;
  for (auto const &[id, row] : ref2) { // std::map iterates ids in increasing order
    CHECK(sid(i) == id);
    for (std::int64_t j = 0; j < d; ++j)
      CHECK(std::fabs(srows(i, j) - row[j]) <= 2 * tol);
    ++i;
  }
  sparse.zero_grad(space);
  CHECK(sparse.sparse_size() == 0);

  auto bad = Kokkos::View<std::int64_t *, mem>("bad", batch);
  Kokkos::deep_copy(bad, n);
  CHECK_THROWS_AS(sparse.forward(space, bad, out), InputError);
  CHECK_THROWS_AS(sparse.backward(space, bad, gr), InputError);
  CHECK_THROWS_AS(Emb(0, 4), ConfigError);
}

TTGNN_TEST_ALL_SPACES("full embedding: gather, dense and row-sparse gradients") {
  check_full_embedding<ExecutionSpace>();
}
