#!/usr/bin/env bash
# Failure of one rank in `mpirun -np 2 ttgnn train --batch-size ...` (docs/DISTRIBUTED.md): a
# rank killed with SIGKILL mid-run makes the launcher end the other one (no hang: checked
# with a deadline) with a message naming the dead rank; rank 0's last checkpoint then resumes
# on 2 ranks and reaches the losses and scores of an uninterrupted 2-rank run bit for bit.
#
#   test_distributed_kill.sh TTGNN_BIN WORK_DIR MPIEXEC [MPIEXEC FLAGS...]
set -eu
bin=$(realpath "$1")
work=$2
shift 2
mpi=("$@")
rm -rf "$work"
mkdir -p "$work"
cd "$work"
"$bin" generate --out data --nodes 12000 --classes 4 --avg-degree 10 --features 8 --seed 1 \
  >/dev/null 2>&1
args=(train --dataset data --model sage --layers 2 --hidden 32 --batch-size 128 --fanout 5,10
  --input tt --emb-dim 16 --tt-rank 4 --epochs 10 --eval-every 5 --seed 3 --checkpoint-every 1
  --json)
# Everything but timings and output paths.
strip() {
  python3 - "$1" <<'PY'
import json, sys
d = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
d.pop("memory", None)  # peaks measured by the run (a resumed run sees fewer batches)
for k in list(d):
    if "time" in k or "seconds" in k or k.endswith("peak_rss_mb") or k in {
            "checkpoint", "resume", "first_epoch", "checkpoint_epoch", "metrics_out",
            "comm_bytes_per_step"}:
        del d[k]
print(json.dumps(d, sort_keys=True))
PY
}

# 1. Uninterrupted 2-rank reference.
"${mpi[@]}" "$bin" "${args[@]}" --checkpoint ref.ck --metrics-out ref.csv >ref.json 2>ref.err
python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).read()); assert d["ranks"] == 2, d' ref.json

# 2. The same run; one rank killed once rank 0 has checkpointed 3 epochs.
"${mpi[@]}" "$bin" "${args[@]}" --checkpoint run.ck --metrics-out run.csv >killed.json \
  2>killed.err &
launcher=$!
waited=0
until [ -s run.ck ] && [ "$(grep -c '] epoch ' killed.err || true)" -ge 3 ]; do
  kill -0 "$launcher" 2>/dev/null || { echo "the run ended before it could be killed"; exit 1; }
  sleep 0.05
  waited=$((waited + 1))
  [ "$waited" -lt 2400 ] || { echo "no checkpoint after 120 s"; kill "$launcher"; exit 1; }
done
ranks=$(pgrep -P "$launcher" || true)
victim=$(echo "$ranks" | tail -1)
[ -n "$victim" ] || { echo "no rank process under the launcher $launcher"; exit 1; }
kill -9 "$victim"
# The survivor must stop (the launcher ends it): 60 s deadline instead of a hang.
waited=0
while kill -0 "$launcher" 2>/dev/null; do
  sleep 0.1
  waited=$((waited + 1))
  if [ "$waited" -gt 600 ]; then
    echo "the job still runs 60 s after a rank was killed (hang)"
    kill -9 $ranks "$launcher" 2>/dev/null || true
    exit 1
  fi
done
code=0
wait "$launcher" || code=$?
[ "$code" -ne 0 ] || { echo "the launcher exited 0 after a rank was killed"; exit 1; }
grep -q "signal 9" killed.err || { echo "no message naming the killed rank:"; cat killed.err; exit 1; }
test ! -s killed.json # no JSON line: the run did not finish
killed_at=$(grep -c '] epoch ' killed.err || true)
[ "$killed_at" -lt 10 ] || { echo "killed after the last epoch"; exit 1; }

# 3. Resume from rank 0's checkpoint on 2 ranks: the uninterrupted run's result.
"${mpi[@]}" "$bin" "${args[@]}" --checkpoint run.ck --metrics-out run.csv --resume >resumed.json \
  2>resumed.err
python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).read()); assert d["first_epoch"] > 1, d' \
  resumed.json
[ "$(strip resumed.json)" = "$(strip ref.json)" ] || {
  echo "resumed run differs from the uninterrupted one"
  strip ref.json
  strip resumed.json
  exit 1
}
cmp <(cut -d, -f1-5 ref.csv) <(cut -d, -f1-5 run.csv)
echo "killed at epoch $killed_at (launcher exit $code), resumed from epoch $(python3 -c \
  'import json,sys; print(json.loads(open(sys.argv[1]).read())["first_epoch"] - 1)' resumed.json)"
