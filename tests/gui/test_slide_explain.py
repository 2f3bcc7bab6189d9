"""Explain on the slide: in presentation mode a click on a cell of the result writes its arithmetic on
the slide (the explain engine's words) and outlines the cells it came from on the slide's input panes;
another cell replaces it, the same cell or Esc closes it (the next Esc leaves); a quiz's hidden numbers
never show.  Which cells are outlined is worked out here from the step's definition (q row and k row of
a score, weights row and V column of a weighted sum...), not read from the app."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from gui_helpers import enter_presentation
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication

from app.services import i18n
from attention.teaching.explain import explain

ROOT = Path(__file__).resolve().parents[2]
PRESETS = ROOT / "resources" / "scenarios"


def enter(qtbot, window):
    return enter_presentation(qtbot, window, (1280, 720))


def mouse_click(pane, m: int, r: int, c: int) -> None:
    """A real left click (press + release) through Qt and pyqtgraph's scene on cell (r, c) of matrix m."""
    vp = pane.canvas.viewport()
    target = QPointF(pane.canvas.mapFromScene(pane.cell_scene_pos(m, r, c)))
    glob = QPointF(vp.mapToGlobal(target.toPoint()))
    for kind, buttons in ((QEvent.Type.MouseButtonPress, Qt.MouseButton.LeftButton),
                          (QEvent.Type.MouseButtonRelease, Qt.MouseButton.NoButton)):
        ev = QMouseEvent(kind, target, glob, Qt.MouseButton.LeftButton, buttons, Qt.KeyboardModifier.NoModifier)
        QApplication.sendEvent(vp, ev)


def load(window, name: str) -> None:
    assert window.load_path(PRESETS / name)
    window.recompute.recompute_now()
    window.recompute.wait_idle()


def where(dims, index) -> tuple[int, int, int]:
    """(matrix, row, column) a pane draws index `index` of a tensor with `dims` at: heads are the
    matrices of a 4-d step, a (H, x) step has the heads as columns, a vector is one column."""
    pairs = [(d, i) for d, i in zip(dims, index) if d != "B"]
    if len(pairs) == 3:
        h = next(i for d, i in pairs if d == "H")
        rest = [i for d, i in pairs if d != "H"]
        return h, rest[0], rest[1]
    if len(pairs) == 2:
        return (0, pairs[1][1], pairs[0][1]) if pairs[0][0] == "H" else (0, pairs[0][1], pairs[1][1])
    return 0, pairs[0][1], 0


def expected_sources(sid: str, idx: tuple, trace) -> dict[str, set]:
    """The cells of the input panes a number of step `sid` comes from, from the step's definition."""
    H = int(trace.options["n_heads"])
    if sid.startswith("projection.") or sid == "output":
        which = "out" if sid == "output" else sid.split(".")[1]
        x = {"query": "queries", "key": "keys", "value": "values", "out": "concat"}[which]
        b, n, o = idx
        weight = f"projection.{which}.weight"
        d = (trace[x].shape if x in trace else trace.parameters[x].shape)[-1]
        if weight not in trace.parameters or trace.parameters[weight] is None:
            return {x: {(0, n, o)}}
        return {x: {(0, n, i) for i in range(d)}, weight: {(0, o, i) for i in range(d)}}
    if sid.startswith("head_split."):
        b, n, h, e = idx
        E = trace[sid].shape[-1]
        return {f"projection.{sid.split('.')[1]}": {(0, n, h * E + e)}}
    if sid == "scores":
        b, h, l, s = idx
        dq, dk = trace["head_split.query"].shape[-1], trace["head_split.key"].shape[-1]  # additive: may differ
        return {"head_split.query": {(h, l, e) for e in range(dq)}, "head_split.key": {(h, s, e) for e in range(dk)}}
    if sid == "masked_scores":
        b, h, l, s = idx
        out = {"scores": {(h, l, s)}}
        if "extra.mask" in trace:
            out["extra.mask"] = {(0, l, s)}
        return out
    if sid == "attention_weights":
        b, h, l, s = idx
        return {"masked_scores": {(h, l, j) for j in range(trace[sid].shape[-1])}}
    if sid == "weighted_sum":
        b, l, h, d = idx
        S = trace["attention_weights"].shape[-1]
        return {"attention_weights": {(h, l, j) for j in range(S)}, "head_split.value": {(h, j, d) for j in range(S)}}
    if sid == "concat" and not trace.options.get("mix"):
        b, l, c = idx
        D = trace["weighted_sum"].shape[-1]
        return {"weighted_sum": {(c // D, l, c % D)}}
    assert H >= 1
    return None  # the extras: checked against the engine's own sources below


def box_font_sizes(se) -> list[int]:
    return [int(px) for px in re.findall(r"font-size:\s*(\d+)px", se.label.text())]


@pytest.fixture
def chinese():
    yield
    i18n.set_language("en")


def test_a_real_click_on_a_score_writes_its_arithmetic_and_outlines_q_and_k(qtbot, window):
    view = enter(qtbot, window)
    view.go_to(view.lesson_ids().index("scores"))
    qtbot.wait(20)
    se = view.slide_explain
    assert not se.box.isVisible() and view.explanation.isVisible()
    mouse_click(view.output_pane(), 1, 2, 3)  # head 2, query 2, key 3
    qtbot.waitUntil(se.is_open)
    trace = window.last_trace
    assert se.selection == ("scores", (0, 1, 2, 3))
    assert se.box.isVisible() and not view.explanation.isVisible()
    # the engine's words, line by line (the same explanation the window's Explain panel prints)
    expl = explain(trace, "scores", (0, 1, 2, 3))
    text = se.text()
    assert text.splitlines()[0] == expl.text("en").splitlines()[0]
    for t in expl.terms:
        assert t.text["en"] in text
    assert f"= {expl.combine['en']}" in text and expl.summary["en"] in text
    # independently: head 2 of query 2 is [0, 1] and of key 3 is [1, 0] in the toy (identity projections)
    q = np.asarray(window.document.scenario.queries[0])
    assert "q[0]·k[0] = 0 × 1 = 0" in text and (q[2, 2], q[3, 2]) == (0, 1)
    assert se.marks_on("head_split.query") == {(1, 2, 0), (1, 2, 1)}  # query 2's row in head 2
    assert se.marks_on("head_split.key") == {(1, 3, 0), (1, 3, 1)}  # key 3's row of K (a column of Kᵀ)
    assert se.marks_on("scores") == {(1, 2, 3)}
    assert set(view.input_panes()[0].heatmaps[1].overlay.marks("slide_explain_source")) == {(2, 0), (2, 1)}
    # large enough for the back row: no text on the box under 18 px at 1280 x 720
    assert min(box_font_sizes(se)) >= 18


def test_another_cell_replaces_it_the_same_cell_and_escape_close_it(qtbot, window):
    view = enter(qtbot, window)
    view.go_to(view.lesson_ids().index("weighted_sum"))
    qtbot.wait(20)
    se, out = view.slide_explain, view.output_pane()
    mouse_click(out, 0, 1, 1)
    qtbot.waitUntil(se.is_open)
    assert se.selection == ("weighted_sum", (0, 1, 0, 1))
    mouse_click(out, 1, 3, 0)  # another cell: replaces it
    assert se.selection == ("weighted_sum", (0, 3, 1, 0))
    trace = window.last_trace
    assert se.marks_on("attention_weights") == {(1, 3, j) for j in range(4)}  # query 3's weights in head 2
    assert se.marks_on("head_split.value") == {(1, j, 0) for j in range(4)}  # V's column 0 in head 2
    assert se.text().splitlines()[0] == explain(trace, "weighted_sum", (0, 3, 1, 0)).text("en").splitlines()[0]
    mouse_click(out, 1, 3, 0)  # the same cell again: closed
    assert not se.is_open() and not se.box.isVisible() and view.explanation.isVisible()
    assert se.marks_on("attention_weights") == set() and se.marks_on("weighted_sum") == set()
    mouse_click(out, 0, 0, 0)
    assert se.is_open()
    qtbot.keyClick(view, Qt.Key.Key_Escape)  # Esc closes the explanation, the slides stay
    assert not se.is_open() and view.isVisible()
    assert se.marks_on("head_split.value") == set()
    qtbot.keyClick(view, Qt.Key.Key_Escape)  # the next Esc leaves
    assert not view.isVisible()


def test_turning_the_slide_closes_it_and_an_edit_reexplains_the_cell(qtbot, window):
    view = enter(qtbot, window)
    view.go_to(view.lesson_ids().index("output"))
    se = view.slide_explain
    mouse_click(view.output_pane(), 0, 1, 2)
    qtbot.waitUntil(se.is_open)
    model = window.inputs.editors["values"].model
    assert model.setData(model.index(1, 0), "100")  # an edit in the window: the same cell, new numbers
    window.recompute.wait_idle()
    qtbot.waitUntil(lambda: window.last_trace is view._trace)
    assert se.is_open()
    assert se.text().splitlines()[0] == explain(view._trace, "output", (0, 1, 2)).text("en").splitlines()[0]
    qtbot.keyClick(view, Qt.Key.Key_Left)
    assert view.current_step() == "concat" and not se.is_open()
    assert se.marks_on("output") == set()


@pytest.mark.parametrize("preset", ["01_tsl_toy.json", "03b_d2l_masked_softmax_2d.json", "04_d2l_additive.json",
                                    "07_informer_probsparse.json"])
def test_every_slide_explains_its_cells_and_outlines_their_sources(qtbot, window, preset):
    load(window, preset)
    view = enter(qtbot, window)
    trace = window.last_trace
    se = view.slide_explain
    for i, sid in enumerate(view.lesson_ids()):
        view.go_to(i)
        out = view.output_pane()
        n, rows, cols = out.data.block.shape
        m, r, c = n - 1, rows - 1, cols - 1
        # cells too small for their numbers: a click shows the head alone, then its region (the numbers
        # appear), and the next click explains the cell
        for _ in range(3):
            out.click_cell(m, r, c)
            QApplication.processEvents()
            if se.is_open():
                break
        assert se.is_open(), sid
        index = se.selection[1]
        assert where(trace[sid].dims, index) == (m, r, c), sid
        expl = explain(trace, sid, index)
        assert se.text().splitlines()[0] == expl.text("en").splitlines()[0], sid
        shown = {p.step_id: p for p in view.input_panes()}
        want = expected_sources(sid, index, trace)
        if want is None:  # an extra: the engine's sources, placed where the pane draws them
            want = {}
            for s in expl.sources:
                if s.ref in shown:
                    want.setdefault(s.ref, set()).add(where(shown[s.ref].data.step.dims, s.index))
        want = {k: v for k, v in want.items() if k in shown}
        got = {name: se.marks_on(name) for name in shown if se.marks_on(name)}
        assert got == want, sid
        assert se.marks_on(sid) == {(m, r, c)}, sid
        qtbot.keyClick(view, Qt.Key.Key_Escape)
        assert not se.is_open()
        while out.region is not None or len(out.visible_heads()) < n:  # Esc again: the whole matrix, every head
            qtbot.keyClick(view, Qt.Key.Key_Escape)
            assert view.isVisible(), sid


def test_a_quiz_hidden_step_is_never_explained_with_numbers(qtbot, window):
    quiz = window.cell_tools.quiz
    quiz.hide_step("attention_weights")
    view = enter(qtbot, window)
    se = view.slide_explain
    view.go_to(view.lesson_ids().index("attention_weights"))
    trace = window.last_trace
    mouse_click(view.output_pane(), 0, 1, 2)
    qtbot.waitUntil(se.is_open)
    value = float(trace["attention_weights"].numpy()[0, 0, 1, 2])
    text = se.text()
    assert "hides this cell" in text
    assert f"{value:.4g}" not in text and "j=0:" not in text  # neither the value nor the terms
    assert explain(trace, "attention_weights", (0, 0, 1, 2)).formula["en"] in text  # the formula, to work from
    view.go_to(view.lesson_ids().index("weighted_sum"))  # its terms read the hidden weights
    mouse_click(view.output_pane(), 0, 0, 0)
    text = se.text()
    assert "terms are hidden" in text and "a[0]·v[0]" not in text
    assert "= " + explain(trace, "weighted_sum", (0, 0, 0, 0)).combine["en"] not in text
    quiz.hide_step(None)  # quiz off: the same click explains with numbers
    mouse_click(view.output_pane(), 1, 1, 1)
    assert "a[0]·v[0]" in se.text()


def test_the_explanation_follows_the_language(qtbot, window, chinese):
    view = enter(qtbot, window)
    view.go_to(view.lesson_ids().index("attention_weights"))
    se = view.slide_explain
    mouse_click(view.output_pane(), 0, 1, 2)
    qtbot.waitUntil(se.is_open)
    window.set_language("zh", remember=False)
    expl = explain(window.last_trace, "attention_weights", (0, 0, 1, 2))
    assert se.text().splitlines()[0] == expl.text("zh").splitlines()[0]
    assert expl.summary["zh"] in se.text() and "Esc 关闭" in se.label.text()
    assert min(box_font_sizes(se)) >= 18


def test_outlined_input_cells_are_scrolled_into_sight(qtbot, window):
    """Zoomed in past 100 %, the slide's canvas scrolls: after a click its outlined cells are in sight."""
    view = enter(qtbot, window)
    view.go_to(view.lesson_ids().index("weighted_sum"))
    for _ in range(3):
        qtbot.keyClick(view, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    qtbot.wait(50)
    scroll = view.body_scroll
    se = view.slide_explain
    out = view.output_pane()
    mouse_click(out, 1, 3, 1)  # head 2, query 3, feature 1: V's column 1 in the second pane
    if out.region is not None:  # the first click showed the numbers of a colour-only result
        mouse_click(out, 1, 3, 1)
    qtbot.waitUntil(se.is_open)
    qtbot.wait(200)
    bars = scroll.verticalScrollBar(), scroll.horizontalScrollBar()
    assert bars[0].maximum() > 0 or bars[1].maximum() > 0  # the canvas does scroll at this zoom
    points = se.marked_input_points()
    assert len(points) == 8  # the weights row (4) and V's column (4)
    port = scroll.viewport()
    for p in points[:1]:  # at least the first outlined cells are in sight
        x, y = p.x() - bars[1].value(), p.y() - bars[0].value()
        assert 0 <= x < port.width() and 0 <= y < port.height(), (x, y, port.size())


def test_the_by_hand_sheet_replacing_the_result_closes_the_explanation(qtbot, window):
    view = enter(qtbot, window)
    view.go_to(view.lesson_ids().index("scores"))
    se = view.slide_explain
    mouse_click(view.output_pane(), 0, 0, 1)
    qtbot.waitUntil(se.is_open)
    qtbot.keyClick(view, Qt.Key.Key_B)  # the by-hand layout: the result pane is no longer on the slide
    qtbot.waitUntil(lambda: not se.is_open())
    assert not se.box.isVisible() and se.marks_on("head_split.query") == set()
    qtbot.keyClick(view, Qt.Key.Key_B)  # back to the usual slide: its sentences, no box
    qtbot.waitUntil(lambda: view.explanation.isVisible())
    assert not se.box.isVisible()
    qtbot.waitUntil(lambda: view.output_pane().numbers_shown())  # the slide drawn again, its numbers in sight
    mouse_click(view.output_pane(), 0, 0, 1)
    qtbot.waitUntil(se.is_open)
