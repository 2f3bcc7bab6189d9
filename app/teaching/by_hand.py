"""View ▸ By-hand layout: the Steps region shows one head worked as on paper (app/panes/by_hand_view.py).

`install(host)` (app.features) places a checkable "By-hand layout" action (Ctrl+Shift+B) in the
View menu.  While it is checked the Steps region shows the by-hand sheet of the current scenario
instead of its panes (a step the quiz hides stays hidden there too); every recompute (an edit,
undo, a preset) and every change of batch item redraws it, and a failed recompute leaves it
showing the last good numbers, faded, under the region's stale banner.  Unchecking it gives the
panes back.
"""
from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence

from app.features import FeatureHost
from app.panes.by_hand_view import ByHandView
from app.services import i18n


class ByHandLayout(QObject):
    """Owns the window's by-hand sheet and the action that shows it."""

    def __init__(self, host: FeatureHost) -> None:
        super().__init__(host.window)
        self.host = host
        self.view = ByHandView()
        self.view.hide()
        self.view.set_language(i18n.current_language())
        self.action = QAction(host.window, checkable=True)
        self.action.setShortcut(QKeySequence("Ctrl+Shift+B"))
        self.action.toggled.connect(self.set_shown)
        host.add_action(self.action, "view", group="by_hand")
        host.recompute.ready.connect(self._on_ready)
        host.recompute.failed.connect(lambda *_: self.view.set_stale(True))
        host.inputs.batch_changed.connect(lambda _b: self.refresh())
        host.view.focusHeadChanged.connect(self._follow_head)
        host.on_language_change(self.retranslate)
        follow_quiz(host, self.view)
        self.retranslate()

    def retranslate(self) -> None:
        self.action.setText(self.tr("By-hand layout"))
        tip = self.tr("Show one head as the by-hand worksheets lay it out: Kᵀ above and Q to the left of the "
                      "scores, V above the output (Ctrl+Shift+B)")
        self.action.setToolTip(tip)
        self.action.setStatusTip(tip)
        self.view.set_language(i18n.current_language())

    def is_shown(self) -> bool:
        return self.action.isChecked()

    def set_shown(self, shown: bool) -> None:
        """Show the by-hand sheet in the Steps region (True) or the panes again (False)."""
        if self.action.isChecked() != shown:
            self.action.setChecked(shown)  # toggled comes back here
            return
        if shown:
            focus = self.host.view.focus_head()
            if focus >= 0:
                self.view.set_head(focus)
            self.refresh()
        self.host.view.show_instead(self.view if shown else None)

    def refresh(self) -> None:
        """Draw the window's last result (nothing yet: says so)."""
        if not self.is_shown():
            return
        last = self.host.last_result()
        if last is not None:
            self.view.show_trace(last.trace, last.scenario, last.batch)

    def _on_ready(self, *_) -> None:
        """The window has taken the new trace in already (it connected first): draw its last result."""
        self.view.set_stale(False)
        self.refresh()

    def _follow_head(self, head: int) -> None:
        if head >= 0:
            self.view.set_head(head)


def follow_quiz(host: FeatureHost, view: ByHandView) -> Optional[QObject]:
    """While View ▸ Quiz hides a step, `view` hides the blocks that would give it away.  The quiz
    is the window's (app.teaching.cell_tools, installed before this feature); None without one."""
    quiz = getattr(getattr(host.window, "cell_tools", None), "quiz", None)
    if quiz is not None:
        quiz.changed.connect(lambda: view.set_hidden_step(quiz.step_id, quiz.lens.revealed))  # a found cell shows
        view.set_hidden_step(quiz.step_id, quiz.lens.revealed)
    return quiz


def install(host: FeatureHost) -> ByHandLayout:
    """Add View ▸ By-hand layout (Ctrl+Shift+B) to the host's window; returns its controller."""
    return ByHandLayout(host)
