#!/usr/bin/env bash
# Crash safety of `ttgnn train` (full batch and mini-batch): a run killed with SIGKILL after it wrote a
# checkpoint leaves a checkpoint that loads, and resuming it reaches bit for bit the result of an
# uninterrupted run with the same seed (final JSON accuracies and selected epoch, the per-epoch
# metrics less the timing column, the exported embeddings). The run uses everything a resume
# must restore: Adam moments and step counts of both optimizers (GNN, embedding with its own
# lr), warm-up and reduce-on-plateau state, early-stopping and best-model state, BatchNorm
# statistics and the dropout mask counters; the mini-batch case (neighbour-sampled GraphSAGE
# on a TT embedding) the same less the schedule, with the sampler's (seed, epoch, batch)
# streams. Damaged checkpoints (truncated, a flipped byte) are
# refused with a message; a stray temporary file of the atomic write is never read, and the
# resumed run removes it.
set -eu
bin=$(realpath "$1")
cora=$(realpath "$2")
work=${3:-$(mktemp -d)}
rm -rf "$work"
mkdir -p "$work"
cd "$work"

# Strips the timing/memory fields from the JSON line and the settings that name the output
# files (those differ between the runs on purpose).
strip_json() {
  python3 - "$1" <<'PY'
import json, sys
d = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
drop = {"peak_rss_mb", "prepare_peak_rss_mb", "checkpoint", "resume", "export_embeddings",
        "metrics_out", "curve_svg", "first_epoch", "checkpoint_epoch"}
d.pop("memory", None)  # peaks measured by the run (a resumed run sees fewer batches)
for k in list(d):
    if k in drop or "_time" in k or k.endswith("_seconds"):
        del d[k]
print(json.dumps(d, sort_keys=True))
PY
}

# run_case NAME EPOCHS DAMAGED ARGS...: reference run, killed run, damaged-checkpoint checks
# (when DAMAGED is 1), resumed run. Settings (defaults: the full-batch cases): every=
# checkpoint interval, kill_after= epochs done before the kill, cols= CSV columns compared
# (all but the timing one), npy=1 to export and compare the embeddings.
every=5 kill_after=12 cols=1-7 npy=1
run_case() {
  local name=$1 epochs=$2 damaged=$3
  shift 3
  local args=("$@" --seed 7 --epochs "$epochs" --checkpoint-every "$every" --json)
  local ref_npy=() out_npy=()
  if [ "$npy" = 1 ]; then
    ref_npy=(--export-embeddings "$name.ref.npy")
    out_npy=(--export-embeddings "$name.npy")
  fi

  # 1. Uninterrupted reference.
  "$bin" train "${args[@]}" --checkpoint "$name.ref.ckpt" --metrics-out "$name.ref.csv" \
    "${ref_npy[@]}" --quiet >"$name.ref.json" 2>"$name.ref.err"
  python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).read()); assert d["last_epoch"] > 20, d' \
    "$name.ref.json"

  # 2. The same run, killed with SIGKILL once it has written a checkpoint and finished
  #    $kill_after epochs.
  "$bin" train "${args[@]}" --checkpoint "$name.ckpt" --metrics-out "$name.csv" \
    "${out_npy[@]}" >"$name.killed.json" 2>"$name.killed.err" &
  local pid=$!
  local waited=0
  while :; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "$name: the run ended before it could be killed"
      exit 1
    fi
    if [ -s "$name.ckpt" ] && [ "$(grep -c '] epoch ' "$name.killed.err" || true)" -ge "$kill_after" ]; then
      break
    fi
    sleep 0.02
    waited=$((waited + 1))
    if [ "$waited" -gt 3000 ]; then
      echo "$name: no checkpoint after 60 s"
      kill -9 "$pid"
      exit 1
    fi
  done
  kill -9 "$pid"
  local code=0
  wait "$pid" || code=$?
  test "$code" -eq 137 || { echo "$name: exit code $code, expected 137 (SIGKILL)"; exit 1; }
  local killed_at
  killed_at=$(grep -c '] epoch ' "$name.killed.err" || true)
  local ref_last
  ref_last=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).read())["last_epoch"])' \
    "$name.ref.json")
  test "$killed_at" -lt "$ref_last" || { echo "$name: killed after the last epoch"; exit 1; }
  test ! -s "$name.killed.json" # no JSON line: it died mid-run
  test ! -e "$name.npy"

  # 3. The checkpoint left behind is whole (step 4 resumes it); damaged copies are refused
  #    with a clear message.
  local size
  size=$(wc -c <"$name.ckpt")
  if [ "$damaged" = 1 ]; then
  head -c $((size - 9)) "$name.ckpt" >"$name.trunc.ckpt"
  if "$bin" train "${args[@]}" --checkpoint "$name.trunc.ckpt" --resume --quiet \
    >/dev/null 2>"$name.trunc.err"; then
    echo "$name: a truncated checkpoint was accepted"
    exit 1
  fi
  grep -q "$name.trunc.ckpt: truncated checkpoint" "$name.trunc.err"
  head -c 40 "$name.ckpt" >"$name.short.ckpt"
  if "$bin" train "${args[@]}" --checkpoint "$name.short.ckpt" --resume --quiet \
    >/dev/null 2>"$name.short.err"; then
    echo "$name: a 40-byte checkpoint was accepted"
    exit 1
  fi
  grep -q "$name.short.ckpt: .*truncated" "$name.short.err"
  python3 - "$name.ckpt" "$name.flip.ckpt" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[len(b) // 2] ^= 0x10
open(sys.argv[2], "wb").write(bytes(b))
PY
  if "$bin" train "${args[@]}" --checkpoint "$name.flip.ckpt" --resume --quiet \
    >/dev/null 2>"$name.flip.err"; then
    echo "$name: a corrupt checkpoint was accepted"
    exit 1
  fi
  grep -q "$name.flip.ckpt: checksum mismatch" "$name.flip.err"
  fi
  # A temporary file of an interrupted atomic write (real, or this planted one) is never read,
  # and training removes such leftovers.
  printf 'garbage' >"$name.ckpt.tmp-AbC123"

  # 4. Resume to the end: the same result as the uninterrupted run.
  "$bin" train "${args[@]}" --checkpoint "$name.ckpt" --metrics-out "$name.csv" \
    "${out_npy[@]}" --resume --quiet >"$name.resumed.json" 2>"$name.resumed.err"
  python3 - "$name.resumed.json" "$killed_at" "$every" <<'PY'
import json, sys
d = json.loads(open(sys.argv[1]).read())
killed_at, every = int(sys.argv[2]), int(sys.argv[3])
# The checkpoint holds a multiple of `every` at most one epoch past the last progress line (the
# checkpoint is written before the epoch's line is printed).
assert d["first_epoch"] > 1 and d["first_epoch"] - 1 <= killed_at + 1, (d["first_epoch"], killed_at)
assert (d["first_epoch"] - 1) % every == 0, d["first_epoch"]
PY
  diff <(strip_json "$name.ref.json") <(strip_json "$name.resumed.json") ||
    { echo "$name: resumed JSON differs from the uninterrupted run"; exit 1; }
  diff <(cut -d, -f"$cols" "$name.ref.csv") <(cut -d, -f"$cols" "$name.csv") ||
    { echo "$name: resumed metrics differ from the uninterrupted run"; exit 1; }
  if [ "$npy" = 1 ]; then
    cmp "$name.ref.npy" "$name.npy" ||
      { echo "$name: resumed embeddings differ from the uninterrupted run"; exit 1; }
  fi
  if ls | grep -q "\.tmp-"; then
    echo "$name: temporary files left behind:" $(ls | grep "\.tmp-")
    exit 1
  fi
  python3 - "$name.ref.json" "$name.resumed.json" "$killed_at" <<'PY'
import json, sys
a, b = (json.loads(open(p).read()) for p in sys.argv[1:3])
print("%s: killed after epoch %s, resumed from %d: test %.4f valid %.4f train %.4f best epoch %d "
      "last %d (uninterrupted: test %.4f valid %.4f train %.4f best epoch %d last %d)" % (
      sys.argv[1].split(".")[0], sys.argv[3], b["first_epoch"] - 1, b["test_acc"], b["valid_acc"],
      b["train_acc"], b["best_epoch"], b["last_epoch"], a["test_acc"], a["valid_acc"],
      a["train_acc"], a["best_epoch"], a["last_epoch"]))
PY
}

# GCN on a TT embedding: both optimizers, schedule, early stopping, BatchNorm, dropout.
run_case gcn_tt 45 1 --dataset "$cora" --model gcn --input tt --init ortho --tt-rank 4 \
  --emb-dim 16 --hidden 16 --dropout 0.5 --batch-norm --lr 0.01 --emb-lr 0.02 --lr-warmup 5 \
  --plateau-factor 0.5 --plateau-patience 5 --patience 20
# GraphSAGE on features + a full embedding table, AdamW.
run_case sage_emb 40 0 --dataset "$cora" --model sage --input feat+emb --init gaussian \
  --emb-dim 8 --hidden 16 --dropout 0.5 --optimizer adamw --lr-warmup 3 --patience 15
# Mini-batch GraphSAGE (neighbour sampling) on a TT embedding with its own lr: both
# optimizers, BatchNorm, dropout, early stopping and the selected parameters; every epoch is
# checkpointed. No embedding export in mini-batch mode; the CSV's timing column is the 6th.
every=1 kill_after=20 cols=1-5 npy=0
run_case sage_mb 150 1 --dataset "$cora" --model sage --input tt --batch-size 16 --fanout 5,5 \
  --hidden 32 --emb-dim 16 --tt-rank 4 --batch-norm --dropout 0.5 --emb-lr 0.02 --patience 20
# A full-batch checkpoint is not one of the mini-batch trainer (and the other way round).
if "$bin" train --dataset "$cora" --model sage --input tt --batch-size 16 --fanout 5,5 \
  --checkpoint gcn_tt.ckpt --resume --quiet >/dev/null 2>cross.err; then
  echo "a full-batch checkpoint was resumed by the mini-batch trainer"
  exit 1
fi
grep -q "gcn_tt.ckpt: not a checkpoint of the mini-batch trainer" cross.err
echo "crash/resume checks passed"
