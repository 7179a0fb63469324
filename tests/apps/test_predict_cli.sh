#!/usr/bin/env bash
# `ttgnn predict`: a checkpoint of `ttgnn train` evaluated alone. The test accuracy it prints
# is recomputed here from its logits (.npy, original node order), the labels and the split
# files; the logits equal those written at the end of training; a copy of the dataset
# elsewhere is accepted, other data is refused with a message; a mini-batch checkpoint is
# evaluated the same way.
set -eu
bin=$1
cora=$2
work=${3:-$(mktemp -d)}
rm -rf "$work"
mkdir -p "$work"
cd "$work"
py=""
for c in /usr/bin/python3 python3; do
  if "$c" -c "import numpy" 2>/dev/null; then py=$c; break; fi
done
[ -n "$py" ] || { echo "no python3 with numpy (install python3-numpy)"; exit 1; }

"$bin" train --dataset "$cora" --split planetoid --input feat+tt --order metis --emb-dim 16 \
  --tt-rank 4 --epochs 15 --seed 7 --checkpoint run.ckpt --predictions trained.npy --quiet \
  --json >train.json
cp -r "$cora" cora_copy
"$bin" predict --checkpoint run.ckpt --dataset cora_copy --predictions evaluated.npy \
  --export-embeddings emb.npy --quiet >predict.txt
grep -q "^accuracy of the parameters of epoch [0-9]* (checkpoint at epoch 15): test 0\." predict.txt
tail -1 predict.txt >predict.json
"$py" - "$cora" train.json predict.json <<'PY'
import gzip, json, sys
import numpy as np
cora, train, pred = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
def ints(path):
    with gzip.open(path, "rt") as f:
        return np.array([int(l.split(",")[0]) for l in f if l.strip()])
labels = ints(f"{cora}/raw/node-label.csv.gz")
test = ints(f"{cora}/split/planetoid/test.csv.gz")
logits = np.load("evaluated.npy")
assert logits.shape == (labels.size, 7) and logits.dtype == np.float32, logits.shape
acc = float((logits[test].argmax(1) == labels[test]).mean())
assert abs(acc - pred["test_acc"]) < 1e-9, (acc, pred["test_acc"])
assert abs(pred["test_acc"] - train["test_acc"]) < 1e-9, (pred, train)
assert pred["best_epoch"] == train["best_epoch"] and pred["checkpoint_epoch"] == 15, pred
assert np.array_equal(np.load("trained.npy"), logits)
emb = np.load("emb.npy")
assert emb.shape == (labels.size, 16) and np.isfinite(emb).all(), emb.shape
PY

# other data is refused
"$py" - cora_copy <<'PY'
import gzip, sys
p = f"{sys.argv[1]}/raw/node-label.csv.gz"
rows = gzip.open(p, "rt").read().split()
rows[0] = str((int(rows[0]) + 1) % 7)
with gzip.open(p, "wt") as f:
    f.write("\n".join(rows) + "\n")
PY
if "$bin" predict --checkpoint run.ckpt --dataset cora_copy --quiet >/dev/null 2>err.txt; then exit 1; fi
grep -q "error:.*run.ckpt" err.txt
# a mini-batch checkpoint: the same loop, evaluated by layer-wise inference (with TT rows on a
# metis-hier order, whose rows have holes): scores and logits equal those after training
"$bin" train --dataset "$cora" --split planetoid --model sage --batch-size 64 --fanout 5,5 \
  --input tt --order metis-hier --emb-dim 16 --tt-rank 4 --epochs 3 --seed 3 \
  --checkpoint mb.ckpt --predictions mb_trained.npy --export-embeddings mb_emb.npy \
  --quiet --json >mb_train.json
"$bin" predict --checkpoint mb.ckpt --dataset "$cora" --predictions mb_evaluated.npy \
  --export-embeddings mb_emb2.npy --quiet --json >mb_predict.json
"$py" - "$cora" mb_train.json mb_predict.json <<'PY'
import gzip, json, sys
import numpy as np
cora, train, pred = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
with gzip.open(f"{cora}/raw/node-label.csv.gz", "rt") as f:
    labels = np.array([int(l.split(",")[0]) for l in f if l.strip()])
with gzip.open(f"{cora}/split/planetoid/test.csv.gz", "rt") as f:
    test = np.array([int(l) for l in f if l.strip()])
logits = np.load("mb_evaluated.npy")
assert logits.shape == (labels.size, 7), logits.shape
assert np.array_equal(np.load("mb_trained.npy"), logits)
acc = float((logits[test].argmax(1) == labels[test]).mean())
assert abs(acc - pred["test_acc"]) < 1e-9 and abs(acc - train["test_acc"]) < 1e-9, (acc, pred, train)
emb = np.load("mb_emb.npy")
assert emb.shape == (labels.size, 16) and np.isfinite(emb).all(), emb.shape
assert np.array_equal(emb, np.load("mb_emb2.npy"))
assert len(np.unique(emb.round(6), axis=0)) > labels.size // 2  # rows of distinct nodes differ
PY
if "$bin" predict --checkpoint missing.ckpt >/dev/null 2>err.txt; then exit 1; fi
grep -q "missing.ckpt" err.txt
echo "predict: OK"
