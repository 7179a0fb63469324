#ifndef TTGNN_TESTS_TEST_HARNESS_HPP
#define TTGNN_TESTS_TEST_HARNESS_HPP
/// \file test_harness.hpp
/// \brief Running one test body on every enabled execution space, or on the host ones only.
///
/// Write the body as a free function template over the execution space (keeps
/// KOKKOS_LAMBDAs out of macro-generated functions), then pick the spaces explicitly:
///
///     template <class ExecutionSpace> void check_lookup() { ... }
///     TTGNN_TEST_ALL_SPACES("tt lookup matches the table") { check_lookup<ExecutionSpace>(); }
///     TTGNN_TEST_HOST_SPACES("metis parts are balanced") { ... }
///
/// ALL: Serial, OpenMP and Cuda (device kernels, compared with a host reference through
/// mirrors). HOST: Serial and OpenMP only, for functions whose API is host-only (they
/// static_assert that the space can read host memory).
///
/// ctest runs each executable as NAME.serial (Serial instances plus the plain test cases, which
/// use the default execution space), NAME.openmp.1 and NAME.openmp.2 (OpenMP instances at 1 and
/// 2 threads). In a CUDA build the plain test cases run as NAME.default beside NAME.cuda (the
/// Cuda instances), both labelled "cuda".

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

/// The enabled host execution spaces, as a std::tuple.
using HostSpaces = decltype(std::tuple_cat(
#ifdef KOKKOS_ENABLE_SERIAL
    std::declval<std::tuple<Kokkos::Serial>>(),
#endif
#ifdef KOKKOS_ENABLE_OPENMP
    std::declval<std::tuple<Kokkos::OpenMP>>(),
#endif
    std::declval<std::tuple<>>()));

/// Every enabled execution space (the host ones, then the device ones), as a std::tuple.
using AllSpaces = decltype(std::tuple_cat(std::declval<HostSpaces>(),
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

/// Declares a test case whose body runs once per execution space in ttgnn::test::AllSpaces,
/// with the type `ExecutionSpace` in scope. Test names end in `<Kokkos::Serial>` etc.
#define TTGNN_TEST_ALL_SPACES(name)                                                                \
  TTGNN_TEST_SPACES_IMPL_(name, ttgnn::test::AllSpaces, DOCTEST_ANONYMOUS(TTGNN_TEST_BODY_))
/// As TTGNN_TEST_ALL_SPACES, over ttgnn::test::HostSpaces.
#define TTGNN_TEST_HOST_SPACES(name)                                                               \
  TTGNN_TEST_SPACES_IMPL_(name, ttgnn::test::HostSpaces, DOCTEST_ANONYMOUS(TTGNN_TEST_BODY_))
#define TTGNN_TEST_SPACES_IMPL_(name, spaces, body)                                                \
  template <class ExecutionSpace> static void body();                                              \
  TEST_CASE_TEMPLATE_DEFINE(name, ExecutionSpace, DOCTEST_CAT(body, _id)) {                        \
    body<ExecutionSpace>();                                                                        \
  }                                                                                                \
  TEST_CASE_TEMPLATE_APPLY(DOCTEST_CAT(body, _id), spaces);                                        \
  template <class ExecutionSpace> static void body()

#endif
