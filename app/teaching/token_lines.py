"""Token-to-token lines (BertViz's head view) of the attention weights step, in a dock.

View ▸ Token lines shows the weights of the batch item on screen as lines from the query tokens
(left) to the key tokens (right): a line's width and opacity are the weight, its colour the
head's; all heads overlaid or one chosen in the box above.  Hovering a token keeps only its
lines.  The numbers are the trace's (what the weights pane shows), never recomputed; which lines,
how wide and what colour is worked out without Qt in app.viewmodel.token_lines.  While the quiz
hides the weights step the lines are hidden too (they would give the answers away).
"""
from __future__ import annotations

import html
from typing import Optional

import numpy as np
from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QAction, QColor, QFont, QFontMetricsF, QIcon, QKeySequence, QPainter, QPen, QPixmap
from PySide6.QtWidgets import (
    QComboBox,
    QDockWidget,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from app.features import FeatureHost
from app.panes.paint_guard import guarded
from app.services import i18n
from app.viewmodel import pane_text
from app.viewmodel import token_lines as tl
from app.viewmodel.pane_data import axis_for
from app.viewmodel.quiz_data import QuizPaneData
from attention import words

STEP = "attention_weights"
TOKEN_PX = 18  # token labels: read from the back of a room
ROW_MIN = 24  # px between two tokens at the least (the canvas scrolls past that)
ROW_MAX = 90  # px between two tokens at the most (few tokens use the dock's height, up to this)
MARGIN = 10
GAP = 14  # between a token's text and the end of its lines
HOVER_FILL = QColor(255, 236, 160)


class TokenLinesCanvas(QWidget):
    """Paints one TokenLines; hover picks a token (app.viewmodel.token_lines does the choosing)."""

    def __init__(self, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.setMouseTracking(True)
        self.font_ = QFont(self.font())
        self.font_.setPixelSize(TOKEN_PX)
        self.weights: Optional[np.ndarray] = None  # (H, L, S) of the batch item shown
        self.mask: Optional[np.ndarray] = None  # (L, S) bool, True = masked
        self.tokens: tuple = (None, None)
        self.head = -1
        self.hover: tl.Hover = None
        self.model: Optional[tl.TokenLines] = None
        self.on_hover = None  # callback(hover) for the panel's caption
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    # ---- state -----------------------------------------------------------------------------------
    def show_weights(self, weights: Optional[np.ndarray], mask: Optional[np.ndarray], tokens: tuple) -> None:
        self.weights, self.mask, self.tokens = weights, mask, tokens
        self._rebuild()
        self.updateGeometry()

    def set_head(self, head: int) -> None:
        if head != self.head:
            self.head = head
            self._rebuild()

    def set_hover(self, hover: tl.Hover) -> None:
        if hover != self.hover:
            self.hover = hover
            self._rebuild()
            if self.on_hover is not None:
                self.on_hover(hover)

    def _rebuild(self) -> None:
        if self.weights is None:
            self.model = None
        else:
            self.model = tl.build(self.weights, self.mask, self.head, self.hover, *self.tokens)
        self.update()

    # ---- geometry ------------------------------------------------------------------------------
    def _rows(self) -> int:
        return 0 if self.model is None else max(len(self.model.query_labels), len(self.model.key_labels), 1)

    def _column_widths(self) -> tuple[float, float]:
        fm = QFontMetricsF(self.font_)
        if self.model is None:
            return 0.0, 0.0
        left = max((fm.horizontalAdvance(t) for t in self.model.query_labels), default=0.0)
        right = max((fm.horizontalAdvance(t) for t in self.model.key_labels), default=0.0)
        return left + 2 * MARGIN, right + 2 * MARGIN

    def geometry_now(self) -> dict:
        """Where things are on the canvas now: the x of both ends of the lines, the rows' pitch
        and the token centres (used by paint, hover and the tests)."""
        left_w, right_w = self._column_widths()
        rows = self._rows()
        pitch = min(ROW_MAX, max(ROW_MIN, (self.height() - 2 * MARGIN) / rows)) if rows else ROW_MIN
        n_q = 0 if self.model is None else len(self.model.query_labels)
        n_k = 0 if self.model is None else len(self.model.key_labels)
        return {"x_query": left_w + GAP / 2, "x_key": self.width() - right_w - GAP / 2, "left_w": left_w,
                "right_w": right_w, "pitch": pitch, "top": float(MARGIN),
                "queries": tl.centres(n_q, MARGIN, n_q * pitch), "keys": tl.centres(n_k, MARGIN, n_k * pitch)}

    def token_pos(self, side: str, i: int) -> QPointF:
        """The centre of token i's label on `side` ("query" or "key"), in canvas coordinates."""
        g = self.geometry_now()
        if side == "query":
            return QPointF(g["left_w"] / 2, g["queries"][i])
        return QPointF(self.width() - g["right_w"] / 2, g["keys"][i])

    def hover_at(self, pos: QPointF) -> tl.Hover:
        if self.model is None:
            return None
        g = self.geometry_now()
        n_q, n_k = len(self.model.query_labels), len(self.model.key_labels)
        if pos.x() <= g["x_query"]:
            i = tl.token_at(pos.y(), n_q, g["top"], n_q * g["pitch"])
            return None if i is None else ("query", i)
        if pos.x() >= g["x_key"]:
            j = tl.token_at(pos.y(), n_k, g["top"], n_k * g["pitch"])
            return None if j is None else ("key", j)
        return None

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        left_w, right_w = self._column_widths()
        return QSize(int(left_w + right_w + 260), int(2 * MARGIN + self._rows() * ROW_MAX))

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        left_w, right_w = self._column_widths()
        return QSize(int(left_w + right_w + 120), int(2 * MARGIN + self._rows() * ROW_MIN))

    # ---- events --------------------------------------------------------------------------------
    def mouseMoveEvent(self, event) -> None:  # noqa: N802 (Qt override)
        self.set_hover(self.hover_at(event.position()))
        super().mouseMoveEvent(event)

    def leaveEvent(self, event) -> None:  # noqa: N802 (Qt override)
        self.set_hover(None)
        super().leaveEvent(event)

    @guarded
    def paintEvent(self, event) -> None:  # noqa: N802 (Qt override)
        painter = QPainter(self)
        try:
            painter.fillRect(self.rect(), Qt.GlobalColor.white)
            if self.model is not None:
                self._paint(painter)
        finally:
            painter.end()

    def _paint(self, painter: QPainter) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        g = self.geometry_now()
        x0, x1 = g["x_query"], g["x_key"]
        heads = self.model.heads
        offsets = {h: tl.head_offset(i, len(heads), g["pitch"]) for i, h in enumerate(heads)}
        for line in sorted(self.model.lines, key=lambda ln: ln.weight):  # the strongest on top
            if line.alpha * 255 < 1 or line.width <= 0:
                continue
            dy = offsets[line.head]
            color = QColor(line.color)
            color.setAlphaF(line.alpha)
            pen = QPen(color, line.width)
            pen.setCapStyle(Qt.PenCapStyle.FlatCap)
            painter.setPen(pen)
            painter.drawLine(QPointF(x0, g["queries"][line.query] + dy), QPointF(x1, g["keys"][line.key] + dy))
        painter.setFont(self.font_)
        pitch = g["pitch"]
        for side, labels, ys, x, w, align in (
            ("query", self.model.query_labels, g["queries"], 0.0, g["left_w"],
             Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter),
            ("key", self.model.key_labels, g["keys"], self.width() - g["right_w"], g["right_w"],
             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)):
            for i, (text, y) in enumerate(zip(labels, ys)):
                rect = QRectF(x, y - pitch / 2, w, pitch)
                if self.hover == (side, i):
                    painter.fillRect(rect, HOVER_FILL)
                painter.setPen(QColor(20, 20, 20))
                painter.drawText(rect.adjusted(MARGIN, 0, -MARGIN, 0), int(align), text)


class TokenLinesPanel(QDockWidget):
    """The dock: a head box, the canvas and one line of notes under it."""

    def __init__(self, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.setObjectName("TokenLinesDock")
        self._lang = i18n.current_language()
        self._n_heads = 0
        self._axes = None  # (query axis, key axis) for the hover caption
        self._reason = ""  # why no lines are drawn, when none are
        body = QWidget(self)
        self.heads_label = QLabel(body)
        self.head_box = QComboBox(body)
        self.head_box.setStyleSheet("font-size: 15px;")
        self.head_box.activated.connect(lambda i: self.set_head(self.head_box.itemData(i)))
        self.legend = QLabel(body)  # a coloured square and the name of each head
        self.legend.setStyleSheet("font-size: 15px;")
        self.legend.setWordWrap(True)
        self.caption = QLabel(body)
        self.caption.setStyleSheet("font-size: 15px; color: #333;")
        self.caption.setWordWrap(True)
        self.note = QLabel(body)
        self.note.setWordWrap(True)
        self.note.setStyleSheet("font-size: 14px; color: #7a4a00;")
        self.canvas = TokenLinesCanvas(body)
        self.canvas.on_hover = lambda _: self._update_caption()
        self.scroll = QScrollArea(body)
        self.scroll.setWidgetResizable(True)
        self.scroll.setWidget(self.canvas)
        top = QHBoxLayout()
        top.addWidget(self.heads_label)
        top.addWidget(self.head_box)
        top.addStretch(1)
        v = QVBoxLayout(body)
        v.setContentsMargins(4, 4, 4, 4)
        v.addLayout(top)
        v.addWidget(self.legend)  # its own line: beside the picker it kept the dock too wide (issue 12, 8)
        v.addWidget(self.caption)
        v.addWidget(self.scroll, 1)
        v.addWidget(self.note)
        self.setWidget(body)
        self.setMinimumWidth(250)  # with the window's regions it still fits a 1280 px screen (issue 12, 8)
        self.retranslate()

    # ---- content -------------------------------------------------------------------------------
    def show_result(self, trace, scenario, batch: int, hidden: bool, stale: bool = False) -> None:
        """Draw the weights of batch item `batch` of `trace` (None: nothing computed yet)."""
        notes = []
        if trace is None or STEP not in trace:
            self.canvas.show_weights(None, None, (None, None))
            self._reason = "none"
        elif hidden:
            self.canvas.show_weights(None, None, (None, None))
            self._reason = "quiz"
        else:
            self._reason = ""
            weights = trace.array(STEP)[batch]  # (H, L, S): the trace's numbers, as they are
            mask = trace.array("extra.mask")[batch] if "extra.mask" in trace else None  # (L, S)
            tokens = (getattr(scenario, "query_tokens", None), getattr(scenario, "key_tokens", None))
            H, L, S = weights.shape
            self._axes = (axis_for("L", L, query_tokens=tokens[0]), axis_for("S", S, key_tokens=tokens[1]))
            if H != self._n_heads:
                self._n_heads = H
                if self.canvas.head >= H:  # that head is gone: all of them
                    self.canvas.set_head(-1)
                self._fill_head_box()
            self.canvas.show_weights(weights, mask, tokens)
            if mask is not None and mask.any():
                notes.append(self.tr("Masked pairs have no line."))
            if self.canvas.model is not None and self.canvas.model.clipped:
                notes.append(self.tr("Only the first {0} queries and keys are drawn (L = {1}, S = {2}).")
                             .format(tl.MAX_TOKENS, L, S))
            if "sinks.mass" in trace:  # the rows sum to less than 1: thinner lines, honestly
                notes.append(words.text("sinks.lines_note", self._lang))
            if not np.isfinite(weights).all():
                notes.append(self.tr("Weights that are not numbers have no line."))
        if stale:
            notes.append(self.tr("The current edit cannot be computed: showing the last good result."))
        self.note.setText("  ".join(notes))
        self.note.setVisible(bool(notes))
        self._update_caption()

    def set_head(self, head: int) -> None:
        self.canvas.set_head(head)
        i = self.head_box.findData(head)
        if i >= 0 and i != self.head_box.currentIndex():
            self.head_box.setCurrentIndex(i)
        self._fill_legend()
        self._update_caption()

    def _fill_head_box(self) -> None:
        self.head_box.blockSignals(True)
        self.head_box.clear()
        self.head_box.addItem(pane_text.ui("all_heads", self._lang), -1)
        for h in range(self._n_heads):
            pix = QPixmap(14, 14)
            pix.fill(QColor(tl.head_color(h)))
            self.head_box.addItem(QIcon(pix), pane_text.head_name(h, self._lang), h)
        i = self.head_box.findData(self.canvas.head)
        self.head_box.setCurrentIndex(max(i, 0))
        self.head_box.setEnabled(self._n_heads > 1)
        self.head_box.blockSignals(False)
        self._fill_legend()

    def _fill_legend(self) -> None:
        shown = [h for h in range(self._n_heads) if self.canvas.head in (-1, h)]
        self.legend.setText("&nbsp; ".join(  # breaks only between heads
            f'<span style="color:{tl.head_color(h)}">&#9632;</span>&nbsp;'
            + html.escape(pane_text.head_name(h, self._lang)).replace(" ", "&nbsp;")  # never "Head" | "5"
            for h in shown) if self._n_heads > 1 else "")

    def _update_caption(self) -> None:
        if self._reason == "quiz":
            self.caption.setText(self.tr("The quiz hides the attention weights: their lines are hidden too."))
            return
        if self._reason == "none":
            self.caption.setText(self.tr("No attention weights yet."))
            return
        hover = self.canvas.hover
        if hover is not None and self._axes is not None:
            axis = self._axes[0] if hover[0] == "query" else self._axes[1]
            self.caption.setText(self.tr("Only the lines of {0}.").format(axis.describe(hover[1], self._lang)))
        else:
            self.caption.setText(self.tr("Line width and opacity = attention weight; one colour per head. "
                                         "Hover a token to see only its lines."))

    # ---- words ---------------------------------------------------------------------------------
    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        self._lang = i18n.current_language()
        self.setWindowTitle(self.tr("Token lines"))  # also the View menu entry (its toggle action)
        self.heads_label.setText(pane_text.ui("heads_label", self._lang))
        self.heads_label.setStyleSheet("font-size: 15px;")
        self._fill_head_box()
        self._update_caption()


class TokenLines(QObject):
    """The dock, its View menu entry, and what keeps it showing the trace on screen."""

    def __init__(self, host: FeatureHost) -> None:
        super().__init__(host.window)
        self.host = host
        self.stale = False
        self.panel = TokenLinesPanel(host.window)
        host.add_dock(self.panel)
        self.panel.hide()
        self.action: QAction = self.panel.toggleViewAction()
        self.action.setShortcut(QKeySequence("Ctrl+Shift+L"))
        host.add_action(self.action, "view", group="token_lines")
        # the weights pane's context menu: "Show as lines" (hooked once, when that pane exists)
        self.show_action = QAction(self)
        self.show_action.triggered.connect(self.show_lines)
        self._hooked_pane: Optional[QWidget] = None
        host.view.traceShown.connect(self._hook_pane)
        host.view.traceShown.connect(self.refresh)
        host.view.focusHeadChanged.connect(self.panel.set_head)
        host.recompute.failed.connect(self._on_failed)
        host.recompute.ready.connect(self._on_ready)
        self.panel.visibilityChanged.connect(lambda visible: visible and self.refresh())
        host.on_language_change(self.retranslate)
        self.retranslate()

    def _hook_pane(self) -> None:
        view = self.host.view
        if STEP not in view.pane_ids():
            return
        pane = view.pane(STEP, current=False)
        if pane is self._hooked_pane:
            return
        if pane.contextMenuPolicy() == Qt.ContextMenuPolicy.DefaultContextMenu:
            pane.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        pane.addAction(self.show_action)
        self._hooked_pane = pane

    def show_lines(self) -> None:
        """Open the dock in front, showing the head the Steps region shows."""
        self.panel.show()
        self.panel.raise_()
        self.panel.set_head(self.host.view.focus_head())
        self.refresh()

    def _on_failed(self, *_) -> None:
        self.stale = True
        self.refresh()

    def _on_ready(self, *_) -> None:
        """(After the window drew the trace, and this view with it, through traceShown.)"""
        if self.stale:
            self.stale = False
            self.refresh()  # without the stale note

    def hidden_by_quiz(self) -> bool:
        """Whether the weights pane shows the quiz's hidden picture now (its lines would give the answers)."""
        view = self.host.view
        return STEP in view.pane_ids() and isinstance(view.pane(STEP).data, QuizPaneData)

    def refresh(self) -> None:
        if not self.panel.isVisible():
            return  # drawn when it is shown (visibilityChanged): a drag need not paint a closed dock
        result = self.host.last_result()
        if result is None:
            self.panel.show_result(None, None, 0, False, self.stale)
        else:
            self.panel.show_result(result.trace, result.scenario, result.batch, self.hidden_by_quiz(), self.stale)

    def retranslate(self) -> None:
        self.panel.retranslate()
        tip = self.tr("Show the attention weights as lines between query and key tokens")
        self.action.setStatusTip(tip)
        self.show_action.setText(self.tr("Show as lines"))
        self.show_action.setStatusTip(tip)
        self.refresh()


def install(host: FeatureHost) -> TokenLines:
    """Add View ▸ Token lines (a dock) to the host's window."""
    return TokenLines(host)
