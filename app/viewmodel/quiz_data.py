"""Quiz: a step whose numbers are hidden ("?"), and the check of a typed answer.  Qt-free.

The hidden pane is built from flat numbers (every cell 0, so the colours say nothing) and keeps
no value it does not show: only the cells a student asked to reveal carry their text.  NaN
("not computed") stays NaN: that a ProbSparse row was never computed is structure, not an answer.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Optional

import numpy as np

from app.viewmodel import cell_format
from app.viewmodel.pane_data import PaneData
from attention import words

HIDDEN = "?"
DEFAULT_TOLERANCE = 0.01

def text(key: str, lang: str, **kw) -> str:
    """The quiz's words (``quiz.<key>`` in attention/words/teaching.py) in `lang`."""
    return words.text(f"quiz.{key}", lang, **kw)


@dataclass(frozen=True)
class QuizPaneData(PaneData):
    """A step with its numbers hidden; `revealed` maps (m, r, c) -> (cell text, {lang: exact value
    phrase}) for the cells shown on request."""

    revealed: dict = field(default_factory=dict)
    hides_values = True  # StepPane hides the colour bar (its ends would tell the range)

    def cell_text(self, m: int, r: int, c: int, digits: int = 4) -> str:
        shown = self.revealed.get((m, r, c))
        if shown is not None:
            return shown[0]
        return self.nan_label if np.isnan(self.block[m, r, c]) else HIDDEN

    def cell_texts(self, m: int, digits: int = 4) -> list[str]:
        rows, cols = self.block.shape[1:]
        return [self.cell_text(m, r, c, digits) for r in range(rows) for c in range(cols)]

    def value_phrase(self, m: int, r: int, c: int, lang: str) -> str:
        shown = self.revealed.get((m, r, c))
        if shown is not None:
            return shown[1].get(lang, shown[1]["en"])
        if np.isnan(self.block[m, r, c]):
            return super().value_phrase(m, r, c, lang)
        return text("hidden", lang)


def hidden_pane(data: PaneData, revealed: set) -> QuizPaneData:
    """`data` with every number hidden except the cells in `revealed` ({(m, r, c)})."""
    nan = np.isnan(data.block) if data.block.dtype.kind == "f" else np.zeros(data.block.shape, bool)
    flat = np.where(nan, np.nan, 0.0)
    shown = {}
    for m, r, c in revealed:
        if m < data.block.shape[0] and r < data.block.shape[1] and c < data.block.shape[2]:
            shown[(m, r, c)] = (data.cell_text(m, r, c), {lg: data.value_phrase(m, r, c, lg) for lg in words.LANGS})
    layout = dataclasses.replace(data.layout, kind="signed")  # flat 0: the neutral middle colour
    return QuizPaneData(layout, data.step, data.batch, flat, data.masked, data.mask_style, data.nan_label,
                        data.value_axis, data.fill_value, revealed=shown)


@dataclass(frozen=True)
class Verdict:
    right: Optional[bool]  # None: the answer could not be read (nothing changes)
    message: dict  # {"en", "zh"}


def _both(key: str, **kw) -> dict:
    return {lang: text(key, lang, **kw) for lang in words.LANGS}


def parse_number(answer: str) -> Optional[float]:
    """A decimal, scientific or simple fraction ("1/3": paper answers), else None."""
    s = answer.strip().replace("−", "-").replace("，", ".").replace(",", ".")
    try:
        value = float(Fraction(s)) if "/" in s else float(s)
    except (ValueError, ZeroDivisionError, OverflowError):
        return None
    return value if math.isfinite(value) else None


def _infinity(answer: str) -> Optional[float]:
    s = answer.strip().replace("−", "-").lower()
    if s in ("-inf", "-infinity", "-∞"):
        return -math.inf
    if s in ("inf", "+inf", "infinity", "∞"):
        return math.inf
    return parse_number(s)


def check_answer(answer: str, value: float, tolerance: float, is_bool: bool = False) -> Verdict:
    """Right when |answer − value| ≤ tolerance, or ≤ tolerance · |value| (so 0.01 means a
    hundredth for small numbers and 1 % for large ones, e.g. a −1e6 fill)."""
    s = answer.strip()
    if not s:
        return Verdict(None, _both("empty"))
    if is_bool:
        truth = {"true": True, "t": True, "1": True, "yes": True, "是": True, "真": True,
                 "false": False, "f": False, "0": False, "no": False, "否": False, "假": False}
        got = truth.get(s.lower())
        if got is None:
            return Verdict(None, _both("not_bool", text=s))
        return Verdict(got == bool(value), _both("right_bool" if got == bool(value) else "wrong_bool"))
    if math.isnan(value):
        return Verdict(None, _both("no_value"))
    got = parse_number(s) if math.isfinite(value) else _infinity(s)
    if got is not None and not math.isfinite(value):  # a -inf fill: only -inf is right
        return Verdict(got == value,
                       _both("right" if got == value else "wrong", answer=s, tol=cell_format.exact(tolerance)))
    if got is None:
        return Verdict(None, _both("not_number", text=s))
    err = abs(got - value)
    right = err <= tolerance or err <= tolerance * abs(value)
    tol = cell_format.exact(tolerance)
    return Verdict(right, _both("right" if right else "wrong", answer=s, tol=tol))
