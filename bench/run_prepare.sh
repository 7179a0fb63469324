#!/usr/bin/env bash
# The preparation before the first epoch, stage by stage, old path against new in one run, on
# generated community graphs (DC-SBM, average degree 25, 10 classes and 10 communities, no
# features): each stage a separate process, so its peak RSS (GNU time) is its own.
#
#   bash bench/run_prepare.sh BUILD_DIR WORK_DIR [NODES ... | papers]  (default 100000 1000000 2449029)
#
# Per graph:
#   generate     ttgnn generate (skipped when WORK_DIR/g<NODES> exists)
#   load         ttgnn partition --order original --cache: the text loader into the binary cache
#   order_direct ttgnn partition --order metis-hier --multilevel-min-nodes -1: 1 + n_1 METIS calls
#   order_ml     ttgnn partition --order metis-hier --multilevel-min-nodes 0: the multilevel order
#   init         ttgnn train --input tt --order metis-hier --init spectral --epochs 0: load (from
#                the cache), order and the spectral init (its JSON's order/init times, and the
#                peak RSS before the training setup)
# `papers` instead of a node count: a graph of ogbn-papers100M's 111,059,956 nodes and average
# degree 20 (2,221,199,120 arcs, beyond METIS' 32-bit index; 172 classes, power-law degrees;
# about 26 minutes and 11 GB to generate, as long again to load) and the papers100M preset's
# order, ttgnn partition --order metis --tt-shape 512,500,500 (order_ml: flat METIS beyond the
# index limit goes through the multilevel partition; there is no direct path to set beside it,
# and the preset's init, orthogonal, does not read the graph). About an hour and 20 GB.
# then one table: seconds, peak RSS and the shares of edges whose rows agree on i1 and (i1, i2),
# and one JSON line per stage. The old eigensolver (Lanczos) against the block subspace one is
# bench_eigs --solver both (bench/README.md). THREADS (2) sets OMP_NUM_THREADS; a stage whose
# WORK_DIR/g<NODES>/<stage>.time exists is not run again (delete it to rerun).
set -eu
build=${1:?usage: run_prepare.sh BUILD_DIR WORK_DIR [NODES ...]}
work=${2:?usage: run_prepare.sh BUILD_DIR WORK_DIR [NODES ...]}
shift 2
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100000 1000000 2449029)
ttgnn=$build/bin/ttgnn
export OMP_NUM_THREADS=${THREADS:-2} OMP_PROC_BIND=false
mkdir -p "$work"
stage() { # dir name command...: stdout to dir/name.json, GNU time's "RSS_KB SECONDS" to dir/name.time
  local dir=$1 name=$2
  shift 2
  [ -s "$dir/$name.time" ] && return 0
  echo "[$(date +%T)] $(basename "$dir") $name (load $(cut -d' ' -f1 /proc/loadavg))" >&2
  /usr/bin/time -f "%M %e" -o "$dir/$name.time.part" "$@" >"$dir/$name.json" 2>"$dir/$name.log"
  mv "$dir/$name.time.part" "$dir/$name.time"
}
for n in "${sizes[@]}"; do
  dir=$work/g$n
  mkdir -p "$dir"
  part=("$ttgnn" partition --dataset "$dir/data" --cache "$dir/cache" --split random --json)
  if [ "$n" = papers ]; then
    [ -f "$dir/data/meta.csv" ] || stage "$dir" generate "$ttgnn" generate --out "$dir/data" \
      --force --nodes 111059956 --classes 172 --avg-degree 20 --homophily 0.6 --communities 8 \
      --power-law 2.5 --features 0 --train 0.0109 --valid 0.0011 --test 0.0019 --seed 1
    stage "$dir" load "${part[@]}" --order original
    stage "$dir" order_ml "${part[@]}" --order metis --tt-shape 512,500,500
    continue
  fi
  [ -f "$dir/data/meta.csv" ] || stage "$dir" generate "$ttgnn" generate --out "$dir/data" \
    --force --nodes "$n" --classes 10 --avg-degree 25 --communities 10 --features 0 --seed 1
  stage "$dir" load "${part[@]}" --order original
  stage "$dir" order_direct "${part[@]}" --order metis-hier --multilevel-min-nodes -1
  stage "$dir" order_ml "${part[@]}" --order metis-hier --multilevel-min-nodes 0
  stage "$dir" init "$ttgnn" train --dataset "$dir/data" --cache "$dir/cache" --input tt \
    --order metis-hier --init spectral --epochs 0 --json --quiet
done
python3 - "$work" "${sizes[@]}" <<'PY'
import json, sys, os
work, sizes = sys.argv[1], sys.argv[2:]
def last_json(path):
    lines = [l for l in open(path) if l.startswith("{")] if os.path.exists(path) else []
    return json.loads(lines[-1]) if lines else {}
print("| nodes | stage | s | peak RSS MB | share i1 | share (i1, i2) | notes |")
print("|---|---|---|---|---|---|---|")
for n in sizes:
    d = os.path.join(work, "g" + n)
    nodes = 111059956 if n == "papers" else int(n)
    for stage in ("generate", "load", "order_direct", "order_ml", "init"):
        t = os.path.join(d, stage + ".time")
        if not os.path.exists(t):
            continue
        rss_kb, sec = open(t).read().split()[-2:]
        j = last_json(os.path.join(d, stage + ".json"))
        s1 = s2 = note = ""
        if stage.startswith("order"):
            s1, s2 = (f"{j[k]:.3f}" if k in j else "" for k in ("share_i1", "share_i1i2"))
            note = "path " + str(j.get("path", ""))
        if stage == "init":
            note = "order %.1f s, init %.1f s, peak %.0f MB before the training setup, " \
                "eigen residual %s, slots %s" % (
                j.get("order_time_s", 0), j.get("init_time_s", 0),
                j.get("prepare_peak_rss_mb", 0), j.get("eigen_residual"), j.get("init_slots", 0))
        print(f"| {nodes:,} | {stage} | {float(sec):.1f} | {int(rss_kb) / 1024:.0f} | {s1} | {s2} | {note} |")
        row = {"nodes": nodes, "stage": stage, "seconds": float(sec), "peak_rss_mb": int(rss_kb) / 1024}
        print(json.dumps(row), file=sys.stderr)
PY
