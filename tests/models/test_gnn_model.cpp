// GnnModel + NodeInput: finite-difference check of the whole stack (input table, dropout,
// GCN/SAGE layers, BatchNorm, ReLU, residual, cross-entropy) in double on a tiny graph, for
// every input kind including the TT and features+TT paths; block operators (mini-batch shape);
// parameter order and seeding.
#include "core/tt/tt_init.hpp"
#include "graph/csr_graph.hpp"
#include "models/layers/gcn_norm.hpp"
#include "models/gnn_model.hpp"
#include "models/loss/log_softmax_cross_entropy.hpp"
#include "models/embedding/node_input.hpp"
#include "layer_test_util.hpp"
#include "test_harness.hpp"

#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <set>
#include <vector>

namespace {

using ttgnn::test::HostGraph;

/// 12 nodes: a ring plus chords, symmetric.
HostGraph tiny_graph() {
  std::vector<std::pair<int, int>> arcs;
  auto edge = [&](int a, int b) {
    arcs.emplace_back(a, b);
    arcs.emplace_back(b, a);
  };
  for (int i = 0; i < 12; ++i)
    edge(i, (i + 1) % 12);
  edge(0, 6);
  edge(2, 9);
  edge(3, 7);
  edge(4, 11);
  return ttgnn::test::make_graph(12, arcs);
}

template <class Space>
ttgnn::Matrix<double, Space> random_matrix(std::int64_t r, std::int64_t c, std::uint64_t seed) {
  ttgnn::Matrix<double, Space> m("ttgnn::test::m", r, c);
  auto h = Kokkos::create_mirror_view(m);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  for (std::int64_t i = 0; i < r; ++i)
    for (std::int64_t j = 0; j < c; ++j)
      h(i, j) = u(rng);
  Kokkos::deep_copy(m, h);
  return m;
}

template <class View> std::vector<double> to_host(View const &v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<double>(h.data(), h.data() + h.size());
}

/// Everything the loss depends on, in double.
template <class Space> struct Setup {
  using Input = ttgnn::NodeInput<double, Space>;
  using Model = ttgnn::GnnModel<double, Space>;
  ttgnn::GraphOperator<double, Space> a;
  std::unique_ptr<Input> input;
  std::unique_ptr<Model> model;
  Kokkos::View<std::int32_t *, typename Space::memory_space> labels;
  Kokkos::View<std::int64_t *, typename Space::memory_space> subset;
  std::vector<std::uint64_t> rng;
};

/// input: 0 features, 1 full table, 2 TT, 3 features + TT.
template <class Space>
Setup<Space> make_setup(ttgnn::GnnKind kind, int input_kind, bool bn, bool residual) {
  Space space;
  const std::int64_t n = 12;
  const HostGraph g = tiny_graph();
  Setup<Space> s;
  s.a = kind == ttgnn::GnnKind::gcn ? ttgnn::gcn_norm<double>(space, g)
                                    : ttgnn::mean_aggregation<double>(space, g);
  s.input = std::make_unique<typename Setup<Space>::Input>(n);
  if (input_kind == 0 || input_kind == 3)
    s.input->set_features(random_matrix<Space>(n, 3, 11));
  Kokkos::View<std::int64_t *, typename Space::memory_space> rows("ttgnn::test::rows", n);
  auto rh = Kokkos::create_mirror_view(rows);
  for (std::int64_t v = 0; v < n; ++v) // a scrambled row map with one hole (13 of 2*2*4 rows)
    rh(v) = (v * 5 + 3) % 13;
  Kokkos::deep_copy(rows, rh);
  if (input_kind == 1) {
    ttgnn::FullEmbeddingOptions fo;
    fo.gradient = ttgnn::FullGradient::dense;
    auto full = std::make_shared<ttgnn::FullEmbedding<double, Space>>(13, 4, fo);
    Kokkos::deep_copy(full->table(), random_matrix<Space>(13, 4, 5));
    s.input->set_full_embedding(full, rows);
  }
  if (input_kind >= 2) {
    auto shape = ttgnn::make_tt_shape(13, 4, {2, 2, 4}, {2, 1, 2}, 2);
    auto tt = std::make_shared<ttgnn::TtEmbedding<double, Space>>(shape);
    tt->set_cores_from_host(space, ttgnn::tt_init_gaussian(shape, 1.0, 3));
    s.input->set_tt_embedding(tt, rows);
  }
  ttgnn::GnnConfig c;
  c.kind = kind;
  c.in_features = s.input->dim();
  c.hidden = 4;
  c.out_features = 3;
  c.num_layers = 3;
  c.dropout = 0.3;
  c.input_dropout = 0.2;
  c.batch_norm = bn;
  c.residual = residual;
  c.seed = 7;
  s.model = std::make_unique<typename Setup<Space>::Model>(c);
  s.labels = decltype(s.labels)("ttgnn::test::labels", n);
  auto lh = Kokkos::create_mirror_view(s.labels);
  for (std::int64_t v = 0; v < n; ++v)
    lh(v) = static_cast<std::int32_t>((v * 7) % 3);
  Kokkos::deep_copy(s.labels, lh);
  s.subset = decltype(s.subset)("ttgnn::test::subset", 7);
  auto sh = Kokkos::create_mirror_view(s.subset);
  for (int q = 0; q < 7; ++q)
    sh(q) = (q * 5) % 12;
  Kokkos::deep_copy(s.subset, sh);
  s.rng = s.model->rng_state();
  return s;
}

/// Loss with the dropout masks replayed from the saved counters.
template <class Space>
double loss_of(Setup<Space> &s, ttgnn::LogSoftmaxCrossEntropy<double, Space> &ce) {
  Space space;
  s.model->set_rng_state(s.rng);
  auto const &x = s.input->forward_all(space);
  auto const &logits = s.model->forward(space, s.a, x);
  const double l = ce.forward(space, logits, s.labels, s.subset);
  space.fence();
  return l;
}

/// Central differences of the loss against the analytic gradients of every parameter (GNN and
/// table). Step 1e-6: truncation error ~ eps² |f'''| ~ 1e-12 and round-off ~ 1e-16 / eps ~
/// 1e-10, so 1e-7 absolute + 1e-5 relative is a safe bound that still catches any wrong term
/// (those are O(|gradient|)).
template <class Space>
void check_stack(ttgnn::GnnKind kind, int input_kind, bool bn, bool residual) {
  CAPTURE(int(kind));
  CAPTURE(input_kind);
  CAPTURE(bn);
  CAPTURE(residual);
  Space space;
  auto s = make_setup<Space>(kind, input_kind, bn, residual);
  ttgnn::LogSoftmaxCrossEntropy<double, Space> ce;
  s.model->set_training(true);
  loss_of(s, ce);
  ttgnn::Matrix<double, Space> grad_logits("ttgnn::test::grad_logits", 12, 3);
  ce.backward(space, grad_logits);
  s.model->zero_grad(space);
  s.input->zero_grad(space);
  ttgnn::Matrix<double, Space> gx;
  if (s.input->has_embedding())
    gx = ttgnn::Matrix<double, Space>("ttgnn::test::gx", 12, s.input->dim());
  s.model->backward(space, grad_logits, gx);
  if (s.input->has_embedding())
    s.input->backward(space, gx);
  space.fence();
  auto params = s.model->parameters();
  auto grads = s.model->gradients();
  for (auto const &p : s.input->parameters())
    params.push_back(p);
  for (auto const &g : s.input->gradients())
    grads.push_back(g);
  REQUIRE(params.size() == grads.size());
  int checked = 0;
  double max_grad = 0;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const auto an = to_host(grads[i]);
    auto ph = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), params[i]);
    for (std::size_t k = 0; k < ph.extent(0); ++k) {
      const double keep = ph(k);
      const double eps = 1e-6;
      ph(k) = keep + eps;
      Kokkos::deep_copy(params[i], ph);
      const double up = loss_of(s, ce);
      ph(k) = keep - eps;
      Kokkos::deep_copy(params[i], ph);
      const double down = loss_of(s, ce);
      ph(k) = keep;
      Kokkos::deep_copy(params[i], ph);
      const double fd = (up - down) / (2 * eps);
      CAPTURE(i);
      CAPTURE(k);
      CHECK(std::fabs(fd - an[k]) <= 1e-7 + 1e-5 * std::fabs(an[k]));
      max_grad = std::max(max_grad, std::fabs(an[k]));
      ++checked;
    }
  }
  CHECK(checked > 40);
  CHECK(max_grad > 1e-3); // the check is not vacuous
}

template <class Space> void check_all_stacks() {
  for (auto kind : {ttgnn::GnnKind::gcn, ttgnn::GnnKind::sage})
    for (int input = 0; input < 4; ++input)
      check_stack<Space>(kind, input, input % 2 == 1, input >= 2);
  check_stack<Space>(ttgnn::GnnKind::gcn, 3, true, true);
  check_stack<Space>(ttgnn::GnnKind::sage, 0, false, true);
}

/// dL/dx of the features-only model (grad_x given) against central differences in x.
template <class Space> void check_input_gradient() {
  Space space;
  auto s = make_setup<Space>(ttgnn::GnnKind::gcn, 0, true, true);
  ttgnn::LogSoftmaxCrossEntropy<double, Space> ce;
  auto x = s.input->features();
  loss_of(s, ce);
  ttgnn::Matrix<double, Space> grad_logits("ttgnn::test::grad_logits", 12, 3), gx("gx", 12, 3);
  ce.backward(space, grad_logits);
  s.model->zero_grad(space);
  s.model->backward(space, grad_logits, gx);
  const auto an = to_host(gx);
  auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  for (std::size_t k = 0; k < xh.size(); ++k) {
    const double keep = xh.data()[k], eps = 1e-6;
    xh.data()[k] = keep + eps;
    Kokkos::deep_copy(x, xh);
    const double up = loss_of(s, ce);
    xh.data()[k] = keep - eps;
    Kokkos::deep_copy(x, xh);
    const double down = loss_of(s, ce);
    xh.data()[k] = keep;
    Kokkos::deep_copy(x, xh);
    CAPTURE(k);
    CHECK(std::fabs((up - down) / (2 * eps) - an[k]) <= 1e-7 + 1e-5 * std::fabs(an[k]));
  }
}

/// One operator per layer with shrinking row counts (a sampled-block stack) gives the rows of
/// the full-graph forward for the nodes whose whole neighbourhood is kept: here every block is
/// the full operator restricted to its first rows, and the output rows must match.
template <class Space> void check_block_operators() {
  Space space;
  auto s = make_setup<Space>(ttgnn::GnnKind::sage, 0, false, true);
  s.model->set_training(false);
  auto x = s.input->features();
  const auto full = to_host(s.model->forward(space, s.a, x));
  // Full neighbourhoods are kept only while every neighbour of the kept rows is among the
  // columns: use all 12 nodes at every layer but shrink the last layer's output to 5 rows.
  using ttgnn::test::top_block;
  std::vector<ttgnn::GraphOperator<double, Space>> ops{
      top_block(s.a, 12, 12), top_block(s.a, 12, 12), top_block(s.a, 5, 12)};
  const auto block = to_host(s.model->forward(space, ops, x));
  REQUIRE(block.size() == 5 * 3);
  for (std::size_t k = 0; k < block.size(); ++k)
    CHECK(block[k] == doctest::Approx(full[k]).epsilon(1e-12));
  // And the backward pass runs on the block shapes.
  ttgnn::Matrix<double, Space> g("g", 5, 3), gx("gx", 12, 3);
  Kokkos::deep_copy(g, 1.0);
  s.model->set_training(true);
  s.model->forward(space, ops, x);
  s.model->backward(space, g, gx);
  space.fence();
}

/// Regression: an evaluation pass (no dropout: layer inputs alias h_l) followed by training
/// passes (dropout into a buffer) must never write into the caller's x.
template <class Space> void check_input_untouched() {
  Space space;
  auto s = make_setup<Space>(ttgnn::GnnKind::gcn, 0, true, true);
  auto x = s.input->features();
  const auto before = to_host(x);
  for (int pass = 0; pass < 4; ++pass) {
    s.model->set_training(pass % 2 == 1);
    s.model->forward(space, s.a, x);
  }
  space.fence();
  CHECK(to_host(x) == before);
}

/// Parameter order (per layer: conv weights/bias, then BatchNorm gamma/beta), counts, seeding.
template <class Space> void check_structure() {
  ttgnn::GnnConfig c;
  c.kind = ttgnn::GnnKind::gcn;
  c.in_features = 10;
  c.hidden = 8;
  c.out_features = 3;
  c.num_layers = 3;
  c.batch_norm = true;
  c.seed = 1;
  ttgnn::GnnModel<float, Space> m(c), same(c);
  const auto p = m.parameters();
  REQUIRE(p.size() == 2 + 2 + 2 + 2 + 2);
  CHECK(p[0].extent(0) == 80);
  CHECK(p[1].extent(0) == 8);
  CHECK(p[2].extent(0) == 8); // BatchNorm gamma
  CHECK(p[4].extent(0) == 64);
  CHECK(p[8].extent(0) == 24);
  CHECK(m.num_parameters() == 80 + 8 + 16 + 64 + 8 + 16 + 24 + 3);
  CHECK(m.buffers().size() == 4);
  CHECK(m.residual_at(1) == false);
  CHECK(to_host(m.parameters()[0]) == to_host(same.parameters()[0]));
  c.seed = 2;
  ttgnn::GnnModel<float, Space> other(c);
  CHECK(to_host(m.parameters()[0]) != to_host(other.parameters()[0]));
  c.residual = true;
  ttgnn::GnnModel<float, Space> res(c);
  CHECK(!res.residual_at(0));
  CHECK(res.residual_at(1));
  CHECK(!res.residual_at(2));
  c.num_layers = 0;
  using Bad = ttgnn::GnnModel<float, Space>;
  CHECK_THROWS_AS(Bad{c}, ttgnn::ConfigError);
}

/// set_overwrite_input + grad_x = x (what the training loop does for embedding rows) against
/// the default path: bitwise the same logits, parameter gradients and dL/dx, with x's buffer
/// reused for the input dropout (the workspace is one x smaller) and for dL/dx. GCN and SAGE,
/// both GEMM orders of layer 0 (in < hidden and in > hidden), and a residual on layer 0 (which
/// keeps the dropout buffer, since the residual adds the undropped x).
template <class Space> void check_overwrite_input(ttgnn::GnnKind kind, int in, bool residual) {
  CAPTURE(int(kind));
  CAPTURE(in);
  CAPTURE(residual);
  Space space;
  const std::int64_t n = 12;
  const auto g = tiny_graph();
  const auto a = kind == ttgnn::GnnKind::gcn ? ttgnn::gcn_norm<double>(space, g)
                                             : ttgnn::mean_aggregation<double>(space, g);
  ttgnn::GnnConfig c;
  c.kind = kind;
  c.in_features = in;
  c.hidden = 4;
  c.out_features = 3;
  c.num_layers = 3;
  c.dropout = 0.3;
  c.input_dropout = 0.4;
  c.residual = residual;
  c.seed = 5;
  ttgnn::GnnModel<double, Space> plain(c), reuse(c);
  reuse.set_overwrite_input(true);
  REQUIRE(reuse.residual_at(0) == (residual && in == 4));
  const auto x = random_matrix<Space>(n, in, 21);
  const auto gl = random_matrix<Space>(n, 3, 22);
  ttgnn::Matrix<double, Space> xr("ttgnn::test::x_reused", n, in), gx("ttgnn::test::gx", n, in);
  Kokkos::deep_copy(xr, x);
  for (int step = 0; step < 2; ++step) { // two masks of the stream
    const auto lp = to_host(plain.forward(space, a, x));
    const auto lr = to_host(reuse.forward(space, a, xr));
    CHECK(lp == lr);
    if (!reuse.residual_at(0)) { // dropped in place: x itself now has the zeros
      CHECK(to_host(xr) != to_host(x));
      CHECK(plain.workspace_bytes() - reuse.workspace_bytes() ==
            n * in * std::int64_t(sizeof(double)));
    }
    plain.zero_grad(space);
    reuse.zero_grad(space);
    plain.backward(space, gl, gx);
    reuse.backward(space, gl, xr); // dL/dx over x
    const auto gp = plain.gradients(), gr = reuse.gradients();
    for (std::size_t i = 0; i < gp.size(); ++i)
      CHECK(to_host(gp[i]) == to_host(gr[i]));
    CHECK(to_host(gx) == to_host(xr));
    double norm = 0;
    for (double v : to_host(gx))
      norm += v * v;
    CHECK(norm > 1e-6);       // not vacuous
    Kokkos::deep_copy(xr, x); // the next step's rows
  }
}

template <class Space> void check_overwrite_inputs() {
  for (auto kind : {ttgnn::GnnKind::gcn, ttgnn::GnnKind::sage}) {
    check_overwrite_input<Space>(kind, 3, false);
    check_overwrite_input<Space>(kind, 6, false);
    check_overwrite_input<Space>(kind, 4, true);
  }
}

} // namespace

TTGNN_TEST_ALL_SPACES("model stack gradients match finite differences (all inputs)") {
  check_all_stacks<ExecutionSpace>();
}
TTGNN_TEST_ALL_SPACES("model input gradient matches finite differences") {
  check_input_gradient<ExecutionSpace>();
}
TTGNN_TEST_ALL_SPACES("model forward leaves its input unchanged") {
  check_input_untouched<ExecutionSpace>();
}
TTGNN_TEST_ALL_SPACES("model overwriting its input rows equals the default path") {
  check_overwrite_inputs<ExecutionSpace>();
}
TTGNN_TEST_ALL_SPACES("model forward on block operators") {
  check_block_operators<ExecutionSpace>();
}
TTGNN_TEST_ALL_SPACES("model parameter order and seeding") {
  check_structure<ExecutionSpace>();
}
