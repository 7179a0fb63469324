#!/usr/bin/env bash
# `ttgnn ogb` on scaled-down generated graphs laid out as the three OGB datasets: arxiv/ (CSV,
# split `time`, raw/node_year), ogbn_products/ (the OGB loaders' folder name, split
# `sales_ranking`) and papers100M-bin/ (binary raw/data.npz + raw/node-label.npz with NaN labels,
# split `time`). A few epochs each; checks the JSON summary and the preset settings it reports.
set -eu
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root

gen() { # $1 = folder, $2 = split name, $3 = seed
  "$bin" generate --out "$1" --nodes 700 --classes 4 --avg-degree 8 --homophily 0.85 \
    --features 12 --feature-sep 2 --split-name "$2" --seed "$3" >/dev/null 2>&1
}
check_json() { # $1 = JSON line, $2 = python assertions on d
  python3 -c "import json,sys; d=json.loads(sys.argv[1]); $2" "$1"
}

# ---- ogbn-arxiv: GCN full batch, 3 layers, BatchNorm, AdamW 0.005 (hidden shrunk for speed)
gen "$root/arxiv" time 1
seq 1 700 | awk '{print 1990 + $1 % 30}' | gzip > "$root/arxiv/raw/node_year.csv.gz"
json=$("$bin" ogb --name ogbn-arxiv --root "$root" --epochs 4 --hidden 16 --emb-dim 16 \
  --tt-rank 4 2>"$tmp/arxiv.log" | tail -n 1)
echo "$json"
check_json "$json" '
s = d
assert d["name"] == "ogbn-arxiv" and d["split"] == "time", d
assert s["model"] == "gcn" and s["layers"] == 3 and s["batch_norm"] is True and s["batch_size"] == 0, d
assert s["optimizer"] == "adamw" and abs(s["lr"] - 0.005) < 1e-12 and s["dropout"] == 0.5, d
assert s["input"] == "tt" and s["order"] == "metis" and d["num_nodes"] == 700, d
assert d["embedding_params"] > 0 and d["compression"] > 1 and d["gnn_params"] > 0, d
assert 0 <= d["test_acc"] <= 1 and 1 <= d["best_epoch"] <= 4 and d["peak_rss_mb"] > 0, d'
grep -q "ogb: ogbn-arxiv" "$tmp/arxiv.log"

# ---- ogbn-products: GraphSAGE mini-batch, fan-outs 5,10,15, batch 1000 (shrunk: 64)
mv "$root/arxiv" "$tmp/arxiv.bak"
gen "$root/ogbn_products" sales_ranking 2
json=$("$bin" ogb --name ogbn-products --root "$root" --epochs 3 --hidden 32 --input feat \
  --batch-size 64 2>"$tmp/products.log" | tail -n 1)
echo "$json"
check_json "$json" '
st = d
assert d["name"] == "ogbn-products" and d["split"] == "sales_ranking", d
assert st["model"] == "sage" and st["batch_size"] > 0 and st["fanouts"] == [5, 10, 15], d
assert st["batch_size"] == 64 and abs(st["lr"] - 0.003) < 1e-12 and st["dropout"] == 0.5, d
assert d["batches_per_epoch"] == (420 + 63) // 64 and d["last_epoch"] == 3, d
assert d["embedding_params"] == 0 and d["gnn_params"] > 0, d
# 4 classes (chance 0.25), h = 0.85, separated features: a SAGE learns it in 3 epochs
assert d["test_acc"] > 0.7, d'
grep -q "sampling" "$tmp/products.log"
# the TT input (paper default) on the same folder, two batches per epoch
json=$("$bin" ogb --name ogbn-products --root "$root" --epochs 1 --hidden 16 --emb-dim 20 \
  --batch-size 64 --max-batches 2 --order metis-hier 2>/dev/null | tail -n 1)
check_json "$json" '
assert d["input"] == "tt" and d["order"] == "metis-hier", d
assert d["embedding_params"] > 0 and d["compression"] > 1 and len(d["tt_n"]) == 3, d'

# ---- ogbn-papers100M: binary layout (data.npz, node-label.npz with NaN), split time
mkdir -p "$root/papers100M-bin/raw" "$root/papers100M-bin/split/time"
gen "$tmp/p" time 3
# numpy: Debian's python3-numpy (a pyenv python on PATH may lack it)
py=""
for c in /usr/bin/python3 python3; do
  if "$c" -c "import numpy" 2>/dev/null; then py=$c; break; fi
done
[ -n "$py" ] || { echo "no python3 with numpy (install python3-numpy)"; exit 1; }
"$py" - "$tmp/p" "$root/papers100M-bin" <<'EOF'
import gzip, sys, numpy as np
src, dst = sys.argv[1], sys.argv[2]
def table(name, dtype):
    with gzip.open(f"{src}/{name}.csv.gz", "rt") as f:
        return np.array([[float(x) for x in l.split(",")] for l in f if l.strip()], dtype=dtype)
edges = table("raw/edge", np.int64)
feat = table("raw/node-feat", np.float32)
label = table("raw/node-label", np.float64).reshape(-1)
n = feat.shape[0]
label[::50] = np.nan  # unlabelled nodes, as in papers100M
for s in ("train", "valid", "test"):
    ids = table(f"split/time/{s}", np.int64).reshape(-1)
    ids = ids[~np.isnan(label[ids])]
    with gzip.open(f"{dst}/split/time/{s}.csv.gz", "wt") as f:
        f.write("".join(f"{i}\n" for i in ids))
# papers100M stores each citation once (add_inverse_edge False): keep one direction
np.savez(f"{dst}/raw/data.npz", edge_index=edges.T.copy(), num_nodes_list=np.array([n]),
         num_edges_list=np.array([edges.shape[0]]), node_feat=feat,
         node_year=(2000 + np.arange(n) % 20).astype(np.int64))
np.savez(f"{dst}/raw/node-label.npz", node_label=label.astype(np.float32))
EOF
json=$("$bin" ogb --name ogbn-papers100M --root "$root" --epochs 2 --hidden 16 --input feat+tt \
  --emb-dim 16 --tt-rank 4 --batch-size 50 2>"$tmp/papers.log" | tail -n 1)
echo "$json"
check_json "$json" '
st = d
assert d["name"] == "ogbn-papers100M" and d["split"] == "time", d
assert st["fanouts"] == [12, 12, 12] and abs(st["lr"] - 0.001) < 1e-12 and st["dropout"] == 0.1, d
assert st["input"] == "feat+tt" and d["embedding_params"] > 0, d
assert d["num_nodes"] == 700 and 0 <= d["test_acc"] <= 1, d'

# ---- `ttgnn train --batch-size --fanout` (mini-batch GraphSAGE) on the bundled Cora
if [ -n "${2:-}" ]; then
  json=$("$bin" train --dataset "$2" --split planetoid --model sage --layers 2 --hidden 32 \
    --batch-size 64 --fanout 10,25 --epochs 20 --lr 0.01 --seed 1 --json 2>/dev/null | tail -n 1)
  echo "$json"
  check_json "$json" '
for k in ("test_acc", "valid_acc", "train_acc", "best_epoch", "gnn_params", "embedding_params",
          "compression", "epoch_time_s", "peak_rss_mb"):
    assert k in d, k
assert d["batches_per_epoch"] == 3 and d["fanouts"] == [10, 25], d
# Cora, 140 labelled nodes, 7 classes: GraphSAGE reaches ~0.75-0.80; 20 epochs of 3 batches
assert d["test_acc"] > 0.6, d'
  if "$bin" train --dataset "$2" --model gcn --batch-size 64 --epochs 1 2>/dev/null; then exit 1; fi
fi

# ---- errors: unknown name, missing folder
if "$bin" ogb --name ogbn-mag --root "$root" 2>/dev/null; then exit 1; fi
err=$("$bin" ogb --name ogbn-arxiv --root "$tmp/nowhere" 2>&1 >/dev/null || true)
grep -q "no ogbn-arxiv folder found" <<<"$err"
grep -q -- "--root $tmp/nowhere: folder does not exist" <<<"$err"
echo "ogb checks passed"
