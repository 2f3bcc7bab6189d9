"""Teaching tools on the step panes, wired into the window by one call: `install(host)` (app.features).

- Explain: a dock on the right (View ▸ Explain panel, Ctrl+E) explains any clicked cell;
- Compare: View ▸ Pin as reference (Ctrl+Shift+P), Show difference to pinned (Ctrl+Shift+D), Unpin;
- Quiz: View ▸ Quiz: hide the numbers of ▸ <step>; answers are typed in the Explain panel.
Lenses are added to the StepsView in this order: compare first, then the quiz (a hidden step
stays hidden while differences are shown).
"""
from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QKeySequence

from app.features import FeatureHost
from app.teaching.compare import Compare
from app.teaching.explain_panel import ExplainPanel
from app.teaching.quiz import Quiz


class CellTools(QObject):
    def __init__(self, host: FeatureHost) -> None:
        super().__init__(host.window)
        self.settings = host.settings
        view = host.view
        self.compare = Compare(view, self)
        self.quiz = Quiz(view, host.settings, self)
        host.quiz = self.quiz  # the slides and the exports hide what the quiz hides
        self.panel = ExplainPanel(view, self.quiz, host.window, inputs=host.inputs)
        host.add_dock(self.panel)
        self.panel.setVisible(host.settings.explain_visible())
        self.panel_action = self.panel.toggleViewAction()
        self.panel_action.setShortcut(QKeySequence("Ctrl+E"))
        self.panel_action.triggered.connect(self._remember)
        view.cellClicked.connect(lambda *_: self._remember(True))
        self.compare.message.connect(host.status)
        host.add_action(self.panel_action, "view", group="explain")
        for a in (self.compare.pin_action, self.compare.diff_action, self.compare.unpin_action):
            host.add_action(a, "view", group="compare")
        host.add_menu(self.quiz.menu, "view", group="quiz")
        host.on_language_change(self.retranslate)
        self.retranslate()

    def _remember(self, visible: bool) -> None:
        self.settings.set_explain_visible(visible)

    def retranslate(self) -> None:
        self.panel_action.setText(self.tr("Explain panel"))
        self.panel_action.setStatusTip(self.tr("Show how the clicked cell was computed"))
        self.compare.retranslate()
        self.quiz.retranslate()


def install(host: FeatureHost) -> CellTools:
    """Add Explain, Compare and Quiz to the host's window; returns their controller."""
    return CellTools(host)
