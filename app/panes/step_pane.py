"""One step of the pipeline: its title, formula and shape above a row of heatmaps (one per head)
that share a row axis and a colour bar.

Heatmaps are built once and kept in a pool: a new trace only calls setImage; a change of head
count or matrix shape re-places existing items in the grid (never recreates ViewBoxes per edit:
pyqtgraph ViewBox destructors can crash in GC, and creating them is slow).

Grid of the GraphicsLayout (rows):
  0  export header (only while exporting: title and formula inside the picture)
  1  head titles ("Head 1", ...; per-head steps only; click one to show that head alone)
  2  row axis | head 1 | head 2 | ... | colour bar
  3           | axis   | axis   | ...
When the pane is narrower than its heads side by side (eight heads at 1366 px), the heads wrap
into further rows of three grid rows each (4-6, 7-9, ...), each with its own row axis, so that
no head and never the colour bar is cut off; the pane grows taller instead.
"""
from __future__ import annotations

import contextlib
import functools
import html
import math
import re
from typing import TYPE_CHECKING, Optional

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, QSize, Qt, Signal
from PySide6.QtGui import QFont, QFontMetricsF
from PySide6.QtWidgets import QFrame, QHBoxLayout, QMenu, QSizePolicy, QVBoxLayout, QWidget

from app.panes import colormaps
from app.panes.cell_overlay import NO_RUNS, LazyRuns, TextFit, prints_numbers
from app.panes.heatmap import AXIS_COLOUR, TICK_FONT_PX, AxisLabels, Heatmap, styled_axis, wrapped_name
from app.panes.scale_lock import ScaleLockControls, clipped_ticks
from app.panes.selectable_label import SelectableLabel
from app.viewmodel import cell_format, pane_text
from app.viewmodel.nowrap import keep_together
from app.viewmodel.pane_data import PaneData, same_numbers
from attention.datamodel import numbers

if TYPE_CHECKING:
    from app.panes.prepared import PanePicture

R_EXPORT, R_TITLE, R_VIEW, R_AXIS = 0, 1, 2, 3
#: grid rows taken by one row of heads (title, view, axis)
ROWS_PER_BAND = 3
#: how much narrower than their natural width cells may be before heads wrap into another row
WRAP_SLACK = 0.1
BAR_WIDTH = 16
BAR_LABELS_PX = 50
MIN_PANE_WIDTH = 380
TITLE_CSS = "font-size: 21px; font-weight: 600; color: #111;"
#: the title's colour while stale, set in its text: switching style sheets re-polishes the label
#: (once per pane, and every pane turns stale while a big trace is being computed)
STALE_COLOUR = "#888"
FORMULA_CSS = "font-size: 16px; color: #1a1a1a; font-family: 'DejaVu Sans Mono', 'Noto Sans Mono CJK SC', monospace;"
SHAPE_CSS = "font-size: 13px; font-weight: 400; color: #555;"
HOVER_CSS = "font-size: 14px; color: #333;"
NAME_PX = 14  # an axis name's font (heatmap.LABEL_STYLE)
NOTICE_CSS = "font-size: 15px; color: #5c4400; background: #fff3cd; border: 1px solid #e0c060; padding: 8px;"


#: a Chinese character (CJK Unified Ideographs, extension A and the compatibility block)
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
WORD_JOINER = "\u2060"  # no line break here, and nothing drawn (Qt's line breaking honours it)
NBSP = "\u00a0"


def chinese_together(text: str) -> str:
    """`text` with no line break inside a Chinese phrase: a word joiner between two Chinese
    characters and no-break spaces between a Chinese character and a number ("批次第 1 项" is one
    unit; a pane title once wrapped "项" alone onto a line).  Lines still break after "，" and at
    the other spaces; English text is unchanged."""
    out: list[str] = []
    for i, ch in enumerate(text):
        prev = text[i - 1] if i else ""
        nxt = text[i + 1] if i + 1 < len(text) else ""
        if ch == " " and prev and nxt and (_HAN.match(prev) or _HAN.match(nxt)) \
                and (prev.isalnum() and nxt.isalnum()):
            out.append(NBSP)
            continue
        if _HAN.match(ch) and prev and _HAN.match(prev):
            out.append(WORD_JOINER)
        out.append(ch)
    return "".join(out)


def view_height(rows: int) -> int:
    """Pixel height of a matrix: 34 px a row up to 400 px, at least 22 px a row (room for a
    number) up to 32 rows, a fixed frame for bigger ones."""
    if rows <= 32:
        return int(max(min(max(rows * 34, 72), 400), rows * 22))
    return 360


def bar_ticks(kind: str, lv: tuple[float, float]):
    """Colour bar ticks: ✗ / ✓ for booleans (the cells' marks), whole numbers for small counts, else automatic."""
    if kind == "bool":
        return [[(0.0, numbers.flag(False, short=True)), (1.0, numbers.flag(True, short=True))], []]
    if kind in ("count", "index") and lv[1] <= 10:
        return [[(float(i), str(i)) for i in range(int(lv[1]) + 1)], []]
    return None


def _bar_tick_strings(values, scale, spacing) -> list[str]:
    """Colour bar labels by attention.datamodel.numbers' rule (via cell_format), like every other number."""
    return [cell_format.compact(float(v) * scale) for v in values]


#: the height a colour bar label needs, in lines of its font: labels closer than this touch
BAR_LABEL_LINES = 1.3


def _bar_tick_spacing(axis: pg.AxisItem, low: float, high: float, size: float) -> list[tuple[float, float]]:
    """pyqtgraph's tick spacing, its major step widened (1, 2, 5 x 10^k) until every label has a
    line of room: pyqtgraph always asks for at least 2.25 intervals, so on a short bar (a slide's
    eight heads: 62 px) it wrote 0, 0.2, ... 1 in 14 px labels touching one another."""
    levels = pg.AxisItem.tickSpacing(axis, low, high, size)
    span = abs(high - low)
    if not levels or size <= 0 or span == 0:
        return levels
    font = axis.style.get("tickFont")
    need = BAR_LABEL_LINES * (font.pixelSize() if font is not None and font.pixelSize() > 0 else 12)
    major = levels[0][0]
    if major / span * size >= need:
        return levels
    while major / span * size < need and major < span:
        mantissa = major / 10 ** math.floor(math.log10(major))
        major = major / mantissa * (2 if mantissa < 1.5 else 5 if mantissa < 3.5 else 10)
    return [(major, 0.0)]


@functools.lru_cache(maxsize=1)
def _name_font_metrics() -> QFontMetricsF:
    """Metrics of an axis name (LABEL_STYLE's 14 px)."""
    font = QFont()
    font.setPixelSize(14)
    return QFontMetricsF(font)


class _LazyDark:
    """Text colour per cell for every matrix of a pane, worked out at the first paint."""

    def __init__(self, data: PaneData, images: np.ndarray, nan, lv, pal: colormaps.Palette) -> None:
        self._args = (data, images, nan, lv, pal)
        self._dark: Optional[np.ndarray] = None

    def get(self, m: int) -> np.ndarray:
        if self._dark is None:
            data, images, nan, lv, pal = self._args
            idx = colormaps.lut_index(images, lv)
            dark = pal.dark_text[idx]  # light cell -> dark text
            if data.masked is not None and data.mask_style == "veil":
                dark = np.where(data.masked[None], pal.dark_text_veiled[idx], dark)
            if nan is not None:
                dark |= nan  # "not computed" cells are light grey
            self._dark = dark
        return self._dark[m]


class PaneCanvas(pg.GraphicsLayoutWidget):
    """The pane's graphics: white, never zooms; wheel events go on to the scroll area."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setBackground("w")
        self.ci.setContentsMargins(4, 4, 4, 4)
        self.ci.layout.setHorizontalSpacing(6)
        self.ci.layout.setVerticalSpacing(0)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.on_leave = None
        self.on_resize = None  # called after pyqtgraph has resized the grid to the canvas (a slide re-checks it)

    def wheelEvent(self, ev) -> None:  # noqa: N802 (Qt override)
        ev.ignore()  # let the list scroll

    def leaveEvent(self, ev) -> None:  # noqa: N802
        if self.on_leave is not None:
            self.on_leave()
        super().leaveEvent(ev)

    def resizeEvent(self, ev) -> None:  # noqa: N802
        super().resizeEvent(ev)
        hook = getattr(self, "on_resize", None)  # pyqtgraph resizes the view inside its own __init__
        if hook is not None:
            hook()


class _WrapLabel(SelectableLabel):
    """A word-wrapped QLabel that remembers its height for a given width until its text, font or
    style changes.  Qt lays the text out again on every heightForWidth call, and one relayout of
    the Steps list asks every pane's labels many times (titles are rich text).  A double-click
    begun elsewhere selects nothing (app.panes.selectable_label)."""

    def __init__(self) -> None:
        super().__init__()
        self.setWordWrap(True)
        self._hfw: dict[int, int] = {}

    def setText(self, text: str) -> None:  # noqa: N802 (Qt override)
        if text != self.text():
            self._hfw.clear()
            super().setText(text)

    def heightForWidth(self, width: int) -> int:  # noqa: N802 (Qt override)
        height = self._hfw.get(width)
        if height is None:
            height = self._hfw[width] = super().heightForWidth(width)
        return height

    def changeEvent(self, event) -> None:  # noqa: N802 (Qt override)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange, QEvent.Type.ContentsRectChange):
            self._hfw.clear()
        super().changeEvent(event)


class StepPane(QFrame):
    """Header plus heatmaps of one step.  StepsView feeds it PaneData."""

    wrap_slack = WRAP_SLACK  # how much narrower cells may be before heads wrap
    shape_css = SHAPE_CSS  # the shape's type beside the title (a slide writes it larger)
    head_gap = 8  # pixels beside each head's matrix (grid spacing)
    focusRequested = Signal(int)  # a head title was clicked: that head, or -1 to show all again
    lockRequested = Signal(bool)  # the person locked / unlocked the colour scale (button or right-click menu)
    cellClicked = Signal(int, int, int, bool)  # (matrix, row, col, double click) of a clicked cell

    def __init__(self, step_id: str, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.step_id = step_id
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setObjectName("StepPane")
        self.setStyleSheet("#StepPane { background: white; border: 1px solid #d0d0d0; border-radius: 4px; }")
        self._data: Optional[PaneData] = None
        self._lang = "en"
        self._focus = -1
        self._stale = False
        self._title_pending = False  # the stale tag is still to be put on (or off) the title
        self._placed: list = []
        self._arranged_key = None
        self._placement = None  # (visible heads, per-head, heads per row) currently in the grid
        self._room: Optional[int] = None  # the width the pane was last given (None: not laid out yet)
        self._one_row = False  # heads_in_one_row()
        self._axis_known = False  # the row axis had been laid out when the heads were last placed
        self._per_row = 0  # heads in one row of the grid
        #: the last change of heads a row made by a resize: (heads a row before, after, the width
        #: before); see _undoes_last_switch
        self._switched: Optional[tuple[int, int, int]] = None
        self._bands_sized = 1  # rows of heads whose grid rows have fixed heights
        self._hover: Optional[tuple[int, int, int]] = None
        self._levels = (0.0, 1.0)
        self._natural_width = MIN_PANE_WIDTH
        self._masked_runs = NO_RUNS  # kept while the mask stays the same
        self._bar_key = None  # (map, levels, clipped ends) the colour bar shows
        self._cmap = ""  # the palette drawn (app.viewmodel.color_scale.MAPS)
        self._locked = False
        self._outside = (0, 0)  # numbers below / above a locked scale
        self._fit: Optional[TextFit] = None
        self.redraw_count = 0  # how many times new numbers were drawn (tests, benchmarks)

        self.title = _WrapLabel()
        self.title.setTextFormat(Qt.TextFormat.RichText)  # its own markup; the words escaped in _apply_title
        self.title.setStyleSheet(TITLE_CSS)
        self.scale_lock = ScaleLockControls(self)
        self.scale_lock.toggled.connect(self.lockRequested.emit)
        # a right click anywhere on the pane (the canvas passes it on) lists the pane's actions
        self.addAction(self.scale_lock.action)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        self.formula = _WrapLabel()
        self.formula.setTextFormat(Qt.TextFormat.PlainText)  # "s > l" as written, never read as markup
        self.formula.setStyleSheet(FORMULA_CSS)
        self.formula.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.weights_note = _WrapLabel()  # where the weights of this step came from (a quantized file's), if said
        self.weights_note.setStyleSheet(HOVER_CSS)
        self.weights_note.hide()
        self.hover = _WrapLabel()
        self.hover.setStyleSheet(HOVER_CSS)
        self.hover.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.hover.setMinimumHeight(2 * self.hover.fontMetrics().lineSpacing() + 6)  # no jump on hover
        self.notice = _WrapLabel()  # said in words instead of a picture (compare: shape changed)
        self.notice.setStyleSheet(NOTICE_CSS)
        self.notice.hide()
        self._marks: dict[str, dict[tuple[int, int, int], object]] = {}  # layer -> (m, r, c) -> colour
        self._marked_layers: set[str] = set()  # layers handed to the overlays

        self.canvas = PaneCanvas()
        self.canvas.on_leave = self._clear_hover
        self.canvas.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.left = styled_axis("left")
        self.left_labels = AxisLabels(self.left)
        self.extra_lefts: list = []  # the row axes of the second and later rows of heads
        self.bar = pg.ColorBarItem(values=(0.0, 1.0), width=BAR_WIDTH, interactive=False, colorMapMenu=False)
        self._style_bar()
        self.heatmaps: list[Heatmap] = []
        self._export_label: Optional[pg.LabelItem] = None

        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.canvas, 1)
        row.addStretch(0)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(10, 6, 10, 6)
        lay.setSpacing(2)
        header = QHBoxLayout()
        header.setContentsMargins(0, 0, 0, 0)
        header.addWidget(self.title, 1)
        header.addWidget(self.scale_lock.button, 0, Qt.AlignmentFlag.AlignTop)
        lay.addLayout(header)
        lay.addWidget(self.formula)
        lay.addWidget(self.weights_note)
        lay.addLayout(row)
        lay.addWidget(self.notice)
        lay.addWidget(self.hover)
        lay.addStretch(1)

        scene = self.canvas.scene()
        scene.sigMouseMoved.connect(self._on_mouse_moved)
        scene.sigMouseClicked.connect(self._on_mouse_clicked)

    def _style_bar(self) -> None:
        font = QFont()
        font.setPixelSize(TICK_FONT_PX)
        for side in ("left", "right", "top", "bottom"):
            ax = self.bar.getAxis(side)
            ax.setPen(pg.mkPen(AXIS_COLOUR))
            ax.setTextPen(pg.mkPen(AXIS_COLOUR))
        self.bar.axis.setStyle(tickFont=font)
        # the scale's numbers written as the cells write theirs ("1", not "1.0" beside a cell's "1")
        self.bar.axis.tickStrings = _bar_tick_strings
        self.bar.axis.tickSpacing = functools.partial(_bar_tick_spacing, self.bar.axis)
        for side in ("left", "right", "top", "bottom"):  # else every resize re-renders HTML labels
            self.bar.getAxis(side).enableAutoSIPrefix(False)

    # ---- public ------------------------------------------------------------------------------
    @property
    def data(self) -> Optional[PaneData]:
        return self._data

    def show_data(self, data: PaneData, lang: str, focus: int, picture: Optional["PanePicture"] = None) -> None:
        """Draw new numbers (and re-place items if the structure changed).  `picture`: the same
        numbers already turned into images and levels (app.panes.prepared), else made here."""
        old = self._data
        self._data = data
        if old is None:
            self._room = None  # a width given before there was anything to show says nothing yet
        self._lang = lang
        self._focus = focus
        lay = data.layout
        self._ensure_heatmaps(lay.n_matrices)
        kind = lay.kind
        # whole-pane arrays at once (a handful of numpy calls per pane, not per head); what
        # only the painting needs (text colours, runs of marked cells) waits for a paint
        if picture is not None:
            images, nan, lv, qimages = picture.images, picture.nan, picture.levels, picture.qimages
            cmap, self._locked, self._outside = picture.palette_name, picture.locked, picture.outside
        else:
            images, nan = colormaps.image_stack(data.block, kind)
            sc = colormaps.scale(kind, images, data.masked if data.mask_style == "veil" else None)
            lv, cmap, qimages, self._locked, self._outside = sc.levels, sc.cmap, None, False, (0, 0)
        pal = colormaps.palette(cmap)
        self._levels, self._cmap = lv, cmap
        text_fns = [self._text_fn(data, m) for m in range(lay.n_matrices)]
        dark = _LazyDark(data, images, nan, lv, pal) if text_fns[0] is not None else None
        if not same_numbers(data.masked, self._masked_runs.mask):
            self._masked_runs = LazyRuns(data.masked)
        fit = self._fit = TextFit(text_fns, previous=self._fit if old is not None and old.layout == lay else None)
        veil = data.mask_style == "veil"
        for m in range(lay.n_matrices):
            hm = self.heatmaps[m]
            hm.set_image(images[m], lv, pal.lut, None if qimages is None else qimages[m])
            hm.overlay.fit = fit
            hm.overlay.set_content(
                text_fns[m], None if dark is None else functools.partial(dark.get, m),
                LazyRuns(nan[m]) if nan is not None and nan[m].any() else NO_RUNS,
                self._masked_runs, veil, lay.cols.group)
        clipped = (self._outside[0] > 0, self._outside[1] > 0)
        if self._bar_key != (cmap, lv, clipped):
            if self.bar.colorMap() is not pal.cmap:
                self.bar.setColorMap(pal.cmap)
            self.bar.setLevels(lv)
            self.bar.axis.setTicks(clipped_ticks(lv, *clipped) if any(clipped) and kind != "bool"
                                   else bar_ticks(kind, lv))
            self._bar_key = (cmap, lv, clipped)
        self._show_lock()
        if old is None or old.layout != lay:
            self._apply_texts()
        elif old.batch != data.batch or type(old) is not type(data):  # a lens's title (compare)
            self._apply_title()
        self._arrange()
        self.bar.setVisible(not getattr(data, "hides_values", False))  # a quiz: no scale to read
        self._apply_marks()
        if self._hover is not None:
            self._show_hover(*self._hover)
        self.redraw_count += 1

    def set_language(self, lang: str) -> None:
        if lang != self._lang:
            self._lang = lang
            self._show_lock()
            if self._data is not None:
                self._apply_texts()
                self._arrange()
                if self._hover is not None:
                    self._show_hover(*self._hover)

    def set_focus(self, head: int) -> None:
        if head != self._focus:
            self._focus = head
            if self._data is not None:
                self._arrange()

    def set_stale(self, stale: bool, title_now: bool = True) -> None:
        """Grey the pane (at once) and tag its title; `title_now=False` leaves the title for
        `apply_pending_title()` (a pane out of sight: its relayout can wait a moment)."""
        if stale != self._stale:
            self._stale = stale
            self.canvas.ci.setOpacity(0.35 if stale else 1.0)
            if self._data is not None:
                if title_now:
                    self._apply_title()
                else:
                    self._title_pending = True

    def apply_pending_title(self) -> None:
        if self._title_pending and self._data is not None:
            self._apply_title()

    def visible_heads(self) -> list[int]:
        """Indices of the matrices on screen (all heads, or the focused one)."""
        if self._data is None:
            return []
        n = self._data.layout.n_matrices
        if self._data.layout.per_head and 0 <= self._focus < n:
            return [self._focus]
        return list(range(n))

    def displayed_arrays(self) -> list[np.ndarray]:
        if self._data is None:
            return []
        return [self.heatmaps[m].displayed() for m in range(self._data.layout.n_matrices)]

    def levels(self) -> tuple[float, float]:
        return self._levels

    def colour_map(self) -> str:
        """The palette drawn: "signed" (diverging), "positive", "negative", "weights", ... (color_scale.MAPS)."""
        return self._cmap

    def scale_locked(self) -> bool:
        return self._locked

    def scale_outside(self) -> tuple[int, int]:
        """How many numbers lie below / above the locked scale (drawn in its ends' colours)."""
        return self._outside

    def context_menu(self) -> QMenu:
        """What a right click on the pane shows: its actions (Lock colour scale / Unlock colour
        scale first, then any a feature added, e.g. the weights pane's "Show as lines")."""
        menu = QMenu(self)
        menu.addActions(self.actions())
        return menu

    def _show_lock(self) -> None:
        self.scale_lock.show_state(self._locked, sum(self._outside), self._levels, self._lang)
        self.scale_lock.button.setVisible(self._data is not None and not getattr(self._data, "hides_values", False))

    def hover_text(self, m: int, r: int, c: int) -> str:
        """What hovering cell (r, c) of matrix m shows (index, labels, exact value)."""
        return self._data.hover_text(m, r, c, self._lang)

    def set_weights_note(self, text: str) -> None:
        """Say under the formula where the weights this step multiplies by came from ('' : nothing to say)."""
        if self.weights_note.text() != text:
            self.weights_note.setText(text)
        if self.weights_note.isHidden() == bool(text):
            self.weights_note.setVisible(bool(text))

    def set_notice(self, text: Optional[str]) -> None:
        """Say `text` in place of the heatmaps (None: show the heatmaps again)."""
        if text:
            self.notice.setText(text)
        if bool(text) != self.notice.isVisible() or self.canvas.isHidden() != bool(text):
            self.notice.setVisible(bool(text))
            self.canvas.setVisible(not text)

    def notice_text(self) -> Optional[str]:
        return self.notice.text() if not self.notice.isHidden() else None

    def set_marks(self, layer: str, cells: dict[tuple[int, int, int], object]) -> None:
        """Outline cells ((matrix, row, col) -> colour) as layer `layer`; {} clears the layer."""
        if cells:
            self._marks[layer] = dict(cells)
        else:
            self._marks.pop(layer, None)
        self._apply_marks()

    def marks(self, layer: str) -> dict[tuple[int, int, int], object]:
        return dict(self._marks.get(layer, {}))

    def _apply_marks(self) -> None:
        layers = set(self._marks) | self._marked_layers
        self._marked_layers = set(self._marks)
        for layer in layers:
            cells = self._marks.get(layer, {})
            for m, hm in enumerate(self.heatmaps):
                hm.overlay.set_marks(layer, {(r, c): col for (mm, r, c), col in cells.items() if mm == m})

    def click_cell(self, m: int, r: int, c: int, double: bool = False) -> None:
        """Click cell (r, c) of matrix m as the mouse would."""
        self.cellClicked.emit(int(m), int(r), int(c), bool(double))

    def cell_scene_pos(self, m: int, r: int, c: int) -> QPointF:
        """Scene position of the centre of a cell (tests click there)."""
        return self.heatmaps[m].scene_pos_of(r, c)

    def hover_at(self, scene_pos: QPointF) -> Optional[str]:
        """Hover a scene position as the mouse would; returns the text shown, or None."""
        self._on_mouse_moved(scene_pos)
        return None if self._hover is None else self.hover.text()

    # ---- drawing -----------------------------------------------------------------------------
    def _ensure_heatmaps(self, n: int) -> None:
        while len(self.heatmaps) < n:
            self.heatmaps.append(Heatmap())

    @staticmethod
    def _text_fn(data: PaneData, m: int):
        """digits -> the labels of matrix m, row-major (memoised), or None for a big matrix."""
        rows, cols = data.block.shape[1:]
        if not prints_numbers(rows, cols):
            return None
        memo: dict[int, list[str]] = {}

        def text_fn(digits: int) -> list[str]:
            if digits not in memo:
                memo[digits] = data.cell_texts(m, digits)
            return memo[digits]

        text_fn.sample = functools.partial(data.sample_texts, m)  # a few labels (TextFit's quick "no")
        return text_fn

    def _apply_texts(self) -> None:
        d, lang = self._data, self._lang
        self._apply_title()
        self.formula.setText(keep_together(d.step.formula[lang]))
        for m, hm in enumerate(self.heatmaps[: d.layout.n_matrices]):
            hm.set_title(d.matrix_title(m, lang))
        self._arranged_key = None  # axis names depend on the language
        if self._hover is None:
            self._set_hint()

    def _apply_title(self) -> None:
        """Title in large type, then the shape in small grey type, wrapping as one paragraph."""
        self._title_pending = False
        d, lang = self._data, self._lang
        title = html.escape(d.step.title[lang])
        if self._stale:
            title = (f"<span style='color: {STALE_COLOUR}'>{title} "
                     f"({html.escape(pane_text.ui('stale_tag', lang))})</span>")
        # "(B, H, L, S) = (1, 2, 4, 4)" stays on one line, and so does "批次第 1 项"
        shape = html.escape(chinese_together(keep_together(d.shape_text(lang))))
        self.title.setText(f"{title}&nbsp;&nbsp; <span style='{self.shape_css}'>{shape}</span>")

    def title_text(self) -> str:
        """The title line as plain text (tests)."""
        self.apply_pending_title()
        return self.title.text()

    def _set_hint(self) -> None:
        """When no cell is hovered, the line under the heatmaps explains the marks on them."""
        d, lang = self._data, self._lang
        if d is None:
            return
        notes = []
        heads = self.visible_heads()
        if d.masked is not None and d.mask_style == "veil" and d.masked.any():
            fill = cell_format.compact(d.fill_value) if d.fill_value is not None else "?"
            notes.append(pane_text.ui("legend_masked" if d.step.id == "masked_scores" else "legend_masked_weight",
                                      lang, fill=fill))
        if d.kind == "bool":
            notes.append(pane_text.ui("legend_bool", lang, yes=numbers.flag(True, short=True),
                                      no=numbers.flag(False, short=True)))
        if any(self.heatmaps[m].overlay.has_not_computed() for m in heads):
            notes.append(pane_text.ui("legend_not_computed", lang))
        rows, cols = d.layout.rows.size, d.layout.cols.size
        if not prints_numbers(rows, cols):
            notes.append(pane_text.ui("numbers_large", lang))
        elif any(self.heatmaps[m].overlay.numbers_hidden for m in heads):
            many = d.layout.per_head and len(heads) > 1
            notes.append(pane_text.ui("numbers_hidden_heads" if many else "numbers_hidden", lang))
        self.hover.setText(" ".join(notes))

    def _arrange(self) -> None:
        """Place the visible heatmaps, the row axis and the colour bar in the grid (only when
        the visible heads change), then set axis labels and sizes (only when they change)."""
        d = self._data
        heads = self.visible_heads()
        key = (tuple(heads), d.layout, self._lang)
        if key == self._arranged_key:
            return
        self._arranged_key = key
        lay, lang = d.layout, self._lang
        per_row = self._heads_per_row(len(heads))
        placement = (tuple(heads), lay.per_head, per_row)
        if placement != self._placement:
            self._placement = placement
            self._per_row = per_row
            self._place(heads, lay.per_head, per_row)
        row_name = wrapped_name(lay.rows.name(lang), NAME_PX, self._cell_size()[0])
        self.left_labels.set(lay.rows, row_name)
        for _axis, labels in self.extra_lefts[: self._bands(len(heads)) - 1]:
            labels.set(lay.rows, row_name)
        col_name = lay.cols.name(lang)
        # with many heads, or heads too narrow for it, the column name under the first one
        # speaks for all (two names side by side would run together)
        name_px = _name_font_metrics().horizontalAdvance(col_name) + 12
        every = len(heads) <= 3 and name_px <= lay.cols.size * self._cell_size()[1]
        for i, m in enumerate(heads):
            first_of_row = i % max(self._per_row, 1) == 0
            self.heatmaps[m].bottom_labels.set(lay.cols, col_name if every or first_of_row else "")
        self._size_canvas(len(heads))
        self._set_hint()

    def _place(self, heads: list[int], per_head: bool, per_row: int) -> None:
        """Re-place items in the grid directly (pyqtgraph's GraphicsLayout.addItem re-solves
        the whole layout after every item); items out of the grid are hidden, never deleted.
        `per_row` heads a row: head i goes to row band i // per_row, column 1 + i % per_row."""
        grid = self.canvas.ci.layout
        for item in self._placed:
            for i in range(grid.count()):
                if grid.itemAt(i) is item:
                    grid.removeAt(i)
                    break
            item.hide()
        self._placed = []

        def place(item, row: int, col: int) -> None:
            grid.addItem(item, row, col)
            item.show()
            self._placed.append(item)

        per_row = max(per_row, 1)
        bands = self._bands(len(heads), per_row)
        while len(self.extra_lefts) < bands - 1:
            axis = styled_axis("left")
            self.extra_lefts.append((axis, AxisLabels(axis)))
        lefts = [self.left] + [axis for axis, _ in self.extra_lefts[: bands - 1]]
        for axis, _ in self.extra_lefts[bands - 1:]:
            axis.unlinkFromView()  # out of the grid: no longer follows (or answers) a head's view
        for band, axis in enumerate(lefts):
            place(axis, R_VIEW + ROWS_PER_BAND * band, 0)
        for i, m in enumerate(heads):
            band, col = divmod(i, per_row)
            hm = self.heatmaps[m]
            off = ROWS_PER_BAND * band
            if per_head:
                place(hm.title, R_TITLE + off, col + 1)
                hm.title.setCursor(Qt.CursorShape.PointingHandCursor)
            place(hm.vb, R_VIEW + off, col + 1)
            place(hm.bottom, R_AXIS + off, col + 1)
            hm.overlay.on_numbers_hidden = lambda _hidden: self._hover is None and self._set_hint()
            grid.setColumnStretchFactor(col + 1, 1)
            if col == 0:
                lefts[band].linkToView(hm.vb)
        n_cols = min(per_row, len(heads))
        place(self.bar, R_VIEW, n_cols + 1)
        self.bar.setVisible(not getattr(self._data, "hides_values", False))  # a quiz: no scale to read
        grid.setColumnStretchFactor(n_cols + 1, 0)

    @contextlib.contextmanager
    def heads_in_one_row(self):
        """Within this block every head sits in one row whatever the pane's width (the handout
        cuts that strip into rows of its own)."""
        self._one_row = True
        self._arranged_key = None
        if self._data is not None:
            self._arrange()
            self.canvas.ci.layout.activate()
        try:
            yield self
        finally:
            self._one_row = False
            self._arranged_key = None
            if self._data is not None:
                self._arrange()
                self.canvas.ci.layout.activate()

    def heads_per_row(self) -> int:
        """How many heads sit side by side (fewer than visible_heads() when they wrap)."""
        return min(max(self._per_row, 1), max(len(self.visible_heads()), 1))

    def _bands(self, k: int, per_row: Optional[int] = None) -> int:
        """Rows of heads needed for k heads."""
        per_row = max(per_row if per_row is not None else self._per_row, 1)
        return max(-(-k // per_row), 1)

    def _frame_sizes(self) -> tuple[int, int, float, float]:
        """(head title row, axis row, row-axis width, colour bar with labels) in pixels."""
        d = self._data
        ticks = [len(d.layout.rows.tick(i)) for i in range(min(d.layout.rows.size, 64))]
        return (26 if d.layout.per_head else 0, 50, 30 + 8 * max(ticks, default=1), BAR_WIDTH + BAR_LABELS_PX)

    def _heads_per_row(self, k: int) -> int:
        """As many heads side by side as the pane's width holds at the cell width (at least one):
        all of them until the pane has been given a width narrower than that."""
        if k <= 1 or self._room is None or self._data is None or self._one_row:
            return max(k, 1)
        cols = self._data.layout.cols.size
        _, cell_w = self._cell_size()
        _, _, left_w, bar_w = self._frame_sizes()
        left_w = self._left_width(left_w)
        room = self._room - 22 - left_w - bar_w  # the pane's margins, as in _size_canvas
        # cells may narrow a little (the flow layout's MAX_SHRINK) before a head moves down
        return int(max(1, min(k, room // (cols * cell_w * (1 - self.wrap_slack) + self.head_gap))))

    def _left_width(self, estimate: float) -> float:
        """The row axis's width: as drawn once laid out (the estimate counts characters, and an
        elided long token counts many more than it shows)."""
        laid_out = self.left.geometry().width()
        return min(estimate, laid_out + 8) if laid_out > 0 else estimate

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        width = event.size().width()
        provisional = self.left.geometry().width() <= 0 or not self._axis_known
        if width == self._room and not provisional:
            return
        self._axis_known = self.left.geometry().width() > 0
        # the heads were placed before any width was known, or before the row axis was laid out
        first = self._room is None or provisional
        wider = first or width > self._room
        previous, self._room = self._room, width
        if self._data is not None and self._data.layout.per_head:
            heads = self.visible_heads()
            per_row = self._heads_per_row(len(heads))
            # only in the direction the width moved: more heads a row when wider, fewer when
            # narrower (a re-arranged pane changes size itself, which must not undo the change)
            if per_row != self._per_row and (first or (per_row > self._per_row) == wider) \
                    and not (not first and self._undoes_last_switch(per_row, width)):
                self._switched = (self._per_row, per_row, previous) if previous is not None else None
                self._arranged_key = None
                self._arrange()
                self.canvas.ci.layout.activate()  # the heads at their new places now, not at the next event

    def _undoes_last_switch(self, per_row: int, width: int) -> bool:
        """Whether going to `per_row` heads a row at `width` would undo the last such change before
        the width has gone back past where it was made.  A re-placed pane changes its own width (its
        canvas, a scroll bar coming or going), and that width can land on the other side of the
        threshold: heads went 1 -> 2 a row at 743 px, the pane then got 729 px, 1 a row, 743 px
        again, ... for ever (thousands of re-placements a second, and a segfault inside pyqtgraph's
        axis updates on a Chinese slide).  Only a width beyond the one before the change undoes it."""
        if self._switched is None:
            return False
        before, after, at = self._switched
        if after != self._per_row or per_row != before:
            return False
        return width >= at if after > before else width <= at

    def _cell_size(self) -> tuple[int, float]:
        """(matrix height, cell width) in pixels for the current layout."""
        rows, cols = self._data.layout.rows.size, self._data.layout.cols.size
        h = view_height(rows)
        cell_h = h / rows
        numbers = prints_numbers(rows, cols)
        # cells about 1.85 times as wide as tall (64 px for the toy's 34-px rows) leave room for
        # "-0.7071" in a readable font, and two 4 x 4 panes then share one row of an ~850-px
        # Steps region (at 1600 x 1000) instead of one pane a row with half the width empty
        return h, (max(cell_h * 1.85, 64.0) if numbers else cell_h * 1.2)

    def _size_canvas(self, k: int) -> None:
        d = self._data
        cols = d.layout.cols.size
        h, cell_w = self._cell_size()
        title_h, axis_h, left_w, bar_w = self._frame_sizes()
        left_w = self._left_width(left_w)
        gl = self.canvas.ci.layout
        bands = self._bands(k)
        per_row = min(max(self._per_row, 1), k)
        sizes = (bands, h, cell_w, title_h, axis_h, left_w, bar_w, cols, per_row, k)
        if sizes == getattr(self, "_sized", None):
            return  # the same sizes (a new sentence of the same length): no relayout of the Steps column
        self._sized = sizes
        for band in range(max(bands, self._bands_sized)):
            on = band < bands
            off = ROWS_PER_BAND * band
            gl.setRowFixedHeight(R_VIEW + off, h if on else 0)
            gl.setRowFixedHeight(R_TITLE + off, title_h if on else 0)
            gl.setRowFixedHeight(R_AXIS + off, axis_h if on else 0)
        self._bands_sized = bands
        self.canvas.setFixedHeight(int(bands * (h + title_h + axis_h) + 10))
        # the colour bar, its tick labels (~"-0.75") and the canvas margins
        width = int(left_w + per_row * (cols * cell_w + 8) + bar_w)
        self.canvas.setMaximumWidth(width)
        self._natural_width = max(int(left_w + k * (cols * cell_w + 8) + bar_w) + 22, MIN_PANE_WIDTH)
        self.updateGeometry()

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override): the flow layout reads the width
        return QSize(self._natural_width, super().sizeHint().height())

    # ---- hover and clicks --------------------------------------------------------------------
    def _on_mouse_moved(self, pos) -> None:
        if self._data is None:
            return
        pos = QPointF(pos)
        for m in self.visible_heads():
            cell = self.heatmaps[m].cell_at(pos)
            if cell is not None:
                self._show_hover(m, *cell)
                return
        self._clear_hover()

    def _show_hover(self, m: int, r: int, c: int) -> None:
        d = self._data
        if m >= d.layout.n_matrices or r >= d.layout.rows.size or c >= d.layout.cols.size:
            self._clear_hover()
            return
        if self._hover is not None and self._hover[0] != m:
            self.heatmaps[self._hover[0]].overlay.set_hover(None)
        self._hover = (m, r, c)
        self.heatmaps[m].overlay.set_hover((r, c))
        self.hover.setText(self.hover_text(m, r, c))

    def _clear_hover(self) -> None:
        if self._hover is not None:
            m = self._hover[0]
            if m < len(self.heatmaps):
                self.heatmaps[m].overlay.set_hover(None)
            self._hover = None
            self._set_hint()

    def _on_mouse_clicked(self, ev) -> None:
        d = self._data
        if d is None:
            return
        pos = ev.scenePos()
        if d.layout.per_head and d.layout.n_matrices >= 2:
            for m in self.visible_heads():
                if self.heatmaps[m].title_contains(pos):
                    self.focusRequested.emit(-1 if self._focus == m else m)
                    return
        if ev.button() != Qt.MouseButton.LeftButton:
            return
        for m in self.visible_heads():
            cell = self.heatmaps[m].cell_at(pos)
            if cell is not None:
                self.click_cell(m, *cell, double=ev.double())
                return

    # ---- export ------------------------------------------------------------------------------
    @contextlib.contextmanager
    def export_header(self):
        """Within this block the picture carries the step's title and formula (for export)."""
        d = self._data
        label = pg.LabelItem("", color=AXIS_COLOUR, justify="left")
        title = d.step.title[self._lang] if d is not None else self.step_id
        formula = d.step.formula[self._lang] if d is not None else ""
        label.setText(f"<span style='font-size:18px; font-weight:600'>{html.escape(title)}</span>"
                      f"<br><span style='font-size:14px'>{html.escape(formula)}</span>")
        ci = self.canvas.ci
        n_cols = min(max(self._per_row, 1), len(self.visible_heads())) + 2
        ci.addItem(label, row=R_EXPORT, col=0, colspan=n_cols)
        self._export_label = label
        old_h = self.canvas.height()
        self.canvas.setFixedHeight(old_h + int(label.size().height()) + 8)
        ci.layout.activate()
        try:
            yield ci
        finally:
            ci.removeItem(label)
            self._export_label = None
            self.canvas.setFixedHeight(old_h)
            ci.layout.activate()
