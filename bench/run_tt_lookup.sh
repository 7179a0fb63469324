#!/usr/bin/env bash
# TT lookup benchmark: ttgnn (bench_tt_lookup) against the PyTorch baseline
# (tt_lookup_torch.py) at the same thread count, and a table of rows/s with ratios.
#
#   bench/run_tt_lookup.sh
#
# Environment: THREADS (2), RANKS (8,16,32), BATCHES (1000,10000,100000), REPS (9),
# BUILD_DIR (build-bench; configured with -DTTGNN_ENABLE_BENCH=ON and built for the bench
# target only), BENCH_BIN (an already built bench_tt_lookup: skips the build), PYTHON
# (/usr/bin/python3, which has Debian's python3-torch), OUT (results folder, $BUILD_DIR),
# WAIT_POLICY (OMP_WAIT_POLICY for both, e.g. passive on a machine shared with other jobs,
# where spinning OpenMP threads lose their time slices; unset: the OpenMP default).
# ttgnn and PyTorch run one configuration (rank, batch) after the other, so that both see the
# same machine load. Raw results: $OUT/tt_lookup_results.jsonl.
# Before timing, the reference's health (CHECK_PEER, default ../shared/peers/check_peer.py):
# PyTorch's matmul GFLOP/s at THREADS and the BLAS it loaded go to the results and stderr, and
# the script stops when that rate is below half of ttgnn's measured sgemm rate (a reference
# BLAS, or OPENBLAS_CORETYPE pinning an old kernel, would make every ratio meaningless). Both
# sides run in this script's environment, so they see the same OPENBLAS_* variables.
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS=${THREADS:-2}
RANKS=${RANKS:-8,16,32}
BATCHES=${BATCHES:-1000,10000,100000}
REPS=${REPS:-9}
BUILD_DIR=${BUILD_DIR:-build-bench}
PYTHON=${PYTHON:-/usr/bin/python3}
OUT=${OUT:-$BUILD_DIR}

if [ -z "${BENCH_BIN:-}" ]; then
  KOKKOS=${Kokkos_ROOT:-$(bash scripts/install-deps.sh --print-prefix)}
  cmake -S . -B "$BUILD_DIR" -DKokkos_ROOT="$KOKKOS" -DKokkosKernels_ROOT="$KOKKOS" \
    -DTTGNN_ENABLE_BENCH=ON >/dev/null
  cmake --build "$BUILD_DIR" -j "${TTGNN_JOBS:-2}" --target bench_tt_lookup >/dev/null
  BENCH_BIN=$BUILD_DIR/bin/bench_tt_lookup
fi
"$PYTHON" -c "import torch" 2>/dev/null || {
  echo "run_tt_lookup.sh: $PYTHON cannot import torch (apt-get install -y python3-torch)" >&2
  exit 1
}

export OMP_NUM_THREADS=$THREADS OMP_PROC_BIND=false
if [ -n "${WAIT_POLICY:-}" ]; then export OMP_WAIT_POLICY=$WAIT_POLICY; fi
mkdir -p "$OUT"
RESULTS=$OUT/tt_lookup_results.jsonl
echo "{\"bench\":\"load\",\"loadavg\":$(cut -d' ' -f1 /proc/loadavg)}" >"$RESULTS"
peak() { # GEMM peak lines (the table uses the best of all of them)
  "$BENCH_BIN" --ranks 8 --batches 1000 --ids random --variants plain-atomic --reps "$REPS" |
    grep gemm_peak >>"$RESULTS"
}
peak
CHECK_PEER=${CHECK_PEER:-../shared/peers/check_peer.py}
[ -f "$CHECK_PEER" ] || { echo "run_tt_lookup.sh: no $CHECK_PEER (set CHECK_PEER)" >&2; exit 1; }
sgemm=$("$PYTHON" -c 'import json, sys
print(max(json.loads(l)["gflops"] for l in open(sys.argv[1]) if "\"gemm_peak\"" in l
          and "\"float\"" in l))' "$RESULTS")
echo "ttgnn sgemm: $sgemm GFLOP/s at $THREADS thread(s)" >&2
if ! "$PYTHON" "$CHECK_PEER" --threads "$THREADS" \
  --min-gflops "$("$PYTHON" -c "print($sgemm / 2 / $THREADS)")" >"$OUT/peer_health.json"; then
  cat "$OUT/peer_health.json" >&2
  echo "run_tt_lookup.sh: PyTorch's matmul is below half of ttgnn's GEMM rate; not timing" >&2
  exit 1
fi
cat "$OUT/peer_health.json" >&2
"$PYTHON" -c 'import json, sys; d = json.load(open(sys.argv[1])); d["bench"] = "peer_health"
print(json.dumps(d))' "$OUT/peer_health.json" >>"$RESULTS"
for rank in ${RANKS//,/ }; do
  for batch in ${BATCHES//,/ }; do
    echo "rank $rank batch $batch ..." >&2
    "$BENCH_BIN" --ranks "$rank" --batches "$batch" --reps "$REPS" --peak 0 >>"$RESULTS"
    "$PYTHON" bench/tt_lookup_torch.py --ranks "$rank" --batches "$batch" --reps "$REPS" \
      --threads "$THREADS" >>"$RESULTS"
  done
done
peak

"$PYTHON" - "$RESULTS" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
peak = {}
for r in rows:
    if r["bench"] == "gemm_peak":
        peak[r["scalar"]] = max(peak.get(r["scalar"], 0), r["best_gflops"])
load = next(r["loadavg"] for r in rows if r["bench"] == "load")
health = next(r for r in rows if r["bench"] == "peer_health")
tt = {(r["variant"], r["rank"], r["batch"], r["ids"]): r for r in rows
      if r.get("impl") == "ttgnn"}
torch = {(r["rank"], r["batch"], r["ids"]): r for r in rows if r.get("impl") == "torch"}
threads = next(r["threads"] for r in rows if r.get("impl") == "torch")
import os
print(f"threads={threads} OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY', '(default)')}  "
      f"load average at start {load}, at end {open('/proc/loadavg').read().split()[0]}")
print(f"measured GEMM peak (best run): sgemm {peak.get('float', 0):.1f} GFLOP/s, "
      f"dgemm {peak.get('double', 0):.1f} GFLOP/s (OpenBLAS, n=1024)")
print(f"PyTorch {health['torch']}: matmul {health['matmul_gflops']} GFLOP/s at "
      f"{health['threads']} thread(s), BLAS {', '.join(health['blas']) or '(none found)'}, "
      f"env {health['env']}")
print("rows/s (median); x = ratio to PyTorch; det/atomic = prefix path with deterministic / "
      "atomic backward; plain = per-row chain, atomic backward; GF = GFLOP/s executed by "
      "prefix-det fwd+bwd (% of sgemm peak)")
hdr = ["R", "batch", "ids", "torch fwd", "det fwd", "x", "torch f+b", "det f+b", "x",
       "atomic f+b", "x", "plain f+b", "x", "GF (%peak)"]
print("| " + " | ".join(hdr) + " |")
print("|" + "---|" * len(hdr))
def fmt(v):
    return f"{v/1e6:.2f}M" if v >= 1e6 else f"{v/1e3:.1f}k"
for (rank, batch, ids), t in sorted(torch.items()):
    det = tt.get(("prefix-det", rank, batch, ids))
    at = tt.get(("prefix-atomic", rank, batch, ids))
    pl = tt.get(("plain-atomic", rank, batch, ids))
    if not (det and at and pl):
        continue
    tf, tfb = t["fwd_rows_per_s"], t["fwdbwd_rows_per_s"]
    gf = det["fwdbwd_gflops"]
    cells = [rank, batch, ids, fmt(tf), fmt(det["fwd_rows_per_s"]),
             f"{det['fwd_rows_per_s']/tf:.1f}", fmt(tfb), fmt(det["fwdbwd_rows_per_s"]),
             f"{det['fwdbwd_rows_per_s']/tfb:.1f}", fmt(at["fwdbwd_rows_per_s"]),
             f"{at['fwdbwd_rows_per_s']/tfb:.1f}", fmt(pl["fwdbwd_rows_per_s"]),
             f"{pl['fwdbwd_rows_per_s']/tfb:.1f}",
             f"{gf:.1f} ({100*gf/peak['float']:.0f}%)" if peak.get("float") else f"{gf:.1f}"]
    print("| " + " | ".join(str(c) for c in cells) + " |")
EOF
