#!/usr/bin/env bash
# Configures and builds ttgnn (binary: build/bin/ttgnn).
#
#   scripts/build.sh [--cuda [ARCH]] [extra cmake arguments]
#
# Uses the Kokkos that scripts/install-deps.sh built (with --cuda: the CUDA one, compiled
# through its nvcc_wrapper, into build-cuda/), unless Kokkos_ROOT is set in the environment
# (your own Kokkos). BUILD_DIR overrides the build folder, TTGNN_JOBS the parallel jobs.
# When ccache is installed (scripts/install-deps.sh installs it) compiles go through it, with
# paths taken relative to this folder so that clones elsewhere share the cache (a clean-clone
# CI run recompiles only what changed); TTGNN_CCACHE=0 turns it off.
set -euo pipefail
cd "$(dirname "$0")/.."
CUDA_ARGS=()
if [ "${1:-}" = --cuda ]; then
  CUDA_ARGS=(--cuda)
  shift
  if [[ ${1:-} =~ ^[0-9]+$ ]]; then CUDA_ARGS+=("$1"); shift; fi
fi
JOBS=${TTGNN_JOBS:-$(nproc)}
KOKKOS=${Kokkos_ROOT:-$(bash scripts/install-deps.sh "${CUDA_ARGS[@]}" --print-prefix)}
[ -f "$KOKKOS/lib/cmake/Kokkos/KokkosConfig.cmake" ] \
  || { echo "build.sh: no Kokkos at $KOKKOS: run scripts/install-deps.sh ${CUDA_ARGS[*]}" >&2; exit 1; }
EXTRA=()
if [ ${#CUDA_ARGS[@]} -gt 0 ]; then
  BUILD_DIR=${BUILD_DIR:-build-cuda}
  export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
  EXTRA=(-DCMAKE_CXX_COMPILER="$KOKKOS/bin/nvcc_wrapper")
fi
BUILD_DIR=${BUILD_DIR:-build}
if [ "${TTGNN_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null; then
  export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=true CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-include_file_mtime,include_file_ctime}
  EXTRA+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$BUILD_DIR" -DKokkos_ROOT="$KOKKOS" -DKokkosKernels_ROOT="$KOKKOS" "${EXTRA[@]}" "$@" >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS"
