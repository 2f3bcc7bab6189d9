"""Token-to-token lines (BertViz's head view) without Qt: which lines, how wide, what colour, where.

The attention weights step (B, H, L, S) of one batch item is drawn as lines from each query
token (a column on the left) to each key token (a column on the right): one line per (head,
query, key), its width and opacity the weight itself, its colour the head's.  The numbers are the
trace's own (read here, never recomputed).  A masked pair has no line (its weight is an
artefact of the fill value, not attention); a weight that is not a number (ProbSparse never
computed it, or an overflow) has none either.  Hovering a query keeps only its row, a key only
its column; choosing a head keeps only that head's lines.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

from app.viewmodel.pane_data import axis_for

#: One colour per head (Tableau 10: distinct on a projector and for most colour-blind eyes);
#: past ten heads the colours repeat.
HEAD_COLORS: tuple[str, ...] = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f")
#: The width of a line of weight 1, in pixels (a weight w is drawn w times as wide).
MAX_WIDTH = 10.0
#: More tokens than this on a side are not drawn as lines (L * S * H lines would be an
#: unreadable smear and a slow paint); the view draws the first MAX_TOKENS and says so.
MAX_TOKENS = 64

Hover = Optional[tuple[str, int]]  # ("query", i) or ("key", j), or None


@dataclass(frozen=True)
class Line:
    head: int
    query: int
    key: int
    weight: float  # the trace's attention weight, as it is
    width: float  # pixels: weight * MAX_WIDTH
    alpha: float  # 0..1 opacity: the weight, clamped to [0, 1]
    color: str  # "#rrggbb" of the head


@dataclass(frozen=True)
class TokenLines:
    query_labels: tuple[str, ...]
    key_labels: tuple[str, ...]
    heads: tuple[int, ...]  # the heads whose lines are drawn
    lines: tuple[Line, ...]
    clipped: bool  # only the first MAX_TOKENS queries / keys are drawn


def head_color(h: int) -> str:
    return HEAD_COLORS[h % len(HEAD_COLORS)]


def labels(n: int, dim: str, tokens: Optional[Sequence]) -> tuple[str, ...]:
    """The scenario's tokens where it has them (one per position), else the positions, written
    as the panes write their ticks (app.viewmodel.pane_data.Axis.tick)."""
    axis = axis_for(dim, n, query_tokens=tokens if dim == "L" else None, key_tokens=tokens if dim == "S" else None)
    return tuple(axis.tick(i) for i in range(n))


def build(weights: np.ndarray, mask: Optional[np.ndarray] = None, head: int = -1, hover: Hover = None,
          query_tokens: Optional[Sequence] = None, key_tokens: Optional[Sequence] = None,
          max_tokens: int = MAX_TOKENS) -> TokenLines:
    """The lines of one batch item.

    weights (H, L, S): the trace's attention_weights of that item; mask (L, S) bool, True =
    masked (the trace's extra.mask), or None; head: -1 for every head overlaid, else that one;
    hover: ("query", i) keeps row i, ("key", j) keeps column j."""
    w = np.asarray(weights)
    if w.ndim != 3:
        raise ValueError(f"weights: expected (H, L, S), got shape {w.shape}")
    H, L, S = w.shape
    heads = tuple(range(H)) if head < 0 or head >= H else (head,)
    n_q, n_k = min(L, max_tokens), min(S, max_tokens)
    rows, cols = range(n_q), range(n_k)
    if hover is not None and hover[0] == "query":
        rows = [hover[1]] if 0 <= hover[1] < n_q else []
    elif hover is not None and hover[0] == "key":
        cols = [hover[1]] if 0 <= hover[1] < n_k else []
    out: list[Line] = []
    for h in heads:
        color = head_color(h)
        for q in rows:
            for k in cols:
                if mask is not None and mask[q, k]:
                    continue
                value = float(w[h, q, k])
                if not math.isfinite(value):
                    continue
                out.append(Line(h, q, k, value, value * MAX_WIDTH, min(max(value, 0.0), 1.0), color))
    return TokenLines(labels(L, "L", query_tokens)[:n_q], labels(S, "S", key_tokens)[:n_k], heads, tuple(out),
                      n_q < L or n_k < S)


# ---- geometry ----------------------------------------------------------------------------------
def centres(n: int, top: float, height: float) -> list[float]:
    """The vertical centres of n tokens spread evenly over [top, top + height]."""
    if n <= 0:
        return []
    step = height / n
    return [top + step * (i + 0.5) for i in range(n)]


def head_offset(head: int, n_heads: int, pitch: float) -> float:
    """How far (px, vertically) the ends of head `head`'s lines sit from the token's centre when
    every head is drawn: the heads side by side, a few pixels apart, so that two heads attending
    the same way show both colours instead of one muddy blend.  0 for one head."""
    if n_heads <= 1:
        return 0.0
    gap = min(4.0, pitch / (2.0 * n_heads))
    return (head - (n_heads - 1) / 2.0) * gap


def token_at(y: float, n: int, top: float, height: float) -> Optional[int]:
    """The token whose row holds height y, or None outside the column."""
    if n <= 0 or height <= 0 or not top <= y < top + height:
        return None
    return min(int((y - top) / (height / n)), n - 1)
