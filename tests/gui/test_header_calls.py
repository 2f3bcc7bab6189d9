"""A sentence edit renames the rows of a wide matrix, never re-measures its columns (issue 17 item 6).

Qt 6 measures a header from the labels of its first and last 100 sections, and a QTableView asks
both headers again when either one's labels change; every sentence edit changes the row labels
(the tokens), so the 384 column numbers of MiniLM's Q, K and V were re-read about 800 times per
table per edit.  These tests count headerData calls (never time them): the column labels are read
only for painting after a token change, the row labels follow the new tokens, and a language
change still re-reads every label.
"""
from __future__ import annotations

import collections
import dataclasses

import numpy as np
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QApplication, QHeaderView

from app.editing.matrix_editor import MatrixEditor
from app.editing.matrix_model import MatrixModel
from app.pipeline.document import Document
from app.viewmodel.matrix_ref import MatrixRef
from attention import Scenario

COLUMNS = 384  # MiniLM's width: more than the 2 x 100 sections Qt measures


def _doc(tokens: tuple) -> Document:
    rng = np.random.default_rng(1)
    L = len(tokens)
    x = rng.normal(size=(1, L, COLUMNS))
    return Document(Scenario(x, x.copy(), x.copy(), n_heads=1, query_tokens=tokens, key_tokens=tokens))


class Counting(MatrixModel):
    """The editor's model, counting the header labels Qt reads (per orientation)."""

    def __init__(self, *args, **kwargs):
        self.calls: collections.Counter = collections.Counter()
        super().__init__(*args, **kwargs)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802
        self.calls[orientation] += 1
        return super().headerData(section, orientation, role)


def _editor(qtbot, doc: Document) -> tuple[MatrixEditor, Counting]:
    editor = MatrixEditor(doc, MatrixRef("queries", 0))
    model = Counting(doc, MatrixRef("queries", 0), editor)
    editor.model = model
    editor.table.setModel(model)
    qtbot.addWidget(editor)
    editor.resize(300, 250)
    editor.show()
    qtbot.waitExposed(editor)
    for _ in range(3):
        QApplication.processEvents()
    return editor, model


def _edit(doc: Document, tokens: tuple) -> None:
    """What a sentence edit does to the Inputs: new numbers and new tokens, same shape."""
    sc = doc.scenario
    doc.replace(dataclasses.replace(sc, queries=sc.queries + 1.0, query_tokens=tokens), "sentence")
    for _ in range(3):
        QApplication.processEvents()


def test_a_token_edit_reads_the_column_labels_only_to_paint_them(qtbot):
    doc = _doc(("[CLS]", "the", "fox", "[SEP]"))
    editor, model = _editor(qtbot, doc)
    for i in range(3):
        model.calls.clear()
        _edit(doc, ("[CLS]", f"word{i}", "fox", "[SEP]"))
        # the visible columns' labels for one paint (a few roles each); measuring 2 x 100 sections
        # again read ~800
        assert model.calls[Qt.Orientation.Horizontal] < 60, model.calls
        assert model.headerData(1, Qt.Orientation.Vertical) == f"2 word{i}"  # the rows follow the tokens
        assert editor.table.verticalHeader().sizeHint().width() > 0


def test_the_row_header_widens_for_a_longer_token(qtbot):
    doc = _doc(("a", "b", "c", "d"))
    editor, _model = _editor(qtbot, doc)
    narrow = editor.table.verticalHeader().sizeHint().width()
    _edit(doc, ("a", "abcdefghij", "c", "d"))
    header = editor.table.verticalHeader()
    assert header.sizeHint().width() > narrow
    assert header.sizeHint() == QHeaderView.sizeHint(header)


def test_a_language_change_reads_the_labels_again(qtbot):
    doc = _doc(("a", "b", "c", "d"))
    editor, model = _editor(qtbot, doc)
    model.calls.clear()
    QApplication.sendEvent(editor, QEvent(QEvent.Type.LanguageChange))
    for _ in range(3):
        QApplication.processEvents()
    assert model.calls[Qt.Orientation.Horizontal] > 0 and model.calls[Qt.Orientation.Vertical] > 0


def test_new_tokens_as_wide_as_before_are_not_measured_again(qtbot):
    """150 rows: measuring the row header reads ~4 labels a row; tokens that changed but whose
    widest label is as wide as before (most edits of a sentence) read only what is painted."""
    rows = 150
    first = tuple("ab" if i % 2 else "ba" for i in range(rows))
    second = tuple("ba" if i % 2 else "ab" for i in range(rows))
    doc = _doc(first)
    editor, model = _editor(qtbot, doc)
    _edit(doc, second)  # the first time these widths are seen after the window settled: may measure
    _edit(doc, first)
    model.calls.clear()
    _edit(doc, second)
    assert model.headerData(0, Qt.Orientation.Vertical) == "1 ab"
    assert model.calls[Qt.Orientation.Vertical] < 2 * rows, model.calls  # measuring read >= 4 a row
    header = editor.table.verticalHeader()
    assert header.sizeHint() == QHeaderView.sizeHint(header)  # the hint kept is the one Qt measures now


def test_a_longer_token_widens_the_row_header_on_screen(qtbot):
    """The header is laid out again, not only re-measured: its width on screen fits the new label
    and the cells start right of it."""
    doc = _doc(("a", "b", "c", "d"))
    editor, _model = _editor(qtbot, doc)
    header = editor.table.verticalHeader()
    before = header.width()
    _edit(doc, ("a", "abcdefghijklmnop", "c", "d"))
    assert header.width() > before
    assert header.width() == header.sizeHint().width()
    assert editor.table.viewport().geometry().left() >= header.geometry().right()
    assert header.model().headerData(1, Qt.Orientation.Vertical).startswith("2 abcdefghij")


class _Paints(QObject):
    def __init__(self):
        super().__init__()
        self.count = 0

    def eventFilter(self, watched, event):  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.Paint:
            self.count += 1
        return False


def test_tokens_of_the_same_width_repaint_the_labels_not_the_whole_editor(qtbot):
    """A sentence edit of the same widths repaints the row labels and the cells; the scroll bars (and
    the editor around the table) stay as they are: Qt's own answer to new header labels laid the whole
    table out again and repainted all of it in a second pass, three editors on every sentence edit."""
    doc = _doc(tuple("ab" for _ in range(20)))
    editor, _model = _editor(qtbot, doc)
    table = editor.table
    assert table.horizontalScrollBar().isVisible()
    bars, labels = _Paints(), _Paints()
    table.horizontalScrollBar().installEventFilter(bars)
    table.verticalHeader().viewport().installEventFilter(labels)
    _edit(doc, tuple("ba" for _ in range(20)))
    assert labels.count >= 1  # the new tokens are painted
    assert bars.count == 0
    assert table.model().headerData(0, Qt.Orientation.Vertical) == "1 ba"
