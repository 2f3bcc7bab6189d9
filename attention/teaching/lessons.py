"""The teaching texts: two or three sentences per step, for presentation mode and the handouts.  Qt-free.

Each step's record (attention/registry/step_registry.py) holds the function that writes its
lesson (the main steps' are in attention/pipeline/lessons.py, a kind's in its module; the scoring
kind of the trace adds or replaces sentences: `ScoringKind.lesson_keys`); the sentences are
catalogue words (attention/words/lessons.py) in the language asked for (the catalogue's current
one by default, which the window sets with its own).  Numbers taken from the trace's options (the
scale actually used, the fill value, d_k, the kind) fill the sentences' ``{placeholders}``.  This
module holds no attention math: it only reads what the engine resolved (`trace.options`, which
steps and parameters exist).
"""
from __future__ import annotations

from typing import Any, Optional

import attention.words as words
from attention.text.lesson import _values


def explanation(step_id: str, options: Optional[dict] = None, lang: Optional[str] = None) -> str:
    """Two or three sentences about `step_id` ("" for unknown ids), in `lang` (default: the
    catalogue's current language).

    `options` is `trace.options`; with it the text names the real scale, fill value and kind."""
    from attention.registry import step_registry

    rec = step_registry.BY_ID.get(step_id)
    if rec is None:
        return ""
    lang = words.normalize(lang)
    o = options or {}
    from attention.registry import kinds

    text = rec.lesson(step_id, o, _values(o), lang, kinds.of_options(o))  # the trace's kinds, looked up once
    # sentences are joined with a space, which Chinese text does not put after its full stop
    return text.replace("。 ", "。").replace("） ", "）")


# --- which steps, in which order, with which inputs --------------------------------------------

def _any_true(trace: Any, step_id: str) -> bool:
    return step_id in trace and bool(trace.array(step_id).any())


def lesson_ids(trace: Any) -> list[str]:
    """The steps presentation mode shows, in pipeline order (attention.registry.step_registry.ORDER, the
    order of the Steps region too).

    The pipeline, the mask (just before the masked scores), the fully-masked rows (after the
    weights) when some row has every key masked, and additive attention's hidden features and
    ProbSparse's sampling and selection before the scores (the order they are computed in): each
    record's `slide` says whether it is shown ("always", "never", "when_true": some cell is True)."""
    from attention.registry import step_registry

    def shown(sid: str) -> bool:
        rec = step_registry.BY_ID.get(sid)
        return rec is not None and (rec.slide == "always" or rec.slide == "when_true" and _any_true(trace, sid))

    return step_registry.in_order([sid for sid in trace.ids if shown(sid)])


def inputs_of(step_id: str, trace: Any) -> list[str]:
    """What is shown beside `step_id` as its inputs (its record's `inputs`): step ids, or
    parameter names such as "queries" or "projection.query.weight" (only those the trace holds)."""
    from attention.registry import step_registry

    rec = step_registry.BY_ID.get(step_id)
    names = rec.inputs if rec is not None else ()
    # a step another stands for is shown as what was read in its place (the scores read RoPE's rotated q)
    ids = getattr(trace, "ids", ())
    names = [step_registry.read_as(n, ids, before=step_id) if n in step_registry.BY_ID else n for n in names]
    return [n for n in names if n in trace or n in getattr(trace, "parameters", {})]


def parameter_title(name: str, lang: Optional[str] = None) -> str:
    """A display title for a parameter shown as an input ("queries", "projection.out.weight")."""
    key = f"param.{name}"
    return words.text(key, lang) if words.has(key) else name
