"""Hand the C heap's freed memory back to the system once the app has been quiet a moment.

Why: a model run (torch, numpy) frees tens of MB of temporaries, partly in the worker thread's
own glibc arena, and glibc keeps freed pages for reuse instead of returning them: after 100
MiniLM sentence edits about 50 MB of the process's resident memory held no object at all
(bench/models.py: malloc_trim gave back 49 MB).  glibc's malloc_trim(0) returns them; it walks
the heap (a few ms), so it runs only after the document has been still for IDLE_MS, never
during typing.  Elsewhere than glibc (macOS, Windows, musl) there is nothing to call: a no-op.
"""
from __future__ import annotations

import ctypes
import sys
from typing import Callable, Optional

from PySide6.QtCore import QObject, QTimer

IDLE_MS = 1000


def _malloc_trim() -> Optional[Callable[[int], int]]:
    """glibc's malloc_trim, or None where the C library has none."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL("libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):  # not glibc (musl) or no such symbol
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


_TRIM = _malloc_trim()


def give_back() -> bool:
    """Return the heap's free pages to the system now; True when anything was given back."""
    return bool(_TRIM(0)) if _TRIM is not None else False


class IdleTrim(QObject):
    """Calls give_back() once, IDLE_MS after the last poke() (each poke restarts the wait)."""

    def __init__(self, parent: Optional[QObject] = None, idle_ms: int = IDLE_MS):
        super().__init__(parent)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(idle_ms)
        self.timer.timeout.connect(give_back)

    def poke(self, *args) -> None:
        if _TRIM is not None:
            self.timer.start()
