"""Every action of the matrix editor and of the window's Edit menu, triggered the way a person
triggers it: a toolbar button click, a menu item, a right-click menu entry, a shortcut.

(The Paste button and the table's right-click Paste once raised TypeError, because a QAction's
triggered(bool) handed `checked=False` to paste() as its text, while the tests only called
paste() directly and pressed Ctrl+V.)
"""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QMenu, QToolButton

BLOCK = "7\t8.5\n-9\t10\n"
WANT = [[7.0, 8.5], [-9.0, 10.0]]


@pytest.fixture
def errors(window):
    """What the window's error hook would show; a test fails if anything reaches it."""
    import sys
    import threading

    from app.startup.application import install_excepthook

    seen: list[str] = []
    saved = sys.excepthook, threading.excepthook
    install_excepthook(seen.append)
    yield seen
    sys.excepthook, threading.excepthook = saved


def _keys(window):
    return window.document.scenario.keys[0]


def _click_menu_entry(qtbot, text: str, submenu: str | None = None) -> None:
    """Once a popup menu is open, click its entry `text` (inside `submenu` first, if given)."""
    def find(menu: QMenu, wanted: str):
        for a in menu.actions():
            if a.text().replace("&", "") == wanted:
                return a
        raise AssertionError(f"no entry {wanted!r} in {[a.text() for a in menu.actions()]}")

    def click() -> None:
        menu = QApplication.activePopupWidget()
        assert isinstance(menu, QMenu), "no menu opened"
        if submenu is not None:
            a = find(menu, submenu)
            menu.setActiveAction(a)
            inner = a.menu()
            inner.popup(menu.mapToGlobal(menu.actionGeometry(a).topRight()))
            menu = inner
        a = find(menu, text)
        qtbot.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(a).center())

    QTimer.singleShot(50, click)


def _open_context_menu(editor, qtbot, text: str, submenu: str | None = None) -> None:
    _click_menu_entry(qtbot, text, submenu)
    rect = editor.table.visualRect(editor.model.index(1, 1))
    editor.table.customContextMenuRequested.emit(rect.center())  # a right click on cell (1, 1)


def test_paste_button_click(window, qtbot, errors):
    editor = window.inputs.editors["keys"]
    editor.select_rect(1, 1, 1, 1)
    QGuiApplication.clipboard().setText(BLOCK)
    qtbot.mouseClick(editor.paste_button, Qt.MouseButton.LeftButton)
    assert _keys(window)[1:3, 1:3].tolist() == WANT
    assert window.document.undo_stack.count() == 1 and not errors


def test_copy_button_click(window, qtbot, errors):
    editor = window.inputs.editors["queries"]
    editor.select_rect(0, 0, 2, 4)
    QGuiApplication.clipboard().setText("")
    qtbot.mouseClick(editor.copy_button, Qt.MouseButton.LeftButton)
    want = window.document.scenario.queries[0, :2, :4]
    got = [[float(x) for x in row.split("\t")] for row in QGuiApplication.clipboard().text().splitlines()]
    assert np.array_equal(np.array(got), want) and not errors


def test_context_menu_paste(window, qtbot, errors):
    editor = window.inputs.editors["keys"]
    editor.select_rect(1, 1, 1, 1)
    QGuiApplication.clipboard().setText(BLOCK)
    _open_context_menu(editor, qtbot, "Paste")
    assert _keys(window)[1:3, 1:3].tolist() == WANT
    assert not errors


def test_context_menu_copy(window, qtbot, errors):
    editor = window.inputs.editors["values"]
    editor.select_rect(0, 1, 3, 2)
    QGuiApplication.clipboard().setText("")
    _open_context_menu(editor, qtbot, "Copy")
    want = window.document.scenario.values[0, 0:3, 1:3]
    got = [[float(x) for x in row.split("\t")] for row in QGuiApplication.clipboard().text().splitlines()]
    assert np.array_equal(np.array(got), want) and not errors


def test_context_menu_fill_entries(window, qtbot, errors):
    editor = window.inputs.editors["queries"]
    editor.select_rect(0, 0, 2, 2)
    _open_context_menu(editor, qtbot, "Ones", submenu="Fill selection")
    q = window.document.scenario.queries[0]
    assert q[:2, :2].tolist() == [[1, 1], [1, 1]]
    _open_context_menu(editor, qtbot, "Identity (1 on the diagonal)", submenu="Fill whole matrix")
    assert np.array_equal(window.document.scenario.queries[0], np.eye(4)) and not errors


def test_fill_button_menu(window, qtbot, errors):
    editor = window.inputs.editors["values"]
    editor.select_rect(0, 0, 1, 3)
    _click_menu_entry(qtbot, "Count up 0, 1, 2, ... (row by row)", submenu="Fill selection")
    editor.fill_button.showMenu()  # what a click on the Fill button does (InstantPopup)
    assert window.document.scenario.values[0, 0, :3].tolist() == [0, 1, 2] and not errors


def test_table_shortcuts(window, qtbot, errors):
    editor = window.inputs.editors["keys"]
    editor.table.setFocus()
    editor.select_rect(0, 0, 2, 2)
    qtbot.keyClick(editor.table, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    copied = QGuiApplication.clipboard().text()
    assert [[float(x) for x in r.split("\t")] for r in copied.splitlines()] == _keys(window)[:2, :2].tolist()
    QGuiApplication.clipboard().setText(BLOCK)
    editor.select_rect(2, 2, 1, 1)
    qtbot.keyClick(editor.table, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    assert _keys(window)[2:4, 2:4].tolist() == WANT and not errors


def test_edit_menu_paste_and_copy_items(window, qtbot, errors):
    editor = window.inputs.editors["keys"]
    window.show()
    window.activateWindow()
    editor.table.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is editor.table, timeout=3000)
    editor.select_rect(1, 1, 1, 1)
    QGuiApplication.clipboard().setText(BLOCK)
    _click_menu_entry(qtbot, "Paste cells")
    window.edit_menu.popup(window.mapToGlobal(QPoint(10, 10)))
    qtbot.waitUntil(lambda: _keys(window)[1, 1] == 7.0, timeout=3000)
    assert _keys(window)[1:3, 1:3].tolist() == WANT
    editor.select_rect(1, 1, 2, 2)
    QGuiApplication.clipboard().setText("")
    _click_menu_entry(qtbot, "Copy cells")
    window.edit_menu.popup(window.mapToGlobal(QPoint(10, 10)))
    qtbot.waitUntil(lambda: QGuiApplication.clipboard().text() != "", timeout=3000)
    assert QGuiApplication.clipboard().text() == "7\t8.5\n-9\t10\n" and not errors


def test_undo_redo_by_menu_toolbar_and_shortcut(window, qtbot, errors):
    doc = window.document
    start = doc.scenario
    model = window.inputs.editors["queries"].model
    model.setData(model.index(0, 0), "5")
    edited = doc.scenario
    # Edit menu item
    _click_menu_entry(qtbot, f"Undo {doc.undo_stack.undoText()}")
    window.edit_menu.popup(window.mapToGlobal(QPoint(10, 10)))
    qtbot.waitUntil(lambda: doc.scenario.queries[0, 0, 0] == start.queries[0, 0, 0], timeout=3000)
    _click_menu_entry(qtbot, f"Redo {doc.undo_stack.redoText()}")
    window.edit_menu.popup(window.mapToGlobal(QPoint(10, 10)))
    qtbot.waitUntil(lambda: doc.scenario.queries[0, 0, 0] == 5.0, timeout=3000)
    # toolbar buttons
    toolbar = window.toolbar
    undo_button = toolbar.widgetForAction(window.undo_action)
    redo_button = toolbar.widgetForAction(window.redo_action)
    assert isinstance(undo_button, QToolButton)
    qtbot.mouseClick(undo_button, Qt.MouseButton.LeftButton)
    assert doc.scenario.queries[0, 0, 0] == start.queries[0, 0, 0]
    qtbot.mouseClick(redo_button, Qt.MouseButton.LeftButton)
    assert doc.scenario.queries[0, 0, 0] == 5.0
    # shortcuts, with the focus in the Inputs table (where it is after an edit)
    window.show()
    window.activateWindow()
    table = window.inputs.editors["queries"].table
    table.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is table, timeout=3000)
    qtbot.keyClick(table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert doc.scenario.queries[0, 0, 0] == start.queries[0, 0, 0]
    qtbot.keyClick(table, Qt.Key.Key_Y, Qt.KeyboardModifier.ControlModifier)
    assert np.array_equal(doc.scenario.queries, edited.queries) and not errors


def test_edit_menu_copy_reaches_the_editor_worked_in_after_focus_left(window, qtbot, errors):
    """Focus may leave the table (a popup, a toolbar click, the window deactivated): Edit ▸ Copy
    cells still copies the cells selected in the editor the person last worked in, not Q's."""
    keys = window.inputs.editors["keys"]
    keys.select_rect(0, 1, 2, 1)
    window.inputs.batch.setFocus()  # focus elsewhere, as after clicking a spin box
    QGuiApplication.clipboard().setText("")
    window.copy_action.trigger()
    want = _keys(window)[0:2, 1:2]
    got = [[float(x) for x in r.split("\t")] for r in QGuiApplication.clipboard().text().splitlines()]
    assert got == want.tolist() and not errors


def test_copy_with_nothing_selected_says_so(window, qtbot, errors):
    editor = window.inputs.editors["keys"]
    editor.table.clearSelection()
    editor.table.setCurrentIndex(editor.model.index(-1, -1))
    QGuiApplication.clipboard().setText("before")
    editor.copy_action.trigger()
    assert QGuiApplication.clipboard().text() == "before"
    assert not editor.message_label.isHidden() and "Select" in editor.message_label.text() and not errors
