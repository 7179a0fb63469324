#!/usr/bin/env bash
# Data-parallel scaling of mini-batch GraphSAGE (docs/DISTRIBUTED.md): per-batch time and
# bytes handed to MPI per step for 1 rank x 1 thread, 1 rank x 2 threads and 2 ranks x 1
# thread, on a generated graph, for a TT embedding, a full table and node features.
#
#   bench/distributed_scaling.sh [BUILD_DIR] [WORK_DIR]
#
# Environment: NODES (default 100000), LAYERS (2), HIDDEN (64), BATCH (global batch, 256),
# FANOUT (10,10), BATCHES (timed batches per run, 20), REPEATS (runs per configuration, 3: the
# median is kept). The defaults keep the whole table under ~10 minutes on 2 idle cores.
# Prints one markdown table row per configuration; keep the machine otherwise idle (the load
# average is printed with the table).
set -euo pipefail
build=$(realpath "${1:-build}")
work=${2:-/tmp/ttgnn-distributed-scaling}
bin=$build/bin/ttgnn
NODES=${NODES:-100000} LAYERS=${LAYERS:-2} HIDDEN=${HIDDEN:-64} BATCH=${BATCH:-256}
FANOUT=${FANOUT:-10,10} BATCHES=${BATCHES:-20} REPEATS=${REPEATS:-3}
mkdir -p "$work"
data=$work/sbm$NODES
[ -d "$data" ] || "$bin" generate --out "$data" --nodes "$NODES" --classes 8 --avg-degree 16 \
  --features 128 --homophily 0.7 --seed 1 >/dev/null
mpi=(mpirun --oversubscribe --mca btl self,vader --mca btl_tcp_if_include lo
  --mca oob_tcp_if_include lo)
[ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)
export OMP_PROC_BIND=false

# run LAUNCH... : the JSON line of one timed run
run() {
  "$@" "$bin" train --dataset "$data" --model sage --layers "$LAYERS" --hidden "$HIDDEN" --batch-size "$BATCH" \
    --fanout "$FANOUT" --max-batches "$BATCHES" --epochs 1 --eval-every 1000 --json --quiet \
    --seed 3 "${input_args[@]}" 2>/dev/null | tail -1
}
field() { python3 -c "import json,sys; print(json.loads(sys.stdin.read())['$1'])"; }
median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); nodes $NODES, layers $LAYERS, hidden $HIDDEN," \
  "global batch $BATCH, fan-outs $FANOUT, $BATCHES batches x $REPEATS runs"
echo "| input | ranks x threads | batch time (ms) | speed-up vs 1x1 | bytes/step (per rank) |"
echo "|---|---|---|---|---|"
for input in tt emb feat; do
  case $input in
  tt) input_args=(--input tt --emb-dim 128 --tt-rank 16) ;;
  emb) input_args=(--input emb --emb-dim 128) ;;
  feat) input_args=(--input feat) ;;
  esac
  base=
  for conf in 1x1 1x2 2x1; do
    times=() bytes=0
    for ((k = 0; k < REPEATS; ++k)); do
      case $conf in
      1x1) j=$(OMP_NUM_THREADS=1 run) ;;
      1x2) j=$(OMP_NUM_THREADS=2 run) ;;
      2x1) j=$(run "${mpi[@]}" -np 2 -x OMP_NUM_THREADS=1 -x OMP_PROC_BIND) ;;
      esac
      times+=("$(echo "$j" | field batch_time_s)")
      bytes=$(echo "$j" | field comm_bytes_per_step)
    done
    t=$(printf '%s\n' "${times[@]}" | median)
    [ -z "$base" ] && base=$t
    python3 -c "print('| $input | $conf | %.1f | %.2f | %.0f |' % ($t*1e3, $base/$t, $bytes))"
  done
done
