// Sgd: plain, momentum, dampening, Nesterov and L2 weight decay against values derived by
// hand from the update rules (in the comments), and a learning-rate change.
#include "core/optim/sgd.hpp"
#include "optim_test_util.hpp"
#include "test_harness.hpp"

#include <vector>

namespace {

using namespace ttgnn::test;

template <class ExecutionSpace> void check_sgd() {
  const ExecutionSpace space;
  auto w = [] { return scalar_list<ExecutionSpace>(1.0); };
  auto g = [] { return scalar_list<ExecutionSpace>(0.0); };
  {
    // Plain: w <- w - lr·g, lr = 0.1: 1 - 0.05 = 0.95; g = -1: 0.95 + 0.1 = 1.05.
    ttgnn::Sgd<double, ExecutionSpace> opt(space, w(), g(), ttgnn::SgdOptions{0.1});
    auto x = run_scalar<ExecutionSpace>(opt, {0.5, -1.0});
    CHECK(x[0] == doctest::Approx(0.95).epsilon(tol));
    CHECK(x[1] == doctest::Approx(1.05).epsilon(tol));
    CHECK(opt.step_count() == 2);
  }
  {
    // Momentum mu = 0.9: b1 = g1 = 0.5, w = 0.95; b2 = 0.45 + 0.5 = 0.95, w = 0.855;
    // b3 = 0.855 - 1 = -0.145, w = 0.855 + 0.0145 = 0.8695.
    ttgnn::SgdOptions o;
    o.lr = 0.1;
    o.momentum = 0.9;
    ttgnn::Sgd<double, ExecutionSpace> opt(space, w(), g(), o);
    auto x = run_scalar<ExecutionSpace>(opt, {0.5, 0.5, -1.0});
    CHECK(x[0] == doctest::Approx(0.95).epsilon(tol));
    CHECK(x[1] == doctest::Approx(0.855).epsilon(tol));
    CHECK(x[2] == doctest::Approx(0.8695).epsilon(tol));
    CHECK(values(opt.momentum_buffer()[0])[0] == doctest::Approx(-0.145).epsilon(tol));
  }
  {
    // Dampening 0.5: the first buffer is the gradient itself (torch), b1 = 0.5, w = 0.95;
    // b2 = 0.9·0.5 + 0.5·0.5 = 0.7, w = 0.95 - 0.07 = 0.88.
    ttgnn::SgdOptions o;
    o.lr = 0.1;
    o.momentum = 0.9;
    o.dampening = 0.5;
    ttgnn::Sgd<double, ExecutionSpace> opt(space, w(), g(), o);
    auto x = run_scalar<ExecutionSpace>(opt, {0.5, 0.5});
    CHECK(x[0] == doctest::Approx(0.95).epsilon(tol));
    CHECK(x[1] == doctest::Approx(0.88).epsilon(tol));
  }
  {
    // Nesterov: b1 = 0.5, step g + mu·b = 0.95, w = 0.905; b2 = 0.95, step 0.5 + 0.855 =
    // 1.355, w = 0.905 - 0.1355 = 0.7695.
    ttgnn::SgdOptions o;
    o.lr = 0.1;
    o.momentum = 0.9;
    o.nesterov = true;
    ttgnn::Sgd<double, ExecutionSpace> opt(space, w(), g(), o);
    auto x = run_scalar<ExecutionSpace>(opt, {0.5, 0.5});
    CHECK(x[0] == doctest::Approx(0.905).epsilon(tol));
    CHECK(x[1] == doctest::Approx(0.7695).epsilon(tol));
  }
  {
    // L2 weight decay 0.1: g' = 0.5 + 0.1·1 = 0.6, w = 0.94; g' = 0.5 + 0.094 = 0.594,
    // w = 0.94 - 0.0594 = 0.8806. Then lr set to 0.2 with g = 0.5: g' = 0.58806,
    // w = 0.8806 - 0.117612 = 0.762988.
    ttgnn::SgdOptions o;
    o.lr = 0.1;
    o.weight_decay = 0.1;
    ttgnn::Sgd<double, ExecutionSpace> opt(space, w(), g(), o);
    auto x = run_scalar<ExecutionSpace>(opt, {0.5, 0.5});
    CHECK(x[0] == doctest::Approx(0.94).epsilon(tol));
    CHECK(x[1] == doctest::Approx(0.8806).epsilon(tol));
    opt.set_learning_rate(0.2);
    CHECK(opt.learning_rate() == 0.2);
    x = run_scalar<ExecutionSpace>(opt, {0.5});
    CHECK(x[0] == doctest::Approx(0.762988).epsilon(tol));
  }
}

} // namespace

TTGNN_TEST_ALL_SPACES("sgd: plain, momentum, dampening, nesterov, weight decay by hand") {
  check_sgd<ExecutionSpace>();
}
