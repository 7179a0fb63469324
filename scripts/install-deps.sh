#!/usr/bin/env bash
# Installs everything ttgnn needs on Debian 12 (bookworm). Idempotent; run as root.
#
#   install-deps.sh [--cuda [ARCH]] [--sources DIR] [--print-prefix]
#   install-deps.sh --bundle DIR [--sources DIR]
#   install-deps.sh --from-bundle DIR --prefix P [--cuda [ARCH]]
#   install-deps.sh --prefix P [--cuda [ARCH]] --print-prefix
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
# Offline installs (no root, no apt, no network where the bundle is installed):
#   --bundle DIR       on a Debian 12 machine with apt's package lists: writes DIR/debs (the
#                      .deb files of the libraries above, with every dependency a minimal
#                      Debian 12 with g++, cmake, ninja, make and python3 lacks; no MPI, no
#                      compilers), DIR/sources (the Kokkos and KokkosKernels archives and their
#                      SHA256SUMS), DIR/patches, DIR/MANIFEST (package, version, file, bytes,
#                      sha256) and DIR/SHA256SUMS over all of it. Needs no root.
#                      TTGNN_BUNDLE_EXTRA adds packages (e.g. "ccache").
#   --from-bundle DIR  checks DIR/SHA256SUMS, unpacks every .deb into --prefix P (dpkg -x;
#                      absolute symlinks, BLAS alternatives and pkg-config files fixed up to
#                      point into P) and builds Kokkos + KokkosKernels (with --cuda: CUDA) into
#                      P/kokkos/. scripts/build.sh then finds everything under P when
#                      TTGNN_PREFIX=P is set (docs/GPU.md).
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

CUDA=0 ARCH= PRINT=0 BUNDLE_OUT= BUNDLE_IN= DEPS_PREFIX=
ARGS=("$@")
while [ $# -gt 0 ]; do
  case $1 in
    --cuda) CUDA=1; if [[ ${2:-} =~ ^[0-9]+$ ]]; then ARCH=$2; shift; fi ;;
    --sources) [ $# -ge 2 ] || die "--sources needs a folder"; SOURCES=$2; shift ;;
    --print-prefix) PRINT=1 ;;
    --bundle) [ $# -ge 2 ] || die "--bundle needs a folder"; BUNDLE_OUT=$2; shift ;;
    --from-bundle) [ $# -ge 2 ] || die "--from-bundle needs a folder"; BUNDLE_IN=$2; shift ;;
    --prefix) [ $# -ge 2 ] || die "--prefix needs a folder"; DEPS_PREFIX=$2; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
  shift
done
if [ -n "$BUNDLE_IN" ] || { [ -n "$DEPS_PREFIX" ] && [ $PRINT = 1 ]; }; then
  [ -n "$DEPS_PREFIX" ] || die "--from-bundle needs --prefix P"
  [ -z "$BUNDLE_OUT" ] || die "--bundle and --from-bundle exclude each other"
  [ $PRINT = 1 ] || mkdir -p "$DEPS_PREFIX" || die "cannot create $DEPS_PREFIX"
  DEPS_PREFIX=$(cd "$DEPS_PREFIX" 2>/dev/null && pwd || echo "$DEPS_PREFIX")
  [ -z "$BUNDLE_IN" ] || BUNDLE_IN=$(cd "$BUNDLE_IN" && pwd) || die "no bundle folder '$BUNDLE_IN'"
elif [ -n "$DEPS_PREFIX" ]; then
  die "--prefix goes with --from-bundle (or --print-prefix)"
fi

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
PATCHES=$HERE/patches
MULTIARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch 2>/dev/null || true)
MULTIARCH=${MULTIARCH:-x86_64-linux-gnu}
if [ -n "$BUNDLE_IN" ]; then
  # Everything from the bundle, checked against its SHA256SUMS before anything is used.
  [ -f "$BUNDLE_IN/SHA256SUMS" ] && [ -f "$BUNDLE_IN/MANIFEST" ] || die "$BUNDLE_IN is not a bundle (no SHA256SUMS / MANIFEST; make one with --bundle)"
  if [ $PRINT = 0 ]; then
    (cd "$BUNDLE_IN" && sha256sum --check --quiet --strict SHA256SUMS) >&2 \
      || die "the bundle in $BUNDLE_IN does not match its SHA256SUMS"
    log "bundle $BUNDLE_IN: $(ls "$BUNDLE_IN"/debs | wc -l) .deb files, checksums ok"
  fi
  pick_from "$BUNDLE_IN/sources" || die "no Kokkos archives in $BUNDLE_IN/sources"
  PATCHES=$BUNDLE_IN/patches
elif [ -n "$DEPS_PREFIX" ]; then # --prefix P --print-prefix: the names the install recorded
  [ -f "$DEPS_PREFIX/ttgnn-deps.env" ] || die "no $DEPS_PREFIX/ttgnn-deps.env: run install-deps.sh --from-bundle DIR --prefix $DEPS_PREFIX"
elif [ -n "$SOURCES" ]; then
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
PATCH_KEY=$(cat "$PATCHES"/*.patch 2>/dev/null | sha256sum | cut -c1-8)
if [ -n "$DEPS_PREFIX" ] && [ -z "$BUNDLE_IN" ]; then
  # shellcheck disable=SC1091
  . "$DEPS_PREFIX/ttgnn-deps.env"
  KOKKOS_NAME=$TTGNN_DEPS_KOKKOS_NAME KK_NAME=$TTGNN_DEPS_KK_NAME PATCH_KEY=$TTGNN_DEPS_PATCH_KEY
fi
BACKENDS=openmp-serial
[ $CUDA = 1 ] && BACKENDS=cuda$ARCH-mallocasync-openmp-serial
KEY="$KOKKOS_NAME-$KK_NAME-$BACKENDS-eti-off-$OPTIONS_VERSION-$PATCH_KEY"
PREFIX="$CACHE/$KEY"
[ -z "$DEPS_PREFIX" ] || PREFIX="$DEPS_PREFIX/kokkos/$KEY"

if [ $PRINT = 1 ]; then
  echo "$PREFIX"
  exit 0
fi

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
WORK=
new_work() { # a scratch folder, removed at exit
  [ -n "$WORK" ] && return 0
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/ttgnn-deps.XXXXXX")
  trap 'rm -rf "$WORK"' EXIT
}
get_archives() { # sets KOKKOS_TGZ / KK_TGZ to checked archives, downloading them when needed
  if [ -z "$KOKKOS_TGZ" ]; then
    new_work
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
}

# ---------------------------------------------------------------- --bundle DIR
# The libraries ttgnn and its tests need, as Debian package names. Boost is used through its
# headers only (Boost.Graph included), so the header package is enough.
BUNDLE_PACKAGES=(libmetis-dev libeigen3-dev libspectra-dev libboost1.74-dev doctest-dev
  libopenblas-openmp-dev libopenblas0-openmp zlib1g-dev libzip-dev pkgconf patch)
# What the target machine is assumed to have: a minimal Debian 12 (Priority: required, apt)
# with the compilers and tools. Their dependency closure is left out of the bundle.
BASE_PACKAGES=(apt g++ cmake ninja-build make python3 ca-certificates)
make_bundle() {
  local out=$1
  command -v apt-get >/dev/null || die "--bundle needs apt-get (a Debian 12 machine)"
  apt-cache show libmetis-dev >/dev/null 2>&1 || die "apt knows no libmetis-dev: run apt-get update first"
  new_work
  mkdir -p "$WORK/apt/archives/partial" "$out"
  out=$(cd "$out" && pwd)
  : >"$WORK/apt/status"
  # apt resolves the closures as if nothing were installed (an empty dpkg status) and as if
  # nothing were downloaded yet (an empty archive cache), so that every .deb is listed.
  local apt=(apt-get install --print-uris -qq -o Dir::State::status="$WORK/apt/status"
    -o Dir::Cache::archives="$WORK/apt/archives" -o APT::Install-Recommends=false
    -o APT::Install-Suggests=false)
  local extra=()
  read -r -a extra <<<"${TTGNN_BUNDLE_EXTRA:-}"
  "${apt[@]}" "${BUNDLE_PACKAGES[@]}" "${extra[@]}" >"$WORK/want.uris" \
    || die "apt cannot resolve ${BUNDLE_PACKAGES[*]} ${extra[*]}"
  apt-cache dumpavail | awk '/^Package:/ {p = $2} /^Priority: required/ {print p}' | sort -u >"$WORK/required"
  # shellcheck disable=SC2046
  "${apt[@]}" $(cat "$WORK/required") "${BASE_PACKAGES[@]}" >"$WORK/base.uris" \
    || die "apt cannot resolve the base system"
  awk '{print $2}' "$WORK/base.uris" | sort -u >"$WORK/base.files"
  awk 'NR == FNR {base[$1] = 1; next} !($2 in base) {print $2}' "$WORK/base.files" "$WORK/want.uris" \
    | sort -u >"$WORK/need.files"
  [ -s "$WORK/need.files" ] || die "nothing to bundle?"
  rm -rf "$out/debs" "$out/sources" "$out/patches"
  mkdir -p "$out/debs" "$out/sources" "$out/patches"
  # name=version for apt-get download, from the .deb file names (name_version_arch.deb, with
  # the epoch's colon written %3a).
  local specs=() f name ver
  while read -r f; do
    name=${f%%_*} ver=${f#*_} ver=${ver%_*}
    specs+=("$name=${ver//%3a/:}")
  done <"$WORK/need.files"
  log "downloading ${#specs[@]} packages"
  (cd "$out/debs" && apt-get download -qq "${specs[@]}") >&2 || die "apt-get download failed"
  get_archives
  cp "$KOKKOS_TGZ" "$KK_TGZ" "$out/sources/"
  (cd "$out/sources" && sha256sum -- *.tar.gz >SHA256SUMS)
  cp "$PATCHES"/* "$out/patches/" 2>/dev/null || true
  {
    echo "# ttgnn dependency bundle: made $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(. /etc/os-release && echo "$PRETTY_NAME") ($MULTIARCH)"
    echo "# package	version	file	bytes	sha256"
    local deb
    for deb in "$out"/debs/*.deb; do
      printf '%s\t%s\t%s\t%s\t%s\n' "$(dpkg-deb -f "$deb" Package)" "$(dpkg-deb -f "$deb" Version)" \
        "debs/$(basename "$deb")" "$(stat -c %s "$deb")" "$(sha256sum "$deb" | cut -d' ' -f1)"
    done
    for deb in "$out"/sources/*.tar.gz; do
      printf '%s\t%s\t%s\t%s\t%s\n' "$(basename "$deb" .tar.gz)" source "sources/$(basename "$deb")" \
        "$(stat -c %s "$deb")" "$(sha256sum "$deb" | cut -d' ' -f1)"
    done
  } >"$out/MANIFEST"
  (cd "$out" && find debs sources patches MANIFEST -type f -print0 | sort -z | xargs -0 sha256sum >SHA256SUMS)
  local bytes
  bytes=$(du -sb "$out" | cut -f1)
  log "bundle: $(ls "$out"/debs | wc -l) packages + 2 source archives, $((bytes / 1048576)) MiB ($bytes bytes)"
  echo "TTGNN_BUNDLE=$out"
}
if [ -n "$BUNDLE_OUT" ]; then
  make_bundle "$BUNDLE_OUT"
  exit 0
fi

# ---------------------------------------------------------------- --from-bundle: the packages
# Unpacks every .deb of the bundle into DEPS_PREFIX (once per bundle) and fixes the tree up so
# that it resolves inside DEPS_PREFIX: /lib merged into /usr/lib, absolute symlinks made
# relative, Debian's BLAS alternatives (update-alternatives, which dpkg -x does not run) made
# plain symlinks to OpenBLAS' OpenMP build, pkg-config files and CMake files with a fixed
# install prefix pointed at the prefix, and wrappers in P/bin for the tools the bundle brings
# (pkg-config, patch).
unpack_bundle() {
  local p=$DEPS_PREFIX stamp want
  stamp=$p/.debs-complete
  # the bundle's manifest and the version of the fix-ups below
  want=$(sha256sum "$BUNDLE_IN/MANIFEST" | cut -d' ' -f1)-fixups2
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    log "packages already unpacked in $p"
    return 0
  fi
  command -v dpkg-deb >/dev/null || command -v ar >/dev/null || die "needs dpkg-deb or ar to unpack .deb files"
  rm -rf "${p:?}/usr" "${p:?}/lib" "${p:?}/bin" "${p:?}/etc" "$stamp"
  local deb n=0
  new_work
  for deb in "$BUNDLE_IN"/debs/*.deb; do
    if command -v dpkg-deb >/dev/null; then
      dpkg-deb -x "$deb" "$p"
    else # a .deb is an ar archive holding data.tar.{xz,zst,gz}
      (cd "$WORK" && rm -f data.tar.* && ar x "$deb" && tar -xf data.tar.* -C "$p")
    fi
    n=$((n + 1))
  done
  # bookworm's packages still ship some libraries in /lib (merged /usr on the real system)
  if [ -d "$p/lib" ] && [ ! -L "$p/lib" ]; then
    mkdir -p "$p/usr/lib"
    cp -a "$p/lib/." "$p/usr/lib/"
    rm -rf "${p:?}/lib"
    ln -s usr/lib "$p/lib"
  fi
  local link target cand sys
  while IFS= read -r -d '' link; do
    target=$(readlink "$link")
    cand=
    if [ -e "$p$target" ]; then
      cand=$p$target
    elif [ -e "$p/usr$target" ]; then
      cand=$p/usr$target
    fi
    if [ -n "$cand" ]; then
      ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$cand")" "$link"
    elif [ ! -e "$target" ]; then
      # a -dev link to a runtime library of the base system (libz.so -> /lib/.../libz.so.1.2.13):
      # point it at whatever version of that library this machine has
      sys=$(ls /lib/"$MULTIARCH"/"$(basename "$target" | sed 's/\.so\..*/.so./')"* \
        /usr/lib/"$MULTIARCH"/"$(basename "$target" | sed 's/\.so\..*/.so./')"* 2>/dev/null | sort -V | tail -n1 || true)
      if [ -n "$sys" ]; then ln -sfn "$sys" "$link"; else log "warning: $link -> $target resolves nowhere"; fi
    fi
  done < <(find "$p/usr" -type l -lname '/*' -print0)
  local lib=$p/usr/lib/$MULTIARCH name
  for name in libblas.so libblas.so.3 liblapack.so liblapack.so.3 libopenblas.so libopenblas.so.0; do
    if [ -e "$lib/openblas-openmp/$name" ] && [ ! -e "$lib/$name" ]; then
      ln -sfn "openblas-openmp/$name" "$lib/$name"
    fi
  done
  while IFS= read -r -d '' name; do
    sed -i -E "s#^([A-Za-z_]+)=/usr([/ ]|\$)#\\1=$p/usr\\2#" "$name"
  done < <(find "$p/usr" -name '*.pc' -print0)
  # CMake package files with the install prefix written in (Debian's doctestTargets.cmake sets
  # _IMPORT_PREFIX to "/usr" instead of computing it from its own location)
  while IFS= read -r -d '' name; do
    sed -i "s#set(_IMPORT_PREFIX \"/usr\")#set(_IMPORT_PREFIX \"$p/usr\")#" "$name"
  done < <(find "$p/usr" -name '*.cmake' -print0)
  mkdir -p "$p/bin"
  if [ -x "$p/usr/bin/pkgconf" ]; then
    cat >"$p/bin/pkg-config" <<WRAP
#!/bin/sh
# pkg-config from the ttgnn bundle (pkgconf), with its own library and the prefix's .pc files
LD_LIBRARY_PATH="$lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" \\
PKG_CONFIG_PATH="$lib/pkgconfig:$p/usr/share/pkgconfig\${PKG_CONFIG_PATH:+:\$PKG_CONFIG_PATH}" \\
  exec "$p/usr/bin/pkgconf" "\$@"
WRAP
    chmod +x "$p/bin/pkg-config"
  fi
  [ ! -x "$p/usr/bin/patch" ] || ln -sfn ../usr/bin/patch "$p/bin/patch"
  echo "$want" >"$stamp"
  log "unpacked $n packages into $p"
}
if [ -n "$BUNDLE_IN" ]; then
  unpack_bundle
  {
    echo "# written by scripts/install-deps.sh --from-bundle; read by scripts/build.sh (TTGNN_PREFIX)"
    echo "TTGNN_DEPS_KOKKOS_NAME=$KOKKOS_NAME"
    echo "TTGNN_DEPS_KK_NAME=$KK_NAME"
    echo "TTGNN_DEPS_PATCH_KEY=$PATCH_KEY"
    echo "TTGNN_DEPS_MULTIARCH=$MULTIARCH"
  } >"$DEPS_PREFIX/ttgnn-deps.env"
  # tools the bundle brings, for the Kokkos build below
  export PATH=$PATH:$DEPS_PREFIX/bin
fi

if [ -z "$BUNDLE_IN" ] && [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null; then
    exec sudo --preserve-env=TTGNN_DEPS_CACHE,TTGNN_DEPS_SOURCES,TTGNN_SKIP_KOKKOS,TTGNN_JOBS,CUDA_HOME \
      bash "$0" "${ARGS[@]}"
  fi
  die "run as root (it calls apt-get)"
fi

# ---------------------------------------------------------------- Debian packages
if [ -z "$BUNDLE_IN" ]; then
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
fi

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

new_work
get_archives
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
  patch -s -p1 -d "$WORK/kokkos" <"$PATCHES/kokkos-4.6-cuda13-runtime-api.patch" \
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
if [ -n "$BUNDLE_IN" ]; then
  # BLAS from the prefix; DT_RPATH (not RUNPATH) so that OpenBLAS' own dependency
  # (libgfortran) is found in the prefix too, without LD_LIBRARY_PATH.
  COMMON+=("-DCMAKE_EXE_LINKER_FLAGS=-Wl,--disable-new-dtags"
    "-DCMAKE_SHARED_LINKER_FLAGS=-Wl,--disable-new-dtags")
  # KokkosKernels asks a Fortran compiler how BLAS symbols are named; the GPU machine may have
  # none: OpenBLAS uses gfortran's convention (lower case, one trailing underscore).
  KK_OPTS+=(-DCMAKE_PREFIX_PATH="$DEPS_PREFIX/usr" -DBLAS_LIBRARY_DIRS="$DEPS_PREFIX/usr/lib/$MULTIARCH"
    -DLAPACK_LIBRARY_DIRS="$DEPS_PREFIX/usr/lib/$MULTIARCH" "-DF77_BLAS_MANGLE=(name,NAME) name ## _")
  if command -v ninja >/dev/null; then export CMAKE_GENERATOR=Ninja; fi
fi
if [ $CUDA = 1 ]; then
  export CUDA_HOME=$CUDA_ROOT PATH=$CUDA_ROOT/bin:$PATH
  # cudaMallocAsync: a freed View returns to the stream-ordered pool instead of a synchronizing
  # cudaFree (Kokkos' default is off because of CUDA IPC with old UCX; ttgnn's MPI exchange goes
  # through host buffers).
  KOKKOS_OPTS+=(-DKokkos_ENABLE_CUDA=ON "-DKokkos_ARCH_$KOKKOS_ARCH=ON"
    -DKokkos_ENABLE_IMPL_CUDA_MALLOC_ASYNC=ON
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
