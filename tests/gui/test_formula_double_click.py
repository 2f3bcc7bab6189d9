"""A double-click whose first click landed elsewhere (a quiz "?" cell: the first click opens
Explain, the panes move, the second click lands on the formula) must not select a word of the
pane's formula; a double-click made on the formula itself still selects a word."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication

from app.panes.step_pane import StepPane

LEFT = Qt.MouseButton.LeftButton


def send(widget, kind: QEvent.Type, at: QPointF, ms: int) -> None:
    buttons = Qt.MouseButton.NoButton if kind == QEvent.Type.MouseButtonRelease else LEFT
    event = QMouseEvent(kind, at, widget.mapToGlobal(at), LEFT, buttons, Qt.KeyboardModifier.NoModifier)
    event.setTimestamp(ms)
    QApplication.sendEvent(widget, event)


def word_point(label) -> QPointF:
    return QPointF(label.fontMetrics().horizontalAdvance("sc") + 2, label.height() / 2)


def pane(qtbot) -> StepPane:
    p = StepPane("scores")
    qtbot.addWidget(p)
    p.formula.setText("scores = scale * Q K^T")
    p.resize(500, 300)
    p.show()
    qtbot.waitExposed(p)
    return p


def test_a_double_click_begun_elsewhere_selects_nothing(qtbot):
    p = pane(qtbot)
    at = word_point(p.formula)
    send(p.canvas.viewport(), QEvent.Type.MouseButtonPress, QPointF(5, 5), 1000)  # the "?" cell
    send(p.canvas.viewport(), QEvent.Type.MouseButtonRelease, QPointF(5, 5), 1060)
    send(p.formula, QEvent.Type.MouseButtonDblClick, at, 1150)  # the panes moved: the formula
    send(p.formula, QEvent.Type.MouseButtonRelease, at, 1200)
    assert p.formula.selectedText() == ""


def test_a_double_click_on_the_formula_still_selects_a_word(qtbot):
    p = pane(qtbot)
    at = word_point(p.formula)
    send(p.formula, QEvent.Type.MouseButtonPress, at, 5000)
    send(p.formula, QEvent.Type.MouseButtonRelease, at, 5060)
    send(p.formula, QEvent.Type.MouseButtonDblClick, at, 5150)
    send(p.formula, QEvent.Type.MouseButtonRelease, at, 5200)
    assert p.formula.selectedText() == "scores"
