"""The main steps' lessons: two or three sentences each, for presentation mode and the handouts.

One function per kind of lesson, named by the step's record; the trace's scoring kind (and a
score modifier that changes the softmax) adds or replaces sentences (`lesson_keys`).  The words
are the catalogue's (attention/words/lessons.py); attention.teaching.lessons picks the function
and resolves the trace's kinds (`kinds`) once.
"""
from __future__ import annotations

from typing import Any

from attention.kinds.plan import Kinds
from attention.text.lesson import _is_neg_inf, _say


def _projection(step_id: str, options: dict, v: dict[str, Any], lang: str, kinds: Kinds) -> str:
    return _say([f"lesson.{step_id}", "lesson.projection.why"], lang, v)


def _head_split(step_id: str, options: dict, v: dict[str, Any], lang: str, kinds: Kinds) -> str:
    width = v["dv"] if step_id.endswith("value") else v["dk"]
    if v["heads"] == "1":  # _values gives strings ("H" when unknown)
        return _say(["lesson.head_split.one_head"], lang, {**v, "width": width})
    return _say(["lesson.head_split.cut", "lesson.head_split.shared"], lang, {**v, "width": width})


def _scores(step_id: str, options: dict, v: dict[str, Any], lang: str, kinds: Kinds) -> str:
    """The trace's scoring kind says how its scores are made."""
    return _say(kinds.scoring.lesson_keys(step_id, [], v), lang, v)


def _mask(step_id: str, options: dict, v: dict[str, Any], lang: str, kinds: Kinds) -> str:
    """The mask's lesson: what a mask is, then a sentence per rule of the trace that has one of
    its own (`rule.lesson_key`: the window, the drawn mask); d2l's lengths and causal rule when
    they apply, or when no trace is at hand."""
    keys = ["lesson.extra.mask.marks"]
    if not options or options.get("causal") or options.get("valid_lens") is not None:
        keys.append("lesson.extra.mask.d2l")
    keys += [r.lesson_key for r in kinds.rules if getattr(r, "lesson_key", None) and options]
    return _say(keys, lang, v)


def _masked_scores(step_id: str, options: dict, v: dict[str, Any], lang: str, kinds: Kinds) -> str:
    if not kinds.rules and options:
        return _say(["lesson.masked_scores.no_mask"], lang, v)
    fill = "neg_inf" if _is_neg_inf(options.get("fill_value", -1e6)) else "finite"
    return _say(["lesson.masked_scores.fill", f"lesson.masked_scores.{fill}"], lang, v)


def _weights(step_id: str, options: dict, v: dict[str, Any], lang: str, kinds: Kinds) -> str:
    keys = ["lesson.attention_weights.softmax", "lesson.attention_weights.shape"]
    if kinds.rules or not options:
        fill = "neg_inf" if _is_neg_inf(options.get("fill_value", -1e6)) else "finite"
        keys.append(f"lesson.attention_weights.{fill}")
    keys = kinds.scoring.lesson_keys(step_id, keys, v)
    for m in kinds.modifiers:  # a modifier that changes the softmax (sinks) says so
        keys = m.lesson_keys(step_id, keys, v) if hasattr(m, "lesson_keys") else keys
    return _say(keys, lang, v)


def _concat(step_id: str, options: dict, v: dict[str, Any], lang: str, kinds: Kinds) -> str:
    return _say(["lesson.concat.view"] + (["lesson.concat.mix"] if options.get("mix") else []), lang, v)
