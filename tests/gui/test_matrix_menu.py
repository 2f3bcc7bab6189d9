"""The matrix table's right-click menu, opened again and again the way a person does (issue 21
item 1): each right-click pops the menu up, an entry is clicked, and the deferred deletions of
the event loop run before the next one.  The menu made per click used to be deleted after it
(deleteLater) together with the shared Fill submenus, so the second right-click raised
"Internal C++ object (QMenu) already deleted".  No window here: one editor on its own (fast)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from gui_helpers import choose_in_popup
from PySide6.QtCore import QCoreApplication, QEvent, Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QMenu

from app.editing.matrix_editor import MatrixEditor
from app.pipeline.document import Document
from app.viewmodel.matrix_ref import MatrixRef
from attention import Scenario

ROWS, COLS = 3, 4
START = np.arange(ROWS * COLS, dtype=float).reshape(1, ROWS, COLS) + 100  # no entry of a fill


@pytest.fixture
def editor(qtbot):
    doc = Document(Scenario(START.copy(), START.copy(), START.copy(), n_heads=2))
    ed = MatrixEditor(doc, MatrixRef("queries", 0))
    qtbot.addWidget(ed)
    ed.resize(500, 300)
    ed.show()
    qtbot.waitExposed(ed)
    return ed


def _matrix(editor) -> np.ndarray:
    return np.array(editor.doc.scenario.queries[0])


def _right_click_and_choose(editor, qtbot, text: str, submenu: str | None = None) -> None:
    """Right-click cell (1, 1), click the entry `text` (in `submenu`), then let the event loop
    run its deferred deletions, as it does between two clicks of a person."""
    chosen: list = []

    def find(menu: QMenu, wanted: str):
        for a in menu.actions():
            if a.text().replace("&", "") == wanted:
                return a
        raise AssertionError(f"no entry {wanted!r} in {[a.text() for a in menu.actions()]}")

    def pick(menu: QMenu):
        if submenu is not None:
            a = find(menu, submenu)
            menu.setActiveAction(a)
            inner = a.menu()
            inner.popup(menu.mapToGlobal(menu.actionGeometry(a).topRight()))
            menu = inner
        return menu, find(menu, text)

    choose_in_popup(qtbot, pick, chosen)
    rect = editor.table.visualRect(editor.model.index(1, 1))
    editor.table.customContextMenuRequested.emit(rect.center())  # a right click on cell (1, 1)
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    QCoreApplication.processEvents()
    assert [a.text().replace("&", "") for a in chosen] == [text], "the menu did not open"


def test_the_menu_opens_again_after_the_first_one_is_gone(editor, qtbot):
    for _ in range(3):
        _right_click_and_choose(editor, qtbot, "Copy")
    assert editor.context_menu() is not None and editor.fill_selection_menu.title() == "Fill selection"


def test_copy_and_paste_entries_every_time(editor, qtbot):
    for _ in range(2):
        editor.select_rect(0, 0, 2, 2)
        QGuiApplication.clipboard().setText("")
        _right_click_and_choose(editor, qtbot, "Copy")
        assert QGuiApplication.clipboard().text().splitlines() == ["100\t101", "104\t105"]
    QGuiApplication.clipboard().setText("7\t8.5\n-9\t10\n")
    for r in (1, 0):
        editor.select_rect(r, 2, 1, 1)
        _right_click_and_choose(editor, qtbot, "Paste")
        assert _matrix(editor)[r:r + 2, 2:4].tolist() == [[7.0, 8.5], [-9.0, 10.0]]


FILLS = {  # entry -> what it must put into a 2 x 3 block (hand-written), or a check of the numbers
    "Zeros": lambda b: np.array_equal(b, np.zeros((2, 3))),
    "Ones": lambda b: np.array_equal(b, np.ones((2, 3))),
    "Identity (1 on the diagonal)": lambda b: np.array_equal(b, [[1, 0, 0], [0, 1, 0]]),
    "Count up 0, 1, 2, ... (row by row)": lambda b: np.array_equal(b, [[0, 1, 2], [3, 4, 5]]),
    "Random normal (mean 0, sd 1, seeded, 2 decimals)":
        lambda b: np.array_equal(b, np.round(b, 2)) and np.all(np.abs(b) < 10) and len(set(b.ravel())) > 1,
    "Random uniform in [-1, 1] (seeded, 2 decimals)":
        lambda b: np.array_equal(b, np.round(b, 2)) and np.all(np.abs(b) <= 1) and len(set(b.ravel())) > 1,
    "nn.Linear default init, uniform +-1/sqrt(columns) (seeded)":
        lambda b: np.all(np.abs(b) <= 1 / math.sqrt(3)) and len(set(b.ravel())) > 1,
}


def test_every_fill_entry_of_both_submenus_twice(editor, qtbot):
    for _ in range(2):
        for name, ok in FILLS.items():
            editor.doc.set_block(MatrixRef("queries", 0), 0, 0, START[0], "reset")
            editor.select_rect(1, 1, 2, 3)
            _right_click_and_choose(editor, qtbot, name, submenu="Fill selection")
            m = _matrix(editor)
            assert ok(m[1:3, 1:4]), name
            assert np.array_equal(m[0], START[0, 0]) and m[1, 0] == START[0, 1, 0], f"{name}: outside the block"
    for name in ("Zeros", "Ones", "Count up 0, 1, 2, ... (row by row)"):
        _right_click_and_choose(editor, qtbot, name, submenu="Fill whole matrix")
    assert np.array_equal(_matrix(editor), np.arange(ROWS * COLS).reshape(ROWS, COLS))


def test_the_fill_button_still_works_after_right_clicks(editor, qtbot):
    _right_click_and_choose(editor, qtbot, "Ones", submenu="Fill whole matrix")
    _right_click_and_choose(editor, qtbot, "Copy")
    editor.select_rect(0, 0, 1, 2)
    clicked: list[bool] = []

    def click() -> None:
        menu = QApplication.activePopupWidget()
        a = next(a for a in menu.actions() if a.text() == "Fill selection")
        menu.setActiveAction(a)
        inner = a.menu()
        inner.popup(menu.mapToGlobal(menu.actionGeometry(a).topRight()))
        z = next(a for a in inner.actions() if a.text() == "Zeros")
        clicked.append(True)
        qtbot.mouseClick(inner, Qt.MouseButton.LeftButton, pos=inner.actionGeometry(z).center())

    QTimer.singleShot(30, click)
    editor.fill_button.showMenu()
    assert clicked and _matrix(editor)[0].tolist() == [0, 0, 1, 1]
