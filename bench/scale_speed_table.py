#!/usr/bin/env python3
"""The table of bench/run_scale_speed.sh from its raw JSON lines:

    python3 bench/scale_speed_table.py FILE.jsonl

1. epoch time (median, forward + backward + step) per graph, model, input and thread count,
   with the peak RSS;
2. speed-up from 1 to 2 threads (target >= 1.7 on the largest graph);
3. STREAM-like triad bandwidth and the GCN SpMM as a fraction of it, per thread count;
4. ttgnn's memory breakdown (MiB) at the largest thread count.
"""
import json
import sys


def main():
    rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip().startswith("{")]
    runs = {}
    for r in rows:
        if r.get("bench") == "full_batch_epoch":
            runs[(r["nodes"], r["model"], r["input"], r["threads"], r["impl"])] = r
    graphs = sorted({r["nodes"]: r["arcs"] for r in rows if "arcs" in r}.items())
    threads = sorted({k[3] for k in runs})
    configs = [(m, i) for m in ("gcn", "sage") for i in ("feat", "emb", "tt")]
    for r in rows:
        if r.get("bench") == "scale_speed_run":
            print(f"run of {r['date']}: {r['cpus']} CPUs, OMP_WAIT_POLICY={r['omp_wait_policy']}, "
                  f"{r['epochs']} timed epochs after {r['warmup']}")
    loads = [r["loadavg_1min"] for r in rows if "loadavg_1min" in r]
    if loads:
        print(f"load average (1 min) during the runs: {min(loads):.1f} .. {max(loads):.1f}")

    print("\nepoch time, median seconds (against PyTorch: bench/compare_peer.sh)")
    print(f"{'nodes':>8s} {'arcs':>9s} {'model':5s} {'input':5s} {'thr':>3s} {'epoch s':>8s} "
          f"{'peak MiB':>9s}")
    for n, arcs in graphs:
        for m, i in configs:
            for t in threads:
                a = runs.get((n, m, i, t, "ttgnn"))
                if a:
                    print(f"{n:8d} {arcs:9d} {m:5s} {i:5s} {t:3d} {a['epoch_s_median']:8.3f} "
                          f"{a['peak_rss_mb']:9.0f}")

    if len(threads) > 1:
        t0, t1 = threads[0], threads[-1]
        print(f"\nspeed-up {t0} -> {t1} threads (epoch time at {t0} / at {t1}; "
              f"target >= 1.7 on the largest graph)")
        print(f"{'nodes':>8s} {'model':5s} {'input':5s} {'speed-up':>8s}")
        for n, _ in graphs:
            for m, i in configs:
                a, b = runs.get((n, m, i, t0, "ttgnn")), runs.get((n, m, i, t1, "ttgnn"))
                if a and b:
                    print(f"{n:8d} {m:5s} {i:5s} "
                          f"{a['epoch_s_median'] / b['epoch_s_median']:8.2f}")

    bw = [r for r in rows if r.get("bench") == "bandwidth"]
    if bw:
        print("\nSpMM of a GCN layer (N x cols floats) against the triad, same process")
        print(f"{'nodes':>8s} {'nnz':>9s} {'cols':>4s} {'thr':>3s} {'triad GB/s':>10s} "
              f"{'SpMM s':>8s} {'SpMM GB/s':>9s} {'fraction':>8s}")
        for r in sorted(bw, key=lambda r: (r["nodes"], r["threads"])):
            print(f"{r['nodes']:8d} {r['nonzeros']:9d} {r['cols']:4d} {r['threads']:3d} "
                  f"{r['triad_gb_per_s']:10.2f} {r['spmm_s_median']:8.4f} "
                  f"{r['spmm_gb_per_s']:9.2f} {r['spmm_fraction_of_triad']:8.2f}")

    if threads:
        t = threads[-1]
        keys = ("graph_mb", "features_mb", "table_mb", "optimizer_mb", "parameters_mb",
                "activations_mb", "accounted_mb", "peak_rss_mb")
        print(f"\nttgnn memory breakdown at {t} threads, MiB (JSON 'memory')")
        print(f"{'nodes':>8s} {'model':5s} {'input':5s} " +
              " ".join(f"{k[:-3]:>11s}" for k in keys))
        for n, _ in graphs:
            for m, i in configs:
                a = runs.get((n, m, i, t, "ttgnn"))
                if a and "memory" in a:
                    print(f"{n:8d} {m:5s} {i:5s} " +
                          " ".join(f"{a['memory'].get(k, 0):11.1f}" for k in keys))


if __name__ == "__main__":
    main()
