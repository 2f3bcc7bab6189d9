"""A StepPane drawn at a zoom factor, for the projector.

The drawing is StepPane's own; this subclass only scales the sizes it works from: the matrix
height and cell width, the fixed rows of its grid, the fonts of its labels, axes and colour
bar, and the font cap of the numbers in the cells (TextFit.scale), so that numbers grow with
the cells instead of staying at their desk-top size.
"""
from __future__ import annotations

import functools
from typing import Optional

from PySide6.QtGui import QFont, QFontMetricsF

from app.panes import scale_lock, step_pane
from app.panes.cell_overlay import prints_numbers
from app.panes.heatmap import AXIS_COLOUR, TICK_FONT_PX, IndexAxis
from app.panes.step_pane import BAR_LABELS_PX, BAR_WIDTH, StepPane
from app.viewmodel import wrapped
from app.viewmodel.nowrap import slide_decimal

#: the desk-top pane's fixed sizes (step_pane._size_canvas), scaled here
HEAD_TITLE_PX, AXIS_ROW_PX, HEAD_TITLE_FONT_PX, AXIS_NAME_PX = 26, 50, 15, 14
#: a number on a slide is legible from the back row when its digits are this tall on screen (px)
LEGIBLE_DIGIT_PX = 14
#: no text on a slide is smaller than this (px): ticks, colour bars, titles, axis names, buttons
MIN_TEXT_PX = 14
#: on a slide the numbers may fill this share of the cell height (0.5 on the desk)
SLIDE_TEXT_RATIO = 0.6
DIGITS_MOST, DIGITS_FEWEST = 4, 2
#: every number on every slide is written with this many significant digits ("13.8", "0.707"):
#: the panes are drawn large enough for it (a slide of small cells once read "14" beside "13.8"
#: on the next); fewer only in a pane that cannot hold it legibly at any zoom
SLIDE_DIGITS = 3
#: zooms searched for the smallest one at which a pane's numbers are legible
_ZOOM_STEPS = [0.3 + 0.025 * i for i in range(149)]
#: the smallest zoom of a pane without numbers in its cells (28 x 28 heads): its texts keep
#: MIN_TEXT_PX whatever the zoom, so eight such heads may shrink until they all share the slide
NO_NUMBERS_ZOOM = 0.1


def digit_height(px: int) -> float:
    """How tall digits are on screen (ink, not line height) in the default font at `px` pixels."""
    font = QFont()
    font.setPixelSize(px)
    return QFontMetricsF(font).tightBoundingRect("0123456789").height()


@functools.lru_cache(maxsize=4)
def legible_font_px(digit_px: float = LEGIBLE_DIGIT_PX) -> int:
    """The smallest font size whose digits are `digit_px` tall."""
    return next(px for px in range(6, 200) if digit_height(px) >= digit_px)


class ZoomedPane(StepPane):
    """StepPane at `zoom` (1.0 = the window's size).  `show_header=False` hides the pane's own
    title and formula (the presentation shows them once, large, above the output)."""

    wrap_slack = 0.0  # a slide's cells keep their designed width: heads wrap (or the area scrolls) first
    head_gap = 14  # the grid's 6-px spacing and the matrix frame

    def __init__(self, step_id: str, zoom: float = 1.0, show_header: bool = True) -> None:
        super().__init__(step_id)
        self._zoom = float(zoom)
        #: the cells' width as a share of their designed width: a slide narrows the cells of a
        #: wide and short matrix (1 query x 10 keys) while their numbers stay legible, rather
        #: than scroll sideways (PresentationView sets it)
        self.squeeze = 1.0
        self.wrapped = False  # a long one-row matrix written in rows (PresentationView sets it)
        self.per_row: Optional[int] = None  # how many a row while wrapped (None: the preferred)
        self._original = None  # the data as given (drawn reshaped while wrapped)
        self.max_digits = SLIDE_DIGITS  # one precision for every pane of a slide (PresentationView sets it)
        #: heads a row chosen by the slide (None: as many as the pane's width holds at the designed
        #: cell width), and how much wider than designed the cells are drawn so that those heads
        #: use the area's width (PresentationView._fit_heads sets both: eight 28 x 28 heads in two
        #: rows of four, each a quarter of the width, rather than six small ones and an empty strip)
        self.fixed_per_row: Optional[int] = None
        self.widen = 1.0
        self.title.setVisible(show_header)
        self.formula.setVisible(False)  # the presentation writes the operation once, above
        self._apply_fonts()

    @property
    def zoom(self) -> float:
        return self._zoom

    def set_zoom(self, zoom: float) -> None:
        zoom = float(zoom)
        if abs(zoom - self._zoom) < 1e-9:
            return
        self._zoom = zoom
        self._apply_fonts()
        if self._data is not None:
            self._arranged_key = None
            self._arrange()

    # ---- StepPane overrides --------------------------------------------------------------------
    def show_data(self, data, lang: str, focus: int, picture=None) -> None:
        self._original = data
        if self.wrapped:  # a long row written in rows (app.viewmodel.wrapped); its picture is made here
            shown = wrapped.wrap(data, self.per_row)
            data, picture = shown, (None if shown is not data else picture)
        super().show_data(data, lang, focus, picture)
        self._scale_numbers()

    @property
    def data(self):
        """The step's numbers as the trace has them (a wrapped pane draws them reshaped)."""
        return self._original if self._original is not None else self._data

    def can_wrap(self) -> bool:
        return self._original is not None and wrapped.row_width(self._original) is not None

    def wraps_into_numbers(self) -> bool:
        """A row too long to print numbers (1 x 80) that prints them once written in rows."""
        if not self.can_wrap() or self.wrapped:
            return False
        _, rows, cols = self._original.block.shape
        per_row = wrapped.row_width(self._original)
        return not prints_numbers(rows, cols) and prints_numbers(cols // per_row, per_row)

    def narrower_rows(self) -> bool:
        """Wrapped: fewer numbers a row (the next divisor), False when none is left."""
        widths = wrapped.row_widths(self._original) if self._original is not None else []
        now = self.per_row or (widths[0] if widths else None)
        rest = [w for w in widths if now is not None and w < now]
        if not self.wrapped or not rest:
            return False
        self.per_row = rest[0]
        self._arranged_key = None
        self.show_data(self._original, self._lang, self._focus)
        return True

    def set_wrapped(self, on: bool) -> None:
        """Write a one-row matrix in rows (on) or as one long row."""
        on = bool(on) and (self.can_wrap() or not on)
        if on != self.wrapped:
            self.wrapped = on
            self.per_row = None
            if self._original is not None:
                self._arranged_key = None
                self.show_data(self._original, self._lang, self._focus)

    def click_cell(self, m: int, r: int, c: int, double: bool = False) -> None:
        super().click_cell(*wrapped.unwrapped_cell(self._data, m, r, c), double=double)

    def set_marks(self, layer: str, cells) -> None:
        """Cells in the trace's own (row, column) places, drawn where a wrapped pane shows them."""
        d = self._data
        super().set_marks(layer, {wrapped.wrapped_cell(d, *k): v for k, v in cells.items()} if d is not None
                          else cells)

    def marks(self, layer: str):
        d = self._data
        return {wrapped.unwrapped_cell(d, *k): v for k, v in super().marks(layer).items()} if d is not None \
            else super().marks(layer)

    @staticmethod
    def _text_fn(data, m: int):
        """StepPane's labels with small numbers written as decimals where that costs at most a
        character ("0.00045", not "4.5e-4", on a classroom slide)."""
        base = StepPane._text_fn(data, m)
        if base is None:
            return None
        memo: dict[int, list[str]] = {}

        def text_fn(digits: int) -> list[str]:
            if digits not in memo:
                memo[digits] = [slide_decimal(t) for t in base(digits)]
            return memo[digits]

        text_fn.sample = lambda digits, *a: [slide_decimal(t) for t in base.sample(digits, *a)]
        return text_fn

    def _cell_size(self) -> tuple[int, float]:
        h, cell_w = super()._cell_size()
        return int(round(h * self._zoom)), cell_w * self._zoom * self.squeeze * self.widen

    def _heads_per_row(self, k: int) -> int:
        if self.fixed_per_row is not None and not self._one_row:
            return max(1, min(k, self.fixed_per_row))
        return super()._heads_per_row(k)

    def set_heads_layout(self, per_row: Optional[int], widen: float = 1.0) -> None:
        """`per_row` heads a row (None: as the width holds), cells `widen` times their designed width."""
        widen = max(float(widen), 1.0)
        if per_row == self.fixed_per_row and abs(widen - self.widen) < 1e-9:
            return
        self.fixed_per_row, self.widen = per_row, widen
        if self._data is not None:
            self._arranged_key = None
            self._arrange()

    def row_width(self) -> int:
        """The pane's width with all its heads of a row side by side (the canvas's widest and the margins)."""
        margins = self.layout().contentsMargins()
        return self.canvas.maximumWidth() + margins.left() + margins.right() + 2

    def shares_axis_names(self) -> bool:
        """Heads in several rows: the column name is written under the last row only, and the
        rows above keep just their ticks (the name in every row cost a line of height each)."""
        return self._data is not None and self._data.layout.per_head and self._bands(len(self.visible_heads())) > 1

    def _tick_row_px(self) -> int:
        """The height of a head's column axis without its name: the ticks' line and the tick marks."""
        return int(self._px(TICK_FONT_PX) * 1.3) + 8

    def set_squeeze(self, squeeze: float) -> None:
        squeeze = min(max(float(squeeze), 0.05), 1.0)
        if abs(squeeze - self.squeeze) < 1e-9:
            return
        self.squeeze = squeeze
        if self._data is not None:
            self._arranged_key = None
            self._arrange()

    def numbers_legible(self) -> bool:
        """Whether the cells' numbers are drawn legible_font_px() or larger at their designed
        size (True for a pane without numbers)."""
        if self._fit is None or not self._fit._fns:
            return True
        h, cell_w = self._cell_size()
        saved = self._fit.max_digits
        self._fit.max_digits = SLIDE_DIGITS
        try:
            choice = self._fit.choose(cell_w, h / self._data.layout.rows.size)
        finally:
            self._fit.max_digits = saved
        return choice is not None and choice[0] >= legible_font_px() and choice[1] >= self._wanted_digits()

    def _wanted_digits(self) -> int:
        """SLIDE_DIGITS, or the fewest for numbers that read the same with any precision (True/False, counts)."""
        if all(f(DIGITS_MOST) == f(DIGITS_FEWEST) for f in self._fit._fns):
            return DIGITS_FEWEST
        return SLIDE_DIGITS

    def _arrange(self) -> None:
        super()._arrange()
        self._style_axes()  # a second row of heads may have brought a new row axis
        self._scale_axis_names()

    def _size_canvas(self, k: int) -> None:
        """StepPane's sizing, and never narrower than one head: a slide's area scrolls rather
        than squeeze the cells until their numbers no longer fit."""
        self._sized = None  # StepPane's sizes-unchanged shortcut does not cover what is set below
        super()._size_canvas(k)
        _, cell_w = self._cell_size()
        _, _, left_w, bar_w = self._frame_sizes()
        cols = self._data.layout.cols.size
        per_row = min(max(self._per_row, 1), k)
        frame = left_w + bar_w + 8 + 6  # the canvas's margins and the grid's spacing
        self.canvas.setMaximumWidth(int(frame + per_row * (cols * cell_w + self.head_gap)))
        if self.shares_axis_names():
            h, _ = self._cell_size()
            title_h, axis_h, _, _ = self._frame_sizes()
            bands, tick_h = self._bands(k), self._tick_row_px()
            grid = self.canvas.ci.layout
            for band in range(bands - 1):
                grid.setRowFixedHeight(step_pane.R_AXIS + step_pane.ROWS_PER_BAND * band, tick_h)
            self.canvas.setFixedHeight(int(bands * (h + title_h) + (bands - 1) * tick_h + axis_h + 10))
        self.canvas.setMinimumWidth(int(frame + cols * cell_w + self.head_gap))
        self._natural_width = int(frame + k * (cols * cell_w + self.head_gap)) + 22

    def _frame_sizes(self) -> tuple[int, int, float, float]:
        """StepPane's fixed heights and widths, scaled by the zoom; the parts that hold text
        (head titles, axis rows, row labels, the colour bar's numbers) by the text's own scale,
        which never falls under MIN_TEXT_PX however small the matrices are drawn."""
        d, z = self._data, self._zoom
        t = self._text_scale()
        ticks = [len(d.layout.rows.tick(i)) for i in range(min(d.layout.rows.size, 64))]
        title_h = int(HEAD_TITLE_PX * max(z, self._px(HEAD_TITLE_FONT_PX) / HEAD_TITLE_FONT_PX)) \
            if d.layout.per_head else 0
        # the colour bar's labels at this font take a little more than the desk-top estimate
        left_w, bar_w = (30 + 8 * max(ticks, default=1)) * t, BAR_WIDTH * z + (BAR_LABELS_PX + 12) * t
        return title_h, int(AXIS_ROW_PX * t), left_w, bar_w

    # ---- fonts -------------------------------------------------------------------------------
    def _px(self, base: float) -> int:
        return max(int(round(base * self._zoom)), MIN_TEXT_PX)

    def _text_scale(self) -> float:
        """How much larger than on the desk the pane's small texts are drawn (the zoom, or more
        where MIN_TEXT_PX holds them up)."""
        return self._px(TICK_FONT_PX) / TICK_FONT_PX

    def _apply_fonts(self) -> None:
        self.title.setStyleSheet(step_pane.TITLE_CSS.replace("21px", f"{self._px(21)}px"))
        self.shape_css = step_pane.SHAPE_CSS.replace("13px", f"{self._px(13)}px")
        if self._data is not None:
            self._apply_title()
        self.hover.setStyleSheet(step_pane.HOVER_CSS.replace("14px", f"{self._px(14)}px"))
        self.hover.setMinimumHeight(int(2 * self._px(14) * 1.4) + 6)
        self.scale_lock.button.setStyleSheet(scale_lock.BUTTON_CSS.replace("13px", f"{self._px(13)}px"))
        font = QFont()
        font.setPixelSize(self._px(TICK_FONT_PX))
        self.bar.axis.setStyle(tickFont=font)
        self._style_axes()
        for hm in self.heatmaps:
            hm.title.opts["size"] = f"{self._px(HEAD_TITLE_FONT_PX)}px"
            hm.title.setText(hm.title.text)
        self._scale_numbers()

    def _style_axes(self) -> None:
        """Row and column labels at the pane's tick size (token labels may shrink, not under MIN_TEXT_PX)."""
        px = self._px(TICK_FONT_PX)
        for axis in [self.left] + [a for a, _ in self.extra_lefts] + [hm.bottom for hm in self.heatmaps]:
            if isinstance(axis, IndexAxis):
                axis.set_font_px(px, max(MIN_TEXT_PX, int(px * 0.8)))

    def _ensure_heatmaps(self, n: int) -> None:
        before = len(self.heatmaps)
        super()._ensure_heatmaps(n)
        if len(self.heatmaps) != before:
            self._apply_fonts()

    def _scale_numbers(self) -> None:
        if self._fit is not None:
            self._fit.scale = self._zoom
            self._fit.floor_px = legible_font_px()
            self._fit.height_ratio = SLIDE_TEXT_RATIO
            self._fit.max_digits = self.max_digits
            for hm in self.heatmaps:
                hm.overlay._layout_key = None  # the same cell size may now get another font
                hm.overlay.update()

    def set_max_digits(self, digits: int) -> None:
        if digits != self.max_digits:
            self.max_digits = digits
            self._scale_numbers()

    # ---- what the numbers look like (the slide's fitting, tests) ---------------------------------
    def cell_px(self) -> Optional[tuple[float, float]]:
        """(width, height) of one cell on screen: measured on the first heatmap once the canvas
        is laid out, else the designed size."""
        if self._data is None:
            return None
        d = self._data
        heads = self.visible_heads()
        if self.canvas.isVisible() and heads:
            self.canvas.ci.layout.activate()
            rect = self.heatmaps[heads[0]].vb.geometry()
            if rect.width() > 0 and rect.height() > 0:
                return rect.width() / d.layout.cols.size, rect.height() / d.layout.rows.size
        h, cell_w = self._cell_size()
        return cell_w, h / d.layout.rows.size

    def number_choice(self) -> Optional[tuple[int, int]]:
        """(font px, digits) the cells' numbers are drawn with, None when no number fits (or the
        matrix is too big to print numbers)."""
        cell = self.cell_px()
        if self._fit is None or cell is None or not self._fit._fns:
            return None
        return self._fit.choose(*cell)

    def designed_choice(self) -> Optional[tuple[int, int]]:
        """(font px, digits) at the cells' designed size (what the slide lays out), None without
        numbers or when the precision makes no difference (True/False, whole numbers)."""
        if self._fit is None or self._data is None or not self._fit._fns:
            return None
        if all(f(DIGITS_MOST) == f(DIGITS_FEWEST) for f in self._fit._fns):
            return None
        h, cell_w = self._cell_size()
        return self._fit.choose(cell_w, h / self._data.layout.rows.size)

    def legible_zoom(self) -> float:
        """The smallest zoom at which the numbers are drawn at least legible_font_px() tall
        (with any precision), given the cells their designed width; the largest zoom tried
        when none is."""
        if self._fit is None or self._data is None or not self._fit._fns:
            return NO_NUMBERS_ZOOM
        self._scale_numbers()
        rows = self._data.layout.rows.size
        floor = legible_font_px()
        saved = self._zoom
        self._fit.max_digits = SLIDE_DIGITS
        try:
            # SLIDE_DIGITS legible, else (a pane too crowded for it at any zoom) any precision
            for wanted in (self._wanted_digits(), DIGITS_FEWEST):
                for z in _ZOOM_STEPS:
                    self._zoom = z
                    self._fit.scale = z
                    h, cell_w = self._cell_size()
                    # a little narrower than designed: the canvas's spacing takes a few pixels
                    got = self._fit.choose(cell_w * 0.96, h / rows)
                    if got is not None and got[0] >= floor and got[1] >= wanted:
                        return z
            return _ZOOM_STEPS[-1]
        finally:
            self._zoom = saved
            self._fit.scale = saved
            self._fit.max_digits = self.max_digits

    def _scale_axis_names(self) -> None:
        style = {"color": AXIS_COLOUR, "font-size": f"{self._px(AXIS_NAME_PX)}px"}
        font = QFont()
        font.setPixelSize(self._px(AXIS_NAME_PX))
        heads = self.visible_heads()
        name = self._data.layout.cols.name(self._lang) if self._data is not None else ""
        # the pane decided at its own font size whether every head gets the column name; at
        # this size a name wider than its matrix would run into the next one: first head only
        crowded = (QFontMetricsF(font).horizontalAdvance(name) + 12
                   > self._data.layout.cols.size * self._cell_size()[1]
                   if self._data is not None else False)
        per_row = max(self.heads_per_row(), 1)
        last_band = (len(heads) - 1) // per_row
        shared = self.shares_axis_names()
        keeper = last_band * per_row if shared else 0  # the one head that keeps the name when crowded
        for i, m in enumerate(heads):
            if (crowded and i != keeper) or (shared and i // per_row < last_band):
                self.heatmaps[m].bottom.setLabel("")
                self.heatmaps[m].bottom.showLabel(False)
                self.heatmaps[m].bottom_labels._name = ""
        axes = [self.left] + [a for a, _ in self.extra_lefts] + [self.heatmaps[m].bottom for m in heads]
        for axis in axes:
            text = axis.labelText
            if text and axis.label.isVisible():
                axis.setLabel(text, **style)


def pane_font_px(base: float, zoom: float) -> int:
    """A font size at `zoom` (the presentation's own labels use it too), never under MIN_TEXT_PX."""
    return max(int(round(base * zoom)), MIN_TEXT_PX)

