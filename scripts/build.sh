#!/usr/bin/env bash
# Configures and builds ttgnn into build/ (binary: build/bin/ttgnn).
#
#   scripts/build.sh [extra cmake arguments]
#
# Uses the Kokkos that scripts/install-deps.sh built, unless Kokkos_ROOT is set in the
# environment (your own Kokkos, e.g. built with CUDA). BUILD_DIR overrides build/.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
KOKKOS=${Kokkos_ROOT:-$(bash scripts/install-deps.sh --print-prefix)}
JOBS=${TTGNN_JOBS:-$(nproc)}
cmake -S . -B "$BUILD_DIR" -DKokkos_ROOT="$KOKKOS" -DKokkosKernels_ROOT="$KOKKOS" "$@" >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS"
