"""The "by hand" layout of one head, as the AI-by-hand worksheets draw it.  Qt-free: the grid plan.

A matrix product A·B written by hand puts A on the left, B on top and the result where A's
rows meet B's columns, so every result cell sits at the crossing of the row and the column it
is made from.  One head of attention is two such products side by side:

                    Kᵀ (d_k x S)                         V (S x d_v)
    Q (L x d_k)     scores (L x S)   →   weights (L x S)   output (L x d_v)

- Q's row i and the scores' row i share their y; Kᵀ's column j and the scores' column j share their x;
- the weights' row i and the output's row i share their y; V's column j and the output's column j share their x.

This module decides which matrix goes in which block, where each block and each label lies
(in *cell units*: one unit is one cell's width across, one cell's height down) and what each
block is called.  The Qt view (app/panes/by_hand_view.py) multiplies the units by a cell size in
pixels and draws.  Every number is read from the trace under its step id
(attention/registry/step_registry.py), through pane_data like every pane: nothing is recomputed here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from app.viewmodel import cell_format, pane_text
from app.viewmodel.pane_data import Axis, pane_data
from attention import words
from attention.compute.trace import Trace
from attention.datamodel import numbers
from attention.registry import step_registry

#: each block's step id in the trace (one matrix per head of each)
STEPS: dict[str, str] = {
    "q": "head_split.query",
    "kt": "head_split.key",  # shown transposed: d_k x S
    "v": "head_split.value",
    "scores": "scores",
    "weights": "attention_weights",
    "output": "weighted_sum",
}
#: the blocks that show a step's numbers, or numbers a student reads it off (a quiz hiding the
#: step hides these: Q is the query projection cut by head, the scores are the masked scores
#: wherever no key is masked, the output is concat cut by head, the mask veils the scores and
#: weights): each step record's `by_hand`, the one table the slides' by-hand layout reads too
SHOWS_STEP: dict[str, tuple[str, ...]] = step_registry.BY_HAND
#: what a hidden cell prints
HIDDEN_TEXT = "?"
#: blocks in reading order
ORDER: tuple[str, ...] = ("q", "kt", "scores", "weights", "v", "output")
#: the largest side a block may have: beyond it the numbers cannot be read on a projector (nor worked
#: by hand), and drawing a cell item per number takes a good part of a second per edit
MAX_SIDE = 12
#: a lane of labels (tokens or indices) is one unit tall over a block, LANE_X wide beside it
#: (tokens are elided to it); a block's title lane is one and a half units tall
LABEL = 1.0
LANE_X = 0.7
TITLE = 1.5
#: the space between a matrix and the one it multiplies (Kᵀ above the scores, V above the output)
GAP = 0.3


@dataclass(frozen=True)
class Rect:
    """A rectangle in cell units: x, y of the top-left corner, width, height."""

    x: float
    y: float
    w: float
    h: float

    def overlaps(self, other: "Rect") -> bool:
        eps = 1e-9
        return (self.x < other.x + other.w - eps and other.x < self.x + self.w - eps
                and self.y < other.y + other.h - eps and other.y < self.y + self.h - eps)


@dataclass(frozen=True)
class Labels:
    """One lane of labels beside a block: `texts[i]` labels the block's row (side "left") or
    column (side "top") i."""

    side: str  # "left" | "top"
    lane: Rect
    texts: tuple[str, ...]

    def rect(self, i: int) -> Rect:
        if self.side == "left":
            return Rect(self.lane.x, self.lane.y + i, self.lane.w, 1.0)
        return Rect(self.lane.x + i, self.lane.y, 1.0, self.lane.h)


@dataclass(frozen=True)
class Block:
    """One matrix of the sheet: its numbers, where it lies and what it is called."""

    key: str  # "q" | "kt" | "scores" | "weights" | "v" | "output"
    step_id: str
    kind: str  # "signed" | "weights": how the view colours it (app/panes/colormaps.py)
    values: np.ndarray  # (rows, cols) as shown (Kᵀ already transposed), the trace's numbers
    masked: Optional[np.ndarray]  # (rows, cols) bool, True = masked (scores, weights), else None
    nan_label: str
    x: float
    y: float
    title: str
    formula: str  # "" where the title says it all
    title_rect: Rect
    labels: tuple[Labels, ...]  # the lanes this block owns (a shared row or column is labelled once)

    @property
    def rows(self) -> int:
        return int(self.values.shape[0])

    @property
    def cols(self) -> int:
        return int(self.values.shape[1])

    @property
    def rect(self) -> Rect:
        return Rect(self.x, self.y, float(self.cols), float(self.rows))

    def cell(self, i: int, j: int) -> Rect:
        """Where cell (row i, column j) lies."""
        return Rect(self.x + j, self.y + i, 1.0, 1.0)

    def text(self, i: int, j: int, digits: int = 4) -> str:
        """What cell (i, j) prints: the number as every pane writes it (attention.datamodel.numbers)."""
        v = float(self.values[i, j])
        return self.nan_label if v != v else cell_format.compact(v, digits)


@dataclass(frozen=True)
class Plan:
    """The whole sheet of one head, in cell units."""

    head: int  # 0-based; the screen says head + 1
    n_heads: int
    arrangement: str  # "wide" | "stacked"
    width: float
    height: float
    blocks: dict[str, Block]
    arrow: Rect  # between the scores and the weights: softmax

    def rects(self) -> list[tuple[str, Rect]]:
        """Everything the sheet draws, named: blocks, label lanes, titles, the arrow (none may overlap)."""
        out = [("arrow", self.arrow)]
        for b in self.blocks.values():
            out += [(b.key, b.rect), (f"{b.key}.title", b.title_rect)]
            out += [(f"{b.key}.{lane.side}", lane.lane) for lane in b.labels]
        return out
    heading: str  # "By hand: head 1 of 2"
    how: str  # one sentence: where each number comes from

    def block(self, key: str) -> Block:
        return self.blocks[key]


@dataclass(frozen=True)
class TooBig:
    """The scenario's matrices are too large to be worked by hand; `message` says so and why."""

    message: str


def head_count(trace: Trace) -> int:
    return int(trace.options.get("n_heads", 1) or 1)


#: the two arrangements: "wide" puts the two products side by side (slides, wide regions);
#: "stacked" puts the weights under the scores (they share the keys' columns) and the output
#: beside the weights, V above it: the same crossings in a narrow region
ARRANGEMENTS: tuple[str, ...] = ("wide", "stacked")
#: the lane between the scores and the weights, where "softmax" is written
ARROW = 1.0

Ticks = dict[str, tuple[str, ...]]  # "queries", "keys", "dk", "dv" -> one label per position


def _wide(L: int, S: int, dk: int, dv: int, t: Ticks) -> tuple[dict, dict, Rect, float, float]:
    """Q | scores -> weights | output in one band; Kᵀ over the scores, V over the output."""
    # columns (x): query labels | Q | Kᵀ's row labels | scores | arrow | weights | V's row labels | output
    x_q = LANE_X
    x_s = x_q + dk + LANE_X
    x_w = x_s + S + ARROW
    x_o = x_w + S + LANE_X
    # rows (y): [title, column labels, Kᵀ or V] bottom-aligned over the band of Q, scores, weights, output
    top = TITLE + LABEL + max(dk, S)
    y_b = top + GAP
    y_k, y_v = top - dk, top - S
    lanes = {
        "q": (Labels("left", Rect(0.0, y_b, LANE_X, L), t["queries"]),  # the rows of every block of the band
              Labels("top", Rect(x_q, y_b - GAP - LABEL, dk, LABEL), t["dk"])),
        "kt": (Labels("left", Rect(x_q + dk, y_k, LANE_X, dk), t["dk"]),
               Labels("top", Rect(x_s, y_k - LABEL, S, LABEL), t["keys"])),  # the scores' columns too
        "scores": (),
        "weights": (Labels("top", Rect(x_w, y_b - GAP - LABEL, S, LABEL), t["keys"]),),
        "v": (Labels("left", Rect(x_w + S, y_v, LANE_X, S), t["keys"]),
              Labels("top", Rect(x_o, y_v - LABEL, dv, LABEL), t["dv"])),  # the output's columns too
        "output": (),
    }

    def under(x: float, w: float, lane: float = LANE_X) -> Rect:  # a title may use the lane left of its block
        return Rect(x - lane, y_b + L, w + lane, TITLE)

    def over(x: float, y: float, w: float) -> Rect:
        return Rect(x - LANE_X, y - LABEL - TITLE, w + LANE_X, TITLE)

    where = {"q": (x_q, y_b, under(x_q, dk)), "kt": (x_s, y_k, over(x_s, y_k, S)),
             "scores": (x_s, y_b, Rect(x_s, y_b + L, S, TITLE)), "weights": (x_w, y_b, under(x_w, S, ARROW)),
             "v": (x_o, y_v, over(x_o, y_v, dv)), "output": (x_o, y_b, under(x_o, dv))}
    return where, lanes, Rect(x_s + S, y_b, ARROW, L), x_o + dv, y_b + L + TITLE


def _stacked(L: int, S: int, dk: int, dv: int, t: Ticks) -> tuple[dict, dict, Rect, float, float]:
    """Q | scores, Kᵀ over them; the weights under the scores (the same key columns), the output
    beside the weights and V over the output."""
    x_q = LANE_X
    x_s = x_q + dk + LANE_X
    x_o = x_s + S + LANE_X
    y_k = TITLE + LABEL
    y_b = y_k + dk + GAP
    y_w = y_b + L + TITLE + ARROW
    y_v = y_w - GAP - S
    shift = max(0.0, TITLE + LABEL - y_v)  # V (S tall) may reach higher than Kᵀ: everything moves down
    y_k, y_b, y_w, y_v = y_k + shift, y_b + shift, y_w + shift, y_v + shift
    lanes = {
        "q": (Labels("left", Rect(0.0, y_b, LANE_X, L), t["queries"]),  # the scores' rows too
              Labels("top", Rect(x_q, y_b - GAP - LABEL, dk, LABEL), t["dk"])),
        "kt": (Labels("left", Rect(x_q + dk, y_k, LANE_X, dk), t["dk"]),
               Labels("top", Rect(x_s, y_k - LABEL, S, LABEL), t["keys"])),  # the scores' and the weights' columns
        "scores": (),
        "weights": (Labels("left", Rect(x_s - LANE_X, y_w, LANE_X, L), t["queries"]),),  # the output's rows too
        "v": (Labels("left", Rect(x_o - LANE_X, y_v, LANE_X, S), t["keys"]),
              Labels("top", Rect(x_o, y_v - LABEL, dv, LABEL), t["dv"])),  # the output's columns too
        "output": (),
    }
    where = {"q": (x_q, y_b, Rect(0.0, y_b + L, x_q + dk, TITLE)),
             "kt": (x_s, y_k, Rect(x_s - LANE_X, y_k - LABEL - TITLE, S + LANE_X, TITLE)),
             "scores": (x_s, y_b, Rect(x_s, y_b + L, S, TITLE)),
             "weights": (x_s, y_w, Rect(x_s - LANE_X, y_w + L, S + LANE_X, TITLE)),
             "v": (x_o, y_v, Rect(x_o - LANE_X, y_v - LABEL - TITLE, dv + LANE_X, TITLE)),
             "output": (x_o, y_w, Rect(x_o - LANE_X, y_w + L, dv + LANE_X, TITLE))}
    return where, lanes, Rect(x_s, y_b + L + TITLE, S, ARROW), x_o + dv, y_w + L + TITLE


def plan(trace: Trace, batch: int = 0, head: int = 0, lang: str = "en",
         query_tokens: Optional[tuple] = None, key_tokens: Optional[tuple] = None,
         arrangement: str = "wide") -> Plan | TooBig:
    """The by-hand sheet of head `head` of batch item `batch` (both clamped into range), laid
    out `arrangement` ("wide" or "stacked": ARRANGEMENTS)."""
    if arrangement not in ARRANGEMENTS:
        raise ValueError(f"arrangement: expected one of {', '.join(ARRANGEMENTS)}, got {arrangement!r}")
    n_heads = head_count(trace)
    head = max(0, min(int(head), n_heads - 1))
    batch = max(0, min(int(batch), int(trace.array(STEPS["q"]).shape[0]) - 1))
    # RoPE: the rotated q and k; the scores the softmax reads: ALiBi's biased or the capped scores
    steps = {key: step_registry.read_as(sid, trace.ids, before="masked_scores" if key == "scores" else None)
             for key, sid in STEPS.items()}
    data = {key: pane_data(trace, sid, batch, query_tokens, key_tokens) for key, sid in steps.items()}
    kv = head // data["kt"].kv_group  # grouped-query attention: the key/value head this query head reads
    q = data["q"].block[head]  # (L, dk)
    k = data["kt"].block[kv]  # (S, dk)
    v = data["v"].block[kv]  # (S, dv)
    L, dk = q.shape
    S, dv = v.shape
    if max(L, S, dk, dv) > MAX_SIDE:
        return TooBig(words.text("byhand.too_big", lang, max=MAX_SIDE, L=L, S=S, dk=dk, dv=dv))
    values = {"q": q, "kt": k.T, "v": v, "scores": data["scores"].block[head],
              "weights": data["weights"].block[head], "output": data["output"].block[head]}
    masked = data["weights"].masked  # (L, S) or None: the same keys are hidden from the scores
    axes = {"queries": Axis("L", L, data["q"].layout.rows.tokens), "keys": Axis("S", S, data["kt"].layout.rows.tokens),
            "dk": Axis("dk", dk), "dv": Axis("dv", dv)}
    ticks = {name: tuple(axis.tick(i) for i in range(axis.size)) for name, axis in axes.items()}
    where, lanes, arrow, width, height = (_wide if arrangement == "wide" else _stacked)(L, S, dk, dv, ticks)
    head_words = pane_text.head_name(head, lang)

    def title(key: str) -> tuple[str, str]:
        if key in ("kt", "v") and data["kt"].kv_group > 1:  # a shared key/value head: say which one
            return words.text(f"byhand.block.{key}_shared", lang, h=numbers.position(head),
                              j=numbers.position(kv)), ""
        if key in ("q", "kt", "v"):
            return words.text(f"byhand.block.{key}", lang, head=head_words), ""
        step = trace[steps[key]]
        return step.title[lang], step.formula[lang]

    blocks = {}
    for key in ORDER:
        x, y, title_rect = where[key]
        name, formula = title(key)
        d = data[key]
        blocks[key] = Block(key, steps[key], d.kind, np.asarray(values[key]),
                            masked if key in ("scores", "weights") else None, d.nan_label,
                            x, y, name, formula, title_rect, lanes[key])
    return Plan(head, n_heads, arrangement, width, height, blocks, arrow,
                words.text("byhand.heading", lang, head=head_words, n=n_heads),
                words.text("byhand.how", lang))
