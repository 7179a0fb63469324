#ifndef TTGNN_TESTS_OPTIM_TEST_UTIL_HPP
#define TTGNN_TESTS_OPTIM_TEST_UTIL_HPP
/// \file optim_test_util.hpp
/// \brief Shared by the optimizer tests: 1-D parameter Views from host values and back, and
/// steps of an optimizer on one scalar parameter.

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <vector>

namespace ttgnn::test {

template <class ExecutionSpace, class Scalar = double>
using Vec = Kokkos::View<Scalar *, typename ExecutionSpace::memory_space>;

template <class View> void set_values(View const &v, std::vector<double> const &x) {
  auto h = Kokkos::create_mirror_view(v);
  for (std::size_t i = 0; i < x.size(); ++i)
    h(i) = typename View::non_const_value_type(x[i]);
  Kokkos::deep_copy(v, h);
}

template <class ExecutionSpace, class Scalar = double>
Vec<ExecutionSpace, Scalar> make_vec(std::vector<double> const &x) {
  Vec<ExecutionSpace, Scalar> v("ttgnn::test::vec", x.size());
  set_values(v, x);
  return v;
}

template <class View> std::vector<double> values(View const &v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  std::vector<double> out(h.extent(0));
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = double(h(i));
  return out;
}

/// One parameter list holding one entry of value \p x (a scalar weight or its gradient).
template <class ExecutionSpace> std::vector<Vec<ExecutionSpace>> scalar_list(double x) {
  return {make_vec<ExecutionSpace>({x})};
}

/// Runs steps of \p opt with the given gradient of each step and returns w after each step
/// (one parameter of one entry).
template <class ExecutionSpace, class Opt>
std::vector<double> run_scalar(Opt &opt, std::vector<double> const &grads) {
  std::vector<double> out;
  for (double g : grads) {
    set_values(opt.gradients()[0], {g});
    opt.step(ExecutionSpace());
    out.push_back(values(opt.parameters()[0])[0]);
  }
  return out;
}

// Tolerance of the hand values: a few double roundings per step on numbers of order 1.
inline constexpr double tol = 1e-13;

} // namespace ttgnn::test

#endif
