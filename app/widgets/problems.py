"""Showing `attention.problems` lines next to the control that caused them.

Each engine line starts with a field path (``n_heads: ...``, ``valid_lens[1]: ...``,
``projections.query.weight: ...``).  `control_key` turns that path into the key of the control
that edits it; the window keeps one `ProblemLabel` per key.
"""
from __future__ import annotations

import re
from typing import Iterable, Optional

from PySide6.QtWidgets import QLabel, QWidget

_INDEX = re.compile(r"\[[^\]]*\]")
PROBLEM_STYLE = "color: #b00020;"


def field_of(line: str) -> str:
    """The field path a problem line starts with, without indices ('valid_lens[0]' -> 'valid_lens')."""
    head = line.split(":", 1)[0].strip() if ":" in line else ""
    return _INDEX.sub("", head)


def control_key(line: str) -> str:
    """The control a problem belongs to: 'projections.query', 'additive', 'valid_lens', 'n_heads'..."""
    f = field_of(line)
    if f.startswith("projections."):
        return ".".join(f.split(".")[:2])
    if f.startswith("additive"):
        return "additive"
    return {"query_tokens": "queries", "key_tokens": "keys"}.get(f, f)


def group_by_control(lines: Iterable[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in lines:
        out.setdefault(control_key(line), []).append(line)
    return out


class ProblemLabel(QLabel):
    """A red, wrapped line under a control; hidden when there is nothing wrong."""

    def __init__(self, parent: Optional[QWidget] = None):
        super().__init__(parent)
        self.setWordWrap(True)
        self.setStyleSheet(PROBLEM_STYLE)
        self.hide()

    def set_lines(self, lines: list[str]) -> None:
        self.setText("\n".join(f"\u26a0 {line}" for line in lines))
        self.setVisible(bool(lines))

    def lines(self) -> list[str]:
        return [t.removeprefix("\u26a0 ") for t in self.text().split("\n")] if self.text() else []
