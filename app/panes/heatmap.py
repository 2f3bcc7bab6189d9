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

import html
import math
import re
from typing import Optional

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QFont, QFontMetricsF, QImage

from app.panes.cell_overlay import CellOverlay
from app.panes.paint_guard import guarded
from app.panes.prepared import fast_format
from app.viewmodel.nowrap import keep_together
from app.viewmodel.pane_data import Axis

AXIS_COLOUR = "#202020"
TICK_FONT_PX = 13
#: token labels may shrink down to this before some are left out (a word axis loses meaning
#: when every other word is missing; an index axis does not)
MIN_TOKEN_FONT_PX = 10
LABEL_STYLE = {"color": AXIS_COLOUR, "font-size": "14px"}
#: pixels kept free between two neighbouring tick labels side by side (a bottom axis) and one
#: above the other (a row axis: a line's height already holds its own leading)
TICK_GAP_PX = 8
ROW_TICK_GAP_PX = 1
#: labels measured to size the stride: the first ones and the last ones (the widest index)
_MEASURED = 128


def tick_stride(n: int, cell_px: float, label_px: float, gap: float = TICK_GAP_PX) -> int:
    """The smallest round stride (1, 2, 5, 10, 20, 50, ...) at which labels `label_px` wide,
    one every `stride` cells of `cell_px`, leave `gap` pixels between them."""
    need = label_px + gap
    if cell_px <= 0 or n <= 1:
        return 1
    mag = 1
    while True:
        for m in (1, 2, 5):
            stride = m * mag
            if stride * cell_px >= need or stride >= n:
                return stride
        mag *= 10


def tick_list(axis: Axis, stride: int = 1) -> list[tuple[float, str]]:
    """Every `stride`-th index labelled, from 0 (the same list for every head's axis: memoised)."""
    key = (axis, max(int(stride), 1))
    ticks = _TICKS.get(key)
    if ticks is None:
        if len(_TICKS) >= _MEMO_SIZE:
            _TICKS.clear()
        ticks = _TICKS[key] = [(float(i), axis.tick(i)) for i in range(0, axis.size, key[1])]
    return list(ticks)


def label_extent(axis: Axis, font: QFont, horizontal: bool) -> float:
    """How much room one tick label takes along the axis: its text width on a bottom axis,
    its line height on a left axis (labels are written horizontally).  Memoised by axis and
    font: the twelve heads of a pane have equal axes, and each measured them all anew (a
    128-token edit: a fifth of the GUI thread's time)."""
    key = (axis, font.key(), horizontal)
    out = _EXTENTS.get(key)
    if out is None:
        if len(_EXTENTS) >= _MEMO_SIZE:
            _EXTENTS.clear()
        out = _EXTENTS[key] = _label_extent(axis, font, horizontal)
    return out


def _label_extent(axis: Axis, font: QFont, horizontal: bool) -> float:
    metrics = QFontMetricsF(font)
    if not horizontal:
        return metrics.height()
    n = axis.size
    idx = range(n) if n <= 2 * _MEASURED else [*range(_MEASURED), *range(n - _MEASURED, n)]
    key = font.key()
    widths = _WIDTHS.setdefault(key, {}) if len(_WIDTHS) < 64 else _WIDTHS.get(key, {})
    out = 0.0
    for i in idx:
        text = axis.tick(i)
        w = widths.get(text)
        if w is None:
            w = widths[text] = metrics.horizontalAdvance(text)
        out = max(out, w)
    if len(widths) > 20_000:
        widths.clear()
    return out


#: {font key: {label: width}}: a real model's sentence edit gives every axis of every pane new
#: tokens, and each axis measures them at several font sizes; the same words repeat across axes
#: (128 tokens: 38k measurements, a third of the edit, before this cache)
_WIDTHS: dict[str, dict[str, float]] = {}
#: label_extent's and tick_list's answers by (axis, font, orientation) and (axis, stride): the axes of
#: the panes on screen now and a few before (cleared whole when full: axes are small keys)
_EXTENTS: dict[tuple, float] = {}
_TICKS: dict[tuple, list] = {}
_MEMO_SIZE = 512


class IndexAxis(pg.AxisItem):
    """An axis whose ticks are the indices (or tokens) of a matrix dim, thinned to a round
    stride so that no two labels overlap at the size the axis has on screen (32 keys in a
    narrow pane would otherwise print "8101214..." run together).  The stride is worked out
    again when the axis is resized."""

    #: the labels' font, and the smallest a token label may shrink to (a slide raises both)
    base_px, min_token_px = TICK_FONT_PX, MIN_TOKEN_FONT_PX

    def __init__(self, orientation: str) -> None:
        super().__init__(orientation)
        self._index: Optional[Axis] = None
        self._extent: Optional[tuple[Axis, dict]] = None  # (axis, {font px: label extent}) measured
        self._ticks = None

    def set_index(self, axis: Axis) -> None:
        if axis != self._index:
            self._index = axis
            self._update_ticks()

    def resizeEvent(self, ev=None) -> None:  # noqa: N802 (pyqtgraph override)
        super().resizeEvent(ev)
        self._update_ticks()

    @guarded
    def paint(self, painter, *args) -> None:
        super().paint(painter, *args)

    def _update_ticks(self) -> None:
        axis = getattr(self, "_index", None)  # None also while AxisItem.__init__ resizes itself
        if axis is None:
            return
        horizontal = self.orientation in ("top", "bottom")
        length = self.geometry().width() if horizontal else self.geometry().height()
        base = self.base_px
        px, stride = base, self._stride(axis, base, horizontal, length)
        if horizontal and axis.tokens is not None:
            while stride > 1 and px > self.min_token_px:  # smaller words rather than missing words
                px -= 1
                stride = self._stride(axis, px, horizontal, length)
            if stride > 1:
                px, stride = base, self._stride(axis, base, horizontal, length)
        font = self.style["tickFont"]
        if font is None or font.pixelSize() != px:
            font = QFont(font or QFont())
            font.setPixelSize(px)
            self.setStyle(tickFont=font)
            if horizontal:  # room for the labels at once: pyqtgraph grows it only after a paint that hid them
                needed = math.ceil(QFontMetricsF(font).height()) + 1
                if getattr(self, "textHeight", needed) < needed:
                    self.textHeight = needed
                    self._updateHeight()
        ticks = tick_list(axis, stride)
        if ticks != self._ticks:
            self._ticks = ticks
            self.setTicks([ticks, []])

    def _stride(self, axis: Axis, px: int, horizontal: bool, length: float) -> int:
        if self._extent is None or self._extent[0] != axis:
            self._extent = (axis, {})
        widths = self._extent[1]
        if px not in widths:
            font = QFont(self.style["tickFont"] or QFont())
            font.setPixelSize(px)
            widths[px] = label_extent(axis, font, horizontal)
        gap = TICK_GAP_PX if horizontal else ROW_TICK_GAP_PX
        return tick_stride(axis.size, length / max(axis.size, 1), widths[px], gap) if length > 0 else 1

    def updateAutoSIPrefix(self) -> None:  # noqa: N802 (pyqtgraph override)
        """No SI prefix on an index axis: pyqtgraph wrote the name's HTML anew on every range change."""
        if self.autoSIPrefixScale != 1.0 or self.labelUnitPrefix != "":
            self.autoSIPrefixScale, self.labelUnitPrefix = 1.0, ""
            self._updateLabel()

    def tick_font_px(self) -> int:
        font = self.style["tickFont"]
        return font.pixelSize() if font is not None else self.base_px

    def set_font_px(self, px: int, min_token_px: int) -> None:
        """Labels at `px` (a slide's zoom), token labels never below `min_token_px`."""
        if (px, min_token_px) != (self.base_px, self.min_token_px):
            self.base_px, self.min_token_px = px, min(min_token_px, px)
            self._update_ticks()


def styled_axis(orientation: str) -> IndexAxis:
    axis = IndexAxis(orientation)
    font = QFont()
    font.setPixelSize(TICK_FONT_PX)
    axis.setPen(pg.mkPen(AXIS_COLOUR))
    axis.setTextPen(pg.mkPen(AXIS_COLOUR))
    axis.setTickPen(pg.mkPen(AXIS_COLOUR))
    axis.setStyle(tickFont=font, tickLength=-4, textFillLimits=[(0, 0.98)])
    axis.enableAutoSIPrefix(False)  # a (-0.5, 0.5) range would otherwise read "(x0.001)"
    return axis


#: a Chinese name's pieces: a bracketed part, or a phrase up to and with its punctuation ("滞后（步）" ->
#: "滞后", "（步）"): a line never breaks inside a word (a short matrix once showed 滞 / 后)
_CJK_PIECES = re.compile(r"[（(【「][^）)】」]*[）)】」]?|[^（(【「，、：；]+[，、：；]?|[，、：；]")


_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
#: a space between a number or symbol and a Chinese word ("H 个头", "S 个键"): one unit
_HAN_SPACE = re.compile(r"(?<=\w) (?=[\u4e00-\u9fff])|(?<=[\u4e00-\u9fff]) (?=\w)")


def _pieces(name: str) -> list[tuple[str, str]]:
    """Where an axis name may break: (piece, the glue before it on one line).  At the spaces of the prose, never
    inside brackets or beside an operator ("(L + 2)", nowrap.keep_together) nor between a number or symbol and
    its Chinese word ("H 个头"); in Chinese also between phrases and before a bracket."""
    out: list[tuple[str, str]] = []
    glued = _HAN_SPACE.sub("\u00a0", keep_together(name))
    for word in glued.split(" "):
        parts = _CJK_PIECES.findall(word) if _HAN.search(word) else [word]
        out += [(p, "" if i else " ") for i, p in enumerate(parts or [word])]
    return out


def wrapped_name(name: str, font_px: int, length: float) -> str:
    """An axis name as HTML, broken into lines no longer than `length` pixels at `font_px`
    (a row axis's name runs along the matrix height: "chosen queries, by rank" was cut off
    beside a short matrix).  Breaks at spaces, or in text without them (Chinese) only between
    phrases and brackets, never inside a word: a piece longer than a line stays whole."""
    font = QFont()
    font.setPixelSize(font_px)
    metrics = QFontMetricsF(font)
    if length <= 0 or metrics.horizontalAdvance(name) <= length:
        return html.escape(name)
    lines, line = [], ""
    for piece, glue in _pieces(name):
        candidate = f"{line}{glue}{piece}" if line else piece
        if line and metrics.horizontalAdvance(candidate) > length:
            lines.append(line)
            line = piece
        else:
            line = candidate
    lines.append(line)
    return "<br>".join(html.escape(x) for x in lines)


class AxisLabels:
    """Ticks and name of one IndexAxis, set only when they change (setTicks redraws the axis)."""

    def __init__(self, axis: IndexAxis) -> None:
        self.axis = axis
        self._name = None

    def set(self, axis: Axis, name: str) -> None:
        self.axis.set_index(axis)
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

    def render(self) -> None:
        """pyqtgraph's mapping, then the result in the raster engine's own pixel format.

        pyqtgraph maps a matrix through a 256-colour table into an Indexed8 QImage; Qt's raster
        engine scales such an image to the cells through a slow generic path on every paint.
        Premultiplied ARGB32 takes the fast scaling path (several times faster, as bench/gui.py
        showed) and costs one conversion of a small image per change."""
        super().render()
        self.qimage = fast_format(self.qimage)

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

    @guarded
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
