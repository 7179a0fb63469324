#!/usr/bin/env bash
# TT embedding bag benchmark: ttgnn (bench_tt_bag) against PyTorch (tt_bag_torch.py:
# nn.EmbeddingBag on a full table and the FBTT-style TT bag) at the same thread count, one
# configuration (table, bag size) after the other, and a table of medians and ratios.
#
#   bench/run_tt_bag.sh
#
# Environment: THREADS (2), TABLES ("100,100,100:4,4,4 100,100,100:8,4,4 250,200,200:4,4,4
# 250,200,200:8,4,4": n factors : d factors, 1M and 10M rows x 64 and 128 columns), BAGS
# (1,20,100), RANKS (8,16,32), BATCH (4096), REPS (5), BUILD_DIR (build-bench, configured with
# -DTTGNN_ENABLE_BENCH=ON and built for this target only), BENCH_BIN (an already built
# bench_tt_bag: skips the build), PYTHON (/usr/bin/python3, Debian's python3-torch), OUT
# (results folder, $BUILD_DIR), CHECK_PEER (../shared/peers/check_peer.py: PyTorch's health,
# run first; its line goes to the results). Each configuration's line of the results records
# the load average before it ran. WAIT_POLICY: OMP_WAIT_POLICY of both sides (passive).
# Raw results: $OUT/tt_bag_results.jsonl.
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS=${THREADS:-2}
TABLES=${TABLES:-"100,100,100:4,4,4 100,100,100:8,4,4 250,200,200:4,4,4 250,200,200:8,4,4"}
BAGS=${BAGS:-1,20,100}
RANKS=${RANKS:-8,16,32}
BATCH=${BATCH:-4096}
REPS=${REPS:-5}
BUILD_DIR=${BUILD_DIR:-build-bench}
PYTHON=${PYTHON:-/usr/bin/python3}
OUT=${OUT:-$BUILD_DIR}
CHECK_PEER=${CHECK_PEER:-../shared/peers/check_peer.py}

if [ -z "${BENCH_BIN:-}" ]; then
  KOKKOS=${Kokkos_ROOT:-$(bash scripts/install-deps.sh --print-prefix)}
  cmake -S . -B "$BUILD_DIR" -DKokkos_ROOT="$KOKKOS" -DKokkosKernels_ROOT="$KOKKOS" \
    -DTTGNN_ENABLE_BENCH=ON >/dev/null
  cmake --build "$BUILD_DIR" -j "${TTGNN_JOBS:-2}" --target bench_tt_bag >/dev/null
  BENCH_BIN=$BUILD_DIR/bin/bench_tt_bag
fi
"$PYTHON" -c "import torch" 2>/dev/null || {
  echo "run_tt_bag.sh: $PYTHON cannot import torch (apt-get install -y python3-torch)" >&2
  exit 1
}
# passive by default (WAIT_POLICY): on cores shared with other jobs, spinning threads of either
# side lose their time slices and every parallel region waits for them
export OMP_NUM_THREADS=$THREADS OMP_PROC_BIND=false OMP_WAIT_POLICY=${WAIT_POLICY:-passive}
mkdir -p "$OUT"
RESULTS=$OUT/tt_bag_results.jsonl
: >"$RESULTS"
if [ -f "$CHECK_PEER" ]; then
  "$PYTHON" "$CHECK_PEER" --threads "$THREADS" | tee -a "$RESULTS" >&2 || {
    echo "run_tt_bag.sh: check_peer.py failed: PyTorch's BLAS is not the reference; not timing" >&2
    exit 1
  }
fi
load() { echo "{\"bench\":\"load\",\"config\":\"$1\",\"loadavg\":$(cut -d' ' -f1 /proc/loadavg)}" >>"$RESULTS"; }
for table in $TABLES; do
  n=${table%%:*}
  d=${table##*:}
  for bag in ${BAGS//,/ }; do
    echo "table n=$n d=$d bag $bag ..." >&2
    load "$n:$d:$bag"
    "$BENCH_BIN" --n "$n" --d "$d" --ranks "$RANKS" --bags "$bag" --batch "$BATCH" \
      --reps "$REPS" >>"$RESULTS"
    "$PYTHON" bench/tt_bag_torch.py --n "$n" --d "$d" --ranks "$RANKS" --bags "$bag" \
      --batch "$BATCH" --reps "$REPS" --threads "$THREADS" >>"$RESULTS"
  done
done

"$PYTHON" - "$RESULTS" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip().startswith("{")]
res = {}
load = None
for r in lines:  # each configuration's results follow its load line
    if r.get("bench") == "load":
        load = r["loadavg"]
    elif r.get("bench") == "tt_bag" and "fwd_seconds" in r:
        r["load"] = load
        res[(r["impl"], r["table"], r["rows"], r["dim"], r["rank"], r["bag"])] = r
loads = [r["loadavg"] for r in lines if r.get("bench") == "load"]
print(f"load average before the configurations: {min(loads):.2f} to {max(loads):.2f}")
print("| rows | dim | bag | load | table | rank | ttgnn fwd Mrows/s | torch fwd | ratio | ttgnn fwd+bwd Mrows/s | torch fwd+bwd | ratio |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for key in sorted({k[1:] for k in res}, key=lambda k: (k[1], k[2], k[4], k[0] != "tt", k[3])):
    table, rows, dim, rank, bag = key
    t, p = res.get(("ttgnn",) + key), res.get(("torch",) + key)
    if t is None:
        continue
    def cell(r, f):
        return f"{r[f] / 1e6:.2f}" if r else "-"
    def ratio(f):
        return f"{t[f] / p[f]:.2f}" if p else "-"
    print(f"| {rows:,} | {dim} | {bag} | {t['load']} | {table} | {rank if table == 'tt' else '-'} | "
          f"{cell(t, 'fwd_rows_per_s')} | {cell(p, 'fwd_rows_per_s')} | {ratio('fwd_rows_per_s')} | "
          f"{cell(t, 'fwdbwd_rows_per_s')} | {cell(p, 'fwdbwd_rows_per_s')} | {ratio('fwdbwd_rows_per_s')} |")
PY
