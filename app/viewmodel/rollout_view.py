"""Attention rollout of the model view's sentence (Qt-free): the heatmap and the explain of one cell.

The numbers come from attention.models.rollout on the weights the model view already shows
(ModelSession.grid(): the engine's or the model's forward weights); nothing of attention is computed here.
The layer and head pickers choose what is rolled out: through layers 1 .. the open layer, averaged over
the heads ("All heads") or for the picked head.  A sentence pair's A / B filter (ModelSession.spans) cuts the
heatmap as it cuts the grid: A → B shows the rows of sentence A against the columns of sentence B.  The rollout
itself always runs over every token (R is a product over all positions); only what is shown is cut, and a
cell's explain names the full product it came from.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from attention import words
from attention.datamodel import numbers

#: terms listed in a cell's explain (largest products first); the rest are counted
SHOWN_TERMS = 8


def _rollout(session: Any):
    from attention.models.rollout import from_arrays

    grid = session.grid()  # (n_layers, H, n, n)
    return from_arrays([grid[k] for k in range(session.layer + 1)], None if session.head < 0 else session.head)


def heatmap(session: Any) -> np.ndarray:
    """R after the open layer, (rows, cols) of the filter (all: (n, n)): row i = how much of each input token
    reaches position i."""
    if session.run is None:
        return np.zeros((0, 0))
    rows, cols = session.spans()
    return _rollout(session).products[-1][0].numpy()[rows.start:rows.stop, cols.start:cols.stop]


def cell(session: Any, r: int, c: int) -> tuple[int, int]:
    """The token positions (i, j) of the shown heatmap's row r, column c (the filter's rows and columns)."""
    rows, cols = session.spans()
    return rows[r], cols[c]


def explain(session: Any, r: int, c: int, lang: str) -> list[str]:
    """The lines that say where the shown cell (r, c) = R[i, j] comes from: what is rolled out, the sum over
    every position m, its largest terms."""
    from attention.models.rollout import terms

    i, j = cell(session, r, c)
    r = _rollout(session)
    k = session.layer
    toks = session.labels()  # a pair's tokens named for their sentence ("A: the")
    heads = words.text("rollout_mean", lang) if session.head < 0 else \
        words.text("rollout_head", lang, head=session.head + 1)
    value = float(r.products[k][0, i, j])
    lines = [words.text("rollout_what", lang, heads=heads, layer=k + 1), f"{toks[i]} ← {toks[j]}"]
    if k == 0:
        lines.append(words.text("rollout_first", lang, i=i + 1, j=j + 1, v=numbers.rounded(value)))
        return lines
    lines.append(words.text("rollout_sum", lang, layer=k + 1, prev=k, i=i + 1, j=j + 1, v=numbers.rounded(value)))
    parts = sorted(terms(r, k, 0, i, j), key=lambda t: -t[1] * t[2])
    for m, a, b in parts[:SHOWN_TERMS]:
        lines.append(words.text("rollout_term", lang, layer=k + 1, prev=k, i=i + 1, j=j + 1, m=m + 1,
                                a=numbers.rounded(a), r=numbers.rounded(b), p=numbers.rounded(a * b)))
    if len(parts) > SHOWN_TERMS:
        rest = sum(a * b for _, a, b in parts[SHOWN_TERMS:])
        lines.append(words.text("rollout_rest", lang, n=len(parts) - SHOWN_TERMS, p=numbers.rounded(rest)))
    return lines
