#!/usr/bin/env bash
# CI stage: builds ttgnn with AddressSanitizer + UndefinedBehaviorSanitizer (and LeakSanitizer,
# part of ASan) into build-asan/ and runs the test suite under them, Serial and OpenMP back-ends.
# Kokkos and libgomp are not instrumented; only ttgnn's own code (library, CLI, tests) is.
#
#   scripts/ci-sanitizers.sh            (BUILD_DIR overrides build-asan, TTGNN_JOBS the -j)
#
# Any sanitizer report fails the test that triggered it (halt_on_error / abort_on_error).
# Narrow suppressions of reports inside uninstrumented code live in tests/sanitizers/.
set -euo pipefail
cd "$(dirname "$0")/.."
export BUILD_DIR=${BUILD_DIR:-build-asan}
export TTGNN_JOBS=${TTGNN_JOBS:-2}
supp=$(pwd)/tests/sanitizers
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export LSAN_OPTIONS=suppressions=$supp/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:suppressions=$supp/ubsan.supp

start=$(date +%s)
# -O1 -g1 (line tables): half the compile time of -O2 -g under the sanitizers (core/tt/tt_svd.cpp:
# 48 s vs 96 s), and stack traces still name file and line.
# Without MPI: Open MPI is not instrumented and leaks at MPI_Finalize from components it has
# already dlclose'd (LeakSanitizer names them "<unknown module>", so no suppression can match);
# the MPI tests (label mpi) run in the plain build, and here the serial Communicator is tested.
bash scripts/build.sh -DTTGNN_ENABLE_SANITIZERS=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" -DTTGNN_ENABLE_MPI=OFF
built=$(date +%s)
# Everything except install.find_package and examples.from_install, which install the library
# and build programs against it:
# they test packaging, not memory safety, and take minutes.
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$TTGNN_JOBS" -E '^(install|examples)\.'
echo "ci-sanitizers: build $((built - start)) s, tests $(($(date +%s) - built)) s"
