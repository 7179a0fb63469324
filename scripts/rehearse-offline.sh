#!/usr/bin/env bash
# Rehearses the offline GPU check on a machine without a GPU: makes a dependency bundle, a
# minimal Debian 12 root file system with only what the GPU machine has (g++, cmake, ninja,
# make, python3, ca-certificates; none of ttgnn's libraries), and inside it, as an unprivileged
# user, with the network unused: `install-deps.sh --from-bundle` + `gpu-check.sh build` (the CPU
# tree fully, the CUDA tree compiled and linked against /usr/local/cuda, bind-mounted), the
# training part of the README's first command with the CPU binary, and `gpu-check.sh run` on a
# small graph (its GPU side skipped: no GPU). Prints what each step took.
#
#   sudo scripts/rehearse-offline.sh [WORKDIR]    (default /var/tmp/ttgnn-rehearsal)
#
# Needs root (mmdebstrap, mount, chroot) and Debian's package mirror; installs mmdebstrap when
# missing. WORKDIR keeps the root file system, the bundle, a copy of the checkout (the files git
# tracks or does not ignore: what travels to a GPU machine), the dependency prefix and a ccache
# folder, so that a second run recompiles only what changed.
#
# Environment: TTGNN_BUNDLE (use this bundle instead of making one), REHEARSAL_ARCH (90),
# REHEARSAL_NODES / REHEARSAL_EDGES (20000 / 200000: the run phase's graph),
# REHEARSAL_CUDA_CMAKE (extra cmake arguments for build-cuda; default host -O0 as in
# scripts/ci-cuda.sh, a compile-and-link check), REHEARSAL_SKIP_RUN=1 (stop after the README
# command).
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
WORK=${1:-/var/tmp/ttgnn-rehearsal}
ARCH=${REHEARSAL_ARCH:-90}
CUDA=$(readlink -f "${CUDA_HOME:-/usr/local/cuda}")
[ "$(id -u)" = 0 ] || { echo "rehearse-offline.sh: run as root (mmdebstrap, mount, chroot)" >&2; exit 1; }
[ -x "$CUDA/bin/nvcc" ] || { echo "rehearse-offline.sh: no nvcc at $CUDA/bin/nvcc" >&2; exit 1; }
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
ROOT=$WORK/root
t_start=$(date +%s)
step() { printf '[rehearsal %4ds] %s\n' $(( $(date +%s) - t_start )) "$*"; }

# ---- 1. the bundle
if [ -n "${TTGNN_BUNDLE:-}" ]; then
  BUNDLE=$(cd "$TTGNN_BUNDLE" && pwd)
  step "bundle: using $BUNDLE"
else
  BUNDLE=$WORK/bundle
  step "bundle: scripts/install-deps.sh --bundle $BUNDLE"
  bash "$HERE/scripts/install-deps.sh" --bundle "$BUNDLE"
fi
step "bundle: $(du -sb "$BUNDLE" | awk '{printf "%.1f MiB", $1 / 1048576}'), $(ls "$BUNDLE"/debs | wc -l) .deb files"

# ---- 2. the root file system: minimal Debian 12 + the GPU machine's tools (+ ccache)
TOOLS=g++,cmake,ninja-build,make,python3,ca-certificates,ccache
if [ ! -f "$ROOT/.complete" ] || [ "$(cat "$ROOT/.complete")" != "$TOOLS" ]; then
  command -v mmdebstrap >/dev/null || apt-get install -y -qq mmdebstrap >/dev/null
  step "root: mmdebstrap --variant=minbase bookworm ($TOOLS)"
  rm -rf "$ROOT"
  mmdebstrap --quiet --variant=minbase --include="$TOOLS" bookworm "$ROOT" \
    "deb http://deb.debian.org/debian bookworm main" \
    "deb http://deb.debian.org/debian bookworm-updates main" \
    "deb http://deb.debian.org/debian-security bookworm-security main"
  chroot "$ROOT" useradd --create-home --uid 4242 rehearsal
  echo "$TOOLS" >"$ROOT/.complete"
else
  step "root: reusing $ROOT"
fi
for lib in libmetis.so libopenblas.so.0 libzip.so.4 libgfortran.so.5; do
  if chroot "$ROOT" sh -c "ls /usr/lib/x86_64-linux-gnu/$lib* /lib/x86_64-linux-gnu/$lib*" >/dev/null 2>&1; then
    echo "rehearse-offline.sh: $lib is installed in the root file system: not a bare machine" >&2
    exit 1
  fi
done
for h in metis.h Eigen/Core boost/graph/adjacency_list.hpp doctest/doctest.h zip.h zlib.h; do
  if [ -e "$ROOT/usr/include/$h" ] || [ -e "$ROOT/usr/include/eigen3/$h" ]; then
    echo "rehearse-offline.sh: $h is in the root file system: not a bare machine" >&2
    exit 1
  fi
done
step "root: $(chroot "$ROOT" dpkg-query -W | wc -l) packages; g++ $(chroot "$ROOT" g++ -dumpfullversion), $(chroot "$ROOT" cmake --version | head -n1), no pkg-config: $(chroot "$ROOT" sh -c 'command -v pkg-config || echo yes')"

# ---- 3. what travels: a copy of the checkout's files (tracked, or untracked and not ignored)
SRC=$WORK/src
step "checkout: copying the files git tracks or does not ignore to $SRC"
rm -rf "$SRC"
mkdir -p "$SRC"
(cd "$HERE" && git ls-files -z --cached --others --exclude-standard \
  | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done \
  | tar --null -T - -cf -) | tar -xf - -C "$SRC"
mkdir -p "$WORK/ccache"
chown -R 4242:4242 "$SRC" "$WORK/ccache"

# ---- 4. mounts, then the chroot as the unprivileged user
MOUNTS=()
bind() { # bind SRC DEST [ro]
  mkdir -p "$ROOT$2"
  mount --bind "$1" "$ROOT$2"
  [ "${3:-}" != ro ] || mount -o remount,bind,ro "$ROOT$2"
  MOUNTS=("$ROOT$2" "${MOUNTS[@]}")
}
cleanup() { local m; for m in "${MOUNTS[@]}"; do umount "$m" 2>/dev/null || umount -l "$m" || true; done; }
trap cleanup EXIT
mkdir -p "$ROOT/proc"
mount -t proc proc "$ROOT/proc"
MOUNTS=("$ROOT/proc")
bind /dev /dev
bind "$SRC" /src
bind "$BUNDLE" /bundle ro
bind "$CUDA" /usr/local/cuda ro
bind "$WORK/ccache" /ccache
# the dependency prefix lives outside the copy (at the same path inside), so that a second run
# reuses the unpacked packages and the Kokkos builds
mkdir -p "$WORK/prefix"
chown 4242:4242 "$WORK/prefix"
bind "$WORK/prefix" /src/build-prefix

inside() { # inside COMMAND: runs COMMAND in /src as the unprivileged user, with a clean env
  chroot --userspec=4242:4242 "$ROOT" /usr/bin/env -i HOME=/home/rehearsal PATH=/usr/bin:/bin \
    CCACHE_DIR=/ccache CCACHE_COMPILERCHECK=content CCACHE_BASEDIR=/src LANG=C.UTF-8 \
    TTGNN_BUNDLE=/bundle TTGNN_PREFIX=/src/build-prefix OUT=/src/gpu-check \
    /bin/bash -c "cd /src && set -euo pipefail && $1"
}
step "inside: no network needed from here on; user $(inside 'id -un'), $(inside nproc) cores"
s=$(date +%s)
step "inside: scripts/gpu-check.sh build $ARCH (bundle -> prefix -> CUDA + CPU builds)"
CUDA_CMAKE=${REHEARSAL_CUDA_CMAKE:-"-DCMAKE_CXX_FLAGS_RELEASE=-O0\\ -DNDEBUG"}
inside "GPU_CHECK_CUDA_CMAKE='$CUDA_CMAKE' bash scripts/gpu-check.sh build $ARCH"
step "inside: build phase done in $(( $(date +%s) - s )) s"
inside "ls build-cuda/bin | tr '\n' ' '; echo; ls build-bench/bin | tr '\n' ' '; echo"
inside "readelf -d build-bench/bin/ttgnn | grep -E 'RPATH|RUNPATH' || true"
inside "ldd build-cuda/bin/ttgnn | grep -E 'not found|cuda|cublas|kokkos|openblas|metis|zip' || true"
inside "ldd build-bench/bin/ttgnn | grep -E 'not found|kokkos|openblas|blas|gfortran|metis|zip' || true"

# ---- 5. the README's first command, training part, with the CPU binary (no LD_LIBRARY_PATH)
TRAIN=$(grep -m1 '^bash scripts/install-deps.sh && bash scripts/build.sh --app && build/bin/ttgnn train' "$HERE/README.md" \
  | sed 's/^.*&& build\/bin\/ttgnn train/ttgnn train/')
[ -n "$TRAIN" ] || { echo "rehearse-offline.sh: README.md has no first command" >&2; exit 1; }
step "inside: build-bench/bin/$TRAIN"
s=$(date +%s)
inside "OMP_PROC_BIND=false build-bench/bin/$TRAIN"
step "inside: README command done in $(( $(date +%s) - s )) s"

# ---- 6. the run phase on a small graph (no GPU: the GPU side is skipped)
if [ "${REHEARSAL_SKIP_RUN:-0}" != 1 ]; then
  s=$(date +%s)
  step "inside: scripts/gpu-check.sh run (${REHEARSAL_NODES:-20000} nodes, ${REHEARSAL_EDGES:-200000} edges)"
  inside "GPU_CHECK_NODES=${REHEARSAL_NODES:-20000} GPU_CHECK_EDGES=${REHEARSAL_EDGES:-200000} bash scripts/gpu-check.sh run"
  step "inside: run phase done in $(( $(date +%s) - s )) s"
fi
step "rehearsal passed"
