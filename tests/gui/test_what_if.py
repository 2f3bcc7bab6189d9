"""View ▸ What if sliders: dragging the scale or the selected cell recomputes every frame and is one undo step.

A drag is what a person does: press the knob, move it, release it (QSlider's sliderPressed,
valueChanged per move, sliderReleased); once with the mouse itself.  The weights the window shows
after each frame are checked against a softmax written out here over the toy scenario (identity
projections: the scores are the head's slices of q.k times the scale)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from gui_helpers import toy
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QSlider, QStyle, QStyleOptionSlider

from app.viewmodel.what_if import MIDDLE, STEPS

pytestmark = pytest.mark.gui


def hand_weights(sc) -> np.ndarray:
    """(H, L, S) softmax(scale * q_h . k_h) of batch item 0, by hand."""
    H, d = sc.n_heads, sc.d_model // sc.n_heads
    scale = sc.scale if sc.scale is not None else 1 / math.sqrt(d)
    q, k = sc.queries[0], sc.keys[0]
    out = np.zeros((H, sc.L, sc.S))
    for h in range(H):
        for r in range(sc.L):
            row = [scale * sum(q[r, h * d + i] * k[c, h * d + i] for i in range(d)) for c in range(sc.S)]
            e = [math.exp(s - max(row)) for s in row]
            out[h, r] = [x / sum(e) for x in e]
    return out


def shown_weights(window) -> np.ndarray:
    return window.last_trace.array("attention_weights")[0]


def open_panel(window, qtbot):
    with qtbot.waitExposed(window):
        window.show()
    window.what_if.action.trigger()
    assert window.what_if.panel.isVisible()
    return window.what_if.panel


def drag(slider: QSlider, positions, qtbot, each_frame=None) -> None:
    """Press, move through `positions` one frame apart, release."""
    slider.setSliderDown(True)  # emits sliderPressed
    for p in positions:
        slider.setValue(p)
        qtbot.wait(20)  # a frame: the recompute runs
        if each_frame is not None:
            each_frame(p)
    slider.setSliderDown(False)  # emits sliderReleased


def test_reached_from_the_view_menu(make_window, qtbot):
    window = make_window(scenario=toy())
    action = window.what_if.action
    assert action in window.view_menu.actions()
    with qtbot.waitExposed(window):
        window.show()
    window.view_menu.popup(window.mapToGlobal(QPoint(0, 0)))
    window.view_menu.setActiveAction(action)
    QTest.keyClick(window.view_menu, Qt.Key.Key_Return)
    assert window.what_if.panel.isVisible()


def test_dragging_the_scale_recomputes_every_frame_and_undoes_as_one_step(make_window, qtbot):
    window = make_window(scenario=toy())
    panel = open_panel(window, qtbot)
    slider = panel.scale_slider
    doc = window.document
    assert doc.scenario.scale is None and slider.value() == MIDDLE  # auto: 1/sqrt(2), the middle
    start = shown_weights(window).copy()
    steps_before = doc.undo_stack.count()
    ready = []
    window.recompute.ready.connect(lambda trace, sc, s: ready.append(sc.scale))
    frames = []

    def check(pos):
        window.recompute.wait_idle()
        sc = doc.scenario
        assert sc.scale == pytest.approx(panel._scale_range.value(pos))
        np.testing.assert_allclose(shown_weights(window), hand_weights(sc), rtol=1e-12, atol=1e-15)
        frames.append(sc.scale)

    drag(slider, [600, 700, 850, STEPS], qtbot, check)
    assert len(set(frames)) == 4 and frames == sorted(frames)  # sharper and sharper
    assert ready[-4:] == frames  # one engine run per frame, live
    # sharper: each query's largest weight grew
    assert (shown_weights(window).max(axis=-1) >= start.max(axis=-1) - 1e-12).all()
    assert doc.undo_stack.count() == steps_before + 1  # the whole drag, one step
    assert "scale" in doc.undo_stack.undoText().lower()
    doc.undo_stack.undo()
    window.recompute.wait_idle()
    assert doc.scenario.scale is None  # back to auto, as before the drag
    np.testing.assert_array_equal(shown_weights(window), start)
    assert slider.value() == MIDDLE and window.params.scale_auto.isChecked()
    doc.undo_stack.redo()
    window.recompute.wait_idle()
    assert doc.scenario.scale == frames[-1]


def test_two_drags_are_two_steps_and_a_drag_back_to_the_start_is_none(make_window, qtbot):
    window = make_window(scenario=toy())
    panel = open_panel(window, qtbot)
    stack = window.document.undo_stack
    n = stack.count()
    drag(panel.scale_slider, [400, 300], qtbot)
    drag(panel.scale_slider, [250, 200], qtbot)
    assert stack.count() == n + 2
    first_end = panel._scale_range.value(300)
    stack.undo()
    window.recompute.wait_idle()
    assert window.document.scenario.scale == pytest.approx(first_end)
    stack.undo()
    window.recompute.wait_idle()
    assert window.document.scenario.scale is None
    stack.redo()
    stack.redo()
    window.recompute.wait_idle()
    # there and back: nothing to undo
    n = stack.count()
    pos = panel.scale_slider.value()
    drag(panel.scale_slider, [pos + 100, pos + 200, pos], qtbot)
    assert stack.count() == n


def test_flatten_by_dragging_left_to_the_end(make_window, qtbot):
    window = make_window(scenario=toy())
    panel = open_panel(window, qtbot)
    drag(panel.scale_slider, [300, 100, 0], qtbot)
    window.recompute.wait_idle()
    sc = window.document.scenario
    assert sc.scale == pytest.approx(1 / math.sqrt(2) / 8, rel=1e-3)
    w = shown_weights(window)
    np.testing.assert_allclose(w, hand_weights(sc), rtol=1e-12)
    assert (w.max(axis=-1) - w.min(axis=-1) < 0.6).all()  # flatter
    # the drag ran to the end: the range re-centred there, so the next drag goes further
    assert panel.scale_slider.value() == MIDDLE and panel._scale_range.centre == sc.scale


def test_a_mouse_drag_on_the_scale_knob(make_window, qtbot):
    window = make_window(scenario=toy())
    panel = open_panel(window, qtbot)
    panel.setFloating(True)  # inside the offscreen test screen, where the mouse reaches it
    panel.setGeometry(20, 20, 500, 300)
    slider = panel.scale_slider
    qtbot.waitUntil(lambda: slider.width() > 150)
    opt = QStyleOptionSlider()
    slider.initStyleOption(opt)
    handle = slider.style().subControlRect(QStyle.ComplexControl.CC_Slider, opt, QStyle.SubControl.SC_SliderHandle,
                                           slider).center()
    stack = window.document.undo_stack
    n = stack.count()
    scales = []
    QTest.mousePress(slider, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, handle)
    for dx in (10, 25, 40, 60):
        QTest.mouseMove(slider, handle + QPoint(dx, 0))
        qtbot.wait(20)
        window.recompute.wait_idle()
        scales.append(window.document.scenario.scale)
    QTest.mouseRelease(slider, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, handle + QPoint(60, 0))
    window.recompute.wait_idle()
    assert None not in scales and scales == sorted(scales) and len(set(scales)) == 4
    np.testing.assert_allclose(shown_weights(window), hand_weights(window.document.scenario), rtol=1e-12)
    assert stack.count() == n + 1
    stack.undo()
    assert window.document.scenario.scale is None


def test_dragging_the_selected_cell(make_window, qtbot):
    window = make_window(scenario=toy())
    panel = open_panel(window, qtbot)
    assert not panel.cell_slider.isEnabled()  # no cell chosen yet: it says how to choose one
    editor = window.inputs.editors["keys"]
    rect = editor.table.visualRect(editor.model.index(2, 1))
    qtbot.mouseClick(editor.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    # row 3, column 2 as a person counts (the code's [2, 1])
    assert panel.cell_slider.isEnabled() and "X_k (3, 2)" in panel.cell_title.text()
    doc = window.document
    start_value = float(doc.scenario.keys[0, 2, 1])
    start = shown_weights(window).copy()
    n = doc.undo_stack.count()
    seen = []

    def check(pos):
        window.recompute.wait_idle()
        sc = doc.scenario
        assert sc.keys[0, 2, 1] == pytest.approx(panel._cell_range.value(pos))
        np.testing.assert_allclose(shown_weights(window), hand_weights(sc), rtol=1e-12, atol=1e-15)
        seen.append(float(sc.keys[0, 2, 1]))

    drag(panel.cell_slider, [550, 650, 800], qtbot, check)
    assert len(set(seen)) == 3
    assert doc.undo_stack.count() == n + 1
    assert editor.model.matrix()[2, 1] == seen[-1]  # the editor shows the new value too
    doc.undo_stack.undo()
    window.recompute.wait_idle()
    assert doc.scenario.keys[0, 2, 1] == start_value
    np.testing.assert_array_equal(shown_weights(window), start)
    # a key press on the slider: one step of its own
    panel.cell_slider.setFocus()
    QTest.keyClick(panel.cell_slider, Qt.Key.Key_Right)
    assert doc.undo_stack.count() == n + 1 and doc.scenario.keys[0, 2, 1] != start_value


def test_the_cell_slider_forgets_a_cell_of_another_document(make_window, qtbot):
    window = make_window(scenario=toy())
    panel = open_panel(window, qtbot)
    panel.select_cell("queries", 0, 0)
    assert panel.cell_slider.isEnabled()
    window.new_file()
    assert not panel.cell_slider.isEnabled()


def test_numbers_read_as_the_cells_write_them(make_window, qtbot):
    """-1e6 reads -1e6 (was -1e+06); the range around it is centre -+ 2|centre|, worked here."""
    window = make_window(scenario=toy())
    panel = open_panel(window, qtbot)
    panel.select_cell("queries", 0, 0)
    ref = window.inputs.editors["queries"].model.ref
    window.document.drag_cell(object(), ref, 0, 0, -1e6, "set")
    window.recompute.wait_idle()
    panel.sync()
    assert panel.cell_value.text() == "value = -1e6   (slider from -3e6 to 1e6)"
    assert panel.cell_title.text() == "Cell X_q (1, 1)"
    window.document.drag_option(object(), "scale", 2.5e-5, "set")
    panel.sync()
    # the toy's default scale is 1/sqrt(d_head); the ratio 2.5e-5 / default with 3 digits
    default = 1 / math.sqrt(window.document.scenario.d_model // window.document.scenario.n_heads)
    ratio = f"{2.5e-5 / default:.2e}".replace("e-0", "e-").replace("0e", "e").replace(".0e", "e")
    assert panel.scale_value.text().startswith("scale = 2.5e-5, ")
    assert "e+" not in panel.scale_value.text() and "e-0" not in panel.scale_value.text(), panel.scale_value.text()
    assert ratio in panel.scale_value.text(), (ratio, panel.scale_value.text())
    window.set_language("zh")
    assert panel.cell_value.text() == "值 = -1e6   （滑块范围 -3e6 到 1e6）"


def test_words_in_chinese(make_window, qtbot):
    window = make_window(scenario=toy())
    panel = open_panel(window, qtbot)
    window.set_language("zh")
    assert panel.windowTitle() == window.what_if.action.text() != "What if sliders"
    assert "缩放" in panel.scale_value.text() and "缩放" in panel.scale_title.text()
    drag(panel.scale_slider, [700], qtbot)
    assert "缩放" in window.undo_action.text()


def test_drag_steps_merge_only_within_one_drag(qtbot):
    """The undo commands themselves: frames of one session merge; another session, a typed cell or
    a scale typed in the Parameters panel right after a drag never merge into it."""
    from app.pipeline.document import Document
    from app.viewmodel.matrix_ref import MatrixRef

    doc = Document(toy())
    ref = MatrixRef("queries", 0)
    first, second = object(), object()
    for v in (1.5, 2.0, 2.5):
        doc.drag_cell(first, ref, 0, 1, v, "drag")
    assert doc.undo_stack.count() == 1 and doc.scenario.queries[0, 0, 1] == 2.5
    doc.drag_cell(second, ref, 0, 1, 3.0, "drag")
    assert doc.undo_stack.count() == 2
    doc.set_cell(ref, 0, 1, 4.0)  # typed into the same cell: a step of its own
    assert doc.undo_stack.count() == 3
    doc.drag_option(first, "scale", 0.5, "drag scale")
    doc.drag_option(first, "scale", 0.25, "drag scale")
    doc.set_option("scale", 0.3, "Change scale")
    assert doc.undo_stack.count() == 5
    for want_scale, want_cell in ((0.25, 4.0), (None, 4.0), (None, 3.0), (None, 2.5), (None, 0.0)):
        doc.undo_stack.undo()
        assert doc.scenario.scale == want_scale and doc.scenario.queries[0, 0, 1] == want_cell
    # a drag that ends where it began leaves nothing to undo
    doc.drag_option(second, "scale", 2.0, "drag scale")
    doc.drag_option(second, "scale", None, "drag scale")
    assert not doc.undo_stack.canUndo() and doc.scenario.scale is None



def test_a_slow_engine_still_shows_frames_while_dragging(make_window, qtbot, monkeypatch):
    """An engine slower than the mouse (a big scenario on the worker thread; here the toy on the
    worker with 100 ms added to each run): results keep reaching the screen during the drag,
    the knob's last position is applied at release, and the drag is still one undo step."""
    import time

    from app.pipeline import recompute

    window = make_window(scenario=toy())
    panel = open_panel(window, qtbot)
    real = recompute.compute

    def slow(sc):
        time.sleep(0.1)
        return real(sc)

    monkeypatch.setattr(recompute, "compute", slow)
    window.recompute.background_threshold = -1  # every scenario on the worker thread
    shown = []
    window.recompute.ready.connect(lambda trace, sc, s: shown.append(sc.scale))
    stack = window.document.undo_stack
    n = stack.count()
    slider = panel.scale_slider
    slider.setSliderDown(True)
    for pos in range(510, 810, 10):  # 30 moves, one every 20 ms
        slider.setValue(pos)
        qtbot.wait(20)
    during = list(shown)
    slider.setSliderDown(False)
    assert window.recompute.wait_idle()
    assert len(set(during)) >= 3  # live: without waiting for the engine, no result would arrive mid-drag
    sc = window.document.scenario
    assert sc.scale == panel._scale_range.value(800) and shown[-1] == sc.scale
    np.testing.assert_allclose(shown_weights(window), hand_weights(sc), rtol=1e-12, atol=1e-15)
    assert stack.count() == n + 1
    stack.undo()
    assert window.document.scenario.scale is None


def test_the_dock_opens_narrow_enough_to_leave_the_steps_their_room(make_window, qtbot):
    """At 1280 x 720 the dock took 276 px and left the Steps 360 (the weights' colour bar numbers
    went under the edge); it now asks for its slider and wrapped words only."""
    from app.teaching.what_if import DOCK_WIDTH

    window = make_window(scenario=toy())
    panel = open_panel(window, qtbot)
    assert panel.widget().sizeHint().width() <= DOCK_WIDTH
    assert panel.scale_slider.minimumWidth() <= DOCK_WIDTH - 20
