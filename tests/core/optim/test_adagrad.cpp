// Adagrad: steps against values derived by hand from the update rules (in the comments),
// learning-rate decay, weight decay and the initial accumulator.
#include "core/optim/adagrad.hpp"
#include "optim_test_util.hpp"
#include "test_harness.hpp"

#include <vector>

namespace {

using namespace ttgnn::test;

template <class ExecutionSpace> void check_adagrad() {
  const ExecutionSpace space;
  auto w = [] { return scalar_list<ExecutionSpace>(1.0); };
  auto g = [] { return scalar_list<ExecutionSpace>(0.0); };
  {
    // lr 0.1, g = 0.5, 0.5, -1: s = 0.25, w = 1 - 0.1·0.5/0.5 = 0.9 (eps 1e-10 shifts the
    // 11th digit); s = 0.5, w = 0.9 - 0.05/sqrt(0.5) = 0.8292893219; s = 1.5,
    // w += 0.1/sqrt(1.5) -> 0.9109389800.
    ttgnn::Adagrad<double, ExecutionSpace> opt(space, w(), g(), ttgnn::AdagradOptions{0.1});
    auto x = run_scalar<ExecutionSpace>(opt, {0.5, 0.5, -1.0});
    CHECK(x[0] == doctest::Approx(0.900000000019999999996).epsilon(tol));
    CHECK(x[1] == doctest::Approx(0.829289321911345247555).epsilon(tol));
    CHECK(x[2] == doctest::Approx(0.910938979997451184162).epsilon(tol));
    CHECK(values(opt.sum_of_squares()[0])[0] == doctest::Approx(1.5).epsilon(tol));
  }
  {
    // lr_decay 0.5, weight decay 0.1, initial sum 0.1: t=1: g' = 0.6, s = 0.46,
    // w = 1 - 0.1·0.6/sqrt(0.46) = 0.9115348263; t=2: lr 0.1/1.5, g' = 0.5 + 0.09115348,
    // s = 0.46 + g'², w -> 0.8677311418.
    ttgnn::AdagradOptions o;
    o.lr = 0.1;
    o.lr_decay = 0.5;
    o.weight_decay = 0.1;
    o.initial_accumulator_value = 0.1;
    ttgnn::Adagrad<double, ExecutionSpace> opt(space, w(), g(), o);
    auto x = run_scalar<ExecutionSpace>(opt, {0.5, 0.5});
    CHECK(x[0] == doctest::Approx(0.911534826320105198).epsilon(tol));
    CHECK(x[1] == doctest::Approx(0.867731141799448031).epsilon(tol));
  }
}

} // namespace

TTGNN_TEST_ALL_SPACES("adagrad: steps by hand, lr decay, initial accumulator") {
  check_adagrad<ExecutionSpace>();
}
