"""QAbstractTableModel over one matrix of the document (virtual: no per-cell objects).

data() reads straight from the scenario's numpy array (a view), so a 4096 x 512 matrix opens
at once.  setData() never writes the array: it parses the text, refuses anything that is not
a finite number with a message (`rejected`), and otherwise pushes an undo command through the
document.  After any document change the model compares array identities and emits
dataChanged for the bounding box of the cells that differ (same shape; nothing when none do)
or a reset (new shape).
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QLocale, QModelIndex, QObject, QPersistentModelIndex, Qt, Signal

from app.pipeline.document import Document
from app.viewmodel.clipboard import format_number, parse_number
from app.viewmodel.matrix_ref import MatrixRef, part_path, problem_path
from app.viewmodel.pane_text import HOVER_CHARS, TICK_CHARS, elide
from attention.datamodel import numbers

_Index = QModelIndex | QPersistentModelIndex
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
_DISPLAY = Qt.ItemDataRole.DisplayRole
_NO_PARENT = QModelIndex()  # the default parent of a table model's rows/columns (the invisible root)


def locale_decimal_comma() -> bool:
    return QLocale().decimalPoint() == ","


def changed_box(old: Optional[np.ndarray],
                new: Optional[np.ndarray]) -> Optional[tuple[tuple[int, int], tuple[int, int]]]:
    """((first row, first col), (last row, last col)) bounding every cell that differs between
    two same-shape 2-D matrices, or None when none does: one typed cell then repaints one cell
    of the table, not the whole matrix.  NaN equals NaN here (it is not a change)."""
    if old is None or new is None or old is new or not new.size:
        return None
    diff = (old != new) & ~(np.isnan(old) & np.isnan(new)) if old.dtype.kind == new.dtype.kind == "f" else old != new
    rows = np.flatnonzero(diff.any(axis=1))
    if not rows.size:
        return None
    cols = np.flatnonzero(diff.any(axis=0))
    return (int(rows[0]), int(cols[0])), (int(rows[-1]), int(cols[-1]))


class MatrixModel(QAbstractTableModel):
    rejected = Signal(str)  # why a typed value was refused (shown next to the editor)

    def __init__(self, doc: Document, ref: Optional[MatrixRef] = None, parent: Optional[QObject] = None):
        super().__init__(parent)
        self.doc = doc
        self._ref = ref
        self._source: Optional[np.ndarray] = None
        self._view: Optional[np.ndarray] = None
        self._tokens: Optional[tuple] = None
        self._versions = {Qt.Orientation.Horizontal: 0, Qt.Orientation.Vertical: 0}
        self._labels: dict[Qt.Orientation, list[str]] = {}  # DisplayRole header labels, built on first ask
        self.decimal_comma = locale_decimal_comma()
        self._read()
        doc.changed.connect(self._on_changed)

    # ---- binding -----------------------------------------------------------------------------
    @property
    def ref(self) -> Optional[MatrixRef]:
        return self._ref

    def set_ref(self, ref: Optional[MatrixRef]) -> None:
        if ref == self._ref:
            return
        self.beginResetModel()
        self._ref = ref
        self._read()
        self.endResetModel()

    def matrix(self) -> Optional[np.ndarray]:
        """The 2-D read-only view shown (None when the matrix is absent)."""
        return self._view

    def header_version(self, orientation: Qt.Orientation) -> int:
        """Changes whenever the header labels of `orientation` may have changed (LabelHeader keys
        its measured size on it)."""
        return self._versions[orientation]

    def _labels_changed(self, *orientations: Qt.Orientation) -> None:
        for o in orientations:
            self._versions[o] += 1
            self._labels.pop(o, None)

    def forget_labels(self) -> None:
        """The language changed: the header labels are built afresh ("batch 1", "length")."""
        self._labels_changed(Qt.Orientation.Horizontal, Qt.Orientation.Vertical)
        if self.rowCount() and self.columnCount():
            self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, self.columnCount() - 1)
            self.headerDataChanged.emit(Qt.Orientation.Vertical, 0, self.rowCount() - 1)

    def _read(self) -> None:
        self._labels_changed(Qt.Orientation.Horizontal, Qt.Orientation.Vertical)
        sc = self.doc.scenario
        self._source = None if self._ref is None else self._ref.source(sc)
        self._view = None if self._ref is None else self._ref.view(sc)
        self._tokens = self._row_tokens()

    def _row_tokens(self) -> Optional[tuple]:
        if self._ref is None:
            return None
        sc = self.doc.scenario
        return {"queries": sc.query_tokens, "keys": sc.key_tokens, "values": sc.key_tokens}.get(self._ref.path)

    def _on_changed(self) -> None:
        sc = self.doc.scenario
        source = None if self._ref is None else self._ref.source(sc)
        tokens = self._row_tokens()
        old_shape = None if self._view is None else self._view.shape
        if source is self._source and tokens == self._tokens:
            return
        view = None if self._ref is None else self._ref.view(sc)
        if (None if view is None else view.shape) != old_shape:
            self.beginResetModel()
            self._source, self._view, self._tokens = source, view, tokens
            self._labels_changed(Qt.Orientation.Horizontal, Qt.Orientation.Vertical)
            self.endResetModel()
            return
        old_view = self._view
        self._source, self._view = source, view
        if tokens != self._tokens:
            self._tokens = tokens
            self._labels_changed(Qt.Orientation.Vertical)
            self.headerDataChanged.emit(Qt.Orientation.Vertical, 0, max(self.rowCount() - 1, 0))
        box = changed_box(old_view, view)
        if box is not None:
            (r0, c0), (r1, c1) = box
            roles = [Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole, Qt.ItemDataRole.ToolTipRole]
            self.dataChanged.emit(self.index(r0, c0), self.index(r1, c1), roles)

    # ---- Qt model API ------------------------------------------------------------------------
    def rowCount(self, parent: _Index = _NO_PARENT) -> int:
        return 0 if parent.isValid() or self._view is None else int(self._view.shape[0])

    def columnCount(self, parent: _Index = _NO_PARENT) -> int:
        return 0 if parent.isValid() or self._view is None else int(self._view.shape[1])

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or self._view is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            v = float(self._view[index.row(), index.column()])
            # 4 significant digits keep columns narrow; editing and the tooltip show every digit
            return format_number(v) if self._ref.integer else numbers.rounded(v)
        if role == Qt.ItemDataRole.EditRole:
            return format_number(self._view[index.row(), index.column()])
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return _RIGHT
        if role == Qt.ItemDataRole.ToolTipRole:
            return format_number(self._view[index.row(), index.column()])
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == _DISPLAY:  # the labels of a whole header at once: Qt asks for them often
            labels = self.header_labels(orientation)
            if 0 <= section < len(labels):
                return labels[section]
        return self._header(section, orientation, role)

    def header_labels(self, orientation: Qt.Orientation) -> list[str]:
        """Every DisplayRole label of one header, built once per change of them."""
        labels = self._labels.get(orientation)
        if labels is None:
            count = self.rowCount() if orientation == Qt.Orientation.Vertical else self.columnCount()
            labels = self._labels[orientation] = [str(self._header(i, orientation, _DISPLAY)) for i in range(count)]
        return labels

    def _header(self, section: int, orientation: Qt.Orientation, role: int) -> Any:
        token = orientation == Qt.Orientation.Vertical and self._tokens is not None and section < len(self._tokens)
        if role == Qt.ItemDataRole.ToolTipRole and token:  # the token in full (up to a cap)
            return f"{numbers.position(section)} {elide(self._tokens[section], HOVER_CHARS)}"
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if token:
            return f"{numbers.position(section)} {elide(self._tokens[section], TICK_CHARS)}"
        if self._ref is not None and self._ref.path == "valid_lens":
            if orientation == Qt.Orientation.Vertical:
                return self.tr("batch {0}").format(numbers.position(section))
            if self._source is not None and self._source.ndim == 1:
                return self.tr("length")
            return self.tr("query {0}").format(numbers.position(section))
        return numbers.position(section)  # rows and columns count from 1, as the heatmaps' axes

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEditable

    def setData(self, index: _Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if role != Qt.ItemDataRole.EditRole or not index.isValid() or self._view is None:
            return False
        r, c = index.row(), index.column()
        number = self.parse(value, r, c)
        if number is None:
            return False
        if number == float(self._view[r, c]):
            return True
        problem = self._ref.cell_problem(self.doc.scenario, r, c, number)  # a part's own checks (τ > 0)
        if problem is not None:
            from app.editing.problems import language, render
            from attention import words

            self.rejected.emit(words.text("parts.cell_refused", language(), problem=render(problem)))
            return False
        self.doc.set_cell(self._ref, r, c, number)
        return True

    # ---- helpers -----------------------------------------------------------------------------
    def parse(self, value: Any, row: int, col: int) -> Optional[float]:
        """The number `value` means, or None after emitting `rejected` with the reason."""
        where = self.tr("Cell ({0}, {1})").format(numbers.position(row), numbers.position(col))  # from 1
        if part_path(self._ref.path) is not None:  # a part's matrix: name the field, as a problem would
            where = f"{problem_path(self.doc.scenario, self._ref.path)} {where}"
        try:
            number = float(value) if isinstance(value, (int, float)) else parse_number(str(value), self.decimal_comma)
            if number != number or number in (float("inf"), float("-inf")):
                raise ValueError
        except ValueError:
            self.rejected.emit(
                self.tr("{0}: \"{1}\" is not a finite number; the old value is kept.").format(where, value))
            return None
        if self._ref.integer and (number < 0 or not number.is_integer()):
            self.rejected.emit(
                self.tr("{0}: a valid length must be a whole number >= 0, got {1}; the old value is kept.").format(
                    where, value))
            return None
        return number
