"""A paint() that raises must not take the window down.

PySide6 6.11 crashes the process (a segfault in Shiboken's storePythonOverrideErrorOrPrint)
when a Python override of QGraphicsItem.paint raises: one bad number in one cell and the class
loses the window (found by tests/soak_window.py).  `guarded` wraps our paint overrides: the
item draws nothing this time, and the error is reported once per item class and error type
through sys.excepthook on the next event-loop pass (app.startup.application routes that to the
window's message area and prints the traceback for a bug report)."""
from __future__ import annotations

import functools
import sys

from PySide6.QtCore import QTimer

_reported: set[tuple[str, type]] = set()


def guarded(paint):
    @functools.wraps(paint)
    def wrapper(self, painter, *args):
        try:
            return paint(self, painter, *args)
        except Exception:
            info = sys.exc_info()
            key = (type(self).__name__, info[0])
            if key not in _reported:
                _reported.add(key)
                QTimer.singleShot(0, lambda: sys.excepthook(*info))
            return None
    return wrapper
