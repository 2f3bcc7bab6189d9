"""Showing `attention.problems` lines next to the control that caused them.

Each engine line starts with a field path (``n_heads: ...``, ``valid_lens[1]: ...``,
``projections.query.weight: ...``).  `control_key` turns that path into the key of the control
that edits it; the window keeps one `ProblemLabel` per key.
"""
from __future__ import annotations

import re
from typing import Iterable, Optional

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent
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


# ---- the engine's lines in the window's language -----------------------------------------------
# The engine writes English.  The lines a person can cause with the window's controls are
# matched here and re-worded through Qt's translator; a line that matches nothing (or a
# language without a translation) is shown exactly as the engine wrote it.  Each source text
# rebuilds the engine's English line from the captured groups, so English is unchanged.
_NUM = r"(-?[\d.]+)"
_SHAPE = r"(\[[\d, ]*\])"
PATTERNS: list[tuple[re.Pattern, str]] = [(re.compile(rx), src) for rx, src in (
    (rf"^n_heads: {_NUM} heads do not divide d_model = {_NUM} \(the queries' width\), which (.+?) default to; "
     rf"choose a head count that divides {_NUM} or set (.+)$",
     QT_TRANSLATE_NOOP("problems", "n_heads: {0} heads do not divide d_model = {1} (the queries' width), which {2} default to; "
                                   "choose a head count that divides {3} or set {4}")),
    (rf"^valid_lens(\[[\d, ]+\]): expected a length between 0 and S = {_NUM}, got {_NUM}$",
     QT_TRANSLATE_NOOP("problems", "valid_lens{0}: expected a length between 0 and S = {1}, got {2}")),
    (rf"^([\w.]+): expected shape {_SHAPE}, got {_SHAPE}$",
     QT_TRANSLATE_NOOP("problems", "{0}: expected shape {1}, got {2}")),
    (rf"^projections\.(\w+): absent \(identity\) needs the (\w+)' width {_NUM} to equal n_heads \* (\w+) = "
     rf"{_NUM} \* {_NUM} = {_NUM}; give a weight or set (\w+) to (.+)$",
     QT_TRANSLATE_NOOP("problems", "projections.{0}: absent (identity) needs the {1}' width {2} to equal n_heads * {3} = "
                                   "{4} * {5} = {6}; give a weight or set {7} to {8}")),
    (rf"^projections\.(\w+): absent \(identity\) needs the (\w+)' width {_NUM} to be divisible by n_heads = {_NUM}$",
     QT_TRANSLATE_NOOP("problems", "projections.{0}: absent (identity) needs the {1}' width {2} to be divisible by n_heads = {3}")),
    (r"^valid_lens: prob_sparse does not support valid lengths \(neither Informer nor Time-Series-Library defines them\); "
     r"remove valid_lens or pick another scoring kind$",
     QT_TRANSLATE_NOOP("problems", "valid_lens: prob_sparse does not support valid lengths (neither Informer nor "
                                   "Time-Series-Library defines them); remove valid_lens or pick another scoring kind")),
    (rf"^causal: causal prob_sparse needs L == S \(the lazy rows are a cumulative sum over positions\), got L = {_NUM}, S = {_NUM}$",
     QT_TRANSLATE_NOOP("problems", "causal: causal prob_sparse needs L == S (the lazy rows are a cumulative sum over "
                                   "positions), got L = {0}, S = {1}")),
    (rf"^scoring: prob_sparse needs at least 2 queries and 2 keys \(ln 1 = 0 samples\), got L = {_NUM}, S = {_NUM}$",
     QT_TRANSLATE_NOOP("problems", "scoring: prob_sparse needs at least 2 queries and 2 keys (ln 1 = 0 samples), got L = {0}, S = {1}")),
    (rf"^sizes: this trace would need about {_NUM} GiB, more than the {_NUM} GiB allowed; reduce B, L, S or n_heads$",
     QT_TRANSLATE_NOOP("problems", "sizes: this trace would need about {0} GiB, more than the {1} GiB allowed; reduce B, L, S or n_heads")),
    (r"^device: CUDA was requested but torch.cuda.is_available\(\) is False on this machine; use 'cpu'$",
     QT_TRANSLATE_NOOP("problems", "device: CUDA was requested but torch.cuda.is_available() is False on this machine; use 'cpu'")),
    (rf"^attention_weights: {_NUM} query rows? ha(?:s|ve) every key masked \((.+)\), so the fill value (\S+) gives "
     r"uniform weights 1/S over all keys$",
     QT_TRANSLATE_NOOP("problems", "attention_weights: {0} query row(s) with every key masked ({1}), so the fill value {2} "
                                   "gives uniform weights 1/S over all keys")),
    (rf"^attention_weights: {_NUM} query rows? ha(?:s|ve) every key masked \((.+)\), so the fill value (\S+) gives "
     r"NaN weights and a NaN weighted sum$",
     QT_TRANSLATE_NOOP("problems", "attention_weights: {0} query row(s) with every key masked ({1}), so the fill value {2} "
                                   "gives NaN weights and a NaN weighted sum")),
)]


def localize(line: str) -> str:
    """`line` in the current UI language when a translation exists, else unchanged."""
    for rx, src in PATTERNS:
        m = rx.match(line)
        if m is None:
            continue
        text = QCoreApplication.translate("problems", src)
        if text == src:
            return line
        joiner = QCoreApplication.translate("problems", " and ")  # "d_keys and d_values" inside a group
        return text.format(*(g.replace(" and ", joiner) for g in m.groups()))
    return line


class ProblemLabel(QLabel):
    """A red, wrapped line under a control; hidden when there is nothing wrong."""

    def __init__(self, parent: Optional[QWidget] = None):
        super().__init__(parent)
        self.setWordWrap(True)
        self.setStyleSheet(PROBLEM_STYLE)
        self.hide()

    def set_lines(self, lines: list[str]) -> None:
        self._lines = list(lines)
        self.setText("\n".join(f"\u26a0 {localize(line)}" for line in lines))
        self.setVisible(bool(lines))

    def lines(self) -> list[str]:
        """The engine's lines as given (not localized)."""
        return list(getattr(self, "_lines", []))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange and self.lines():
            self.set_lines(self.lines())
        super().changeEvent(event)
