"""Defect 11 in the window: every row, column, head and batch item a person reads counts from 1
(editor headers, the heatmaps' axis ticks, the batch and head selectors, a refused cell, the undo
text), the same positions as the Explain text and the problems (tests/test_positions.py)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from app.viewmodel.matrix_ref import MatrixRef

pytestmark = pytest.mark.gui

V, H = Qt.Orientation.Vertical, Qt.Orientation.Horizontal


def test_editor_headers_count_from_one(window):
    model = window.inputs.editors["queries"].model
    rows = [model.headerData(r, V) for r in range(model.rowCount())]
    cols = [model.headerData(c, H) for c in range(model.columnCount())]
    tokens = window.document.scenario.query_tokens
    assert rows == [f"{i} {t}" for i, t in zip((1, 2, 3, 4), tokens)]  # row 1 is the first token's
    assert cols == ["1", "2", "3", "4"]


def test_heatmap_axis_ticks_count_from_one(window):
    window.document.replace(dataclasses.replace(window.document.scenario, query_tokens=None, key_tokens=None),
                            "no tokens")
    window.recompute.wait_idle()
    pane = window.view.pane("projection.query")
    assert [label for _, label in pane.left._ticks] == ["1", "2", "3", "4"]
    assert [label for _, label in pane.heatmaps[0].bottom._ticks] == ["1", "2", "3", "4"]
    assert [(pos, label) for pos, label in pane.left._ticks][0] == (0.0, "1")  # drawn at index 0


def test_valid_length_editor_names_batch_items_and_queries_from_one(window):
    sc = window.document.scenario
    window.document.replace(dataclasses.replace(sc, valid_lens=np.full((sc.batch, sc.L), sc.S)), "2-D lengths")
    window.recompute.wait_idle()
    from app.editing.matrix_model import MatrixModel

    model = MatrixModel(window.document, MatrixRef("valid_lens", None))
    assert model.headerData(0, V) == "batch 1"
    assert [model.headerData(c, H) for c in range(2)] == ["query 1", "query 2"]


def test_batch_selector_shows_item_one_for_the_first(window, qtbot):
    sc = window.document.scenario
    two = dataclasses.replace(sc, queries=np.repeat(sc.queries, 2, axis=0), keys=np.repeat(sc.keys, 2, axis=0),
                              values=np.repeat(sc.values, 2, axis=0))
    window.document.replace(two, "two items")
    window.recompute.wait_idle()
    box = window.inputs.batch
    assert box.value() == 0 and box.text() == "1"
    box.lineEdit().selectAll()
    QTest.keyClicks(box, "2")  # the person types the second item's number
    QTest.keyClick(box, Qt.Key.Key_Return)
    assert box.value() == 1 and window.inputs.current_batch() == 1
    assert box.text() == "2"
    box.setValue(0)
    QTest.keyClick(box, Qt.Key.Key_Up)
    assert box.text() == "2"


def test_a_refused_cell_and_the_undo_text_name_row_and_column_from_one(window, qtbot):
    editor = window.inputs.editors["queries"]
    model = editor.model
    with qtbot.waitSignal(model.rejected) as seen:
        assert model.setData(model.index(0, 1), "abc") is False
    assert seen.args[0].startswith("Cell (1, 2): ")
    assert model.setData(model.index(2, 0), "7")
    assert window.document.undo_stack.undoText() == "Edit cell (3, 1)"
