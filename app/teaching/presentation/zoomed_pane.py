"""A StepPane drawn for the projector: its texts at a zoom factor, its cells at the size the slide planned.

The drawing is StepPane's own; this subclass scales the texts it works from (labels, axes, colour
bar, head titles: `zoom`, never under MIN_TEXT_PX) and takes its cells' size and heads-a-row from
the slide's plan (`set_cells`, app.teaching.presentation.slide_layout), for which it measures what
surrounds its cells (`slide_frame`) and the smallest cell whose numbers are legible
(`legible_cell`).  Digits that would be under LEGIBLE_DIGIT_PX are not drawn (the colour stays;
hovering or clicking a cell says its number), and `zoom_to` shows a region of the matrix, large
enough for its digits (a click on a slide does it; `unzoom` shows the whole matrix again).
"""
from __future__ import annotations

import functools
import html
import math
from typing import Optional

from PySide6.QtCore import QPoint, QRectF, Qt, Signal
from PySide6.QtGui import QCursor, QFont, QFontMetricsF
from PySide6.QtWidgets import QHBoxLayout, QToolTip

from app.panes import scale_lock, step_pane
from app.panes.cell_overlay import MAX_TEXT_SIDE, _advance, prints_numbers
from app.panes.heatmap import AXIS_COLOUR, TICK_FONT_PX, IndexAxis, label_extent, wrapped_name
from app.panes.step_pane import BAR_WIDTH, StepPane
from app.teaching.presentation.slide_layout import Frame
from app.viewmodel import cell_format, pane_text, wrapped
from app.viewmodel.nowrap import keep_together, slide_decimal
from attention.datamodel.numbers import position

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
#: a head title of two parts ("Head 3 · K/V 2") goes on two lines when one line is wider than this many ems
TITLE_PARTS, TWO_LINE_TITLE_EM = " · ", 5.0
QWIDGETSIZE_MAX = float((1 << 24) - 1)
#: a column label may reach this far past its matrix's edge (px; half the grid's spacing)
EDGE_LABEL_PX = 3
#: a row axis's name takes at most this many lines beside the matrix (else it is left out)
ROW_NAME_LINES = 2
#: a slide writes numbers in matrices up to this many cells a side (a region zoomed into shows them;
#: the window's panes stop at cell_overlay's smaller limits)
SLIDE_TEXT_SIDE = 8 * MAX_TEXT_SIDE
#: a matrix of more cells than this measures its numbers' width on its extreme values only
SAMPLED_CELLS = 4096


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
    """StepPane with its texts at `zoom` (1.0 = the window's size) and its cells as the slide
    plans them.  `show_header=False` hides the pane's own title and formula (the presentation
    shows them once, large, above the result)."""

    zoomHead = Signal(int)  # a click asked for this head alone, large (its cells too small for one number)

    wrap_slack = 0.0  # a slide's cells keep their planned width
    head_gap = 14  # the grid's 6-px spacing and the matrix frame

    def __init__(self, step_id: str, zoom: float = 1.0, show_header: bool = True) -> None:
        super().__init__(step_id)
        self._zoom = float(zoom)
        # the lock button beside the hint line under the canvas, not on a row of its own above it
        # (a slide's height is dear); an input pane (`compact`) shows neither: its menu still locks
        lay = self.layout()
        for i in range(lay.count()):
            header = lay.itemAt(i).layout()
            if header is not None and header.indexOf(self.scale_lock.button) >= 0:
                header.removeWidget(self.scale_lock.button)
                break
        lay.removeWidget(self.hover)
        bottom = QHBoxLayout()
        bottom.setContentsMargins(0, 0, 0, 0)
        bottom.addWidget(self.hover, 1)
        bottom.addWidget(self.scale_lock.button, 0, Qt.AlignmentFlag.AlignBottom)
        lay.insertLayout(lay.indexOf(self.notice) + 1, bottom)
        self.compact = show_header
        self.bare = False  # no axis names, only their ticks (a small input: its title says what it holds)
        self.wrapped = False  # a long one-row matrix written in rows (PresentationView sets it)
        self.per_row: Optional[int] = None  # how many a row while wrapped (None: the preferred)
        self._original = None  # the data as given (drawn reshaped while wrapped)
        self.max_digits = SLIDE_DIGITS  # one precision for every pane of a slide (PresentationView sets it)
        #: (cell width, cell height, heads a row) as the slide planned them; None: the desk-top sizes
        self.cells: Optional[tuple[float, float, int]] = None
        #: the region zoomed into: (first row, rows, first column, columns), None: the whole matrix
        self.region: Optional[tuple[int, int, int, int]] = None
        self._zoom_at: Optional[tuple[int, int, int]] = None  # the cell (the trace's place) the region is around
        self._outside_h: dict[int, float] = {}  # pane width -> its height beyond the canvas
        self._held = False  # hold(): the grid is not worked out until the plan sets the cells
        self.canvas.ci.geometryChanged.connect(self._keep_grid_in_canvas)
        self.canvas.on_resize = self._keep_grid_in_canvas
        self._legible: dict = {}  # (the numbers' fit, digits) -> legible_cell's answer
        self.title.setVisible(show_header)
        self.formula.setVisible(False)  # the presentation writes the operation once, above
        self._apply_fonts()

    @property
    def zoom(self) -> float:
        return self._zoom

    def set_zoom(self, zoom: float) -> None:
        """The texts' scale (the slide's zoom); the cells follow the plan."""
        zoom = float(zoom)
        if abs(zoom - self._zoom) < 1e-9:
            return
        self._zoom = zoom
        self._outside_h.clear()
        self._apply_fonts()
        if self._data is not None:
            self._split_head_titles()
            self._arranged_key = None
            self._arrange()

    # ---- the slide's plan ------------------------------------------------------------------------
    def set_cells(self, cell_w: float, cell_h: float, per_row: int) -> None:
        """Draw each cell cell_w x cell_h px, `per_row` heads a row (the slide's plan)."""
        cells = (float(cell_w), float(cell_h), max(int(per_row), 1))
        if self.cells is not None and cells[2] == self.cells[2] and \
                abs(cells[0] - self.cells[0]) < 0.05 and abs(cells[1] - self.cells[1]) < 0.05:
            return
        self.cells = cells
        if self._data is not None:
            self._arranged_key = None
            self._placement = None  # heads a row may have changed
            self._arrange()

    def _keep_grid_in_canvas(self) -> None:
        """The canvas's grid as large as the canvas: pyqtgraph's grid, relaid out after the canvas
        had narrowed, kept an earlier width (a colour bar past the canvas's edge)."""
        c = self.canvas
        g = c.ci.geometry()
        if abs(g.width() - c.width()) > 0.5 or abs(g.height() - c.height()) > 0.5:
            c.ci.layout.invalidate()  # its size hints as the grid now is, not as they were cached
            c.ci.updateGeometry()
            c.range = QRectF(0, 0, c.width(), c.height())
            c.setRange(c.range, padding=0, disableAutoPixel=False)

    def settle(self) -> None:
        """Lay the pane out at its size now and give the canvas's grid the canvas's own size: a
        pane hidden and shown again at another size kept its grid at the old width (the colour bar
        past the canvas's edge)."""
        self.layout().activate()
        c = self.canvas
        c.range = QRectF(0, 0, c.width(), c.height())
        c.setRange(c.range, padding=0, disableAutoPixel=False)

    def slide_frame(self, bare: Optional[bool] = None) -> Frame:
        """What surrounds the cells (px), measured at the pane's fonts, for slide_layout; `bare`:
        as it would be with (False) or without (True) its axis names (None: as it is)."""
        title_h, axis_h, left_w, bar_w = self._frame_sizes(self.bare if bare is None else bare)
        m = self.layout().contentsMargins()
        border = 2 * self.frameWidth()
        canvas_w = left_w + bar_w + 8 + 6  # the canvas's margins and the grid's spacing
        fixed_w = canvas_w + m.left() + m.right() + border + 2
        per_head = self._data is not None and self._data.layout.per_head
        return Frame(fixed_w=fixed_w, head_w=self.head_gap, fixed_h=lambda w: self.outside_height(w) + axis_h + 10,
                     head_h=title_h if per_head else 0.0, band_gap=self._tick_row_px(),
                     head_min_w=self._head_title_width(bare))

    def outside_height(self, width: float) -> float:
        """The pane's height beyond its canvas at `width` px: margins, the title (wrapped at that
        width), the hint line under the canvas and the lock button beside it (worked out from the
        parts: a layout answers for the canvas's last size, not for the one being planned)."""
        key = int(width) // 4 * 4
        got = self._outside_h.get(key)
        if got is None:
            self.ensurePolished()  # the style sheets' fonts, before anything is measured
            lay = self.layout()
            m = lay.contentsMargins()
            inner = max(key - m.left() - m.right() - 2 * self.frameWidth(), 20)
            parts = [0.0]  # the canvas's row
            for label in (self.title, self.weights_note, self.notice):
                if not label.isHidden():
                    parts.append(label.heightForWidth(inner))
            button = self.scale_lock.button
            bottom = button.sizeHint().height() if not button.isHidden() else 0
            if not self.hover.isHidden():
                room = inner - (button.sizeHint().width() + lay.spacing() if not button.isHidden() else 0)
                bottom = max(bottom, self.hover.minimumHeight(), self.hover.heightForWidth(max(room, 20)))
            if bottom:
                parts.append(bottom)
            got = self._outside_h[key] = float(sum(parts) + lay.spacing() * (len(parts) - 1) + m.top() + m.bottom()
                                               + 2 * self.frameWidth() + 2)
        return got

    def legible_cell(self, digits: int = DIGITS_FEWEST) -> Optional[tuple[float, float]]:
        """The smallest (width, height) of a cell whose numbers are legible (digits of
        LEGIBLE_DIGIT_PX, at `digits` significant digits: by default the fewest a slide falls back
        to), None for a pane without numbers."""
        if self._fit is None or not self._fit._fns:
            return None
        key = (id(self._fit), digits)
        if key not in self._legible:
            if len(self._legible) > 16:
                self._legible.clear()
            self._legible[key] = self._legible_cell(digits)
        return self._legible[key]

    def _legible_cell(self, digits: int) -> tuple[float, float]:
        px = legible_font_px()
        rows, cols = self._data.layout.rows.size, self._data.layout.cols.size
        if rows * cols > SAMPLED_CELLS and all(f is not None for f in self._fit._samples):
            # a big matrix: its extreme values stand for all (formatting every cell costs more than the plan)
            labels = [t for f in self._fit._samples for t in f(digits)]
            width = max(_advance(t, px) for t in labels) + 8
        else:
            width = self._fit._max_width(digits, px) + 8  # TextFit keeps 8 px of a cell free
        # a little wider than that: the canvas's spacing takes a few pixels of every head
        return width / 0.96 + 2, px / SLIDE_TEXT_RATIO + 1

    def clear_plan(self) -> None:
        self.cells, self.region, self._zoom_at = None, None, None
        self.set_bare(False)

    def set_compact(self, compact: bool) -> None:
        """An input of the slide: its title shown, no hint line, no lock button (its menu locks)."""
        was, self.compact = getattr(self, "compact", None), compact
        if was != compact and self._data is not None:
            self._apply_title()
            self._split_head_titles()
        self.title.setVisible(compact)
        self.hover.setVisible(not compact)
        self._show_lock()
        self._outside_h.clear()

    def hold(self, on: bool) -> None:
        """While held, the grid is not laid out (new numbers, a zoom, a wrap): the slide is about to
        plan the cells, and laying the heads out for the window's sizes first cost a layout each.
        Released, it is laid out once, as it now is."""
        if on == self._held:
            return
        self._held = on
        if not on and self._data is not None:
            self._arranged_key = None
            self._arrange()

    def set_bare(self, bare: bool) -> None:
        """Leave the axis names out (their ticks stay): an input drawn small beside the result."""
        bare = bool(bare)
        if bare != self.bare:
            self.bare = bare
            self._outside_h.clear()
            if self._data is not None:
                self._split_head_titles()  # the heads by their numbers only, or their titles again
                self._arranged_key = None
                self._arrange()

    # ---- StepPane overrides --------------------------------------------------------------------
    def _apply_title(self) -> None:
        """An input's title alone on its line (its shape in the tooltip: a slide's height is dear);
        the result's title is the slide's own."""
        super()._apply_title()
        if getattr(self, "compact", False) and self._data is not None:
            d, lang = self._data, self._lang
            title = html.escape(d.step.title[lang])
            if self._stale:
                title = (f"<span style='color: {step_pane.STALE_COLOUR}'>{title} "
                         f"({html.escape(pane_text.ui('stale_tag', lang))})</span>")
            self.title.setText(title)
            self.title.setToolTip(keep_together(d.shape_text(lang)))

    def _apply_texts(self) -> None:
        super()._apply_texts()
        self._split_head_titles()

    def _split_head_titles(self) -> None:
        """A head title of two parts ("Head 3 · K/V 2") on two lines where one line would be much
        wider than a head needs: four such heads side by side did not fit a slide's width."""
        d = self._data
        if d is None or not d.layout.per_head:
            self._two_line = False
            return
        titles = self._head_titles(self.bare)
        font = self._head_title_font()
        fm = QFontMetricsF(font)
        self._two_line = any(TITLE_PARTS in t and fm.horizontalAdvance(t) > TWO_LINE_TITLE_EM * font.pixelSize()
                             for t in titles)
        for hm, t in zip(self.heatmaps, titles):
            hm.set_title(t.replace(TITLE_PARTS, "<br>") if self._two_line else t)

    def _head_titles(self, bare: bool) -> list[str]:
        """The heads' titles: an input beside the result names its heads alone (the result says
        which K/V head each reads); drawn small (`bare`), by their numbers only ("1", "2", ...)."""
        d = self._data
        if bare:
            return [position(m) for m in range(d.layout.n_matrices)]
        short = getattr(self, "compact", False)
        return [d.matrix_title(m, self._lang, short=short) for m in range(d.layout.n_matrices)]

    def _head_title_font(self) -> QFont:
        font = QFont()
        font.setPixelSize(self._px(HEAD_TITLE_FONT_PX))
        font.setBold(True)
        return font

    def _show_lock(self) -> None:
        super()._show_lock()
        if getattr(self, "compact", False):
            self.scale_lock.button.hide()

    def show_data(self, data, lang: str, focus: int, picture=None) -> None:
        self._original = data
        if self.wrapped:  # a long row written in rows (app.viewmodel.wrapped); its picture is made here
            shown = wrapped.wrap(data, self.per_row)
            data, picture = shown, (None if shown is not data else picture)
        super().show_data(data, lang, focus, picture)
        self._scale_numbers()
        if self._zoom_at is not None:
            self._rezoom()

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

    def row_widths(self) -> list[int]:
        """The widths a wrapped row may take (the preferred first), [] for a pane that does not wrap."""
        return wrapped.row_widths(self._original) if self.can_wrap() else []

    def set_wrapped(self, on: bool, per_row: Optional[int] = None) -> None:
        """Write a one-row matrix in rows of `per_row` (on; None: the preferred width) or as one long row."""
        on = bool(on) and (self.can_wrap() or not on)
        per_row = per_row if on else None
        if on != self.wrapped or per_row != self.per_row:
            self.wrapped, self.per_row = on, per_row
            if self._original is not None:
                self._arranged_key = None
                self._outside_h.clear()
                self.show_data(self._original, self._lang, self._focus)

    def click_cell(self, m: int, r: int, c: int, double: bool = False) -> None:
        """A click on a cell (as shown): on a slide whose cells are too small for their numbers it
        zooms into the cell's region (the numbers appear); else the slide hears of the cell (its
        arithmetic is written out)."""
        if self.cells is not None and self.region is None and not self.numbers_shown():
            if self._one_number_fits():
                if self.zoom_to(r, c):
                    return
            elif len(self.visible_heads()) > 1:  # a head too narrow for even one number: that head alone
                at = wrapped.unwrapped_cell(self._data, m, r, c)
                self.zoomHead.emit(m)  # the slide shows head m alone (and plans it anew) ...
                self._zoom_at = at  # ... and its region around the cell, once it has its cells
                return
        super().click_cell(*wrapped.unwrapped_cell(self._data, m, r, c), double=double)

    def _one_number_fits(self) -> bool:
        """Whether a head's matrix is large enough for one cell with a legible number."""
        need = self.legible_cell()
        if need is None or self.cells is None or self._data is None:
            return False
        cw, ch, _ = self.cells
        return self._data.layout.cols.size * cw >= need[0] and self._data.layout.rows.size * ch >= need[1]

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
        character ("0.00045", not "4.5e-4", on a classroom slide); a slide has them for larger
        matrices than the window (a region zoomed into prints its numbers)."""
        rows, cols = data.block.shape[1:]
        base = StepPane._text_fn(data, m)
        if base is None and max(rows, cols) <= SLIDE_TEXT_SIDE:
            memo_base: dict[int, list[str]] = {}

            def base(digits: int) -> list[str]:  # noqa: F811 (the window's, for a larger matrix)
                if digits not in memo_base:
                    memo_base[digits] = data.cell_texts(m, digits)
                return memo_base[digits]

            base.sample = functools.partial(data.sample_texts, m)
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
        if self.cells is not None and self._data is not None:
            cw, ch, _ = self.cells
            return int(round(ch * self._data.layout.rows.size)), cw
        h, cell_w = super()._cell_size()
        return int(round(h * self._zoom)), cell_w * self._zoom

    def _heads_per_row(self, k: int) -> int:
        if self.cells is not None and not self._one_row:
            return max(1, min(k, self.cells[2]))
        return super()._heads_per_row(k)

    def shares_axis_names(self) -> bool:
        """Heads in several rows: the column name is written under the last row only, and the
        rows above keep just their ticks (the name in every row cost a line of height each)."""
        return self._data is not None and self._data.layout.per_head and self._bands(len(self.visible_heads())) > 1

    def _tick_row_px(self) -> int:
        """The height of a head's column axis without its name: the ticks' line and the tick marks."""
        return int(self._px(TICK_FONT_PX) * 1.3) + 8

    def numbers_shown(self) -> bool:
        """Whether the cells of the heads on screen have their numbers drawn (as last painted, or
        as the cells' size gives them)."""
        heads = self.visible_heads()
        if not heads or self._fit is None or not self._fit._fns:
            return False
        return self.number_choice() is not None

    def _arrange(self) -> None:
        if self._held:
            self._arranged_key = None  # laid out when released
            return
        key = self._arranged_key
        super()._arrange()
        if self._arranged_key != key and self._data is not None:  # the row name at the slide's font
            name = self._row_name()
            self.left_labels.set(self._data.layout.rows, name)
            for _axis, labels in self.extra_lefts[: self._bands(len(self.visible_heads())) - 1]:
                labels.set(self._data.layout.rows, name)
            if self.bare:
                for m in self.visible_heads():
                    self.heatmaps[m].bottom_labels.set(self._data.layout.cols, "")
        self._style_axes()  # a second row of heads may have brought a new row axis
        self._scale_axis_names()
        self._keep_grid_in_canvas()  # a grid narrower than before may now take the canvas's width
        if self._zoom_at is not None:
            self._rezoom()
        elif self.region is not None:
            self._show_region()

    def _size_canvas(self, k: int) -> None:
        """StepPane's sizing; planned cells make the canvas exactly as wide as its heads need."""
        self._sized = None  # StepPane's sizes-unchanged shortcut does not cover what is set below
        super()._size_canvas(k)
        _, cell_w = self._cell_size()
        _, _, left_w, bar_w = self._frame_sizes()
        cols = self._data.layout.cols.size
        per_row = min(max(self._per_row, 1), k)
        frame = left_w + bar_w + 8 + 6  # the canvas's margins and the grid's spacing
        title_w = self._head_title_width() if self.cells is not None else 0.0
        width = int(frame + per_row * max(cols * cell_w + self.head_gap, title_w))
        self.canvas.setMaximumWidth(width)
        titled = self._data.layout.per_head and self.cells is not None  # only a head title can hold a column wider
        self._centre_heads(cols * cell_w + self.head_gap - 6 if titled else None)
        self._trim_grid(per_row + 2)
        # the row axes as wide as planned: pyqtgraph sizes an axis to its labels only when it first
        # paints them, and the grid then no longer fitted the canvas (nothing re-fitted it)
        fixed = int(math.ceil(left_w)) if self.cells is not None else None
        for axis in [self.left] + [a for a, _ in self.extra_lefts]:
            if axis.fixedWidth != fixed:
                axis.setWidth(fixed)
        if self.shares_axis_names():
            h, _ = self._cell_size()
            title_h, axis_h, _, _ = self._frame_sizes()
            bands, tick_h = self._bands(k), self._tick_row_px()
            grid = self.canvas.ci.layout
            for band in range(bands - 1):
                grid.setRowFixedHeight(step_pane.R_AXIS + step_pane.ROWS_PER_BAND * band, tick_h)
            self.canvas.setFixedHeight(int(bands * (h + title_h) + (bands - 1) * tick_h + axis_h + 10))
        self.canvas.setMinimumWidth(width if self.cells is not None else int(frame + cols * cell_w + self.head_gap))
        self._natural_width = int(frame + k * (cols * cell_w + self.head_gap)) + 22

    def _trim_grid(self, used: int) -> None:
        """Columns past the `used` ones (left axis, heads, colour bar) take no room: a pane that
        showed more heads a row before (another slide, another scenario) kept their spacing, and
        its grid no longer fitted its canvas."""
        grid = self.canvas.ci.layout
        for c in range(grid.columnCount()):
            if c < used:
                grid.setColumnMaximumWidth(c, QWIDGETSIZE_MAX)
                grid.setColumnSpacing(c, 6 if c < used - 1 else 0)
            else:
                grid.setColumnMaximumWidth(c, 0)
                grid.setColumnSpacing(c, 0)

    def _centre_heads(self, width: Optional[float]) -> None:
        """Each head's matrix and column axis `width` px wide, centred under a title that holds
        its column wider (None: as wide as the column)."""
        grid = self.canvas.ci.layout
        most = QWIDGETSIZE_MAX if width is None else max(float(width), 1.0)
        for m in self.visible_heads():
            hm = self.heatmaps[m]
            for item in (hm.vb, hm.bottom):
                if abs(item.maximumWidth() - most) > 0.5:
                    item.setMaximumWidth(most)
                grid.setAlignment(item, Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)

    def _frame_sizes(self, bare: Optional[bool] = None) -> tuple[int, int, float, float]:
        """StepPane's fixed heights and widths, scaled by the zoom; the parts that hold text
        (head titles, axis rows, row labels, the colour bar's numbers) by the text's own scale,
        which never falls under MIN_TEXT_PX however small the matrices are drawn."""
        d, z = self._data, self._zoom
        t = self._text_scale()
        title_h = int(HEAD_TITLE_PX * max(z, self._px(HEAD_TITLE_FONT_PX) / HEAD_TITLE_FONT_PX)) \
            if d.layout.per_head else 0
        asked = bare
        bare = self.bare if bare is None else bare
        if d.layout.per_head and (asked is None or asked == self.bare):  # as drawn (two lines: "Head 3" / "K/V 2")
            drawn = max((self.heatmaps[m].title.item.boundingRect().height() for m in self.visible_heads()),
                        default=0.0)
            title_h = max(title_h, int(math.ceil(drawn)) + 2)
        axis_h = self._tick_row_px() if bare else int(AXIS_ROW_PX * t)
        return title_h, axis_h, self._row_axis_width(bare), BAR_WIDTH * z + self._bar_labels_width() + 14

    def _row_axis_width(self, bare: bool) -> float:
        """The row axis's width at its fonts: its widest tick label, the tick marks, and its name
        (written along the matrix, at most ROW_NAME_LINES lines side by side)."""
        d = self._data
        font = QFont()
        font.setPixelSize(self._px(TICK_FONT_PX))
        ticks = label_extent(d.layout.rows, font, True)
        name = QFont()
        name.setPixelSize(self._px(AXIS_NAME_PX))
        line = QFontMetricsF(name).height()
        return ticks + 14 + (ROW_NAME_LINES * line if d.layout.rows.name(self._lang) and not bare else 0)

    def _head_title_width(self, bare: Optional[bool] = None) -> float:
        """The widest head title as drawn ("Head 3 · K/V 2" is wider than its cells), or as it would
        be drawn with(out) `bare`, and the grid's spacing beside it: a head is never narrower."""
        d = self._data
        if d is None or not d.layout.per_head:
            return 0.0
        if bare is not None and bare != self.bare:  # measured, not drawn: one line of plain text
            fm = QFontMetricsF(self._head_title_font())
            titles = self._head_titles(bare)
            widest = max((fm.horizontalAdvance(titles[m]) for m in self.visible_heads()), default=0.0) + 8
        else:
            widest = max((self.heatmaps[m].title.item.boundingRect().width() for m in self.visible_heads()),
                         default=0.0)
        return widest + 6 + 4 if widest > 0 else 0.0

    def _row_name(self) -> str:
        """The row axis's name wrapped along the matrix's height, or "" where it would take more
        than ROW_NAME_LINES lines or a word of it is longer than the matrix is tall (a small input:
        its title says what its rows are; a name running past its matrix was cut off)."""
        d = self._data
        if self.bare:
            return ""
        font_px, length = self._px(AXIS_NAME_PX), self._cell_size()[0]
        name = wrapped_name(d.layout.rows.name(self._lang), font_px, length)
        font = QFont()
        font.setPixelSize(font_px)
        longest = max(QFontMetricsF(font).horizontalAdvance(html.unescape(line)) for line in name.split("<br>"))
        return name if name.count("<br>") < ROW_NAME_LINES and longest <= length + 1 else ""

    def _bar_labels_width(self) -> float:
        """The colour bar's widest number at its font: its ends, or a tick between them ("-0.25")."""
        lo, hi = self._levels
        font = QFont()
        font.setPixelSize(self._px(TICK_FONT_PX))
        fm = QFontMetricsF(font)
        texts = [cell_format.compact(lo), cell_format.compact(hi), "-0.25"]
        if self._locked:
            texts = [f"≤ {texts[0]}", f"≥ {texts[1]}"] + texts
        return max(fm.horizontalAdvance(t) for t in texts)

    # ---- a region of the matrix, large (a click on a slide's colour-only cells) -------------------
    def zoom_to(self, r: int, c: int) -> bool:
        """Show the region around cell (r, c) (as drawn), in the pane's own place, with cells large
        enough for legible numbers (every head the same region); it follows the pane's cells when
        the slide is planned anew (the arithmetic box took the lesson's room).  False when the
        whole matrix already shows its numbers or the pane has none."""
        if self._data is None or self.legible_cell() is None:
            return False
        self._zoom_at = wrapped.unwrapped_cell(self._data, 0, r, c)
        if not self._rezoom():
            self._zoom_at = None
            return False
        return True

    def _rezoom(self) -> bool:
        """The region around the zoomed-into cell at the pane's cells now."""
        d, need = self._data, self.legible_cell()
        if self._zoom_at is None or d is None or need is None:
            return False
        _, r, c = wrapped.wrapped_cell(d, *self._zoom_at)
        rows, cols = d.layout.rows.size, d.layout.cols.size
        if self.cells is not None:
            cw, ch, _ = self.cells
            width, height = cols * cw, rows * ch
        else:
            heads = self.visible_heads()
            rect = self.heatmaps[heads[0]].vb.geometry() if heads else None
            width, height = (rect.width(), rect.height()) if rect is not None else (0.0, 0.0)
        n_r = max(1, min(rows, int(height // need[1])))
        n_c = max(1, min(cols, int(width // need[0])))
        if n_r >= rows and n_c >= cols:
            region = None
        else:
            r0 = max(0, min(r - n_r // 2, rows - n_r))
            c0 = max(0, min(c - n_c // 2, cols - n_c))
            region = (r0, n_r, c0, n_c)
        if region != self.region:
            self.region = region
            self._show_region()
            self._set_hint()
        return region is not None

    def unzoom(self) -> bool:
        """The whole matrix again; False when it was already whole."""
        self._zoom_at = None
        if self.region is None:
            return False
        self.region = None
        self._show_region()
        self._set_hint()
        return True

    def _show_region(self) -> None:
        d = self._data
        if d is None:
            return
        rows, cols = d.layout.rows.size, d.layout.cols.size
        r0, n_r, c0, n_c = self.region if self.region is not None else (0, rows, 0, cols)
        for hm in self.heatmaps[: d.layout.n_matrices]:
            hm.vb.setRange(xRange=(c0 - 0.5, c0 + n_c - 0.5), yRange=(r0 - 0.5, r0 + n_r - 0.5), padding=0.0)
            hm.overlay._layout_key = None
            hm.overlay.update()

    def _set_hint(self) -> None:
        super()._set_hint()
        d = self._data
        if d is None or self.cells is None:
            return
        # on a slide, small cells say how to read them (hover, click to zoom in), not the window's words
        text = self.hover.text()
        for key in ("numbers_large", "numbers_hidden", "numbers_hidden_heads"):
            text = text.replace(pane_text.ui(key, self._lang), "")
        self.hover.setText(" ".join(text.split(" ")).strip())
        if self.region is not None:
            r0, n_r, c0, n_c = self.region
            self.hover.setText(pane_text.ui("slide_region", self._lang, rows=f"{position(r0)}–{position(r0 + n_r - 1)}",
                                            cols=f"{position(c0)}–{position(c0 + n_c - 1)}",
                                            n_rows=d.layout.rows.size, n_cols=d.layout.cols.size))
        elif self._fit is not None and self._fit._fns and not self.numbers_shown():
            rest = self.hover.text()
            self.hover.setText(f"{rest} {pane_text.ui('slide_numbers_hidden', self._lang)}".strip())

    def _show_hover(self, m: int, r: int, c: int) -> None:
        super()._show_hover(m, r, c)
        if not self.hover.isVisibleTo(self):  # an input: its hint line is not shown, a tooltip says it
            QToolTip.showText(QCursor.pos() + QPoint(12, 12), self.hover_text(m, r, c), self.canvas)

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
        for hm in self.heatmaps:  # a label may reach past the matrix's edge by a rounding, not into the next head
            if hm.bottom.style.get("hideOverlappingLabels") != EDGE_LABEL_PX:
                hm.bottom.setStyle(hideOverlappingLabels=EDGE_LABEL_PX)

    def _ensure_heatmaps(self, n: int) -> None:
        before = len(self.heatmaps)
        super()._ensure_heatmaps(n)
        if len(self.heatmaps) != before:
            self._apply_fonts()

    def _scale_numbers(self) -> None:
        if self._fit is not None:
            self._fit.scale = self._zoom
            self._fit.floor_px = legible_font_px()
            self._fit.least_px = legible_font_px()  # smaller digits are not drawn on a slide
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
        is laid out (of the region shown), else the planned size."""
        if self._data is None:
            return None
        d = self._data
        heads = self.visible_heads()
        rows, cols = d.layout.rows.size, d.layout.cols.size
        if self.region is not None:
            rows, cols = self.region[1], self.region[3]
        if self.canvas.isVisible() and heads:
            self.canvas.ci.layout.activate()
            rect = self.heatmaps[heads[0]].vb.geometry()
            if rect.width() > 0 and rect.height() > 0:
                return rect.width() / cols, rect.height() / rows
        h, cell_w = self._cell_size()
        return cell_w, h / d.layout.rows.size

    def number_choice(self) -> Optional[tuple[int, int]]:
        """(font px, digits) the cells' numbers are drawn with, None when no number is drawn (the
        cells too small for legible digits, or a matrix without numbers)."""
        cell = self.cell_px()
        if self._fit is None or cell is None or not self._fit._fns:
            return None
        return self._fit.choose(*cell)

    def designed_choice(self) -> Optional[tuple[int, int]]:
        """(font px, digits) at the cells' planned size, None without numbers or when the
        precision makes no difference (True/False, whole numbers)."""
        if self._fit is None or self._data is None or not self._fit._fns:
            return None
        if all(f(DIGITS_MOST) == f(DIGITS_FEWEST) for f in self._fit._fns):
            return None
        h, cell_w = self._cell_size()
        return self._fit.choose(cell_w * 0.96, h / self._data.layout.rows.size)

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
            if text and axis.label.isVisible() and axis.labelStyle != style:  # setLabel lays out HTML anew
                axis.setLabel(text, **style)


def pane_font_px(base: float, zoom: float) -> int:
    """A font size at `zoom` (the presentation's own labels use it too), never under MIN_TEXT_PX."""
    return max(int(round(base * zoom)), MIN_TEXT_PX)

