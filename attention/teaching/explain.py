"""Explain one cell of a trace: the arithmetic that produced that exact number, term by term.

`explain(trace, step_id, index)` reads only the trace (its tensors, `parameters` and `options`)
and writes the computation of one cell out with the real numbers: a projection's dot product
plus bias, which projected column a head-split cell was cut from, q·k times the scale (or d2l's
w_v · tanh(W_q q + W_k k)), why a score was masked and by which fill, the softmax of a row, the
weighted sum of values, where a concat cell came from (TSL's `mix` quirk included), and the
extras: which mask cells make a row fully masked, which key ProbSparse drew and how often, its
sparsity measure and which queries it chose.  The window's explain panel and `python main.py
explain` both print what this returns, so that every number a student sees next to a cell is
the trace's own.

`result` is recombined from the terms in float64 (in `combine`'s order) and equals the trace's
value up to float rounding; `value` is the trace's number itself.  No torch import: a trace's
tensors are read through numpy (`Step.numpy()`), so traces read back from disk work too.

Every sentence comes from the catalogue (attention/words/explain.py, English and Chinese); only
notation that reads the same in both (``q[0]·k[0] = 1 × 2 = 2``) is built here.  Sentences name
positions counted from 1 ("query 3 against key 1 in head 2"); formulas and terms are code and
keep its indices from 0 (``scores[0,1,2,0]``), as `main.py explain STEP INDEX...` takes them.

This module checks the step id and index, reads the trace (`_Ctx`) and asks who explains the
cell: a score modifier or the scoring kind that computes it its own way, else the step's record
(the main steps' explainers are in attention/pipeline/explain.py, a kind's in its module).  The
record of an explained cell and the pieces it is written with are in attention/text/explanation.py.
"""
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Optional, Sequence

import numpy as np

from attention.text.explanation import Explanation

if TYPE_CHECKING:  # annotations only
    from attention.compute.trace import Trace


class ExplainError(ValueError):
    """A step id or index explain() cannot take; the message says what was expected."""


# ---- public entry points ---------------------------------------------------------------------

def explainable(trace: Trace) -> tuple[str, ...]:
    """The step ids explain() supports for this trace, in pipeline order, then extras."""
    from attention.registry import step_registry

    return tuple(sid for sid in trace.ids if sid in step_registry.BY_ID)


def explain(trace: Trace, step_id: str, index: Sequence[int]) -> Explanation:
    """How the cell `trace[step_id][index]` was computed, with the trace's own numbers."""
    ok = explainable(trace)
    if step_id not in ok:
        raise ExplainError(f"step id: unknown or not explainable {step_id!r}; expected one of {', '.join(ok)}")
    step = trace[step_id]
    idx = _check_index(step_id, tuple(step.dims), tuple(step.numpy().shape), index)
    from attention.registry import step_registry

    ctx = _Ctx(trace)
    # a modifier (sinks' weights) or the trace's scoring kind explains the cells it computes its own way;
    # else the step's record's explainer
    own = next(filter(None, (m.explain_cell(ctx, step_id, idx) for m in ctx.kinds.modifiers
                             if hasattr(m, "explain_cell"))), None)
    out = own or ctx.kind.explain_cell(ctx, step_id, idx) or step_registry.record(step_id).explain(ctx, step_id, idx)
    return dataclasses.replace(out, scoring=trace.options.get("scoring"), title=step_registry.title(step_id, ctx.kind))


def _check_index(step_id: str, dims: tuple[str, ...], shape: tuple[int, ...], index: Sequence[int]) -> tuple[int, ...]:
    try:
        idx = tuple(index)
    except TypeError:
        raise ExplainError(f"index: expected {len(shape)} whole numbers ({', '.join(dims)}), got {index!r}") from None
    if len(idx) != len(shape):
        raise ExplainError(
            f"index: {step_id} has {len(shape)} dims ({', '.join(dims)}) of sizes {list(shape)}; "
            f"expected {len(shape)} indices, got {len(idx)}")
    out = []
    for d, (i, n, name) in enumerate(zip(idx, shape, dims)):
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
            raise ExplainError(f"index: dim {d} ({name}) expects a whole number, got {i!r}")
        if not 0 <= int(i) < n:
            raise ExplainError(f"index: dim {d} ({name}) has size {n}; expected 0 ... {n - 1}, got {int(i)}")
        out.append(int(i))
    return tuple(out)


# ---- reading the trace -------------------------------------------------------------------------

class _Ctx:
    """The trace's arrays as float64 numpy (bool and int arrays kept as they are)."""

    def __init__(self, trace: Trace):
        self.trace = trace
        self.opts = trace.options
        self.kinds = trace.kinds  # the kind objects of its plan
        self.kind = self.kinds.scoring  # the trace's scoring kind

    def kv_head(self, h: int) -> int:
        """The key/value head query head h reads (grouped-query attention: h // (n_heads / n_kv_heads))."""
        H = int(self.opts.get("n_heads") or 1)
        kv = int(self.opts.get("n_kv_heads") or H)
        return h // (H // kv)

    def reads(self, step_id: str, before: Optional[str] = None) -> str:
        """The step the scores read in place of `step_id` in this trace (RoPE's rotated q for
        head_split.query: the last step standing for it), or `step_id` itself; `before`: what
        that step read (stand-ins computed before it only)."""
        from attention.registry import step_registry

        return step_registry.read_as(step_id, self.trace.ids, before=before)

    def raw(self, step_id: str) -> np.ndarray:
        return self.trace[step_id].numpy()

    def a(self, step_id: str) -> "_View":
        return _View(self.raw(step_id))

    def has(self, step_id: str) -> bool:
        return step_id in self.trace

    def param(self, name: str) -> Optional[np.ndarray]:
        p = self.trace.parameters
        if "queries" not in p:
            raise ExplainError("trace: it holds no parameters (a trace read back from the start-up cache); "
                               "explain needs a freshly computed trace")
        t = p.get(name)
        if t is None:
            return None
        if hasattr(t, "detach"):
            t = t.detach().cpu().numpy()
        return _as64(np.asarray(t))

    def value(self, step_id: str, idx: tuple[int, ...]) -> float:
        return float(self.raw(step_id)[idx])

    @property
    def mask(self) -> Optional[np.ndarray]:
        return self.raw("extra.mask") if self.has("extra.mask") else None


class _View:
    """Indexing converts only the slice read to float64 (a big float32 trace is not copied whole)."""

    def __init__(self, a: np.ndarray):
        self._a = a

    def __getitem__(self, key) -> np.ndarray:
        return _as64(np.asarray(self._a[key]))


def _as64(a: np.ndarray) -> np.ndarray:
    return a.astype(np.float64, copy=False) if a.dtype.kind == "f" else a
