"""The "by hand" layout on screen: one head's Q, Kᵀ, scores, weights, V and output, placed as the
AI-by-hand worksheets place them (the plan, in cell units: app/viewmodel/by_hand.py).

Every cell is a QGraphicsRectItem with its number as a QGraphicsSimpleTextItem, in a scene the
view lays out again whenever the numbers, the head, the language or its own size change: the
cell size is the largest that fits the view with numbers of at least MIN_FONT_PX (14 px: read
from the back of a class at 1280 x 720); where even that does not fit, the view scrolls rather
than shrink the numbers.  Colours are the panes' own (app/panes/colormaps.py), per block.
Hovering a score or an output cell outlines the row and the column it is made from.
"""
from __future__ import annotations

import html
from typing import Optional

import numpy as np
from PySide6.QtCore import QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen, QTextOption
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsTextItem,
    QGraphicsView,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from app.panes import colormaps
from app.panes.selectable_label import SelectableLabel
from app.viewmodel import by_hand, pane_text
from app.viewmodel.pane_data import tokens_of
from attention import words

#: numbers are drawn this large at most, and never smaller than MIN_FONT_PX (the view scrolls instead)
MAX_FONT_PX = 26
MIN_FONT_PX = 14
#: a cell is this much wider than its widest number, and this much taller than the font;
#: PAD_X_TIGHT where PAD_X would make the sheet scroll sideways (a 1280 or 1366 px window)
PAD_X, PAD_X_TIGHT, HEIGHT_RATIO = 10, 4, 1.75
#: significant digits a cell prints, most first: fewer before the sheet scrolls sideways
DIGIT_CHOICES = (4, 3, 2)
MARGIN = 8
_DIGITS_AS_ZERO = str.maketrans("123456789", "000000000")
#: numbers are measured once at this size and scaled; SLACK_PX (at REF_PX) covers hinting
REF_PX, SLACK_PX = 100, 4.0
BACKGROUND = "#f4f4f4"
GRID = QColor(120, 120, 120)
HIGHLIGHT = QColor(214, 39, 40)
EMPHASIS = QColor(30, 30, 30)
TITLE_COLOUR = "#111"
LABEL_COLOUR = QColor(70, 70, 70)
HIDDEN_FILL = (228, 228, 228)  # a hidden block's cells: no colour gives the number away


def _font(px: float, bold: bool = False) -> QFont:
    font = QFont()
    font.setPixelSize(max(1, int(round(px))))
    font.setBold(bold)
    return font


class _Canvas(QGraphicsView):
    """The scene's view: tells the owner where the mouse is (for the row and column outline)."""

    hovered = Signal(float, float)  # scene position
    left = Signal()

    def __init__(self, scene: QGraphicsScene, parent: Optional[QWidget] = None) -> None:
        super().__init__(scene, parent)
        self.setMouseTracking(True)
        self.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        self.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setBackgroundBrush(QColor(BACKGROUND))

    def mouseMoveEvent(self, event) -> None:  # noqa: N802 (Qt override)
        p = self.mapToScene(event.position().toPoint())
        self.hovered.emit(p.x(), p.y())
        super().mouseMoveEvent(event)

    def leaveEvent(self, event) -> None:  # noqa: N802 (Qt override)
        self.left.emit()
        super().leaveEvent(event)


class ByHandView(QWidget):
    """One head of the current trace laid out by hand, with a head selector."""

    headChanged = Signal(int)  # the head shown (0-based) changed by the selector

    def __init__(self, parent: Optional[QWidget] = None, large: bool = False) -> None:
        super().__init__(parent)
        self.setObjectName("ByHandView")
        self._large = large  # on a slide: larger texts around the sheet
        self._zoom = 1.0  # the slide's zoom over its default: numbers and texts grow, never shrink below 14 px
        self._lang = "en"
        self._trace = None
        self._tokens: tuple = (None, None)
        self._batch = 0
        self._head = 0
        self._stale = False
        self._emphasis: tuple[str, ...] = ()
        self._hidden: frozenset[str] = frozenset()  # blocks a quiz hides ("?" in every cell)
        self._hidden_step: Optional[str] = None
        self._revealed: frozenset = frozenset()  # the quiz step's cells found (engine indices): they show
        self.plan: Optional[by_hand.Plan] = None
        self.message = ""  # why no sheet is drawn ("" when one is)
        self.cells: dict[tuple[str, int, int], tuple[QGraphicsRectItem, QGraphicsSimpleTextItem]] = {}
        self.labels: dict[tuple[str, str, int], QGraphicsSimpleTextItem] = {}  # (block, side, i)
        self.titles: dict[str, QGraphicsTextItem] = {}
        self.cell_w = self.cell_h = 0.0
        self._widest_cache: Optional[dict] = None  # {digits: advance per px} of the sheet being drawn
        self.font_px = 0
        self.digits = 4
        #: "wide" or "stacked" (by_hand.ARRANGEMENTS); None: whichever shows the numbers larger here
        self.arrangement: Optional[str] = None

        self.head_label = QLabel()
        self.head_box = QComboBox()
        self.head_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.head_box.activated.connect(self._on_head_chosen)
        self.heading = QLabel()
        self.how = QLabel()
        self.how.setWordWrap(True)
        self.how.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.formulas = SelectableLabel()
        self.formulas.setWordWrap(True)
        self.formulas.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.formulas.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.scene = QGraphicsScene(self)
        self.canvas = _Canvas(self.scene, self)
        self.canvas.hovered.connect(self._on_hover)
        self.canvas.left.connect(self._clear_highlight)
        self._highlight: list[QGraphicsRectItem] = []
        self._relayout_timer = QTimer(self)
        self._relayout_timer.setSingleShot(True)
        self._relayout_timer.setInterval(30)
        self._relayout_timer.timeout.connect(self._draw)

        bar = QHBoxLayout()
        bar.setContentsMargins(6, 4, 6, 2)
        bar.addWidget(self.head_label)
        bar.addWidget(self.head_box)
        bar.addSpacing(12)
        bar.addWidget(self.heading, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addLayout(bar)
        lay.addWidget(self.how)
        lay.addWidget(self.formulas)
        lay.addWidget(self.canvas, 1)
        self._style_texts()
        self.retranslate()

    # ---- what it shows ---------------------------------------------------------------------------
    def show_trace(self, trace, scenario=None, batch: int = 0) -> None:
        """A new trace (an edit, a batch item): the sheet of the same head, redrawn."""
        self._trace = trace
        self._tokens = tokens_of(scenario)
        self._batch = batch
        self._fill_head_box()
        self._draw()

    def set_head(self, head: int) -> None:
        """Show head `head` (0-based; clamped into range)."""
        n = by_hand.head_count(self._trace) if self._trace is not None else 1
        head = max(0, min(int(head), n - 1))
        if head != self._head:
            self._head = head
            self.head_box.setCurrentIndex(head)
            self._draw()

    def head(self) -> int:
        return self._head

    def set_language(self, lang: str) -> None:
        self._lang = lang
        self.retranslate()
        self._draw()

    def set_stale(self, stale: bool) -> None:
        """The numbers are the last good ones while an edit cannot be computed: drawn faded."""
        self._stale = stale
        self.canvas.setEnabled(not stale)
        self.scene.setForegroundBrush(QColor(244, 244, 244, 140) if stale else Qt.BrushStyle.NoBrush)

    def set_emphasis(self, keys: tuple[str, ...], redraw: bool = True) -> None:
        """Outline these blocks heavily (the slide's current step)."""
        if tuple(keys) != self._emphasis:
            self._emphasis = tuple(keys)
            if redraw:
                self._draw()

    def emphasis(self) -> tuple[str, ...]:
        return self._emphasis

    def set_hidden_step(self, step_id: Optional[str], revealed=()) -> None:
        """A quiz hides `step_id` (None: nothing): every block that shows its numbers, or numbers
        it is read off, prints "?" on a neutral grey (by_hand.SHOWS_STEP), except the cells of the
        step the class has found or been shown (`revealed`: engine indices), as in the window's pane."""
        hidden = frozenset(by_hand.SHOWS_STEP.get(step_id or "", ()))
        revealed = frozenset(tuple(int(i) for i in ix) for ix in revealed)
        if (hidden, step_id, revealed) != (self._hidden, self._hidden_step, self._revealed):
            self._hidden, self._hidden_step, self._revealed = hidden, step_id, revealed
            self._draw()

    def _shown_cells(self, block_key: str) -> set[tuple[int, int]]:
        """The (row, column) cells of block `block_key` that a quiz has revealed on this batch item
        and head (steps whose cells sit in one block cell each; a projection's or concat's
        columns mix heads and stay hidden)."""
        sid = self._hidden_step
        out: set[tuple[int, int]] = set()
        for ix in self._revealed:
            if len(ix) != 4 or ix[0] != self._batch:
                continue
            if sid in ("scores", "masked_scores", "attention_weights", "extra.sampled_scores"):
                b, h, row, col = ix  # (B, H, L, S)
            elif sid in ("head_split.query", "head_split.value", "weighted_sum"):
                b, row, h, col = ix  # (B, L, H, d)
            elif sid == "head_split.key":
                b, col, h, row = ix  # (B, S, H, d), drawn as Kᵀ: (d, s)
            else:
                continue
            if h == self._head and by_hand.SHOWS_STEP.get(sid or "", ("",))[0] == block_key:
                out.add((row, col))
        return out

    def hidden_blocks(self) -> frozenset[str]:
        return self._hidden

    def retranslate(self) -> None:
        self.head_label.setText(self.tr("Head"))
        self.head_box.setToolTip(self.tr("Which head to work by hand"))
        self._fill_head_box()

    def _style_texts(self) -> None:
        big = (1.4 if self._large else 1.0) * self._zoom
        self.head_label.setStyleSheet(f"font-size: {round(15 * big)}px;")
        self.head_box.setStyleSheet(f"font-size: {round(15 * big)}px;")
        self.heading.setStyleSheet(f"font-size: {round(16 * big)}px; font-weight: 600; color: {TITLE_COLOUR};")
        self.how.setStyleSheet(f"font-size: {round(14 * big)}px; color: #333; padding: 0 6px;")
        self.formulas.setStyleSheet(f"font-size: {round(14 * big)}px; color: #1a1a1a; padding: 0 6px; font-family: "
                                    f"'DejaVu Sans Mono', 'Noto Sans Mono CJK SC', monospace;")

    def _fill_head_box(self) -> None:
        n = by_hand.head_count(self._trace) if self._trace is not None else 1
        self._head = min(self._head, n - 1)
        self.head_box.blockSignals(True)
        self.head_box.clear()
        for h in range(n):
            self.head_box.addItem(pane_text.head_name(h, self._lang))
        self.head_box.setCurrentIndex(self._head)
        self.head_box.blockSignals(False)

    def _on_head_chosen(self, index: int) -> None:
        if index != self._head:
            self._head = index
            self._draw()
            self.headChanged.emit(index)

    # ---- drawing -------------------------------------------------------------------------------------
    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        self._relayout_timer.start()

    def showEvent(self, event) -> None:  # noqa: N802 (Qt override)
        super().showEvent(event)
        self._relayout_timer.start()

    def _draw(self) -> None:
        self._relayout_timer.stop()
        self.scene.clear()
        self._highlight = []
        self.cells, self.labels, self.titles = {}, {}, {}
        self.plan = None
        self._widest_cache = None
        if self._trace is None:
            self._show_message(words.text("byhand.nothing", self._lang))
            return
        arrangements = (self.arrangement,) if self.arrangement else by_hand.ARRANGEMENTS
        sheets = [by_hand.plan(self._trace, self._batch, self._head, self._lang, *self._tokens, arrangement=a)
                  for a in arrangements]
        if isinstance(sheets[0], by_hand.TooBig):
            self._show_message(sheets[0].message)
            return
        sheet = self._choose(sheets)
        self.plan, self.message = sheet, ""
        self.heading.setText(sheet.heading)
        self.how.setText(sheet.how)
        self.formulas.setText("<br>".join(f"<b>{html.escape(b.title)}</b>: {html.escape(b.formula)}"
                                          for b in sheet.blocks.values() if b.formula))
        for block in sheet.blocks.values():
            self._draw_block(block)
        self._draw_arrow(sheet)
        w, h = sheet.width * self.cell_w + 2 * MARGIN, sheet.height * self.cell_h + 2 * MARGIN
        self.scene.setSceneRect(0, 0, w, h)

    def _show_message(self, text: str) -> None:
        self.message = text
        self.heading.setText("")
        self.how.setText(text)
        self.formulas.setText("")
        self.scene.setSceneRect(0, 0, 1, 1)

    def _texts(self, sheet: by_hand.Plan, digits: int) -> list[str]:
        return [b.text(i, j, digits) for b in sheet.blocks.values() for i in range(b.rows) for j in range(b.cols)]

    def _room(self):
        """The canvas's whole inside: a sheet that fits it needs no scroll bars, so the room they
        take while an earlier, larger sheet is shown is not lost."""
        return self.canvas.contentsRect().size()

    def _fit(self, sheet: by_hand.Plan) -> tuple[bool, int, int, float, float]:
        """(fits, digits, font px, cell width, cell height) for `sheet` in this view: the most
        digits (4, else 3: a worksheet is worked with them; 2 and tighter cells rather than a
        sideways scroll, which at 1280 x 720 hid V and the output) at the largest font from
        MAX_FONT_PX down to MIN_FONT_PX whose widest number fits a cell of the size that fits the
        view; if none fits, MIN_FONT_PX with 3 digits and cells as large as those numbers need
        (the view then scrolls: numbers are never drawn below MIN_FONT_PX)."""
        vp = self._room()
        room_w = max(vp.width() - 2 * MARGIN - 2, 50) / sheet.width
        room_h = max(vp.height() - 2 * MARGIN - 2, 50) / sheet.height
        per_px = self._widest_per_px(sheet)
        tries = [(d, pad) for d in DIGIT_CHOICES
                 for pad in ((PAD_X,) if d == DIGIT_CHOICES[0] else (PAD_X, PAD_X_TIGHT))]
        for digits, pad in tries:
            for px in range(self.max_font_px(), self.min_font_px() - 1, -1):
                need_w = per_px[digits] * px + pad
                if need_w <= room_w and px * HEIGHT_RATIO <= room_h:
                    cell_h = min(room_h, px * HEIGHT_RATIO * 1.5)
                    return True, digits, px, min(room_w, max(need_w * 1.3, cell_h * 2.2)), cell_h
        low = self.min_font_px()
        # too short: scroll down (beside the vertical scroll bar), never sideways, if fewer digits allow
        bar = self.canvas.verticalScrollBar().sizeHint().width()
        room_w = max(vp.width() - 2 * MARGIN - 2 - bar, 50) / sheet.width
        for digits, pad in tries:
            need_w = per_px[digits] * low + pad
            if need_w <= room_w:
                return False, digits, low, room_w, low * HEIGHT_RATIO
        need_w = per_px[3] * low + PAD_X
        cell_h = max(min(room_h, low * HEIGHT_RATIO * 1.5), low * HEIGHT_RATIO)
        return False, 3, low, max(room_w, need_w), cell_h

    def min_font_px(self) -> int:
        """The smallest the numbers may be: MIN_FONT_PX, more when the slide is zoomed in."""
        return max(MIN_FONT_PX, round(MIN_FONT_PX * self._zoom))

    def max_font_px(self) -> int:
        return max(self.min_font_px(), round(MAX_FONT_PX * self._zoom))

    def set_zoom(self, zoom: float) -> None:
        """The slide's zoom over its default (Ctrl + / Ctrl −): 1.5 makes the numbers and texts half
        as large again (the sheet scrolls where it no longer fits); below 1 nothing shrinks under 14 px."""
        zoom = max(float(zoom), 0.1)
        if abs(zoom - self._zoom) > 1e-9:
            self._zoom = zoom
            self._style_texts()
            self._draw()

    def zoom(self) -> float:
        return self._zoom

    def _widest_per_px(self, sheet: by_hand.Plan) -> dict[int, float]:
        """{digits: the widest number's advance per pixel of font size}, measured once at REF_PX
        (advances grow in proportion to the font size; SLACK_PX covers the hinting): measuring
        every number at every candidate size cost seconds for a 16 x 16 sheet."""
        if self._widest_cache is None:  # one sheet's numbers (both arrangements show the same), per draw
            metrics = QFontMetricsF(_font(REF_PX))
            # digits share one advance (tabular figures): one text per pattern ("-0.000") is measured
            shapes = {d: {t.translate(_DIGITS_AS_ZERO) for t in self._texts(sheet, d)} for d in DIGIT_CHOICES}
            widths = {d: max((metrics.horizontalAdvance(t) for t in shapes[d]), default=0.0) for d in DIGIT_CHOICES}
            self._widest_cache = {d: (w + SLACK_PX) / REF_PX for d, w in widths.items()}
        return self._widest_cache

    def _choose(self, sheets: list[by_hand.Plan]) -> by_hand.Plan:
        """The arrangement that shows the numbers best here: one that fits without scrolling,
        then one that needs no sideways scroll (scrolling down is easier in front of a class),
        then the most digits, then the largest font, then the least to scroll."""
        best, best_key = sheets[0], None
        vp = self._room()
        for sheet in sheets:
            fit = self._fit(sheet)
            overflow = max(0.0, sheet.width * fit[3] - vp.width()) + max(0.0, sheet.height * fit[4] - vp.height())
            across = sheet.width * fit[3] + 2 * MARGIN <= vp.width()  # no sideways scroll
            key = (fit[0], across, *fit[1:3], -overflow)
            if best_key is None or key > best_key:
                best, best_key = sheet, key
                _, self.digits, self.font_px, self.cell_w, self.cell_h = fit
        return best

    def rect_px(self, r: by_hand.Rect) -> QRectF:
        """A plan rectangle (cell units) in scene pixels."""
        return QRectF(MARGIN + r.x * self.cell_w, MARGIN + r.y * self.cell_h, r.w * self.cell_w, r.h * self.cell_h)

    def _draw_block(self, block: by_hand.Block) -> None:
        images, _ = colormaps.image_stack(np.asarray(block.values)[None], block.kind)
        sc = colormaps.scale(block.kind, images, block.masked)  # one-signed numbers: a sequential map
        lv, pal = sc.levels, colormaps.palette(sc.cmap)
        idx = colormaps.lut_index(images[0], lv)
        font = _font(self.font_px)
        metrics = QFontMetricsF(font)
        pen = QPen(GRID)
        pen.setWidthF(1.0)
        hidden = block.key in self._hidden
        found = self._shown_cells(block.key) if hidden else set()
        # colours and text colours of every cell at once (numpy per cell cost ~0.1 ms a cell)
        rgb = np.broadcast_to(np.array(HIDDEN_FILL, float), idx.shape + (3,)) if hidden else pal.lut[idx].astype(float)
        veiled = block.masked if block.masked is not None else np.zeros(idx.shape, bool)
        rgb = np.where(veiled[..., None], rgb * (1 - colormaps.VEIL_ALPHA) + 255.0 * colormaps.VEIL_ALPHA, rgb)
        dark = np.where(veiled, pal.dark_text_veiled[idx], pal.dark_text[idx]) | hidden
        rgb, dark = rgb.round().astype(int).tolist(), dark.tolist()
        light_text, dark_text = QColor(250, 250, 250), QColor(20, 20, 20)
        advance: dict[str, float] = {}
        half_h = metrics.height() / 2
        for i in range(block.rows):
            for j in range(block.cols):
                rect = self.rect_px(block.cell(i, j))
                item = QGraphicsRectItem(rect)
                item.setPen(pen)
                item.setBrush(QColor(*rgb[i][j]))
                self.scene.addItem(item)
                shown = by_hand.HIDDEN_TEXT if hidden and (i, j) not in found else block.text(i, j, self.digits)
                text = QGraphicsSimpleTextItem(shown)
                text.setFont(font)
                text.setBrush(dark_text if dark[i][j] else light_text)
                if shown not in advance:
                    advance[shown] = metrics.horizontalAdvance(shown)
                center = rect.center()
                text.setPos(center.x() - advance[shown] / 2, center.y() - half_h)
                self.scene.addItem(text)
                self.cells[(block.key, i, j)] = (item, text)
        outline = QGraphicsRectItem(self.rect_px(block.rect))
        heavy = block.key in self._emphasis
        outline.setPen(QPen(EMPHASIS, 4.0 if heavy else 2.0))
        outline.setZValue(2)
        self.scene.addItem(outline)
        self._draw_labels(block, metrics)
        self._draw_title(block)

    def _draw_labels(self, block: by_hand.Block, metrics: QFontMetricsF) -> None:
        font = _font(max(self.min_font_px(), self.font_px * 0.85))
        fm = QFontMetricsF(font)
        for lane in block.labels:
            for i, text in enumerate(lane.texts):
                r = self.rect_px(lane.rect(i))
                shown = fm.elidedText(text, Qt.TextElideMode.ElideRight, r.width() - 4)
                item = QGraphicsSimpleTextItem(shown)
                item.setFont(font)
                item.setBrush(LABEL_COLOUR)
                tw = fm.horizontalAdvance(shown)
                if lane.side == "left":  # right-aligned against the block
                    x = r.right() - tw - 4
                else:
                    x = r.center().x() - tw / 2
                item.setPos(x, r.center().y() - fm.height() / 2)
                item.setToolTip(text)
                self.scene.addItem(item)
                self.labels[(block.key, lane.side, i)] = item

    def _draw_title(self, block: by_hand.Block) -> None:
        r = self.rect_px(block.title_rect)
        px = max(self.min_font_px(), min(self.font_px, round(22 * self._zoom)))
        item = QGraphicsTextItem()
        item.setFont(_font(px, bold=True))
        item.setDefaultTextColor(QColor(TITLE_COLOUR))
        item.setPlainText(block.title)
        item.setTextWidth(max(r.width(), 40))
        item.document().setDocumentMargin(2)
        # centred in its lane, under (or over) its block
        option = QTextOption(Qt.AlignmentFlag.AlignHCenter)
        option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        item.document().setDefaultTextOption(option)
        h = item.boundingRect().height()
        below = block.title_rect.y >= block.y + block.rows - 1e-9
        item.setPos(r.x(), r.y() if below else r.bottom() - h)
        item.setToolTip(block.formula or block.title)
        self.scene.addItem(item)
        self.titles[block.key] = item

    def _draw_arrow(self, sheet: by_hand.Plan) -> None:
        """softmax, from the scores to the weights: "→" over the word beside them, "↓ softmax" under them."""
        r = self.rect_px(sheet.arrow)
        px = max(self.min_font_px(), self.font_px)
        word = words.text("byhand.softmax", self._lang)
        if sheet.arrangement == "wide":  # a narrow lane: the word a line at a time under the arrow
            lines = [("→", _font(px * 1.4))] + [(part, _font(self.min_font_px())) for part in word.split()]
        else:
            lines = [(f"↓ {word}", _font(px))]
        heights = [QFontMetricsF(font).height() for _, font in lines]
        y = r.center().y() - sum(heights) / 2
        for (text, font), h in zip(lines, heights):
            item = QGraphicsSimpleTextItem(text)
            item.setFont(font)
            item.setBrush(QColor(90, 90, 90))
            item.setPos(r.center().x() - QFontMetricsF(font).horizontalAdvance(text) / 2, y)
            self.scene.addItem(item)
            y += h

    # ---- the row and the column a cell is made from ----------------------------------------------
    def _clear_highlight(self) -> None:
        for item in self._highlight:
            self.scene.removeItem(item)
        self._highlight = []

    def sources(self, key: str, i: int, j: int) -> list[by_hand.Rect]:
        """Where the numbers of cell (i, j) of block `key` come from: its own cell, the row of
        the left factor and the column of the top factor (scores: Q and Kᵀ; output: weights and V)."""
        if self.plan is None or key not in ("scores", "output"):
            return []
        left, top = ("q", "kt") if key == "scores" else ("weights", "v")
        a, b, c = self.plan.block(left), self.plan.block(top), self.plan.block(key)
        return [c.cell(i, j), by_hand.Rect(a.x, a.y + i, a.cols, 1.0), by_hand.Rect(b.x + j, b.y, 1.0, b.rows)]

    def highlight(self, key: str, i: int, j: int) -> None:
        self._clear_highlight()
        for r in self.sources(key, i, j):
            item = QGraphicsRectItem(self.rect_px(r))
            item.setPen(QPen(HIGHLIGHT, 3.0))
            item.setZValue(5)
            self.scene.addItem(item)
            self._highlight.append(item)

    def _on_hover(self, x: float, y: float) -> None:
        if self.plan is None or self.cell_w <= 0:
            return
        ux, uy = (x - MARGIN) / self.cell_w, (y - MARGIN) / self.cell_h
        for key in ("scores", "output"):
            b = self.plan.block(key)
            if b.x <= ux < b.x + b.cols and b.y <= uy < b.y + b.rows:
                self.highlight(key, int(uy - b.y), int(ux - b.x))
                return
        self._clear_highlight()
