"""Explain this cell: a click on any cell of any pane explains that exact index in the dock,
outlines the cell and its sources in their panes, follows edits and clears on a second click or Esc.

Expected numbers are worked out here from the toy's inputs (identity projections, so head h of
query l is columns 2h, 2h+1 of the input row), never read from the explanation."""
from __future__ import annotations

import math

import numpy as np
import pytest
from gui_helpers import expected_matrices
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from app.teaching.explain_panel import CELL_LAYER, SOURCE_LAYER
from app.viewmodel.matrix_ref import MatrixRef

TOY_Q = np.array([[1, 0, 2, 1], [0, 1, 1, 2], [1, 1, 0, 1], [2, 0, 1, 0]], float)


def mouse_click(pane, m: int, r: int, c: int) -> None:
    """A real left click (press + release) through Qt and pyqtgraph's scene on cell (r, c) of matrix m."""
    vp = pane.canvas.viewport()
    target = QPointF(pane.canvas.mapFromScene(pane.cell_scene_pos(m, r, c)))
    glob = QPointF(vp.mapToGlobal(target.toPoint()))
    for kind, buttons in ((QEvent.Type.MouseButtonPress, Qt.MouseButton.LeftButton),
                          (QEvent.Type.MouseButtonRelease, Qt.MouseButton.NoButton)):
        ev = QMouseEvent(kind, target, glob, Qt.MouseButton.LeftButton, buttons, Qt.KeyboardModifier.NoModifier)
        QApplication.sendEvent(vp, ev)


@pytest.fixture
def shown(window, qtbot):
    window.show()
    qtbot.waitExposed(window)
    window.recompute.wait_idle()
    qtbot.wait(20)
    return window


def test_a_mouse_click_explains_that_exact_cell(shown, qtbot):
    view, panel = shown.view, shown.cell_tools.panel
    pane = view.pane("scores")
    view.scroll.ensureWidgetVisible(pane)
    qtbot.wait(20)
    mouse_click(pane, 1, 2, 3)  # head 2, query 2, key 3
    qtbot.waitUntil(lambda: panel.selection is not None)
    assert panel.selection == ("scores", (0, 1, 2, 3))
    assert panel.isVisible()
    # independent: head 2 of query 2 is [0, 1], of key 3 is [1, 0]; scale 1/sqrt(2)
    q, k = TOY_Q[2, 2:], TOY_Q[3, 2:]
    want = float(q @ k) / math.sqrt(2)
    text = panel.explanation_text()
    assert text.splitlines()[0].endswith(f"= {want:.4g}")
    from attention.teaching.explain import explain
    assert text == explain(view.current_trace(), "scores", (0, 1, 2, 3)).text("en")
    # the cell and its sources are outlined in their own panes (matrix = head, row = position)
    assert set(pane.marks(CELL_LAYER)) == {(1, 2, 3)}
    assert set(view.pane("head_split.query").marks(SOURCE_LAYER)) == {(1, 2, 0), (1, 2, 1)}
    assert set(view.pane("head_split.key").marks(SOURCE_LAYER)) == {(1, 3, 0), (1, 3, 1)}
    overlay = view.pane("head_split.query").heatmaps[1].overlay
    assert set(overlay.marks(SOURCE_LAYER)) == {(2, 0), (2, 1)}  # what is painted
    assert not view.pane("output").marks(SOURCE_LAYER)


def test_every_pane_cell_explains_its_own_index(window):
    """For each step, a click on a cell explains the trace's value at the index that pane shows there."""
    view, panel = window.view, window.cell_tools.panel
    trace = view.current_trace()
    for sid in view.pane_ids():
        pane = view.pane(sid)
        n, rows, cols = pane.data.block.shape
        m, r, c = n - 1, rows - 1, cols - 1
        pane.click_cell(m, r, c)
        step_id, index = panel.selection
        assert step_id == sid
        want = expected_matrices(trace, sid, 0)[m][r, c]  # the pane's cut, made independently
        assert float(trace.array(sid)[index]) == float(want), sid
        assert panel.explanation is not None and panel.explanation.index == index, sid
        panel.clear()


def test_same_cell_again_or_escape_clears(window, qtbot):
    view, panel = window.view, window.cell_tools.panel
    pane = view.pane("attention_weights")
    pane.click_cell(0, 1, 2)
    assert panel.selection == ("attention_weights", (0, 0, 1, 2))
    pane.click_cell(0, 2, 2)  # another cell moves it
    assert panel.selection == ("attention_weights", (0, 0, 2, 2))
    assert set(pane.marks(CELL_LAYER)) == {(0, 2, 2)}
    pane.click_cell(0, 2, 2)  # the same cell again
    assert panel.selection is None and not pane.marks(CELL_LAYER)
    assert not view.pane("masked_scores").marks(SOURCE_LAYER)
    pane.click_cell(0, 2, 2)
    window.show()
    window.raise_()
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    pane.canvas.setFocus()
    QTest.keyClick(pane.canvas, Qt.Key.Key_Escape)
    assert panel.selection is None


def test_an_edit_recomputes_the_explanation_for_the_same_cell(window, qtbot):
    view, panel = window.view, window.cell_tools.panel
    view.pane("scores").click_cell(0, 0, 1)  # head 1, query 0, key 1: [1, 0] · [0, 1] = 0
    assert panel.explanation.value == 0.0
    window.document.set_cell(MatrixRef("queries", 0), 0, 1, 3.0)  # query 0 becomes [1, 3, 2, 1]
    window.recompute.recompute_now()
    qtbot.waitUntil(lambda: panel.explanation is not None and panel.explanation.value != 0.0)
    assert panel.selection == ("scores", (0, 0, 0, 1))
    assert panel.explanation.value == pytest.approx(3.0 / math.sqrt(2), abs=1e-12)  # [1, 3] · [0, 1] / √2
    assert f"{3 / math.sqrt(2):.4g}" in panel.explanation_text()


def test_an_index_that_no_longer_exists_clears(window, qtbot):
    from app.viewmodel.edits import with_fields
    view, panel = window.view, window.cell_tools.panel
    view.pane("scores").click_cell(1, 3, 3)  # head 2
    assert panel.selection == ("scores", (0, 1, 3, 3))
    window.document.replace(with_fields(window.document.scenario, n_heads=1), "one head")
    window.recompute.recompute_now()
    qtbot.waitUntil(lambda: view.current_trace().options["n_heads"] == 1)
    assert panel.selection is None
    assert not any(view.pane(s).marks(SOURCE_LAYER) for s in view.pane_ids())


def test_the_explanation_follows_the_language(window):
    view, panel = window.view, window.cell_tools.panel
    view.pane("weighted_sum").click_cell(0, 1, 0)
    en = panel.explanation_text()
    window.set_language("zh")
    try:
        zh = panel.explanation_text()
        assert zh != en and zh == panel.explanation.text("zh")
        assert "查询" in panel.where.text()  # the pane's own words for the cell, in Chinese
    finally:
        window.set_language("en")


def test_input_cells_a_projection_read_are_selected_in_the_inputs_editor(window):
    """Key projection of key 1, feature 2 = keys row 1 · weight row 2 (+ bias): row 1 of the keys."""
    panel = window.cell_tools.panel
    window.view.pane("projection.key").click_cell(0, 1, 2)
    assert panel.selection == ("projection.key", (0, 1, 2))
    assert window.inputs.editors["keys"].selected_rect() == (1, 0, 1, 4)
    assert "projection.key.weight[2, 0]" in panel.sources.text()


def test_prob_sparse_extras_are_explained_and_the_start_up_trace_says_so_in_words(shown, tmp_path):
    """Every step has an explanation now, ProbSparse's chosen queries included (query l named in
    top_index, with its M from the sparsity step); the start-up trace read back from disk before
    torch has loaded (it keeps no parameters) gets a sentence instead of an error, and the fresh
    trace then brings the explanation."""
    import dataclasses

    import attention
    from attention.files import trace_cache

    window, panel = shown, shown.cell_tools.panel
    sc = dataclasses.replace(window.document.scenario, scoring="prob_sparse", factor=1)
    window.document.replace(sc, "ProbSparse")
    window.recompute.wait_idle()
    window.view.pane("extra.top_index").click_cell(0, 0, 0)
    assert panel.selection == ("extra.top_index", (0, 0, 0))
    trace = window.view.current_trace()
    l = int(trace.array("extra.top_index")[0, 0, 0])
    M = float(trace.array("extra.sparsity")[0, 0, l])
    text = panel.explanation_text()
    assert "no cell-by-cell explanation" not in text
    # the cell holds the index l (code, from 0); the sentence names query l + 1 (positions from 1)
    assert text.splitlines()[0].endswith(f"= {l}") and f"query {l + 1}: M = {M:.4g}" in text
    window.document.undo_stack.undo()
    window.recompute.wait_idle()
    sc = window.document.scenario
    path = tmp_path / "t.npz"
    trace_cache.save(attention.run(sc), sc, path)
    window.recompute.show_cached(trace_cache.load(sc, path), sc)
    window.view.pane("scores").click_cell(0, 1, 2)
    assert "still starting" in panel.explanation_text()
    window.recompute.recompute_now()
    window.recompute.wait_idle()
    assert panel.explanation_text().startswith("Scaled scores: scores[0, 0, 1, 2]")
