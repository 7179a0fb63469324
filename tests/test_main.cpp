// doctest main for every ttgnn test executable: Kokkos is initialized once (ScopeGuard),
// and invalid floating-point operations trap, so a NaN produced on the host crashes the test
// at the operation that made it instead of passing silently.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <Kokkos_Core.hpp>

#include <cfenv>
#include <cstdlib>

int main(int argc, char **argv) {
  setenv("OMP_PROC_BIND", "false", 0); // keeps Kokkos' OpenMP start-up warning off stdout
  feenableexcept(FE_INVALID);          // threads started later inherit the trap
  Kokkos::ScopeGuard kokkos(argc, argv);
  doctest::Context context;
  context.applyCommandLine(argc, argv);
  return context.run();
}
