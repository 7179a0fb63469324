#!/usr/bin/env python3
"""The defaults of `ttgnn train` on featureless graphs against a small tuning grid.

For every dataset and input (a learned full table `emb`, a TT table `tt`) it runs
  defaults: ttgnn train --dataset D --input X --order metis-hier --seed s   (no other flag)
  grid:     the same plus --weight-decay wd --lr lr --epochs E_max --patience P
for every seed, and reads the per-epoch CSV (--metrics-out) of each grid run: the model an
epoch budget E would have kept is the best-valid epoch among the first E (the learning rate
does not depend on the budget), so one run of E_max epochs answers every budget. With
--grid-patience P > 0 a run that stopped early stands for every larger budget (P epochs
without a better valid metric taken as converged); P = 0 makes every budget exact.
The tuned result of a (dataset, input) is the grid point with the best mean valid metric over
the seeds; its mean test metric is compared with the defaults' mean test metric.

Prints one JSON line per run and per (dataset, input) summary; --table prints the summary
as a Markdown table at the end. Runs `--jobs` processes at once, each with --threads threads.

  python3 bench/defaults_study.py --ttgnn build/bin/ttgnn --datasets DIR[,DIR...] \
      [--inputs emb,tt --seeds 0,1,2 --wd 0,5e-5,5e-4 --lr 0.003,0.01,0.03 \
       --epochs 100,300,1000 --grid-patience 100 --jobs 2 --threads 1 --work DIR \
       --extra "ARGS" --table]
  python3 bench/defaults_study.py --report FILE    (the table of the JSON lines it printed)
"""
import argparse
import concurrent.futures
import csv
import itertools
import json
import os
import shlex
import statistics
import subprocess
import sys


def run_ttgnn(args, dataset, inp, seed, extra, csv_path):
    cmd = [args.ttgnn, "train", "--dataset", dataset, "--input", inp, "--order", "metis-hier",
           "--seed", str(seed), "--metrics-out", csv_path] + extra + shlex.split(args.extra)
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), OMP_PROC_BIND="false")
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stderr[-2000:]}")
    summary = json.loads([l for l in p.stdout.splitlines() if l.startswith("{")][-1])
    return cmd, summary


def budget_results(csv_path, metric, budgets):
    """For each epoch budget: (valid, test) of the best-valid epoch among the first `budget`
    (the first of equal valid values, as the trainer keeps the first best)."""
    with open(csv_path) as f:
        rows = list(csv.DictReader(f))
    out = {}
    for b in budgets:
        best = None
        for r in rows[:b]:
            v = float(r[f"valid_{metric}"])
            if best is None or v > best[0]:
                best = (v, float(r[f"test_{metric}"]))
        out[b] = best
    return out


def name_of(dataset):
    parts = [p for p in dataset.rstrip("/").split("/") if p not in ("ogb",)]
    return parts[-1]


def summarise(records, budgets):
    """One summary per (dataset, input) of the run records, in the order they appear."""
    keys = list(dict.fromkeys((r["dataset"], r["input"]) for r in records))
    summaries = []
    for d, x in keys:
        mine = [r for r in records if r["dataset"] == d and r["input"] == x]
        dflt = [r for r in mine if r["kind"] == "defaults"]
        if not dflt:
            continue
        s = {"summary": True, "dataset": d, "input": x, "metric": dflt[0]["metric"],
             "defaults_test": statistics.mean(r["test"] for r in dflt),
             "defaults_test_sd": statistics.pstdev(r["test"] for r in dflt),
             "defaults_best_epoch": [r["best_epoch"] for r in dflt],
             "seeds": len(dflt), "compression": dflt[0]["compression"]}
        points = {}
        for r in mine:
            if r["kind"] != "grid":
                continue
            for b, (v, t) in r["budgets"].items():
                points.setdefault((r["wd"], r["lr"], b), []).append((v, t))
        if points:
            mean = {k: (statistics.mean(v for v, _ in vs), statistics.mean(t for _, t in vs))
                    for k, vs in points.items()}
            best = max(mean, key=lambda k: mean[k][0])
            s.update({"tuned_wd": best[0], "tuned_lr": best[1], "tuned_epochs": int(best[2]),
                      "tuned_valid": mean[best][0], "tuned_test": mean[best][1],
                      "grid_best_test": max(t for _, t in mean.values()),
                      "grid_points": len(mean),
                      "gap": mean[best][1] - s["defaults_test"]})
        summaries.append(s)
    return summaries


def print_table(summaries):
    print("| graph | input | metric | defaults | tuned (wd, lr, epochs) | tuned - defaults | "
          "best test in the grid |")
    print("|---|---|---|---|---|---|---|")
    for s in summaries:
        tuned = (f"{s['tuned_test']:.3f} ({s['tuned_wd']}, {s['tuned_lr']}, "
                 f"{s['tuned_epochs']})" if "tuned_test" in s else "-")
        gap = f"{s['gap']:+.3f}" if "gap" in s else "-"
        grid = f"{s['grid_best_test']:.3f}" if "grid_best_test" in s else "-"
        print(f"| {s['dataset']} | {s['input']} | {s['metric']} | "
              f"{s['defaults_test']:.3f} ± {s['defaults_test_sd']:.3f} | {tuned} | {gap} | "
              f"{grid} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ttgnn", default="build/bin/ttgnn")
    ap.add_argument("--datasets", help="comma-separated dataset folders")
    ap.add_argument("--inputs", default="emb,tt")
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--wd", default="0,5e-5,5e-4")
    ap.add_argument("--lr", default="0.003,0.01,0.03")
    ap.add_argument("--epochs", default="100,300,1000", help="epoch budgets of the grid")
    ap.add_argument("--grid-patience", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--work", default="defaults-study")
    ap.add_argument("--extra", default="", help="arguments added to every run (both sides)")
    ap.add_argument("--no-grid", action="store_true", help="run the defaults only")
    ap.add_argument("--grid-only", action="store_true",
                    help="run the grid only (the defaults' records from an earlier run of "
                    "the same file complete the --report)")
    ap.add_argument("--table", action="store_true")
    ap.add_argument("--report", help="print the summaries and the table of a JSON-lines file "
                    "this script wrote (no runs)")
    args = ap.parse_args()
    budgets = [int(e) for e in args.epochs.split(",")]
    if args.report:
        with open(args.report) as f:
            records = [json.loads(l) for l in f if l.startswith("{") and "summary" not in l]
        for s in summarise(records, budgets):
            print(json.dumps(s))
        print_table(summarise(records, budgets))
        return 0
    if not args.datasets:
        ap.error("--datasets is needed (or --report FILE)")
    os.makedirs(args.work, exist_ok=True)
    datasets = args.datasets.split(",")
    inputs = args.inputs.split(",")
    seeds = [int(s) for s in args.seeds.split(",")]
    grid = [] if args.no_grid else list(itertools.product(args.wd.split(","), args.lr.split(",")))

    jobs = []  # (dataset, input, kind, point, seed, extra flags)
    for d, x, s in itertools.product(datasets, inputs, seeds):
        if not args.grid_only:
            jobs.append((d, x, "defaults", None, s, []))
        for wd, lr in grid:
            jobs.append((d, x, "grid", (wd, lr), s, ["--weight-decay", wd, "--lr", lr,
                                                     "--epochs", str(max(budgets)),
                                                     "--patience", str(args.grid_patience)]))

    def work(job):
        d, x, kind, point, seed, extra = job
        tag = "_".join([name_of(d), x, kind] + (list(point) if point else []) + [str(seed)])
        csv_path = os.path.join(args.work, tag + ".csv")
        cmd, s = run_ttgnn(args, d, x, seed, extra, csv_path)
        rec = {"dataset": name_of(d), "input": x, "kind": kind, "seed": seed,
               "metric": s["metric"], "test": s["test_metric"], "valid": s["valid_metric"],
               "best_epoch": s["best_epoch"], "last_epoch": s["last_epoch"],
               "epoch_time_s": s["epoch_time_s"], "compression": s["compression"],
               "command": " ".join(cmd)}
        if point:
            rec["wd"], rec["lr"] = point
            rec["budgets"] = {str(b): v for b, v in
                              budget_results(csv_path, s["metric"], budgets).items()}
        return rec

    records = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for rec in pool.map(work, jobs):
            print(json.dumps(rec), flush=True)
            records.append(rec)

    for s in summarise(records, budgets):
        print(json.dumps(s), flush=True)
    if args.table:
        print_table(summarise(records, budgets))
    return 0


if __name__ == "__main__":
    sys.exit(main())
