"""One heatmap: a ViewBox holding an ImageItem and a CellOverlay, its bottom axis and head title.

Built once, then only fed with setImage.  Row 0 is at the top (`invertY`), the image is
row-major, and cells sit on integer ticks (the image rect starts at -0.5).  The view never
moves: panning, zooming and the context menu are off, because a pane is a picture of a matrix,
not a plot to explore (and menus cost, pyqtgraph#2497).

The pieces are separate layout items rather than one PlotItem so that a step's heads can share
one row axis on the left and one colour bar on the right, with every head's matrix exactly the
same size (StepPane lays them out in one grid).
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QFont, QImage

from app.panes.cell_overlay import CellOverlay
from app.panes.pane_data import Axis

AXIS_COLOUR = "#202020"
TICK_FONT_PX = 13
LABEL_STYLE = {"color": AXIS_COLOUR, "font-size": "14px"}
MAX_TICK_LABELS = 16


def tick_list(axis: Axis) -> list[tuple[float, str]]:
    """Every index labelled up to ~20 entries; above, a round step (1, 2, 5, 10, 20...)."""
    n = axis.size
    if n <= MAX_TICK_LABELS + 4:
        return [(float(i), axis.tick(i)) for i in range(n)]
    raw = n / MAX_TICK_LABELS
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    return [(float(i), axis.tick(i)) for i in range(0, n, int(step))]


def styled_axis(orientation: str) -> pg.AxisItem:
    axis = pg.AxisItem(orientation)
    font = QFont()
    font.setPixelSize(TICK_FONT_PX)
    axis.setPen(pg.mkPen(AXIS_COLOUR))
    axis.setTextPen(pg.mkPen(AXIS_COLOUR))
    axis.setTickPen(pg.mkPen(AXIS_COLOUR))
    axis.setStyle(tickFont=font, tickLength=-4, textFillLimits=[(0, 0.98)])
    axis.enableAutoSIPrefix(False)  # a (-0.5, 0.5) range would otherwise read "(x0.001)"
    return axis


class AxisLabels:
    """Ticks and name of one AxisItem, set only when they change (setTicks redraws the axis)."""

    def __init__(self, axis: pg.AxisItem) -> None:
        self.axis = axis
        self._ticks = None
        self._name = None

    def set(self, axis: Axis, name: str) -> None:
        ticks = tick_list(axis)
        if ticks != self._ticks:
            self.axis.setTicks([ticks, []])
            self._ticks = ticks
        if name != self._name:
            self.axis.setLabel(name, **LABEL_STYLE)
            self.axis.showLabel(bool(name))
            self._name = name


class _ImageItem(pg.ImageItem):
    """An ImageItem that can also be handed its picture ready-made: a big matrix is colour-mapped
    on the engine's worker thread (app.panes.prepared, with pyqtgraph's own mapping), and paint()
    draws that QImage instead of mapping `image` again on the GUI thread.  `image` still holds
    the numbers (hover, displayed arrays).  The QImage is used only while image, levels and
    lookup table are still the ones it was made from (an exporter may swap the image)."""

    _prepared: Optional[tuple] = None  # (QImage, the image it shows, its levels, its lut)

    def set_picture(self, img: np.ndarray, levels: tuple[float, float], qimage: Optional[QImage]) -> None:
        self.setImage(img, levels=levels, autoLevels=False)
        self._prepared = None if qimage is None else (qimage, self.image, tuple(levels), self.lut)

    def _ready_made(self) -> Optional[QImage]:
        if self._prepared is None:
            return None
        qimage, image, levels, lut = self._prepared
        if self.image is image and self.lut is lut and self.levels is not None and tuple(self.levels) == levels:
            return qimage
        self._prepared = None
        return None

    def paint(self, painter, *args) -> None:
        qimage = self._ready_made()
        if qimage is None:
            super().paint(painter, *args)
            return
        rows, cols = self.image.shape[:2]
        painter.drawImage(QRectF(0, 0, cols, rows), qimage)


class Heatmap:
    """The view, image, overlay, bottom axis and title of one matrix (one head of one step)."""

    def __init__(self) -> None:
        self.vb = pg.ViewBox(enableMouse=False, enableMenu=False, invertY=True, defaultPadding=0.0)
        self.vb.disableAutoRange()
        # no ViewBox border: its closed path breaks pyqtgraph's SVG export under Qt 6.11 (the
        # "Z" command is not parsed); the CellOverlay draws the frame instead
        self.image = _ImageItem(axisOrder="row-major")
        self.vb.addItem(self.image)
        self.overlay = CellOverlay()
        self.overlay.setZValue(10)
        self.vb.addItem(self.overlay, ignoreBounds=True)
        self.bottom = styled_axis("bottom")
        self.bottom.linkToView(self.vb)
        self.bottom_labels = AxisLabels(self.bottom)
        self.title = pg.LabelItem("", size="15px", color=AXIS_COLOUR, bold=True)
        self.shape: Optional[tuple[int, int]] = None
        self._lut = None

    def set_image(self, img: np.ndarray, levels: tuple[float, float], lut: np.ndarray,
                  qimage: Optional[QImage] = None) -> None:
        """img: float32 C-contiguous (rows, cols), finite; explicit levels (no auto-levelling).
        qimage: img already mapped through lut at levels (big matrices), else None."""
        if lut is not self._lut:
            self.image.setLookupTable(lut, update=False)
            self._lut = lut
        self.image.set_picture(img, levels, qimage)
        self.overlay.set_shape(*img.shape)
        if img.shape != self.shape:
            self.shape = img.shape
            rows, cols = img.shape
            self.image.setRect(QRectF(-0.5, -0.5, cols, rows))
            self.vb.setRange(xRange=(-0.5, cols - 0.5), yRange=(-0.5, rows - 0.5), padding=0.0)

    def displayed(self) -> np.ndarray:
        return self.image.image

    def set_title(self, text: str) -> None:
        if self.title.text != text:
            self.title.setText(text)

    def title_contains(self, scene_pos: QPointF) -> bool:
        return self.title.scene() is not None and self.title.sceneBoundingRect().contains(scene_pos)

    def cell_at(self, scene_pos: QPointF) -> Optional[tuple[int, int]]:
        """(row, col) under a scene position, or None outside the matrix."""
        if self.shape is None or self.vb.scene() is None or not self.vb.sceneBoundingRect().contains(scene_pos):
            return None
        p = self.vb.mapSceneToView(scene_pos)
        r, c = int(math.floor(p.y() + 0.5)), int(math.floor(p.x() + 0.5))
        rows, cols = self.shape
        if 0 <= r < rows and 0 <= c < cols:
            return r, c
        return None

    def scene_pos_of(self, r: int, c: int) -> QPointF:
        """Scene position of the centre of cell (r, c) (tests drive the hover with it)."""
        return self.vb.mapViewToScene(QPointF(c, r))
