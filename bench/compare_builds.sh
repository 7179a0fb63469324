#!/usr/bin/env bash
# Two builds of ttgnn side by side (an A/B check that a change is not slower and trains the
# same): full-batch epochs and mini-batch GraphSAGE steps of bench_train, the two builds
# alternating run by run, at each thread count, on one generated graph.
#
#   bash bench/compare_builds.sh OLD_BUILD NEW_BUILD [OUT.jsonl]
#
# Both builds configured with -DTTGNN_ENABLE_BENCH=ON. Environment: NODES (200000), DEGREE
# (20), THREAD_COUNTS ("1 2"), REPS (3), BATCHES (30, timed mini-batch steps per run),
# FANOUT (10,10). Prints every run's JSON line (with "build" and "config" added) to OUT
# (default: a temporary file), then a table of medians over the repetitions, new/old ratios,
# the mini-batch runs' sampling time per step (sampling share x median step) and whether the
# losses are equal.
set -eu
old=${1:?old build dir} new=${2:?new build dir}
out=${3:-$(mktemp)}
nodes=${NODES:-200000} degree=${DEGREE:-20} reps=${REPS:-3} batches=${BATCHES:-30}
fanout=${FANOUT:-10,10}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$new/bin/bench_train" --mode export --out "$work/data" --nodes "$nodes" --avg-degree "$degree" \
  --features 64 --classes 16 --train 0.6 --valid 0.2 --communities 4 >/dev/null
: >"$out"
run() { # run BUILD_NAME BUILD_DIR THREADS CONFIG ARGS...: one JSON line into $out
  local name=$1 dir=$2 threads=$3 config=$4
  shift 4
  OMP_NUM_THREADS=$threads OMP_PROC_BIND=false "$dir/bin/bench_train" "$@" --data "$work/data" \
    2>/dev/null | tail -n 1 >"$work/line"
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d.update(build=sys.argv[2], config=sys.argv[3]); print(json.dumps(d))' \
    "$work/line" "$name" "$config" | tee -a "$out"
}
for threads in ${THREAD_COUNTS:-1 2}; do
  for rep in $(seq "$reps"); do
    for side in old new; do
      dir=$old
      [ "$side" = new ] && dir=$new
      run "$side" "$dir" "$threads" "full gcn tt" --mode full --model gcn --input tt --dim 64 \
        --hidden 128 --layers 2 --epochs 5 --warmup 1
      run "$side" "$dir" "$threads" "full sage feat" --mode full --model sage --input feat \
        --hidden 128 --layers 2 --epochs 5 --warmup 1
      for input in tt feat; do
        run "$side" "$dir" "$threads" "minibatch sage $input" --mode sage-minibatch --input "$input" \
          --dim 64 --fanout "$fanout" --layers 2 --hidden 128 --batch-size 1024 \
          --max-batches "$batches"
      done
    done
  done
done
python3 - "$out" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
keys = sorted({(r["threads"], r["config"]) for r in rows})
print("| threads | configuration | old s | new s | new/old | sampling s/batch old | new | losses equal |")
print("|---|---|---|---|---|---|---|---|")
for t, c in keys:
    side = {b: [r for r in rows if r["threads"] == t and r["config"] == c and r["build"] == b]
            for b in ("old", "new")}
    field = "epoch_s_median" if c.startswith("full") else "batch_s_median"
    loss = "last_loss" if c.startswith("full") else "train_loss_mean"
    med = {b: statistics.median(r[field] for r in side[b]) for b in side}
    smp = {b: statistics.median(r.get("sampling_share", 0) * r[field] for r in side[b])
           for b in side}
    same = {r[loss] for r in side["old"]} == {r[loss] for r in side["new"]}
    print(f"| {t} | {c} | {med['old']:.4f} | {med['new']:.4f} | {med['new'] / med['old']:.3f} | "
          + (f"{smp['old']:.4f} | {smp['new']:.4f}" if c.startswith("mini") else "- | -")
          + f" | {'yes' if same else 'NO'} |")
PY
