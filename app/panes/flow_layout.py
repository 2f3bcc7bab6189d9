"""A flow layout: items left to right at their natural width, wrapping to a new row when full
(a row that misses one more item by a little is made that little narrower instead).

Small steps (the toy's 4 × 4 matrices) then sit three to a row instead of leaving most of a
1600-pixel-wide screen empty, while wide steps (eight heads) take a row of their own.  Each
row is as tall as its tallest item; items keep the order they were added in (trace order).
After Qt's FlowLayout example, with height-for-width so it works inside a QScrollArea.

Qt asks a layout for its height-for-width many times per relayout (scroll area, parents, then
setGeometry), and every answer walks all panes through Python; the answers and each item's
hints are therefore memoised until Qt invalidates the layout (which it does whenever a pane's
size hint may have changed: a label's text, a fixed height...), so a relayout of many
eight-head panes no longer asks each of them again and again.
"""
from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QWidget

#: how much narrower than their natural width the items of a row may be made so that one more
#: fits beside them: two 6 x 4 steps that miss a shared row by a few pixels would otherwise sit
#: one per row with half the region left empty.  A little only: narrower cells may print
#: fewer digits.
MAX_SHRINK = 0.05


class FlowLayout(QLayout):
    def __init__(self, parent: QWidget | None = None, spacing: int = 8) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._gap = spacing
        self._hints: dict[int, tuple[int, tuple[int, int]]] = {}  # id(item) -> (room, (w, h))
        self._hfw: dict[int, int] = {}  # available width -> height
        self._min: QSize | None = None

    def invalidate(self) -> None:
        self._forget()
        super().invalidate()

    def _forget(self) -> None:
        self._hints.clear()
        self._hfw.clear()
        self._min = None

    # ---- QLayout -----------------------------------------------------------------------------
    def addItem(self, item: QLayoutItem) -> None:  # noqa: N802
        self._items.append(item)
        self._forget()

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
        if not 0 <= index < len(self._items):
            return None
        self._forget()
        return self._items.pop(index)

    def expandingDirections(self) -> Qt.Orientation:  # noqa: N802
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:  # noqa: N802
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802
        height = self._hfw.get(width)
        if height is None:
            height = self._hfw[width] = self._do_layout(QRect(0, 0, width, 0), apply=False)
        return height

    def setGeometry(self, rect: QRect) -> None:  # noqa: N802
        super().setGeometry(rect)
        self._do_layout(rect, apply=True)

    def sizeHint(self) -> QSize:  # noqa: N802
        return self.minimumSize()

    def minimumSize(self) -> QSize:  # noqa: N802
        if self._min is None:
            self._min = self._minimum_size()
        return QSize(self._min)

    def comfortable_width(self) -> int:
        """The width at which every item shows at its natural width (up to 480 px, a pane's usual): what
        the Steps column asks for when a dock beside it takes room (app.models_view.tools), where the
        minimum only promises that nothing is cut."""
        m = self.contentsMargins()
        widest = max((min(i.sizeHint().width(), 480) for i in self._items if not i.isEmpty()), default=0)
        return widest + m.left() + m.right()

    def _minimum_size(self) -> QSize:
        """As narrow as the widest item can be (a pane wraps its heads down to its minimum): the
        scroll area shows a sideways bar only below that.  (It was each item's natural width up
        to 480 px: the toy's weights pane fits in 379 px, yet beside the What-if dock at
        1280 x 720 the 399-px Steps region scrolled sideways.)"""
        size = QSize()
        for item in self._items:
            if not item.isEmpty():
                size = size.expandedTo(QSize(item.minimumSize().width(), item.minimumSize().height()))
        m = self.contentsMargins()
        return size + QSize(m.left() + m.right(), m.top() + m.bottom())

    # ---- placement ---------------------------------------------------------------------------
    def _do_layout(self, rect: QRect, apply: bool) -> int:
        m = self.contentsMargins()
        area = rect.adjusted(m.left(), m.top(), -m.right(), -m.bottom())
        room = area.width()
        y = area.y()
        row: list[tuple[QLayoutItem, int, int]] = []  # (item, natural width, height)

        def flush(y: int) -> int:
            """Place the row at y (its items shrunk to fit when needed); returns its height."""
            natural = sum(w for _, w, _ in row)
            gaps = self._gap * (len(row) - 1)
            scale = min(1.0, (room - gaps) / natural) if natural > 0 else 1.0
            x, row_h, placed = area.x(), 0, []
            for item, w, h in row:
                if scale < 1.0:
                    w = max(int(w * scale), 1)
                    h = item.heightForWidth(w) if item.hasHeightForWidth() else h
                placed.append((item, x, w))
                x += w + self._gap
                row_h = max(row_h, h)
            if apply:
                for item, ix, w in placed:
                    item.setGeometry(QRect(QPoint(ix, y), QSize(w, row_h)))
            return row_h

        for item in self._items:
            if item.isEmpty():
                continue
            w, h = self._hint(item, room)
            if row:
                needed = sum(rw for _, rw, _ in row) + w + self._gap * len(row)
                if needed * (1.0 - MAX_SHRINK) > room:  # does not fit, even a little narrower
                    y += flush(y) + self._gap
                    row = []
            row.append((item, w, h))
        if row:
            y += flush(y)
        return y - rect.y() + m.bottom()

    def _hint(self, item: QLayoutItem, room: int) -> tuple[int, int]:
        """(width, height) the item takes in a row `room` pixels wide (memoised, see above)."""
        key = id(item)
        cached = self._hints.get(key)
        if cached is not None and cached[0] == room:
            return cached[1]
        hint = item.sizeHint()
        w = min(hint.width(), room)
        h = item.heightForWidth(w) if item.hasHeightForWidth() else hint.height()
        self._hints[key] = (room, (w, h))
        return w, h
