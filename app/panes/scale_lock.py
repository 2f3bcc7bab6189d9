"""A pane's colour-scale lock, as a person reaches it: a small button in the pane's header and an
entry in the pane's right-click menu, both one checkable action.

The lock itself (which scale, kept across edits and recomputes) is view state held by StepsView
(`lock_scale`); it is not an edit, so it never enters the undo stack.  This module only shows it
and reports the person's clicks (`toggled`).  What the colour bar says about a locked scale
(`bar_ticks`): its ends read "≤ lo" and "≥ hi" while some numbers lie outside and are drawn clipped.
"""
from __future__ import annotations

from typing import Optional, Protocol

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QToolButton, QWidget

from app.panes import prepared
from app.viewmodel import color_scale, pane_text
from app.viewmodel.pane_data import PaneData
from attention.datamodel import numbers


class ScaleLocks(Protocol):
    """What holds the locks (app.panes.steps_view.StepsView): the scale locked for a step, or None."""

    def locked_scale(self, step_id: str) -> Optional[color_scale.ColourScale]: ...

BUTTON_CSS = ("QToolButton { font-size: 13px; color: #444; border: 1px solid #ccc; border-radius: 3px; "
              "padding: 1px 6px; background: #fafafa; } "
              "QToolButton:checked { color: #5c4400; background: #fff3cd; border-color: #e0c060; }")


class ScaleLockControls(QObject):
    """The checkable "Lock colour scale" action of one pane, its header button and its menu."""

    toggled = Signal(bool)  # the person locked (True) or unlocked (False) the scale

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self._lang = "en"
        self._state: tuple[bool, int, tuple[float, float]] = (False, 0, (0.0, 1.0))
        self.action = QAction(parent)
        self.action.setCheckable(True)
        # triggered / clicked: the person's click only (not setChecked); the state is read back
        # from the widget, not from the signal's argument (PySide may hand none)
        self.action.triggered.connect(lambda *_: self.toggled.emit(self.action.isChecked()))
        self.button = QToolButton(parent)
        self.button.setCheckable(True)
        self.button.setAutoRaise(False)
        self.button.setStyleSheet(BUTTON_CSS)
        self.button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.button.clicked.connect(lambda *_: self.toggled.emit(self.button.isChecked()))
        self._retext()

    def show_state(self, locked: bool, outside: int, levels: tuple[float, float], lang: str) -> None:
        if (locked, outside, tuple(levels)) != self._state or lang != self._lang:
            self._state, self._lang = (locked, outside, tuple(levels)), lang
            self._retext()

    def _retext(self) -> None:
        locked, outside, (lo, hi) = self._state
        lang = self._lang
        self.action.setChecked(locked)
        self.action.setText(pane_text.ui("unlock_scale" if locked else "lock_scale", lang))
        self.button.setChecked(locked)
        if not locked:
            text, tip = pane_text.ui("scale_button", lang), pane_text.ui("scale_free_tip", lang)
        else:
            ends = {"lo": numbers.rounded(lo), "hi": numbers.rounded(hi)}
            tip = pane_text.ui("scale_locked_tip", lang, **ends)
            if outside:
                text = pane_text.ui("scale_locked_outside", lang, n=outside)
                tip += "\n" + pane_text.ui("scale_outside_tip", lang, n=outside, **ends)
            else:
                text = pane_text.ui("scale_locked", lang)
        self.button.setText(text)
        self.button.setToolTip(tip)
        self.action.setToolTip(tip)


def clipped_ticks(lv: tuple[float, float], lower: bool, upper: bool) -> list:
    """Colour bar ticks of a locked scale with numbers beyond its ends: "≤ lo" / "≥ hi" there
    (the numbers drawn in an end's colour may be beyond it), 0 between them when it lies inside."""
    lo, hi = lv
    ticks = [(lo, ("≤ " if lower else "") + numbers.rounded(lo)), (hi, ("≥ " if upper else "") + numbers.rounded(hi))]
    if lo < 0 < hi:
        ticks.insert(1, (0.0, "0"))
    return [ticks, []]


def slide_picture(view: ScaleLocks, step_id: str, data: PaneData) -> Optional[prepared.PanePicture]:
    """A slide's picture of `data` on the scale `view` locked for `step_id` (None: no lock, the
    slide fits its own scale): a lock holds on the slides as in the window."""
    lock = view.locked_scale(step_id)
    return None if lock is None else prepared.locked_picture(prepared.picture_of(data), lock)
