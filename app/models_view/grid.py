"""The model view: every layer x head of a loaded model as one small attention-weight heatmap.

What BertViz calls the model view: rows are layers, columns heads, each cell the (query x key)
weights of the shown sentence.  Each cell is coloured against its own largest weight (the
patterns differ by orders of magnitude between heads; the hover line gives the real number).
A cell may be a part of the weights (rows from one sentence of a pair, columns from the other:
then it is rows x cols, drawn stretched to a square).  The grid is painted with one QImage per
cell, so a 6 x 12 grid of 128-token heatmaps repaints in milliseconds.  Hover: the layer, head,
query and key tokens and the weight, read again whenever the numbers change under a still
pointer (a sentence edit); click: `cellClicked`; right-click: `cellMenu` (app.models_view.head_tools builds
the menu).  An altered head (knocked out or patched) is marked in its cell's corner (`set_marks`); the
head-importance map paints each cell one colour of its value instead of its weights (`set_overlay`).

The grid never draws a cell below MIN_CELL px: its minimum size is the whole grid at that size, so in the
Model dock's page (a scroll area) a deep model (SmolLM2's 30 x 9 at 720 px) scrolls with the wheel instead of
shrinking to unclickable 4-px cells.  Labels are drawn only where they fit: "H12" becomes "12", and where even
that does not fit only every few heads are named.
"""
from __future__ import annotations

import functools
from typing import Optional

import numpy as np
from PySide6.QtCore import QPoint, QRect, QSize, Qt, Signal
from PySide6.QtGui import QColor, QImage, QMouseEvent, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from app.panes import colormaps
from app.panes.paint_guard import guarded
from attention.datamodel import numbers

LABEL_W = 26  # room for "L6" on the left
LABEL_H = 16  # room for "H12" on top (numbered from 1, as the step panes number heads)
GAP = 3
#: the cell size the grid asks for: the dock's first width comes from it, and every pixel of it is taken
#: from the Steps column (48-px cells made the dock 592 px wide and Steps 380 at 1600 x 900, too narrow
#: for one 480-px pane; 30-px cells leave Steps ~540)
HINT_CELL = 30
MARK_W = 12  # room for a layer's mark (● global / ○ local, Gemma 3) left of "L6"
#: the smallest cell drawn: a cell a person can aim a click at, with a label row per layer beside it
MIN_CELL = 12
#: the least a grid asks for, whatever its shape (the rollout's one heatmap)
MIN_W, MIN_H = 200, 120


def _lut_index(grid: np.ndarray) -> np.ndarray:
    """(NL, H, n, n) uint8 LUT entries: each cell's weights scaled by its own peak to 0..255.

    Display only, so in float32 (a 6 x 12 grid of 128 tokens is 1.2 M weights: colormaps.lut_index's
    float64 copies took 15 ms of every sentence edit, this 3 ms); NaN goes to 0, as lut_index sends it,
    and a cell without weight (peak 0) stays 0."""
    g = np.asarray(grid, dtype=np.float32)
    if g.size == 0:
        return np.zeros(g.shape, dtype=np.uint8)
    peak = g.max(axis=(2, 3), keepdims=True)
    scale = np.float32(255.0) / np.where(peak > 0, peak, np.float32(1.0)).astype(np.float32)
    idx = g * scale  # a new array: the caller's weights stay as they are
    np.fmax(idx, 0, out=idx)  # NaN -> 0 (fmax keeps the number), negatives -> 0
    np.fmin(idx, 255, out=idx)
    return idx.astype(np.uint8)


@functools.lru_cache(maxsize=1)
def _argb() -> np.ndarray:
    """The weights palette as 256 0xAARRGGBB words (made once: the palette never changes)."""
    lut = colormaps.palette("weights").lut.astype(np.uint32)
    words = (0xFF000000 | (lut[:, 0] << 16) | (lut[:, 1] << 8) | lut[:, 2]).astype(np.uint32)
    words.flags.writeable = False
    return words


class ModelGrid(QWidget):
    cellClicked = Signal(int, int)  # layer, head
    pointClicked = Signal(int, int, int, int)  # layer, head, query, key
    hovered = Signal(str)  # the hover line ("" when the pointer leaves the cells)
    cellMenu = Signal(int, int, QPoint)  # layer, head, global position: a right-click on a cell

    def __init__(self, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self._images: list[list[QImage]] = []
        self._buffers: Optional[np.ndarray] = None  # keeps the QImages' memory alive
        self._layers = self._heads = self._n = self._cols = 0  # _n: rows of a cell's weights
        self._pointer: Optional[QPoint] = None  # where the mouse is over the grid (None: elsewhere)
        self._focus = (0, -1)
        self.describe = lambda layer, head, q, k: ""  # set by the panel: the hover line
        self.show_labels = True  # "H1" / "L1" over the cells (off for one token x token heatmap)
        self.layer_kinds: list[bool] = []  # per layer: True ● (a global layer), False ○ (a local one); []: none
        self._marks: dict[tuple[int, int], str] = {}  # altered heads: (layer, head) -> corner letter
        self._overlay: Optional[np.ndarray] = None  # (NL, H) 0xAARRGGBB: one colour per cell (the importance map)
        self._overlay_text: dict[tuple[int, int], str] = {}
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._on_menu)

    # ---- data ------------------------------------------------------------------------------------
    def set_weights(self, grid: np.ndarray) -> None:
        """grid (n_layers, H, rows, cols) in [0, 1]: recolour every cell, repaint, and say what is under
        the pointer now (the hover line must never keep the numbers of the sentence before)."""
        NL, H, n, m = grid.shape
        reshaped = (NL, H) != (self._layers, self._heads)
        self._layers, self._heads, self._n, self._cols = NL, H, n, m
        self._buffers = np.take(_argb(), _lut_index(grid))  # (NL, H, n, m) uint32 (take: half the time of [ ])
        self._images = [[QImage(self._buffers[layer, h].data, m, n, 4 * m, QImage.Format.Format_RGB32)
                         for h in range(H)] for layer in range(NL)]
        if reshaped:
            self.updateGeometry()  # another model: another least size
        self.update()
        if self._pointer is not None:
            self._hover_at(self._pointer, None)

    def set_layer_kinds(self, kinds: list[bool]) -> None:
        """Mark each row as a global (●) or local (○) layer (Gemma 3); [] for none."""
        if list(kinds) != self.layer_kinds:
            self.layer_kinds = list(kinds)
            self.update()

    def label_w(self) -> int:
        return LABEL_W + (MARK_W if self.layer_kinds and self.show_labels else 0)

    def set_marks(self, marks: dict[tuple[int, int], str]) -> None:
        """Mark altered heads: their cell is crossed and carries `marks[(layer, head)]` in its corner."""
        if marks != self._marks:
            self._marks = dict(marks)
            self.update()

    def set_overlay(self, colours: Optional[np.ndarray], texts: Optional[dict[tuple[int, int], str]] = None) -> None:
        """Paint each cell in one colour (NL, H) 0xAARRGGBB, with `texts` written in it where it has room (the
        head-importance map over the grid); None: the weights again."""
        self._overlay = None if colours is None else np.asarray(colours, dtype=np.uint32)
        self._overlay_text = dict(texts or {})
        self.update()

    def has_overlay(self) -> bool:
        return self._overlay is not None

    def set_focus(self, layer: int, head: int) -> None:
        """Outline the open layer (and the focused head, or the whole row for all heads)."""
        if (layer, head) != self._focus:
            self._focus = (layer, head)
            self.update()

    # ---- geometry -------------------------------------------------------------------------------
    def cell_size(self) -> int:
        """The side of a cell in px: the largest that fits, never below MIN_CELL (0 before the grid is laid out)."""
        if not self._layers or not self._heads or not self.isVisible() or self.width() <= LABEL_W:
            return 0
        w = (self.width() - self.label_w()) // self._heads - GAP
        h = (self.height() - LABEL_H) // self._layers - GAP
        return max(MIN_CELL, min(w, h))

    def cell_rect(self, layer: int, head: int) -> QRect:
        c = self.cell_size()
        return QRect(self.label_w() + head * (c + GAP), LABEL_H + layer * (c + GAP), c, c)

    def hit(self, pos: QPoint) -> Optional[tuple[int, int, int, int]]:
        """(layer, head, query, key) under `pos`, or None."""
        c = self.cell_size()
        if c <= 0 or self._n == 0 or self._cols == 0:
            return None
        x, y = pos.x() - self.label_w(), pos.y() - LABEL_H
        if x < 0 or y < 0:
            return None
        head, layer = x // (c + GAP), y // (c + GAP)
        dx, dy = x - head * (c + GAP), y - layer * (c + GAP)
        if head >= self._heads or layer >= self._layers or dx >= c or dy >= c:
            return None
        return int(layer), int(head), int(dy * self._n // c), int(dx * self._cols // c)

    def sizeHint(self) -> QSize:
        return QSize(LABEL_W + 12 * (HINT_CELL + GAP), LABEL_H + 6 * (HINT_CELL + GAP)).expandedTo(
            self.minimumSizeHint())

    def minimumSizeHint(self) -> QSize:
        """The whole grid at MIN_CELL px a cell (a scroll area around it shows a bar where it is larger)."""
        return QSize(max(MIN_W, self.label_w() + self._heads * (MIN_CELL + GAP)),
                     max(MIN_H, LABEL_H + self._layers * (MIN_CELL + GAP)))

    def _label_every(self, texts: list[str], room: int) -> tuple[list[str], int]:
        """The labels to draw in `room` px each: "H12" -> "12" where the long one does not fit, and then only
        every k-th (k = 1, 2, 5, 10, ...) where even the short ones would touch."""
        fm = self.fontMetrics()
        if max((fm.horizontalAdvance(t) for t in texts), default=0) + 2 <= room:
            return texts, 1
        short = [t.lstrip("HL") for t in texts]
        widest = max((fm.horizontalAdvance(t) for t in short), default=0) + 2
        for every in (1, 2, 5, 10, 20, 50):
            if widest <= room * every:
                return short, every
        return short, 100

    # ---- painting and the mouse ------------------------------------------------------------------
    @guarded
    def paintEvent(self, event) -> None:
        p = QPainter(self)
        try:
            p.fillRect(self.rect(), QColor("#fafafa"))
            p.setPen(QColor("#555"))
            if self.show_labels:
                self._paint_labels(p)
            for layer in range(self._layers):
                for h in range(self._heads):
                    if self._overlay is None:
                        p.drawImage(self.cell_rect(layer, h), self._images[layer][h])
            self._paint_overlay(p)
            self._paint_marks(p)
            self._paint_focus(p)
        finally:
            p.end()

    def _paint_labels(self, p: QPainter) -> None:
        """"H1" over each head's column and "L1" beside each layer's row, as many as fit (counted from 1), with
        each layer's ● global / ○ local mark left of its label where the model has them (Gemma 3)."""
        c, fh = self.cell_size(), self.fontMetrics().height()
        centre, free = Qt.AlignmentFlag.AlignCenter, Qt.TextFlag.TextDontClip
        heads, every = self._label_every([f"H{numbers.position(h)}" for h in range(self._heads)], c + GAP)
        for h in range(0, self._heads, every):
            r = self.cell_rect(0, h)
            p.drawText(QRect(r.x() - GAP, 0, c + 2 * GAP, LABEL_H), int(centre) | int(free), heads[h])
        rows = [f"L{numbers.position(k)}" for k in range(self._layers)]
        every = next((k for k in (1, 2, 5, 10, 20, 50) if fh <= (c + GAP) * k), 100)
        for layer in range(0, self._layers, every):
            r = self.cell_rect(layer, 0)
            p.drawText(QRect(r.x() - LABEL_W, r.center().y() - fh // 2, LABEL_W - 2, fh), int(centre) | int(free),
                       rows[layer])
        for layer, is_global in enumerate(self.layer_kinds[:self._layers]):  # every mark: local and global differ
            r = self.cell_rect(layer, 0)
            self._paint_layer_kind(p, QRect(0, r.y(), MARK_W, c), is_global)

    def _paint_layer_kind(self, p: QPainter, box: QRect, is_global: bool) -> None:
        """● for a global layer, ○ for a local one (drawn, not a glyph: every font has it then)."""
        d = max(4, min(8, box.height() - 2))
        dot = QRect(box.x() + (box.width() - d) // 2, box.y() + (box.height() - d) // 2, d, d)
        p.save()
        p.setPen(QPen(QColor("#333"), 1.2))
        p.setBrush(QColor("#333") if is_global else Qt.BrushStyle.NoBrush)
        p.drawEllipse(dot)
        p.restore()

    def _paint_overlay(self, p: QPainter) -> None:
        if self._overlay is None or self._overlay.shape != (self._layers, self._heads):
            return
        c = self.cell_size()
        for (layer, h), argb in np.ndenumerate(self._overlay):
            r = self.cell_rect(layer, h)
            colour = QColor.fromRgb(int(argb))
            p.fillRect(r, colour)
            text = self._overlay_text.get((layer, h))
            if text and c >= 8 * len(text):
                p.setPen(QColor("#111") if colour.lightness() > 120 else QColor("#fff"))
                p.drawText(r, Qt.AlignmentFlag.AlignCenter, text)

    def _paint_marks(self, p: QPainter) -> None:
        """A cross over each altered head's cell and its letter in the top-left corner."""
        if not self._marks:
            return
        c = self.cell_size()
        for (layer, h), mark in self._marks.items():
            if not (0 <= layer < self._layers and 0 <= h < self._heads):
                continue
            r = self.cell_rect(layer, h)
            p.setPen(QPen(QColor(255, 255, 255, 200), 3))
            p.drawLine(r.topLeft(), r.bottomRight())
            p.drawLine(r.topRight(), r.bottomLeft())
            p.setPen(QPen(QColor("#d62728"), 1))
            p.drawLine(r.topLeft(), r.bottomRight())
            p.drawLine(r.topRight(), r.bottomLeft())
            box = QRect(r.x(), r.y(), max(10, c // 2), max(10, c // 2))
            p.fillRect(box, QColor("#d62728"))
            p.setPen(QColor("#fff"))
            p.drawText(box, Qt.AlignmentFlag.AlignCenter, mark)

    def _on_menu(self, pos: QPoint) -> None:
        where = self.hit(pos)
        if where is not None:
            self.cellMenu.emit(where[0], where[1], self.mapToGlobal(pos))

    def _paint_focus(self, p: QPainter) -> None:
        layer, head = self._focus
        if not 0 <= layer < self._layers:
            return
        p.setPen(QPen(QColor("#d62728"), 2))
        p.setBrush(Qt.BrushStyle.NoBrush)
        if 0 <= head < self._heads:
            p.drawRect(self.cell_rect(layer, head).adjusted(-2, -2, 1, 1))
        else:
            first, last = self.cell_rect(layer, 0), self.cell_rect(layer, self._heads - 1)
            p.drawRect(first.united(last).adjusted(-2, -2, 1, 1))

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        self._pointer = event.position().toPoint()
        self._hover_at(self._pointer, event.globalPosition().toPoint())

    def leaveEvent(self, event) -> None:  # noqa: N802 (Qt override)
        self._pointer = None
        self.setToolTip("")
        self.hovered.emit("")
        super().leaveEvent(event)

    def _hover_at(self, pos: QPoint, global_pos: Optional[QPoint]) -> None:
        """The hover line (and tooltip) for the cell under `pos`, from the numbers shown now."""
        where = self.hit(pos)
        text = self.describe(*where) if where else ""
        self.setToolTip(text)
        if text and global_pos is not None:
            QToolTip.showText(global_pos, text, self)
        elif not text:
            QToolTip.hideText()
        self.hovered.emit(text)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        where = self.hit(event.position().toPoint())
        if where is not None and event.button() == Qt.MouseButton.LeftButton:
            self.cellClicked.emit(where[0], where[1])
            self.pointClicked.emit(*where)
            event.accept()
            return
        super().mousePressEvent(event)
