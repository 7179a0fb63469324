#!/usr/bin/env bash
# Configures and builds ttgnn (binary: build/bin/ttgnn).
#
#   scripts/build.sh [--cuda [ARCH]] [--app | --target NAME ...] [extra cmake arguments]
#
# Builds everything the configuration enables (the library, the `ttgnn` program, the test suite
# and the header checks; ctest needs all of it) unless targets are named: `--app` builds only
# the library and the program (the target `ttgnn_app`: what `build/bin/ttgnn` needs, about 30%
# of the compile time), `--target NAME` (repeatable) any CMake target. Both only select what
# `cmake --build` builds; the configuration is the same, so a later plain run builds the rest.
#
# Uses the Kokkos that scripts/install-deps.sh built (with --cuda: the CUDA one, compiled
# through its nvcc_wrapper, into build-cuda/), unless Kokkos_ROOT is set in the environment
# (your own Kokkos). BUILD_DIR overrides the build folder, TTGNN_JOBS the parallel jobs.
# When ccache is installed (scripts/install-deps.sh installs it) compiles go through it, with
# paths taken relative to this folder so that clones elsewhere share the cache (a clean-clone
# CI run recompiles only what changed); TTGNN_CCACHE=0 turns it off.
#
# TTGNN_PREFIX=P: use the dependencies `install-deps.sh --from-bundle DIR --prefix P` unpacked
# and built into P (no root, no system packages): Kokkos from P/kokkos/, the libraries from P/usr
# (CMAKE_PREFIX_PATH, pkg-config path, and an rpath into P, so that the binaries run without
# LD_LIBRARY_PATH); pkg-config from P when the machine has none.
set -euo pipefail
cd "$(dirname "$0")/.."
CUDA_ARGS=()
TARGETS=()
while [ $# -gt 0 ]; do
  case $1 in
    --cuda)
      CUDA_ARGS=(--cuda)
      shift
      if [[ ${1:-} =~ ^[0-9]+$ ]]; then CUDA_ARGS+=("$1"); shift; fi ;;
    --app) TARGETS+=(ttgnn_app); shift ;;
    --target)
      [ -n "${2:-}" ] || { echo "build.sh: --target needs a CMake target name" >&2; exit 1; }
      TARGETS+=("$2"); shift 2 ;;
    *) break ;; # the rest goes to cmake
  esac
done
JOBS=${TTGNN_JOBS:-$(nproc)}
PREFIX_ARGS=()
PREFIX_OPT=()
if [ -n "${TTGNN_PREFIX:-}" ]; then
  P=$(cd "$TTGNN_PREFIX" && pwd) || { echo "build.sh: no TTGNN_PREFIX folder '$TTGNN_PREFIX'" >&2; exit 1; }
  [ -f "$P/ttgnn-deps.env" ] \
    || { echo "build.sh: $P has no ttgnn-deps.env: run scripts/install-deps.sh --from-bundle DIR --prefix $P" >&2; exit 1; }
  PREFIX_OPT=(--prefix "$P")
  MA=$(sed -n 's/^TTGNN_DEPS_MULTIARCH=//p' "$P/ttgnn-deps.env")
  LIBDIR=$P/usr/lib/$MA
  # DT_RPATH rather than RUNPATH: it also serves the libraries' own dependencies (OpenBLAS'
  # libgfortran), which RUNPATH would leave to LD_LIBRARY_PATH.
  PREFIX_ARGS=(-DCMAKE_PREFIX_PATH="$P/usr" -DCMAKE_LIBRARY_PATH="$LIBDIR"
    -DCMAKE_INCLUDE_PATH="$P/usr/include" -DCMAKE_BUILD_RPATH="$LIBDIR"
    "-DCMAKE_EXE_LINKER_FLAGS=-Wl,--disable-new-dtags" "-DCMAKE_SHARED_LINKER_FLAGS=-Wl,--disable-new-dtags")
  export PKG_CONFIG_PATH=$LIBDIR/pkgconfig:$P/usr/share/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
  # the machine's pkg-config, else the bundle's (a wrapper that finds its own library)
  PKGCONF=$(command -v pkg-config || echo "$P/bin/pkg-config")
  PREFIX_ARGS+=(-DPKG_CONFIG_EXECUTABLE="$PKGCONF")
fi
KOKKOS=${Kokkos_ROOT:-$(bash scripts/install-deps.sh "${PREFIX_OPT[@]}" "${CUDA_ARGS[@]}" --print-prefix)}
[ -f "$KOKKOS/lib/cmake/Kokkos/KokkosConfig.cmake" ] \
  || { echo "build.sh: no Kokkos at $KOKKOS: run scripts/install-deps.sh ${PREFIX_OPT[*]:+--from-bundle DIR }${PREFIX_OPT[*]} ${CUDA_ARGS[*]}" >&2; exit 1; }
EXTRA=()
if [ ${#CUDA_ARGS[@]} -gt 0 ]; then
  BUILD_DIR=${BUILD_DIR:-build-cuda}
  export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
  # nvcc_wrapper calls nvcc through PATH
  command -v nvcc >/dev/null || export PATH=$CUDA_HOME/bin:$PATH
  EXTRA=(-DCMAKE_CXX_COMPILER="$KOKKOS/bin/nvcc_wrapper")
fi
BUILD_DIR=${BUILD_DIR:-build}
if [ "${TTGNN_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null; then
  export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=true CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-include_file_mtime,include_file_ctime}
  EXTRA+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$BUILD_DIR" -DKokkos_ROOT="$KOKKOS" -DKokkosKernels_ROOT="$KOKKOS" "${PREFIX_ARGS[@]}" "${EXTRA[@]}" "$@" >/dev/null
BUILD_ARGS=()
[ ${#TARGETS[@]} -eq 0 ] || BUILD_ARGS=(--target "${TARGETS[@]}")
cmake --build "$BUILD_DIR" -j "$JOBS" "${BUILD_ARGS[@]}"
