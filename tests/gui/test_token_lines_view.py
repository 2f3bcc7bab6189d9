"""View ▸ Token lines: the weights step as lines between query and key tokens (BertViz's head view),
reached from the View menu and its shortcut, following edits, heads, hover, masks and the quiz.

The expected weights are a softmax written out here over the toy scenario's scores (identity
projections: the scores are the head's slices of q.k times the scale)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from gui_helpers import TOKENS, toy
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt, QTimer
from PySide6.QtGui import QContextMenuEvent, QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from app.viewmodel import token_lines as tl

pytestmark = pytest.mark.gui


def hand_weights(sc, causal: bool = False) -> np.ndarray:
    """(H, L, S) softmax(scale * q_h . k_h) of batch item 0, by hand; causal: key s > query l masked."""
    H, d = sc.n_heads, sc.d_model // sc.n_heads
    scale = sc.scale if sc.scale is not None else 1 / math.sqrt(d)
    q, k = sc.queries[0], sc.keys[0]
    out = np.zeros((H, sc.L, sc.S))
    for h in range(H):
        for r in range(sc.L):
            row = [scale * sum(q[r, h * d + i] * k[c, h * d + i] for i in range(d)) for c in range(sc.S)]
            if causal:
                row = [s if c <= r else sc.fill_value for c, s in enumerate(row)]
            top = max(row)
            e = [math.exp(s - top) for s in row]
            out[h, r] = [x / sum(e) for x in e]
    return out


def move_mouse(widget, pos: QPointF) -> None:
    """The move event the mouse makes over `widget` at `pos` (QTest.mouseMove does not reach a
    dock that lies past the edge of the offscreen test screen)."""
    event = QMouseEvent(QEvent.Type.MouseMove, pos, widget.mapToGlobal(pos), Qt.MouseButton.NoButton,
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(widget, event)


def open_lines(window, qtbot):
    with qtbot.waitExposed(window):
        window.show()
    window.token_lines.action.trigger()
    assert window.token_lines.panel.isVisible()
    return window.token_lines.panel


def line_weights(panel) -> dict:
    return {(ln.head, ln.query, ln.key): ln.weight for ln in panel.canvas.model.lines}


def test_reached_from_the_view_menu_and_its_shortcut(make_window, qtbot):
    window = make_window(scenario=toy())
    action = window.token_lines.action
    assert action in window.view_menu.actions()
    with qtbot.waitActive(window):
        window.show()
        window.activateWindow()
    window.view_menu.popup(window.mapToGlobal(QPoint(0, 0)))
    window.view_menu.setActiveAction(action)
    QTest.keyClick(window.view_menu, Qt.Key.Key_Return)
    assert window.token_lines.panel.isVisible()
    window.inputs.editors["queries"].table.setFocus()
    qtbot.keyClick(window.inputs.editors["queries"].table, Qt.Key.Key_L,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert not window.token_lines.panel.isVisible()


def test_reached_from_the_weights_panes_context_menu(make_window, qtbot):
    window = make_window(scenario=toy())
    with qtbot.waitExposed(window):
        window.show()
    window.view.set_focus_head(1)
    pane = window.view.pane("attention_weights")
    viewport = pane.canvas.viewport()
    pos = QPoint(viewport.width() // 2, viewport.height() // 2)
    seen = []

    def choose():  # the menu the right click opened: pick "Show as lines" as a person would
        menu = QApplication.activePopupWidget()
        seen.append([a.text() for a in menu.actions()])
        menu.setActiveAction(window.token_lines.show_action)
        QTest.keyClick(menu, Qt.Key.Key_Return)

    QTimer.singleShot(50, choose)
    QApplication.sendEvent(viewport, QContextMenuEvent(QContextMenuEvent.Reason.Mouse, pos, viewport.mapToGlobal(pos)))
    qtbot.waitUntil(lambda: bool(seen))
    assert "Show as lines" in seen[0]
    panel = window.token_lines.panel
    assert panel.isVisible() and panel.canvas.head == 1  # the head the Steps region shows
    assert {ln.head for ln in panel.canvas.model.lines} == {1}


def test_lines_are_the_traces_weights_and_follow_an_edit(make_window, qtbot):
    window = make_window(scenario=toy())
    panel = open_lines(window, qtbot)
    sc = window.document.scenario
    want = hand_weights(sc)
    got = line_weights(panel)
    assert set(got) == {(h, r, c) for h in range(2) for r in range(4) for c in range(4)}
    for (h, r, c), w in got.items():
        assert w == pytest.approx(want[h, r, c], rel=1e-12)
    assert panel.canvas.model.query_labels == TOKENS and panel.canvas.model.key_labels == TOKENS
    # an edit: the lines follow the new trace
    window.document.set_cell(window.inputs.editors["keys"].model.ref, 1, 0, 5.0)
    window.recompute.wait_idle()
    want = hand_weights(window.document.scenario)
    for (h, r, c), w in line_weights(panel).items():
        assert w == pytest.approx(want[h, r, c], rel=1e-12)


def test_lines_show_the_batch_item_on_screen(make_window, qtbot):
    base = toy()
    q2 = np.concatenate([base.queries, base.queries[:, ::-1] * 2.0])  # item 1: other numbers
    sc = toy(queries=q2, keys=q2.copy(), values=np.concatenate([base.values, base.values]))
    window = make_window(scenario=sc)
    panel = open_lines(window, qtbot)
    window.inputs.batch.setValue(1)  # the Inputs region's batch box, as a person sets it
    window.recompute.wait_idle()
    from attention import Scenario

    item1 = Scenario(queries=q2[1:], keys=q2[1:].copy(), values=sc.values[1:], n_heads=2)
    want = hand_weights(item1)
    got = line_weights(panel)
    assert len(got) == 32
    for (h, r, c), w in got.items():
        assert w == pytest.approx(want[h, r, c], rel=1e-12)
    assert not np.allclose(want, hand_weights(sc))  # item 0 would differ


def test_head_box_shows_one_head_or_all(make_window, qtbot):
    window = make_window(scenario=toy())
    panel = open_lines(window, qtbot)
    box = panel.head_box
    assert [box.itemData(i) for i in range(box.count())] == [-1, 0, 1]
    box.setCurrentIndex(2)
    box.activated.emit(2)  # what choosing an item with the mouse emits
    assert {ln.head for ln in panel.canvas.model.lines} == {1}
    assert {ln.color for ln in panel.canvas.model.lines} == {tl.HEAD_COLORS[1]}
    legend = panel.legend.text().replace("&nbsp;", " ")
    assert "Head 2" in legend and "Head 1" not in legend and tl.HEAD_COLORS[1] in legend
    box.setCurrentIndex(0)
    box.activated.emit(0)
    assert {ln.head for ln in panel.canvas.model.lines} == {0, 1}
    window.view.set_focus_head(0)  # the Steps region's own head box
    window.view.focusHeadChanged.emit(0)
    assert {ln.head for ln in panel.canvas.model.lines} == {0} and box.currentData() == 0
    box.setCurrentIndex(2)
    box.activated.emit(2)
    window.document.set_option("n_heads", 1, "heads")  # head 2 is gone: every head (the one) again
    window.recompute.wait_idle()
    assert box.count() == 2 and box.currentData() == -1 and {ln.head for ln in panel.canvas.model.lines} == {0}
    assert panel.legend.text() == ""  # one head: no legend to read


def test_hovering_a_token_isolates_its_lines(make_window, qtbot):
    window = make_window(scenario=toy())
    panel = open_lines(window, qtbot)
    canvas = panel.canvas
    qtbot.waitUntil(lambda: canvas.height() > 100)
    move_mouse(canvas, canvas.token_pos("query", 2))
    assert canvas.hover == ("query", 2)
    assert {(ln.query) for ln in canvas.model.lines} == {2} and len(canvas.model.lines) == 2 * 4
    assert "t3" in panel.caption.text()
    move_mouse(canvas, canvas.token_pos("key", 0))
    assert canvas.hover == ("key", 0)
    assert {(ln.key) for ln in canvas.model.lines} == {0} and len(canvas.model.lines) == 2 * 4
    move_mouse(canvas, QPointF(canvas.width() / 2, canvas.height() / 2))  # between the columns: every line
    assert canvas.hover is None and len(canvas.model.lines) == 2 * 4 * 4
    move_mouse(canvas, canvas.token_pos("query", 1))
    QApplication.sendEvent(canvas, QEvent(QEvent.Type.Leave))  # the mouse leaves the view: every line again
    assert canvas.hover is None and len(canvas.model.lines) == 2 * 4 * 4


def test_masked_pairs_have_no_line_and_the_note_says_so(make_window, qtbot):
    window = make_window(scenario=toy(causal=True))
    panel = open_lines(window, qtbot)
    want = hand_weights(window.document.scenario, causal=True)
    got = line_weights(panel)
    assert set(got) == {(h, r, c) for h in range(2) for r in range(4) for c in range(4) if c <= r}
    for (h, r, c), w in got.items():
        assert w == pytest.approx(want[h, r, c], rel=1e-12)
    assert panel.note.isVisible() and "Masked" in panel.note.text()


#: the hue (degrees) each head's lines must have: Matplotlib's tab10 palette, as BertViz colours
#: heads (head 1 blue #1f77b4, head 2 orange #ff7f0e), written here from the palette's definition
WANT_HUES = {0: 205.0, 1: 30.0}


def line_hues(canvas) -> list[float]:
    """The hue of every coloured pixel between the two token columns (the lines, no labels)."""
    image = canvas.grab().toImage()
    g = canvas.geometry_now()
    hues = []
    for x in range(int(g["x_query"]) + 2, int(g["x_key"]) - 2, 2):
        for y in range(0, image.height(), 2):
            c = image.pixelColor(x, y)
            if c.hsvSaturationF() > 0.15:
                hues.append(c.hsvHueF() * 360)
    return hues


def test_painted_with_each_heads_colour(make_window, qtbot):
    """Each head alone: every coloured pixel of its lines has that head's hue (a line blended
    over white keeps its hue), so one colour for every head fails here."""
    window = make_window(scenario=toy())
    panel = open_lines(window, qtbot)
    qtbot.waitUntil(lambda: panel.canvas.height() > 100)
    for h, want in WANT_HUES.items():
        panel.set_head(h)
        hues = line_hues(panel.canvas)
        assert len(hues) > 50, f"head {h + 1}: no lines drawn"
        near = [x for x in hues if min(abs(x - want), 360 - abs(x - want)) < 12]
        assert len(near) > 0.95 * len(hues), f"head {h + 1}: lines not in its colour"
    panel.set_head(-1)  # every head: both colours on the canvas
    hues = line_hues(panel.canvas)
    for want in WANT_HUES.values():
        assert sum(min(abs(x - want), 360 - abs(x - want)) < 12 for x in hues) > 20


def test_the_quiz_hides_the_lines_too(make_window, qtbot):
    window = make_window(scenario=toy())
    panel = open_lines(window, qtbot)
    window.cell_tools.quiz.hide_step("attention_weights")
    window.recompute.wait_idle()
    window.token_lines.refresh()
    assert panel.canvas.model is None and "quiz" in panel.caption.text()
    window.cell_tools.quiz.hide_step(None)
    window.token_lines.refresh()
    assert panel.canvas.model is not None and len(panel.canvas.model.lines) == 32


def test_stale_result_is_said(make_window, qtbot):
    window = make_window(scenario=toy())
    panel = open_lines(window, qtbot)
    window.document.set_option("n_heads", 3, "heads")  # 4 features do not split into 3 heads
    window.recompute.wait_idle()
    assert panel.note.isVisible() and "last good" in panel.note.text()
    window.document.undo_stack.undo()
    window.recompute.wait_idle()
    assert not panel.note.isVisible()


def test_words_in_chinese(make_window, qtbot):
    window = make_window(scenario=toy())
    panel = open_lines(window, qtbot)
    window.set_language("zh")
    assert panel.windowTitle() != "Token lines" and window.token_lines.action.text() == panel.windowTitle()
    assert not any(c.isascii() and c.isalpha() for c in panel.caption.text())
    assert panel.head_box.itemText(1) == "头 1"


def test_a_paint_that_raises_draws_nothing_and_is_reported(make_window, qtbot, monkeypatch):
    """PySide6 would take the process down if the canvas' paintEvent raised (app.panes.paint_guard)."""
    import sys

    window = make_window(scenario=toy())
    with qtbot.waitExposed(window):
        window.show()
    window.token_lines.action.trigger()
    canvas = window.token_lines.panel.canvas

    class PaintBroke(RuntimeError):
        pass

    def broken(painter):
        raise PaintBroke("a bad number")

    qtbot.waitUntil(lambda: canvas.height() > 100)
    before = canvas.grab().toImage()
    assert any(before.pixelColor(x, y).name() != "#ffffff"
               for x in range(0, before.width(), 3) for y in range(0, before.height(), 3))  # lines and labels
    reported = []
    monkeypatch.setattr(sys, "excepthook", lambda *info: reported.append(info[0]))
    monkeypatch.setattr(canvas, "_paint", broken)
    after = canvas.grab().toImage()  # paints with the broken _paint
    qtbot.waitUntil(lambda: PaintBroke in reported)
    assert window.isVisible()
    assert {after.pixelColor(x, y).name() for x in range(after.width()) for y in range(after.height())} \
        == {"#ffffff"}, "a paint that raised drew something"


def test_a_sink_thins_the_lines_and_the_note_says_so(make_window, qtbot):
    """Under attention sinks a query's lines sum to less than 1 (the weights as they are); the note says why."""
    import dataclasses

    from attention.datamodel.parts import Part

    sc = dataclasses.replace(toy(), modifiers=(Part("sinks", {"logits": [1.0, -1.0]}),))
    window = make_window(scenario=sc)
    panel = open_lines(window, qtbot)
    got = line_weights(panel)
    rows = {(h, r): sum(w for (hh, rr, _), w in got.items() if (hh, rr) == (h, r)) for h in range(2) for r in range(4)}
    assert all(total < 1 for total in rows.values())
    assert panel.note.isVisible() and "sink" in panel.note.text()
