"""Compare: what a pane shows as the difference between the current trace and a pinned one.  Qt-free.

Why this numpy lives in app/: it is not attention math.  Both traces were computed by the engine;
this only subtracts one finished array from the other, cell by cell (current − pinned), so a
class sees exactly what a change (mask on/off, 1 head vs 8, scaled vs unscaled) did.  Nothing
here knows how a step is computed.

A step whose shape changed (or that one of the traces lacks) has no cell-by-cell difference;
it gets a notice in words instead of a picture.  All difference panes share one symmetric colour
scale (`shared_limit`), so equal colours mean equal changes across the whole pipeline.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Optional, Union

import numpy as np

from app.viewmodel import cell_format
from app.viewmodel.pane_data import PaneData, pane_data
from attention import words
from attention.compute.trace import Trace

#: kinds whose differences set the shared scale (a mask or an index changing by 1 must not
#: flatten the scale of the scores)
SCALE_KINDS = ("signed", "weights")

def text(key: str, lang: str, **kw) -> str:
    """Compare's words (``compare.<key>`` in attention/words/teaching.py) in `lang`."""
    return words.text(f"compare.{key}", lang, **kw)


def notice(key: str, **kw) -> dict[str, str]:
    return {lang: text(key, lang, **kw) for lang in words.LANGS}


@dataclass(frozen=True)
class DiffPaneData(PaneData):
    """A pane's numbers as current − pinned; `now` and `pinned` keep both sides for the hover."""

    now: Optional[np.ndarray] = None  # (n, rows, cols) as the current pane shows them
    pinned: Optional[np.ndarray] = None  # the same cells of the pinned trace

    def shape_text(self, lang: str) -> str:
        return text("shape", lang, shape=super().shape_text(lang))

    def value_phrase(self, m: int, r: int, c: int, lang: str) -> str:
        diff = self.block[m, r, c]
        now, pin = self.now[m, r, c], self.pinned[m, r, c]
        return text("phrase", lang, diff=_exact(diff), now=_exact(now), pinned=_exact(pin))


def _exact(v) -> str:
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    v = float(v)
    return cell_format.NAN_TEXT if np.isnan(v) else cell_format.exact(v)


def _shape_words(data: PaneData) -> str:
    return "(" + ", ".join(str(n) for n in data.step.shape) + ")"


def diff_pane(current: PaneData, pinned_trace: Trace, batch: int) -> Union[DiffPaneData, dict]:
    """current − pinned for one pane, or a notice {"en", "zh"} saying why there is none."""
    sid = current.step.id
    if sid not in pinned_trace:
        return notice("not_pinned")
    if "B" in pinned_trace[sid].dims and not batch < pinned_trace[sid].shape[pinned_trace[sid].dims.index("B")]:
        return notice("no_batch", b=batch)
    old = pane_data(pinned_trace, sid, batch)
    if old.step.dims != current.step.dims or old.block.shape != current.block.shape:
        return notice("shape_changed", pinned=_shape_words(old), now=_shape_words(current))
    now_block = current.block.astype(np.float64)
    old_block = old.block.astype(np.float64)
    with np.errstate(invalid="ignore"):
        diff = now_block - old_block  # -inf - -inf (a masked fill in both) is NaN: shown as such
    masked = _either(current.masked, old.masked) if current.mask_style == "veil" else None
    layout = dataclasses.replace(current.layout, kind="signed")
    return DiffPaneData(layout, current.step, batch, diff, masked, "veil" if masked is not None else None,
                        cell_format.NAN_TEXT, None, current.fill_value, now=now_block, pinned=old_block)


def _either(a: Optional[np.ndarray], b: Optional[np.ndarray]) -> Optional[np.ndarray]:
    if a is None:
        return b
    if b is None or b.shape != a.shape:
        return a
    return a | b


def shared_limit(diffs: list[tuple[DiffPaneData, str]]) -> float:
    """The largest finite |current − pinned| over every difference pane whose step kind is in
    SCALE_KINDS, leaving out masked cells (a fill of −1e6 against a real score would flatten
    the scale); 0 when nothing changed.  diffs: (difference, the step's own kind)."""
    limit = 0.0
    for data, kind in diffs:
        if kind not in SCALE_KINDS:
            continue
        a = np.abs(data.block)
        keep = np.isfinite(a)
        if data.masked is not None:
            keep &= ~data.masked[None]
        if keep.any():
            limit = max(limit, float(a[keep].max()))
    return limit
