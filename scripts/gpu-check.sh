#!/usr/bin/env bash
# GPU check, for a machine with an NVIDIA GPU (about 10 minutes on 16 cores): builds Kokkos and
# ttgnn for the GPU's architecture, runs the whole test suite on the Cuda space (every kernel
# test against its host reference), then, on the GPU and on the CPU (OpenMP, all cores), the TT
# lookup benchmark and full-batch GCN epochs on a generated 1M-node / 20M-edge graph.
# Prints one JSON line per check on stdout (the benchmarks' own JSON lines, tagged with
# "device"), and a summary line with the GPU/CPU ratios.
#
#   scripts/gpu-check.sh [ARCH]   (compute capability digits; default: what nvidia-smi reports)
#
# Environment: TTGNN_JOBS (default nproc), OUT (folder for logs and raw results, gpu-check/).
set -euo pipefail
cd "$(dirname "$0")/.."
ARCH=${1:-$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n1 | tr -d '. ')}
export TTGNN_JOBS=${TTGNN_JOBS:-$(nproc)}
OUT=${OUT:-gpu-check}
mkdir -p "$OUT"
t0=$(date +%s)
json() { printf '{"check":"%s",%s}\n' "$1" "$2"; }

# ---- build: the CUDA tree (tests + benchmarks) and a CPU tree (benchmarks), side by side
bash scripts/install-deps.sh --cuda "$ARCH" >"$OUT/deps-cuda.log" 2>&1
bash scripts/install-deps.sh >"$OUT/deps-cpu.log" 2>&1
half=$(( (TTGNN_JOBS + 1) / 2 ))
TTGNN_JOBS=$half bash scripts/build.sh --cuda "$ARCH" -DTTGNN_ENABLE_BENCH=ON >"$OUT/build-cuda.log" 2>&1 &
cuda_pid=$!
BUILD_DIR=build-bench TTGNN_JOBS=$half bash scripts/build.sh -DTTGNN_ENABLE_BENCH=ON \
  -DTTGNN_ENABLE_TESTS=OFF >"$OUT/build-cpu.log" 2>&1
wait $cuda_pid
json build "\"arch\":$ARCH,\"seconds\":$(( $(date +%s) - t0 ))"

# ---- the test suite on the Cuda space
t1=$(date +%s)
rc=0
ctest --test-dir build-cuda -L cuda -j 4 --output-on-failure >"$OUT/ctest-cuda.log" 2>&1 || rc=$?
passed=$(grep -c ' Passed ' "$OUT/ctest-cuda.log" || true)
failed=$(grep -cE '\*\*\*Failed|\*\*\*Exception|Timeout' "$OUT/ctest-cuda.log" || true)
json cuda_tests "\"passed\":$passed,\"failed\":$failed,\"seconds\":$(( $(date +%s) - t1 ))"
[ $rc = 0 ] || grep -E 'Failed|Exception|ERROR' "$OUT/ctest-cuda.log" | head -n 20 >&2

# ---- benchmarks, GPU then CPU, the same arguments
tag() { sed "s/^{/{\"device\":\"$1\",/"; }
LOOKUP=(--n 100,100,100 --d 8,4,4 --ranks 8,16,32 --batches 10000,100000 --reps 5 --peak 0)
build-cuda/bin/bench_tt_lookup "${LOOKUP[@]}" | tag gpu | tee "$OUT/tt_lookup.jsonl"
OMP_PROC_BIND=spread OMP_PLACES=threads build-bench/bin/bench_tt_lookup "${LOOKUP[@]}" \
  | tag cpu | tee -a "$OUT/tt_lookup.jsonl"
DATA=$OUT/graph-1m
[ -f "$DATA/train.npy" ] || build-bench/bin/bench_train --mode export --out "$DATA" \
  --nodes 1000000 --avg-degree 40 --features 128 --classes 16 --seed 0 >/dev/null
GCN=(--mode gcn --data "$DATA" --hidden 128 --layers 2 --epochs 5 --warmup 1)
build-cuda/bin/bench_train "${GCN[@]}" | tag gpu | tee "$OUT/gcn.jsonl"
OMP_PROC_BIND=spread OMP_PLACES=threads build-bench/bin/bench_train "${GCN[@]}" | tag cpu \
  | tee -a "$OUT/gcn.jsonl"
python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
def lines(name):
    return [json.loads(l) for l in open(f"{out}/{name}") if l.startswith("{")]
ratios = {}
gcn = {r["device"]: r for r in lines("gcn.jsonl")}
if {"gpu", "cpu"} <= gcn.keys():
    ratios["gcn_epoch_cpu_over_gpu"] = gcn["cpu"]["epoch_s_median"] / gcn["gpu"]["epoch_s_median"]
look = {}
for r in lines("tt_lookup.jsonl"):
    key = "_".join(str(r.get(k)) for k in ("variant", "ids", "rank", "batch"))
    look.setdefault(key, {})[r["device"]] = r
for key, by in sorted(look.items()):
    if {"gpu", "cpu"} <= by.keys():
        for m in ("fwd", "fwdbwd"):
            ratios[f"tt_{m}_gpu_over_cpu_{key}"] = \
                by["gpu"][f"{m}_rows_per_s"] / by["cpu"][f"{m}_rows_per_s"]
print(json.dumps({"check": "summary", "ratios": ratios}))
PY
json done "\"seconds\":$(( $(date +%s) - t0 ))"
[ $rc = 0 ]
