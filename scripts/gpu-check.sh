#!/usr/bin/env bash
# GPU check, in two phases that each fit in one short command on a machine with an NVIDIA GPU
# (16 cores): `build` installs the dependencies and builds Kokkos and ttgnn for the GPU's
# architecture (library, CLI, tests and benchmarks, in build-cuda/) and a CPU tree of the
# benchmarks (build-bench/); `run` runs the whole test suite on the Cuda space, then on the GPU
# and on the CPU (OpenMP, all cores) the TT lookup benchmark, full-batch GCN and SAGE epochs
# (feature, full-table and TT inputs) and mini-batch SAGE steps on a generated 1M-node /
# 20M-edge graph, then the same models in PyG (bench/pyg_peer.py) when Python has torch, and
# prints the table ttgnn / PyG. `all` is both. Every phase prints one JSON line per check on
# stdout ({"check": ...}; the benchmarks' own lines tagged with "device"); logs and raw results
# go to OUT. docs/GPU.md says what each line means.
#
#   scripts/gpu-check.sh [build|run|all] [ARCH]   (default all; ARCH: compute capability digits,
#   scripts/gpu-check.sh ARCH                      default what nvidia-smi reports, else 90)
#
# Dependencies: with a bundle (TTGNN_BUNDLE, default build-bundle/ when it exists; made by
# `scripts/install-deps.sh --bundle DIR`) everything is installed from it into TTGNN_PREFIX
# (default build-prefix/): no root, no apt, no network. Without one, install-deps.sh installs
# Debian's packages (root) as in the README.
#
# `run` works without a GPU too: the GPU side is skipped and the JSON says so.
#
# Environment: TTGNN_JOBS (default nproc), OUT (default gpu-check/), GPU_CHECK_NODES (1000000)
# and GPU_CHECK_EDGES (20000000) for the generated graph, GPU_CHECK_EPOCHS (5),
# GPU_CHECK_BATCHES (20: mini-batch steps timed), GPU_CHECK_TIMEOUT (300: seconds per benchmark
# command), GPU_CHECK_CUDA_CMAKE (extra cmake arguments for build-cuda, as shell words, e.g.
# "'-DCMAKE_CXX_FLAGS_RELEASE=-O0 -DNDEBUG'" for a compile-only check).
set -euo pipefail
cd "$(dirname "$0")/.."
PHASE=all
case ${1:-} in
  build | run | all) PHASE=$1; shift ;;
  '' | [0-9]*) ;;
  -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  *) echo "gpu-check.sh: unknown phase '$1' (build, run or all)" >&2; exit 2 ;;
esac
GPU_NAME=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1 || true)
ARCH=${1:-$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d '. ' || true)}
ARCH_NOTE=
if ! [[ $ARCH =~ ^[0-9]+$ ]]; then ARCH=90 ARCH_NOTE=',"arch_note":"no nvidia-smi: default 90"'; fi
NPROC=$(nproc)
export TTGNN_JOBS=${TTGNN_JOBS:-$NPROC}
OUT=${OUT:-gpu-check}
mkdir -p "$OUT"
BUNDLE=${TTGNN_BUNDLE:-}
[ -n "$BUNDLE" ] || [ ! -f build-bundle/MANIFEST ] || BUNDLE=build-bundle
if [ -n "$BUNDLE" ]; then export TTGNN_PREFIX=${TTGNN_PREFIX:-build-prefix}; fi
json() { printf '{"check":"%s",%s}\n' "$1" "$2"; }
fail() { # fail CHECK LOG: a JSON line, the log's tail on stderr, exit 1
  json "$1" "\"ok\":false,\"log\":\"$2\""
  tail -n 30 "$2" >&2
  exit 1
}
# A fresh build folder gets ninja when there is one; an existing one keeps its generator.
generator_env() { # generator_env BUILD_DIR -> "CMAKE_GENERATOR=Ninja" or ""
  if command -v ninja >/dev/null && [ ! -f "$1/CMakeCache.txt" ]; then echo CMAKE_GENERATOR=Ninja; fi
}

# ---------------------------------------------------------------- build
phase_build() {
  local t0 t1 deps=() cpu_jobs
  t0=$(date +%s)
  [ -z "$BUNDLE" ] || deps=(--from-bundle "$BUNDLE" --prefix "$TTGNN_PREFIX")
  # the CPU Kokkos first (it also unpacks the bundle once), then the CUDA chain with all cores
  # and the CPU benchmark tree beside it at a lower priority
  bash scripts/install-deps.sh "${deps[@]}" >"$OUT/deps-cpu.log" 2>&1 || fail deps_cpu "$OUT/deps-cpu.log"
  t1=$(date +%s)
  json deps "\"target\":\"cpu\",\"bundle\":\"${BUNDLE:-none (apt)}\",\"prefix\":\"${TTGNN_PREFIX:-system}\",\"seconds\":$((t1 - t0))"
  cpu_jobs=$(( NPROC > 4 ? NPROC / 4 : 1 ))
  (
    s=$(date +%s)
    env $(generator_env build-bench) BUILD_DIR=build-bench TTGNN_JOBS=$cpu_jobs nice -n 10 \
      bash scripts/build.sh -DTTGNN_ENABLE_BENCH=ON -DTTGNN_ENABLE_TESTS=OFF >"$OUT/build-cpu.log" 2>&1
    echo $(( $(date +%s) - s )) >"$OUT/build-cpu.seconds"
  ) &
  local cpu_pid=$! rc=0 s extra=()
  s=$(date +%s)
  bash scripts/install-deps.sh "${deps[@]}" --cuda "$ARCH" >"$OUT/deps-cuda.log" 2>&1 || rc=$?
  if [ $rc != 0 ]; then wait $cpu_pid || true; fail deps_cuda "$OUT/deps-cuda.log"; fi
  json deps "\"target\":\"cuda\",\"arch\":$ARCH$ARCH_NOTE,\"seconds\":$(( $(date +%s) - s ))"
  s=$(date +%s)
  eval "extra=(${GPU_CHECK_CUDA_CMAKE:-})" # shell words: quote an argument that has spaces
  env $(generator_env build-cuda) bash scripts/build.sh --cuda "$ARCH" -DTTGNN_ENABLE_BENCH=ON \
    "${extra[@]}" >"$OUT/build-cuda.log" 2>&1 || rc=$?
  if [ $rc != 0 ]; then wait $cpu_pid || true; fail build_cuda "$OUT/build-cuda.log"; fi
  json build "\"target\":\"cuda\",\"dir\":\"build-cuda\",\"arch\":$ARCH,\"jobs\":$TTGNN_JOBS,\"tests\":$(ctest --test-dir build-cuda -N -L cuda | sed -n 's/^Total Tests: //p'),\"seconds\":$(( $(date +%s) - s ))"
  wait $cpu_pid || fail build_cpu "$OUT/build-cpu.log"
  json build "\"target\":\"cpu\",\"dir\":\"build-bench\",\"jobs\":$cpu_jobs,\"seconds\":$(cat "$OUT/build-cpu.seconds")"
  json build_phase "\"seconds\":$(( $(date +%s) - t0 ))"
}

# ---------------------------------------------------------------- run
phase_run() {
  local t0 rc=0 gpu=0 tmo=${GPU_CHECK_TIMEOUT:-300}
  t0=$(date +%s)
  [ -n "$GPU_NAME" ] && [ -x build-cuda/bin/bench_train ] && gpu=1
  local nodes=${GPU_CHECK_NODES:-1000000} edges=${GPU_CHECK_EDGES:-20000000}
  local epochs=${GPU_CHECK_EPOCHS:-5} batches=${GPU_CHECK_BATCHES:-20}
  local degree
  degree=$(awk -v n="$nodes" -v e="$edges" 'BEGIN {printf "%.4f", 2 * e / n}')
  [ -x build-bench/bin/bench_train ] || { json run "\"ok\":false,\"why\":\"no build-bench/bin/bench_train: run the build phase\""; exit 1; }
  if [ $gpu = 1 ]; then
    json env "\"gpu\":\"$GPU_NAME\",\"cpu_threads\":$NPROC,\"nodes\":$nodes,\"edges\":$edges"
  else
    json env "\"gpu\":null,\"note\":\"$( [ -n "$GPU_NAME" ] && echo 'no build-cuda/bin/bench_train' || echo 'no GPU (nvidia-smi)'): GPU side skipped\",\"cpu_threads\":$NPROC,\"nodes\":$nodes,\"edges\":$edges"
  fi
  : >"$OUT/results.jsonl"
  tag() { sed -u "s/^{/{\"device\":\"$1\",/"; }
  cpu() { OMP_PROC_BIND=spread OMP_PLACES=threads timeout "$tmo" "$@"; }
  gpu() { timeout "$tmo" "$@"; }
  bench() { # bench gpu|cpu NAME CMD...: runs CMD, tags its JSON lines and keeps them
    local dev=$1 name=$2 raw=$OUT/.last.jsonl
    shift 2
    if ! "$dev" "$@" >"$raw" 2>>"$OUT/$name.log"; then
      json "$name" "\"device\":\"$dev\",\"ok\":false,\"command\":\"$*\",\"log\":\"$OUT/$name.log\""
    fi
    grep '^{' "$raw" | tag "$dev" | tee -a "$OUT/results.jsonl" || true
  }

  # ---- the test suite on the Cuda space
  if [ $gpu = 1 ]; then
    local t1 passed failed
    t1=$(date +%s)
    ctest --test-dir build-cuda -L cuda -j 4 --output-on-failure >"$OUT/ctest-cuda.log" 2>&1 || rc=$?
    passed=$(grep -c ' Passed ' "$OUT/ctest-cuda.log" || true)
    failed=$(grep -cE '\*\*\*Failed|\*\*\*Exception|Timeout' "$OUT/ctest-cuda.log" || true)
    json cuda_tests "\"passed\":$passed,\"failed\":$failed,\"seconds\":$(( $(date +%s) - t1 ))"
    [ $rc = 0 ] || grep -E 'Failed|Exception|ERROR' "$OUT/ctest-cuda.log" | head -n 20 >&2
  else
    json cuda_tests "\"skipped\":\"no GPU\""
  fi

  # ---- TT lookup, GPU then CPU, the same arguments
  local LOOKUP=(--n 100,100,100 --d 8,4,4 --ranks 8,16,32 --batches 10000,100000 --reps 5 --peak 0)
  [ $gpu = 0 ] || bench gpu tt_lookup build-cuda/bin/bench_tt_lookup "${LOOKUP[@]}"
  bench cpu tt_lookup build-bench/bin/bench_tt_lookup "${LOOKUP[@]}"

  # ---- the generated graph
  local data=$OUT/graph-$nodes-$edges s
  s=$(date +%s)
  if [ ! -f "$data/train.npy" ]; then
    build-bench/bin/bench_train --mode export --out "$data" --nodes "$nodes" --avg-degree "$degree" \
      --features 128 --classes 16 --seed 0 >"$OUT/export.json" 2>"$OUT/export.log" || fail export "$OUT/export.log"
  fi
  json graph "\"dir\":\"$data\",\"nodes\":$nodes,\"avg_degree\":$degree,\"seconds\":$(( $(date +%s) - s ))"

  # ---- full-batch epochs: GCN and SAGE, feature / full-table / TT input
  local model input dev bin
  for model in gcn sage; do
    for input in feat emb tt; do
      for dev in gpu cpu; do
        [ $dev = cpu ] || [ $gpu = 1 ] || continue
        bin=build-bench/bin/bench_train
        [ $dev = cpu ] || bin=build-cuda/bin/bench_train
        bench $dev full "$bin" --mode full --data "$data" --model $model --input $input --dim 64 \
          --tt-rank 8 --hidden 128 --layers 2 --epochs "$epochs" --warmup 1
      done
    done
  done
  # ---- mini-batch SAGE steps (fan-outs input layer first, as bench_train takes them)
  local FAN=15,10 BATCH=1024
  for input in feat emb tt; do
    for dev in gpu cpu; do
      [ $dev = cpu ] || [ $gpu = 1 ] || continue
      bin=build-bench/bin/bench_train
      [ $dev = cpu ] || bin=build-cuda/bin/bench_train
      bench $dev minibatch "$bin" --mode sage-minibatch --data "$data" --input $input --dim 64 \
        --tt-rank 8 --fanout $FAN --batch-size $BATCH --hidden 128 --layers 2 --max-batches "$batches"
    done
  done

  # ---- the PyG peer: the same models on the same graph
  if [ ! -f bench/pyg_peer.py ]; then
    json pyg_peer "\"skipped\":\"no bench/pyg_peer.py\""
  elif ! python3 -c 'import torch' 2>/dev/null; then
    json pyg_peer "\"skipped\":\"python3 has no torch\""
  else
    local help opt want peer=()
    help=$(python3 bench/pyg_peer.py --help 2>&1 || true)
    # only the options this peer knows (its interface: --data --device --threads)
    for opt in "--hidden 128" "--layers 2" "--dim 64" "--tt-rank 8" "--epochs $epochs" "--warmup 1" \
               "--fanout $FAN" "--batch-size $BATCH" "--max-batches $batches"; do
      want=${opt%% *}
      if grep -q -- "$want" <<<"$help"; then read -r -a o <<<"$opt"; peer+=("${o[@]}"); fi
    done
    for dev in gpu cpu; do
      [ $dev = cpu ] || [ $gpu = 1 ] || continue
      local torchdev=cpu
      [ $dev = cpu ] || torchdev=cuda
      s=$(date +%s)
      bench $dev pyg_peer python3 bench/pyg_peer.py --data "$data" --device $torchdev --threads "$NPROC" "${peer[@]}"
      json pyg_peer "\"device\":\"$dev\",\"seconds\":$(( $(date +%s) - s ))"
    done
  fi

  # ---- the tables: GPU / CPU and ttgnn / PyG
  python3 - "$OUT/results.jsonl" "$OUT/table.md" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
def key(r):
    if r.get("bench") == "full_batch_epoch":
        return ("full", r["model"], r["input"])
    if r.get("bench") == "sage_minibatch_epoch":
        return ("minibatch", "sage", r["input"])
    if r.get("peer") and "step_s_median" in r:
        return (r["mode"], r["model"], r["input"])
    return None
t = {}  # (mode, model, input) -> {(impl, device): seconds}
for r in rows:
    k = key(r)
    if k is None:
        continue
    dev = r["device"]
    if r.get("peer"):
        impl, sec = r["peer"], r["step_s_median"]
    else:
        impl = "ttgnn"
        sec = r["epoch_s_median"] if k[0] == "full" else r["batch_s_median"]
    t.setdefault(k, {})[(impl, dev)] = sec
peer_avail = [r for r in rows if r.get("peer") and "available" in r]
cols = [("ttgnn", "gpu"), ("ttgnn", "cpu"), ("pyg", "gpu"), ("pyg", "cpu"), ("torch", "gpu"), ("torch", "cpu")]
cols = [c for c in cols if any(c in v for v in t.values())]
lines = ["| mode | model | input | " + " | ".join(f"{i} {d} (s)" for i, d in cols)
         + " | ttgnn/PyG gpu | ttgnn/PyG cpu | cpu/gpu ttgnn |",
         "|---" * (3 + len(cols) + 3) + "|"]
for k in sorted(t):
    v = t[k]
    def ratio(a, b):
        return f"{v[a] / v[b]:.2f}" if a in v and b in v and v[b] > 0 else "–"
    peer = "pyg" if any(("pyg", d) in v for d in ("gpu", "cpu")) else "torch"
    lines.append(f"| {k[0]} | {k[1]} | {k[2]} | " + " | ".join(f"{v[c]:.4g}" if c in v else "–" for c in cols)
                 + f" | {ratio(('ttgnn', 'gpu'), (peer, 'gpu'))} | {ratio(('ttgnn', 'cpu'), (peer, 'cpu'))}"
                 + f" | {ratio(('ttgnn', 'cpu'), ('ttgnn', 'gpu'))} |")
    out = {"check": "table", "mode": k[0], "model": k[1], "input": k[2]}
    out.update({f"{i}_{d}_s": v[(i, d)] for i, d in cols if (i, d) in v})
    for name, a, b in (("ttgnn_over_peer_gpu", ("ttgnn", "gpu"), (peer, "gpu")),
                       ("ttgnn_over_peer_cpu", ("ttgnn", "cpu"), (peer, "cpu")),
                       ("ttgnn_cpu_over_gpu", ("ttgnn", "cpu"), ("ttgnn", "gpu"))):
        if a in v and b in v and v[b] > 0:
            out[name] = v[a] / v[b]
    out["peer"] = peer if any(c[0] == peer for c in v) else None
    print(json.dumps(out))
look = {}
for r in rows:
    if "fwd_rows_per_s" in r:
        k = "_".join(str(r.get(x)) for x in ("variant", "ids", "rank", "batch"))
        look.setdefault(k, {})[r["device"]] = r
ratios = {}
for k, by in sorted(look.items()):
    if {"gpu", "cpu"} <= by.keys():
        for m in ("fwd", "fwdbwd"):
            ratios[f"tt_{m}_gpu_over_cpu_{k}"] = by["gpu"][f"{m}_rows_per_s"] / by["cpu"][f"{m}_rows_per_s"]
print(json.dumps({"check": "tt_lookup_ratios", "ratios": ratios}))
note = ("PyG: " + ", ".join(f"{r['device']} available={r['available']}" for r in peer_avail)) if peer_avail else ""
open(sys.argv[2], "w").write("\n".join(lines) + "\n" + (note + "\n" if note else ""))
sys.stderr.write("\n".join(lines) + "\n" + (note + "\n" if note else ""))
PY
  json run_phase "\"gpu\":$gpu,\"seconds\":$(( $(date +%s) - t0 ))"
  [ $rc = 0 ]
}

case $PHASE in
  build) phase_build ;;
  run) phase_run ;;
  all) phase_build && phase_run ;;
esac
