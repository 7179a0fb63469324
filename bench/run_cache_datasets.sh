#!/usr/bin/env bash
# Cache benchmark on real datasets: for each OGB-layout folder, the load time (edges, CSR,
# labels, features) parsing the text and reloading the binary cache, in one run, medians over
# REPS runs each, measured two ways:
#   - fresh processes: `ttgnn info --features --json` load_seconds, a new process per load
#     (what a command-line user sees; includes the process's first-use costs);
#   - one process: bench_cache_reload (built with -DTTGNN_ENABLE_BENCH=ON), warm-up first
#     (what a program loading several datasets sees). Skipped when that binary is missing.
#
#   bench/run_cache_datasets.sh [DATASET_DIR ...]
#
# Default datasets: every ../shared/datasets/*/ogb (or $TTGNN_SHARED_DATASETS/*/ogb), else the
# bundled datasets/cora. Environment: THREADS (2), REPS (5), LAYOUT (auto | dense | sparse),
# TTGNN (build/bin/ttgnn), BENCH (build-bench/bin/bench_cache_reload), PYTHON
# (/usr/bin/python3), OUT (build/bench-cache).
# Prints one JSON line per dataset and a summary line with the smallest speed-up.
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS=${THREADS:-2}
REPS=${REPS:-5}
LAYOUT=${LAYOUT:-auto}
TTGNN=${TTGNN:-build/bin/ttgnn}
BENCH=${BENCH:-build-bench/bin/bench_cache_reload}
PYTHON=${PYTHON:-/usr/bin/python3}
OUT=${OUT:-build/bench-cache}
export OMP_NUM_THREADS=$THREADS OMP_PROC_BIND=false

if [ $# -eq 0 ]; then
  shared=${TTGNN_SHARED_DATASETS:-../shared/datasets}
  set -- $(ls -d "$shared"/*/ogb 2>/dev/null || true)
  [ $# -gt 0 ] || set -- datasets/cora
fi
mkdir -p "$OUT"
results=$OUT/results.jsonl
: >"$results"

info() { # ttgnn info --json ... -> its JSON line
  "$TTGNN" info --json --features --feature-layout "$LAYOUT" "$@" 2>/dev/null | tail -n 1
}
for dir in "$@"; do
  name=$(basename "$(dirname "$dir")")
  [ "$(basename "$dir")" = ogb ] || name=$(basename "$dir")
  cache=$OUT/cache-$name
  rm -rf "$cache"
  info --dataset "$dir" --cache "$cache" >/dev/null # writes the cache
  parse=() cached=() last=""
  for _ in $(seq "$REPS"); do
    parse+=("$(info --dataset "$dir" --cache "")")
    last=$(info --dataset "$dir" --cache "$cache")
    cached+=("$last")
  done
  in_process=null
  if [ -x "$BENCH" ]; then
    in_process=$("$BENCH" --dataset "$dir" --cache "$OUT/in-process-$name" --reps "$REPS" \
      --feature-layout "$LAYOUT" 2>/dev/null | tail -n 1)
  fi
  cache_bytes=$(find "$cache" -type f -printf '%s\n' | awk '{s+=$1} END {print s}')
  text_bytes=$(find "$dir/raw" -type f -printf '%s\n' | awk '{s+=$1} END {print s}')
  "$PYTHON" - "$name" "$THREADS" "$text_bytes" "$cache_bytes" "$in_process" "$last" "${parse[@]}" \
    "${cached[@]}" <<'EOF' | tee -a "$results"
import json, statistics, sys
name, threads, text_bytes, cache_bytes, in_process, last = sys.argv[1:7]
runs = [json.loads(x) for x in sys.argv[7:]]
one = json.loads(in_process)
half = len(runs) // 2
parse, cached = runs[:half], runs[half:]
if any(r["cache"] != "hit" for r in cached):
    sys.exit(f"{name}: the cache was not used: {[r['cache'] for r in cached]}")
p = statistics.median(r["load_seconds"] for r in parse)
c = statistics.median(r["load_seconds"] for r in cached)
info = json.loads(last)
print(json.dumps({"bench": "cache_reload", "dataset": name, "threads": int(threads),
                  "nodes": info["num_nodes"], "arcs": info["num_arcs"],
                  "features": info["num_features"], "feature_layout": info["feature_layout"],
                  "feature_nnz": info.get("feature_nnz"), "text_bytes": int(text_bytes),
                  "cache_bytes": int(cache_bytes), "parse_s": p, "cache_s": c,
                  "speedup": p / c,
                  "in_process_parse_s": one and one["parse_s"],
                  "in_process_cache_s": one and one["cache_s"],
                  "in_process_speedup": one and one["speedup"],
                  "parse_runs": [r["load_seconds"] for r in parse],
                  "cache_runs": [r["load_seconds"] for r in cached]}))
EOF
done
"$PYTHON" - "$results" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
worst = min(rows, key=lambda r: r["speedup"])
one = [r for r in rows if r["in_process_speedup"] is not None]
print(json.dumps({"bench": "cache_reload_summary", "datasets": len(rows),
                  "min_speedup": worst["speedup"], "min_dataset": worst["dataset"],
                  "speedups": {r["dataset"]: round(r["speedup"], 1) for r in rows},
                  "min_in_process_speedup": min((r["in_process_speedup"] for r in one),
                                                default=None),
                  "in_process_speedups": {r["dataset"]: round(r["in_process_speedup"], 1)
                                          for r in one}}))
EOF
