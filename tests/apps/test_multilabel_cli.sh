#!/usr/bin/env bash
# Multi-label node classification end to end: `ttgnn generate --multilabel T` writes a graph in
# ogbn-proteins' layout (T binary columns in raw/node-label, raw/edge-feat, split `species`, no
# node features); `ttgnn train` (full batch and mini-batch) and `ttgnn ogb --name ogbn-proteins`
# train on it, print the evaluator and report the metric by name in the JSON; the learned
# ROC-AUC is far above chance (0.5); --metric picks micro/macro-F1; mismatched metrics and
# --warmup (the warm-up is --lr-warmup) fail with a message; `ttgnn info` reports labelled
# nodes, positive rates and the label-set Jaccard homophily.
set -eu
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check_json() { # $1 = JSON line, $2 = python assertions on d
  python3 -c "import json,sys; d=json.loads(sys.argv[1]); $2" "$1"
}

# A proteins-shaped graph: 12 tasks, 8 edge features, species split, 5% unknown entries.
root=$tmp/root
"$bin" generate --out "$root/proteins" --nodes 1500 --classes 5 --communities 4 \
  --homophily 0.9 --community-fraction 0.9 --avg-degree 10 --features 0 --multilabel 12 \
  --label-noise 0.1 --unknown-labels 0.05 --edge-features 8 --split-name species --seed 4 \
  >"$tmp/gen.json" 2>/dev/null
test "$(zcat "$root/proteins/raw/node-label.csv.gz" | wc -l)" -eq 1500
test "$(zcat "$root/proteins/raw/node-label.csv.gz" | head -1 | tr ',' '\n' | wc -l)" -eq 12
test "$(zcat "$root/proteins/raw/edge-feat.csv.gz" | head -1 | tr ',' '\n' | wc -l)" -eq 8
zcat "$root/proteins/raw/node-label.csv.gz" | grep -q nan
grep -q "^eval metric,rocauc$" "$root/proteins/meta.csv"

# ttgnn info: labelled nodes, per-task positive rates and the label-set Jaccard homophily (the
# single-label homophilies are undefined: null); homophily 0.9 with 10% label noise keeps
# neighbours' label sets close, far above 0.
json=$("$bin" info --dataset "$root/proteins" --json 2>/dev/null)
check_json "$json" '
assert d["multilabel"] is True and d["num_classes"] == 12, d
assert 1400 <= d["num_labelled"] <= 1500, d
assert len(d["task_positive_rate"]) == 12 and all(0 < r < 1 for r in d["task_positive_rate"]), d
assert d["edge_homophily"] is None and 0.2 < d["label_jaccard_homophily"] <= 1, d'
"$bin" info --dataset "$root/proteins" 2>/dev/null | grep -q "^tasks            12 binary"
"$bin" info --dataset "$root/proteins" 2>/dev/null | grep -q "^homophily        label-set Jaccard 0\.[0-9]*"

# ttgnn train, full batch: ROC-AUC by default, far above chance.
json=$("$bin" train --dataset "$root/proteins" --input emb --emb-dim 16 --init-std 0.1 \
  --emb-weight-decay 0 --weight-decay 0 --hidden 32 --dropout 0.2 --lr 0.02 --epochs 60 \
  --json 2>"$tmp/train.log" | tail -n 1)
echo "$json"
check_json "$json" '
assert d["metric"] == "rocauc" and d["multilabel"] is True and d["num_classes"] == 12, d
assert "test_acc" not in d, d  # ROC-AUC is never reported under an accuracy key
assert d["test_metric"] > 0.75 and d["valid_metric"] > 0.75, d
assert d["epoch_time_s"] > 0 and d["eval_time_s"] > 0 and d["input_dropout"] == 0.5, d'  # table preset
grep -q "evaluator: ROC-AUC (rocauc) on 12 binary tasks" "$tmp/train.log"

# micro-F1 instead, with the per-epoch metric in the CSV header.
json=$("$bin" train --dataset "$root/proteins" --input emb --emb-dim 16 --init-std 0.1 \
  --emb-weight-decay 0 --weight-decay 0 --hidden 32 --dropout 0.2 --lr 0.02 --epochs 40 \
  --metric f1_micro --metrics-out "$tmp/m.csv" --quiet --json 2>/dev/null | tail -n 1)
echo "$json"
check_json "$json" 'assert d["metric"] == "f1_micro" and d["test_metric"] > 0.75, d'
head -1 "$tmp/m.csv" | grep -q "^epoch,loss,train_f1_micro,valid_f1_micro,test_f1_micro,"

# ttgnn train, mini-batch GraphSAGE.
json=$("$bin" train --dataset "$root/proteins" --model sage --batch-size 128 --fanout 10,10 \
  --input emb --emb-dim 16 --init-std 0.1 --emb-lr 0.05 --weight-decay 0 --hidden 32 \
  --dropout 0.1 --lr 0.01 --epochs 10 --json 2>"$tmp/mb.log" | tail -n 1)
echo "$json"
check_json "$json" '
assert d["metric"] == "rocauc" and d["test_metric"] > 0.75, d
assert d["eval_time_s"] > 0 and d["epoch_time_mean_s"] > 0, d'
grep -q "evaluator: ROC-AUC (rocauc)" "$tmp/mb.log"

# ttgnn ogb --name ogbn-proteins: the preset (GraphSAGE, full batch, species split) shrunk.
json=$("$bin" ogb --name ogbn-proteins --root "$root" --epochs 30 --hidden 32 --layers 2 \
  --emb-dim 16 --tt-rank 4 2>"$tmp/ogb.log" | tail -n 1)
echo "$json"
check_json "$json" '
s = d
assert d["name"] == "ogbn-proteins" and d["split"] == "species", d
assert s["model"] == "sage" and s["batch_size"] == 0 and s["dropout"] == 0 and s["input"] == "tt", d
assert d["metric"] == "rocauc" and d["multilabel"] is True and 0.5 < d["test_metric"] <= 1, d'
grep -q "raw/edge-feat (8 edge features) is not used" "$tmp/ogb.log"
grep -q "evaluator: ROC-AUC (rocauc) on 12 binary tasks" "$tmp/ogb.log"

# Mismatched metrics and the renamed option fail with a message.
if "$bin" train --dataset "$root/proteins" --input emb --epochs 1 --metric acc \
  >/dev/null 2>"$tmp/err.txt"; then exit 1; fi
grep -q "the dataset is multi-label" "$tmp/err.txt"
if "$bin" train --dataset "$root/proteins" --input emb --epochs 1 --warmup 2 \
  >/dev/null 2>"$tmp/err.txt"; then exit 1; fi
grep -q "the learning-rate warm-up is --lr-warmup" "$tmp/err.txt"
echo "multilabel cli: ok"
