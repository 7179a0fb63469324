#!/usr/bin/env bash
# ttgnn's full-batch speed and memory in one run, then one table (bench/scale_speed_table.py):
# every full-batch configuration (GCN, SAGE x input feat, emb, tt) at 1 and 2 threads
# (bench_train --mode full) on two generated graphs; the STREAM-like triad and the SpMM of a GCN
# layer in the same process at each thread count (bench_train --mode bandwidth); peak RSS and
# the memory breakdown of every run. The ratios against PyTorch come from bench/compare_peer.sh
# (the PyTorch peer, side by side on the same graph).
#
#   bash bench/run_scale_speed.sh BUILD_DIR [--quick] [--papers100m [NODES]] [--out FILE]
#
# BUILD_DIR is configured with -DTTGNN_ENABLE_BENCH=ON and has bin/bench_train (and bin/ttgnn
# for --papers100m). Graphs (DC-SBM, 64 features, 16 classes; average degree = arcs / nodes):
#   default  100,000 nodes, degree 20 (1M edges)  and 1,000,000 nodes, degree 40 (20M edges)
#   --quick   10,000 nodes, degree 20             and    20,000 nodes, degree 20
# --quick takes about 3 minutes on 2 busy cores; the default run trains 24 x 12 epochs per graph
# (one 100k-graph epoch took 2-8 s on 2 busy cores, the 1M graph is ~20x that): hours there.
# Model: 2 layers, hidden 128, dropout 0.5, Adam; emb / tt inputs of width 64, TT rank 8.
# EPOCHS / WARMUP (10 / 2; --quick 3 / 1), THREAD_COUNTS ("1 2"), GRAPHS ("NODES:DEGREE ...")
# override the defaults; CONFIGS ("MODEL:INPUT ...", default all six) picks configurations.
# Runs with OMP_WAIT_POLICY=passive (the ttgnn program's default) unless it is set.
# --papers100m also runs bench/run_papers100m.sh BUILD_DIR WORK [NODES] last (its own stage
# table; its JSON files stay in WORK = PAPERS_WORK, default BUILD_DIR/papers100m).
# Raw JSON lines of every run go to FILE (default BUILD_DIR/scale_speed.jsonl, printed);
# `python3 bench/scale_speed_table.py FILE` prints the table again.
set -euo pipefail
build=${1:?usage: run_scale_speed.sh BUILD_DIR [--quick] [--papers100m [NODES]] [--out FILE]}
shift
here=$(cd "$(dirname "$0")" && pwd)
quick=0 papers=0 papers_nodes="" out=$build/scale_speed.jsonl
while [ $# -gt 0 ]; do
  case $1 in
  --quick) quick=1 ;;
  --papers100m)
    papers=1
    if [[ ${2:-} =~ ^[0-9]+$ ]]; then papers_nodes=$2; shift; fi ;;
  --out) out=${2:?--out FILE}; shift ;;
  *) echo "run_scale_speed.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
if [ $quick = 1 ]; then
  graphs=${GRAPHS:-10000:20 20000:20} epochs=${EPOCHS:-3} warmup=${WARMUP:-1} triad_mb=200 reps=5
else
  graphs=${GRAPHS:-100000:20 1000000:40} epochs=${EPOCHS:-10} warmup=${WARMUP:-2} triad_mb=800 reps=10
fi
thread_counts=${THREAD_COUNTS:-1 2}
bench=$build/bin/bench_train
[ -x "$bench" ] || { echo "run_scale_speed.sh: no $bench (build target bench_train)" >&2; exit 1; }
configs=${CONFIGS:-gcn:feat gcn:emb gcn:tt sage:feat sage:emb sage:tt}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$(dirname "$out")"
: >"$out"
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive} OMP_PROC_BIND=false
echo "{\"bench\": \"scale_speed_run\", \"date\": \"$(date -u +%FT%TZ)\", \"quick\": $quick," \
  "\"omp_wait_policy\": \"$OMP_WAIT_POLICY\", \"cpus\": $(nproc)," \
  "\"epochs\": $epochs, \"warmup\": $warmup}" >>"$out"
model_args=(--hidden 128 --layers 2 --dim 64 --tt-rank 8 --epochs "$epochs" --warmup "$warmup")
for g in $graphs; do
  nodes=${g%%:*} degree=${g##*:}
  echo "== graph $nodes nodes, average degree $degree" >&2
  rm -rf "$work/data"
  "$bench" --mode export --out "$work/data" --nodes "$nodes" --avg-degree "$degree" \
    --features 64 --classes 16 --train 0.6 --valid 0.2 --communities 4 >>"$out"
  for t in $thread_counts; do
    export OMP_NUM_THREADS=$t
    echo "  $t thread(s): bandwidth" >&2
    "$bench" --mode bandwidth --data "$work/data" --hidden 128 --reps "$reps" \
      --triad-mb "$triad_mb" >>"$out"
    for config in $configs; do
      model=${config%%:*} input=${config##*:}
      echo "  $t thread(s): $model $input" >&2
      "$bench" --mode full --data "$work/data" --model "$model" --input "$input" \
        "${model_args[@]}" >>"$out"
    done
  done
done
unset OMP_NUM_THREADS
echo "raw JSON lines: $out"
python3 "$here/scale_speed_table.py" "$out"
if [ $papers = 1 ] && [ ! -x "$build/bin/ttgnn" ]; then
  echo "run_scale_speed.sh: no $build/bin/ttgnn (build target ttgnn_app): --papers100m skipped" >&2
elif [ $papers = 1 ]; then
  echo "== papers100M-size stages (bench/run_papers100m.sh)"
  pwork=${PAPERS_WORK:-$build/papers100m}
  bash "$here/run_papers100m.sh" "$build" "$pwork" $papers_nodes
  echo "papers100M-size stage JSON: $pwork/*.json"
fi
