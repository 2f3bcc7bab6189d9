"""Trace -> plain JSON data (docs/trace-format.md), shared by the CLI and the window's exports.

Tensors become nested lists through one `tolist()` per tensor (no per-element Python loop
unless the tensor holds NaN or infinities).  Booleans stay true/false and integer tensors stay
integers.  Non-finite numbers are written as the strings "NaN", "Infinity" and "-Infinity", so
any strict JSON parser reads the result; `dumps` uses allow_nan=False to prove none slipped by.
"""
from __future__ import annotations

import json
import math
from typing import Optional, Sequence

import numpy as np
import torch

from attention.compute.trace import Trace
from attention.datamodel.problem import Problem
from attention.datamodel.scenario import Scenario

FORMAT = "attention-explorer/trace"
VERSION = 1


def number(x):
    """A JSON-safe scalar: non-finite floats become "NaN" / "Infinity" / "-Infinity"."""
    if isinstance(x, float) and not math.isfinite(x):
        return "NaN" if x != x else ("Infinity" if x > 0 else "-Infinity")
    return x


def to_nested(t) -> object:
    """A tensor or array as nested lists of JSON-safe scalars."""
    a = t.detach().cpu().numpy() if isinstance(t, torch.Tensor) else np.asarray(t)
    if a.dtype.kind != "f":
        return a.tolist()  # bool -> true/false, int -> int
    finite = np.isfinite(a)
    if finite.all():
        return a.tolist()
    obj = a.astype(object)  # Python floats; only the non-finite cells are replaced
    obj[np.isnan(a)] = "NaN"
    obj[a == np.inf] = "Infinity"
    obj[a == -np.inf] = "-Infinity"
    return obj.tolist()


def _safe(value):
    """Options and other small values: numbers made JSON-safe, containers walked."""
    if isinstance(value, dict):
        return {str(k): _safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_safe(v) for v in value]
    if isinstance(value, (torch.Tensor, np.ndarray)):
        return to_nested(value)
    if isinstance(value, np.generic):
        return number(value.item())
    return number(value)


def scenario_info(trace: Trace, scenario: Optional[Scenario] = None) -> dict:
    """The resolved options, JSON-safe; `scenario` adds its title, notes and token labels."""
    info = _safe(dict(trace.options))
    if scenario is not None:
        info["title"] = dict(scenario.title)
        info["notes"] = dict(scenario.notes)
        info["query_tokens"] = None if scenario.query_tokens is None else list(scenario.query_tokens)
        info["key_tokens"] = None if scenario.key_tokens is None else list(scenario.key_tokens)
    return info


def trace_to_dict(trace: Trace, scenario: Optional[Scenario] = None, steps: Optional[Sequence[str]] = None) -> dict:
    """The trace as JSON-ready data.  `scenario` adds its title, notes and token labels;
    `steps` keeps only the steps with those ids (every parameter is always there)."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "scenario": scenario_info(trace, scenario),
        "parameters": {name: to_nested(t) for name, t in trace.parameters.items()},
        "steps": [
            {
                "id": s.id, "dims": list(s.dims), "shape": list(s.shape), "data": to_nested(s.tensor),
                "title": s.title, "formula": s.formula,
            }
            for s in trace.steps if steps is None or s.id in steps
        ],
        "warnings": [w.text("en") if isinstance(w, Problem) else str(w) for w in trace.warnings],
    }


def dumps(trace: Trace, scenario: Optional[Scenario] = None, indent: Optional[int] = None,
          steps: Optional[Sequence[str]] = None) -> str:
    """The trace as strict JSON text (ASCII, so any console and any parser can take it)."""
    return json.dumps(trace_to_dict(trace, scenario, steps), allow_nan=False, indent=indent)
