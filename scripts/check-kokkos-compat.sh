#!/usr/bin/env bash
# Compiles (syntax only) every ttgnn source against other Kokkos headers than the 4.x we
# build with, to keep the code portable to the Kokkos 4.x/5.x that GPU users bring:
#   - Kokkos 4.5.1 + KokkosKernels 4.5.1 (Debian sid's trilinos 16.1 .debs), C++17
#   - Kokkos 5.2.2 (Debian sid's libkokkos-dev), C++20, sources without KokkosKernels
# Only headers are used (dpkg -x into a cache folder; nothing is installed). Needs a prior
# `scripts/build.sh` (for build/generated/ttgnn_config.hpp) and access to Debian's archive.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE=${TTGNN_DEPS_CACHE:-/var/cache/ttgnn-deps}/kokkos-sid-headers
JOBS=${TTGNN_JOBS:-$(nproc)}
if [ ! -f "$CACHE/.complete" ]; then
  rm -rf "$CACHE"
  mkdir -p "$CACHE/apt/lists/partial" "$CACHE/debs" "$CACHE/k4" "$CACHE/k5"
  chmod -R a+rwx "$CACHE"
  MIRROR=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  echo "deb ${MIRROR:-http://deb.debian.org/debian} sid main" >"$CACHE/apt/sources.list"
  O=(-o "Dir::Etc::sourcelist=$CACHE/apt/sources.list" -o Dir::Etc::sourceparts=/nonexistent
    -o "Dir::State::Lists=$CACHE/apt/lists" -o "Dir::Cache::pkgcache=$CACHE/apt/pkg.bin"
    -o "Dir::Cache::srcpkgcache=$CACHE/apt/src.bin" -o Dir::State::status=/dev/null)
  apt-get "${O[@]}" update -qq
  (cd "$CACHE/debs" && apt-get "${O[@]}" download -qq libkokkos-dev libtrilinos-kokkos-dev \
    libtrilinos-kokkos-kernels-dev)
  dpkg -x "$CACHE"/debs/libkokkos-dev_*.deb "$CACHE/k5"
  dpkg -x "$CACHE"/debs/libtrilinos-kokkos-dev_*.deb "$CACHE/k4"
  dpkg -x "$CACHE"/debs/libtrilinos-kokkos-kernels-dev_*.deb "$CACHE/k4"
  touch "$CACHE/.complete"
fi
[ -f build/generated/ttgnn_config.hpp ] || { echo "run scripts/build.sh first" >&2; exit 1; }
COMMON=(-fsyntax-only -fopenmp -I. -Ibuild/generated -Itests -I/usr/include/eigen3
  -DTTGNN_SOURCE_DIR=\"\" -DTTGNN_BINARY_DIR=\"\")
export COMMON_FLAGS="${COMMON[*]}" CACHE
check() { # check FILE
  local f=$1 out rc=0
  out=$(g++ -std=c++17 $COMMON_FLAGS -I"$CACHE/k4/usr/include/kokkos" -I"$CACHE/k4/usr/include/trilinos" "$f" 2>&1) || rc=1
  [ $rc = 0 ] || { echo "FAIL (Kokkos 4.5.1) $f"; echo "$out" | grep -m5 error; return 1; }
  if ! grep -q "Kokkos\(Blas\|Sparse\|Kernels\)" "$f"; then
    out=$(g++ -std=c++20 $COMMON_FLAGS -I"$CACHE/k5/usr/include/kokkos" "$f" 2>&1) || rc=1
    [ $rc = 0 ] || { echo "FAIL (Kokkos 5.2.2) $f"; echo "$out" | grep -m5 error; return 1; }
  fi
  echo "ok $f"
}
export -f check
files=$(git ls-files 'core/*.cpp' 'graph/*.cpp' 'models/*.cpp' 'apps/*.cpp' 'tests/*.cpp' 'bench/*.cpp' | grep -v '^tests/install/')
n=$(wc -w <<<"$files")
failed=$(printf '%s\n' $files | xargs -P "$JOBS" -I{} bash -c 'check {}' | tee /dev/stderr | grep -c '^FAIL' || true)
echo "$((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
