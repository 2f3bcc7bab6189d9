"""The matrix model: Qt's model contract, big matrices, and what it shows."""
from __future__ import annotations

import numpy as np

from app.editing.matrix_editor import MatrixEditor
from app.editing.matrix_model import MatrixModel
from app.pipeline.document import Document
from app.viewmodel.matrix_ref import MatrixRef
from attention import Scenario


def _doc(L=4, d=3, S=2, tokens=None) -> Document:
    rng = np.random.default_rng(0)
    sc = Scenario(rng.normal(size=(2, L, d)), rng.normal(size=(2, S, d)), rng.normal(size=(2, S, d)),
                  n_heads=1, query_tokens=tokens)
    return Document(sc)


def test_model_contract(qtmodeltester):
    doc = _doc(tokens=("a", "b", "c", "d"))
    model = MatrixModel(doc, MatrixRef("queries", 1))
    qtmodeltester.check(model, force_py=True)
    assert model.headerData(2, __import__("PySide6.QtCore").QtCore.Qt.Orientation.Vertical) == "3 c"  # row 3 (from 1)
    model.setData(model.index(1, 2), "4.5")
    assert doc.scenario.queries[1, 1, 2] == 4.5 and doc.scenario.queries[0, 1, 2] != 4.5
    qtmodeltester.check(model, force_py=True)


def test_model_follows_undo_and_resize(qtbot):
    doc = _doc()
    model = MatrixModel(doc, MatrixRef("keys", 0))
    with qtbot.waitSignal(model.dataChanged):
        model.setData(model.index(0, 0), "1e3")
    assert model.data(model.index(0, 0)) == "1000"
    with qtbot.waitSignal(model.modelReset):
        from app.viewmodel.edits import with_sizes

        doc.replace(with_sizes(doc.scenario, S=5), "S")
    assert model.rowCount() == 5
    doc.undo_stack.undo()
    assert model.rowCount() == 2
    doc.undo_stack.undo()
    assert model.data(model.index(0, 0)) != "1000"


def test_a_4096_by_512_matrix_opens_and_scrolls(qtbot):
    doc = _doc(L=4096, d=512)
    editor = MatrixEditor(doc, MatrixRef("queries", 0))
    qtbot.addWidget(editor)
    editor.resize(600, 400)
    editor.show()
    model = editor.model
    assert (model.rowCount(), model.columnCount()) == (4096, 512)
    editor.table.scrollToBottom()
    editor.table.scrollTo(model.index(4095, 511))
    qtbot.wait(1)
    last = float(doc.scenario.queries[0, 4095, 511])
    assert model.data(model.index(4095, 511)) == f"{last:.4g}"
    model.setData(model.index(4095, 511), "7")
    assert doc.scenario.queries[0, 4095, 511] == 7.0
    cmd = doc.undo_stack.command(0)
    assert cmd.old.size == 1 and cmd.new.size == 1  # a cell edit stores one number, not the matrix


def test_bias_is_a_row_and_valid_lengths_a_column():
    from attention import Projection

    doc = _doc()
    sc = doc.scenario
    doc.load(Scenario(sc.queries, sc.keys, sc.values, projections={"out": Projection(np.eye(3), np.arange(3.0))},
                      valid_lens=np.array([1.0, 2.0])), None)
    bias = MatrixModel(doc, MatrixRef("projections.out.bias"))
    assert (bias.rowCount(), bias.columnCount()) == (1, 3)
    lens = MatrixModel(doc, MatrixRef("valid_lens"))
    assert (lens.rowCount(), lens.columnCount()) == (2, 1)
    messages = []
    lens.rejected.connect(messages.append)
    assert not lens.setData(lens.index(0, 0), "1.5")
    assert not lens.setData(lens.index(0, 0), "-1")
    assert len(messages) == 2 and "whole number" in messages[0]
    assert lens.setData(lens.index(0, 0), "2")
    assert doc.scenario.valid_lens.tolist() == [2.0, 2.0]


def test_model_announces_only_the_cells_that_changed():
    """One typed cell repaints one cell of the table, not the whole matrix (edit latency)."""
    doc = _doc(L=4, d=3)
    model = MatrixModel(doc, MatrixRef("queries", 0))
    other = MatrixModel(doc, MatrixRef("queries", 1))
    seen, seen_other = [], []
    model.dataChanged.connect(lambda tl, br, *_: seen.append((tl.row(), tl.column(), br.row(), br.column())))
    other.dataChanged.connect(lambda tl, br, *_: seen_other.append((tl.row(), tl.column(), br.row(), br.column())))
    model.setData(model.index(2, 1), "7.25")
    assert seen == [(2, 1, 2, 1)] and seen_other == []
    doc.undo_stack.undo()
    assert seen[-1] == (2, 1, 2, 1) and doc.scenario.queries[0, 2, 1] != 7.25
