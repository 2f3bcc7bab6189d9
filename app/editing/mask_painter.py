"""Edit ▸ Mask editor…: the sliding window W (Part("window")) and the drawn mask (Part("drawn"),
attention/kinds/drawn.py), painted with the mouse.

One batch item's (L, S) grid at a time: press on a cell, drag across others, release.  A left
press paints (masks), a right press, Shift held or the Erase toggle erases.  The whole stroke is
ONE undo step through the document's QUndoStack (pushed on release); the grid shows the stroke
while it is drawn.  The engine combines the drawing with the other mask rules; explain then says
"drawn" for a painted cell.  The edits themselves are Qt-free (app/viewmodel/mask_edits.py),
and resizing L or S anywhere keeps the cells that still fit (edits.conform).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

import numpy as np
from PySide6.QtCore import QObject, QPoint, QRect, QSignalBlocker, QSize, Qt, Signal
from PySide6.QtGui import QAction, QColor, QMouseEvent, QPainter, QPen
from PySide6.QtWidgets import QCheckBox, QDialog, QHBoxLayout, QLabel, QPushButton, QSpinBox, QVBoxLayout, QWidget

from app.panes.paint_guard import guarded
from app.viewmodel import mask_edits
from attention import words
from attention.datamodel import numbers

if TYPE_CHECKING:  # pragma: no cover - types only
    from app.pipeline.document import Document

# the host is app.features.FeatureHost (not imported: app.features imports app.editing)

CELL = 22  # pixels per cell side
MARGIN = 28  # room for the key numbers above and the query numbers left
MASKED, KEPT, STROKE, GRID = QColor("#37474f"), QColor("#ffffff"), QColor("#ef6c00"), QColor("#b0bec5")


class MaskCanvas(QWidget):
    """The cells of one (L, S) drawing.  A stroke is press, drag, release: `strokeFinished`
    then carries its cells and whether they are painted (True) or erased (False)."""

    strokeFinished = Signal(list, bool)  # [(row, col), ...], masked

    def __init__(self, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.mask = np.zeros((1, 1), dtype=bool)  # (L, S)
        self.erase = False  # the Erase toggle
        self.stroke: list[tuple[int, int]] = []
        self.value: Optional[bool] = None  # the stroke under way paints (True) or erases (False)
        self.setMouseTracking(False)

    def set_mask(self, mask: np.ndarray) -> None:
        self.mask = np.asarray(mask, dtype=bool)
        self.updateGeometry()
        self.update()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        L, S = self.mask.shape
        return QSize(MARGIN + S * CELL + 2, MARGIN + L * CELL + 2)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return self.sizeHint()

    def cell_rect(self, r: int, c: int) -> QRect:
        return QRect(MARGIN + c * CELL, MARGIN + r * CELL, CELL, CELL)

    def cell_centre(self, r: int, c: int) -> QPoint:
        """The centre of cell (r, c) in widget pixels (tests press there, as a person does)."""
        return self.cell_rect(r, c).center()

    def cell_at(self, pos: QPoint) -> Optional[tuple[int, int]]:
        L, S = self.mask.shape
        c, r = (pos.x() - MARGIN) // CELL, (pos.y() - MARGIN) // CELL
        return (int(r), int(c)) if pos.x() >= MARGIN and pos.y() >= MARGIN and r < L and c < S else None

    # ---- the stroke ----------------------------------------------------------------------------
    def mousePressEvent(self, ev: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        erase = (self.erase or ev.button() == Qt.MouseButton.RightButton
                 or bool(ev.modifiers() & Qt.KeyboardModifier.ShiftModifier))
        self.value, self.stroke = not erase, []
        self._add(ev.position().toPoint())

    def mouseMoveEvent(self, ev: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        if self.value is not None:
            self._add(ev.position().toPoint())

    def mouseReleaseEvent(self, ev: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        if self.value is None:
            return
        self._add(ev.position().toPoint())
        cells, value = self.stroke, self.value
        self.stroke, self.value = [], None
        self.update()
        if cells:
            self.strokeFinished.emit(cells, value)

    def _add(self, pos: QPoint) -> None:
        cell = self.cell_at(pos)
        if cell is not None and cell not in self.stroke:
            self.stroke.append(cell)
            self.update(self.cell_rect(*cell))

    @guarded
    def paintEvent(self, ev) -> None:  # noqa: N802 - Qt's name
        p = QPainter(self)
        try:
            L, S = self.mask.shape
            p.setPen(QPen(GRID))
            for c in range(S):
                p.drawText(QRect(MARGIN + c * CELL, 0, CELL, MARGIN), Qt.AlignmentFlag.AlignCenter,
                           numbers.position(c))
            for r in range(L):
                p.drawText(QRect(0, MARGIN + r * CELL, MARGIN - 4, CELL),
                           Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, numbers.position(r))
            shown = self.mask.copy()
            for r, c in self.stroke:
                shown[r, c] = bool(self.value)
            for r in range(L):
                for c in range(S):
                    rect = self.cell_rect(r, c)
                    p.fillRect(rect, MASKED if shown[r, c] else KEPT)
                    p.setPen(QPen(STROKE if (r, c) in self.stroke else GRID))
                    p.drawRect(rect.adjusted(0, 0, -1, -1))
        finally:
            p.end()


class MaskPainter(QWidget):
    """The window size, and the canvas, the batch item, the Erase toggle and Clear editing
    `doc`'s drawn mask."""

    def __init__(self, doc: "Document", parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.doc = doc
        self.canvas = MaskCanvas(self)
        self.batch_label, self.batch = QLabel(self), QSpinBox(self)
        self.erase, self.clear = QCheckBox(self), QPushButton(self)
        self.window_label, self.window = QLabel(self), QSpinBox(self)
        self.window.setRange(0, 2**31 - 1)  # 0: no window
        wrow = QHBoxLayout()
        wrow.addWidget(self.window_label)
        wrow.addWidget(self.window)
        wrow.addStretch(1)
        self.hint = QLabel(self)
        self.hint.setWordWrap(True)
        row = QHBoxLayout()
        for w in (self.batch_label, self.batch, self.erase, self.clear):
            row.addWidget(w)
        row.addStretch(1)
        lay = QVBoxLayout(self)
        lay.addLayout(wrow)
        lay.addLayout(row)
        lay.addWidget(self.canvas, 0, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        lay.addWidget(self.hint)
        lay.addStretch(1)
        self.canvas.strokeFinished.connect(self.apply_stroke)
        self.erase.toggled.connect(lambda on: setattr(self.canvas, "erase", on))
        self.clear.clicked.connect(self.clear_item)
        self.batch.valueChanged.connect(lambda _: self.refresh())
        self.window.valueChanged.connect(self.set_window)
        doc.changed.connect(self.refresh)
        self.retranslate()
        self.refresh()

    def item(self) -> int:
        """The batch item shown, from 0."""
        return self.batch.value() - 1

    def refresh(self) -> None:
        sc = self.doc.scenario
        self.batch.setRange(1, max(sc.batch, 1))
        drawn = mask_edits.drawing(sc)
        b = self.item()
        fits = drawn is not None and drawn.shape == (sc.batch, sc.L, sc.S)
        self.canvas.set_mask(drawn[b] if fits else np.zeros((sc.L, sc.S), dtype=bool))
        W = mask_edits.window_size(sc)
        with QSignalBlocker(self.window):
            self.window.setValue(W if isinstance(W, int) and W >= 1 else 0)

    def set_window(self, W: int) -> None:
        """The window size (0: none); holding an arrow is one undo step (merged)."""
        size = W if W >= 1 else None
        new = mask_edits.with_window(self.doc.scenario, size)
        text = (words.text("maskpaint.undo_window", W=W) if size else words.text("maskpaint.undo_no_window"))
        self.doc.replace(new, text, merge_key="window" if size else None)  # removing it is a step of its own

    def apply_stroke(self, cells: list, value: bool) -> None:
        """One stroke = one undo step."""
        new = mask_edits.stroke(self.doc.scenario, self.item(), cells, value)
        self.doc.replace(new, words.text("maskpaint.undo_paint" if value else "maskpaint.undo_erase",
                                         n=len(cells), b=numbers.position(self.item())))

    def clear_item(self) -> None:
        sc = self.doc.scenario
        cells = [(r, c) for r in range(sc.L) for c in range(sc.S)]
        self.doc.replace(mask_edits.stroke(sc, self.item(), cells, False),
                         words.text("maskpaint.undo_clear", b=numbers.position(self.item())))

    def retranslate(self) -> None:
        self.window_label.setText(words.text("field.masks.window.size.label"))
        self.window.setToolTip(words.text("field.masks.window.size.help"))
        self.window.setSpecialValueText(words.text("maskpaint.no_window"))
        self.batch_label.setText(words.text("maskpaint.batch"))
        self.erase.setText(words.text("maskpaint.erase"))
        self.clear.setText(words.text("maskpaint.clear"))
        self.hint.setText(words.text("maskpaint.hint"))


class MaskPainterFeature(QObject):
    """Edit ▸ Mask editor…: a dialog with the window size and the painter on the window's document."""

    def __init__(self, host: Any) -> None:
        super().__init__(host.window)
        self.host = host
        self.dialog: Optional[QDialog] = None
        self.painter: Optional[MaskPainter] = None
        self.action = QAction(host.window)
        self.action.triggered.connect(self.open)
        host.add_action(self.action, "edit", group="mask")
        host.on_language_change(self.retranslate)
        self.retranslate()

    def open(self) -> MaskPainter:
        if self.dialog is None:
            self.dialog = QDialog(self.host.window)
            self.painter = MaskPainter(self.host.document, self.dialog)
            QVBoxLayout(self.dialog).addWidget(self.painter)
            self.retranslate()
        self.painter.batch.setValue(self.host.inputs.current_batch() + 1)
        self.dialog.show()
        self.dialog.raise_()
        return self.painter

    def retranslate(self) -> None:
        self.action.setText(words.text("maskpaint.menu"))
        self.action.setStatusTip(words.text("maskpaint.menu_tip"))
        if self.dialog is not None:
            self.dialog.setWindowTitle(words.text("maskpaint.title"))
            self.painter.retranslate()


def install(host: Any) -> MaskPainterFeature:
    """Add Edit ▸ Mask editor… to the host's window; returns its controller."""
    return MaskPainterFeature(host)
