#!/usr/bin/env bash
# Full-batch epochs of `ttgnn train` against the project's PyTorch reference, peer_gnn.py (a
# plain, competent PyTorch implementation of the same models; kept outside this repository),
# on one graph: GCN and GraphSAGE on features, a full table and a TT table, the two sides
# alternating at each thread count.
#
#   bash bench/compare_peer.sh BUILD_DIR [DATA_DIR] [OUT.jsonl]
#
# DATA_DIR: a dataset in the OGB raw layout with features and a split; without it a graph is
# generated with the peer's gen_sbm.py (NODES, default 100000; DEGREE, default 20; 64 features,
# 10 classes, homophily 0.8, seed 0). PEER: the peer's peer_gnn.py (default
# ../shared/peers/peer_gnn.py next to the repository; the script stops with a message when it
# is absent). THREAD_COUNTS ("1 2"), CONFIGS ("gcn:feat gcn:emb gcn:tt sage:feat sage:emb
# sage:tt"), EPOCHS (12), WARMUP (3, epochs left out of the medians), REPS (1), TT_IMPLS ("bmm
# full": the peer's TT implementations run for tt; at 1M nodes bmm gathers a slice per row and
# needs over 8 GB and minutes per epoch).
#
# Both sides: 2 layers, hidden 128, table width 128, TT rank 16, dropout 0.5 between layers,
# no input dropout, no weight decay, Adam lr 0.01, an evaluation after every epoch, tables
# initialised at random (ttgnn's spectral init would only lengthen the run). Compared:
# ttgnn's whole epoch (the epoch_time_s column of --metrics-out: step + evaluation) against the
# peer's train-step median + evaluation median, the faster of the peer's two TT
# implementations (--tt-impl bmm / full) for tt. One JSON line per run into OUT (default: a
# temporary file), then a table of medians and ratios ttgnn / peer.
#
# Before timing, at each thread count, the peer's health (check_peer.py next to the peer):
# PyTorch's matmul GFLOP/s and the BLAS it loaded go to stderr, and the script stops when that
# rate is below half of ttgnn's GEMM rate (the sgemm line of BUILD_DIR/bin/bench_tt_lookup when
# the build has the benchmarks, else check_peer's own floor of 40 GFLOP/s per thread). Both
# sides run in this script's environment, so they see the same OPENBLAS_* variables. Then the
# rate of the peer's torch.sparse.mm and whether its torch has MKL (stderr, not a gate: a torch
# without MKL's sparse kernels runs them at about 1 GFLOP/s, and the ratios show it).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?build dir}
data=${2:-}
out=${3:-$(mktemp)}
peer=${PEER:-$root/../shared/peers/peer_gnn.py}
[ -f "$peer" ] || { echo "compare_peer.sh: no peer at $peer (set PEER)" >&2; exit 1; }
py=/usr/bin/python3
[ -x "$py" ] || py=python3
"$py" -c 'import torch' 2>/dev/null || { echo "compare_peer.sh: $py has no torch (apt-get install python3-torch)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -z "$data" ]; then
  data=$work/data
  "$py" "$(dirname "$peer")/gen_sbm.py" --out "$data" --nodes "${NODES:-100000}" --classes 10 \
    --avg-degree "${DEGREE:-20}" --homophily 0.8 --feat-dim 64 --seed 0 >/dev/null
fi
epochs=${EPOCHS:-12} warmup=${WARMUP:-3}
for threads in ${THREAD_COUNTS:-1 2}; do
  floor=40
  if [ -x "$build/bin/bench_tt_lookup" ]; then
    sgemm=$(OMP_NUM_THREADS=$threads OMP_PROC_BIND=false "$build/bin/bench_tt_lookup" --ranks 8 \
      --batches 1000 --ids random --variants plain-atomic --reps 5 --peak 0 2>/dev/null |
      "$py" -c 'import json, sys
print(next(json.loads(l)["gflops"] for l in sys.stdin if "\"gemm_peak\"" in l))')
    echo "compare_peer.sh: ttgnn sgemm $sgemm GFLOP/s at $threads thread(s)" >&2
    floor=$("$py" -c "print($sgemm / 2 / $threads)")
  fi
  if ! OMP_NUM_THREADS=$threads "$py" "$(dirname "$peer")/check_peer.py" --threads "$threads" \
    --min-gflops "$floor" >&2; then
    echo "compare_peer.sh: the reference is below half of ttgnn's GEMM rate at $threads" \
      "thread(s); not timing" >&2
    exit 1
  fi
  # The peer's epochs are mostly torch.sparse.mm: its rate (a random 100k-row CSR matrix with
  # 21 entries a row, 64 columns) and whether torch has MKL's sparse kernels, for the record.
  OMP_NUM_THREADS=$threads "$py" -W ignore - "$threads" <<'PY' >&2
import json, sys, time
import numpy as np, torch
torch.set_num_threads(int(sys.argv[1]))
n, per_row, cols = 100000, 21, 64
rng = np.random.default_rng(0)
col = np.sort(rng.choice(n, size=(n, per_row)), axis=1)
keep = np.ones_like(col, dtype=bool)
keep[:, 1:] = col[:, 1:] != col[:, :-1]
rowptr = np.concatenate([[0], np.cumsum(keep.sum(axis=1))]).astype(np.int64)
a = torch.sparse_csr_tensor(torch.from_numpy(rowptr), torch.from_numpy(col[keep].astype(np.int64)),
                            torch.full((int(rowptr[-1]),), 1.0 / per_row), size=(n, n))
x = torch.randn(n, cols)
torch.sparse.mm(a, x)
times = []
for _ in range(3):
    t = time.perf_counter(); torch.sparse.mm(a, x); times.append(time.perf_counter() - t)
s = sorted(times)[1]
print(json.dumps({"peer_sparse_mm_gflops": round(2 * int(rowptr[-1]) * cols / s / 1e9, 2),
                  "threads": int(sys.argv[1]), "mkl": torch.backends.mkl.is_available()}))
PY
done
: >"$out"
ttgnn_run() { # ttgnn_run THREADS MODEL INPUT
  OMP_NUM_THREADS=$1 OMP_PROC_BIND=false "$build/bin/ttgnn" train --dataset "$data" --model "$2" \
    --input "$3" --layers 2 --hidden 128 --dropout 0.5 \
    --input-dropout 0 --weight-decay 0 --lr 0.01 --epochs "$epochs" --patience 0 \
    $([ "$3" = feat ] || echo --init gaussian --emb-dim 128) $([ "$3" != tt ] || echo --tt-rank 16) \
    --metrics-out "$work/m.csv" --json >"$work/t.json" 2>/dev/null
  "$py" - "$work/m.csv" "$warmup" "$1" "$2" "$3" <<'PY' | tee -a "$out"
import csv, json, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))[int(sys.argv[2]):]
print(json.dumps({"side": "ttgnn", "threads": int(sys.argv[3]), "model": sys.argv[4],
                  "input": sys.argv[5],
                  "epoch_s": statistics.median(float(r["epoch_time_s"]) for r in rows)}))
PY
}
peer_run() { # peer_run THREADS MODEL INPUT [TT_IMPL]
  OMP_NUM_THREADS=$1 "$py" "$peer" --data "$data" --model "$2" --input "$3" --layers 2 \
    --hidden 128 --dim 128 --tt-rank 16 --lr 0.01 --dropout 0.5 --epochs "$epochs" \
    --warmup "$warmup" --threads "$1" --quiet ${4:+--tt-impl "$4"} >"$work/p.out" 2>/dev/null
  "$py" - "$work/p.out" "$1" "$2" "$3" "${4:-}" <<'PY' | tee -a "$out"
import json, sys
d = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
print(json.dumps({"side": "peer", "threads": int(sys.argv[2]), "model": sys.argv[3],
                  "input": sys.argv[4], "tt_impl": sys.argv[5] or None,
                  "epoch_s": d["epoch_train_s_median"] + d["epoch_eval_s_median"]}))
PY
}
for threads in ${THREAD_COUNTS:-1 2}; do
  for config in ${CONFIGS:-gcn:feat gcn:emb gcn:tt sage:feat sage:emb sage:tt}; do
    model=${config%%:*} input=${config##*:}
    for rep in $(seq "${REPS:-1}"); do
      ttgnn_run "$threads" "$model" "$input"
      if [ "$input" = tt ]; then
        for impl in ${TT_IMPLS:-bmm full}; do
          peer_run "$threads" "$model" tt "$impl"
        done
      else
        peer_run "$threads" "$model" "$input"
      fi
    done
  done
done
"$py" - "$out" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
keys = sorted({(r["threads"], r["model"], r["input"]) for r in rows})
print("| threads | model | input | ttgnn s | peer s | ttgnn / peer |")
print("|---|---|---|---|---|---|")
for t, m, i in keys:
    mine = [r["epoch_s"] for r in rows if (r["threads"], r["model"], r["input"]) == (t, m, i)
            and r["side"] == "ttgnn"]
    impls = {}
    for r in rows:
        if (r["threads"], r["model"], r["input"]) == (t, m, i) and r["side"] == "peer":
            impls.setdefault(r["tt_impl"], []).append(r["epoch_s"])
    peer = min(statistics.median(v) for v in impls.values())  # the faster TT implementation
    me = statistics.median(mine)
    print(f"| {t} | {m} | {i} | {me:.3f} | {peer:.3f} | {me / peer:.2f} |")
PY
