#!/usr/bin/env bash
# `ttgnn train` end to end on the bundled Cora (short runs): the JSON line parses and has the
# required keys and every setting; progress lines on stderr; metrics CSV, curve SVG, embeddings
# .npy (N x d, float32) and the checkpoint are written without leftover temporary files;
# --resume continues at the saved epoch; a NaN loss exits with code 4 and keeps the last good
# checkpoint; bad options fail with a message.
set -eu
bin=$1
cora=$2
work=${3:-$(mktemp -d)}
rm -rf "$work"
mkdir -p "$work"
cd "$work"

common=(--dataset "$cora" --input tt --order metis-hier --init ortho --tt-rank 4 --emb-dim 16
        --hidden 16 --seed 3)

# 0. The README's first command (the main job) runs as written and prints accuracy and
#    compression.
readme=$(dirname "$cora")/../README.md
main_cmd=$(grep -m1 '^bash scripts/install-deps.sh && bash scripts/build.sh --app && build/bin/ttgnn train ' "$readme")
test -n "$main_cmd"
main_args=${main_cmd#*build/bin/ttgnn train }
main_args=${main_args//datasets\/cora/$cora}
# shellcheck disable=SC2086
"$bin" train $main_args --quiet >main.txt 2>main_err.txt
grep -q "^test accuracy 0\.[0-9]* " main.txt
grep -q "(compression 31.5x against a full table)" main.txt
tail -1 main.txt | python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); assert d["input"]=="tt" and d["test_acc"] > 0.55, d'

# 1. A short TT run with every output.
"$bin" train "${common[@]}" --epochs 4 --json --metrics-out m.csv --curve-svg c.svg \
  --export-embeddings e.npy --checkpoint run.ckpt >out.json 2>err.txt
test "$(wc -l <out.json)" -eq 1
python3 - out.json <<'PY'
import json, sys
d = json.loads(open(sys.argv[1]).read())
need = ["test_acc", "valid_acc", "train_acc", "best_epoch", "gnn_params", "embedding_params",
        "compression", "epoch_time_s", "peak_rss_mb", "prepare_peak_rss_mb",
        # every setting
        "dataset", "split", "model", "input", "order", "init", "tt_rank", "tt_shape", "tt_dims",
        "emb_dim", "hidden", "layers", "dropout", "epochs", "lr", "weight_decay", "optimizer",
        "patience", "seed", "checkpoint", "resume", "export_embeddings", "metrics_out",
        "curve_svg", "feature_norm", "lr_warmup", "plateau_factor",
        # the evaluator and the timings
        "metric", "test_metric", "valid_metric", "train_metric", "eval_time_s",
        "epoch_time_mean_s"]
missing = [k for k in need if k not in d]
assert not missing, missing
assert d["status"] == "completed", d
assert d["input"] == "tt" and d["order"] == "metis-hier" and d["tt_rank"] == 4, d
assert d["embedding_params"] > 0 and d["compression"] > 10, d
assert 0 <= d["test_acc"] <= 1 and 1 <= d["best_epoch"] <= 4, d
assert d["peak_rss_mb"] > 1 and d["epoch_time_s"] > 0, d
assert 1 < d["prepare_peak_rss_mb"] <= d["peak_rss_mb"], d
assert d["metric"] == "acc" and d["test_metric"] == d["test_acc"] and not d["multilabel"], d
# a learned table gets the table preset where the command line is silent
assert d["input_dropout"] == 0.5 and d["weight_decay"] == 0 and d["patience"] == 100, d
assert d["hidden"] == 16 and d["init"] == "ortho", d  # given on the command line
assert d["eval_time_s"] > 0 and d["epoch_time_mean_s"] > 0, d
assert d["split"] == "planetoid" and d["checkpoint_epoch"] == 4, d
# the README's recommended embedding settings are the defaults
assert d["init_std"] == 0.1 and d["emb_weight_decay"] == 0, d
PY
grep -q "^\[ *[0-9.]*s\] epoch    1/4  loss [0-9.]*  acc: train [0-9.]*  valid [0-9.]*  test [0-9.]*  lr .* s  ETA .* s$" err.txt
test "$(grep -c '] epoch ' err.txt)" -eq 4
grep -q "evaluator: accuracy (acc) on 7 classes" err.txt
test "$(head -1 m.csv)" = "epoch,loss,train_acc,valid_acc,test_acc,valid_loss,lr,epoch_time_s,train_time_s,eval_time_s"
test "$(wc -l <m.csv)" -eq 5
head -c 5 c.svg | grep -q "<?xml"
grep -q "<svg" c.svg
grep -q ">valid<" c.svg
grep -q ">selected epoch<" c.svg
grep -q "</svg>" c.svg
python3 - e.npy <<'PY'
import array, ast, math, struct, sys
raw = open(sys.argv[1], "rb").read()  # .npy by hand: numpy may be absent
assert raw[:6] == b"\x93NUMPY" and raw[6] == 1, raw[:8]
hlen = struct.unpack("<H", raw[8:10])[0]
head = ast.literal_eval(raw[10:10 + hlen].decode("latin1"))
assert head["descr"] == "<f4" and head["shape"] == (2708, 16) and not head["fortran_order"], head
assert (10 + hlen) % 64 == 0
values = array.array("f", raw[10 + hlen:])
assert len(values) == 2708 * 16
assert all(math.isfinite(v) for v in values) and max(abs(v) for v in values) > 0
PY
test -s run.ckpt
if ls | grep -q "\.tmp-"; then echo "temporary files left behind"; exit 1; fi

# 2. Resume: continues at epoch 5 and reaches epoch 6.
cp run.ckpt copy.ckpt # the epoch-4 checkpoint, resumed below from a copy of the dataset
"$bin" train "${common[@]}" --epochs 6 --json --checkpoint run.ckpt --resume --quiet \
  >resumed.json 2>/dev/null
python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).read()); assert d["first_epoch"]==5 and d["last_epoch"]==6, d' resumed.json
# The fingerprint holds what the data is, not where it lives: a copy of the dataset folder
# resumes the checkpoint and reaches what resuming from the original reached.
cp -r "$cora" cora_copy
"$bin" train "${common[@]}" --dataset cora_copy --epochs 6 --json --checkpoint copy.ckpt \
  --resume --quiet >copy.json 2>copy_err.txt || { cat copy_err.txt; exit 1; }
python3 - resumed.json copy.json <<'EOS'
import json, sys
a, b = (json.loads(open(p).read()) for p in sys.argv[1:3])
assert b["first_epoch"] == 5 and b["last_epoch"] == 6, b
assert (a["test_acc"], a["valid_acc"], a["best_epoch"]) == (b["test_acc"], b["valid_acc"], b["best_epoch"]), (a, b)
EOS
# Other data at the same counts (one node's label changed) is still refused.
python3 - cora_copy/raw <<'EOS'
import gzip, os, sys
raw = sys.argv[1]
name = [n for n in os.listdir(raw) if n.startswith("node-label")][0]
p = os.path.join(raw, name)
op = gzip.open if name.endswith(".gz") else open
lines = op(p, "rt").read().split("\n")
lines[0] = "1" if lines[0].strip() != "1" else "2"
with op(p, "wt") as f:
    f.write("\n".join(lines))
EOS
if "$bin" train "${common[@]}" --dataset cora_copy --epochs 6 --checkpoint copy.ckpt --resume \
  --quiet >/dev/null 2>other.txt; then exit 1; fi
grep -q "another model" other.txt
# A checkpoint of another model is refused.
if "$bin" train "${common[@]}" --hidden 8 --epochs 6 --checkpoint run.ckpt --resume --quiet \
  >/dev/null 2>wrong.txt; then exit 1; fi
grep -q "another model" wrong.txt

# 3. Human summary then the JSON line (features input, GCN, row-normalised).
"$bin" train --dataset "$cora" --input feat --feature-norm row --epochs 3 --quiet >sum.txt 2>/dev/null
grep -q "^test accuracy " sum.txt
tail -1 sum.txt | python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); assert d["compression"] is None and d["embedding_params"]==0, d'
"$bin" train --dataset "$cora" --model sage --input emb --init spectral --emb-dim 8 --epochs 2 \
  --quiet >sage.txt 2>/dev/null
grep -q "compression 1.0x" sage.txt
# Presets: features keep the member defaults; --preset kipf and --preset table by name.
preset() { # preset ARGS...: the JSON line of a 1-epoch run
  "$bin" train --dataset "$cora" --epochs 1 --quiet --json "$@" 2>/dev/null | tail -n 1
}
preset --input feat | python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); assert (d["hidden"], d["weight_decay"], d["input_dropout"], d["patience"], d["feature_norm"]) == (16, 5e-4, 0, 0, "none"), d'
preset --input feat --preset kipf | python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); assert (d["hidden"], d["weight_decay"], d["input_dropout"], d["feature_norm"]) == (16, 5e-4, 0.5, "row"), d'
preset --input emb --emb-dim 8 --preset kipf | python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); assert (d["hidden"], d["weight_decay"], d["init"]) == (16, 5e-4, "ortho"), d'
preset --input feat --preset table --hidden 8 | python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); assert (d["hidden"], d["weight_decay"], d["init"], d["epochs"], d["patience"]) == (8, 0, "spectral", 1, 100), d'
if "$bin" train --dataset "$cora" --preset tuned --epochs 1 >/dev/null 2>preset.err; then exit 1; fi
grep -q "unknown preset 'tuned': expected auto, kipf or table" preset.err
# ROC-AUC of a binary single-label task (--metric rocauc with 2 classes); refused with 7.
"$bin" generate --out binary --nodes 600 --classes 2 --homophily 0.9 --communities 2 --features 8 \
  --seed 5 >/dev/null 2>&1
"$bin" train --dataset binary --input feat --metric rocauc --epochs 30 --quiet --json 2>/dev/null |
  tail -n 1 | python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); assert d["metric"] == "rocauc" and "test_acc" not in d and 0.75 < d["test_metric"] <= 1, d'
# A meta.csv that names rocauc makes it the default; --metric acc still overrides it.
sed -i 's/^eval metric,acc$/eval metric,rocauc/' binary/meta.csv
grep -q "^eval metric,rocauc$" binary/meta.csv
"$bin" train --dataset binary --input feat --epochs 2 --quiet --json 2>/dev/null | tail -n 1 |
  python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); assert d["metric"] == "rocauc", d'
"$bin" train --dataset binary --input feat --metric acc --epochs 2 --quiet --json 2>/dev/null |
  tail -n 1 | python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); assert d["metric"] == "acc", d'
if "$bin" train --dataset "$cora" --metric rocauc --epochs 1 >/dev/null 2>auc.err; then exit 1; fi
grep -q "single-label with 7 classes (ROC-AUC needs 2 classes" auc.err

# 4. A huge learning rate: exit code 4, a message, the last good checkpoint kept.
set +e
"$bin" train "${common[@]}" --epochs 20 --lr 1e30 --emb-lr 1e30 --checkpoint nan.ckpt \
  --quiet >nan.txt 2>nan_err.txt
code=$?
set -e
test "$code" -eq 4
grep -q "training stopped, the checkpoint nan.ckpt keeps epoch" nan_err.txt
test -s nan.ckpt
tail -1 nan.txt | python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); assert d["status"]=="nonfinite" and d["checkpoint_epoch"]>=1, d'

# 5. Bad settings fail with a message and exit code 1.
set +e
"$bin" train --dataset "$cora" --model gat --epochs 1 >/dev/null 2>bad.txt
test $? -eq 1 || exit 1
grep -q "unknown model 'gat'" bad.txt
"$bin" train --dataset "$cora" --input feat --epochs 1 --export-embeddings x.npy >/dev/null 2>bad2.txt
test $? -eq 1 || exit 1
grep -q "has no embedding table" bad2.txt
"$bin" train --dataset "$cora" --input tt --tt-dims 4,4 --emb-dim 64 --epochs 1 >/dev/null 2>bad3.txt
test $? -eq 1 || exit 1
grep -q "multiply to 16" bad3.txt
# A missing dataset folder is named as such (not "choose a split").
"$bin" train --dataset "$work/no_such_dataset" --epochs 1 >/dev/null 2>bad4.txt
test $? -eq 1 || exit 1
grep -q -- "--dataset $work/no_such_dataset: dataset folder does not exist" bad4.txt
# Unwritable output paths fail before loading or training, naming the option and the path.
for opt in --metrics-out --curve-svg --export-embeddings --checkpoint; do
  "$bin" train "${common[@]}" --epochs 50 "$opt" "$work/no_dir/out.file" >/dev/null 2>bad5.txt
  test $? -eq 1 || exit 1
  grep -q -- "$opt $work/no_dir/out.file: folder $work/no_dir does not exist" bad5.txt
  if grep -q "epoch \|loading" bad5.txt; then echo "$opt checked too late"; exit 1; fi
done
"$bin" train "${common[@]}" --epochs 1 --metrics-out "$work" >/dev/null 2>bad6.txt
test $? -eq 1 || exit 1
grep -q -- "--metrics-out $work: is a folder" bad6.txt
set -e
# --quiet: nothing on stderr (no loading notes, no epochs), the summary and JSON on stdout.
"$bin" train "${common[@]}" --epochs 2 --quiet >quiet.txt 2>quiet_err.txt
test ! -s quiet_err.txt || { cat quiet_err.txt; exit 1; }
tail -1 quiet.txt | python3 -c 'import json,sys; json.loads(sys.stdin.read())'
# ttgnn --version / ttgnn version: both versions; listed in the help.
"$bin" --version >version.txt
grep -q "^ttgnn [0-9][0-9.]*$" version.txt
grep -q "^Kokkos [0-9][0-9.]*$" version.txt
"$bin" version | cmp - version.txt
"$bin" --help | grep -q "^  version "
echo "train CLI checks passed"
