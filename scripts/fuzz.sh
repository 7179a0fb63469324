#!/usr/bin/env bash
# Builds, seeds and runs the libFuzzer targets of tests/fuzz (one per parser).
#
#   scripts/fuzz.sh build                      configure + build build-fuzz/ (clang, ASan+UBSan,
#                                              -DTTGNN_ENABLE_FUZZ=ON, static libttgnn)
#   scripts/fuzz.sh seeds                      seed corpora from datasets/cora, numpy and the
#                                              real ttgnn binary (into $FUZZ_DIR/seeds/<target>)
#   scripts/fuzz.sh run SECONDS [JOBS] [T...]  run each target (all by default) for SECONDS, JOBS
#                                              at a time (default 2); one JSON line per target
#   scripts/fuzz.sh bundle DIR                 copy binaries, seeds and their non-system shared
#                                              libraries to DIR, with DIR/run.sh to run them all
#   scripts/fuzz.sh list                       the target names
#
# Environment: FUZZ_BUILD_DIR (default build-fuzz), FUZZ_DIR (binaries, seeds/, corpus/,
# artifacts/, logs/; default $FUZZ_BUILD_DIR/fuzz), FUZZ_RESULTS (file that also receives the
# JSON lines of `run`), TTGNN_JOBS (build parallelism, default 2), FUZZ_ARGS (extra libFuzzer
# flags). A crash, leak, timeout or out-of-memory input is saved under artifacts/<target>/;
# reproduce it with `$FUZZ_DIR/<target> artifacts/<target>/crash-...`.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${FUZZ_BUILD_DIR:-$ROOT/build-fuzz}
FUZZ_DIR=${FUZZ_DIR:-$BUILD/fuzz}
TARGETS=(fuzz_ogb_edges fuzz_gzip_edges fuzz_node_label fuzz_node_feat fuzz_split fuzz_npy
  fuzz_npz fuzz_edge_list fuzz_graph_cache fuzz_checkpoint fuzz_cli_options)

# Sanitizer settings for every fuzzer process: UBSan findings stop the run (they are crashes).
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allocator_may_return_null=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1}
export OMP_NUM_THREADS=1 OMP_PROC_BIND=false

die() {
  echo "fuzz.sh: $*" >&2
  exit 1
}

cmd_build() {
  local kokkos
  kokkos=${Kokkos_ROOT:-$(bash "$ROOT/scripts/install-deps.sh" --print-prefix)}
  command -v clang++ >/dev/null || die "clang++ not found (Debian: apt-get install clang)"
  CC=clang CXX=clang++ cmake -S "$ROOT" -B "$BUILD" -DKokkos_ROOT="$kokkos" \
    -DKokkosKernels_ROOT="$kokkos" -DTTGNN_ENABLE_FUZZ=ON -DTTGNN_ENABLE_TESTS=OFF \
    -DBUILD_SHARED_LIBS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$BUILD" -j "${TTGNN_JOBS:-2}" --target fuzz ttgnn_app
  echo "fuzz.sh: targets in $BUILD/fuzz" >&2
}

# zhead N FILE.gz: the first N lines (without pipefail tripping over zcat's SIGPIPE)
zhead() { (zcat "$2" || true) | head -n "$1"; }

# Writes a one-argument-per-line command line (the fuzz_cli_options input format).
cli_seed() {
  local out=$1
  shift
  printf '%s\n' "$@" >"$out"
}

cmd_seeds() {
  local app=$BUILD/bin/ttgnn cora=$ROOT/datasets/cora s=$FUZZ_DIR/seeds
  [[ -x $app ]] || die "$app missing: run 'scripts/fuzz.sh build' first"
  local tmp
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  rm -rf "$s"
  for t in "${TARGETS[@]}"; do mkdir -p "$s/$t"; done
  # the instrumented app generates the binary seeds; its leaks are not what we fuzz here
  local run=(env ASAN_OPTIONS=detect_leaks=0 "$app")

  # a tiny generated dataset (plain csv): the cache and checkpoint seeds come from it
  "${run[@]}" generate --out "$tmp/tiny" --nodes 24 --classes 3 --avg-degree 3 --features 3 \
    --split-name random --seed 7 --no-gzip >/dev/null 2>&1 || die "ttgnn generate failed"

  # 1. OGB edge csv (Cora's first lines, the tiny graph's edges, a few edge cases)
  zhead 60 "$cora/raw/edge.csv.gz" >"$s/fuzz_ogb_edges/cora_head.csv"
  cp "$tmp/tiny/raw/edge.csv" "$s/fuzz_ogb_edges/tiny.csv"
  printf '0,1\r\n1,2\r\n\r\n63,0' >"$s/fuzz_ogb_edges/crlf_no_final_newline.csv"
  # 2. gzip: mode byte 0 = raw .gz bytes, 1 = compress, 2 = compress + cut, 3 = + bit flip
  { printf '\000'; head -c 600 "$cora/raw/edge.csv.gz"; } >"$s/fuzz_gzip_edges/raw_prefix.bin"
  { printf '\000'; zhead 30 "$cora/raw/edge.csv.gz" | gzip -9; } >"$s/fuzz_gzip_edges/raw_gz.bin"
  { printf '\001\200'; zhead 30 "$cora/raw/edge.csv.gz"; } >"$s/fuzz_gzip_edges/compress.bin"
  { printf '\002\200'; zhead 30 "$cora/raw/edge.csv.gz"; } >"$s/fuzz_gzip_edges/cut.bin"
  { printf '\003\100'; zhead 30 "$cora/raw/edge.csv.gz"; } >"$s/fuzz_gzip_edges/flip.bin"
  { printf '\000'; printf '0,1\n' | gzip; printf '1,2\n' | gzip; } >"$s/fuzz_gzip_edges/two_members.bin"
  # 3. node-label csv
  zhead 40 "$cora/raw/node-label.csv.gz" >"$s/fuzz_node_label/cora_head.csv"
  printf '0\nnan\n2.0\n1\nNaN\n' >"$s/fuzz_node_label/nan_and_float.csv"
  cp "$tmp/tiny/raw/node-label.csv" "$s/fuzz_node_label/tiny.csv"
  # 4. node-feat csv (Cora rows cut to 24 columns; the tiny graph's dense rows)
  zhead 12 "$cora/raw/node-feat.csv.gz" | cut -d, -f1-24 >"$s/fuzz_node_feat/cora_cut.csv"
  cp "$tmp/tiny/raw/node-feat.csv" "$s/fuzz_node_feat/tiny.csv"
  printf '1e-3, -2.5,3\n4,5e+2,6\n' >"$s/fuzz_node_feat/exponents.csv"
  # 5. split / count / meta files
  zhead 40 "$cora/split/geomgcn_0/train.csv.gz" >"$s/fuzz_split/cora_train.csv"
  cp "$cora/meta.csv" "$s/fuzz_split/meta.csv"
  zcat "$cora/raw/num-node-list.csv.gz" >"$s/fuzz_split/num_node_list.csv"
  printf '5\n\n 7 \n+3\n' >"$s/fuzz_split/ints.csv"
  # 6-7. .npy and .npz from numpy (small arrays of every supported dtype and layout)
  /usr/bin/python3 - "$s/fuzz_npy" "$s/fuzz_npz" <<'EOF'
import io, sys
import numpy as np
npy, npz = sys.argv[1], sys.argv[2]
r = np.random.default_rng(0)
arrays = {
    "i8_2x5": np.arange(10, dtype="<i8").reshape(2, 5),
    "f4_6x3": r.standard_normal((6, 3)).astype("<f4"),
    "f4_fortran": np.asfortranarray(r.standard_normal((4, 3)).astype("<f4")),
    "f2_5": r.standard_normal(5).astype("<f2"),
    "f8_labels_nan": np.array([0.0, 1.0, np.nan, 2.0]),
    "i4_labels": np.array([[0], [2], [-1], [1]], dtype="<i4"),
    "u1_5": np.arange(5, dtype="u1"),
    "b1_4": np.array([True, False, True, True]),
    "u8_3": np.array([1, 2, 3], dtype="<u8"),
    "i2_scalar": np.array(7, dtype="<i2"),
    "empty_0x3": np.zeros((0, 3), dtype="<f4"),
}
for name, a in arrays.items():
    np.save(f"{npy}/{name}.npy", a)
with open(f"{npy}/version2.npy", "wb") as f:
    np.lib.format.write_array(f, np.arange(6, dtype="<i4").reshape(3, 2), version=(2, 0))
members = dict(edge_index=np.array([[0, 1, 2, 3], [1, 2, 3, 0]], dtype="<i8"),
               node_feat=r.standard_normal((4, 2)).astype("<f2"),
               node_label=np.array([[0.0], [1.0], [np.nan], [1.0]]),
               node_year=np.array([[2001], [2002], [2003], [2004]], dtype="<i8"),
               num_nodes_list=np.array([4]), num_edges_list=np.array([4]))
np.savez(f"{npz}/stored.npz", **members)
np.savez_compressed(f"{npz}/deflated.npz", **members)
np.savez(f"{npz}/edge_only.npz", edge_index=members["edge_index"].astype("<i4"))
EOF
  # 8. generic edge lists: CSV with header, TSV, whitespace, comments, gzip
  printf 'src,dst\n0,1\n1,2\n2,0\n' >"$s/fuzz_edge_list/header.csv"
  printf '# a comment\n0\t1\n1\t2\n  # indented comment\n3\t0\n' >"$s/fuzz_edge_list/comments.tsv"
  printf '0 1\n 1   2 \n2 3\n\n' >"$s/fuzz_edge_list/spaces.txt"
  printf '# u v\nu v\n5 6\n' | gzip >"$s/fuzz_edge_list/header.txt.gz"
  zhead 40 "$cora/raw/edge.csv.gz" >"$s/fuzz_edge_list/cora_head.csv"
  # 9. binary graph caches (mode byte: bit 0 = fix the checksum, bit 1 = int64 ids), written
  # by the real loader: the tiny dense-feature dataset and a sparse-feature one
  /usr/bin/python3 - "$tmp/sparse" <<'EOF'
import os, sys
d = sys.argv[1]
os.makedirs(f"{d}/raw"); os.makedirs(f"{d}/split/s")
n = 12
w = lambda p, s: open(f"{d}/{p}", "w").write(s)
w("raw/edge.csv", "".join(f"{i},{(i * 5 + 1) % n}\n" for i in range(n)))
w("raw/num-node-list.csv", f"{n}\n"); w("raw/num-edge-list.csv", f"{n}\n")
w("raw/node-label.csv", "".join(f"{i % 3}\n" for i in range(n)))
w("raw/node-feat.csv", "".join(",".join("1" if (i + j) % 7 == 0 else "0" for j in range(16)) + "\n" for i in range(n)))
w("split/s/train.csv", "0\n1\n2\n3\n"); w("split/s/valid.csv", "4\n5\n"); w("split/s/test.csv", "6\n7\n8\n")
EOF
  for ds in tiny sparse; do
    local split=random
    [[ $ds == sparse ]] && split=s
    "${run[@]}" info --dataset "$tmp/$ds" --split "$split" --features --cache "$tmp/cache-$ds" \
      >/dev/null 2>&1 || die "ttgnn info --cache failed on $ds"
    local f
    f=$(ls "$tmp/cache-$ds"/*.ttgnn | head -n 1)
    { printf '\001'; cat "$f"; } >"$s/fuzz_graph_cache/$ds-fixsum.bin"
    { printf '\000'; cat "$f"; } >"$s/fuzz_graph_cache/$ds.bin"
  done
  # 10. a checkpoint of one training epoch on the tiny dataset (mode byte as for the cache)
  "${run[@]}" train --dataset "$tmp/tiny" --split random --epochs 1 --hidden 4 --quiet --json \
    --checkpoint "$tmp/ck.bin" >/dev/null 2>&1 || die "ttgnn train --checkpoint failed"
  { printf '\001'; cat "$tmp/ck.bin"; } >"$s/fuzz_checkpoint/train-fixsum.bin"
  { printf '\000'; cat "$tmp/ck.bin"; } >"$s/fuzz_checkpoint/train.bin"
  # 11. command lines, one argument per line
  local c=$s/fuzz_cli_options
  cli_seed "$c/train" --dataset datasets/cora --epochs 1 --checkpoint /tmp/ck.bin --json
  cli_seed "$c/tt" --dataset=d --tt-shape 8,4,4 --tt-rank=8 --lr 1e-2 --hidden=16 --seed -3
  cli_seed "$c/flags" --self-loops --json --model sage --cache-dir '' --epochs=+5
  cli_seed "$c/help" --dataset x --help
  du -sh "$s"/* | sed 's/^/fuzz.sh seeds: /' >&2
}

# run_one TARGET SECONDS: fuzz one target, write its JSON line to results/TARGET.json
run_one() {
  local t=$1 secs=$2 bin=$FUZZ_DIR/$1
  local corpus=$FUZZ_DIR/corpus/$t art=$FUZZ_DIR/artifacts/$t log=$FUZZ_DIR/logs/$t.log
  mkdir -p "$corpus" "$art" "$FUZZ_DIR/logs" "$FUZZ_DIR/results"
  local seeds=()
  [[ -d $FUZZ_DIR/seeds/$t ]] && seeds=("$FUZZ_DIR/seeds/$t")
  local start end rc=0
  start=$(date +%s.%N)
  # shellcheck disable=SC2086
  "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -detect_leaks=1 \
    -print_final_stats=1 -artifact_prefix="$art/" ${FUZZ_ARGS:-} "$corpus" "${seeds[@]}" \
    >"$log" 2>&1 || rc=$?
  end=$(date +%s.%N)
  local runs crashes
  runs=$(grep -oE 'stat::number_of_executed_units: [0-9]+' "$log" | tail -n 1 | grep -oE '[0-9]+$' ||
    true)
  [[ -n $runs ]] || runs=$(grep -oE 'Done [0-9]+ runs' "$log" | tail -n 1 | grep -oE '[0-9]+' || true)
  [[ -n $runs ]] || runs=$(grep -oE '^#[0-9]+' "$log" | tail -n 1 | tr -d '#' || true)
  crashes=$(find "$art" -maxdepth 1 -type f | wc -l)
  # no python on purpose: the bundle may run on a bare machine
  awk -v t="$t" -v runs="${runs:-0}" -v c="$crashes" -v rc="$rc" -v s="$start" -v e="$end" \
    -v n="$(find "$corpus" -type f | wc -l)" 'BEGIN {
      w = e - s; printf "{\"target\": \"%s\", \"seconds\": %.1f, \"executions\": %d, ", t, w, runs
      printf "\"exec_per_s\": %.1f, \"crashes\": %d, \"corpus\": %d, \"exit_code\": %d}\n",
        (w > 0 ? runs / w : 0), c, n, rc }' >"$FUZZ_DIR/results/$t.json"
}

cmd_run() {
  local secs=${1:?usage: fuzz.sh run SECONDS [JOBS] [targets...]} jobs=${2:-2}
  shift $(($# >= 2 ? 2 : 1))
  local targets=("$@")
  ((${#targets[@]})) || targets=("${TARGETS[@]}")
  for t in "${targets[@]}"; do
    [[ -x $FUZZ_DIR/$t ]] || die "$FUZZ_DIR/$t missing (FUZZ_DIR=$FUZZ_DIR; run 'fuzz.sh build')"
    rm -f "$FUZZ_DIR/results/$t.json"
  done
  for t in "${targets[@]}"; do
    while (($(jobs -rp | wc -l) >= jobs)); do wait -n || true; done
    echo "fuzz.sh: $t for ${secs}s" >&2
    run_one "$t" "$secs" &
  done
  wait
  for t in "${targets[@]}"; do
    cat "$FUZZ_DIR/results/$t.json"
    [[ -z ${FUZZ_RESULTS:-} ]] || cat "$FUZZ_DIR/results/$t.json" >>"$FUZZ_RESULTS"
  done
}

cmd_bundle() {
  local dir=${1:?usage: fuzz.sh bundle DIR}
  mkdir -p "$dir/lib"
  dir=$(cd "$dir" && pwd)
  for t in "${TARGETS[@]}"; do
    [[ -x $FUZZ_DIR/$t ]] || die "$FUZZ_DIR/$t missing: run 'fuzz.sh build' first"
    cp "$FUZZ_DIR/$t" "$dir/"
  done
  [[ -d $FUZZ_DIR/seeds ]] || die "no seeds: run 'fuzz.sh seeds' first"
  rm -rf "$dir/seeds"
  cp -r "$FUZZ_DIR/seeds" "$dir/seeds"
  cp "$ROOT/scripts/fuzz.sh" "$dir/fuzz.sh"
  # every shared library the targets load, except the C runtime the other machine must have
  local libs
  libs=$(for t in "${TARGETS[@]}"; do ldd "$FUZZ_DIR/$t"; done | awk '$2 == "=>" && $3 ~ /^\// {print $3}' |
    sort -u)
  for l in $libs; do
    case $(basename "$l") in
    libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | ld-linux* | libresolv.so.*) ;;
    *) cp -L "$l" "$dir/lib/" ;;
    esac
  done
  # binaries and libraries over 1 MB travel gzipped (OpenBLAS alone is 35 MB); run.sh unpacks
  find "$dir" -maxdepth 2 -type f -size +1M ! -name '*.gz' -exec gzip -9 -n -f {} +
  cat >"$dir/run.sh" <<'EOF'
#!/usr/bin/env bash
# Runs every fuzz target of this bundle in parallel.
#   ./run.sh [SECONDS (default 600)] [JOBS (default: nproc)] [targets...]
# JSON lines (one per target) go to stdout and to results.jsonl here (FUZZ_RESULTS overrides);
# crash inputs to artifacts/<target>/, logs to logs/, grown corpora to corpus/<target>/.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
for f in "$here"/*.gz "$here"/lib/*.gz; do # first run: unpack what bundle compressed
  [[ -e $f ]] && gunzip -f "$f"
done
chmod +x "$here"/fuzz_*
secs=${1:-600}
jobs=${2:-$(nproc)}
shift $(($# >= 2 ? 2 : $#))
export LD_LIBRARY_PATH=$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export FUZZ_DIR=$here FUZZ_RESULTS=${FUZZ_RESULTS:-$here/results.jsonl}
exec bash "$here/fuzz.sh" run "$secs" "$jobs" "$@"
EOF
  chmod +x "$dir/run.sh"
  echo "fuzz.sh: bundle $dir: $(du -sh "$dir" | cut -f1) ($(ls "$dir/lib" | wc -l) libraries)" >&2
}

case ${1:-} in
build) cmd_build ;;
seeds) cmd_seeds ;;
run)
  shift
  cmd_run "$@"
  ;;
bundle) cmd_bundle "${2:-}" ;;
list) printf '%s\n' "${TARGETS[@]}" ;;
*) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//' >&2 && exit 2 ;;
esac
