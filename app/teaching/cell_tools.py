"""Teaching tools on the step panes, wired into the window by one call: `install(window)`.

- Explain: a dock on the right (View ▸ Explain panel, Ctrl+E) explains any clicked cell;
- Compare: View ▸ Pin as reference (Ctrl+Shift+P), Show difference to pinned (Ctrl+Shift+D), Unpin;
- Quiz: View ▸ Quiz: hide the numbers of ▸ <step>; answers are typed in the Explain panel.
Lenses are added to the StepsView in this order: compare first, then the quiz (a hidden step
stays hidden while differences are shown).
"""
from __future__ import annotations

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QKeySequence

from app.teaching.compare import Compare
from app.teaching.quiz import Quiz
from app.teaching.explain_panel import ExplainPanel

VISIBLE_KEY = "explain/visible"


class CellTools(QObject):
    def __init__(self, window) -> None:
        super().__init__(window)
        self.window = window
        view = window.view
        self.compare = Compare(view, self)
        self.quiz = Quiz(view, window.settings, self)
        self.panel = ExplainPanel(view, self.quiz, window, inputs=window.inputs)
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.panel)
        self.panel.setVisible(_as_bool(window.settings.q.value(VISIBLE_KEY, False)))
        self.panel_action = self.panel.toggleViewAction()
        self.panel_action.setShortcut(QKeySequence("Ctrl+E"))
        self.panel_action.triggered.connect(self._remember)
        view.cellClicked.connect(lambda *_: self._remember(True))
        for signal in (self.compare.message,):
            signal.connect(lambda text: window.statusBar().showMessage(text, 6000))
        menu = window.view_menu
        menu.addSeparator()
        menu.addAction(self.panel_action)
        menu.addSeparator()
        for a in (self.compare.pin_action, self.compare.diff_action, self.compare.unpin_action):
            menu.addAction(a)
        menu.addSeparator()
        menu.addMenu(self.quiz.menu)
        self.panel.on_language_change = self.retranslate
        self.retranslate()

    def _remember(self, visible: bool) -> None:
        self.window.settings.q.setValue(VISIBLE_KEY, bool(visible))

    def retranslate(self) -> None:
        self.panel_action.setText(self.tr("Explain panel"))
        self.panel_action.setStatusTip(self.tr("Show how the clicked cell was computed"))
        self.compare.retranslate()
        self.quiz.retranslate()


def _as_bool(value) -> bool:
    return value is True or str(value).lower() in ("true", "1")


def install(window) -> CellTools:
    """Add Explain, Compare and Quiz to `window` (a MainWindow); kept as window.cell_tools."""
    window.cell_tools = CellTools(window)
    return window.cell_tools
