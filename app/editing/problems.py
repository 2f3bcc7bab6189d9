"""Showing problems (attention.datamodel.problem.Problem) next to the control that caused them.

Each problem carries its field path (``n_heads``, ``valid_lens[1]``, ``projections.query.weight``);
`control_key` turns that path into the key of the control that edits it; the window keeps one
`ProblemLabel` per key.  The words come from the catalogue (attention/words/problems.py) in the
window's language, rendered when shown and again when the language changes.
"""
from __future__ import annotations

from typing import Iterable, Optional, Union

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QLabel, QWidget

from attention.datamodel.problem import Problem, as_problems, elide, more_line, strip_indices
from attention.registry import kinds

PROBLEM_STYLE = "color: #b00020;"
#: A line a person reads in the window is never longer than this (a problem's quoted values
#: are short already; a plain text line, e.g. an unexpected error, may not be).
MAX_LINE = 400
#: A label under one control shows at most this many problems (then "… and N more").
MAX_LABEL_LINES = 8

Line = Union[Problem, str]


def language() -> str:
    """The window's language (attention.words follows it when the window sets it; asked here
    so that the two can never disagree)."""
    from app.services import i18n

    return i18n.current_language()


def render(item: Line, lang: Optional[str] = None) -> str:
    """One problem (or a plain line) as the window shows it, in the window's language."""
    text = item.text(lang or language()) if isinstance(item, Problem) else str(item)
    return elide(text, MAX_LINE)


def render_all(items: list[Line], limit: int, omitted: int = 0, lang: Optional[str] = None) -> list[str]:
    """At most `limit` lines; the last one then says how many more there are."""
    lang = lang or language()
    total = len(items) + omitted
    if total <= limit:
        return [render(x, lang) for x in items]
    shown = [render(x, lang) for x in items[: limit - 1]]
    return shown + [more_line(total - len(shown), lang)]


def field_of(item: Line) -> str:
    """The field path of a problem without indices ('mask.valid_lens[0][2]' -> 'mask.valid_lens')."""
    (p,) = as_problems([item])
    return strip_indices(p.path)


def control_key(item: Line) -> str:
    """The control a problem belongs to: 'projections.query', a scoring kind's weights, 'valid_lens', 'n_heads'..."""
    f = field_of(item)
    if f.startswith("projections."):
        return ".".join(f.split(".")[:2])
    kind = kinds.owning_weights(f)
    if kind is not None:  # a scoring kind's own weights: one control holds them
        return kind.weights_attr
    return {"query_tokens": "queries", "key_tokens": "keys"}.get(f, f)


def group_by_control(items: Iterable[Line]) -> dict[str, list[Line]]:
    out: dict[str, list[Line]] = {}
    for item in items:
        out.setdefault(control_key(item), []).append(item)
    return out


class ProblemLabel(QLabel):
    """A red, wrapped line under a control; hidden when there is nothing wrong."""

    def __init__(self, parent: Optional[QWidget] = None):
        super().__init__(parent)
        self.setWordWrap(True)
        self.setStyleSheet(PROBLEM_STYLE)
        self._items: list[Line] = []
        self.hide()

    def set_lines(self, items: list[Line]) -> None:
        self._items = list(items)
        self.setText("\n".join(f"\u26a0 {line}" for line in render_all(self._items, MAX_LABEL_LINES)))
        self.setVisible(bool(self._items))

    def problems(self) -> list[Line]:
        return list(self._items)

    def lines(self) -> list[str]:
        """The problems in English, whatever the window's language (what the engine says)."""
        return [render(x, "en") for x in self._items]

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange and self._items:
            self.set_lines(self._items)
        super().changeEvent(event)
