"""The slide's formula and the by-hand sheets' formulas (the window's and the slide's): a double-click whose
first click landed elsewhere (a quiz "?" cell: the click opens Explain and the slide or sheet moves
under the mouse) selects no word; one made on the formula itself still does (issue 20).

The clicks go through the window system's path (QTest on the QWindow: press, release, press,
release, with Qt deciding that the second press makes a double-click), as a person's mouse does;
the formula is moved under the mouse between the two clicks, as the panes move when Explain opens.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPoint, QRect, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLabel, QWidget
from test_slide_layout import go, present, settle

LEFT = Qt.MouseButton.LeftButton


class _MoveOnRelease(QObject):
    """When the first click's release reaches `first`, put `label`'s word point under the mouse."""

    def __init__(self, first: QWidget, label: QLabel, at: QPoint) -> None:
        super().__init__()
        self.first, self.label, self.at = first, label, at

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 (Qt override)
        if obj is self.first and event.type() == QEvent.Type.MouseButtonRelease:
            top = self.label.window()
            inside = self.label.mapFrom(top, self.at)  # where the mouse is, in the label
            offset = inside - word_point(self.label)
            self.label.move(self.label.pos() + offset)
            widget = self.label
            while widget is not top:  # above the panes it now overlaps
                widget.raise_()
                widget = widget.parentWidget()
            assert top.childAt(self.at) is self.label, top.childAt(self.at)
            self.first.removeEventFilter(self)
        return False


def word_point(label: QLabel) -> QPoint:
    """A point on the first word of the label's text."""
    return QPoint(label.fontMetrics().horizontalAdvance("s") + label.contentsRect().left() + 2,
                  label.contentsRect().top() + label.fontMetrics().height() // 2)


def double_click(label: QLabel, begun_on: QWidget | None = None) -> str:
    """A person's double-click ending on `label`, its first click on `begun_on` (None: the label);
    what the label then has selected."""
    label.setSelection(0, 0)
    top = label.window()
    if begun_on is None:
        at = label.mapTo(top, word_point(label))
    else:
        shown = QRect(begun_on.mapTo(top, QPoint(0, 0)), begun_on.size())
        at = shown.intersected(QRect(QPoint(0, 0), top.windowHandle().size())).center()  # inside the screen
        mover = _MoveOnRelease(begun_on, label, at)
        begun_on.installEventFilter(mover)
    QTest.mouseDClick(top.windowHandle(), LEFT, Qt.KeyboardModifier.NoModifier, at)
    return label.selectedText()


def test_a_slide_formula_selects_a_word_only_when_the_double_click_began_on_it(qtbot, window):
    view = present(qtbot, window)
    try:
        go(qtbot, view, "scores")
        formula = view.formula
        assert formula.isVisible() and formula.text()
        assert double_click(formula) == "scores"  # the control: a double-click on the formula
        settle(qtbot)
        qtbot.wait(500)  # a fresh double-click, not a triple
        assert view.shape.isVisible() and view.shape.parentWidget() is formula.parentWidget()
        assert double_click(formula, begun_on=view.shape) == ""  # the first click beside it, on the shape line
    finally:
        view.leave()


def test_the_by_hand_sheets_formulas_select_nothing_after_a_click_on_a_cell(qtbot, window):
    window.by_hand.set_shown(True)
    with qtbot.waitActive(window):
        window.show()
        window.activateWindow()
    sheet = window.by_hand.view
    qtbot.waitUntil(lambda: sheet.formulas.isVisible() and bool(sheet.formulas.text()))
    settle(qtbot)
    assert double_click(sheet.formulas, begun_on=sheet.canvas.viewport()) == ""
    qtbot.wait(500)
    settle(qtbot)
    assert double_click(sheet.formulas) != ""  # the control: a double-click on the formulas


def test_the_slide_by_hand_sheet_too(qtbot, window):
    view = present(qtbot, window)
    try:
        qtbot.keyClick(view, Qt.Key.Key_B)
        sheet = window.presentation.by_hand.sheet
        qtbot.waitUntil(lambda: sheet.isVisible() and bool(sheet.formulas.text()))
        settle(qtbot)
        assert double_click(sheet.formulas, begun_on=sheet.canvas.viewport()) == ""
        qtbot.wait(500)
        settle(qtbot)
        assert double_click(sheet.formulas) != ""
    finally:
        view.leave()
