#!/usr/bin/env bash
# Installs everything ttgnn needs on Debian 12 (bookworm). Idempotent; run as root.
#
#   install-deps.sh [--cuda [ARCH]] [--sources DIR] [--print-prefix]
#
#  1. Debian packages: METIS, Spectra + Eigen, Boost.Graph, doctest, OpenBLAS, zlib, libzip,
#     OpenMPI (multi-process training) and ccache.
#  2. Kokkos 4.x and KokkosKernels 4.x (OpenMP + Serial; with --cuda also CUDA through nvcc),
#     built from their source archives into a cache prefix outside the repository. A complete
#     prefix is reused; an incomplete one is rebuilt. KokkosKernels is built without ETI and
#     calls OpenBLAS (and cuBLAS/cuSPARSE with --cuda).
#
# Source archives, first match wins:
#   a. the folder named by --sources DIR (or TTGNN_DEPS_SOURCES): kokkos-*.tar.gz and
#      kokkos-kernels-*.tar.gz, checked against a SHA256SUMS file beside them when present;
#   b. ../shared/deps beside the repository, when it exists (checked against its SHA256SUMS);
#   c. the official release archives of Kokkos and KokkosKernels 4.7.01 from GitHub, checked
#      against the SHA-256 sums below (needs internet).
# Patches a given Kokkos needs for a given CUDA live in scripts/patches/ (see its README.md).
#
# --cuda [ARCH]: compute capability as digits (90 = Hopper, 80 = Ampere A100, 89 = Ada, 100 /
#   120 = Blackwell; default: the first GPU nvidia-smi reports, else 90). nvcc is found through
#   CUDA_HOME, else /usr/local/cuda. The CUDA prefix is separate from the CPU one.
#
# Prints the Kokkos prefix on its last line ("TTGNN_KOKKOS_ROOT=<prefix>");
# `--print-prefix` prints only the prefix and installs nothing.
#
# Environment:
#   TTGNN_DEPS_CACHE   cache folder (default /var/cache/ttgnn-deps)
#   TTGNN_DEPS_SOURCES folder with the source archives (as --sources)
#   TTGNN_SKIP_KOKKOS  =1: only install Debian packages (bring your own Kokkos)
#   TTGNN_JOBS         parallel build jobs (default: nproc)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${TTGNN_DEPS_CACHE:-/var/cache/ttgnn-deps}
JOBS=${TTGNN_JOBS:-$(nproc)}
SOURCES=${TTGNN_DEPS_SOURCES:-}
SHARED_DEPS=$(cd "$HERE/../.." && pwd)/shared/deps
RELEASE=4.7.01
KOKKOS_URL=https://github.com/kokkos/kokkos/releases/download/$RELEASE/kokkos-$RELEASE.tar.gz
KOKKOS_SHA=404cf33e76159e83b8b4ad5d86f6899d442b5da4624820ab457412116cdcd201
KK_URL=https://github.com/kokkos/kokkos-kernels/releases/download/$RELEASE/kokkos-kernels-$RELEASE.tar.gz
KK_SHA=f3e1452db0e182c8e32c61632465e3a829159b9ae0645d9e4cd97b4fa09c36e1
# Bumped whenever the build options below change, so that a stale prefix is never reused.
OPTIONS_VERSION=v1
log() { printf '[install-deps] %s\n' "$*" >&2; }
die() { printf 'install-deps.sh: %s\n' "$*" >&2; exit 1; }

CUDA=0 ARCH= PRINT=0
ARGS=("$@")
while [ $# -gt 0 ]; do
  case $1 in
    --cuda) CUDA=1; if [[ ${2:-} =~ ^[0-9]+$ ]]; then ARCH=$2; shift; fi ;;
    --sources) [ $# -ge 2 ] || die "--sources needs a folder"; SOURCES=$2; shift ;;
    --print-prefix) PRINT=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
  shift
done

# ---------------------------------------------------------------- CUDA architecture
CUDA_ROOT=${CUDA_HOME:-/usr/local/cuda}
if [ $CUDA = 1 ]; then
  if [ -z "$ARCH" ]; then
    ARCH=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d '. ' || true)
    [[ $ARCH =~ ^[0-9]+$ ]] || ARCH=90
  fi
  case $ARCH in
    75) KOKKOS_ARCH=TURING75 ;; 80) KOKKOS_ARCH=AMPERE80 ;; 86) KOKKOS_ARCH=AMPERE86 ;;
    87) KOKKOS_ARCH=AMPERE87 ;; 89) KOKKOS_ARCH=ADA89 ;; 90) KOKKOS_ARCH=HOPPER90 ;;
    100) KOKKOS_ARCH=BLACKWELL100 ;; 120) KOKKOS_ARCH=BLACKWELL120 ;;
    *) die "unsupported CUDA architecture '$ARCH' (75, 80, 86, 87, 89, 90, 100 or 120)" ;;
  esac
fi

# ---------------------------------------------------------------- which archives
# Sets KOKKOS_TGZ / KK_TGZ (paths, or empty when they must be downloaded) and their names.
pick_from() { # pick_from DIR: true when DIR holds both archives
  local dir=$1 k kk
  [ -d "$dir" ] || return 1
  kk=$(ls "$dir"/kokkos-kernels-*.tar.gz 2>/dev/null | sort -V | tail -n1 || true)
  k=$(ls "$dir"/kokkos-*.tar.gz 2>/dev/null | grep -v '/kokkos-kernels-' | sort -V | tail -n1 || true)
  [ -n "$k" ] && [ -n "$kk" ] || return 1
  KOKKOS_TGZ=$k KK_TGZ=$kk
}
KOKKOS_TGZ= KK_TGZ=
if [ -n "$SOURCES" ]; then
  pick_from "$SOURCES" || die "no kokkos-*.tar.gz and kokkos-kernels-*.tar.gz in '$SOURCES'"
  log "source archives from $SOURCES"
elif pick_from "$SHARED_DEPS"; then
  log "source archives from $SHARED_DEPS"
fi
if [ -n "$KOKKOS_TGZ" ]; then
  KOKKOS_NAME=$(basename "$KOKKOS_TGZ" .tar.gz) KK_NAME=$(basename "$KK_TGZ" .tar.gz)
else
  KOKKOS_NAME=kokkos-$RELEASE KK_NAME=kokkos-kernels-$RELEASE
fi
BACKENDS=openmp-serial
[ $CUDA = 1 ] && BACKENDS=cuda$ARCH-openmp-serial
PATCH_KEY=$(cat "$HERE"/patches/*.patch 2>/dev/null | sha256sum | cut -c1-8)
PREFIX="$CACHE/$KOKKOS_NAME-$KK_NAME-$BACKENDS-eti-off-$OPTIONS_VERSION-$PATCH_KEY"

if [ $PRINT = 1 ]; then
  echo "$PREFIX"
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null; then
    exec sudo --preserve-env=TTGNN_DEPS_CACHE,TTGNN_DEPS_SOURCES,TTGNN_SKIP_KOKKOS,TTGNN_JOBS,CUDA_HOME \
      bash "$0" "${ARGS[@]}"
  fi
  die "run as root (it calls apt-get)"
fi

# ---------------------------------------------------------------- Debian packages
PACKAGES=(build-essential cmake pkg-config ca-certificates curl patch dpkg-dev
  libmetis-dev libspectra-dev libeigen3-dev libboost-graph-dev doctest-dev
  libopenblas-dev libopenblas0-openmp libblas-dev liblapack-dev
  zlib1g-dev libzip-dev clang-format python3 python3-numpy ccache libopenmpi-dev openmpi-bin)
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
# Debian picks the BLAS at run time through alternatives: point every BLAS/LAPACK runtime
# alternative at OpenBLAS' OpenMP flavour, so that BLAS threads are Kokkos' OpenMP threads.
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
if [ $CUDA = 1 ]; then
  [ -x "$CUDA_ROOT/bin/nvcc" ] || die "--cuda: no nvcc at $CUDA_ROOT/bin/nvcc (set CUDA_HOME)"
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/ttgnn-deps.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
verify() { # verify FILE SHA256
  echo "$2  $1" | sha256sum --check --status || die "checksum mismatch for $1 (expected $2)"
}
verify_listed() { # verify FILE against SHA256SUMS beside it, when there is one
  local sums
  sums=$(dirname "$1")/SHA256SUMS
  [ -f "$sums" ] || { log "no SHA256SUMS beside $1: not checked"; return 0; }
  local want
  want=$(awk -v f="$(basename "$1")" '$2 == f || $2 == "*"f {print $1}' "$sums")
  [ -n "$want" ] || die "$(basename "$1") is not listed in $sums"
  verify "$1" "$want"
}
if [ -z "$KOKKOS_TGZ" ]; then
  log "downloading Kokkos and KokkosKernels $RELEASE"
  KOKKOS_TGZ=$WORK/$KOKKOS_NAME.tar.gz KK_TGZ=$WORK/$KK_NAME.tar.gz
  curl -fsSL --retry 3 -o "$KOKKOS_TGZ" "$KOKKOS_URL" || die "cannot download $KOKKOS_URL"
  curl -fsSL --retry 3 -o "$KK_TGZ" "$KK_URL" || die "cannot download $KK_URL"
  verify "$KOKKOS_TGZ" "$KOKKOS_SHA"
  verify "$KK_TGZ" "$KK_SHA"
else
  verify_listed "$KOKKOS_TGZ"
  verify_listed "$KK_TGZ"
fi
mkdir -p "$WORK/kokkos" "$WORK/kk"
tar -xzf "$KOKKOS_TGZ" -C "$WORK/kokkos" --strip-components=1
tar -xzf "$KK_TGZ" -C "$WORK/kk" --strip-components=1
version_of() { # version_of CMakeLists.txt PREFIX -> MAJOR*10000 + MINOR*100 + PATCH
  local f=$1 p=$2 maj min pat
  maj=$(sed -n "s/^set(${p}_VERSION_MAJOR \([0-9]*\))/\1/p" "$f")
  min=$(sed -n "s/^set(${p}_VERSION_MINOR \([0-9]*\))/\1/p" "$f")
  pat=$(sed -n "s/^set(${p}_VERSION_PATCH \([0-9]*\))/\1/p" "$f")
  [ -n "$maj" ] && [ -n "$min" ] && [ -n "$pat" ] || die "cannot read the version from $f"
  echo $((10#$maj * 10000 + 10#$min * 100 + 10#$pat))
}
KV=$(version_of "$WORK/kokkos/CMakeLists.txt" Kokkos)
[ "$KV" -ge 40000 ] || die "ttgnn needs Kokkos 4.x or newer; $KOKKOS_NAME is $KV"
# Kokkos before 4.7.1 calls two CUDA runtime functions whose signatures CUDA 13 changed
# (patches/README.md); the patch is guarded by CUDART_VERSION, so older CUDA builds unchanged.
if [ "$KV" -lt 40701 ]; then
  log "applying patches/kokkos-4.6-cuda13-runtime-api.patch to Kokkos $KV"
  patch -s -p1 -d "$WORK/kokkos" <"$HERE/patches/kokkos-4.6-cuda13-runtime-api.patch" \
    || die "patch does not apply to $KOKKOS_NAME"
fi

if [ $CUDA = 1 ]; then
  # nvcc_wrapper compiles for a default architecture when none is given (sm_70 up to 4.7.0,
  # which CUDA 13 no longer supports, so even CMake's compiler check fails): make it ours.
  sed -i "s/^default_arch=.*/default_arch=\"sm_$ARCH\"/" "$WORK/kokkos/bin/nvcc_wrapper"
fi

COMMON=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$PREFIX" -DBUILD_SHARED_LIBS=ON
  -DCMAKE_INSTALL_RPATH='$ORIGIN' -DCMAKE_INSTALL_RPATH_USE_LINK_PATH=ON -DCMAKE_CXX_STANDARD=17)
KOKKOS_OPTS=(-DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_TESTS=OFF
  -DKokkos_ENABLE_IMPL_VIEW_LEGACY=ON)
KK_OPTS=()
if [ $CUDA = 1 ]; then
  export CUDA_HOME=$CUDA_ROOT PATH=$CUDA_ROOT/bin:$PATH
  KOKKOS_OPTS+=(-DKokkos_ENABLE_CUDA=ON "-DKokkos_ARCH_$KOKKOS_ARCH=ON"
    -DCMAKE_CXX_COMPILER="$WORK/kokkos/bin/nvcc_wrapper")
  KK_OPTS+=(-DCMAKE_CXX_COMPILER="$PREFIX/bin/nvcc_wrapper"
    -DKokkosKernels_ENABLE_TPL_CUBLAS=ON -DKokkosKernels_ENABLE_TPL_CUSPARSE=ON
    -DKokkosKernels_ENABLE_TPL_CUSOLVER=OFF
    -DKokkosKernels_INST_EXECSPACE_CUDA=OFF -DKokkosKernels_INST_MEMSPACE_CUDASPACE=OFF
    -DKokkosKernels_INST_MEMSPACE_CUDAUVMSPACE=OFF)
fi
log "building $KOKKOS_NAME ($BACKENDS) into $PREFIX"
rm -rf "$PREFIX"
run_logged() { # run_logged LOG CMD...: keeps the log, prints its tail on failure
  local logf=$1; shift
  "$@" >>"$logf" 2>&1 || { tail -n 40 "$logf" >&2; die "failed: $* (log: $logf)"; }
}
run_logged "$WORK/kokkos.log" cmake -S "$WORK/kokkos" -B "$WORK/build-kokkos" "${COMMON[@]}" "${KOKKOS_OPTS[@]}"
run_logged "$WORK/kokkos.log" cmake --build "$WORK/build-kokkos" -j "$JOBS"
run_logged "$WORK/kokkos.log" cmake --install "$WORK/build-kokkos"

log "building $KK_NAME"
run_logged "$WORK/kk.log" cmake -S "$WORK/kk" -B "$WORK/build-kk" "${COMMON[@]}" -DKokkos_ROOT="$PREFIX" \
  -DKokkosKernels_INST_DOUBLE=OFF -DKokkosKernels_INST_FLOAT=OFF \
  -DKokkosKernels_INST_LAYOUTLEFT=OFF -DKokkosKernels_INST_LAYOUTRIGHT=OFF \
  -DKokkosKernels_INST_OFFSET_SIZE_T=OFF -DKokkosKernels_INST_OFFSET_INT=OFF \
  -DKokkosKernels_INST_ORDINAL_INT=OFF -DKokkosKernels_INST_ORDINAL_INT64_T=OFF \
  -DKokkosKernels_INST_EXECSPACE_OPENMP=OFF -DKokkosKernels_INST_EXECSPACE_SERIAL=OFF \
  -DKokkosKernels_INST_MEMSPACE_HOSTSPACE=OFF \
  -DKokkosKernels_ENABLE_TPL_BLAS=ON -DBLAS_LIBRARY_NAMES=blas -DKokkosKernels_ENABLE_TESTS=OFF \
  "${KK_OPTS[@]}"
run_logged "$WORK/kk.log" cmake --build "$WORK/build-kk" -j "$JOBS"
run_logged "$WORK/kk.log" cmake --install "$WORK/build-kk"

touch "$PREFIX/.complete"
log "done: $PREFIX"
echo "TTGNN_KOKKOS_ROOT=$PREFIX"
