"""The "Steps" region: every step of a Trace as a pane, top to bottom, in a scrollable list.

Panes are built once per step id and kept (also while a step is absent, e.g. the mask when
causal is switched off), so an edit only feeds new numbers to existing images, and only to the
panes whose numbers changed: each pane's per-batch slice is compared with the last one drawn.
The images, levels and that comparison come ready-made from the engine's worker thread for a
big trace (app.panes.prepared), so the GUI thread only hands them over, all in one pass.

Lenses (`add_lens`) change what panes show without touching the trace: a quiz hides a step's
numbers, compare shows the difference to a pinned trace.  A lens gets every pane's picture and
gives back pictures (the same objects where nothing changed, so nothing is redrawn) and, where
a pane cannot be drawn, a notice in words ({"en", "zh"}).
"""
from __future__ import annotations

import contextlib
from typing import Optional, Protocol

import numpy as np
from PySide6.QtCore import QCoreApplication, QEvent, Qt, QTimer, Signal
from PySide6.QtWidgets import (QComboBox, QGraphicsItem, QHBoxLayout, QLabel, QScrollArea, QSizePolicy,
                               QVBoxLayout, QWidget)

import attention
from app.panes import pane_text
from app.panes.flow_layout import FlowLayout
from app.panes import prepared
from app.panes.step_pane import StepPane

#: what a lens gives back per step id: (picture to draw, notice {"en", "zh"} or None)
Shown = tuple[prepared.PanePicture, Optional[dict]]


class Lens(Protocol):
    def apply(self, trace: attention.Trace, batch: int, shown: dict[str, Shown]) -> dict[str, Shown]: ...


BANNER_CSS = "background: #fff3cd; color: #5c4400; border: 1px solid #e0c060; padding: 2px 6px; font-size: 15px;"


class StepsView(QWidget):
    """Scrollable list of StepPanes plus a head selector and a stale banner."""

    focusHeadChanged = Signal(int)  # -1 = all heads side by side
    cellClicked = Signal(str, int, int, int, bool)  # step id, matrix, row, col, double click
    traceShown = Signal()  # a new trace, batch item or lens view is on screen (after the lenses)

    def __init__(self, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self._lang = "en"
        self._focus = -1
        self._n_heads = 0
        self._stale = False
        self._stale_reason = ""
        self._panes: dict[str, StepPane] = {}  # every pane ever built, by step id
        self._order: list[str] = []  # the ones shown, in trace order
        self._drawn: dict[str, prepared.PanePicture] = {}  # step id -> the picture on screen
        self._paint_held = False  # the list's updates are held until the next pass (_painted_once)
        self._lenses: list[Lens] = []
        self._last: Optional[tuple[attention.Trace, int, dict[str, prepared.PanePicture]]] = None
        self._shown: dict[str, prepared.PanePicture] = {}  # step id -> the picture the pane got
        self._notices: dict[str, Optional[dict]] = {}

        self.heads_label = QLabel()
        self.heads_label.setStyleSheet("font-size: 15px;")
        self.head_box = QComboBox()
        self.head_box.setStyleSheet("font-size: 15px;")
        self.head_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.head_box.activated.connect(self._on_head_chosen)
        self.hint = QLabel()
        self.hint.setStyleSheet("font-size: 14px; color: #444;")
        self.hint.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.hint.setWordWrap(True)  # a narrow Steps region wraps the hint rather than clipping it
        self.banner = QLabel()
        self.banner.setWordWrap(True)
        self.banner.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.banner.setStyleSheet(BANNER_CSS)
        self.banner.hide()

        bar = QHBoxLayout()
        bar.setContentsMargins(6, 4, 6, 4)
        bar.addWidget(self.heads_label)
        bar.addWidget(self.head_box)
        bar.addSpacing(16)
        bar.addWidget(self.hint, 1)
        bar.addWidget(self.banner, 1)  # in the same row as the hint: no jump when it appears

        self.container = QWidget()
        self.container.setObjectName("StepsContainer")
        # the list grows and shrinks at its bottom (a pane's title wraps to another line...):
        # repaint only what a resize uncovers, not every pane in sight
        self.container.setAttribute(Qt.WidgetAttribute.WA_StaticContents)
        self.container.setStyleSheet("#StepsContainer { background: #f4f4f4; }")
        self._list = FlowLayout(self.container, spacing=8)
        self._list.setContentsMargins(6, 6, 6, 6)
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll.setWidget(self.container)
        self.scroll.verticalScrollBar().setSingleStep(40)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addLayout(bar)
        lay.addWidget(self.scroll, 1)
        self._fill_head_box()

    # ---- contract ----------------------------------------------------------------------------
    def show_trace(self, trace: attention.Trace, scenario: attention.Scenario, batch: int = 0) -> None:
        """Draw every step of `trace` for batch item `batch`; only changed panes are redrawn.

        A pane is redrawn when its per-batch numbers (and, for masked steps, the mask) differ
        from the last ones it drew, or when what frames them changed (labels, heads, options).
        When the engine's worker already prepared this trace (app.panes.prepared), its pieces
        are used as they are; otherwise they are made here."""
        n_batch = int(trace.options.get("batch", 1))
        if not 0 <= batch < n_batch:
            raise ValueError(f"batch: expected a batch item between 0 and {n_batch - 1}, got {batch}")
        ready = prepared.claim(trace, batch)
        if ready is None:  # small traces, another batch item: made here, drawn lazily by pyqtgraph
            ready = prepared.prepare_trace(trace, scenario, batch, self._drawn, qimages=False)
        ids = list(trace.ids)
        if ids != self._order:
            self._set_order(ids)
        n_heads = int(trace.options.get("n_heads", 1))
        if n_heads != self._n_heads:
            self._n_heads = n_heads
            self._fill_head_box()
            if self._focus >= 0 and (self._focus >= n_heads or n_heads == 1):
                self._focus = -1
                self._sync_focus()
                self.focusHeadChanged.emit(-1)
        self._last = (trace, batch, dict(ready.panes))
        self._draw()
        self._drawn = dict(ready.panes)
        prepared.batch_hint, prepared.drawn_hint = batch, self._drawn
        self.traceShown.emit()

    def _draw(self) -> None:
        """Hand every pane its picture, through the lenses; only changed pictures are drawn."""
        trace, batch, pictures = self._last
        shown: dict[str, Shown] = {sid: (pic, None) for sid, pic in pictures.items()}
        for lens in self._lenses:
            shown = lens.apply(trace, batch, shown)
        for sid, (picture, notice) in shown.items():
            pane = self._panes[sid]
            if self._shown.get(sid) is not picture:
                pane.show_data(picture.data, self._lang, self._focus, picture)
                self._shown[sid] = picture
            self._notices[sid] = notice
            pane.set_notice(notice[self._lang] if notice else None)

    # ---- lenses ------------------------------------------------------------------------------
    def add_lens(self, lens: Lens) -> None:
        """Apply `lens` (after those added before) to every trace from now on."""
        self._lenses.append(lens)

    def refresh_lenses(self) -> None:
        """A lens changed what it shows: draw the last trace through the lenses again."""
        if self._last is not None:
            self._draw()
            self.traceShown.emit()

    def current_trace(self) -> Optional[attention.Trace]:
        return None if self._last is None else self._last[0]

    def current_batch(self) -> int:
        return 0 if self._last is None else self._last[1]

    def set_stale(self, stale: bool, reason: str = "") -> None:
        """Keep the last good result on screen, greyed, with the reason in a banner."""
        changed = stale != self._stale
        self._stale, self._stale_reason = stale, reason
        self._update_banner()
        if not changed:
            return
        # Every pane greys at once; only the panes in sight retag their titles now (each title
        # change relayouts the list, and a big trace turns all panes stale and back per edit),
        # the others a moment later, in an event-loop pass of their own.
        shown = self.isVisible()
        with self._painted_once():
            for pane in self._panes.values():
                pane.set_stale(stale, title_now=not shown or not pane.visibleRegion().isEmpty())

    @contextlib.contextmanager
    def _painted_once(self):
        """Changes to every pane at once, painted in one pass (and then the titles of the panes
        out of sight, in a pass of their own).

        A QGraphicsScene repaints its view's window as soon as it has processed its changed
        items, so twelve panes greyed in one go meant a paint per pane, and the panes moved by
        the titles' relayout were painted again: three paints of every pane in sight per edit
        of a big trace.  Here the list's updates are held while the changes are made, the
        layout and every scene then settle, and the list is repainted once, in the next pass
        of the event loop (so the changes and the repaint are two short passes, not one long
        one; the panes show their old pixels until then)."""
        if not self.isVisible():
            yield
            return
        self.container.setUpdatesEnabled(False)
        self._paint_held = True
        try:
            yield
            for _ in range(3):
                QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
            for pane in self._panes.values():
                QCoreApplication.sendPostedEvents(pane.canvas.scene(), 0)
        finally:
            QTimer.singleShot(1, self, self._release_paint)  # a timer: a pass of its own

    def _release_paint(self) -> None:
        if self._paint_held:
            self._paint_held = False
            self.container.setUpdatesEnabled(True)
            QTimer.singleShot(1, self, self._apply_pending_titles)  # after that paint

    def _apply_pending_titles(self) -> None:
        for pane in self._panes.values():
            pane.apply_pending_title()

    def set_language(self, lang: str) -> None:
        if lang not in pane_text.LANGS:
            raise ValueError(f"language: expected one of {', '.join(pane_text.LANGS)}, got {lang!r}")
        self._lang = lang
        for pane in self._panes.values():
            pane.set_language(lang)
        for sid, notice in self._notices.items():
            if sid in self._panes:
                self._panes[sid].set_notice(notice[lang] if notice else None)
        self._fill_head_box()
        self._update_banner()

    def set_focus_head(self, h: int) -> None:
        """Show head h alone in every per-head step (-1: all heads side by side)."""
        h = int(h)
        if not 0 <= h < max(self._n_heads, 1) or self._n_heads <= 1:
            h = -1
        self._focus = h
        self._sync_focus()

    def focus_head(self) -> int:
        return self._focus

    def pane_ids(self) -> list[str]:
        return list(self._order)

    def pane(self, step_id: str) -> StepPane:
        if step_id not in self._order:
            raise KeyError(f"{step_id}: no such pane is shown (shown: {', '.join(self._order)})")
        return self._panes[step_id]

    def displayed_arrays(self, step_id: str) -> list[np.ndarray]:
        return self.pane(step_id).displayed_arrays()

    def pane_graphics(self, step_id: str) -> QGraphicsItem:
        """The pane's GraphicsLayout (heatmaps, axes, colour bar) for the exporters."""
        return self.pane(step_id).canvas.ci

    # ---- internals ---------------------------------------------------------------------------
    def _set_order(self, ids: list[str]) -> None:
        for sid in self._order:
            pane = self._panes[sid]
            self._list.removeWidget(pane)
            pane.hide()
        for i, sid in enumerate(ids):
            pane = self._panes.get(sid)
            if pane is None:
                pane = StepPane(sid)
                pane.focusRequested.connect(self._on_focus_requested)
                pane.cellClicked.connect(lambda m, r, c, dbl, s=sid: self.cellClicked.emit(s, m, r, c, dbl))
                pane.set_stale(self._stale)
                self._panes[sid] = pane
            self._list.insertWidget(i, pane)
            pane.show()
        self._order = list(ids)

    def _fill_head_box(self) -> None:
        self.heads_label.setText(pane_text.ui("heads_label", self._lang))
        hint = pane_text.ui("hover_hint_heads" if self._n_heads > 1 else "hover_hint", self._lang)
        self.hint.setText(hint)
        self.hint.setToolTip(hint)
        self.head_box.blockSignals(True)
        self.head_box.clear()
        self.head_box.addItem(pane_text.ui("all_heads", self._lang), -1)
        for h in range(self._n_heads):
            self.head_box.addItem(pane_text.head_name(h, self._lang), h)
        self.head_box.setCurrentIndex(self._focus + 1)
        self.head_box.blockSignals(False)
        self.head_box.setEnabled(self._n_heads > 1)

    def _sync_focus(self) -> None:
        self.head_box.blockSignals(True)
        self.head_box.setCurrentIndex(self._focus + 1)
        self.head_box.blockSignals(False)
        for pane in self._panes.values():
            pane.set_focus(self._focus)

    def _on_head_chosen(self, index: int) -> None:
        h = index - 1
        if h != self._focus:
            self.set_focus_head(h)
            self.focusHeadChanged.emit(self._focus)

    def _on_focus_requested(self, h: int) -> None:
        if h != self._focus:
            self.set_focus_head(h)
            self.focusHeadChanged.emit(self._focus)

    def _update_banner(self) -> None:
        if not self._stale:
            self.banner.hide()
            self.hint.show()
            return
        reason = self._stale_reason.strip()
        text = pane_text.ui("stale", self._lang, reason=reason) if reason else pane_text.ui("stale_noreason", self._lang)
        self.banner.setText(text)
        self.banner.setToolTip(text)
        self.hint.hide()
        self.banner.show()
