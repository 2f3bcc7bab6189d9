"""The "Steps" region: every step of a Trace as a pane, in pipeline order, in a scrollable list.

Panes are built once per step id and kept (also while a step is absent, e.g. the mask when
causal is switched off), so an edit only feeds new numbers to existing images, and only to the
panes whose numbers changed: each pane's per-batch slice is compared with the last one drawn.
The images, levels and that comparison come ready-made from the engine's worker thread for a
big trace (app.panes.prepared), so the GUI thread only hands them over, all in one pass.

Lenses (`add_lens`) change what panes show without touching the trace: a quiz hides a step's
numbers, compare shows the difference to a pinned trace.  A lens gets every pane's picture and
gives back pictures (the same objects where nothing changed, so nothing is redrawn) and, where
a pane cannot be drawn, a notice in words ({"en", "zh"}).

Colour scales may be locked (`lock_scale`, `set_lock_all`): a locked pane keeps the map and
levels it had when locked, whatever the numbers become, until it is unlocked; numbers beyond
them are drawn at its ends and the pane says how many.  Locks are view state, not edits: no
undo step, and they outlast recomputes, a new scenario and a language switch.
"""
from __future__ import annotations

import contextlib
import itertools
import time
from typing import Optional, Protocol

import numpy as np
from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QGraphicsItem,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

import attention
from app.panes import prepared
from app.panes.flow_layout import FlowLayout
from app.panes.step_pane import StepPane
from app.viewmodel import color_scale, pane_text, weights_note
from attention.registry import step_registry

#: what a lens gives back per step id: (picture to draw, notice {"en", "zh"} or None)
Shown = tuple[prepared.PanePicture, Optional[dict]]


class Lens(Protocol):
    #: False while the lens leaves every picture as it is (then panes out of sight may wait)
    active: bool

    def apply(self, trace: attention.Trace, batch: int, shown: dict[str, Shown]) -> dict[str, Shown]: ...


#: what one idle pass may spend drawing panes out of sight (the rest waits for the next pass,
#: so a big trace never holds the GUI thread for long)
CATCH_UP_BUDGET_S = 0.008
#: Hidden panes kept for a quick switch back (a scoring, mask or kind that shows other steps); older ones go.
HIDDEN_KEPT = 8
#: the panes out of sight are drawn once the panes in sight have been painted; should that
#: paint never come (a window covered or minimised), after this long anyway
CATCH_UP_FALLBACK_MS = 100
#: how often the catch-up looks again for pictures the engine's worker is still making
WORKER_POLL_MS = 3


BANNER_CSS = "background: #fff3cd; color: #5c4400; border: 1px solid #e0c060; padding: 2px 6px; font-size: 15px;"


class StepsView(QWidget):
    """Scrollable list of StepPanes plus a head selector and a stale banner."""

    focusHeadChanged = Signal(int)  # -1 = all heads side by side
    locksChanged = Signal()  # a colour scale was locked or unlocked
    cellClicked = Signal(str, int, int, int, bool)  # step id, matrix, row, col, double click
    stepSelected = Signal(str)  # a person chose a step here: clicked one of its cells, or its chip on the map
    traceShown = Signal()  # a new trace, batch item or lens view is on screen (after the lenses)
    caughtUp = Signal()  # the panes that waited out of sight show the last trace too now

    def __init__(self, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self._lang = "en"
        self._focus = -1
        self._n_heads = 0
        self._stale = False
        self._stale_reason = ""
        self._panes: dict[str, StepPane] = {}  # the panes shown and the HIDDEN_KEPT last hidden, by step id
        self._order: list[str] = []  # the ones shown, in pipeline order (step_registry.ORDER)
        self._drawn: dict[str, prepared.PanePicture] = {}  # step id -> the picture on screen
        self._paint_held = False  # the list's updates are held until the next pass (_painted_once)
        self._lenses: list[Lens] = []
        self._last: Optional[tuple[attention.Trace, int, prepared.PreparedTrace | prepared.LazyPreparedTrace]] = None
        self._shown: dict[str, prepared.PanePicture] = {}  # step id -> the picture the pane got
        self._notices: dict[str, Optional[dict]] = {}
        self._weights_notes: dict[str, dict] = {}  # step id -> {"en", "zh"}: its weights' origin (weights_note)
        self._locks: dict[str, color_scale.ColourScale] = {}  # step id -> its locked colour scale
        self._lock_all = False  # every pane's scale is locked as it is first drawn
        self._free: set[str] = set()  # panes unlocked one by one while "lock all" is on
        self._locked_pics: dict[str, tuple] = {}  # step id -> (own picture, scale, locked picture)
        # panes out of sight that still show an older trace: drawn in the next idle passes
        # (`_catch_up`), or at once when they scroll or move into sight or are asked for (`pane`)
        self._pending: set[str] = set()
        self._hidden_at: dict[str, int] = {}  # step id -> when its pane was hidden (_forget_hidden)
        self._hidden_clock = itertools.count()
        self._catch_up_timer = QTimer(self)
        self._catch_up_timer.setSingleShot(True)
        self._catch_up_timer.setInterval(0)
        self._catch_up_timer.timeout.connect(self._catch_up)
        self._awaiting_paint: set = set()  # viewports of panes drawn in sight, not yet painted
        self._paint_watch = _Watch((QEvent.Type.Paint,), self._on_pane_painted, self)

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
        # as needed: a Steps region narrower than a pane (the Explain dock open on a 1366-px
        # screen) shows a scroll bar under the panes rather than cutting their right edge
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.scroll.setWidget(self.container)
        self.scroll.verticalScrollBar().setSingleStep(40)
        # moved (scrolled), resized or shown: what can bring a pane into sight, before it paints
        self._sight_watch = _Watch((QEvent.Type.Move, QEvent.Type.Resize, QEvent.Type.Show),
                                   self._bring_into_sight, self)
        for w in (self.container, self.scroll.viewport()):
            w.installEventFilter(self._sight_watch)

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
        are used as they are; otherwise each pane's are made when it is drawn.  The panes on
        screen are drawn now; those out of sight right after the repaint (see `_draw`)."""
        n_batch = int(trace.options.get("batch", 1))
        if not 0 <= batch < n_batch:
            raise ValueError(f"batch: expected a batch item between 0 and {n_batch - 1}, got {batch}")
        ready = prepared.claim(trace, batch)
        if ready is None:  # small traces, another batch item: made here, pane by pane
            ready = prepared.LazyPreparedTrace(trace, scenario, batch, self._drawn)
        ids = step_registry.in_order(trace.ids)  # pipeline order, as the slides (lessons.lesson_ids)
        if ids != self._order:
            self._set_order(ids)
            self._drawn = {sid: pic for sid, pic in self._drawn.items() if sid in ids}
            self._pending &= set(ids)  # a step that is gone has nothing left to draw
        n_heads = int(trace.options.get("n_heads", 1))
        if n_heads != self._n_heads:
            self._n_heads = n_heads
            self._fill_head_box()
            if self._focus >= 0 and (self._focus >= n_heads or n_heads == 1):
                self._focus = -1
                self._sync_focus()
                self.focusHeadChanged.emit(-1)
        self._weights_notes = {sid: weights_note.for_pane(scenario, sid) for sid in ids}
        for sid, note in self._weights_notes.items():
            self._panes[sid].set_weights_note(note[self._lang])
        self._last = (trace, batch, ready)
        self._draw()
        self.traceShown.emit()

    def _draw(self) -> None:
        """Hand the panes their pictures, through the lenses; only changed pictures are drawn.

        Without an active lens, only the panes in sight are drawn now and the others wait for
        the next idle passes (or until they come into sight): after an edit the window repaints
        as soon as the panes a person can see are ready, and the panes below the fold follow a
        few milliseconds later, before anyone can scroll to them.  A lens may need every pane
        at once (compare shares one colour scale across them), so with one active all are drawn."""
        trace, batch, ready = self._last
        if any(getattr(lens, "active", True) for lens in self._lenses):
            shown: dict[str, Shown] = {sid: (self._scaled(sid, ready.picture(sid)), None) for sid in self._order}
            for lens in self._lenses:
                shown = lens.apply(trace, batch, shown)
            self._pending.clear()
            for sid, (picture, notice) in shown.items():
                self._show(sid, picture, notice, ready.picture(sid))
            self._let_the_worker_go_on(ready)
            return
        sight = self._in_sight()
        self._awaiting_paint.clear()
        for sid in self._order:
            if sight is None or sid in sight:
                self._pending.discard(sid)
                pic = ready.picture(sid)
                if self._show(sid, self._scaled(sid, pic), None, pic) and sight is not None:
                    self._awaiting_paint.add(self._panes[sid].canvas.viewport())
            else:
                self._pending.add(sid)
        if self._pending:  # after the paint of the panes just drawn (see _on_pane_painted)
            self._catch_up_timer.start(CATCH_UP_FALLBACK_MS if self._awaiting_paint else 0)
        else:
            self._let_the_worker_go_on(ready)

    def _on_pane_painted(self, viewport) -> None:
        """A pane's canvas is about to paint: once every pane drawn in sight has, the panes out
        of sight are drawn in the next idle pass (a timer cannot fire before this paint ends)."""
        if viewport in self._awaiting_paint:
            self._awaiting_paint.discard(viewport)
            if not self._awaiting_paint and self._pending:
                self._catch_up_timer.start(0)

    def _show(self, sid: str, picture: prepared.PanePicture, notice: Optional[dict], own: prepared.PanePicture) -> bool:
        """Pane `sid` shows `picture` (the trace's own picture `own`, or a lens's view of it);
        True when that meant drawing new numbers."""
        pane = self._panes[sid]
        redrawn = self._shown.get(sid) is not picture
        if redrawn:
            pane.show_data(picture.data, self._lang, self._focus, picture)
            self._shown[sid] = picture
        self._drawn[sid] = own
        self._notices[sid] = notice
        pane.set_notice(notice[self._lang] if notice else None)
        return redrawn

    def _bring_up_to_date(self, sids) -> None:
        trace, batch, ready = self._last
        for sid in sids:
            if sid in self._pending:
                self._pending.discard(sid)
                pic = ready.picture(sid)
                self._show(sid, self._scaled(sid, pic), None, pic)

    def _catch_up(self) -> None:
        """Draw panes out of sight for up to CATCH_UP_BUDGET_S, then yield to the event loop."""
        deadline = time.perf_counter() + CATCH_UP_BUDGET_S
        self._pending &= set(self._order)
        ready = self._last[2] if self._last is not None else None
        self._let_the_worker_go_on(ready)  # the panes in sight are painted (a timer cannot fire during a paint)
        waiting = bool(getattr(ready, "making", False))  # the worker is still making pictures out of sight
        drawn = 0
        for sid in [s for s in self._order if s in self._pending]:
            if waiting and not ready.has(sid):
                continue  # the worker is making it: drawn in a later pass (or at once if it comes into sight)
            self._bring_up_to_date([sid])
            drawn += 1
            if time.perf_counter() > deadline:
                break
        if self._pending:
            self._catch_up_timer.start(WORKER_POLL_MS if waiting and not drawn else 0)
        else:
            self.caughtUp.emit()

    @staticmethod
    def _let_the_worker_go_on(ready) -> None:
        """The worker that prepared `ready` may make its pictures out of sight now (app.panes.prepared)."""
        painted = getattr(ready, "painted", None)
        if painted is not None:
            painted()

    def _bring_into_sight(self, _widget=None) -> None:
        """The list scrolled, moved or resized: panes now in sight must show the newest trace
        before they are painted (these events come before the paint)."""
        if self._pending:
            sight = self._in_sight()
            self._bring_up_to_date(list(self._pending) if sight is None else [s for s in self._order
                                                                               if s in self._pending and s in sight])

    def _in_sight(self) -> Optional[set[str]]:
        """Step ids of the panes within the visible part of the list, or None when the view is
        not shown (then every pane is drawn at once: exports and tests of a hidden view see
        them all).  No margin around it: the catch-up draws the rest within milliseconds, and a
        scroll draws what it uncovers before painting it."""
        if not self.isVisible():
            return None
        top = -self.container.y()
        bottom = top + self.scroll.viewport().height()
        out = set()
        for sid in self._order:
            g = self._panes[sid].geometry()
            if g.bottom() >= top and g.top() < bottom:
                out.add(sid)
        return out

    def is_current(self, step_id: str) -> bool:
        """Whether pane `step_id` already shows the last trace (False while it waits out of sight)."""
        return step_id not in self._pending

    # ---- colour scale locks ------------------------------------------------------------------
    def _scaled(self, sid: str, pic: prepared.PanePicture) -> prepared.PanePicture:
        """`pic` on the pane's locked colour scale, if it has one (the same object while neither
        the picture nor the lock changed: nothing is redrawn)."""
        lock = self._locks.get(sid)
        if lock is None and self._lock_all and sid not in self._free:
            lock = self._locks[sid] = color_scale.ColourScale(pic.palette_name, pic.levels)
        if lock is None:
            return pic
        cached = self._locked_pics.get(sid)
        if cached is not None and cached[0] is pic and cached[1] == lock:
            return cached[2]
        out = prepared.locked_picture(pic, lock)
        self._locked_pics[sid] = (pic, lock, out)
        return out

    def lock_scale(self, step_id: str, locked: bool = True) -> None:
        """Lock pane `step_id`'s colour scale at the map and levels it shows now (the trace's
        own, not a lens's), or unlock it (it fits its numbers again)."""
        if locked and step_id not in self._locks and step_id in self._drawn:
            pic = self._drawn[step_id]
            self._locks[step_id] = color_scale.ColourScale(pic.palette_name, pic.levels)
            self._free.discard(step_id)
        elif not locked and step_id in self._locks:
            del self._locks[step_id]
            self._locked_pics.pop(step_id, None)
            if self._lock_all:
                self._free.add(step_id)
        else:
            return
        self.refresh_lenses()
        self.locksChanged.emit()

    def locked_scale(self, step_id: str) -> Optional[color_scale.ColourScale]:
        """The locked scale of pane `step_id`, or None when it fits its numbers."""
        return self._locks.get(step_id)

    def set_lock_all(self, on: bool) -> None:
        """Lock every pane's colour scale as it is now (and each new pane's as it is first
        drawn) for a lesson; off unlocks them all."""
        on = bool(on)
        if on == self._lock_all and (not on or all(s in self._locks for s in self._drawn)):
            return
        self._lock_all = on
        self._free.clear()
        if on:
            for sid, pic in self._drawn.items():
                self._locks.setdefault(sid, color_scale.ColourScale(pic.palette_name, pic.levels))
        else:
            self._locks.clear()
            self._locked_pics.clear()
        self.refresh_lenses()
        self.locksChanged.emit()

    def lock_all(self) -> bool:
        return self._lock_all

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

    def display_hints(self) -> prepared.DisplayHints:
        """What this view shows now, for the next recompute request (app.pipeline.recompute):
        a copy, since the worker reads it while the view goes on drawing."""
        lens = any(getattr(lens, "active", True) for lens in self._lenses)  # a lens draws every pane at once
        sight = None if lens else self._in_sight()
        first = tuple(sid for sid in self._order if sid in sight) if sight else ()
        return prepared.DisplayHints(self.current_batch(), dict(self._drawn), first)

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
        for sid, note in self._weights_notes.items():
            if sid in self._panes:
                self._panes[sid].set_weights_note(note[lang])
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

    def show_instead(self, widget: Optional[QWidget]) -> None:
        """Show `widget` where the list of panes is, or the panes again (None).  The stale banner
        stays; the head selector and hint, which are about the panes, go with them.  (The by-hand
        layout, app/teaching/by_hand.py, is shown this way.)"""
        lay = self.layout()
        if widget is not None and lay.indexOf(widget) < 0:
            lay.addWidget(widget, 1)
        for i in range(2, lay.count()):  # the bar, the list, then the widgets shown instead
            other = lay.itemAt(i).widget()
            if other is not None and other is not widget:
                other.hide()
        for w in (self.scroll, self.heads_label, self.head_box, self.hint):
            w.setVisible(widget is None)
        if widget is not None:
            widget.show()

    def pane_ids(self) -> list[str]:
        return list(self._order)

    def pane(self, step_id: str, current: bool = True) -> StepPane:
        """The pane of `step_id`, showing the last trace (a pane out of sight that was still
        waiting is drawn first; `current=False` leaves it waiting, e.g. for a benchmark's probe)."""
        if step_id not in self._order:
            raise KeyError(f"{step_id}: no such pane is shown (shown: {', '.join(self._order)})")
        if current and step_id in self._pending:
            self._bring_up_to_date([step_id])
            # and laid out, as a pane drawn a moment ago would be (an export right after this
            # call measures the cells to size the numbers in them)
            for _ in range(3):
                QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
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
                pane.installEventFilter(self._sight_watch)  # moved or resized by the list's layout
                pane.canvas.viewport().installEventFilter(self._paint_watch)
                pane.focusRequested.connect(self._on_focus_requested)
                pane.lockRequested.connect(lambda on, s=sid: self.lock_scale(s, on))
                pane.cellClicked.connect(lambda m, r, c, dbl, s=sid: self._on_cell_clicked(s, m, r, c, dbl))
                pane.set_stale(self._stale)
                self._panes[sid] = pane
            self._list.insertWidget(i, pane)
            pane.show()
        self._order = list(ids)
        self._forget_hidden(ids)

    def _forget_hidden(self, shown: list[str]) -> None:
        """Keep the HIDDEN_KEPT panes hidden last (switching a scoring or mask back is instant) and
        delete the others: a pane is a few MB of widgets, and a long class that tried every kind
        kept one for each of the 59 step ids (the soak's memory growth, issue 29)."""
        for sid in shown:
            self._hidden_at.pop(sid, None)
        for sid in self._panes.keys() - set(shown) - self._hidden_at.keys():
            self._hidden_at[sid] = next(self._hidden_clock)
        for sid in sorted(self._hidden_at, key=self._hidden_at.get)[:max(0, len(self._hidden_at) - HIDDEN_KEPT)]:
            del self._hidden_at[sid]
            pane = self._panes.pop(sid)
            for drawn in (self._drawn, self._shown, self._locked_pics, self._notices):
                drawn.pop(sid, None)
            self._pending.discard(sid)
            self._awaiting_paint.discard(pane.canvas.viewport())
            pane.setParent(None)
            pane.deleteLater()

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

    def _on_cell_clicked(self, step_id: str, m: int, r: int, c: int, double: bool) -> None:
        self.cellClicked.emit(step_id, m, r, c, double)
        self.stepSelected.emit(step_id)

    def select_step(self, step_id: str) -> None:
        """Say that the person chose step `step_id` (its chip on the map of steps): the slides start there."""
        if step_id in self._panes:
            self.stepSelected.emit(step_id)

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
        key = "stale" if self._last is not None else "no_result"  # no "last good result" before the first
        text = (pane_text.ui(key, self._lang, reason=reason) if reason
                else pane_text.ui(f"{key}_noreason", self._lang))
        self.banner.setText(text)
        self.banner.setToolTip(text)
        self.hint.hide()
        self.banner.show()


class _Watch(QObject):
    """Calls `react(widget)` when a watched widget gets one of `events` (before Qt handles it)."""

    def __init__(self, events: tuple, react, parent: QObject) -> None:
        super().__init__(parent)
        self.events, self.react = events, react

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 (Qt override)
        if event.type() in self.events:
            self.react(obj)
        return False
