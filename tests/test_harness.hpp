#ifndef TTGNN_TESTS_TEST_HARNESS_HPP
#define TTGNN_TESTS_TEST_HARNESS_HPP
/// \file test_harness.hpp
/// \brief Running one test body on every enabled execution space.
///
/// Write the body as a free function template over the execution space (keeps
/// KOKKOS_LAMBDAs out of macro-generated functions), then:
///
///     template <class ExecutionSpace> void check_lookup() { ... }
///     TTGNN_TEST_SPACES("tt lookup matches the table") { check_lookup<ExecutionSpace>(); }
///
/// ctest runs each executable three times: Serial (plus the space-independent tests), and
/// the OpenMP instances at 1 and at 2 threads.

#include <doctest/doctest.h>

#include <Kokkos_Core.hpp>

#include <cfenv>

#include <tuple>
#include <utility>

#ifdef KOKKOS_ENABLE_SERIAL
TYPE_TO_STRING(Kokkos::Serial);
#endif
#ifdef KOKKOS_ENABLE_OPENMP
TYPE_TO_STRING(Kokkos::OpenMP);
#endif
#ifdef KOKKOS_ENABLE_CUDA
TYPE_TO_STRING(Kokkos::Cuda);
#endif

namespace ttgnn::test {

/// Every enabled execution space, as a std::tuple.
using Spaces = decltype(std::tuple_cat(
#ifdef KOKKOS_ENABLE_SERIAL
    std::declval<std::tuple<Kokkos::Serial>>(),
#endif
#ifdef KOKKOS_ENABLE_OPENMP
    std::declval<std::tuple<Kokkos::OpenMP>>(),
#endif
#ifdef KOKKOS_ENABLE_CUDA
    std::declval<std::tuple<Kokkos::Cuda>>(),
#endif
    std::declval<std::tuple<>>()));

/// Turns the floating-point trap off for a scope (tests that make NaN on purpose).
class FpTrapOff {
public:
  FpTrapOff() : saved_(fegetexcept()) { fedisableexcept(FE_ALL_EXCEPT); }
  ~FpTrapOff() {
    feclearexcept(FE_ALL_EXCEPT);
    feenableexcept(saved_);
  }
  FpTrapOff(FpTrapOff const &) = delete;
  FpTrapOff &operator=(FpTrapOff const &) = delete;

private:
  int saved_;
};

} // namespace ttgnn::test

/// Declares a test case whose body runs once per execution space in ttgnn::test::Spaces,
/// with the type `ExecutionSpace` in scope. Test names end in `<Kokkos::Serial>` etc.
#define TTGNN_TEST_SPACES(name) TTGNN_TEST_SPACES_IMPL_(name, DOCTEST_ANONYMOUS(TTGNN_TEST_BODY_))
#define TTGNN_TEST_SPACES_IMPL_(name, body)                                                        \
  template <class ExecutionSpace> static void body();                                              \
  TEST_CASE_TEMPLATE_DEFINE(name, ExecutionSpace, DOCTEST_CAT(body, _id)) {                        \
    body<ExecutionSpace>();                                                                        \
  }                                                                                                \
  TEST_CASE_TEMPLATE_APPLY(DOCTEST_CAT(body, _id), ttgnn::test::Spaces);                           \
  template <class ExecutionSpace> static void body()

#endif
