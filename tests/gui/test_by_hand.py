"""The by-hand layout on screen: the cells' geometry keeps each score where its row of Q and its
column of Kᵀ cross, the numbers are the engine's, View ▸ By-hand layout (menu click and
Ctrl+Shift+B) shows it in the Steps region and follows edits, and B lays the slides out so."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication, QMenu

import attention
from app.panes.by_hand_view import MIN_FONT_PX, ByHandView
from app.viewmodel import by_hand, cell_format
from attention import Scenario


def scenario(L=3, S=4, d=4, H=2, **more) -> Scenario:
    rng = np.random.default_rng(7)
    return Scenario(rng.normal(size=(1, L, d)), rng.normal(size=(1, S, d)), rng.normal(size=(1, S, d)), n_heads=H,
                    query_tokens=tuple(f"q{i}" for i in range(L)), key_tokens=tuple(f"k{j}" for j in range(S)),
                    **more)


def scene_rect(item):
    return item.mapRectToScene(item.rect())


def assert_cells_cross(view: ByHandView) -> None:
    """From the items on screen: score (i, j) shares its top with Q's row i and its left with Kᵀ's
    column j; output (i, j) with the weights' row i and V's column j; every cell the same size."""
    sheet = view.plan
    for result, left, top in (("scores", "q", "kt"), ("output", "weights", "v")):
        res = sheet.block(result)
        for i, j in itertools.product(range(res.rows), range(res.cols)):
            cell = scene_rect(view.cells[(result, i, j)][0])
            for k in range(sheet.block(left).cols):
                row = scene_rect(view.cells[(left, i, k)][0])
                assert row.top() == cell.top() and row.bottom() == cell.bottom() and row.right() < cell.left()
            for k in range(sheet.block(top).rows):
                col = scene_rect(view.cells[(top, k, j)][0])
                assert col.left() == cell.left() and col.right() == cell.right() and col.bottom() < cell.top()


@pytest.mark.parametrize("arrangement", by_hand.ARRANGEMENTS)
@pytest.mark.parametrize("size", [(1280, 560), (620, 460)])
def test_the_cells_cross_and_show_the_traces_numbers(qtbot, arrangement, size):
    sc = scenario()
    trace = attention.run(sc)
    view = ByHandView()
    qtbot.addWidget(view)
    view.resize(*size)
    view.show()
    qtbot.waitExposed(view)
    view.arrangement = arrangement
    view.show_trace(trace, sc)
    view.set_head(1)
    assert view.plan.arrangement == arrangement and view.plan.head == 1
    assert_cells_cross(view)
    assert view.font_px >= MIN_FONT_PX
    want = {"q": trace.array("head_split.query")[0, :, 1, :], "kt": trace.array("head_split.key")[0, :, 1, :].T,
            "v": trace.array("head_split.value")[0, :, 1, :], "scores": trace.array("scores")[0, 1],
            "weights": trace.array("attention_weights")[0, 1], "output": trace.array("weighted_sum")[0, :, 1, :]}
    for key, values in want.items():
        for i, j in itertools.product(*map(range, values.shape)):
            rect, text = view.cells[(key, i, j)]
            assert text.text() == cell_format.compact(float(values[i, j]), view.digits), (key, i, j)
            assert text.font().pixelSize() == view.font_px
            assert rect.rect().contains(text.mapRectToScene(text.boundingRect()).center())
    # the scores on screen are scale · Q Kᵀ, worked here from the Q and Kᵀ on screen
    q = np.array([[float(view.cells[("q", i, k)][1].text()) for k in range(2)] for i in range(3)])
    kt = np.array([[float(view.cells[("kt", k, j)][1].text()) for j in range(4)] for k in range(2)])
    shown = np.array([[float(view.cells[("scores", i, j)][1].text()) for j in range(4)] for i in range(3)])
    np.testing.assert_allclose(shown, q @ kt / np.sqrt(2), atol=0.02)
    np.testing.assert_allclose(trace.array("scores")[0, 1], want["q"] @ want["kt"] / np.sqrt(2), atol=1e-12)
    # each row and column label sits level with its row or column
    for i in range(3):
        label = view.labels[("q", "left", i)]
        assert label.text() == f"q{i}"
        row = scene_rect(view.cells[("q", i, 0)][0])
        assert abs(label.mapRectToScene(label.boundingRect()).center().y() - row.center().y()) < 1
        assert label.mapRectToScene(label.boundingRect()).right() <= row.left()


def test_the_narrow_steps_region_stacks_and_hover_outlines_the_row_and_column(qtbot):
    sc = scenario(L=4, S=4)
    view = ByHandView()
    qtbot.addWidget(view)
    view.resize(620, 470)
    view.show()
    qtbot.waitExposed(view)
    view.show_trace(attention.run(sc), sc)
    qtbot.wait(60)
    qtbot.waitUntil(lambda: not view._relayout_timer.isActive())  # laid out again for its size
    assert view.plan.arrangement == "stacked"  # the wide sheet would need scrolling here
    item = view.cells[("scores", 2, 3)][0]
    point = view.canvas.mapFromScene(scene_rect(item).center())
    qtbot.mouseMove(view.canvas.viewport(), point)
    qtbot.waitUntil(lambda: len(view._highlight) == 3 and view._highlight[0].rect() == scene_rect(item))
    outlined = [h.rect() for h in view._highlight]
    q_row = scene_rect(view.cells[("q", 2, 0)][0]).united(scene_rect(view.cells[("q", 2, 1)][0]))
    kt_col = scene_rect(view.cells[("kt", 0, 3)][0]).united(scene_rect(view.cells[("kt", 1, 3)][0]))
    assert outlined[1] == q_row and outlined[2] == kt_col
    qtbot.mouseMove(view.canvas.viewport(), QPoint(2, 2))
    qtbot.waitUntil(lambda: not view._highlight)


def test_a_scenario_too_big_to_work_by_hand_says_so(qtbot):
    sc = scenario(L=by_hand.MAX_SIDE + 2, S=3)
    view = ByHandView()
    qtbot.addWidget(view)
    view.show_trace(attention.run(sc), sc)
    assert view.plan is None and not view.cells
    assert f"L = {by_hand.MAX_SIDE + 2}" in view.how.text()


def click_menu_item(qtbot, window, menu: QMenu, action) -> None:
    """Open `menu` from the menu bar with the mouse and click `action` in it."""
    bar = window.menuBar()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.actionGeometry(menu.menuAction()).center())
    qtbot.waitUntil(menu.isVisible)
    qtbot.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(action).center())


def test_view_menu_shows_it_in_the_steps_region_and_edits_redraw_it(qtbot, window):
    with qtbot.waitActive(window):
        window.show()
        window.activateWindow()
    feature = window.by_hand
    assert feature.action in window.view_menu.actions() and feature.action.text() == "By-hand layout"
    click_menu_item(qtbot, window, window.view_menu, feature.action)
    assert feature.is_shown() and feature.view.isVisible() and not window.view.scroll.isVisible()
    trace = window.last_trace
    assert np.array_equal(feature.view.plan.block("weights").values, trace.array("attention_weights")[0, 0])
    window.view.set_focus_head(1)  # the Steps' head, chosen before: the sheet follows
    window.view.focusHeadChanged.emit(1)
    assert feature.view.head() == 1
    # an edit (typed into the Inputs) recomputes, and the sheet shows the new numbers
    model = window.inputs.editors["queries"].model
    assert model.setData(model.index(0, 0), "3")
    window.recompute.wait_idle()
    qtbot.waitUntil(lambda: window.last_trace is not trace)
    fresh = attention.run(window.document.scenario)
    assert np.array_equal(feature.view.plan.block("scores").values, fresh.array("scores")[0, 1])
    assert np.array_equal(feature.view.plan.block("q").values, fresh.array("head_split.query")[0, :, 1, :])
    assert_cells_cross(feature.view)
    # Ctrl+Shift+B gives the panes back, and again shows the sheet
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    qtbot.keyClick(window, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert not feature.is_shown() and window.view.scroll.isVisible() and not feature.view.isVisible()
    qtbot.keyClick(window, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert feature.is_shown() and feature.view.isVisible()
    window.set_language("zh")
    assert feature.action.text() == "手算布局" and feature.view.plan.block("kt").title == "Kᵀ，头 2"
    window.set_language("en")


def test_b_lays_the_slides_out_by_hand(qtbot, window, presentation):
    view = presentation(window)
    slide = window.presentation.by_hand
    qtbot.keyClick(view, Qt.Key.Key_B)
    assert slide.on and slide.button.isChecked() and slide.sheet.isVisible()
    assert not view.body_scroll.isVisible()  # the canvas (the panes) gives way to the sheet
    while view.current_step() != "scores":
        qtbot.keyClick(view, Qt.Key.Key_Right)
    assert slide.sheet.emphasis() == ("scores",)
    qtbot.keyClick(view, Qt.Key.Key_2)  # head 2, as on every slide
    assert slide.sheet.head() == 1
    trace = window.last_trace
    assert np.array_equal(slide.sheet.plan.block("scores").values, trace.array("scores")[0, 1])
    qtbot.waitUntil(lambda: slide.sheet.canvas.viewport().height() > 200)
    slide.sheet._draw()
    assert slide.sheet.font_px >= MIN_FONT_PX
    assert_cells_cross(slide.sheet)
    qtbot.keyClick(view, Qt.Key.Key_Right)
    qtbot.keyClick(view, Qt.Key.Key_Right)
    assert view.current_step() == "attention_weights" and slide.sheet.emphasis() == ("weights",)
    # Ctrl + makes the numbers larger (the sheet scrolls if it must); Ctrl − never below 14 px
    before = slide.sheet.font_px
    for _ in range(3):
        qtbot.keyClick(view, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    assert view.zoom() > 1.25 and slide.sheet.font_px > before
    for _ in range(12):
        qtbot.keyClick(view, Qt.Key.Key_Minus, Qt.KeyboardModifier.ControlModifier)
    assert view.zoom() < 1.0 and slide.sheet.font_px >= MIN_FONT_PX
    qtbot.keyClick(view, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    qtbot.mouseClick(slide.button, Qt.MouseButton.LeftButton)  # the button gives the usual slide back
    assert not slide.on and not slide.sheet.isVisible() and view.body_scroll.isVisible()
    qtbot.keyClick(view, Qt.Key.Key_Escape)


def test_a_step_the_quiz_hides_stays_hidden_on_the_sheet_and_the_slide(qtbot, window):
    quiz = window.cell_tools.quiz
    window.by_hand.set_shown(True)
    quiz.hide_step("projection.query")  # Q per head is the projection cut by head: it would tell
    for sheet in (window.by_hand.view, window.presentation.by_hand.sheet):
        assert sheet.hidden_blocks() == {"q"}
    sheet = window.by_hand.view
    texts = [text.text() for (key, _, _), (_, text) in sheet.cells.items() if key == "q"]
    assert texts and set(texts) == {"?"}
    colours = {rect.brush().color().name() for (key, _, _), (rect, _) in sheet.cells.items() if key == "q"}
    assert len(colours) == 1  # no colour gives a number away
    assert any(t.text() != "?" for (key, _, _), (_, t) in sheet.cells.items() if key == "scores")
    quiz.hide_step("attention_weights")
    assert sheet.hidden_blocks() == {"weights"}
    quiz.hide_step(None)
    assert not sheet.hidden_blocks() and "?" not in {t.text() for _, t in sheet.cells.values()}


def test_an_edit_that_cannot_run_leaves_the_last_good_sheet_faded_under_the_banner(qtbot, window):
    window.by_hand.set_shown(True)
    sheet = window.by_hand.view
    good = sheet.plan.block("scores").values.copy()
    window.params.controls["n_heads"].setValue(3)  # 3 heads do not divide d_model = 4
    window.recompute.wait_idle()
    qtbot.waitUntil(lambda: window.view._stale)
    assert window.view.banner.isVisibleTo(window) and sheet.isVisibleTo(window)
    assert not sheet.canvas.isEnabled() and np.array_equal(sheet.plan.block("scores").values, good)
    window.params.controls["n_heads"].setValue(4)
    window.recompute.wait_idle()
    qtbot.waitUntil(lambda: not window.view._stale)
    assert sheet.canvas.isEnabled() and sheet.plan.n_heads == 4
    assert np.array_equal(sheet.plan.block("weights").values, window.last_trace.array("attention_weights")[0, 0])


@pytest.mark.parametrize("size", [(1280, 720), (1366, 768)])
def test_the_windows_sheet_needs_no_sideways_scroll_on_a_laptop(qtbot, window, size):
    """At 1280 x 720 (82 px to scroll before) and 1366 x 768 (19 px) the toy's sheet fits across:
    fewer digits and tighter cells, never numbers under 14 px; scrolling down is allowed."""
    window.show()
    qtbot.waitExposed(window)
    qtbot.wait(200)  # the window's own first sizing (a share of the screen) is done
    window.by_hand.action.trigger()
    assert window.by_hand.is_shown()
    window.resize(*size)
    qtbot.waitUntil(lambda: window.size().toTuple() == size)
    view = window.by_hand.view
    qtbot.wait(300)  # the docks and the Steps region settle, then the sheet is laid out again
    qtbot.waitUntil(lambda: view.plan is not None and not view._relayout_timer.isActive())
    assert view.canvas.horizontalScrollBar().maximum() == 0, (size, view.scene.sceneRect().width(),
                                                              view.canvas.viewport().width())
    assert view.font_px >= MIN_FONT_PX and view.digits >= 2
    for rect, text in view.cells.values():
        assert text.font().pixelSize() >= MIN_FONT_PX
        box = text.mapRectToScene(text.boundingRect())
        assert box.width() <= rect.rect().width(), text.text()  # every number inside its cell
