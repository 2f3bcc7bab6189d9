"""The tables of the tiles dialog and slides: a read-only grid of numbers (app/teaching/tiles_view.py)."""
from __future__ import annotations

from typing import Optional

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, Qt
from PySide6.QtGui import QBrush, QColor

from attention.datamodel import numbers

#: The rows of the block being updated get this background.
HIGHLIGHT = QColor(255, 236, 170)


class ArrayModel(QAbstractTableModel):
    """A read-only table of numbers, written as every number a person reads (attention.datamodel.numbers);
    rows in `highlight` (a half-open range) get a light background: the block being updated."""

    def __init__(self, parent: Optional[QObject] = None) -> None:
        super().__init__(parent)
        self.values = np.zeros((0, 0))
        self.columns: list[str] = []
        self.rows: Optional[list[str]] = None  # None: queries 1, 2, ...
        self.highlight = (0, 0)
        self.hidden = (0, 0)  # rows whose numbers the quiz hides ("?")

    def set_values(self, values: np.ndarray, columns: list[str], highlight: tuple[int, int] = (0, 0),
                   rows: Optional[list[str]] = None, hidden: tuple[int, int] = (0, 0)) -> None:
        values = np.asarray(values, dtype=np.float64)
        values = values[:, None] if values.ndim == 1 else values
        if values.shape != self.values.shape or columns != self.columns or rows != self.rows:
            self.beginResetModel()
            self.values, self.columns, self.rows = values, list(columns), rows
            self.highlight, self.hidden = highlight, hidden
            self.endResetModel()
            return
        self.values, self.highlight, self.hidden = values, highlight, hidden
        if values.size:
            self.dataChanged.emit(self.index(0, 0), self.index(values.shape[0] - 1, values.shape[1] - 1))

    def rowCount(self, parent: Optional[QModelIndex] = None) -> int:  # noqa: N802 - Qt's name
        return 0 if parent is not None and parent.isValid() else self.values.shape[0]

    def columnCount(self, parent: Optional[QModelIndex] = None) -> int:  # noqa: N802 - Qt's name
        return 0 if parent is not None and parent.isValid() else self.values.shape[1]

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            if self.hidden[0] <= index.row() < self.hidden[1]:
                return "?"
            return numbers.rounded(self.values[index.row(), index.column()])
        if role == Qt.ItemDataRole.BackgroundRole and self.highlight[0] <= index.row() < self.highlight[1]:
            return QBrush(HIGHLIGHT)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return self.columns[section] if section < len(self.columns) else None
        if self.rows is not None:
            return self.rows[section] if section < len(self.rows) else None
        return str(section + 1)  # queries count from 1 where a person reads them
