"""Application start-up: one QApplication, names for QSettings, translators, error hook, run().

`run(path)` opens the window on the seed's toy preset (or on `path`) and returns the exit code
of the event loop, so `sys.exit(run(...))` is safe.  Errors that escape a slot are shown in the
window's message area instead of killing the process or printing only a traceback.
"""
from __future__ import annotations

import sys
import threading
import traceback
from typing import Callable, Optional

from PySide6.QtCore import QCoreApplication, QTimer
from PySide6.QtWidgets import QApplication

ORGANIZATION = "AttentionExplorer"
APPLICATION = "Attention Explorer"


def get_app(argv: Optional[list[str]] = None) -> QApplication:
    """The QApplication, created on first use (Qt allows only one per process)."""
    app = QApplication.instance()
    if app is None:
        app = QApplication(argv if argv is not None else sys.argv[:1])
    QCoreApplication.setOrganizationName(ORGANIZATION)
    QCoreApplication.setApplicationName(APPLICATION)
    return app


def install_excepthook(show: Callable[[str], None]) -> Callable:
    """Route uncaught exceptions (GUI thread and worker threads) to `show`; returns the hook.

    The traceback still goes to stderr for a bug report; the person sees one line and keeps
    working.  A worker thread's error is passed to the GUI thread with a zero-delay timer."""
    def hook(exc_type, exc, tb) -> None:
        if issubclass(exc_type, KeyboardInterrupt):
            sys.__excepthook__(exc_type, exc, tb)
            return
        traceback.print_exception(exc_type, exc, tb)
        line = f"{exc_type.__name__}: {exc}"
        if threading.current_thread() is threading.main_thread():
            show(line)
        else:
            QTimer.singleShot(0, QCoreApplication.instance(), lambda: show(line))

    sys.excepthook = hook
    threading.excepthook = lambda args: hook(args.exc_type, args.exc_value, args.exc_traceback)
    return hook


def run(path: Optional[str] = None) -> int:
    """Open the window (on `path` when given) and run the event loop; returns its exit code."""
    app = get_app()
    from app.main_window import MainWindow  # after the QApplication: pyqtgraph needs it

    window = MainWindow()
    install_excepthook(window.show_error)
    if path:
        window.load_path(path)
    window.show()
    code = app.exec()
    del window
    return int(code)
