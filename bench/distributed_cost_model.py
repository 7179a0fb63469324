#!/usr/bin/env python3
"""Communication cost model of data-parallel mini-batch GraphSAGE (docs/DISTRIBUTED.md).

Per optimizer step and per rank, for a TT embedding (dense all-reduce of GNN + core
gradients), a full embedding table (all-gather of the touched rows) and node features on a
partitioned graph (fetching remote input rows), and the projected epoch time on P nodes:

  steps/epoch  = ceil(train_nodes / (P * b))         (b seeds per rank, global batch P*b)
  step time    = compute(b) + comm(P)
  ring all-reduce of S bytes: 2 (P-1)/P * S / bandwidth + 2 (P-1) * latency
  all-gather of s bytes per rank: (P-1) * s / bandwidth + (P-1) * latency (received per rank)

Usage: distributed_cost_model.py --compute-ms T [--seeds-per-rank b] [--unique-inputs u] ...
(T: measured time of one batch of b seeds on one rank, sampling and Adam included).
"""
import argparse
import math


def tt_params(n, d, r):
    """Parameters of TT cores with row factors n, column factors d and uniform rank r."""
    ranks = [1] + [r] * (len(n) - 1) + [1]
    return sum(ranks[k] * n[k] * d[k] * ranks[k + 1] for k in range(len(n)))


def sage_params(widths):
    return sum(2 * a * b + b for a, b in zip(widths[:-1], widths[1:]))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--nodes", type=int, default=111_059_956)
    p.add_argument("--train-nodes", type=int, default=1_207_179)
    p.add_argument("--dim", type=int, default=128)
    p.add_argument("--tt-rank", type=int, default=16)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--classes", type=int, default=172)
    p.add_argument("--layers", type=int, default=3)
    p.add_argument("--seeds-per-rank", type=int, default=1024)
    p.add_argument("--fanouts", default="5,10,15")
    p.add_argument("--unique-fraction", type=float, default=0.6,
                   help="distinct input nodes / sampled tree size (papers100M: assumption)")
    p.add_argument("--remote-fraction", type=float, default=0.8,
                   help="features path: share of input rows owned by another rank")
    p.add_argument("--compute-ms", type=float, required=True)
    p.add_argument("--latency-us", type=float, default=5.0)
    p.add_argument("--nodes-list", default="8,64")
    p.add_argument("--gbits", default="10,100")
    a = p.parse_args()

    root = round(a.nodes ** (1 / 3))
    n = [root, root, math.ceil(a.nodes / root / root)]
    d = [4, 4, a.dim // 16]
    tt = tt_params(n, d, a.tt_rank)
    gnn = sage_params([a.dim] + [a.hidden] * (a.layers - 1) + [a.classes])
    dense_bytes = 4 * (tt + gnn)
    fan = [int(x) for x in a.fanouts.split(",")]
    tree = 1
    level = 1
    for f in reversed(fan):
        level *= f
        tree += level
    inputs = a.unique_fraction * a.seeds_per_rank * tree
    table_bytes = inputs * (4 * a.dim + 8)  # row + id per touched row
    feat_bytes = a.remote_fraction * inputs * 4 * a.dim
    print(f"TT shape n={n} d={d} rank {a.tt_rank}: {tt:,} parameters; GNN {gnn:,} parameters")
    print(f"per step and rank: dense all-reduce buffer {dense_bytes / 1e6:.2f} MB (TT + GNN); "
          f"full table {inputs:,.0f} touched rows = {table_bytes / 1e6:.0f} MB sent; features "
          f"{feat_bytes / 1e6:.0f} MB fetched (+ GNN all-reduce {4 * gnn / 1e6:.2f} MB for both)")
    print()
    print("| nodes P | link | steps/epoch | TT: comm/step | TT: epoch | full table: comm/step |"
          " full table: epoch | features (partitioned): comm/step | features: epoch |")
    print("|---|---|---|---|---|---|---|---|---|")
    for P in [int(x) for x in a.nodes_list.split(",")]:
        steps = math.ceil(a.train_nodes / (P * a.seeds_per_rank))
        for g in [float(x) for x in a.gbits.split(",")]:
            bw = g * 1e9 / 8
            lat = a.latency_us * 1e-6
            ring = lambda s: 2 * (P - 1) / P * s / bw + 2 * (P - 1) * lat
            gather = lambda s: (P - 1) * s / bw + (P - 1) * lat
            t_tt = ring(dense_bytes)
            t_tab = gather(table_bytes) + ring(4 * gnn)
            t_feat = feat_bytes / bw + (P - 1) * lat + ring(4 * gnn)  # all-to-all: receive own
            c = a.compute_ms * 1e-3
            row = [f"{P}", f"{g:g} Gb/s", f"{steps}"]
            for t in (t_tt, t_tab, t_feat):
                row += [f"{t * 1e3:.1f} ms", f"{steps * (c + t):.1f} s"]
            print("| " + " | ".join(row) + " |")
    print(f"\ncompute per step (measured, b = {a.seeds_per_rank}): {a.compute_ms:.1f} ms; "
          f"latency {a.latency_us} us per message; no overlap of compute and communication")


if __name__ == "__main__":
    main()
