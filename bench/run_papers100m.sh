#!/usr/bin/env bash
# A papers100M-sized run, stage by stage, each stage a separate process so that its peak RSS is
# its own (GNU time's "Maximum resident set size"), then one table.
#
#   bash bench/run_papers100m.sh BUILD_DIR WORK_DIR [NODES] [AVG_DEGREE]
#
# Defaults: 111,059,956 nodes (ogbn-papers100M), average degree 29 (papers100M's 3.23e9 arcs /
# 1.11e8 nodes), 172 classes, no features, papers100M's split shares (1.09% train, 0.11% valid,
# 0.19% test: generate's test share is cut to that). Stages:
#   generate   ttgnn generate (edges, labels, split; streamed .csv.gz)
#   load       ttgnn info --cache: parse the folder once into the binary cache
#   order      ttgnn partition --order metis-hier with --metis-max-degree (sparsified METIS),
#              and --order random, from the cache: share of edges whose rows agree on i1, i2
#   train      ttgnn train: mini-batch GraphSAGE (3 layers, hidden 256, fan-outs 12,12,12, batch
#              1024) on a TT embedding (d 128, rank 8, no features) for MAX_BATCHES batches, then
#              evaluation of the test nodes only (--eval-nodes test, sampled with EVAL_FANOUT)
# Environment: THREADS (2), MAX_BATCHES (20), EVAL_FANOUT (12,12,12; "-1,-1,-1" = exact),
# METIS_MAX_DEGREE (16), KEEP=1 keeps WORK_DIR/data. The raw JSON of every stage is kept in
# WORK_DIR/*.json, GNU time's output in WORK_DIR/*.time.
#
# Dry runs: NODES=2000000 gives the same stages at 1/55 of the size; memory of every stage is
# linear in N (and in the arcs) except the TT cores, so a dry run's peaks scale by N ratio.
set -eu
build=${1:?build dir}
work=${2:?work dir}
nodes=${3:-111059956}
degree=${4:-29}
threads=${THREADS:-2}
batches=${MAX_BATCHES:-20}
eval_fanout=${EVAL_FANOUT:-12,12,12}
max_degree=${METIS_MAX_DEGREE:-16}
ttgnn=$build/bin/ttgnn
mkdir -p "$work"
data=$work/data
cache=$work/cache
export OMP_NUM_THREADS=$threads OMP_PROC_BIND=false
stage() { # name, command...: runs it under GNU time, JSON stdout to WORK/name.json; a stage
  local name=$1 # whose WORK/name.time exists already ran (delete it to run it again)
  shift
  [ -s "$work/$name.time" ] && return 0
  /usr/bin/time -f "%M %e" -o "$work/$name.time" "$@" >"$work/$name.json"
}
if [ ! -f "$data/meta.csv" ]; then
  stage generate "$ttgnn" generate --out "$data" --force --nodes "$nodes" --classes 172 \
    --avg-degree "$degree" --homophily 0.6 --communities 8 --power-law 2.5 --features 0 \
    --train 0.0109 --valid 0.0011 --seed 1
  # generate gives every other node to test; papers100M labels 1.5% of its nodes and tests
  # 0.19%: keep that share of the test ids (sorted ids of a random layout: a uniform sample)
  python3 - "$data/split/random/test.csv.gz" "$nodes" <<'PY'
import gzip, sys
path, n = sys.argv[1], int(sys.argv[2])
keep = max(1, round(0.0019 * n))
with gzip.open(path, "rt") as f:
    ids = [next(f) for _ in range(keep)]
with gzip.open(path, "wt") as f:
    f.writelines(ids)
PY
fi
stage load "$ttgnn" info --dataset "$data" --cache "$cache" --json
stage order_metis "$ttgnn" partition --dataset "$data" --cache "$cache" --order metis-hier \
  --metis-max-degree "$max_degree" --json
stage order_random "$ttgnn" partition --dataset "$data" --cache "$cache" --order random --json
stage train "$ttgnn" train --dataset "$data" --cache "$cache" --model sage --layers 3 \
  --hidden 256 --input tt --emb-dim 128 --tt-rank 8 --order original --init gaussian \
  --batch-size 1024 --fanout 12,12,12 --lr 0.001 --dropout 0.1 --epochs 1 \
  --max-batches "$batches" --eval-nodes test --eval-fanout "$eval_fanout" \
  --eval-batch-size 4096 --json --quiet
python3 - "$work" "$nodes" <<'PY'
import json, os, sys
work, nodes = sys.argv[1], int(sys.argv[2])
def peak(name):
    p = os.path.join(work, name + ".time")
    if not os.path.exists(p):
        return None, None
    kb, sec = open(p).read().split()[-2:]
    return int(kb) / 1024, float(sec)
def js(name):
    p = os.path.join(work, name + ".json")
    try:
        return json.loads(open(p).read().strip().splitlines()[-1])
    except Exception:
        return {}
rows = []
for name in ["generate", "load", "order_metis", "order_random", "train"]:
    mb, sec = peak(name)
    if mb is None:
        continue
    j = js(name)
    note = ""
    if name.startswith("order"):
        note = "share_i1 %.3f share_i2 %.3f" % (j.get("share_i1", -1), j.get("share_i1i2", -1))
    if name == "train":
        m = j.get("memory", {})
        note = ("batch %.3f s, epoch %.0f s projected (%d batches), test %.4f; "
                "graph %.0f, table %.1f, opt %.1f, act %.0f, sampler %.0f, eval %.0f MB") % (
            j.get("batch_time_s", 0), j.get("batch_time_s", 0) * j.get("batches_per_epoch", 0),
            j.get("batches_per_epoch", 0), j.get("test_metric", -1), m.get("graph_mb", 0),
            m.get("table_mb", 0), m.get("optimizer_mb", 0), m.get("activations_mb", 0),
            m.get("sampler_mb", 0), m.get("eval_mb", 0))
    rows.append((name, mb, sec, note))
print("nodes %d; published (GPU): 12.7 s per batch with a full table, 0.5 s with TT rank 8" % nodes)
print("%-13s %11s %9s  %s" % ("stage", "peak MiB", "seconds", "notes"))
for name, mb, sec, note in rows:
    print("%-13s %11.0f %9.1f  %s" % (name, mb, sec, note))
PY
