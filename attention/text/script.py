"""The exported script's pieces: exact literals of numbers and tensors, a step's heading, the line
that shows a step, and the key/value head repeat of grouped-query attention.

Each step's record names the function that writes its snippet (the main steps' are in
attention/teaching/script_export.py, a kind's in its module); they are written with these.
"""
from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

import attention.words as words
from attention.datamodel.scenario import Scenario


def _num(x) -> str:
    """A Python literal for one number, exact for float64 (repr is the shortest round trip)."""
    if isinstance(x, (bool, np.bool_)):
        return repr(bool(x))
    if isinstance(x, (int, np.integer)):
        return repr(int(x))
    x = float(x)
    if math.isnan(x):
        return 'float("nan")'
    if math.isinf(x):
        return 'float("inf")' if x > 0 else 'float("-inf")'
    return repr(x)


def literal(a, level: int = 1) -> str:
    """Nested list literal of an array: innermost rows on one line each, 4 spaces per level."""
    a = np.asarray(a)
    if a.ndim == 0:
        return _num(a.item())
    if a.ndim == 1:
        return "[" + ", ".join(_num(x) for x in a.tolist()) + "]"
    pad = "    " * level
    return "[\n" + "".join(f"{pad}{literal(x, level + 1)},\n" for x in a) + "    " * (level - 1) + "]"


def tensor_literal(name: str, a, comment: str) -> str:
    return f"{name} = torch.tensor({literal(a)}, dtype=dtype)  # {comment}\n"


def section(plan: Any, step_id: str, formula: Optional[str] = None) -> str:
    """The comment that heads a step's snippet: its id and its formula, as the plan's scoring kind
    computes it (`plan`: attention.kinds.plan.Plan; `formula`: the code's own words where the
    window's formula counts positions from 1 and the code counts from 0)."""
    key = plan.record(step_id).formula_key(plan.kinds.scoring)
    title = f"# ---- {step_id}: {formula or words.text(key, 'en')} "
    return "\n" + title + "-" * max(4, 100 - len(title)) + "\n"


def show(step_id: str, name: str) -> str:
    return f'show("{step_id}", {name})\n'


def repeat_kv(sc: Scenario, name: str) -> str:
    """The line that gives each query head its key/value head (none when every head has its own)."""
    if sc.kv_heads == sc.n_heads:
        return ""
    return (f"{name} = {name}.repeat_interleave(H // H_kv, dim=2)  "
            f"# (B, S, H, d): query head h reads key/value head h // (H // H_kv)\n")
