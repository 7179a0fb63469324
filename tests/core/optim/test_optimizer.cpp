// What every Optimizer shares: lists of parameters of different sizes, zero_grad, and the
// configuration errors (list lengths and extents, option ranges, learning rate).
#include "core/error.hpp"
#include "core/optim/adam.hpp"
#include "core/optim/sgd.hpp"
#include "optim_test_util.hpp"
#include "test_harness.hpp"

#include <vector>

namespace {

using namespace ttgnn::test;

template <class ExecutionSpace> void check_lists_and_errors() {
  const ExecutionSpace space;
  using V = Vec<ExecutionSpace>;
  // Two parameters of different sizes: each is updated from its own gradient.
  std::vector<V> w{make_vec<ExecutionSpace>({1, 2, 3}), make_vec<ExecutionSpace>({4, 5})};
  std::vector<V> g{make_vec<ExecutionSpace>({1, 1, 1}), make_vec<ExecutionSpace>({-1, 2})};
  ttgnn::Sgd<double, ExecutionSpace> opt(space, w, g, ttgnn::SgdOptions{0.5});
  opt.step(space);
  auto a = values(w[0]), b = values(w[1]);
  CHECK(a == std::vector<double>{0.5, 1.5, 2.5});
  CHECK(b == std::vector<double>{4.5, 4.0});
  opt.zero_grad(space);
  CHECK(values(g[0]) == std::vector<double>{0, 0, 0});
  CHECK(values(g[1]) == std::vector<double>{0, 0});
  opt.step(space); // zero gradient: nothing moves
  CHECK(values(w[0]) == a);

  using Opts = ttgnn::AdamOptions;
  using AdamT = ttgnn::Adam<double, ExecutionSpace>;
  using AdamWT = ttgnn::AdamW<double, ExecutionSpace>;
  using SgdT = ttgnn::Sgd<double, ExecutionSpace>;
  CHECK_THROWS_AS((AdamT(space, w, {g[0]}, Opts{})), ttgnn::ConfigError);       // count
  CHECK_THROWS_AS((AdamT(space, w, {g[1], g[0]}, Opts{})), ttgnn::ConfigError); // extents
  Opts bad;
  bad.beta1 = 1.0;
  CHECK_THROWS_AS((AdamT(space, w, g, bad)), ttgnn::ConfigError);
  bad = Opts{};
  bad.lr = -1;
  CHECK_THROWS_AS((AdamWT(space, w, g, bad)), ttgnn::ConfigError);
  ttgnn::SgdOptions nest;
  nest.nesterov = true; // without momentum
  CHECK_THROWS_AS((SgdT(space, w, g, nest)), ttgnn::ConfigError);
  CHECK_THROWS_AS(opt.set_learning_rate(-0.1), ttgnn::ConfigError);
}

} // namespace

TTGNN_TEST_ALL_SPACES("optimizers: parameter lists, zero_grad, configuration errors") {
  check_lists_and_errors<ExecutionSpace>();
}
