"""Inputs that are parameters, not steps (the queries, a projection's weight), as PaneData.

A projection's inputs are the matrix X and the weight W; the trace holds them in
`trace.parameters`, not as steps.  They are wrapped here in a Step whose title comes from
app.viewmodel.lessons, so the ordinary pane code cuts and draws them like any step.  Qt-free.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from app.viewmodel import lessons
from app.viewmodel.pane_data import PaneData, pane_data
from attention import words
from attention.compute.trace import Step, Trace


@dataclass(frozen=True)
class ParameterStep(Step):
    """A parameter shown as a pane: a title, no formula."""

    @property
    def title(self) -> dict[str, str]:
        return {lang: lessons.parameter_title(self.id, lang) for lang in words.LANGS}

    @property
    def formula(self) -> dict[str, str]:
        return {lang: "" for lang in words.LANGS}


def _dims(name: str, trace: Trace, width: int) -> tuple[str, ...]:
    """What each axis of parameter `name` indexes, in the engine's dim names where one fits."""
    feature = "d_model" if width == trace.options.get("d_model") else "d_in"
    if name == "queries":
        return ("B", "L", feature)
    if name in ("keys", "values"):
        return ("B", "S", feature)
    if name.endswith(".weight"):
        which = name.split(".")[1]
        out = {"query": "H*dk", "key": "H*dk", "value": "H*dv", "out": "d_out"}.get(which, "out")
        return (out, "H*dv" if which == "out" else feature)
    return tuple(f"dim{i}" for i in range(len(getattr(trace.parameters[name], "shape", ()))))


def parameter_pane_data(trace: Trace, name: str, batch: int = 0, query_tokens=None,
                        key_tokens=None) -> Optional[PaneData]:
    """PaneData for parameter `name` of `trace`, or None when it cannot be shown as a matrix."""
    tensor = trace.parameters.get(name)
    shape = tuple(getattr(tensor, "shape", ()))
    if tensor is None or len(shape) not in (2, 3):
        return None
    dims = _dims(name, trace, shape[-1])
    if len(dims) != len(shape):
        return None
    step = ParameterStep(name, tensor, dims)
    return pane_data(Trace((step,), trace.options, {}), name, batch, query_tokens, key_tokens)
