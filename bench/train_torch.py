#!/usr/bin/env python3
"""Full-batch GCN training epochs in PyTorch on the data written by
`bench_train --mode export`: the same model as `bench_train --mode gcn` (GnnModel, GCN):

    X -> dropout(0.5) -> A (X W1) + b1 -> ReLU -> dropout(0.5) -> A (H W2) + b2 -> cross-entropy
    on the training nodes, Adam (lr 0.01, L2 weight decay 5e-4),

A = D^-1/2 (A + I) D^-1/2 as a CSR tensor (float32). The aggregation is a custom autograd
function (A is symmetric, so the backward is A times the gradient), as PyG's GCNConv does with a
SparseTensor. Prints one JSON line: median epoch time (forward + backward + step) and peak RSS.

    OMP_NUM_THREADS=T python3 bench/train_torch.py --data DIR --threads T
"""
import argparse
import json
import resource
import time

import numpy as np
import torch


class SpMM(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, x):
        ctx.a = a
        return torch.sparse.mm(a, x)

    @staticmethod
    def backward(ctx, g):
        return None, torch.sparse.mm(ctx.a, g)  # A^T = A (symmetric normalisation)


def gcn_norm(row_map, entries, n):
    deg = np.diff(row_map)
    rows = np.repeat(np.arange(n, dtype=np.int64), deg)
    # add self loops, then sort by (row, col) to get a CSR
    rows = np.concatenate([rows, np.arange(n, dtype=np.int64)])
    cols = np.concatenate([entries.astype(np.int64), np.arange(n, dtype=np.int64)])
    order = np.lexsort((cols, rows))
    rows, cols = rows[order], cols[order]
    d = np.bincount(rows, minlength=n).astype(np.float64)
    inv = 1.0 / np.sqrt(d)
    vals = (inv[rows] * inv[cols]).astype(np.float32)
    crow = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=crow[1:])
    return torch.sparse_csr_tensor(torch.from_numpy(crow), torch.from_numpy(cols),
                                   torch.from_numpy(vals), size=(n, n))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", required=True)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    row_map = np.load(f"{a.data}/row_map.npy")
    entries = np.load(f"{a.data}/entries.npy")
    x = torch.from_numpy(np.load(f"{a.data}/features.npy"))
    labels = torch.from_numpy(np.load(f"{a.data}/labels.npy"))
    train = torch.from_numpy(np.load(f"{a.data}/train.npy"))
    n, f = x.shape
    classes = int(labels.max()) + 1
    t0 = time.perf_counter()
    adj = gcn_norm(row_map, entries, n)
    norm_s = time.perf_counter() - t0
    del row_map, entries
    lin1 = torch.nn.Linear(f, a.hidden)
    lin2 = torch.nn.Linear(a.hidden, classes)
    params = list(lin1.parameters()) + list(lin2.parameters())
    opt = torch.optim.Adam(params, lr=0.01, weight_decay=5e-4)
    drop = torch.nn.Dropout(0.5)

    def step():
        opt.zero_grad()
        h = SpMM.apply(adj, drop(x) @ lin1.weight.t()) + lin1.bias
        h = torch.relu(h)
        out = SpMM.apply(adj, drop(h) @ lin2.weight.t()) + lin2.bias
        loss = torch.nn.functional.cross_entropy(out[train], labels[train])
        loss.backward()
        opt.step()
        return float(loss)

    times = []
    loss = 0.0
    for e in range(a.warmup + a.epochs):
        t = time.perf_counter()
        loss = step()
        if e >= a.warmup:
            times.append(time.perf_counter() - t)
    print(json.dumps({
        "bench": "gcn_full_batch_epoch", "impl": "torch", "torch": torch.__version__,
        "threads": torch.get_num_threads(), "nodes": n, "arcs": int(adj.values().numel() - n),
        "features": f, "hidden": a.hidden, "classes": classes, "epochs": a.epochs,
        "epoch_s_median": float(np.median(times)), "epoch_s": times, "last_loss": loss,
        "gcn_norm_s": norm_s,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0}))


if __name__ == "__main__":
    main()
