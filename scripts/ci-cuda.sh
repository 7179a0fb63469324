#!/usr/bin/env bash
# CI stage: builds Kokkos + KokkosKernels with CUDA (cached like the CPU prefix) and compiles and
# links everything of ttgnn with nvcc into build-cuda/: library, CLI, tests and benchmarks. Runs
# nothing (CI machines have no GPU; scripts/gpu-check.sh runs the suite on a machine with one).
#
#   scripts/ci-cuda.sh [ARCH]     (default 90: Hopper; BUILD_DIR overrides build-cuda)
set -euo pipefail
cd "$(dirname "$0")/.."
ARCH=${1:-90}
export TTGNN_JOBS=${TTGNN_JOBS:-2}
start=$(date +%s)
bash scripts/install-deps.sh --cuda "$ARCH" >/dev/null
deps=$(date +%s)
# A compile-and-link check: host code at -O0 (nvcc's -O is the host optimisation; ptxas still
# optimises device code). models/train/minibatch_trainer.cpp: 235 s instead of 378 s at -O3.
bash scripts/build.sh --cuda "$ARCH" -DTTGNN_ENABLE_BENCH=ON "-DCMAKE_CXX_FLAGS_RELEASE=-O0 -DNDEBUG"
built=$(date +%s)
BUILD=${BUILD_DIR:-build-cuda}
echo "ci-cuda: $(ctest --test-dir "$BUILD" -N -L cuda | tail -n1 | tr -s ' ') registered for the GPU"
echo "ci-cuda: dependencies $((deps - start)) s, build $((built - deps)) s"
