#!/usr/bin/env python3
"""Full-batch GCN / GraphSAGE training epochs in PyTorch on the data written by
`bench_train --mode export`: the same models as `bench_train --mode full` (GnnModel):

    X -> dropout(0.5) -> conv_1 -> ReLU -> dropout(0.5) -> ... -> conv_L -> cross-entropy
    on the training nodes, Adam (lr 0.01, L2 weight decay 5e-4) over every parameter,

GCN:  conv(H) = A (H W) + b,  A = D^-1/2 (A + I) D^-1/2 (CSR tensor, float32), as PyG's GCNConv;
SAGE: conv(H) = H W_self + A_mean H W_neigh + b, A_mean = D^-1 A (no self loops), as PyG's
      SAGEConv; the aggregation runs in the narrower width ((A H) W when in <= out, else
      A (H W)), as ttgnn's SAGEConv does.
The aggregation is a custom autograd function whose backward multiplies by A^T (a second CSR
tensor for SAGE; A itself for GCN, which is symmetric), as PyG does with a SparseTensor.

The input X (--input):
  feat  the exported node features (constants);
  emb   a full N x dim table (torch.nn.Parameter, dense gradient, in the same Adam);
  tt    a 3-core TT table (cores G_k of shape (n_k, r_k, d_k, r_{k+1}), rank --tt-rank, the
        factors chosen as ttgnn's make_tt_shape does), in the same Adam. As a PyTorch user
        would write it for full-batch training, the whole table is rebuilt densely every epoch
        with two einsums (G1 x G2, then x G3), reshaped to (n1 n2 n3, d) and cut to N rows;
        autograd gives the core gradients. Row of node v: v = (i1 n2 + i2) n3 + i3.

Prints one JSON line: median epoch time (forward + backward + step), peak RSS.

    OMP_NUM_THREADS=T python3 bench/train_torch.py --data DIR --threads T [--model gcn|sage]
        [--input feat|emb|tt] [--dim 64] [--tt-rank 8] [--hidden 128] [--layers 2]
"""
import argparse
import json
import math
import resource
import time
import warnings

import numpy as np
import torch

warnings.filterwarnings("ignore", "Sparse CSR tensor support is in beta")


class SpMM(torch.autograd.Function):
    """A x with backward A^T g (at = a for a symmetric operator)."""

    @staticmethod
    def forward(ctx, a, at, x):
        ctx.at = at
        return torch.sparse.mm(a, x)

    @staticmethod
    def backward(ctx, g):
        return None, None, torch.sparse.mm(ctx.at, g) if ctx.needs_input_grad[2] else None


def csr(rows, cols, vals, n):
    order = np.lexsort((cols, rows))
    rows, cols, vals = rows[order], cols[order], vals[order]
    crow = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=crow[1:])
    return torch.sparse_csr_tensor(torch.from_numpy(crow), torch.from_numpy(cols),
                                   torch.from_numpy(vals.astype(np.float32)), size=(n, n))


def gcn_norm(row_map, entries, n):
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(row_map))
    loops = np.arange(n, dtype=np.int64)
    rows = np.concatenate([rows, loops])
    cols = np.concatenate([entries.astype(np.int64), loops])
    inv = 1.0 / np.sqrt(np.bincount(rows, minlength=n).astype(np.float64))
    a = csr(rows, cols, inv[rows] * inv[cols], n)
    return a, a  # symmetric


def mean_aggregation(row_map, entries, n):
    deg = np.diff(row_map).astype(np.float64)
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(row_map))
    cols = entries.astype(np.int64)
    inv = 1.0 / np.maximum(deg, 1.0)
    return csr(rows, cols, inv[rows], n), csr(cols, rows, inv[rows], n)


def tt_shape(n, dim, cores=3):
    """Row factors as equal as possible with product >= n (smallest first); column factors of
    dim with the smallest spread, then the smallest maximum, largest first (make_tt_shape)."""
    rows, covered = [], 1
    for k in range(cores):
        rem = -(-n // covered)
        f = max(1, round(rem ** (1.0 / (cores - k))))
        while f ** (cores - k) < rem:
            f += 1
        while f > 1 and (f - 1) ** (cores - k) >= rem:
            f -= 1
        rows.append(f)
        covered *= f
    best = None
    for a in range(1, dim + 1):
        for b in range(1, a + 1):
            if dim % (a * b) == 0 and dim // (a * b) <= b:
                c = (a, b, dim // (a * b))
                key = (c[0] - c[2], c[0])
                if best is None or key < best[0]:
                    best = (key, c)
    return sorted(rows), list(best[1])


class TtTable(torch.nn.Module):
    def __init__(self, n, dim, rank):
        super().__init__()
        self.n, self.dim = n, dim
        self.ns, self.ds = tt_shape(n, dim)
        r = [1, rank, rank, 1]
        sigma = (0.01 / (rank * rank)) ** (1.0 / 6.0)  # table entries of variance 0.01
        self.cores = torch.nn.ParameterList(
            torch.nn.Parameter(sigma * torch.randn(self.ns[k], r[k], self.ds[k], r[k + 1]))
            for k in range(3))

    def forward(self):
        g1, g2, g3 = self.cores
        t = torch.einsum("iaxr,jrys->ijxys", g1, g2)  # (n1, n2, d1, d2, r2), a = 1
        t = t.reshape(self.ns[0] * self.ns[1], self.ds[0] * self.ds[1], -1)
        full = torch.einsum("pqs,kszb->pkqz", t, g3)  # (n1 n2, n3, d1 d2, d3), b = 1
        return full.reshape(-1, self.dim)[: self.n]

    def shape_string(self):
        r = self.cores[1].shape[1]
        join = lambda v: ",".join(map(str, v))
        return f"n=[{join(self.ns)}] d=[{join(self.ds)}] ranks=[1,{r},{r},1]"


class Conv(torch.nn.Module):
    def __init__(self, model, fin, fout):
        super().__init__()
        self.model = model
        self.lin = torch.nn.Linear(fin, fout)  # W_neigh and b for SAGE
        self.root = torch.nn.Linear(fin, fout, bias=False) if model == "sage" else None
        self.aggregate_first = model == "sage" and fin <= fout

    def forward(self, a, at, h):
        if self.model == "gcn":
            return SpMM.apply(a, at, h @ self.lin.weight.t()) + self.lin.bias
        if self.aggregate_first:
            y = self.lin(SpMM.apply(a, at, h))
        else:
            y = SpMM.apply(a, at, h @ self.lin.weight.t()) + self.lin.bias
        return y + self.root(h)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", required=True)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--model", choices=["gcn", "sage"], default="gcn")
    p.add_argument("--input", choices=["feat", "emb", "tt"], default="feat")
    p.add_argument("--dim", type=int, default=64)
    p.add_argument("--tt-rank", type=int, default=8)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    row_map = np.load(f"{a.data}/row_map.npy")
    entries = np.load(f"{a.data}/entries.npy")
    labels = torch.from_numpy(np.load(f"{a.data}/labels.npy"))
    train = torch.from_numpy(np.load(f"{a.data}/train.npy"))
    n = len(row_map) - 1
    classes = int(labels.max()) + 1
    t0 = time.perf_counter()
    adj, adj_t = (gcn_norm if a.model == "gcn" else mean_aggregation)(row_map, entries, n)
    norm_s = time.perf_counter() - t0
    arcs = len(entries)
    del row_map, entries
    x, table, extra = None, None, {}
    if a.input == "feat":
        x = torch.from_numpy(np.load(f"{a.data}/features.npy"))
        fin = x.shape[1]
    elif a.input == "emb":
        table = torch.nn.Parameter(torch.empty(n, a.dim).uniform_(-0.1, 0.1))
        fin = a.dim
    else:
        table = TtTable(n, a.dim, a.tt_rank)
        fin = a.dim
        extra["tt_shape"] = table.shape_string()
        extra["tt_lookup"] = "dense reconstruction per epoch (einsum)"
    widths = [fin] + [a.hidden] * (a.layers - 1) + [classes]
    convs = torch.nn.ModuleList(Conv(a.model, widths[k], widths[k + 1]) for k in range(a.layers))
    params = list(convs.parameters())
    if isinstance(table, torch.nn.Parameter):
        params.append(table)
    elif table is not None:
        params += list(table.parameters())
    opt = torch.optim.Adam(params, lr=0.01, weight_decay=5e-4)
    drop = torch.nn.Dropout(0.5)

    def step():
        opt.zero_grad()
        h = x if a.input == "feat" else table if a.input == "emb" else table()
        for k, conv in enumerate(convs):
            h = conv(adj, adj_t, drop(h))
            if k + 1 < len(convs):
                h = torch.relu(h)
        loss = torch.nn.functional.cross_entropy(h[train], labels[train])
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
    with open("/proc/loadavg") as f:
        load = float(f.read().split()[0])
    print(json.dumps({
        "bench": "full_batch_epoch", "impl": "torch", "torch": torch.__version__,
        "model": a.model, "input": a.input, "threads": torch.get_num_threads(), "nodes": n,
        "arcs": arcs, "in_features": fin, **extra, "hidden": a.hidden, "layers": a.layers,
        "classes": classes, "epochs": a.epochs, "epoch_s_median": float(np.median(times)),
        "epoch_s": times, "last_loss": loss, "norm_s": norm_s, "loadavg_1min": load,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0}))


if __name__ == "__main__":
    main()
