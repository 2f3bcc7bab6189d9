"""What a slide writes and outlines when a cell of its result is clicked.  Qt-free.

The arithmetic is the explain engine's (attention.teaching.explain: the same Explanation the window's
Explain panel prints); this module only decides what of it fits on a slide (every term up to a
limit, then "… n more" and the last one: a projection's bias stays in sight), what a quiz keeps
back, and which cells of the panes on the slide the number came from (the engine's sources,
placed where each pane draws them).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Optional, Sequence

from app.viewmodel.pane_data import cell_position
from attention import words
from attention.compute.trace import Step
from attention.registry import step_registry

#: why the numbers are kept back: the cell itself is hidden, or a step its terms come from is
HIDDEN_CELL, HIDDEN_SOURCE = "cell", "source"


@dataclass(frozen=True)
class SlideLines:
    """The explanation as the slide shows it (each field in one language; "" when absent)."""

    header: str  # the title, the cell and its value (no value while a quiz hides it)
    formula: str
    terms: tuple[str, ...]  # the terms shown ("… n more" in place of those left out)
    combine: str  # "= 1 / 2.986 = 0.3349"
    summary: str
    note: str  # why the numbers are not shown (a quiz)

    def plain(self) -> str:
        """Every line as plain text (tests, the screenshot script)."""
        parts = [self.header, self.formula, *self.terms, self.combine, self.summary, self.note]
        return "\n".join(p for p in parts if p)


def hidden_reason(hides: Callable[[str], bool], cell_hidden: bool, sources: Sequence) -> Optional[str]:
    """HIDDEN_CELL when the quiz hides the clicked cell, HIDDEN_SOURCE when a step its terms
    read is hidden (`hides(step id)`: the terms would print the hidden numbers), else None."""
    if cell_hidden:
        return HIDDEN_CELL
    if any(hides(s.ref) for s in sources):
        return HIDDEN_SOURCE
    return None


def shown_terms(texts: Sequence[str], limit: int, more: str) -> tuple[str, ...]:
    """All of `texts` when they are at most `limit`; else the first limit - 2, `more` (with
    {n} filled in) and the last."""
    limit = max(int(limit), 3)
    if len(texts) <= limit:
        return tuple(texts)
    head = list(texts[: limit - 2])
    return (*head, more.format(n=len(texts) - len(head) - 1), texts[-1])


def slide_lines(expl, lang: str, hidden: Optional[str] = None, max_terms: int = 12) -> SlideLines:
    """The slide's text of Explanation `expl` in `lang`; with `hidden` only the formula and why."""
    lang = words.normalize(lang)
    sid, index = expl.step_id, expl.index
    if hidden is not None:
        title = step_registry.title(sid)[lang] if sid in step_registry.BY_ID else sid
        header = f"{title}: {sid}[{', '.join(map(str, index))}]"
        key = "slide_explain.hidden_cell" if hidden == HIDDEN_CELL else "slide_explain.hidden_source"
        return SlideLines(header, expl.formula[lang], (), "", "", words.text(key, lang))
    tag = words.text("explain.masked_tag", lang)
    terms = [f"{t.text[lang]}{tag if t.masked else ''}" for t in expl.terms]
    more = words.text("slide_explain.more_terms", lang, n="{n}")
    combine = f"= {expl.combine[lang]}" if expl.combine.get(lang) else ""
    return SlideLines(expl.text(lang).splitlines()[0], expl.formula[lang], shown_terms(terms, max_terms, more),
                      combine, expl.summary.get(lang, ""), "")


def source_cells(sources: Sequence, panes: Mapping[str, Step], batch: int) -> dict[str, set[tuple[int, int, int]]]:
    """The (matrix, row, column) cells of each pane on the slide that `sources` name, where that
    pane draws them: only panes shown (`panes`: name -> the Step it draws), only batch item
    `batch` (a parameter has no batch axis: every item reads it)."""
    out: dict[str, set[tuple[int, int, int]]] = {}
    for s in sources:
        step = panes.get(s.ref)
        if step is None:
            continue
        try:
            b, m, r, c = cell_position(step, tuple(s.index))
        except ValueError:
            continue
        if "B" in step.dims and b != batch:
            continue
        out.setdefault(s.ref, set()).add((m, r, c))
    return out
