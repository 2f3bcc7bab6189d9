"""Attention flow (Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers"): a maximum flow.

Rollout (attention/models/rollout.py) multiplies the layers' mixing matrices and so adds up the products along
every path.  Flow treats the same graph as pipes: nodes are (layer k, position p), k = 0 .. K, and an edge
(k - 1, p) → (k, q) has capacity Ã_k[q, p], where Ã_k = ½·A_k + ½·I is layer k's weights (head-averaged or one
head) with the residual, as in rollout (rollout.residual_mix; the authors add I and divide each row by its sum:
the same matrix).  Then

    raw[i, j]  = the maximum flow from input token j (node (0, j)) to position i after layer K (node (K, i))
    flow[i, j] = raw[i, j] / Σ_j' raw[i, j']             (the authors' compute_flows divides each row by its sum)

Max-flow = min-cut: the flow is as large as the narrowest set of edges that separates j from i, and that set (the
edges leaving the nodes still reachable from j once the flow is pushed) names the bottleneck of a cell.

How: Dinic's algorithm, written out below, on the graph cut down to the nodes that lie on some path from j to i
(of a causal model, positions j .. i).  Why not networkx: its edmonds_karp (the authors' call) builds the residual
network of the whole graph for every pair; on SmolLM2's 30 layers x 16 tokens that is ~50 ms a pair, 7 s for one
layer's 136 cells, against ~0.5 s here (bench/heads.py prints both).  networkx stays the tests' reference
(tests/models/test_attention_flow.py runs the authors' own compute_flows).  Qt-free; numpy only.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional, Sequence

import numpy as np

#: residual capacity below this counts as none (the capacities are weights in [0, 1])
EPS = 1e-12


@dataclass(frozen=True)
class Cut:
    """One edge of a minimum cut: from (layer - 1, src) to (layer, dst), layers from 1, with its capacity."""

    layer: int
    src: int
    dst: int
    capacity: float


@dataclass(frozen=True)
class CellFlow:
    value: float
    cut: tuple[Cut, ...]  # largest capacity first; the capacities add up to `value`


def mixed_layers(weights: Sequence[np.ndarray], head: Optional[int] = None) -> list[np.ndarray]:
    """Ã of each layer from its weights (H, L, L) (the model view's grid rows): head-averaged or head `head`."""
    import torch

    from attention.models.rollout import residual_mix

    return [residual_mix(torch.from_numpy(np.ascontiguousarray(w, dtype=np.float64))[None], head)[0].numpy()
            for w in weights]


def _nodes(mixed: Sequence[np.ndarray], i: int, j: int) -> list[np.ndarray]:
    """Per layer 0 .. K, the positions on some path from (0, j) to (K, i) (boolean (L,) each)."""
    K, L = len(mixed), mixed[0].shape[0]
    ahead = [np.zeros(L, bool) for _ in range(K + 1)]
    ahead[0][j] = True
    for k, m in enumerate(mixed):  # m[q, p]: from p at layer k to q at layer k + 1
        ahead[k + 1] = (m[:, ahead[k]] > 0).any(axis=1)
    back = [np.zeros(L, bool) for _ in range(K + 1)]
    back[K][i] = True
    for k in range(K - 1, -1, -1):
        back[k] = (mixed[k][back[k + 1]] > 0).any(axis=0)
    return [a & b for a, b in zip(ahead, back)]


class _Graph:
    """Adjacency lists with paired edges (e and e ^ 1 are an edge and its reverse)."""

    def __init__(self, n: int):
        self.out: list[list[int]] = [[] for _ in range(n)]
        self.to: list[int] = []
        self.cap: list[float] = []
        self.first: list[float] = []  # the capacity each edge was made with (reverse edges: 0)

    def add(self, u: int, v: int, c: float) -> None:
        for a, b, cc in ((u, v, c), (v, u, 0.0)):
            self.out[a].append(len(self.to))
            self.to.append(b)
            self.cap.append(cc)
            self.first.append(cc)

    def levels(self, s: int) -> list[int]:
        """BFS distance from s over edges with capacity left (-1: not reached)."""
        level = [-1] * len(self.out)
        level[s] = 0
        queue = [s]
        for u in queue:
            for e in self.out[u]:
                v = self.to[e]
                if level[v] < 0 and self.cap[e] > EPS:
                    level[v] = level[u] + 1
                    queue.append(v)
        return level

    def push(self, s: int, t: int, level: list[int]) -> float:
        """One blocking flow of Dinic's algorithm on the level graph (iterative depth-first search)."""
        out, to, cap = self.out, self.to, self.cap
        nxt = [0] * len(out)
        total = 0.0
        while True:
            path: list[int] = []  # edges from s
            u = s
            while u != t:
                edges = out[u]
                while nxt[u] < len(edges):
                    e = edges[nxt[u]]
                    if cap[e] > EPS and level[to[e]] == level[u] + 1:
                        break
                    nxt[u] += 1
                if nxt[u] == len(edges):  # a dead end: never again this phase
                    if u == s:
                        return total
                    level[u] = -1
                    e = path.pop()
                    u = to[e ^ 1]
                    nxt[u] += 1
                    continue
                e = edges[nxt[u]]
                path.append(e)
                u = to[e]
            f = min(cap[e] for e in path)
            for e in path:
                cap[e] -= f
                cap[e ^ 1] += f
            total += f


def cell_flow(mixed: Sequence[np.ndarray], i: int, j: int, cut: bool = False) -> CellFlow:
    """The maximum flow from input token j to position i after the last of `mixed` (each (L, L), Ã[q, p]); with
    `cut`, the edges of a minimum cut too."""
    K = len(mixed)
    keep = _nodes(mixed, i, j)
    if not keep[K][i]:
        return CellFlow(0.0, ())
    ids: dict[tuple[int, int], int] = {}
    for k, where in enumerate(keep):
        for p in np.flatnonzero(where).tolist():
            ids[(k, p)] = len(ids)
    g = _Graph(len(ids))
    edges = []
    for k, m in enumerate(mixed):
        src, dst = np.flatnonzero(keep[k]), np.flatnonzero(keep[k + 1])
        block = m[np.ix_(dst, src)]  # (dst, src)
        for a, b in zip(*np.nonzero(block > 0)):
            p, q = int(src[b]), int(dst[a])
            edges.append((len(g.to), k + 1, p, q))
            g.add(ids[(k, p)], ids[(k + 1, q)], float(block[a, b]))
    s, t = ids[(0, j)], ids[(K, i)]
    value = 0.0
    while True:
        level = g.levels(s)
        if level[t] < 0:
            break
        value += g.push(s, t, level)
    if not cut:
        return CellFlow(value, ())
    reached = [lv >= 0 for lv in g.levels(s)]
    cuts = [Cut(layer, p, q, g.first[e]) for e, layer, p, q in edges
            if reached[g.to[e ^ 1]] and not reached[g.to[e]]]
    return CellFlow(value, tuple(sorted(cuts, key=lambda c: -c.capacity)))


@dataclass(frozen=True)
class FlowMap:
    """flow (L, L): each row divided by its sum (the heatmap); raw (L, L): the maximum flows themselves."""

    flow: np.ndarray
    raw: np.ndarray


def flow_map(mixed: Sequence[np.ndarray], progress: Optional[Callable[[int, int], None]] = None,
             cancelled: Optional[Callable[[], bool]] = None) -> Optional[FlowMap]:
    """Every cell of the map after the last of `mixed`; None when `cancelled()` said so between rows."""
    L = mixed[0].shape[0]
    raw = np.zeros((L, L))
    for i in range(L):
        if cancelled is not None and cancelled():
            return None
        for j in range(L):
            raw[i, j] = cell_flow(mixed, i, j).value
        if progress is not None:
            progress(i + 1, L)
    total = raw.sum(axis=1, keepdims=True)
    return FlowMap(np.divide(raw, total, out=np.zeros_like(raw), where=total > 0), raw)
