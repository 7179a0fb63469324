#!/usr/bin/env bash
# Full-batch GCN training epoch, ttgnn against PyTorch, same data, same model, same thread
# count, one run; then the ogbn-products-scale mini-batch GraphSAGE epoch of ttgnn.
#
#   bash bench/compare_train.sh BUILD_DIR [THREADS] [NODES] [AVG_DEGREE]
#
# Defaults: 2 threads, 1,000,000 nodes, average degree 40 (20M undirected edges, 40M arcs),
# 128 features, hidden 128, 2 layers. Set SKIP_PRODUCTS=1 to skip the products-scale part,
# PRODUCTS_BATCHES (default 40) for the number of timed batches, PRODUCTS_EVAL=1 to also time
# one layer-wise inference pass; EPOCHS / WARMUP (default 10 / 2) for the GCN comparison.
# Prints the JSON line of every run, then a summary line with medians and ratios.
set -eu
build=${1:?build dir (configured with -DTTGNN_ENABLE_BENCH=ON)}
threads=${2:-2}
nodes=${3:-1000000}
degree=${4:-40}
bench=$build/bin/bench_train
py=/usr/bin/python3
[ -x "$py" ] || py=python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=$threads OMP_PROC_BIND=false
"$bench" --mode export --out "$work/data" --nodes "$nodes" --avg-degree "$degree" \
  --features 128 --classes 16 --train 0.6 --valid 0.2 --communities 4 | tee "$work/export.json"
epochs=${EPOCHS:-10}
warmup=${WARMUP:-2}
"$bench" --mode gcn --data "$work/data" --hidden 128 --layers 2 --epochs "$epochs" --warmup "$warmup" \
  | tee "$work/ttgnn.json"
"$py" "$(dirname "$0")/train_torch.py" --data "$work/data" --threads "$threads" --hidden 128 \
  --epochs "$epochs" --warmup "$warmup" | tee "$work/torch.json"
"$py" - "$work/ttgnn.json" "$work/torch.json" <<'PY'
import json, sys
t, p = (json.load(open(f)) for f in sys.argv[1:3])
print(json.dumps({"bench": "gcn_full_batch_summary", "threads": t["threads"], "nodes": t["nodes"],
    "arcs": t["arcs"], "ttgnn_epoch_s": t["epoch_s_median"], "torch_epoch_s": p["epoch_s_median"],
    "ratio_ttgnn_over_torch": t["epoch_s_median"] / p["epoch_s_median"],
    "ttgnn_peak_rss_mb": t["peak_rss_mb"], "torch_peak_rss_mb": p["peak_rss_mb"]}))
PY
if [ "${SKIP_PRODUCTS:-0}" != 1 ]; then
  rm -rf "$work/data"
  "$bench" --mode sage-minibatch --nodes 2449029 --avg-degree 50.5 --features 100 --classes 47 \
    --train 0.08 --batch-size 1000 --fanout 5,10,15 --hidden 256 --layers 3 \
    --max-batches "${PRODUCTS_BATCHES:-40}" ${PRODUCTS_EVAL:+--eval}
fi
