"""The map of steps ("you are here"): which chips, in which order, and which one is current.  Qt-free.

One chip per step of the current trace, in pipeline order (attention/registry/step_registry.py's main
pipeline, with the extras where they are computed: ProbSparse's sampling and selection before
the scores, the mask before the masked scores, the fully masked rows after the weights), named
by the catalogue (attention/words/pipeline_map.py; the full title and formula as its tooltip).
In the window the current step is the pane a reader is looking at in the Steps region; on a
slide it is the slide's step.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional, Sequence

from attention import words
from attention.registry import step_registry


@dataclass(frozen=True)
class Chip:
    step_id: str
    label: str  # the short name on the chip
    tooltip: str  # title and formula (and what a click does)
    tooltip_here: str  # the same for the current step


def map_order(ids: Iterable[str]) -> list[str]:
    """`ids` (the steps a trace holds, any order) in pipeline order, the order of the Steps region
    and the slides (step_registry.in_order); ids no record has keep their given order, at the end."""
    return step_registry.in_order(list(dict.fromkeys(ids)))


def chip_label(step_id: str, lang: str) -> str:
    key = f"map.step.{step_id}"
    if words.has(key):
        return words.text(key, lang)
    if step_id in step_registry.BY_ID:
        return step_registry.title(step_id)[words.normalize(lang)]
    return step_id


def chips(ids: Sequence[str], lang: str, scoring: Optional[str] = None) -> list[Chip]:
    """One chip per id, in the order given (see `map_order`)."""
    out = []
    for sid in ids:
        if sid in step_registry.BY_ID:
            title = step_registry.title(sid)[words.normalize(lang)]
            formula = step_registry.formula(sid, scoring)[words.normalize(lang)]
        else:
            title, formula = sid, ""
        out.append(Chip(sid, chip_label(sid, lang),
                        words.text("map.tooltip", lang, title=title, formula=formula).replace("\n\n", "\n"),
                        words.text("map.tooltip_here", lang, title=title, formula=formula).replace("\n\n", "\n")))
    return out


def current_in_sight(boxes: Sequence[tuple[str, int, int]], top: int, bottom: int,
                     chosen: Optional[str] = None) -> Optional[str]:
    """The step a reader of a scrolled list is at: `boxes` are (step id, top, bottom) of the
    panes in list order, `top`..`bottom` the part of the list in sight.

    A pane counts as in sight when at least half of it shows (or it fills half the view); the
    step last chosen on the map stays current while it is in sight (a pane near the end cannot
    be scrolled to the top); otherwise the highest pane in sight (list order breaks ties)."""
    view = max(bottom - top, 1)
    seen = []
    for i, (sid, t, b) in enumerate(boxes):
        shown = min(b, bottom) - max(t, top)
        if shown > 0 and (shown >= 0.5 * max(b - t, 1) or shown >= 0.5 * view):
            seen.append((t, i, sid))
    if not seen:
        return None
    if chosen is not None and any(sid == chosen for _, _, sid in seen):
        return chosen
    return min(seen)[2]
