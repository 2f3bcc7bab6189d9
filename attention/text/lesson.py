"""The lessons' sentences: numbers as a teacher writes them, the placeholders every lesson may
use, and a step's catalogue sentences (attention/words/lessons.py) in one language.

A step's record names the function that writes its lesson (`_sentences` for a lesson that does
not depend on the trace); the main steps' own are in attention/teaching/lessons.py.
"""
from __future__ import annotations

import math
from typing import Any, Optional

import attention.words as words
from attention.datamodel import numbers


def format_number(value: Any) -> str:
    """A number as every text writes it (attention.datamodel.numbers.rounded: -1e6, -∞, 0.7071); a value
    that is not a number (a placeholder such as "d_k") is written as it is."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        return str(value)
    return numbers.rounded(v)


def _is_neg_inf(fill: Any) -> bool:
    try:
        return math.isinf(float(fill)) and float(fill) < 0
    except (TypeError, ValueError):
        return str(fill).lower() in ("-inf", "-infinity")


def _values(options: Optional[dict]) -> dict[str, Any]:
    """The placeholders every text may use, with defaults when no trace is at hand."""
    o = options or {}
    dk = o.get("d_keys") or "d_k"
    scale = o.get("scale")
    head_width = o.get("query_head_width") or dk
    default_scale = o.get("default_scale")  # the engine's rule, not worked out again here
    custom = scale is not None and default_scale is not None and float(scale) != float(default_scale)
    return {
        "custom_scale": custom,
        "scale_unknown": scale is None or default_scale is None,
        "dk": str(head_width),
        "dv": str(o.get("d_values") or "d_v"),
        "heads": str(o.get("n_heads") or "H"),
        "d_model": str(o.get("d_model") or "d_model"),
        "scale": format_number(scale) if scale is not None else "1/√d_k",
        "sqrt_dk": format_number(1 / default_scale) if default_scale else "√d_k",
        "fill": format_number(o.get("fill_value", -1e6)),
        "S": str(o.get("S") or "S"),
        "L": str(o.get("L") or "L"),
        "hidden": str(o.get("hidden") or "h"),
        "n_top": str(o.get("n_top") or "u"),
        "n_sample": str(o.get("n_sample") or "n_sample"),
    }


def _say(keys: list[str], lang: str, v: dict[str, Any]) -> str:
    """The sentences `keys`, placeholders filled from `v`, joined with a space."""
    return " ".join(words.text(k, lang, **v) for k in keys)


def _sentences(step_id: str, options: dict, v: dict[str, Any], lang: str, kinds: Any) -> str:
    """Every sentence of the catalogue under ``lesson.<step id>``, in order: a lesson that does not
    depend on the trace."""
    prefix = f"lesson.{step_id}"
    keys = [k for k in words.table(lang) if k == prefix or k.startswith(prefix + ".")]
    return _say(keys, lang, v)
