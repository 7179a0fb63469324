#!/usr/bin/env bash
# Installs everything ttgnn needs on Debian 12 (bookworm). Idempotent; run as root.
#
#  1. Debian packages: METIS, Spectra + Eigen, Boost.Graph, doctest, OpenBLAS, zlib, libzip.
#  2. Kokkos 3.4.1 (OpenMP + Serial) and KokkosKernels 3.4.1 (ETI off, BLAS = OpenBLAS),
#     built from Debian's `trilinos` 13.2 source package into a cache prefix outside the
#     repository.  A complete prefix is reused; an incomplete one is rebuilt.
#
# Prints the Kokkos prefix on its last line ("TTGNN_KOKKOS_ROOT=<prefix>");
# `install-deps.sh --print-prefix` prints only the prefix and installs nothing.
#
# Environment:
#   TTGNN_DEPS_CACHE   cache folder (default /var/cache/ttgnn-deps)
#   TTGNN_SKIP_KOKKOS  =1: only install Debian packages (bring your own Kokkos)
#   TTGNN_JOBS         parallel build jobs (default: nproc)
set -euo pipefail

KOKKOS_VERSION=3.4.1
TRILINOS_VERSION=13.2.0-4
CACHE=${TTGNN_DEPS_CACHE:-/var/cache/ttgnn-deps}
JOBS=${TTGNN_JOBS:-$(nproc)}
# The key changes whenever the build options below change, so a stale prefix is never reused.
OPTIONS_KEY="kokkos-${KOKKOS_VERSION}-openmp-serial-kk-eti-off-openblas-v1"
PREFIX="$CACHE/$OPTIONS_KEY"
log() { printf '[install-deps] %s\n' "$*" >&2; }

if [ "${1:-}" = --print-prefix ]; then
  echo "$PREFIX"
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null; then
    exec sudo --preserve-env=TTGNN_DEPS_CACHE,TTGNN_SKIP_KOKKOS,TTGNN_JOBS bash "$0" "$@"
  fi
  echo "install-deps.sh: run as root (it calls apt-get)" >&2
  exit 1
fi

# ---------------------------------------------------------------- Debian packages
PACKAGES=(build-essential cmake pkg-config ca-certificates dpkg-dev
  libmetis-dev libspectra-dev libeigen3-dev libboost-graph-dev doctest-dev
  libopenblas-dev libopenblas0-openmp libblas-dev liblapack-dev
  zlib1g-dev libzip-dev clang-format python3 python3-numpy)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# Debian picks the BLAS at run time through alternatives (pitfall 8): point every BLAS/LAPACK
# runtime alternative at OpenBLAS' OpenMP flavour, so BLAS threads are Kokkos' OpenMP threads.
for alt in libblas.so.3-x86_64-linux-gnu liblapack.so.3-x86_64-linux-gnu libopenblas.so.0-x86_64-linux-gnu; do
  target=$(update-alternatives --list "$alt" 2>/dev/null | grep openblas-openmp | head -n1 || true)
  if [ -n "$target" ]; then update-alternatives --set "$alt" "$target" >/dev/null; fi
done

if [ "${TTGNN_SKIP_KOKKOS:-0}" = 1 ]; then
  log "TTGNN_SKIP_KOKKOS=1: not building Kokkos"
  exit 0
fi

# ---------------------------------------------------------------- Kokkos from source
if [ -f "$PREFIX/.complete" ] && [ -f "$PREFIX/lib/cmake/Kokkos/KokkosConfig.cmake" ] \
   && [ -f "$PREFIX/lib/cmake/KokkosKernels/KokkosKernelsConfig.cmake" ]; then
  log "reusing $PREFIX"
  echo "TTGNN_KOKKOS_ROOT=$PREFIX"
  exit 0
fi

log "building Kokkos $KOKKOS_VERSION into $PREFIX (about 2 minutes)"
rm -rf "$PREFIX"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ttgnn-deps.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/apt/lists/partial" "$WORK/src"
chown -R _apt "$WORK/apt" "$WORK/src" 2>/dev/null || chmod -R a+rwx "$WORK/apt" "$WORK/src"
chmod a+rx "$WORK"

# A private sources list with a deb-src line; /etc/apt stays untouched.
MIRROR=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[ -n "$MIRROR" ] || MIRROR=$(awk '/^deb / {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
[ -n "$MIRROR" ] || MIRROR=http://deb.debian.org/debian
echo "deb-src $MIRROR bookworm main" > "$WORK/apt/sources.list"
APT_OPTS=(-o "Dir::Etc::sourcelist=$WORK/apt/sources.list" -o Dir::Etc::sourceparts=/nonexistent
  -o "Dir::State::Lists=$WORK/apt/lists" -o "Dir::Cache::pkgcache=$WORK/apt/pkgcache.bin"
  -o "Dir::Cache::srcpkgcache=$WORK/apt/srcpkgcache.bin")
apt-get "${APT_OPTS[@]}" update -qq
(cd "$WORK/src" && apt-get "${APT_OPTS[@]}" source --download-only -qq "trilinos=$TRILINOS_VERSION")
ORIG=$(ls "$WORK"/src/trilinos_*.orig.tar.* | head -n1)
TOP=Trilinos-trilinos-release-13-2-0
tar -xf "$ORIG" -C "$WORK/src" "$TOP/packages/kokkos" "$TOP/packages/kokkos-kernels"
SRC="$WORK/src/$TOP/packages"

COMMON=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$PREFIX" -DBUILD_SHARED_LIBS=ON
  -DCMAKE_INSTALL_RPATH='$ORIGIN' -DCMAKE_INSTALL_RPATH_USE_LINK_PATH=ON -DCMAKE_CXX_STANDARD=17)
cmake -S "$SRC/kokkos" -B "$WORK/build-kokkos" "${COMMON[@]}" \
  -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_TESTS=OFF >"$WORK/kokkos.log" 2>&1 \
  || { tail -n 40 "$WORK/kokkos.log"; exit 1; }
cmake --build "$WORK/build-kokkos" -j "$JOBS" >>"$WORK/kokkos.log" 2>&1 || { tail -n 40 "$WORK/kokkos.log"; exit 1; }
cmake --install "$WORK/build-kokkos" >>"$WORK/kokkos.log" 2>&1

cmake -S "$SRC/kokkos-kernels" -B "$WORK/build-kk" "${COMMON[@]}" -DKokkos_ROOT="$PREFIX" \
  -DKokkosKernels_INST_DOUBLE=OFF -DKokkosKernels_INST_FLOAT=OFF \
  -DKokkosKernels_INST_LAYOUTLEFT=OFF -DKokkosKernels_INST_LAYOUTRIGHT=OFF \
  -DKokkosKernels_INST_OFFSET_SIZE_T=OFF -DKokkosKernels_INST_OFFSET_INT=OFF \
  -DKokkosKernels_INST_ORDINAL_INT=OFF -DKokkosKernels_INST_ORDINAL_INT64_T=OFF \
  -DKokkosKernels_INST_EXECSPACE_OPENMP=OFF -DKokkosKernels_INST_EXECSPACE_SERIAL=OFF \
  -DKokkosKernels_INST_MEMSPACE_HOSTSPACE=OFF \
  -DKokkosKernels_ENABLE_TPL_BLAS=ON -DBLAS_LIBRARY_NAMES=blas -DKokkosKernels_ENABLE_TESTS=OFF \
  >"$WORK/kk.log" 2>&1 || { tail -n 40 "$WORK/kk.log"; exit 1; }
cmake --build "$WORK/build-kk" -j "$JOBS" >>"$WORK/kk.log" 2>&1 || { tail -n 40 "$WORK/kk.log"; exit 1; }
cmake --install "$WORK/build-kk" >>"$WORK/kk.log" 2>&1

touch "$PREFIX/.complete"
log "done: $PREFIX"
echo "TTGNN_KOKKOS_ROOT=$PREFIX"
