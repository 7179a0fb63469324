#!/usr/bin/env python3
"""PyTorch side of bench_spmm: Y = A X on the graph bench_spmm wrote (--write-graph), with
the three ways a PyTorch GNN aggregates on the CPU:

- torch_csr_matmul: torch.sparse_csr_tensor(...) @ X
- torch_coo_spmm: torch.sparse.mm(COO A, X) (torch_geometric with SparseTensor/adj_t inputs)
- torch_index_add: out.index_add_(0, row, X[col] * w) (torch_geometric's default
  gather-scatter message passing)

    bench_spmm_torch.py --graph PREFIX --cols F [--scalar float|double] [--threads T] [--reps R]

Prints one JSON line per kernel, in bench_spmm's format (median wall time, GFLOP/s = 2 nnz F).
Run with Debian's /usr/bin/python3 (python3-torch).
"""
import argparse
import json
import os
import time
import warnings

import numpy as np
import torch


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--graph", required=True, help="prefix written by bench_spmm --write-graph")
    p.add_argument("--cols", type=int, default=64)
    p.add_argument("--scalar", choices=["float", "double"], default="double")
    p.add_argument("--threads", type=int, default=int(os.environ.get("OMP_NUM_THREADS", "1")))
    p.add_argument("--reps", type=int, default=7)
    p.add_argument("--max-gather-gb", type=float, default=2.0,
                   help="skip torch_index_add when its nnz x F gathered copy of X is larger")
    args = p.parse_args()
    warnings.filterwarnings("ignore", message="Sparse CSR tensor support is in beta")
    torch.set_num_threads(args.threads)
    dtype = torch.float64 if args.scalar == "double" else torch.float32

    row_map = torch.from_numpy(np.fromfile(args.graph + ".row_map.i64", dtype="<i8"))
    entries = torch.from_numpy(np.fromfile(args.graph + ".entries.i32", dtype="<i4").astype(np.int64))
    n = row_map.numel() - 1
    nnz = entries.numel()
    degree = int(round(nnz / n))
    f = args.cols
    values = torch.full((nnz,), 1.0 / degree, dtype=dtype)  # bench_spmm's values
    i = torch.arange(n, dtype=torch.int64).unsqueeze(1)
    c = torch.arange(f, dtype=torch.int64).unsqueeze(0)
    x = (((i * 131 + c * 17) % 97).to(dtype) / 97.0 - 0.5).contiguous()  # bench_spmm's X
    rows = torch.repeat_interleave(torch.arange(n), row_map[1:] - row_map[:-1])

    csr = torch.sparse_csr_tensor(row_map, entries, values, (n, n))
    coo = torch.sparse_coo_tensor(torch.stack([rows, entries]), values, (n, n)).coalesce()
    w = values.unsqueeze(1)

    def index_add():
        out = torch.zeros(n, f, dtype=dtype)
        return out.index_add_(0, rows, x.index_select(0, entries) * w)

    kernels = [
        ("torch_csr_matmul", lambda: csr @ x),
        ("torch_coo_spmm", lambda: torch.sparse.mm(coo, x)),
    ]
    gather_gb = nnz * f * x.element_size() / 2**30
    if gather_gb <= args.max_gather_gb:
        kernels.append(("torch_index_add", index_add))
    else:
        print(json.dumps({"bench": "spmm", "kernel": "torch_index_add", "skipped":
                          f"gathered copy of X would take {gather_gb:.1f} GiB"}), flush=True)
    reference = None
    results = {}
    for name, fn in kernels:  # warm-up and check
        y = fn()
        if reference is None:
            reference = y
        results[name] = {"wall": [], "cpu": [], "diff": float((y - reference).abs().max())}
    for _ in range(args.reps):  # round-robin
        for name, fn in kernels:
            c0, t0 = time.process_time(), time.perf_counter()
            fn()
            results[name]["wall"].append(time.perf_counter() - t0)
            results[name]["cpu"].append(time.process_time() - c0)
    flops = 2.0 * nnz * f
    for name, _ in kernels:
        wall = sorted(results[name]["wall"])
        cpu = sorted(results[name]["cpu"])
        med, cmed = wall[len(wall) // 2], cpu[len(cpu) // 2]
        print(json.dumps({
            "bench": "spmm", "kernel": name, "scalar": args.scalar, "rows": n, "nnz": nnz,
            "cols": f, "threads": torch.get_num_threads(), "reps": len(wall), "median_s": med,
            "min_s": wall[0], "gflops": flops / med * 1e-9, "cpu_median_s": cmed,
            "gflops_per_cpu_s": flops / cmed * 1e-9, "loadavg_1min": os.getloadavg()[0],
            "max_abs_diff_vs_csr": results[name]["diff"], "torch": torch.__version__,
        }, separators=(",", ":")), flush=True)


if __name__ == "__main__":
    main()
