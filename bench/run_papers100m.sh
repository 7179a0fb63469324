#!/usr/bin/env bash
# A papers100M-sized run, stage by stage, each stage a separate process so that its peak RSS is
# its own (GNU time's "Maximum resident set size"), then one table and one JSON line.
#
#   bash bench/run_papers100m.sh BUILD_DIR WORK_DIR [NODES] [AVG_DEGREE]
#
# Defaults: 111,059,956 nodes (ogbn-papers100M), average degree 10 (papers100M has 29: 3.23e9
# arcs / 1.11e8 nodes; every stage's memory would allow 29 inside 22 GiB, the time of a run on
# 2 shared cores does not), 172
# classes, no features, papers100M's split shares (1.09% train, 0.11% valid, 0.19% test; the
# other nodes are in no split). Stages:
#   generate      ttgnn generate (edges, labels, split; streamed .csv.gz; holds the edge keys,
#                 8 bytes per edge = the size of the CSR's neighbour array, the 12-byte alias
#                 table per node and, while writing, a 4-byte array per node)
#   load          ttgnn partition --order original --split random --cache: the text edge file
#                 streamed twice straight into the CSR (count, then fill; rows sorted and
#                 deduplicated in place), written to the binary cache that the later stages
#                 (and ttgnn train: same split, int32 ids) read straight into their arrays
#   (then train, below, and the orders last)
#   order_lp      ttgnn partition --order lp-hier (two-level size-constrained label propagation
#                 aligned with the TT row factors, O(N + E) time per sweep, O(N) memory)
#   order_random  ttgnn partition --order random (the reference share of edges whose rows
#                 agree on i1, on (i1, i2))
#   order_metis   only with METIS=1: hierarchical METIS, sparsified to METIS_MAX_DEGREE arcs per
#                 node (beyond 24 GiB at the full size)
#   train         ttgnn train: mini-batch GraphSAGE (3 layers, hidden 256, fan-outs 12,12,12,
#                 batch 1024) on a TT embedding (d 128, rank 8, no features) for MAX_BATCHES
#                 batches, then evaluation of the test nodes only (--eval-nodes test, sampled
#                 with EVAL_FANOUT), node order TRAIN_ORDER, init TRAIN_INIT
# Environment: THREADS (2), MAX_BATCHES (20), EVAL_FANOUT (12,12,12; "-1,-1,-1" = exact),
# LP_SWEEPS (10: most label-propagation sweeps per level), TRAIN_ORDER (original: the
# generator's ids are a random layout; lp-hier recomputes the order inside train and holds the
# dataset in both orders), TRAIN_INIT (gaussian; spectral: from the eigenvectors of the graph of
# the TT slots, the default of `ttgnn train --input tt`), METIS (0), METIS_MAX_DEGREE (16). The
# raw JSON of every stage is kept in WORK_DIR/*.json, GNU time's output in WORK_DIR/*.time; a
# stage whose .time exists is not run again (delete it to rerun). ORDERS=0 skips the order
# stages.
#
# Dry runs: NODES (the third argument) = 2000000 gives the same stages at 1/55 of the size;
# every stage's memory is linear in N and in the arcs (the TT cores and the mini-batch buffers
# are fixed), so two dry runs at different degrees give bytes per node and per arc.
set -eu
build=${1:?build dir}
work=${2:?work dir}
nodes=${3:-111059956}
degree=${4:-10}
threads=${THREADS:-2}
batches=${MAX_BATCHES:-20}
eval_fanout=${EVAL_FANOUT:-12,12,12}
lp_sweeps=${LP_SWEEPS:-10}
train_order=${TRAIN_ORDER:-original}
train_init=${TRAIN_INIT:-gaussian}
max_degree=${METIS_MAX_DEGREE:-16}
ttgnn=$build/bin/ttgnn
mkdir -p "$work"
data=$work/data
cache=$work/cache
export OMP_NUM_THREADS=$threads OMP_PROC_BIND=false
stage() { # name, command...: runs it under GNU time, JSON stdout to WORK/name.json, stderr to
  local name=$1 # WORK/name.log
  shift
  [ -s "$work/$name.time" ] && return 0
  echo "[$(date +%T)] $name" >&2
  /usr/bin/time -f "%M %e" -o "$work/$name.time.part" "$@" >"$work/$name.json" 2>"$work/$name.log"
  mv "$work/$name.time.part" "$work/$name.time"
}
if [ ! -f "$data/meta.csv" ]; then
  rm -f "$work/generate.time"
  stage generate "$ttgnn" generate --out "$data" --force --nodes "$nodes" --classes 172 \
    --avg-degree "$degree" --homophily 0.6 --communities 8 --power-law 2.5 --features 0 \
    --train 0.0109 --valid 0.0011 --test 0.0019 --seed 1
fi
part=("$ttgnn" partition --dataset "$data" --cache "$cache" --split random --json)
stage load "${part[@]}" --order original
stage train "$ttgnn" train --dataset "$data" --cache "$cache" --model sage --layers 3 \
  --hidden 256 --input tt --emb-dim 128 --tt-rank 8 --order "$train_order" --init "$train_init" \
  --batch-size 1024 --fanout 12,12,12 --lr 0.001 --dropout 0.1 --epochs 1 \
  --max-batches "$batches" --eval-nodes test --eval-fanout "$eval_fanout" \
  --eval-batch-size 4096 --json --quiet
# the orders after train: at the full size on a loaded machine the label propagation is the
# longest stage, and the run's main numbers (batch time, test metric, peak) come from train
if [ "${ORDERS:-1}" = 1 ]; then
  stage order_random "${part[@]}" --order random
  stage order_lp "${part[@]}" --order lp-hier --lp-sweeps "$lp_sweeps"
fi
if [ "${METIS:-0}" = 1 ]; then
  stage order_metis "${part[@]}" --order metis-hier --metis-max-degree "$max_degree"
fi
/usr/bin/python3 - "$work" "$nodes" "$degree" <<'PY'
import json, os, sys
work, nodes, degree = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
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
rows, out = [], {"nodes": nodes, "avg_degree": degree, "stages": {}}
for name in ["generate", "load", "order_lp", "order_random", "order_metis", "train"]:
    mb, sec = peak(name)
    if mb is None:
        continue
    j = js(name)
    rec = {"peak_rss_mb": round(mb, 1), "seconds": sec}
    note = ""
    if name == "generate":
        rec.update(num_edges=j.get("num_edges"), max_degree=j.get("max_degree"))
        note = "%s edges, max degree %s" % (j.get("num_edges"), j.get("max_degree"))
    if name == "load":
        rec.update(num_arcs=j.get("num_edges", 0) * 2, load_seconds=j.get("load_seconds"))
        note = "%d arcs, parse + cache %.1f s" % (j.get("num_edges", 0) * 2,
                                                  j.get("load_seconds", 0))
    if name.startswith("order"):
        rec.update({k: j.get(k) for k in ["share_i1", "share_i1i2", "n_factors", "seconds",
                                          "lp_clusters", "lp_sweeps", "sparsified"]})
        rec["order_seconds"] = rec.pop("seconds")
        rec["seconds"] = sec
        note = "share_i1 %.4f share_i1i2 %.6f (order %.1f s)" % (
            j.get("share_i1", -1), j.get("share_i1i2", -1), rec["order_seconds"] or 0)
    if name == "train":
        m = j.get("memory", {})
        bt, bpe = j.get("batch_time_s", 0), j.get("batches_per_epoch", 0)
        rec.update(batch_time_s=bt, batches_per_epoch=bpe, projected_epoch_s=bt * bpe,
                   eval_time_s=j.get("eval_time_s"), test_metric=j.get("test_metric"),
                   load_time_s=j.get("load_time_s"), init=j.get("init"),
                   init_time_s=j.get("init_time_s"), init_slots=j.get("init_slots"),
                   prepare_peak_rss_mb=j.get("prepare_peak_rss_mb"), memory=m)
        note = ("init %s %.1f s, prepare peak %.0f MiB; batch %.3f s, epoch %.0f s projected "
                "(%d batches), test %.4f (eval %.0f s); graph %.0f, table %.1f, opt %.1f, "
                "act %.0f, sampler %.0f, eval %.0f MB") % (
            j.get("init"), j.get("init_time_s") or 0, j.get("prepare_peak_rss_mb") or 0,
            bt, bt * bpe, bpe, j.get("test_metric", -1), j.get("eval_time_s", 0),
            m.get("graph_mb", 0), m.get("table_mb", 0), m.get("optimizer_mb", 0),
            m.get("activations_mb", 0), m.get("sampler_mb", 0), m.get("eval_mb", 0))
    out["stages"][name] = rec
    rows.append((name, mb, sec, note))
out["peak_rss_mb"] = max([r[1] for r in rows] or [0])
out["published_gpu_batch_s"] = {"full_table": 12.7, "tt_rank8": 0.5}
print("nodes %d, average degree %g; published (GPU): 12.7 s per batch with a full table, "
      "0.5 s with TT rank 8" % (nodes, degree))
print("%-13s %11s %9s  %s" % ("stage", "peak MiB", "seconds", "notes"))
for name, mb, sec, note in rows:
    print("%-13s %11.0f %9.1f  %s" % (name, mb, sec, note))
print(json.dumps(out))
PY
