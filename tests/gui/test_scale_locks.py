"""Defect 16: a colour scale can be locked, per pane (right-click menu, header button) and for
every pane at once (View ▸ Lock all colour scales), and one-signed numbers get a sequential map.

Driven the way a person does it: a right-click on the pane, a click on the header button, the
View menu's entry; a number typed into the Q editor.  Expected scales are worked out by hand
from the toy preset's queries (all of them 0, 1 or 2; W_q is the identity, so Q = the queries)."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QApplication, QMenu

from app.panes import colormaps
from app.viewmodel.color_scale import ColourScale

pytestmark = pytest.mark.gui

Q = "projection.query"


def _click_popup_entry(qtbot, text: str) -> None:
    """Once a popup menu is open, click its entry `text`."""
    def click() -> None:
        menu = QApplication.activePopupWidget()
        assert isinstance(menu, QMenu), "no menu opened"
        entries = {a.text().replace("&", ""): a for a in menu.actions()}
        assert text in entries, f"no entry {text!r} in {list(entries)}"
        qtbot.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(entries[text]).center())

    QTimer.singleShot(50, click)


def _right_click(qtbot, pane, entry: str) -> None:
    """A right click in the middle of the pane's first matrix, then a click on the menu's `entry`."""
    _click_popup_entry(qtbot, entry)
    viewport = pane.canvas.viewport()
    pos = pane.canvas.mapFromScene(pane.cell_scene_pos(0, 1, 1))
    QApplication.sendEvent(viewport, QContextMenuEvent(QContextMenuEvent.Reason.Mouse, pos, viewport.mapToGlobal(pos)))


def _type_into_q(window, row: int, col: int, text: str) -> None:
    model = window.inputs.editors["queries"].model
    assert model.setData(model.index(row, col), text)
    window.recompute.wait_idle()


def _bar_labels(pane) -> list[str]:
    ticks = pane.bar.axis._tickLevels  # what setTicks was given (None: automatic ticks)
    return [] if ticks is None else [label for level in ticks for _, label in level]


def test_all_positive_numbers_are_drawn_on_a_sequential_scale_from_white(window):
    pane = window.view.pane(Q)
    assert window.document.scenario.queries[0].min() >= 0  # the toy's queries: 0, 1, 2
    assert pane.levels() == (0.0, 2.0) and pane.colour_map() == "positive"
    lut = colormaps.palette(pane.colour_map()).lut
    assert tuple(lut[0]) == (255, 255, 255)  # 0 is white
    assert pane.heatmaps[0].image.lut is lut


def test_lock_from_the_right_click_menu_keeps_the_colours_of_unchanged_cells(window, qtbot):
    view = window.view
    pane = view.pane(Q)
    steps_before = window.document.undo_stack.count()
    _right_click(qtbot, pane, "Lock colour scale")
    qtbot.waitUntil(lambda: view.locked_scale(Q) is not None, timeout=3000)
    assert view.locked_scale(Q) == ColourScale("positive", (0.0, 2.0))
    assert window.document.undo_stack.count() == steps_before  # a view choice, not an edit
    assert pane.scale_lock.button.isChecked()
    scores_before = view.pane("scores").levels()

    _type_into_q(window, 0, 1, "5")  # Q's largest number becomes 5: a fitted scale would be (0, 5)
    pane = view.pane(Q)
    assert pane.levels() == (0.0, 2.0) and pane.colour_map() == "positive"
    assert pane.heatmaps[0].image.levels.tolist() == [0.0, 2.0]
    # an unchanged cell (query 2, feature 0 = 1) keeps its colour: the same entry of the colour table
    assert colormaps.lut_index(np.array([1.0]), pane.levels())[0] == 127
    # the 5 lies beyond the locked top: drawn at the end, and the pane and its colour bar say so
    assert pane.scale_outside() == (0, 1)
    assert "≥ 2" in _bar_labels(pane)
    assert "1 outside" in pane.scale_lock.button.text()
    assert view.pane("scores").levels() != scores_before  # an unlocked pane still fits its numbers

    # the context menu now offers to unlock; the header button does the same
    assert [a.text() for a in pane.context_menu().actions()] == ["Unlock colour scale"]
    qtbot.mouseClick(pane.scale_lock.button, Qt.MouseButton.LeftButton)
    assert view.locked_scale(Q) is None
    assert pane.levels() == (0.0, 5.0) and pane.scale_outside() == (0, 0)
    assert not pane.scale_lock.button.isChecked()
    assert window.document.undo_stack.count() == steps_before + 1  # only the typed number


def test_a_lock_survives_recomputes_and_undo(window, qtbot):
    view = window.view
    qtbot.mouseClick(view.pane(Q).scale_lock.button, Qt.MouseButton.LeftButton)  # the header button locks
    assert view.locked_scale(Q) == ColourScale("positive", (0.0, 2.0))
    _type_into_q(window, 0, 0, "-4")  # now both signs: a fitted scale would be diverging (-4, 4)
    assert view.pane(Q).levels() == (0.0, 2.0) and view.pane(Q).scale_outside() == (1, 0)
    assert "≤ 0" in _bar_labels(view.pane(Q))
    window.undo_action.trigger()
    window.recompute.wait_idle()
    assert view.pane(Q).levels() == (0.0, 2.0) and view.pane(Q).scale_outside() == (0, 0)
    assert view.locked_scale(Q) is not None


def _view_menu_entry(window, text: str):
    for a in window.view_menu.actions():
        if a.text().replace("&", "") == text:
            return a
    raise AssertionError(f"no {text!r} in View: {[a.text() for a in window.view_menu.actions()]}")


def test_lock_all_from_the_view_menu_is_remembered(make_window, qtbot, settings):
    window = make_window()
    view = window.view
    entry = _view_menu_entry(window, "Lock all colour scales")
    before = {sid: view.pane(sid).levels() for sid in view.pane_ids()}
    _click_popup_entry(qtbot, "Lock all colour scales")
    window.view_menu.popup(window.mapToGlobal(QPoint(40, 40)))
    qtbot.waitUntil(lambda: entry.isChecked(), timeout=3000)
    assert view.lock_all() and settings.lock_all_scales()
    _type_into_q(window, 0, 1, "5")
    after = {sid: view.pane(sid).levels() for sid in view.pane_ids()}
    assert after == before  # every pane kept its scale
    assert view.pane(Q).scale_outside() == (0, 1)

    again = make_window()  # the next start: the choice is remembered
    assert _view_menu_entry(again, "Lock all colour scales").isChecked() and again.view.lock_all()
    assert again.view.locked_scale(Q) is not None

    entry.trigger()  # off again: every pane fits its numbers
    assert not view.lock_all() and not settings.lock_all_scales()
    assert view.pane(Q).levels() == (0.0, 5.0)


def test_a_locked_scale_holds_on_the_slides_too(window, qtbot):
    view = window.view
    _type_into_q(window, 0, 1, "5")
    view.lock_scale(Q)
    assert view.locked_scale(Q) == ColourScale("positive", (0.0, 5.0))
    _type_into_q(window, 0, 1, "1")  # a fitted scale would be back at (0, 2)
    slides = window.presentation.view
    window.presentation.enter()
    slides.go_to(slides.lesson_ids().index(Q))
    assert slides.output_pane().levels() == (0.0, 5.0) and slides.output_pane().scale_locked()
    # unlocking from the slide's own button unlocks the window's pane too
    qtbot.mouseClick(slides.output_pane().scale_lock.button, Qt.MouseButton.LeftButton)
    assert view.locked_scale(Q) is None
    assert slides.output_pane().levels() == (0.0, 2.0) and view.pane(Q).levels() == (0.0, 2.0)
    slides.leave()


def test_the_weights_pane_menu_offers_the_lock_beside_show_as_lines(window, qtbot):
    view = window.view
    pane = view.pane("attention_weights")
    entries = [a.text().replace("&", "") for a in pane.context_menu().actions()]
    assert entries[0] == "Lock colour scale" and "Show as lines" in entries
    _right_click(qtbot, pane, "Lock colour scale")
    qtbot.waitUntil(lambda: view.locked_scale("attention_weights") is not None, timeout=3000)
    assert view.locked_scale("attention_weights") == ColourScale("weights", (0.0, 1.0))
