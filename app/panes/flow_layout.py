"""A flow layout: items left to right at their natural width, wrapping to a new row when full.

Small steps (the toy's 4 × 4 matrices) then sit three to a row instead of leaving most of a
1600-pixel-wide screen empty, while wide steps (eight heads) take a row of their own.  Each
row is as tall as its tallest item; items keep the order they were added in (trace order).
After Qt's FlowLayout example, with height-for-width so it works inside a QScrollArea.
"""
from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QWidget


class FlowLayout(QLayout):
    def __init__(self, parent: QWidget | None = None, spacing: int = 8) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._gap = spacing

    # ---- QLayout -----------------------------------------------------------------------------
    def addItem(self, item: QLayoutItem) -> None:  # noqa: N802
        self._items.append(item)

    def insertWidget(self, index: int, widget: QWidget) -> None:  # noqa: N802
        self.addChildWidget(widget)
        from PySide6.QtWidgets import QWidgetItem

        self._items.insert(index, QWidgetItem(widget))
        self.invalidate()

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int):  # noqa: N802
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int):  # noqa: N802
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:  # noqa: N802
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:  # noqa: N802
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802
        return self._do_layout(QRect(0, 0, width, 0), apply=False)

    def setGeometry(self, rect: QRect) -> None:  # noqa: N802
        super().setGeometry(rect)
        self._do_layout(rect, apply=True)

    def sizeHint(self) -> QSize:  # noqa: N802
        return self.minimumSize()

    def minimumSize(self) -> QSize:  # noqa: N802
        size = QSize()
        for item in self._items:
            if not item.isEmpty():
                size = size.expandedTo(QSize(min(item.sizeHint().width(), 480), item.minimumSize().height()))
        m = self.contentsMargins()
        return size + QSize(m.left() + m.right(), m.top() + m.bottom())

    # ---- placement ---------------------------------------------------------------------------
    def _do_layout(self, rect: QRect, apply: bool) -> int:
        m = self.contentsMargins()
        area = rect.adjusted(m.left(), m.top(), -m.right(), -m.bottom())
        x, y, row_h = area.x(), area.y(), 0
        row: list[tuple[QLayoutItem, int, int]] = []

        def flush(y: int, row_h: int) -> None:
            if apply:
                for item, ix, w in row:
                    item.setGeometry(QRect(QPoint(ix, y), QSize(w, row_h)))

        for item in self._items:
            if item.isEmpty():
                continue
            w = min(item.sizeHint().width(), area.width())
            h = item.heightForWidth(w) if item.hasHeightForWidth() else item.sizeHint().height()
            if row and x + w > area.x() + area.width():
                flush(y, row_h)
                row = []
                x, y, row_h = area.x(), y + row_h + self._gap, 0
            row.append((item, x, w))
            x += w + self._gap
            row_h = max(row_h, h)
        flush(y, row_h)
        return y + row_h - rect.y() + m.bottom()
