"""Wiring presentation mode into the window: F5, a toolbar, the View menu, live results.

`install(window)` is the one call the window makes.  It adds a toolbar (Open, Save, Undo,
Redo, Present: the window's own actions plus "Present"), a "Presentation mode" item in the View
menu, and connects the window's Recomputer to the presentation so that every recompute
reaches the slide on screen.
"""
from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QToolBar, QWidget

from app.teaching.presentation.presentation_view import PresentationView


class PresentationToolBar(QToolBar):
    """The window's toolbar; it words the Present action (its own) in the current language."""

    def __init__(self, present: QAction, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.setObjectName("MainToolBar")
        self.setMovable(False)
        self.present_action = present
        self.retranslate()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("Toolbar"))
        self.present_action.setText(self.tr("Present"))
        tip = self.tr("Presentation mode: one step at a time, full screen (F5)")
        self.present_action.setToolTip(tip)
        self.present_action.setStatusTip(tip)


class PresentationController(QObject):
    """Owns the presentation window and the actions that open it."""

    def __init__(self, window) -> None:
        super().__init__(window)
        self.window = window
        self.view = PresentationView(window)
        self.present_action = QAction(window)
        self.present_action.setShortcut(QKeySequence("F5"))
        self.present_action.triggered.connect(self.enter)
        window.addAction(self.present_action)
        self.toolbar = PresentationToolBar(self.present_action, window)
        for action in (window.open_action, window.save_action, None, window.undo_action,
                       window.redo_action, None, self.present_action):
            if action is None:
                self.toolbar.addSeparator()
            else:
                self.toolbar.addAction(action)
        window.addToolBar(self.toolbar)
        view_menu = getattr(window, "view_menu", None)
        if view_menu is not None:
            view_menu.addSeparator()
            view_menu.addAction(self.present_action)
        window.recompute.ready.connect(self.view.show_trace)
        window.recompute.failed.connect(self.view.show_failed)
        batch_changed = getattr(getattr(window, "inputs", None), "batch_changed", None)
        if batch_changed is not None:
            batch_changed.connect(self.view.show_batch)

    def enter(self) -> None:
        self.view.enter()

    def leave(self) -> None:
        self.view.leave()

    def is_presenting(self) -> bool:
        return self.view.isVisible()


def install(window) -> PresentationController:
    """Add presentation mode (F5, toolbar, View menu) to `window`; returns its controller."""
    return PresentationController(window)
