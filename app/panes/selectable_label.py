"""A label whose text can be selected with the mouse, where a double-click selects a word only if it
began on the label.

Why: a double-click on a quiz "?" cell opens Explain with its first click; the panes (or the slide, or
the by-hand sheet) move under the mouse, and the second click lands on a formula.  Qt delivers that
second click to the formula as a double-click (no press first), and a plain QLabel selects the word
under it: a highlighted word in the middle of a formula the class is reading.  Here such a
double-click counts as the press it physically was.
"""
from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QEvent
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication, QLabel


class SelectableLabel(QLabel):
    """QLabel (its owner makes it selectable); a double-click whose first click landed elsewhere is a press."""

    def __init__(self, text: str = "") -> None:
        super().__init__(text)
        self._pressed_ms: Optional[int] = None  # when this label last got a press (event clock)

    def mousePressEvent(self, event) -> None:  # noqa: N802 (Qt override)
        self._pressed_ms = event.timestamp()
        super().mousePressEvent(event)

    def mouseDoubleClickEvent(self, event) -> None:  # noqa: N802 (Qt override)
        first = self._pressed_ms
        if first is None or not 0 <= event.timestamp() - first <= QApplication.doubleClickInterval():
            press = QMouseEvent(QEvent.Type.MouseButtonPress, event.position(), event.globalPosition(),
                                event.button(), event.buttons(), event.modifiers())
            press.setTimestamp(event.timestamp())
            self.mousePressEvent(press)  # (the text control reads the event's type, not the handler)
            return
        super().mouseDoubleClickEvent(event)
