#!/usr/bin/env bash
# Loader benchmark: text parse throughput and binary-cache reload time of a generated graph
# (ogbn-products size by default), side by side with pandas.read_csv (what OGB's own loader
# uses) on the same edge file and thread count.
#
#   bench/run_load.sh [OUT_DIR]
#
# Environment: NODES (2449029), EDGES (61859140 undirected), FEATURES (100), CLASSES (47),
# THREADS (2), REPS (3), TTGNN (build/bin/ttgnn), PYTHON (/usr/bin/python3).
# Prints one JSON line per measurement and a summary line; all times are in-process load
# times (`ttgnn info --json` load_seconds), medians over REPS runs.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-build/bench-load}
NODES=${NODES:-2449029}
EDGES=${EDGES:-61859140}
FEATURES=${FEATURES:-100}
CLASSES=${CLASSES:-47}
THREADS=${THREADS:-2}
REPS=${REPS:-3}
TTGNN=${TTGNN:-build/bin/ttgnn}
PYTHON=${PYTHON:-/usr/bin/python3}
export OMP_NUM_THREADS=$THREADS OMP_PROC_BIND=false

mkdir -p "$OUT"
DATA=$OUT/graph
CACHE=$OUT/cache
avg_degree=$("$PYTHON" -c "print(2 * $EDGES / $NODES)")
if [ ! -f "$DATA/raw/num-node-list.csv.gz" ] && [ ! -f "$DATA/raw/num-node-list.csv" ]; then
  /usr/bin/time -f '{"bench":"load","step":"generate","wall_s":%e,"cpu_s":%U,"sys_s":%S,"peak_rss_mb":%M}' \
    -o "$OUT/generate.time" "$TTGNN" generate --out "$DATA" --force --nodes "$NODES" \
    --avg-degree "$avg_degree" --classes "$CLASSES" --features "$FEATURES" --communities 8 \
    --seed 1 >"$OUT/generate.json" 2>"$OUT/generate.log"
  # /usr/bin/time reports KB; turn it into MB
  "$PYTHON" -c "import json;t=json.load(open('$OUT/generate.time'));t['peak_rss_mb']/=1024;print(json.dumps(t))"
fi

load_seconds() { # ttgnn info ... -> load_seconds of its JSON line
  "$TTGNN" info --dataset "$DATA" --json "$@" 2>/dev/null |
    "$PYTHON" -c "import json,sys; print(json.loads(sys.stdin.readlines()[-1])['load_seconds'])"
}
# parse: everything (edges, CSR build, labels, features, split); graph: without the features
# (only their dimension is read), to compare with pandas on the edge file alone.
parse=() graph=() cached=()
rm -rf "$CACHE"
load_seconds --features --cache "$CACHE" >/dev/null # first run writes the cache
for _ in $(seq "$REPS"); do
  parse+=("$(load_seconds --features --cache "")")
  graph+=("$(load_seconds --cache "")")
  cached+=("$(load_seconds --features --cache "$CACHE")")
done
raw_bytes=$(find "$DATA/raw" -type f -printf '%s\n' | awk '{s+=$1} END {print s}')
edge_file=$(ls "$DATA"/raw/edge.csv*)
pandas_s=$("$PYTHON" - "$edge_file" "$REPS" <<'EOF' || echo null
import statistics, sys, time
import pandas
times = []
for _ in range(int(sys.argv[2])):
    t = time.perf_counter()
    pandas.read_csv(sys.argv[1], header=None, dtype="int64").values
    times.append(time.perf_counter() - t)
print(statistics.median(times))
EOF
)
cache_bytes=$(find "$CACHE" -type f -printf '%s\n' | awk '{s+=$1} END {print s}')
"$PYTHON" - "$NODES" "$EDGES" "$FEATURES" "$THREADS" "$raw_bytes" "$cache_bytes" "$pandas_s" \
  "${parse[*]}" "${cached[*]}" "${graph[*]}" <<'EOF'
import json, statistics, sys
nodes, edges, feats, threads, raw, cache = map(int, sys.argv[1:7])
pandas_s = None if sys.argv[7] == "null" else float(sys.argv[7])
parse = statistics.median(map(float, sys.argv[8].split()))
cached = statistics.median(map(float, sys.argv[9].split()))
graph = statistics.median(map(float, sys.argv[10].split()))
print(json.dumps({"bench": "load", "nodes": nodes, "edges": edges, "features": feats,
                  "threads": threads, "gzip_text_bytes": raw, "cache_bytes": cache,
                  "parse_s": parse, "parse_mb_per_s": raw / parse / 1e6,
                  "parse_edges_per_s": edges / parse, "cache_s": cached,
                  "cache_speedup": parse / cached, "parse_graph_only_s": graph,
                  "graph_only_edges_per_s": edges / graph,
                  "pandas_edge_csv_s": pandas_s,
                  "pandas_edges_per_s": edges / pandas_s if pandas_s else None}))
EOF
