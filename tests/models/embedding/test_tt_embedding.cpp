// TtEmbedding: forward equals the materialized table for both paths; backward routes to the
// chosen path/mode (matches the core kernels); parameters()/gradients() alias the cores; a few
// SGD steps on the flat Views fit a target table (the optimizer contract).
#include "core/optim/sgd.hpp"
#include "core/tt/tt_lookup.hpp"
#include "models/embedding/tt_embedding.hpp"
#include "test_harness.hpp"

#include <cmath>
#include <random>

using namespace ttgnn;

template <class ExecutionSpace> void check_tt_embedding() {
  using mem = typename ExecutionSpace::memory_space;
  using Emb = TtEmbedding<double, ExecutionSpace>;
  ExecutionSpace space;
  auto shape = make_tt_shape(300, 24, 3, 3, 1.0); // n=[7,7,7], d=[4,3,2], ranks=[1,3,3,1]
  CAPTURE(shape.to_string());
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<std::vector<double>> host;
  for (int k = 0; k < shape.num_cores(); ++k) {
    host.emplace_back(shape.core_size(k));
    for (auto &x : host.back())
      x = u(rng);
  }
  const std::int64_t batch = 64;
  Kokkos::View<std::int64_t *, mem> ids("ids", batch);
  auto ids_h = Kokkos::create_mirror_view(ids);
  for (std::int64_t b = 0; b < batch; ++b)
    ids_h(b) = (b * 13 + 5) % shape.num_rows;
  Kokkos::deep_copy(ids, ids_h);
  Kokkos::View<double **, Kokkos::LayoutRight, mem> out("out", batch, shape.dim()),
      gr("gr", batch, shape.dim());
  auto gr_h = Kokkos::create_mirror_view(gr);
  for (std::size_t i = 0; i < gr_h.size(); ++i)
    gr_h.data()[i] = u(rng);
  Kokkos::deep_copy(gr, gr_h);

  for (auto path : {TtLookupPath::plain, TtLookupPath::prefix})
    for (auto mode : {TtBackwardMode::deterministic, TtBackwardMode::atomic}) {
      Emb emb(shape, {path, mode});
      CHECK(emb.num_parameters() == shape.num_parameters());
      CHECK(emb.compression() == doctest::Approx(300.0 * 24 / shape.num_parameters()));
      emb.set_cores_from_host(space, host);
      emb.forward(space, ids, out);
      auto table =
          Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), materialize(space, emb.cores()));
      auto out_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
      double err = 0;
      for (std::int64_t b = 0; b < batch; ++b)
        for (std::int64_t j = 0; j < shape.dim(); ++j)
          err = std::max(err, std::fabs(out_h(b, j) - table(ids_h(b), j)));
      CHECK(err < 1e-13); // entries are sums of 9 products of 3 numbers in [-1, 1]
      emb.backward(space, ids, gr);
      // Same as the core kernels on the same inputs.
      TtCores<double, mem> want(shape);
      tt_lookup_backward(space, emb.cores(), ids, gr, want, path, mode);
      auto params = emb.parameters();
      auto grads = emb.gradients();
      REQUIRE(params.size() == 3);
      REQUIRE(grads.size() == 3);
      for (int k = 0; k < 3; ++k) {
        CHECK(params[k].data() == emb.cores().core(k).data());
        CHECK(grads[k].size() == std::size_t(shape.core_size(k)));
        auto a = copy_core_to_host(space, emb.core_gradients(), k);
        auto b = copy_core_to_host(space, want, k);
        double e = 0;
        for (std::size_t i = 0; i < a.size(); ++i)
          e = std::max(e, std::fabs(a[i] - b[i]));
        CHECK(e < 1e-12);
      }
      emb.zero_grad(space);
      CHECK(copy_core_to_host(space, emb.core_gradients(), 1)[0] == 0.0);
    }

  // Fit: loss = 0.5 * ||rows - target||^2 over the batch, SGD on the flat Views decreases it.
  Emb emb(shape);
  emb.set_cores_from_host(space, host);
  Kokkos::View<double **, Kokkos::LayoutRight, mem> target("target", batch, shape.dim());
  Sgd<double, ExecutionSpace> sgd(space, emb.parameters(), emb.gradients(), SgdOptions{0.01});
  auto loss_and_grad = [&]() {
    emb.forward(space, ids, out);
    auto o = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    double loss = 0;
    for (std::size_t i = 0; i < o.size(); ++i) {
      loss += 0.5 * o.data()[i] * o.data()[i]; // target 0
      gr_h.data()[i] = o.data()[i];
    }
    Kokkos::deep_copy(gr, gr_h);
    return loss;
  };
  const double first = loss_and_grad();
  double last = first;
  for (int step = 0; step < 20; ++step) {
    sgd.zero_grad(space);
    emb.backward(space, ids, gr);
    sgd.step(space);
    last = loss_and_grad();
  }
  CHECK(last < 0.5 * first);
}

TTGNN_TEST_ALL_SPACES("tt embedding: lookup, backward routing, parameters and an SGD fit") {
  check_tt_embedding<ExecutionSpace>();
}
