"""Presentation mode in the window: F5, a toolbar button, the View menu, live results.

`install(host)` (app.features) is the one call the window makes: it places "Present" in the
View menu and on the window's toolbar, and connects the window's Recomputer to the presentation
so that every recompute reaches the slide on screen.
"""
from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence

from app.features import FeatureHost
from app.teaching.presentation.by_hand_slide import install as install_by_hand
from app.teaching.presentation.presentation_view import PresentationView


class PresentationController(QObject):
    """Owns the presentation window and the action that opens it."""

    def __init__(self, host: FeatureHost) -> None:
        super().__init__(host.window)
        self.view = PresentationView(host)
        self.by_hand = install_by_hand(self.view, host)  # B: the by-hand layout on the slides
        self.present_action = QAction(host.window)
        self.present_action.setShortcut(QKeySequence("F5"))
        self.present_action.triggered.connect(self.enter)
        host.add_action(self.present_action, "view", group="present", toolbar=True)
        host.recompute.ready.connect(self.view.show_trace)
        host.recompute.failed.connect(self.view.show_failed)
        host.inputs.batch_changed.connect(self.view.show_batch)
        host.document.loaded.connect(self.view.restart)  # another scenario: F5 starts at its first slide
        host.view.stepSelected.connect(self.view.select_step)  # a step selected in the window: F5 starts there
        host.on_language_change(self.retranslate)
        self.retranslate()

    def retranslate(self) -> None:
        self.present_action.setText(self.tr("Present"))
        tip = self.tr("Presentation mode: one step at a time, full screen (F5)")
        self.present_action.setToolTip(tip)
        self.present_action.setStatusTip(tip)

    def enter(self) -> None:
        self.view.enter()

    def leave(self) -> None:
        self.view.leave()

    def is_presenting(self) -> bool:
        return self.view.isVisible()


def install(host: FeatureHost) -> PresentationController:
    """Add presentation mode (F5, toolbar, View menu) to the host's window; returns its controller."""
    return PresentationController(host)
