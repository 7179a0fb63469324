#!/usr/bin/env bash
# What a run promises about the files it was given and wrote (docs/CLI.md, "Exit codes"), one
# case per class of mistake: outputs that collide with each other or with an input, a failed
# run (non-finite loss), sizes beyond the machine's memory, thread counts, inputs and options
# that contradict each other, TT shape errors. Every refused case must exit 1 before any work,
# name the option(s) or file(s) in its message, print nothing on stdout, create no file and
# change no existing one.
#
#   test_run_contract.sh <ttgnn binary> <cora dataset folder> <scratch folder>
set -euo pipefail
bin=$1
cora=$2
work=$3
rm -rf "$work"
mkdir -p "$work"
cd "$work"
export OMP_WAIT_POLICY=passive

die() {
  echo "FAIL: $*" >&2
  for f in out err; do
    [[ -f $f ]] && sed "s|^|  $f: |" "$f" >&2
  done
  exit 1
}

# A copy of the dataset that cases may name as outputs (the refusal must leave it intact).
cp -r "$cora" data
snapshot() { find . -path ./out -prune -o -path ./err -prune -o -type f -print0 | sort -z | xargs -0 md5sum; }

# refused NAME MESSAGE... -- COMMAND...: exit status 1, every MESSAGE (fixed string) on stderr,
# nothing on stdout, no file created or changed anywhere under the scratch folder.
refused() {
  local name=$1 wants=() rc=0
  shift
  while [[ $1 != -- ]]; do
    wants+=("$1")
    shift
  done
  shift
  local before
  before=$(snapshot)
  timeout 60 "$@" >out 2>err || rc=$?
  [[ $rc -eq 1 ]] || die "$name: exit status $rc, expected 1"
  for want in "${wants[@]}"; do
    grep -qF -- "$want" err || die "$name: stderr lacks: $want"
  done
  [[ ! -s out ]] || die "$name: printed on stdout"
  [[ $(snapshot) == "$before" ]] || die "$name: files created or changed"
  echo "ok   $name: $(tail -n 1 err)"
}

train=("$bin" train --dataset data --epochs 2 --quiet)
"${train[@]}" --input tt --checkpoint good.ckpt --json >/dev/null
echo "old predictions" >p.npy
ln -s good.ckpt link.ckpt

# 1. outputs never alias each other or an input
refused "two outputs, one file" --checkpoint --metrics-out "name the same file" -- \
  "${train[@]}" --checkpoint x.ckpt --metrics-out x.ckpt
refused "predictions onto the checkpoint" --checkpoint --predictions -- \
  "$bin" predict --checkpoint good.ckpt --predictions good.ckpt --quiet
refused "predictions onto a link to the checkpoint" --checkpoint --predictions link.ckpt -- \
  "$bin" predict --checkpoint good.ckpt --predictions link.ckpt --quiet
refused "embeddings and predictions" --predictions --export-embeddings -- \
  "$bin" predict --checkpoint good.ckpt --predictions p.npy --export-embeddings ./p.npy --quiet
refused "an output onto a dataset file" "--dataset data" --metrics-out -- \
  "${train[@]}" --metrics-out data/raw/edge.csv.gz
refused "curve onto predictions" --predictions --curve-svg -- \
  "${train[@]}" --predictions p.npy --curve-svg p.npy
refused "an output onto a device" "--metrics-out /dev/null: is not a regular file" -- \
  "${train[@]}" --metrics-out /dev/null
refused "partition --save onto a dataset file" --save --dataset -- \
  "$bin" partition --dataset data --order original --save data/raw/edge.csv.gz

# 2. a run stopped on non-finite values (exit 4) writes none of its outputs
for f in m.csv c.svg e.npy; do echo "old $f" >"$f"; done
before=$(snapshot)
rc=0
"${train[@]}" --input tt --epochs 20 --lr 1e30 --emb-lr 1e30 --predictions p.npy \
  --export-embeddings e.npy --metrics-out m.csv --curve-svg c.svg >out 2>err || rc=$?
[[ $rc -eq 4 ]] || die "non-finite run: exit status $rc, expected 4"
grep -qF "no output file written" err || die "non-finite run: no word on the outputs"
[[ $(snapshot) == "$before" ]] || die "non-finite run: outputs written or changed"
echo "ok   non-finite run: exit 4, outputs untouched"

# 3. sizes beyond this machine's memory: exit 1 naming the option, before any work
refused "huge TT rank" "--tt-rank 100000" "of memory of this machine" -- \
  "${train[@]}" --input tt --tt-rank 100000
refused "huge table width" "--emb-dim 1000000000" -- \
  "${train[@]}" --input emb --emb-dim 1000000000
refused "huge hidden width" "--hidden 2000000000" -- "${train[@]}" --hidden 2000000000
printf '0 1\n1 2\n' >edges.txt
refused "huge edge-list node count" "--num-nodes" -- \
  "$bin" info --dataset edges.txt --num-nodes 1000000000000
mkdir ckpt_folder
refused "a checkpoint that is a folder" "ckpt_folder: is a folder" -- \
  "$bin" predict --checkpoint ckpt_folder

# 4. thread counts: a positive number up to the host backend's limit (no abort, no hang)
for v in 0 -1 abc 600 513 2x; do
  refused "--kokkos-num-threads=$v" "--kokkos-num-threads '$v'" -- \
    "$bin" config --kokkos-num-threads="$v"
done
refused "--kokkos-num-threads without =" "--kokkos-num-threads=N" -- \
  "$bin" config --kokkos-num-threads 2
refused "OMP_NUM_THREADS=0" "OMP_NUM_THREADS '0'" -- env OMP_NUM_THREADS=0 "$bin" config
"$bin" config --kokkos-num-threads=2 --json >/dev/null || die "2 threads refused"
echo "ok   --kokkos-num-threads=2 runs"

# 5. contradictions: overlapping split sets, options the other settings make meaningless
cp -r data overlap
split=$(sed -n "s/^split,//p" overlap/meta.csv)
first_train=$(zcat "overlap/split/$split/train.csv.gz" | head -n 1)
zcat "overlap/split/$split/test.csv.gz" >test.csv
echo "$first_train" >>test.csv
gzip -c test.csv >"overlap/split/$split/test.csv.gz"
rm test.csv
refused "a node in train and test" "test.csv.gz" "train.csv.gz" \
  "node $first_train is also listed in" -- "$bin" train --dataset overlap --epochs 1 --quiet
refused "--fanout without --batch-size" "--fanout" "--batch-size" -- "${train[@]}" --fanout 5,5
refused "--checkpoint-every without --checkpoint" "--checkpoint-every" -- \
  "${train[@]}" --checkpoint-every 2
refused "--init with --input feat" "--init" "--input feat" -- "${train[@]}" --input feat --init ortho
refused "--tt-rank with a full table" "--tt-rank" "--input emb" -- \
  "${train[@]}" --input emb --tt-rank 4
refused "--spectral-exponent without the spectral init" "--spectral-exponent" -- \
  "${train[@]}" --input tt --init ortho --spectral-exponent 1
refused "--plateau-patience without a plateau factor" "--plateau-patience" -- \
  "${train[@]}" --plateau-patience 3
refused "--parts with metis-hier" "--parts" "--order metis" -- \
  "$bin" partition --dataset data --order metis-hier --parts 4
refused "--label-noise without --multilabel" "--label-noise" "--multilabel" -- \
  "$bin" generate --out gen --nodes 100 --label-noise 0.2
refused "--num-nodes on a folder" "--num-nodes" -- "$bin" info --dataset data --num-nodes 5

# 6. TT shape errors name the options typed
refused "a zero column factor" "--tt-dims 0,8,8" -- "${train[@]}" --input tt --tt-dims 0,8,8
refused "too few rows" "--tt-shape" "2,2,2" -- "${train[@]}" --input tt --tt-shape 2,2,2
refused "factor counts differ" "--tt-shape 20,20,20" "--tt-dims 8,8" -- \
  "${train[@]}" --input tt --tt-shape 20,20,20 --tt-dims 8,8
refused "five cores" "--tt-shape" -- "${train[@]}" --input tt --tt-shape 8,8,8,8,8

[[ -z $(find . -name '*.tmp-*') ]] || die "temporary files left: $(find . -name '*.tmp-*')"
echo "all cases passed"
