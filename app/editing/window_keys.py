"""Window shortcuts that keep working while a spin box or a line edit has the keyboard focus.

After every edit the focus is in a spin box or a text field, and on Linux (X11 key bindings)
those claim Ctrl+E for themselves ("move to the end of the line") through Qt's ShortcutOverride
event, so Ctrl+E (the Explain panel) did nothing there.  A `WindowKeys` watches whichever widget
of its window has the focus and declines the override for the shortcuts it was given: Qt then
triggers the window's action.  Only those keys: Ctrl+Z, Ctrl+C, Home, End... stay the field's.

Only the focused widget is watched (a filter on the whole application would run for every event).
"""
from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication, QWidget
from shiboken6 import isValid


class WindowKeys(QObject):
    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self.window = window
        self.actions: list[QAction] = []
        self._watched: Optional[QWidget] = None
        QApplication.instance().focusChanged.connect(self._on_focus)
        self._on_focus(None, QApplication.focusWidget())

    def claim(self, action: QAction) -> None:
        """`action`'s shortcuts trigger it even when the focused field would take them."""
        self.actions.append(action)

    def claims(self, sequence: QKeySequence) -> bool:
        return any(a.isEnabled() and sequence in a.shortcuts() for a in self.actions if isValid(a))

    def _on_focus(self, _old: Optional[QWidget], new: Optional[QWidget]) -> None:
        if not isValid(self):  # the window is gone (the application's signal may outlive it)
            return
        if self._watched is not None and isValid(self._watched):
            self._watched.removeEventFilter(self)
        self._watched = None
        if new is not None and isValid(self.window) and new.window() is self.window:
            new.installEventFilter(self)
            self._watched = new

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.ShortcutOverride and self.claims(QKeySequence(event.keyCombination())):
            event.ignore()  # not the field's: the shortcut map triggers the action
            return True
        return False
