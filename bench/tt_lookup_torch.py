#!/usr/bin/env python3
"""PyTorch baseline of bench_tt_lookup: the same TT lookup as FBTT-Embedding computes it
(gather the three slices of every row, two batched matmuls), backward by autograd.

    tt_lookup_torch.py [--n 100,100,100] [--d 8,4,4] [--ranks 8,16,32]
                       [--batches 1000,10000,100000] [--block 1000] [--reps 9]
                       [--threads T] [--scalar float|double]

Same ids (random / contiguous blocks) and medians as bench_tt_lookup, one JSON line each.
The id generator differs from the C++ one (numpy vs mt19937_64) but draws from the same
distribution. --threads defaults to OMP_NUM_THREADS.
"""
import argparse
import json
import os
import statistics
import time

import numpy as np
import torch


def make_ids(kind, batch, rows, block, seed):
    rng = np.random.default_rng(seed)
    if kind == "random":
        return rng.integers(0, rows, size=batch, dtype=np.int64)
    ids = np.empty(batch, dtype=np.int64)
    for b in range(0, batch, block):
        start = rng.integers(0, rows - block + 1)
        m = min(block, batch - b)
        ids[b:b + m] = np.arange(start, start + m)
    return ids


def tt_rows(cores, ids, n, d, ranks):
    """Rows of the TT table: FBTT's gather + batched GEMM chain (3 cores)."""
    b = ids.shape[0]
    i1 = torch.div(ids, n[1] * n[2], rounding_mode="floor")
    i2 = torch.div(ids, n[2], rounding_mode="floor") % n[1]
    i3 = ids % n[2]
    g1 = cores[0][i1].view(b, d[0], ranks[1])                  # (B, d1, R)
    g2 = cores[1][i2]                                          # (B, R, d2*R)
    g3 = cores[2][i3]                                          # (B, R, d3)
    t = torch.bmm(g1, g2).view(b, d[0] * d[1], ranks[2])       # (B, d1*d2, R)
    return torch.bmm(t, g3).view(b, d[0] * d[1] * d[2])        # (B, d)


def median_seconds(reps, f):
    """Median wall and process CPU time of f over reps runs, after one warm-up."""
    f()
    ts, cs = [], []
    for _ in range(reps):
        c0 = time.process_time()
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
        cs.append(time.process_time() - c0)
    return statistics.median(ts), statistics.median(cs)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", default="100,100,100")
    p.add_argument("--d", default="8,4,4")
    p.add_argument("--ranks", default="8,16,32")
    p.add_argument("--batches", default="1000,10000,100000")
    p.add_argument("--block", type=int, default=1000)
    p.add_argument("--reps", type=int, default=9)
    p.add_argument("--threads", type=int, default=int(os.environ.get("OMP_NUM_THREADS", "1")))
    p.add_argument("--scalar", default="float")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    dtype = torch.float32 if a.scalar == "float" else torch.float64
    n = [int(x) for x in a.n.split(",")]
    d = [int(x) for x in a.d.split(",")]
    assert len(n) == 3 and len(d) == 3, "the PyTorch baseline implements 3 cores"
    rows = n[0] * n[1] * n[2]
    dim = d[0] * d[1] * d[2]
    for rank in [int(x) for x in a.ranks.split(",")]:
        ranks = [1, rank, rank, 1]
        gen = torch.Generator().manual_seed(1234 + rank)
        cores = [torch.nn.Parameter(torch.randn(n[k], ranks[k], d[k] * ranks[k + 1],
                                                generator=gen, dtype=dtype) / rank ** 0.5)
                 for k in range(3)]
        chain = 0.0
        lead = 1
        for k in range(3):
            chain += 2.0 * lead * ranks[k] * d[k] * ranks[k + 1]
            lead *= d[k]
        for batch in [int(x) for x in a.batches.split(",")]:
            for kind in ("random", "contiguous"):
                ids = torch.from_numpy(make_ids(kind, batch, rows, a.block, 99 + batch))
                grad = torch.full((batch, dim), 1e-3, dtype=dtype)
                reps = max(3, a.reps // 2 if batch >= 100000 else a.reps)

                def fwd():
                    with torch.no_grad():
                        tt_rows(cores, ids, n, d, ranks)

                def fwdbwd():
                    out = tt_rows(cores, ids, n, d, ranks)
                    out.backward(grad)

                tf, cf = median_seconds(reps, fwd)
                tfb, cfb = median_seconds(reps, fwdbwd)
                print(json.dumps({
                    "bench": "tt_lookup", "impl": "torch", "variant": "fbtt-bmm",
                    "scalar": a.scalar, "threads": torch.get_num_threads(), "rank": rank,
                    "batch": batch, "ids": kind, "torch_version": torch.__version__,
                    "fwd_seconds": tf, "fwdbwd_seconds": tfb,
                    "fwd_cpu_seconds": cf, "fwdbwd_cpu_seconds": cfb,
                    "fwd_rows_per_s": batch / tf, "fwdbwd_rows_per_s": batch / tfb,
                    "fwd_gflops": batch * chain / tf * 1e-9,
                    "fwdbwd_gflops": 3 * batch * chain / tfb * 1e-9}), flush=True)


if __name__ == "__main__":
    main()
