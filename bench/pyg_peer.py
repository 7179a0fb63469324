#!/usr/bin/env python3
"""PyG (PyTorch Geometric) beside ttgnn: the models and inputs of `bench_train --mode full` and
`--mode sage-minibatch` on the graph written by `bench_train --mode export --out DIR`.

    python3 bench/pyg_peer.py --data DIR --device cuda|cpu --threads T
        [--models gcn,sage --inputs feat,emb,tt --modes full,minibatch --epochs 10 --warmup 2
         --hidden 128 --layers 2 --dim 64 --tt-rank 8 --fanout 15,10 --batch-size 1024
         --max-batches 40 --seed 0 --peer auto|pyg|torch|pyg,torch --tt-impl full|bmm
         --pyg-adj sparse|edge_index]

The data (DIR/*.npy, as bench_train writes them): row_map int64 (N+1) and entries int64 (the
CSR of the symmetric graph without self loops), features float32 N x F, labels int64 N,
train int64 (the training node ids).

Models (those of bench_train; L = --layers, widths in -> hidden ... -> classes):
  full batch  X -> dropout 0.5 -> conv -> ReLU -> dropout 0.5 -> ... -> conv, cross-entropy on
              the training nodes, Adam lr 0.01, weight decay 5e-4 on every parameter (the
              embedding table or TT cores included).
  mini-batch  GraphSAGE only, on the sampled blocks: conv -> ReLU -> dropout 0.5 -> ... -> conv
              (no input dropout), cross-entropy on the batch's seeds, Adam lr 0.003 on the GNN,
              lr 0.01 on the embedding (SparseAdam for a full table: the row-sparse Adam of
              ttgnn), no weight decay; the training nodes shuffled, the first --max-batches
              batches of the epoch timed (sampling, input gathering, forward, backward, step).
  gcn         conv(H) = A (H W) + b, A = D^-1/2 (A + I) D^-1/2 (PyG: GCNConv, cached norm).
  sage        conv(H) = H W_root + mean_{j in N(i)} H_j W_neigh + b (PyG: SAGEConv, mean).
Inputs:
  feat        the exported features (constants).
  emb         nn.Embedding(N, dim): full batch uniform(-0.1, 0.1) and the whole table each
              epoch (dense gradient); mini-batch N(0, 1) and the rows of the sampled nodes.
  tt          a 3-core TT table (cores (n_k, r_k, d_k, r_k+1), ranks 1, r, r, 1), the shape
              rule of ttgnn's make_tt_shape (tt_shape below); row of node v is
              v = (i1 n2 + i2) n3 + i3. Cores N(0, s^2) with table entries of variance 0.01
              (full batch) or 1 (mini-batch), as bench_train. Full batch builds all N rows per
              epoch (--tt-impl full: G1 x G2 by one einsum, then one GEMM with G3; bmm:
              gathered batched matmuls of every row); mini-batch gathers the rows of the sampled
              nodes with two batched matmuls (the whole table when they are half of it).
Fan-outs (--fanout) are given input layer first, as bench_train's; PyG's num_neighbors is the
reverse. The number of fan-outs must equal --layers. bench_train's own defaults differ
(--hidden 256 --layers 3, and for sage-minibatch --fanout 5,10,15 --batch-size 1000): give
both sides the same values, e.g.
    bench_train --mode sage-minibatch --data DIR --fanout 15,10 --layers 2 --hidden 128
        --batch-size 1024 --input tt

Peers (--peer): `pyg` (torch_geometric's GCNConv / SAGEConv; NeighborLoader for mini-batches)
when it imports, else a line {"peer":"pyg","available":false,"reason":...} and `torch`: the
same layers in plain PyTorch, written as the project's PyTorch reference writes them
(torch.sparse.mm on a CSR operator inside an autograd function whose backward multiplies by
the precomputed transpose; each layer multiplies by W first when that narrows the sparse
product; on the CPU dropout masks from numpy's random bytes, torch's bernoulli being slow in
builds without MKL), and for mini-batches its own uniform sampler without replacement
(min(deg, fan-out) distinct neighbours per node), blocks as CSR operators.
--pyg-adj sparse (default) hands PyG a torch.sparse CSR adjacency (its fused sparse-matmul
path); if PyG refuses it, it falls back to edge_index and says so in "pyg_adj".

Output: one JSON line per configuration, keys
  peer, device, threads, mode (full|minibatch), model, input, step_s_median, steps, nodes,
  edges (stored arcs of the CSR, each undirected edge twice), torch, pyg (null for the torch
  peer), and hidden, layers, classes, in_features, dim, tt_rank, tt_shape, tt_impl, pyg_adj,
  warmup, loss_first, loss_last, losses (every step's training loss, warm-up included),
  loss_mean_first (mini-batch: mean loss of the epoch's first max-batches batches, the ones
  bench_train times; compare with its train_loss_mean), fanouts, num_neighbors, batch_size,
  batches_per_epoch, sampled_edges_mean, sampler, trim_to_layer (PyG mini-batch: the subgraph
  trimmed per layer), pyg_adj_fallback (why PyG refused the sparse adjacency), prepare_s
  (operator / loader construction, not timed; the torch peer builds its operator once per
  model), peak_mem_mb (CUDA: max allocated; CPU: peak RSS of the process), loadavg_1min,
  step_s (every timed step).
A configuration that cannot run prints {"peer":..., "mode":..., "model":..., "input":...,
"available": false, "reason": ...} instead.

Written for torch 1.13 (Debian's python3-torch, tested on the CPU without PyG) and torch 2.x
with PyG 2.x on CUDA (not tested here).
"""
import argparse
import json
import math
import os
import resource
import statistics
import sys
import time
import traceback
import warnings

try:
    import numpy as np
    import torch
except ImportError as _e:  # say so as the other failures do (e.g. a python3 without torch)
    print(json.dumps({"peer": "pyg", "available": False, "python": sys.executable,
                      "reason": f"numpy / torch do not import: {_e}"}), flush=True)
    sys.exit(2)
import torch.nn as nn
import torch.nn.functional as F

warnings.filterwarnings("ignore", message=".*[Ss]parse CSR tensor support is in beta.*")
warnings.filterwarnings("ignore", message=".*NumPy array is not writable.*")
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


def emit(obj):
    print(json.dumps(obj), flush=True)


def loadavg():
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


# ----------------------------------------------------------------------------- timing
class Timer:
    def __init__(self, device):
        self.cuda = device.type == "cuda"

    def now(self):
        if self.cuda:
            torch.cuda.synchronize()
        return time.perf_counter()


def peak_mem_mb(device):
    if device.type == "cuda":
        return round(torch.cuda.max_memory_allocated(device) / 2**20, 1)
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1)


# ----------------------------------------------------------------------------- dropout
class Dropout:
    """Inverted dropout. On the CPU the keep mask comes from numpy's random bytes (p = 0.5:
    a byte >= 128), as the project's PyTorch reference does (bernoulli_ is a slow serial
    generator in torch builds without MKL); on CUDA F.dropout."""

    def __init__(self, device, seed):
        self.cpu = device.type == "cpu"
        self.rng = np.random.default_rng(seed + 0x5EED)

    def __call__(self, x, p, training):
        if not training or p <= 0:
            return x
        if not self.cpu:
            return F.dropout(x, p, True)
        q = p * 256
        if abs(q - round(q)) < 1e-9:
            b = torch.from_numpy(np.frombuffer(self.rng.bytes(x.numel()), dtype=np.uint8))
            keep = b >= int(round(q))
        else:
            b = torch.from_numpy(np.frombuffer(self.rng.bytes(2 * x.numel()), dtype=np.int16))
            keep = b >= int(round(p * 65536)) - 32768
        return x * keep.view(x.shape).to(x.dtype).mul_(1.0 / (1.0 - p))


# ----------------------------------------------------------------------------- sparse ops
class SpMM(torch.autograd.Function):
    """A @ X, backward A^T @ G with a precomputed (or lazily built) transpose."""

    @staticmethod
    def forward(ctx, op, x):
        ctx.op = op
        return torch.sparse.mm(op.a, x)

    @staticmethod
    def backward(ctx, g):
        if not ctx.needs_input_grad[1]:
            return None, None
        return None, torch.sparse.mm(ctx.op.transpose(), g.contiguous())


class CsrOp:
    """A sparse operator with rows crow/col/val (torch tensors on the device) and its
    transpose (given, or built on first use)."""

    def __init__(self, crow, col, val, shape, symmetric=False):
        self.shape = shape
        self.crow, self.col, self.val = crow, col, val
        self.a = torch.sparse_csr_tensor(crow, col, val, size=shape)
        self.at = self.a if symmetric else None

    def transpose(self):
        if self.at is None:
            rows, cols = self.shape
            row = torch.repeat_interleave(torch.arange(rows, device=self.col.device),
                                          self.crow[1:] - self.crow[:-1])
            key = self.col * rows + row  # sort by (col, row)
            order = torch.argsort(key)
            crow_t = torch.zeros(cols + 1, dtype=torch.int64, device=self.col.device)
            crow_t[1:] = torch.cumsum(torch.bincount(self.col, minlength=cols), 0)
            self.at = torch.sparse_csr_tensor(crow_t, row[order], self.val[order],
                                              size=(cols, rows))
        return self.at

    def __call__(self, x):
        return SpMM.apply(self, x)


def gcn_operator(row_map, entries, n, device):
    """D^-1/2 (A + I) D^-1/2 as CSR (symmetric; the export has no self loops)."""
    deg = np.diff(row_map)
    rows = np.repeat(np.arange(n, dtype=np.int64), deg)
    # insert the self loop of row i at its sorted position
    rows = np.concatenate([rows, np.arange(n, dtype=np.int64)])
    cols = np.concatenate([entries, np.arange(n, dtype=np.int64)])
    order = np.lexsort((cols, rows))
    rows, cols = rows[order], cols[order]
    dinv = 1.0 / np.sqrt((deg + 1).astype(np.float64))
    val = (dinv[rows] * dinv[cols]).astype(np.float32)
    crow = np.zeros(n + 1, dtype=np.int64)
    crow[1:] = np.cumsum(deg + 1)
    t = lambda v: torch.from_numpy(v).to(device)  # noqa: E731
    return CsrOp(t(crow), t(cols), t(val), (n, n), symmetric=True)


def mean_operator(row_map, entries, n, device):
    """D^-1 A (isolated nodes aggregate to 0), CSR; its transpose built here."""
    deg = np.diff(row_map)
    val = np.repeat(1.0 / np.maximum(deg, 1), deg).astype(np.float32)
    t = lambda v: torch.from_numpy(np.ascontiguousarray(v)).to(device)  # noqa: E731
    op = CsrOp(t(row_map), t(entries), t(val), (n, n))
    op.transpose()
    return op


# ----------------------------------------------------------------------------- TT table
class TtTable(nn.Module):
    """3-core TT table, cores G_k of shape (n_k, r_k, d_k, r_k+1), ranks (1, r, r, 1)."""

    def __init__(self, n, dim, rank, variance):
        super().__init__()
        self.n, self.dim, self.rank = n, dim, rank
        self.ns, self.ds = tt_shape(n, dim)
        r = [1, rank, rank, 1]
        sigma = (variance / (rank * rank)) ** (1.0 / 6.0)
        self.cores = nn.ParameterList(
            nn.Parameter(sigma * torch.randn(self.ns[k], r[k], self.ds[k], r[k + 1]))
            for k in range(3))

    def shape_string(self):
        j = lambda v: ",".join(map(str, v))  # noqa: E731
        return f"n=[{j(self.ns)}] d=[{j(self.ds)}] ranks=[1,{self.rank},{self.rank},1]"

    def full_table(self):
        g1, g2, g3 = self.cores
        (n1, n2, n3), (d1, d2, d3), r = self.ns, self.ds, self.rank
        p = torch.einsum("ias,jsbt->ijabt", g1[:, 0], g2).reshape(n1 * n2 * d1 * d2, r)
        full = p @ g3[..., 0].permute(1, 0, 2).reshape(r, n3 * d3)
        full = full.view(n1, n2, d1, d2, n3, d3).permute(0, 1, 4, 2, 3, 5)
        return full.reshape(n1 * n2 * n3, self.dim)[: self.n]

    def rows(self, ids):
        g1, g2, g3 = self.cores
        (_, n2, n3), (d1, d2, d3), r = self.ns, self.ds, self.rank
        b = ids.shape[0]
        i1 = torch.div(ids, n2 * n3, rounding_mode="floor")
        rem = ids - i1 * (n2 * n3)
        i2 = torch.div(rem, n3, rounding_mode="floor")
        i3 = rem - i2 * n3
        t = torch.bmm(g1.index_select(0, i1).view(b, d1, r),
                      g2.index_select(0, i2).view(b, r, d2 * r)).view(b, d1 * d2, r)
        return torch.bmm(t, g3.index_select(0, i3).view(b, r, d3)).view(b, self.dim)


def make_input(kind, n, a, features, device, minibatch):
    """(module or None, fn(ids or None) -> rows, in_features, info)."""
    info = {}
    if kind == "feat":
        x = features.to(device)
        return None, (lambda ids: x if ids is None else x.index_select(0, ids)), x.shape[1], info
    info["dim"] = a.dim
    if kind == "emb":
        emb = nn.Embedding(n, a.dim, sparse=minibatch).to(device)
        if not minibatch:
            with torch.no_grad():
                emb.weight.uniform_(-0.1, 0.1)
        return emb, (lambda ids: emb.weight if ids is None else emb(ids)), a.dim, info
    tt = TtTable(n, a.dim, a.tt_rank, 1.0 if minibatch else 0.01).to(device)
    info.update(tt_rank=a.tt_rank, tt_shape=tt.shape_string())
    if minibatch:
        # the sampled input rows by gathered bmm, or the whole table cut to them when they are
        # at least half of it (a small graph, where the batch reaches most nodes)
        info["tt_impl"] = "bmm, or full_table()[ids] when ids >= N/2"
        return tt, (lambda ids: tt.full_table().index_select(0, ids) if 2 * ids.shape[0] >= n
                    else tt.rows(ids)), a.dim, info
    info["tt_impl"] = a.tt_impl
    if a.tt_impl == "full":
        return tt, (lambda ids: tt.full_table()), a.dim, info
    all_ids = torch.arange(n, device=device)
    return tt, (lambda ids: tt.rows(all_ids)), a.dim, info


# ----------------------------------------------------------------------------- torch models
class TorchGNN(nn.Module):
    """GCN / SAGE layers of plain PyTorch over CsrOp operators (one per layer for blocks)."""

    def __init__(self, model, widths):
        super().__init__()
        self.model = model
        self.neigh = nn.ModuleList(nn.Linear(widths[k], widths[k + 1])
                                   for k in range(len(widths) - 1))
        if model == "gcn":
            for lin in self.neigh:
                nn.init.xavier_uniform_(lin.weight)
                nn.init.zeros_(lin.bias)
            self.root = None
        else:
            self.root = nn.ModuleList(nn.Linear(widths[k], widths[k + 1], bias=False)
                                      for k in range(len(widths) - 1))

    def conv(self, k, op, h, num_dst):
        lin = self.neigh[k]
        if lin.out_features < lin.in_features:  # narrower sparse product: W first
            y = op(F.linear(h, lin.weight)) + lin.bias
        else:
            y = lin(op(h))
        if self.root is not None:
            y = y + self.root[k](h[:num_dst])
        return y

    def forward(self, h, ops, drop, in_p, p):
        """ops: one operator for every layer (full batch) or the blocks, input layer first."""
        last = len(self.neigh) - 1
        h = drop(h, in_p, self.training)
        for k in range(len(self.neigh)):
            h = self.conv(k, ops[k], h, ops[k].shape[0])
            if k < last:
                h = drop(F.relu(h), p, self.training)
        return h


class TorchSampler:
    """Uniform neighbour sampling without replacement (min(deg, fan-out) distinct neighbours
    per destination node, all when deg <= fan-out), blocks input layer first; destination
    nodes first among the sources, new nodes after them. Runs on the device of the CSR."""

    def __init__(self, row_map, entries, n, fanouts, device, seed):
        self.crow = torch.from_numpy(row_map).to(device)
        self.col = torch.from_numpy(entries).to(device)
        self.n, self.fanouts, self.device = n, fanouts, device
        self.local = torch.full((n,), -1, dtype=torch.int64, device=device)
        self.gen = torch.Generator(device=device)
        self.gen.manual_seed(seed)

    def sample_layer(self, dst, fanout):
        # index_select / masked_select rather than advanced indexing: far faster on torch 1.13
        sel = torch.index_select
        start = sel(self.crow, 0, dst)
        deg = sel(self.crow, 0, dst + 1) - start
        nd = dst.shape[0]
        ar = torch.arange(nd, device=self.device)
        seg = torch.repeat_interleave(ar, deg)
        offs = torch.cumsum(deg, 0) - deg
        pos = torch.arange(seg.shape[0], device=self.device) - sel(offs, 0, seg)
        eid = sel(start, 0, seg) + pos
        take = deg.clamp(max=fanout)
        if int((deg > fanout).sum()) > 0:
            key = torch.rand(seg.shape[0], generator=self.gen, device=self.device,
                             dtype=torch.float64) + seg.to(torch.float64)
            order = torch.argsort(key)  # random order within each destination node
            keep = pos < sel(take, 0, seg)  # seg is sorted, so its order and pos stay
            eid = torch.masked_select(sel(eid, 0, order), keep)
            seg = torch.masked_select(seg, keep)
        nbr = sel(self.col, 0, eid)
        # relabel: destination nodes first, then the new nodes
        self.local.index_copy_(0, dst, ar)
        new = torch.unique(torch.masked_select(nbr, sel(self.local, 0, nbr) < 0))
        self.local.index_copy_(0, new, torch.arange(nd, nd + new.shape[0], device=self.device))
        src = torch.cat([dst, new])
        cols = sel(self.local, 0, nbr)
        self.local.index_fill_(0, src, -1)
        ns = src.shape[0]
        cols = sel(cols, 0, torch.argsort(seg * ns + cols))  # CSR: sorted columns in each row
        crow = torch.zeros(nd + 1, dtype=torch.int64, device=self.device)
        crow[1:] = torch.cumsum(take, 0)
        val = torch.repeat_interleave(1.0 / take.clamp(min=1).to(torch.float32), take)
        return src, CsrOp(crow, cols, val, (nd, ns))

    def sample(self, seeds):
        blocks, dst = [], seeds
        for fanout in reversed(self.fanouts):  # seeds' neighbours: the last fan-out
            src, block = self.sample_layer(dst, fanout)
            blocks.append(block)
            dst = src
        return dst, blocks[::-1]  # input nodes, blocks input layer first


# ----------------------------------------------------------------------------- PyG models
def pyg_model(pyg, model, widths, cached):
    from torch_geometric.nn import GCNConv, SAGEConv

    class PygGNN(nn.Module):
        def __init__(self):
            super().__init__()
            convs = []
            for k in range(len(widths) - 1):
                if model == "gcn":
                    convs.append(GCNConv(widths[k], widths[k + 1], cached=cached))
                else:
                    convs.append(SAGEConv(widths[k], widths[k + 1], aggr="mean"))
            self.convs = nn.ModuleList(convs)

        def forward(self, h, adj, drop, in_p, p, hops=None):
            last = len(self.convs) - 1
            h = drop(h, in_p, self.training)
            for k, conv in enumerate(self.convs):
                if hops is not None:  # trim the sampled subgraph to what layer k still needs
                    h, adj = hops(k, h, adj)
                h = conv(h, adj)
                if k < last:
                    h = drop(F.relu(h), p, self.training)
            return h

    return PygGNN()


# ----------------------------------------------------------------------------- runs
class Graph:
    def __init__(self, data_dir):
        self.row_map = np.load(f"{data_dir}/row_map.npy").astype(np.int64, copy=False)
        self.entries = np.load(f"{data_dir}/entries.npy").astype(np.int64, copy=False)
        self.features = torch.from_numpy(np.load(f"{data_dir}/features.npy").astype(
            np.float32, copy=False))
        self.labels = torch.from_numpy(np.load(f"{data_dir}/labels.npy").astype(np.int64))
        self.train = torch.from_numpy(np.load(f"{data_dir}/train.npy").astype(np.int64))
        self.n = len(self.row_map) - 1
        self.arcs = int(len(self.entries))
        self.classes = int(self.labels.max()) + 1
        self._edge_index = None
        self._operators = {}

    def operator(self, model, device):
        """The normalised operator of the torch peer, built once per model (not timed)."""
        if model not in self._operators:
            build = gcn_operator if model == "gcn" else mean_operator
            self._operators[model] = build(self.row_map, self.entries, self.n, device)
        return self._operators[model]

    def edge_index(self):
        """(2, arcs) int64 CPU tensor: row 0 sources, row 1 targets (the graph is symmetric)."""
        if self._edge_index is None:
            dst = np.repeat(np.arange(self.n, dtype=np.int64), np.diff(self.row_map))
            self._edge_index = torch.from_numpy(np.stack([self.entries, dst]))
        return self._edge_index


def base_record(peer, a, mode, model, inp):
    return {"peer": peer, "device": a.device, "threads": torch.get_num_threads(), "mode": mode,
            "model": model, "input": inp}


def finish(rec, g, a, times, losses, warmup, device, extra):
    rec.update({"step_s_median": round(statistics.median(times), 6) if times else None,
                "steps": len(times), "nodes": g.n, "edges": g.arcs, "torch": torch.__version__,
                "pyg": extra.pop("pyg", None), "hidden": a.hidden, "layers": a.layers,
                "classes": g.classes})
    rec.update(extra)
    rec.update({"warmup": warmup, "loss_first": losses[0] if losses else None,
                "loss_last": losses[-1] if losses else None,
                "losses": [round(v, 5) for v in losses],
                "peak_mem_mb": peak_mem_mb(device), "loadavg_1min": loadavg(),
                "step_s": [round(t, 6) for t in times]})
    return rec


def run_full(peer, a, g, model, inp, device, pyg_mod):
    torch.manual_seed(a.seed)
    emb, rows, fin, info = make_input(inp, g.n, a, g.features, device, minibatch=False)
    widths = [fin] + [a.hidden] * (a.layers - 1) + [g.classes]
    labels = g.labels.to(device)
    train = g.train.to(device)
    ytr = labels[train]
    drop = Dropout(device, a.seed)
    extra = dict(info, in_features=fin)
    t0 = time.perf_counter()
    if peer == "torch":
        op = g.operator(model, device)
        net = TorchGNN(model, widths).to(device)
        ops = [op] * a.layers
        forward = lambda h: net(h, ops, drop, 0.5, 0.5)  # noqa: E731
    else:
        extra["pyg"] = pyg_mod.__version__
        net = pyg_model(pyg_mod, model, widths, cached=True).to(device)
        adj, extra["pyg_adj"] = pyg_adjacency(a, g, device)
        forward = lambda h: net(h, adj, drop, 0.5, 0.5)  # noqa: E731
    extra["prepare_s"] = round(time.perf_counter() - t0, 3)
    params = list(net.parameters()) + (list(emb.parameters()) if emb is not None else [])
    opt = torch.optim.Adam(params, lr=0.01, weight_decay=5e-4)
    timer = Timer(device)

    def step():
        opt.zero_grad(set_to_none=True)
        out = forward(rows(None))
        loss = F.cross_entropy(out[train], ytr)
        loss.backward()
        opt.step()
        return loss

    net.train()
    times, losses, first = [], [], 0
    if peer == "pyg" and extra["pyg_adj"] == "sparse":
        try:  # the first step decides whether PyG takes the sparse adjacency
            t = timer.now()
            loss = step()
            dt = timer.now() - t
            losses.append(float(loss))
            if a.warmup == 0:
                times.append(dt)
            first = 1
        except Exception as e:  # noqa: BLE001
            extra["pyg_adj"] = "edge_index"
            extra["pyg_adj_fallback"] = f"{type(e).__name__}: {e}"[:300]
            net = pyg_model(pyg_mod, model, widths, cached=True).to(device)
            adj = g.edge_index().to(device)
            forward = lambda h: net(h, adj, drop, 0.5, 0.5)  # noqa: E731
            params = list(net.parameters()) + (list(emb.parameters()) if emb is not None else [])
            opt = torch.optim.Adam(params, lr=0.01, weight_decay=5e-4)
    for e in range(first, a.warmup + a.epochs):
        t = timer.now()
        loss = step()
        dt = timer.now() - t
        losses.append(float(loss))
        if e >= a.warmup:
            times.append(dt)
    return finish(base_record(peer, a, "full", model, inp), g, a, times, losses,
                  a.warmup, device, extra)


def pyg_adjacency(a, g, device):
    """(adjacency, name): a torch.sparse CSR adj_t (rows = targets) or edge_index."""
    if a.pyg_adj == "sparse":
        try:
            n = g.n
            adj = torch.sparse_csr_tensor(torch.from_numpy(g.row_map), torch.from_numpy(g.entries),
                                          torch.ones(g.arcs), size=(n, n)).to(device)
            return adj, "sparse"
        except Exception:  # noqa: BLE001
            pass
    return g.edge_index().to(device), "edge_index"


def run_minibatch(peer, a, g, model, inp, device, pyg_mod):
    if model != "sage":
        return None
    torch.manual_seed(a.seed)
    emb, rows, fin, info = make_input(inp, g.n, a, g.features, device, minibatch=True)
    widths = [fin] + [a.hidden] * (a.layers - 1) + [g.classes]
    labels = g.labels.to(device)
    drop = Dropout(device, a.seed)
    extra = dict(info, in_features=fin, fanouts=a.fanouts, num_neighbors=a.fanouts[::-1],
                 batch_size=a.batch_size,
                 batches_per_epoch=-(-int(g.train.shape[0]) // a.batch_size))
    t0 = time.perf_counter()
    if peer == "torch":
        net = TorchGNN("sage", widths).to(device)
        sampler = TorchSampler(g.row_map, g.entries, g.n, a.fanouts, device, a.seed)
        gen = torch.Generator()
        gen.manual_seed(a.seed)
        perm = g.train[torch.randperm(g.train.shape[0], generator=gen)].to(device)
        batches = iter(perm.split(a.batch_size))
        extra["sampler"] = "torch (own, without replacement)"

        def next_batch():
            seeds = next(batches)
            nodes, blocks = sampler.sample(seeds)
            return seeds, nodes, blocks, sum(int(b.col.shape[0]) for b in blocks)

        def forward(nodes, blocks):
            return net(rows(nodes), blocks, drop, 0.0, 0.5)
    else:
        from torch_geometric.data import Data
        from torch_geometric.loader import NeighborLoader
        extra["pyg"] = pyg_mod.__version__
        net = pyg_model(pyg_mod, "sage", widths, cached=False).to(device)
        # the loader samples on the CPU graph; the input rows are gathered on the device
        data = Data(edge_index=g.edge_index(), num_nodes=g.n)
        loader = NeighborLoader(data, num_neighbors=a.fanouts[::-1], batch_size=a.batch_size,
                                input_nodes=g.train, shuffle=True, num_workers=0)
        extra["sampler"] = "NeighborLoader"
        batches = iter(loader)

        def next_batch():
            b = next(batches)
            nodes = b.n_id.to(device, non_blocking=True)
            ei = b.edge_index.to(device, non_blocking=True)
            hops = None
            ns = getattr(b, "num_sampled_nodes", None)
            es = getattr(b, "num_sampled_edges", None)
            if isinstance(ns, (list, tuple)) and isinstance(es, (list, tuple)) and len(ns) > 1:
                # PyG's trim_to_layer, written out (its handling of x differs between
                # versions): layer k drops the outermost hop's nodes and edges (the loader
                # orders both by hop) that no later layer needs.
                def hops(k, h, adj, ns=ns, es=es):
                    if k == 0:
                        return h, adj
                    return (h.narrow(0, 0, h.size(0) - int(ns[-k])),
                            adj.narrow(1, 0, adj.size(1) - int(es[-k])))
            extra["trim_to_layer"] = hops is not None
            return b.n_id[: b.batch_size].to(device), nodes, (ei, hops), int(b.edge_index.shape[1])

        def forward(nodes, blocks):
            ei, hops = blocks
            return net(rows(nodes), ei, drop, 0.0, 0.5, hops)
    extra["prepare_s"] = round(time.perf_counter() - t0, 3)
    opt = torch.optim.Adam(net.parameters(), lr=0.003)
    opt_emb = None
    if emb is not None:
        opt_emb = (torch.optim.SparseAdam(list(emb.parameters()), lr=0.01) if inp == "emb"
                   else torch.optim.Adam(emb.parameters(), lr=0.01))
    timer = Timer(device)
    net.train()
    times, losses, edges = [], [], []
    steps = min(a.warmup + a.max_batches, extra["batches_per_epoch"])
    for s in range(steps):
        t = timer.now()
        seeds, nodes, blocks, ne = next_batch()
        opt.zero_grad(set_to_none=True)
        if opt_emb is not None:
            opt_emb.zero_grad(set_to_none=True)
        out = forward(nodes, blocks)[: seeds.shape[0]]
        loss = F.cross_entropy(out, labels[seeds])
        loss.backward()
        opt.step()
        if opt_emb is not None:
            opt_emb.step()
        dt = timer.now() - t
        losses.append(float(loss))
        edges.append(ne)
        if s >= a.warmup:
            times.append(dt)
    warm = min(a.warmup, steps)
    first = losses[: min(a.max_batches, steps)]  # the batches bench_train times (no warm-up)
    extra["loss_mean_first"] = round(statistics.mean(first), 5) if first else None
    extra["sampled_edges_mean"] = round(statistics.mean(edges), 1) if edges else None
    return finish(base_record(peer, a, "minibatch", model, inp), g, a, times, losses,
                  warm, device, extra)


# ----------------------------------------------------------------------------- main
def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", required=True)
    p.add_argument("--device", default="cpu", help="cpu or cuda (cuda:K)")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--models", default="gcn,sage")
    p.add_argument("--inputs", default="feat,emb,tt")
    p.add_argument("--modes", default="full,minibatch")
    p.add_argument("--peer", default="auto", help="auto (pyg if it imports, else torch), pyg, "
                   "torch or a comma list")
    p.add_argument("--epochs", type=int, default=10, help="full batch: timed epochs")
    p.add_argument("--warmup", type=int, default=2, help="untimed epochs / batches first")
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--dim", type=int, default=64)
    p.add_argument("--tt-rank", type=int, default=8)
    p.add_argument("--tt-impl", choices=["full", "bmm"], default="full")
    p.add_argument("--fanout", default="15,10", help="input layer first, as bench_train")
    p.add_argument("--batch-size", type=int, default=1024)
    p.add_argument("--max-batches", type=int, default=40, help="mini-batch: batches timed")
    p.add_argument("--pyg-adj", choices=["sparse", "edge_index"], default="sparse")
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    a.fanouts = [int(v) for v in a.fanout.split(",") if v.strip()]
    torch.set_num_threads(a.threads)
    models = [m for m in a.models.split(",") if m]
    inputs = [i for i in a.inputs.split(",") if i]
    modes = [m for m in a.modes.split(",") if m]
    for m in models:
        if m not in ("gcn", "sage"):
            p.error(f"--models: unknown {m}")
    for i in inputs:
        if i not in ("feat", "emb", "tt"):
            p.error(f"--inputs: unknown {i}")
    for m in modes:
        if m not in ("full", "minibatch"):
            p.error(f"--modes: unknown {m}")
    if "minibatch" in modes and len(a.fanouts) != a.layers:
        p.error(f"--fanout {a.fanout}: {len(a.fanouts)} fan-outs for {a.layers} layers")
    device = torch.device(a.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        emit({"peer": "pyg", "available": False, "device": a.device,
              "reason": "torch.cuda.is_available() is false"})
        return 1

    pyg_mod, pyg_reason = None, None
    try:
        import torch_geometric as pyg_mod  # noqa: F811
    except Exception as e:  # noqa: BLE001
        pyg_reason = f"torch_geometric does not import: {type(e).__name__}: {e}"
    wanted = a.peer.split(",")
    if wanted == ["auto"]:
        wanted = ["pyg"] if pyg_mod is not None else ["torch"]
        if pyg_mod is None:
            emit({"peer": "pyg", "available": False, "reason": pyg_reason,
                  "torch": torch.__version__, "fallback": "torch"})
    elif "pyg" in wanted and pyg_mod is None:
        emit({"peer": "pyg", "available": False, "reason": pyg_reason,
              "torch": torch.__version__})
        wanted = [w for w in wanted if w != "pyg"]

    g = Graph(a.data)
    rc = 0
    for peer in wanted:
        for mode in modes:
            for model in models:
                if mode == "minibatch" and model != "sage":
                    continue
                for inp in inputs:
                    run = run_full if mode == "full" else run_minibatch
                    tries = [peer]
                    if peer == "pyg" and "torch" not in wanted:
                        tries.append("torch")  # said so, then the plain-PyTorch model instead
                    for who in tries:
                        if device.type == "cuda":
                            torch.cuda.empty_cache()
                            torch.cuda.reset_peak_memory_stats(device)
                        try:
                            rec = run(who, a, g, model, inp, device, pyg_mod)
                        except Exception as e:  # noqa: BLE001
                            traceback.print_exc(file=sys.stderr)
                            emit({"peer": who, "device": a.device, "mode": mode, "model": model,
                                  "input": inp, "available": False,
                                  "reason": f"{type(e).__name__}: {e}"[:500]})
                            rc = rc or int(who == tries[-1])
                            continue
                        if rec is not None:
                            emit(rec)
                        break
    return rc


if __name__ == "__main__":
    sys.exit(main())
