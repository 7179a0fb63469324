#!/usr/bin/env bash
# SpMM side by side at 1 and 2 threads: ttgnn::spmm, KokkosSparse::spmv and PyTorch (Debian's
# python3-torch) on the same graph, then a table of medians and ratios to ttgnn_row_tiles.
#
#   bench/run_spmm.sh BUILD_DIR [--rows N] [--degree D] [--cols F] [--scalar float|double]
#                     [--reps R] [--skip-layout-left]
#
# Needs BUILD_DIR configured with -DTTGNN_ENABLE_BENCH=ON. Writes BUILD_DIR/bench_spmm.jsonl.
set -euo pipefail
build=${1:?usage: run_spmm.sh BUILD_DIR [bench_spmm options]}
shift
here=$(cd "$(dirname "$0")" && pwd)
out=$build/bench_spmm.jsonl
graph=$(mktemp -d)/graph
trap 'rm -rf "$(dirname "$graph")"' EXIT
cols=64 scalar=double reps=7
args=("$@")
for ((i = 0; i < ${#args[@]}; ++i)); do
  case ${args[i]} in
  --cols) cols=${args[i + 1]} ;;
  --scalar) scalar=${args[i + 1]} ;;
  --reps) reps=${args[i + 1]} ;;
  esac
done
: >"$out"
for threads in 1 2; do
  echo "bench_spmm: $threads thread(s) ..." >&2
  write=()
  [[ $threads == 1 ]] && write=(--write-graph "$graph")
  OMP_NUM_THREADS=$threads OMP_PROC_BIND=false "$build/bin/bench_spmm" "$@" "${write[@]}" |
    grep '^{' >>"$out"
  OMP_NUM_THREADS=$threads /usr/bin/python3 "$here/bench_spmm_torch.py" --graph "$graph" \
    --cols "$cols" --scalar "$scalar" --threads "$threads" --reps "$reps" >>"$out"
done
/usr/bin/python3 - "$out" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
rows = [r for r in rows if "median_s" in r]
base = {r["threads"]: r for r in rows if r["kernel"] == "ttgnn_row_tiles"}
print(f"{'kernel':42s} {'thr':>3s} {'median s':>9s} {'GFLOP/s':>8s} {'GF/cpu-s':>8s} "
      f"{'time / ttgnn':>12s} {'load':>5s}")
for r in sorted(rows, key=lambda r: (r["threads"], r["kernel"])):
    b = base.get(r["threads"])
    ratio = r["median_s"] / b["median_s"] if b else float("nan")
    print(f"{r['kernel']:42s} {r['threads']:3d} {r['median_s']:9.3f} {r['gflops']:8.2f} "
          f"{r['gflops_per_cpu_s']:8.2f} {ratio:12.2f} {r['loadavg_1min']:5.1f}")
EOF
