"""Attention flow of the model view's sentence (Qt-free): the heatmap beside rollout, and the explain of one cell.

The numbers come from attention.models.attention_flow on the weights the model view shows (session.grid()), as
rollout's do (app/viewmodel/rollout_view.py): through layers 1 .. the open layer, head-averaged ("All heads") or
the picked head, with the residual as in rollout.  A pair's A / B filter cuts what is shown, never what flows.
A map of many cells is computed off the GUI thread (`needs_worker`); a cell's explain (one maximum flow and its
minimum cut) is milliseconds.
"""
from __future__ import annotations

from typing import Any, Callable, Hashable, Optional

import numpy as np

from attention import words

#: cut edges listed in a cell's explain (largest capacity first); the rest are counted
from attention.datamodel import numbers

SHOWN_EDGES = 8
#: (layers x tokens²) up to which the flow is computed on the GUI thread: glassllm's 4 layers x 12 tokens take
#: ~15 ms; SmolLM2's 30 x 16 ~0.3 s, which goes to the worker
SYNC_SIZE = 4 * 16 * 16


def _mixed(session: Any) -> list[np.ndarray]:
    from attention.models.attention_flow import mixed_layers

    grid = session.grid()  # (n_layers, H, n, n)
    return mixed_layers([grid[k] for k in range(session.layer + 1)], None if session.head < 0 else session.head)


def key(session: Any) -> Optional[Hashable]:
    """What a computed map belongs to: the shown run, sentence, open layer and head (None: no run)."""
    if session is None or session.run is None:
        return None
    return session.run_key(session.run), session.item, session.layer, session.head


def needs_worker(session: Any) -> bool:
    n = len(session.tokens())
    return (session.layer + 1) * n * n > SYNC_SIZE


def compute(session: Any, progress: Optional[Callable[[int, int], None]] = None,
            cancelled: Optional[Callable[[], bool]] = None):
    """The flow map (attention_flow.FlowMap) of the open layer and head; None when cancelled.  Reads the grid's
    arrays only: safe on a worker thread once `mixed` is taken (see `job`)."""
    from attention.models.attention_flow import flow_map

    return flow_map(_mixed(session), progress, cancelled)


def job(session: Any) -> Callable[..., Any]:
    """A function of (progress, cancelled) computing the map from the weights taken now (the session may move on
    while it runs on the worker)."""
    from attention.models.attention_flow import flow_map

    mixed = _mixed(session)
    return lambda progress=None, cancelled=None: flow_map(mixed, progress, cancelled)


def heatmap(session: Any, fm) -> np.ndarray:
    """The shown part (the filter's rows and columns) of the normalised flow map."""
    rows, cols = session.spans()
    return fm.flow[rows.start:rows.stop, cols.start:cols.stop]


def explain(session: Any, fm, r: int, c: int, lang: str) -> list[str]:
    """Where the shown cell (r, c) comes from: what flows, its maximum flow and the row's sum, and the bottleneck
    edges (a minimum cut) by layer and token."""
    from app.viewmodel import rollout_view
    from attention.models.attention_flow import cell_flow

    i, j = rollout_view.cell(session, r, c)
    toks = session.labels()
    k = session.layer
    heads = words.text("rollout_mean", lang) if session.head < 0 else \
        words.text("rollout_head", lang, head=session.head + 1)
    flow = cell_flow(_mixed(session), i, j, cut=True)
    total = float(fm.raw[i].sum())
    lines = [words.text("flow_what", lang, j=j + 1, i=i + 1, layer=k + 1, heads=heads), f"{toks[i]} ← {toks[j]}",
             words.text("flow_value", lang, name_j=toks[j], name_i=toks[i], v=numbers.rounded(flow.value),
                        total=numbers.rounded(total), share=numbers.rounded(float(fm.flow[i, j])))]
    if not flow.cut:
        return lines
    lines.append(words.text("flow_cut", lang, n=len(flow.cut)))
    for e in flow.cut[:SHOWN_EDGES]:
        lines.append(words.text("flow_edge", lang, layer=e.layer, src=toks[e.src], dst=toks[e.dst],
                                c=numbers.rounded(e.capacity)))
    if len(flow.cut) > SHOWN_EDGES:
        rest = sum(e.capacity for e in flow.cut[SHOWN_EDGES:])
        lines.append(words.text("flow_edge_rest", lang, n=len(flow.cut) - SHOWN_EDGES, c=numbers.rounded(rest)))
    return lines
