#!/usr/bin/env python3
"""PyTorch side of bench_tt_bag: torch.nn.EmbeddingBag on a full table (sum, sparse=True) and
the FBTT-style TT bag (tt_lookup_torch.py's rows: gather the three slices of every id, two
batched matmuls; then each bag's rows summed with index_add_), backward by autograd.

    tt_bag_torch.py [--n 100,100,100] [--d 4,4,4] [--ranks 8,16,32] [--bags 1,20,100]
                    [--batch 4096] [--reps 7] [--threads T] [--full 1|0]

Same shapes, bag layout (bag b = ids [b·bag, (b + 1)·bag), ids uniform with repeats) and
medians as bench_tt_bag, one JSON line per configuration. The ids come from numpy, not
mt19937_64, but from the same distribution. The full table's forward+backward sets its gradient
to None first (ttgnn's side runs zero_grad). --threads defaults to OMP_NUM_THREADS.
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tt_lookup_torch import tt_rows  # noqa: E402  (FBTT's gather + batched GEMM chain)


def median_seconds(reps, f):
    """Median wall time of f over reps runs, after one warm-up."""
    f()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def line(table, a, rows, dim, rank, bag, tf, tfb):
    ids = a.batch * bag
    print(json.dumps({
        "bench": "tt_bag", "impl": "torch", "table": table,
        "variant": "nn.EmbeddingBag(sparse)" if table == "full" else "fbtt-bmm+index_add",
        "threads": torch.get_num_threads(), "torch_version": torch.__version__,
        "rows": rows, "dim": dim, "rank": rank, "bag": bag, "batch": a.batch,
        "fwd_seconds": tf, "fwdbwd_seconds": tfb,
        "fwd_rows_per_s": ids / tf, "fwdbwd_rows_per_s": ids / tfb,
        "fwd_bags_per_s": a.batch / tf, "fwdbwd_bags_per_s": a.batch / tfb}), flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", default="100,100,100")
    p.add_argument("--d", default="4,4,4")
    p.add_argument("--ranks", default="8,16,32")
    p.add_argument("--bags", default="1,20,100")
    p.add_argument("--batch", type=int, default=4096)
    p.add_argument("--reps", type=int, default=7)
    p.add_argument("--threads", type=int, default=int(os.environ.get("OMP_NUM_THREADS", "1")))
    p.add_argument("--full", type=int, default=1)
    p.add_argument("--max-gib", type=float, default=1.0,
                   help="skip a TT configuration whose gathered middle slices exceed this")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    n = [int(x) for x in a.n.split(",")]
    d = [int(x) for x in a.d.split(",")]
    assert len(n) == 3 and len(d) == 3, "the PyTorch baseline implements 3 cores"
    rows = n[0] * n[1] * n[2]
    dim = d[0] * d[1] * d[2]
    emb = None
    if a.full:
        emb = torch.nn.EmbeddingBag(rows, dim, mode="sum", sparse=True,
                                    _weight=torch.full((rows, dim), 0.01))
    for bag in [int(x) for x in a.bags.split(",")]:
        rng = np.random.default_rng(1234 + bag)
        ids = torch.from_numpy(rng.integers(0, rows, size=a.batch * bag, dtype=np.int64))
        offsets = torch.arange(0, a.batch * bag, bag, dtype=torch.int64)
        bag_of = torch.arange(a.batch, dtype=torch.int64).repeat_interleave(bag)
        grad = torch.full((a.batch, dim), 1e-3)
        for rank in [int(x) for x in a.ranks.split(",")]:
            ranks = [1, rank, rank, 1]
            gib = a.batch * bag * rank * d[1] * rank * 4 / 2**30
            if gib > a.max_gib:  # autograd keeps the (ids, R, d2·R) gather and more
                print(json.dumps({"bench": "tt_bag", "impl": "torch", "table": "tt",
                                  "rows": rows, "dim": dim, "rank": rank, "bag": bag,
                                  "batch": a.batch, "skipped": f"gather of {gib:.1f} GiB"}),
                      flush=True)
                continue
            gen = torch.Generator().manual_seed(1234 + rank)
            cores = [torch.nn.Parameter(torch.randn(n[k], ranks[k], d[k] * ranks[k + 1],
                                                    generator=gen) / rank ** 0.5)
                     for k in range(3)]

            def tt_bag():
                r = tt_rows(cores, ids, n, d, ranks)
                return torch.zeros(a.batch, dim, dtype=r.dtype).index_add_(0, bag_of, r)

            def fwd():
                with torch.no_grad():
                    tt_bag()

            def fwdbwd():
                tt_bag().backward(grad)

            line("tt", a, rows, dim, rank, bag, median_seconds(a.reps, fwd),
                 median_seconds(a.reps, fwdbwd))
            del cores
        if emb is not None:
            def ffwd():
                with torch.no_grad():
                    emb(ids, offsets)

            def ffwdbwd():
                emb.weight.grad = None
                emb(ids, offsets).backward(grad)

            line("full", a, rows, dim, 0, bag, median_seconds(a.reps, ffwd),
                 median_seconds(a.reps, ffwdbwd))


if __name__ == "__main__":
    main()
