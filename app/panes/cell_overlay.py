"""One QGraphicsItem per heatmap that paints everything drawn over the colours.

It paints, in screen pixels (the item's transform is read once, then reset, so fonts and
hatching never stretch with non-square cells):
- "not computed" cells (NaN) as flat light grey;
- masked cells washed out ("veil") and hatched, so a masked cell is marked, not just dark;
- thin lines between heads where H heads' features sit side by side;
- the numbers of small matrices (see `prints_numbers`), sized to fit the cell, dark on
  light cells and light on dark ones, all from one paint() (a TextItem per cell would cost a
  QGraphicsItem each and be far slower);
- the outline of the hovered cell;
- marked cells (`set_marks`): the cell being explained and the cells it came from, a quiz's
  right and wrong answers; each layer of marks an outline of its own colour.
Cell (r, c) covers [c - 0.5, c + 0.5] × [r - 0.5, r + 0.5] in item coordinates, as the image.
"""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPen, QPixmap, QStaticText, QTransform
from PySide6.QtWidgets import QGraphicsItem

from app.panes.paint_guard import guarded

MAX_TEXT = 16  # matrices up to 16 x 16 always print their numbers; ...
MAX_TEXT_CELLS = 256  # ... wider ones too, up to 256 cells and 32 a side (6 x 32 projections)
MAX_TEXT_SIDE = 32


def prints_numbers(rows: int, cols: int) -> bool:
    """Whether a matrix gets numbers in its cells (never per-cell items: one paint() for all)."""
    return ((rows <= MAX_TEXT and cols <= MAX_TEXT)
            or (rows * cols <= MAX_TEXT_CELLS and max(rows, cols) <= MAX_TEXT_SIDE))
MIN_FONT_PX = 9
MAX_FONT_PX = 20
READABLE_PX = 13
DIGITS = (4, 3, 2)
NC_COLOUR = QColor(214, 214, 214)
VEIL_COLOUR = QColor(255, 255, 255, int(255 * 0.55))
DARK_TEXT = QColor(20, 20, 20)
LIGHT_TEXT = QColor(250, 250, 250)
GROUP_PEN_COLOUR = QColor(30, 30, 30)
FRAME_COLOUR = QColor(110, 110, 110)
MAX_RUNS = 20000  # hatching is drawn per run of masked cells in a row; masks here have 1 per row


def runs(mask: Optional[np.ndarray]) -> np.ndarray:
    """(k, 3) int array of (row, first col, end col) for every horizontal run of True cells."""
    if mask is None or not mask.any():
        return np.zeros((0, 3), dtype=np.intp)
    r, c = mask.shape
    padded = np.zeros((r, c + 2), dtype=np.int8)
    padded[:, 1:-1] = mask
    d = np.diff(padded, axis=1)
    starts = np.argwhere(d == 1)
    ends = np.argwhere(d == -1)
    return np.column_stack([starts[:, 0], starts[:, 1], ends[:, 1]])


class LazyRuns:
    """The runs of a bool matrix, found when first needed: panes out of sight never pay."""

    def __init__(self, mask: Optional[np.ndarray] = None) -> None:
        self.mask = mask
        self._runs: Optional[np.ndarray] = None

    def get(self) -> np.ndarray:
        if self._runs is None:
            self._runs = runs(self.mask)
        return self._runs


NO_RUNS = LazyRuns(None)


def _hatch_brush(colour: QColor, spacing: int = 9, width: float = 1.6) -> QBrush:
    """Diagonal lines on a transparent tile: visible over any colour, scales with nothing."""
    pix = QPixmap(spacing, spacing)
    pix.fill(Qt.GlobalColor.transparent)
    p = QPainter(pix)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setPen(QPen(colour, width))
    p.drawLine(QPointF(-1, spacing + 1), QPointF(spacing + 1, -1))
    p.drawLine(QPointF(-1, 1), QPointF(1, -1))
    p.drawLine(QPointF(spacing - 1, spacing + 1), QPointF(spacing + 1, spacing - 1))
    p.end()
    return QBrush(pix)


def _cross_brush(colour: QColor, spacing: int = 8) -> QBrush:
    """A thin cross-hatch: "nothing here", unlike the single diagonal of a masked cell."""
    pix = QPixmap(spacing, spacing)
    pix.fill(Qt.GlobalColor.transparent)
    p = QPainter(pix)
    p.setPen(QPen(colour, 1.0))
    p.drawLine(QPointF(0, 0), QPointF(spacing, spacing))
    p.drawLine(QPointF(0, spacing), QPointF(spacing, 0))
    p.end()
    return QBrush(pix)


_DIGITS_AS_ZERO = str.maketrans("123456789", "000000000")
_ADVANCES: dict[tuple[int, str], float] = {}  # (pixel size, label) -> width (labels repeat across edits)


def _advance(text: str, px: int) -> float:
    """Width of `text` in the default font at `px` pixels (memoised; GUI thread only)."""
    key = (px, text)
    width = _ADVANCES.get(key)
    if width is None:
        if len(_ADVANCES) > 20000:
            _ADVANCES.clear()
        font = QFont()
        font.setPixelSize(px)
        width = _ADVANCES[key] = QFontMetricsF(font).horizontalAdvance(text)
    return width


class TextFit:
    """One font size and precision for every matrix of a pane, chosen from the cell size.

    Prefers more significant digits (4, then 3, then 2) as long as the font stays readable
    (at least READABLE_PX, or the cell's ideal size if smaller); hides numbers below MIN_FONT_PX."""

    REF_PX = 100

    def __init__(self, text_fns: list[Callable[[int], list[str]]], previous: Optional["TextFit"] = None) -> None:
        self._fns = [f for f in text_fns if f is not None]
        # f.sample(digits) -> a few of f's labels, where the text functions offer it
        self._samples = [getattr(f, "sample", None) for f in self._fns]
        # the pane's last choices (usually still right after an edit); only the choices are
        # kept, not the fit, whose labels hold the old trace (a pane out of sight is never
        # painted, and a chain of fits would keep every trace it was given)
        self._previous: Optional[dict] = None if previous is None else (previous._cache or previous._previous)
        self._cache: dict = {}
        self._ref_width: dict[int, float] = {}
        self._widest: dict[int, list[str]] = {}
        self.scale = 1.0  # export resolution scale: the font cap grows with it
        # slides (app.teaching.presentation): a font size numbers should not go below while some
        # precision still fits (None: the desk-top rule), the most digits allowed (one precision
        # for every pane of a slide) and the font's share of the cell height
        self.floor_px: Optional[int] = None
        self.max_digits = DIGITS[0]
        self.height_ratio = 0.5
        #: no number is drawn under this font size (slides: digits under 14 px tall are left out,
        #: the colour stays); None: down to MIN_FONT_PX
        self.least_px: Optional[int] = None

    def _candidates(self, digits: int) -> list[str]:
        """The few longest labels, one per digit pattern: only they can be the widest.

        Digits share one advance (tabular figures, as in the UI fonts Qt picks; "-0.123" and
        "-4.567" measure the same), so one label per pattern ("-0.000") is measured instead of
        every cell's: a few measurements instead of hundreds per pane and edit."""
        if digits not in self._widest:
            labels = {s for f in self._fns for s in f(digits)}
            longest = max((len(s) for s in labels), default=0)
            shapes = {s.translate(_DIGITS_AS_ZERO): s for s in labels if len(s) >= longest - 2}
            self._widest[digits] = list(shapes.values())
        return self._widest[digits]

    def _max_width(self, digits: int, px: int) -> float:
        return max((_advance(s, px) for s in self._candidates(digits)), default=0.0)

    def choose(self, cell_w: float, cell_h: float) -> Optional[tuple[int, int]]:
        key = (round(cell_w, 1), round(cell_h, 1), self.scale, self.floor_px, self.max_digits, self.height_ratio,
               self.least_px)
        if key not in self._cache:
            got = self._reuse(key, cell_w, cell_h) or self._choose(cell_w, cell_h)
            self._cache[key] = None if got is not None and self.least_px and got[0] < self.least_px else got
            self._previous = None
        return self._cache[key]

    def _reuse(self, key, cell_w: float, cell_h: float) -> Optional[tuple[int, int]]:
        """The previous numbers' best choice (full size, all digits) if the new ones fit it too:
        one measurement instead of a search."""
        old = self._previous.get(key) if self._previous is not None else None
        if not self._fns or old is None:
            return None
        px, digits = old
        ideal = int(min(cell_h * self.height_ratio, MAX_FONT_PX * self.scale))
        if digits == DIGITS[0] and px == ideal and self._max_width(digits, px) <= cell_w - 8:
            return old
        return None

    def _nothing_fits(self, room: float) -> bool:
        """True when a few labels alone prove that the search below would find nothing: for
        every precision, one of them is wider than the room even at MIN_FONT_PX.  (Cells too
        small for numbers, e.g. a 32-wide projection, are the common case after an edit; the
        proof costs a dozen labels instead of formatting every cell three times.)"""
        if not self._samples or any(s is None for s in self._samples):
            return False
        for digits in DIGITS:
            widest = max((_advance(t, MIN_FONT_PX) for s in self._samples for t in s(digits)), default=0.0)
            if widest <= room:
                return False
        return True

    def _choose(self, cell_w: float, cell_h: float) -> Optional[tuple[int, int]]:
        if not self._fns:
            return None
        ideal = int(min(cell_h * self.height_ratio, MAX_FONT_PX * self.scale))
        room = cell_w - 8
        if self._nothing_fits(room):
            return None
        options = []
        wanted = min(ideal, READABLE_PX * self.scale)
        if self.floor_px is not None:
            wanted = max(wanted, self.floor_px)  # fewer digits rather than smaller ones
        for digits in [d for d in DIGITS if d <= self.max_digits] or [DIGITS[-1]]:
            if digits not in self._ref_width:
                self._ref_width[digits] = self._max_width(digits, self.REF_PX)
            ref = self._ref_width[digits]
            px = ideal if ref <= 0 else min(ideal, int(self.REF_PX * room / ref))
            while px >= MIN_FONT_PX and self._max_width(digits, px) > room:
                px -= 1  # hinting makes widths not quite proportional
            if px >= MIN_FONT_PX:
                options.append((px, digits))
                if px >= wanted:
                    return px, digits
        return max(options) if options else None


class CellOverlay(QGraphicsItem):
    """Numbers, hatching and "not computed" marks over one heatmap image."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption, False)
        self.setAcceptHoverEvents(False)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self._rows = self._cols = 0
        self._text_fn: Optional[Callable[[int], list[str]]] = None
        self._dark: Optional[np.ndarray] = None  # (rows*cols,) bool
        self._dark_fn: Optional[Callable[[], np.ndarray]] = None
        self._nc = NO_RUNS
        self._masked = NO_RUNS
        self._veil = True
        self._group = 0
        self._hover: Optional[tuple[int, int]] = None
        self._layout_key = None
        self._layout: Optional[tuple] = None  # (font, [(QStaticText, w, h, dark)])
        self._hatch_dark = _hatch_brush(QColor(40, 40, 40, 190))
        self._hatch_light = _hatch_brush(QColor(255, 255, 255, 200))
        self._cross = _cross_brush(QColor(150, 150, 150))
        self._scale = 1.0  # export resolution scale (fonts may grow with it)
        self._exporting = False
        self._static: dict = {}  # label -> (QStaticText, width, height) at font size _static_px
        self._static_px = 0
        self.fit: Optional[TextFit] = None  # shared by the heads of one pane: one font for all
        self.numbers_hidden = False  # True when the cells were too small for any number
        self._marks: dict[str, dict[tuple[int, int], QColor]] = {}  # layer -> cell -> outline colour
        self.on_numbers_hidden: Optional[Callable[[bool], None]] = None

    # ---- content ---------------------------------------------------------------------------
    def set_content(self, text_fn: Optional[Callable[[int], list[str]]], dark: Optional[Callable[[], np.ndarray]],
                    nc: LazyRuns, masked: LazyRuns, veil: bool, group: int) -> None:
        """text_fn(digits) -> the cells' labels, row-major, or None for no numbers; dark() ->
        (rows, cols) bool, dark text wanted (computed at the first paint); nc / masked: the
        not-computed and masked cells.  The shape comes from the heatmap (set_shape)."""
        self._text_fn = text_fn
        self._dark_fn = dark
        self._dark = None
        self._nc = nc
        self._masked = masked
        self._veil = veil
        self._group = group
        self._layout_key = None
        self._layout = None
        self.update()

    def set_shape(self, rows: int, cols: int) -> None:
        if (rows, cols) != (self._rows, self._cols):
            self.prepareGeometryChange()
            self._rows, self._cols = rows, cols
            self._hover = None

    def setExportMode(self, export: bool, opts: Optional[dict] = None) -> bool:  # noqa: N802
        """pyqtgraph's exporters call this: at 2x resolution, allow 2x larger numbers too."""
        self._exporting = export  # no hover outline in a picture
        scale = float((opts or {}).get("resolutionScale", 1.0)) if export else 1.0
        if scale != self._scale:
            self._scale = scale
            self._layout_key = None
            if self.fit is not None:
                self.fit.scale = scale
        return True

    def set_hover(self, cell: Optional[tuple[int, int]]) -> None:
        if cell != self._hover:
            self._hover = cell
            self.update()

    def set_marks(self, layer: str, cells: dict[tuple[int, int], QColor]) -> None:
        """Outline `cells` ((row, col) -> colour) as layer `layer`; an empty dict removes the layer.
        Layers are painted in the order they were first set."""
        cells = {(int(r), int(c)): QColor(col) for (r, c), col in cells.items()}
        if cells == self._marks.get(layer, {}):
            return
        if cells:
            self._marks[layer] = cells
        else:
            self._marks.pop(layer, None)
        self.update()

    def marks(self, layer: str) -> dict[tuple[int, int], QColor]:
        """The cells outlined in `layer` (tests)."""
        return dict(self._marks.get(layer, {}))

    def has_not_computed(self) -> bool:
        return self._nc.mask is not None

    def not_computed_cells(self) -> np.ndarray:
        """(rows, cols) bool of the cells painted as not computed (for tests and export)."""
        out = np.zeros((self._rows, self._cols), dtype=bool)
        for r, c0, c1 in self._nc.get():
            out[r, c0:c1] = True
        return out

    def marked_cells(self) -> np.ndarray:
        """(rows, cols) bool of the cells painted as masked."""
        out = np.zeros((self._rows, self._cols), dtype=bool)
        for r, c0, c1 in self._masked.get():
            out[r, c0:c1] = True
        return out

    def dark_text(self) -> Optional[np.ndarray]:
        """(rows, cols) bool: where the numbers are drawn dark (None without numbers)."""
        if self._dark is None and self._dark_fn is not None:
            self._dark = np.asarray(self._dark_fn(), dtype=bool).ravel()
        return None if self._dark is None else self._dark.reshape(self._rows, self._cols)

    def labels(self, digits: int = 4) -> Optional[list[str]]:
        """The texts painted in the cells, row-major (None without numbers)."""
        return None if self._text_fn is None else list(self._text_fn(digits))

    def has_numbers(self) -> bool:
        return self._text_fn is not None

    # ---- QGraphicsItem -----------------------------------------------------------------------
    def boundingRect(self) -> QRectF:
        return QRectF(-0.5, -0.5, self._cols, self._rows)

    @guarded
    def paint(self, painter: QPainter, option, widget=None) -> None:
        if not self._rows:
            return
        t = painter.transform()
        if abs(t.m12()) > 1e-9 or abs(t.m21()) > 1e-9:
            return  # never rotated in these panes
        painter.save()
        try:
            self._paint(painter, t.m11(), t.m22(), t.dx(), t.dy())
        finally:
            painter.restore()

    def _paint(self, painter: QPainter, sx: float, sy: float, dx: float, dy: float) -> None:
        painter.setTransform(QTransform())

        def rect(r0: float, r1: float, c0: float, c1: float) -> QRectF:
            return QRectF(QPointF(dx + (c0 - 0.5) * sx, dy + (r0 - 0.5) * sy),
                          QPointF(dx + (c1 - 0.5) * sx, dy + (r1 - 0.5) * sy)).normalized()

        nc_runs = self._nc.get()
        if len(nc_runs) <= MAX_RUNS:
            for r, c0, c1 in nc_runs:
                q = rect(r, r + 1, c0, c1)
                painter.fillRect(q, NC_COLOUR)
                painter.fillRect(q, self._cross)
        mask_runs = self._masked.get()
        if len(mask_runs) <= MAX_RUNS:
            hatch = self._hatch_dark if self._veil else self._hatch_light
            for r, c0, c1 in mask_runs:
                q = rect(r, r + 1, c0, c1)
                if self._veil:
                    painter.fillRect(q, VEIL_COLOUR)
                painter.fillRect(q, hatch)
        if self._group and self._cols > self._group:
            painter.setPen(QPen(GROUP_PEN_COLOUR, 2.0 * self._scale))
            for c in range(self._group, self._cols, self._group):
                x = dx + (c - 0.5) * sx
                painter.drawLine(QPointF(x, dy - 0.5 * sy), QPointF(x, dy + (self._rows - 0.5) * sy))
        painter.setPen(QPen(FRAME_COLOUR, self._scale))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(rect(0, self._rows, 0, self._cols))
        if self._text_fn is not None:
            self._paint_numbers(painter, abs(sx), abs(sy), sx, sy, dx, dy)
        if self._marks and not self._exporting:
            self._paint_marks(painter, rect)
        if self._hover is not None and not self._exporting:
            r, c = self._hover
            q = rect(r, r + 1, c, c + 1)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.setPen(QPen(QColor(255, 255, 255), 4.0))
            painter.drawRect(q)
            painter.setPen(QPen(QColor(0, 0, 0), 2.0))
            painter.drawRect(q)

    def _paint_marks(self, painter: QPainter, rect) -> None:
        """A white halo under a coloured outline inside each marked cell: visible on any colour."""
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for cells in self._marks.values():
            for (r, c), colour in cells.items():
                if r >= self._rows or c >= self._cols:
                    continue
                q = rect(r, r + 1, c, c + 1).adjusted(3, 3, -3, -3)
                painter.setPen(QPen(QColor(255, 255, 255), 5.0))
                painter.drawRect(q)
                painter.setPen(QPen(colour, 3.0))
                painter.drawRect(q)

    # ---- numbers ---------------------------------------------------------------------------
    def _text_layout(self, cell_w: float, cell_h: float):
        """Font and prepared texts for this cell size, or None when no number fits (cached)."""
        key = (round(cell_w, 1), round(cell_h, 1), self._scale)
        if key == self._layout_key:
            return self._layout
        self._layout_key = key
        fit = (self.fit.choose(cell_w, cell_h) if self.fit is not None
               else TextFit([self._text_fn]).choose(cell_w, cell_h))
        if fit is None:
            self._layout = None
        else:
            px, digits = fit
            font = QFont()
            font.setPixelSize(px)
            self._layout = (font, self._prepare(self._text_fn(digits), font))
        hidden = self._layout is None
        if hidden != self.numbers_hidden:
            self.numbers_hidden = hidden
            if self.on_numbers_hidden is not None:
                self.on_numbers_hidden(hidden)
        return self._layout

    def _prepare(self, texts: list[str], font: QFont) -> list:
        """QStaticText per label, reused across updates while the font stays the same."""
        key = font.pixelSize()
        if key != self._static_px or len(self._static) > 4096:
            self._static, self._static_px = {}, key
        out = []
        cache = self._static
        for s in texts:
            item = cache.get(s)
            if item is None:
                st = QStaticText(s)
                st.setTextFormat(Qt.TextFormat.PlainText)
                st.setPerformanceHint(QStaticText.PerformanceHint.AggressiveCaching)
                st.prepare(QTransform(), font)
                size = st.size()
                item = cache[s] = (st, size.width(), size.height())
            out.append(item)
        return out

    def _paint_numbers(self, painter: QPainter, cell_w, cell_h, sx, sy, dx, dy) -> None:
        lay = self._text_layout(cell_w, cell_h)
        if lay is None:
            return
        font, prepared = lay
        painter.setFont(font)
        self.dark_text()
        dark = self._dark
        cols = self._cols
        for want_dark, colour in ((True, DARK_TEXT), (False, LIGHT_TEXT)):
            painter.setPen(colour)
            for i, (st, w, h) in enumerate(prepared):
                if dark is not None and bool(dark[i]) != want_dark:
                    continue
                if dark is None and not want_dark:
                    continue
                r, c = divmod(i, cols)
                painter.drawStaticText(QPointF(dx + c * sx - w / 2, dy + r * sy - h / 2), st)
