"""Presentation mode: one step at a time, full screen, for a class in front of a projector.

A slide is a canvas the size of the screen (app.teaching.presentation.slide_layout plans it): under
the title, the map of steps, the formula and the shape line, it places the step's result (every
head, side by side or in a grid), a pane per input of the step (small heatmaps where their tables
would not fit), each pane's colour bar, and the lesson (two or three sentences from
app.viewmodel.lessons, below the panes or beside them), each as large as the room allows.  At 100 %
(Ctrl 0) nothing on a slide scrolls; cells too small for digits of 14 px are drawn in colour only
(hover or click a cell for its number; a click zooms into its region, Esc shows the whole matrix).
The panes are the window's own (StepPane, via ZoomedPane); the numbers are the trace the window's
Recomputer delivered, so an edit (Ctrl+Z / Ctrl+Shift+Z here, or any edit made in the window)
redraws the slide live.  Keys are what presenter clickers send: Right / Page Down / Space forward,
Left / Page Up / Shift+Space back, Home / End, Esc leaves (the window keeps its state, and the
next F5 comes back to the same slide, or to the step selected in the window since).  Ctrl + /
Ctrl − / Ctrl 0 zoom (past 100 % the canvas scrolls); 1–9 show one head, A all heads.  E (or the
Edit button) opens the edit drawer beside the slide: the window's Parameters and Inputs
(app.teaching.presentation.edit_drawer), live; while the keyboard is in the drawer the slide keys
are off, and Esc gives them back to the slide.  A click on a cell of the result writes its
arithmetic on the slide in the lesson's place (slide_explain; Esc closes it first); under the
title, the map of steps (slide_map).
"""
from __future__ import annotations

import dataclasses
import itertools
import math
from typing import TYPE_CHECKING, Optional

from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QFont, QFontMetricsF, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

import app.teaching.presentation.slide_layout as slide_layout
from app.panes import scale_lock
from app.panes.selectable_label import SelectableLabel
from app.panes.steps_view import HIDDEN_KEPT
from app.services import i18n
from app.teaching.presentation.edit_drawer import EditDrawer
from app.teaching.presentation.head_picker import HeadPicker
from app.teaching.presentation.slide_explain import SlideExplain
from app.teaching.presentation.slide_layout import PaneSpec, SlidePlan
from app.teaching.presentation.slide_map import SlideMap
from app.teaching.presentation.zoomed_pane import SLIDE_DIGITS, ZoomedPane, pane_font_px
from app.viewmodel import lessons, pane_text
from app.viewmodel.nowrap import keep_together
from app.viewmodel.pane_data import PaneData, pane_data, tokens_of
from app.viewmodel.param_steps import parameter_pane_data

if TYPE_CHECKING:
    from app.features import FeatureHost
    from attention import Scenario, Trace

#: zoom steps (Ctrl + / Ctrl −); ZOOM_DEFAULT is where Ctrl+0 returns, and reads "100 %": the slide fits
ZOOMS: tuple[float, ...] = (0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.25, 1.4, 1.6, 1.8, 2.0, 2.5, 3.0)
ZOOM_DEFAULT = 1.25
#: the inputs' labels a size smaller than the result's (never under 14 px)
INPUT_TEXT_RATIO = 0.85
#: the tallest a cell is drawn, as a share of the canvas's height (a 2 x 2 matrix is not a wall of
#: colour), never under CELL_MOST_PX; the inputs' cells at most this share of it
CELL_MOST_SHARE, CELL_MOST_PX, INPUT_CELL_SHARE = 0.16, 64, 0.8
#: the lesson beside the panes takes one of these shares of the canvas's width (else it goes below)
LESSON_SIDE_SHARES = (0.28, 0.34, 0.42, 0.5)
#: the lesson below the panes unless beside them reads this much better (slide_layout.score)
LESSON_BELOW_BONUS = 0.15
#: the inputs keep their axis names unless leaving them out reads this much better, and are tried
#: without them only while their cells are smaller than BARE_BELOW px
NAMED_BONUS, BARE_BELOW = 0.3, 12
#: a title too long for its line may shrink to this share of its size (not under MIN_TITLE_PX) to keep one line
TITLE_SHRINK, MIN_TITLE_PX = 0.85, 24
BACKGROUND = "#f4f4f4"
BANNER_CSS = "background: #fff3cd; color: #5c4400; border: 1px solid #e0c060; padding: 4px 8px;"
#: the edit drawer's width: this share of the screen, within these bounds (px)
DRAWER_SHARE, DRAWER_MIN, DRAWER_MAX = 0.36, 380, 720
SLIDE_MIN = 400
#: the slide's title, formula and explanation shrink by this while the drawer is open
DRAWER_TEXT_RATIO = 0.8


class PresentationView(QWidget):
    """The full-screen slide show of one window's current trace."""

    left = Signal()  # presentation mode was left (Esc, F5, the Leave button)
    rendered = Signal()  # a slide was drawn (a layout option such as by_hand_slide re-applies itself)
    headFocused = Signal(int)  # 1-9 / A chose a head (-1: all)
    zoomed = Signal(float)  # Ctrl + / Ctrl − / Ctrl 0: the new zoom

    def __init__(self, host: "FeatureHost", parent: Optional[QWidget] = None) -> None:
        super().__init__(parent if parent is not None else host.window, Qt.WindowType.Window)
        self.setObjectName("Presentation")
        self._host = host
        self._trace: Optional["Trace"] = None
        self._scenario: Optional["Scenario"] = None
        self._batch = 0
        self._ids: list[str] = []
        self._index = 0
        self._restart = False  # restart(): the next trace starts at the first slide
        self._selected: Optional[str] = None  # the step selected in the window since: F5 starts there
        self._zoom = ZOOM_DEFAULT
        #: the zoom set on each scenario (by its file), and the one on screen: a zoom belongs to
        #: the scenario it was set on (160 % for the toy is not 160 % for eight heads of 28 rows)
        self._zooms: dict[Optional[str], float] = {}
        path = getattr(host.document, "path", None)
        self._zoom_key: Optional[str] = str(path) if path is not None else None
        self._focus = -1
        self._stale_reason: Optional[str] = None
        #: one pane per step and role (the result, or an input beside it): a step is the result on
        #: one slide and an input on the next, and each role keeps its own fonts and grid; this
        #: slide's and the HIDDEN_KEPT used last (_forget_unused)
        self._panes: dict[tuple[str, bool], ZoomedPane] = {}
        self._used_at: dict[tuple[str, bool], int] = {}
        self._use_clock = itertools.count()
        self._shown_inputs: list[str] = []
        self._dirty = True  # the slide needs drawing when next shown
        self._failed_lines: Optional[list] = None  # the engine's problems while the slide is stale
        self.drawer: Optional[EditDrawer] = None  # built the first time it is opened
        self._slide_keys: list[QShortcut] = []  # off while the keyboard is in the drawer
        self.plan: Optional[SlidePlan] = None  # the canvas as last laid out
        self._plans: dict = {}  # the plans of this slide's sizes (a resize back, a zoom back: no new search)
        self._fit_room: dict = {}  # (slide, canvas width) -> the canvas's room at 100 % (zooming in grows from it)
        self._laying_out = False
        self._renders = 0  # slides drawn: a new one is laid out anew
        self._zoom_digits: Optional[int] = None  # the precision a zoom-in keeps (None: the slide's own)
        self._plan_100: Optional[tuple] = None  # (what it was for, the slide's plan at 100 %): zooming in grows it
        self._zoomed_head = False  # a click showed one head alone (Esc shows them all again)
        self._laid_for: Optional[tuple] = None  # what the canvas was last laid out for
        self._build()
        self.heads = HeadPicker(self)  # "Heads: All 1 2 ... 8" beside the shape line
        self.shape_row.addWidget(self.heads, 0)
        # on the slide: the map of steps under the header, a clicked cell's arithmetic (Esc closes it)
        self.map, self.slide_explain = SlideMap(self), SlideExplain(self)
        self._extras = (self.map, self.slide_explain)
        self._build_keys()
        self.retranslate()
        if getattr(host, "quiz", None) is not None:  # a hidden step is hidden on the slides too
            host.quiz.changed.connect(self._on_quiz_changed)
        host.view.locksChanged.connect(self.show_batch_again)  # a locked colour scale shows on the slide too

    # ---- construction ------------------------------------------------------------------------
    def _build(self) -> None:
        self.setStyleSheet(f"#Presentation {{ background: {BACKGROUND}; }}")
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.title.setTextFormat(Qt.TextFormat.PlainText)  # an engine text, shown as written ("s > l")
        self.counter = QLabel()
        self.counter.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.zoom_out_button = QPushButton("−")
        self.zoom_label = QLabel()
        self.zoom_in_button = QPushButton("+")
        self.prev_button = QPushButton("◀")
        self.next_button = QPushButton("▶")
        self.edit_button = QPushButton()
        self.close_button = QPushButton()
        self.lang_button = QPushButton()  # the other language's name: the whole show switches (L)
        for b in (self.zoom_out_button, self.zoom_in_button, self.prev_button, self.next_button,
                  self.edit_button, self.close_button, self.lang_button):
            b.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the keys belong to the slide show
        self.zoom_out_button.clicked.connect(self.zoom_out)
        self.zoom_in_button.clicked.connect(self.zoom_in)
        self.prev_button.clicked.connect(self.previous)
        self.next_button.clicked.connect(self.next)
        self.edit_button.setCheckable(True)
        self.edit_button.clicked.connect(self.toggle_drawer)
        self.close_button.clicked.connect(self.leave)
        self.lang_button.clicked.connect(self.switch_language)

        header = QHBoxLayout()
        header.addWidget(self.title, 1)
        for w in (self.zoom_out_button, self.zoom_label, self.zoom_in_button):
            header.addWidget(w)
        header.addSpacing(12)
        for w in (self.prev_button, self.counter, self.next_button):
            header.addWidget(w)
        header.addSpacing(12)
        header.addWidget(self.lang_button)
        header.addWidget(self.edit_button)
        header.addWidget(self.close_button)
        self.header = header

        self.formula = SelectableLabel()
        self.formula.setWordWrap(True)
        self.formula.setTextFormat(Qt.TextFormat.PlainText)
        self.formula.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.shape = QLabel()
        self.banner = QLabel()
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet(BANNER_CSS)
        self.banner.hide()
        self.quiz_note = QLabel()  # what the quiz hides on this slide (the numbers show as "?")
        self.quiz_note.setObjectName("QuizNote")
        self.quiz_note.setWordWrap(True)
        self.quiz_note.hide()

        # the canvas: panes, the arrow and the lesson placed by the plan (no layout of its own)
        self.canvas_box = QWidget()
        self.canvas_box.setObjectName("SlideCanvas")
        self.canvas_box.setStyleSheet(f"#SlideCanvas {{ background: {BACKGROUND}; }}")
        self.body_scroll = QScrollArea()
        self.body_scroll.setObjectName("SlideBody")
        self.body_scroll.setWidget(self.canvas_box)
        self.body_scroll.setWidgetResizable(False)
        self.body_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.body_scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # arrows and Page keys turn slides, not scroll
        self.body_scroll.setStyleSheet(f"QScrollArea {{ background: {BACKGROUND}; }}")
        self.body_scroll.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
        self.body_scroll.setMinimumSize(QSize(0, 0))
        self.body_scroll.installEventFilter(self)
        self.arrow = QLabel("→", self.canvas_box)
        self.arrow.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.arrow.hide()

        self.explanation = SelectableLabel()
        self.explanation.setParent(self.canvas_box)
        self.explanation.setWordWrap(True)
        self.explanation.setTextFormat(Qt.TextFormat.PlainText)
        self.explanation.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.explanation.setObjectName("Explanation")
        self.empty = QLabel()
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.hide()

        self.slide = QWidget()  # everything but the drawer; clicking it gives the keys back
        self.slide.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        # a floor of its own: the slide narrows for the drawer instead of pushing the
        # full-screen window past the screen's edge
        self.slide.setMinimumWidth(SLIDE_MIN)
        self.outer = QHBoxLayout(self)
        self.outer.setContentsMargins(0, 0, 0, 0)
        self.outer.setSpacing(0)
        self.outer.addWidget(self.slide, 1)
        lay = QVBoxLayout(self.slide)
        lay.setContentsMargins(16, 8, 16, 8)
        lay.setSpacing(6)
        lay.addLayout(header)
        lay.addWidget(self.formula)
        self.shape_row = QHBoxLayout()
        self.shape_row.setContentsMargins(0, 0, 0, 0)
        self.shape_row.addWidget(self.shape, 1)
        lay.addLayout(self.shape_row)
        lay.addWidget(self.banner)
        lay.addWidget(self.quiz_note)
        lay.addWidget(self.body_scroll, 1)
        lay.addWidget(self.empty, 1)

    def _build_keys(self) -> None:
        def keys(sequences, slot, slide: bool = True) -> None:
            for seq in sequences:
                sc = QShortcut(QKeySequence(seq), self)
                sc.setContext(Qt.ShortcutContext.WindowShortcut)
                sc.activated.connect(slot)
                if slide:  # a key that also types or moves in a spin box or a table
                    self._slide_keys.append(sc)

        keys(["Right", "PgDown", "Space", "Down", "Return"], self.next)
        keys(["Left", "PgUp", "Shift+Space", "Up", "Backspace"], self.previous)
        keys(["Home"], self.first)
        keys(["End"], self.last)
        keys(["Esc"], self.escape)  # in the drawer Esc gives the keys back to the slide instead
        keys(["F5"], self.leave, slide=False)
        # "Ctrl +" as typed on a main keyboard arrives as Ctrl+Shift and "+" (the README's key)
        keys(["Ctrl+=", "Ctrl++", "Ctrl+Shift+=", "Ctrl+Shift++"], self.zoom_in, slide=False)
        keys(["Ctrl+-"], self.zoom_out, slide=False)
        keys(["Ctrl+0"], self.zoom_reset, slide=False)
        keys(["E"], self.toggle_drawer)
        keys(["L"], self.switch_language)
        keys(["A"], lambda: self.set_focus_head(-1))
        for n in range(1, 10):
            keys([str(n)], lambda h=n - 1: self.set_focus_head(h))
        for action in (self._host.undo_action, self._host.redo_action):
            self.addAction(action)  # Ctrl+Z / Ctrl+Shift+Z undo and redo here too: edits stay live
        QApplication.instance().focusChanged.connect(self._sync_slide_keys)

    # ---- entering and leaving --------------------------------------------------------------------
    def enter(self) -> None:
        """Show full screen on the window's current trace, at the step selected in the window
        since the slides were last shown (a clicked cell, a chip of the window's map), else at the
        slide shown last time (the first slide of a scenario just opened)."""
        last = self._host.last_result()
        if last is not None and last.trace is not self._trace:
            self._set_trace(last.trace, last.scenario, last.batch)
        selected, self._selected = self._selected, None
        if selected in self._ids and self._ids.index(selected) != self._index:
            self._index, self._dirty = self._ids.index(selected), True
        self.showFullScreen()
        self.slide.setFocus(Qt.FocusReason.OtherFocusReason)  # the presenter keys work at once
        self._sync_slide_keys()
        self.raise_()
        self.activateWindow()
        QTimer.singleShot(0, self, self.activateWindow)  # again once the F5 key event is done
        if self._dirty:
            self._render()

    def escape(self) -> None:
        """Esc: close what is open on the slide (a cell's explanation, then a region zoomed into), else leave."""
        if not any(x.close() for x in self._extras) and not self._unzoom():
            self.leave()

    def leave(self) -> None:
        if self.isVisible():
            self.hide()
            self._host.window.activateWindow()
            self.left.emit()

    def switch_language(self) -> None:
        """L (or the language button): the window's language switches, and the slide with it."""
        window = self._host.window
        other = "en" if self._lang() == "zh" else "zh"
        if hasattr(window, "set_language"):
            window.set_language(other)
        else:
            i18n.set_language(other)

    # ---- the edit drawer ------------------------------------------------------------------------
    def drawer_open(self) -> bool:
        return self.drawer is not None and not self.drawer.isHidden()

    def toggle_drawer(self) -> None:
        if self.drawer_open():
            self.close_drawer()
        else:
            self.open_drawer()

    def open_drawer(self, focus: bool = True) -> EditDrawer:
        """Show the edit drawer beside the slide (the slide narrows and its panes refit) and,
        with `focus`, give it the keyboard."""
        drawer = self._ensure_drawer()
        drawer.setFixedWidth(self._drawer_width())
        drawer.show()
        self.edit_button.setChecked(True)
        if focus:
            drawer.focus_editor()
        self._sync_slide_keys()
        self._apply_fonts()
        self.refit_soon()
        return drawer

    def close_drawer(self) -> None:
        if self.drawer is None:
            return
        in_drawer = self._focus_in_drawer()
        self.drawer.hide()
        self.edit_button.setChecked(False)
        if in_drawer or self.focusWidget() is None:
            self.slide.setFocus(Qt.FocusReason.OtherFocusReason)
        self._sync_slide_keys()
        self._apply_fonts()
        self.refit_soon()

    def back_to_slide(self) -> None:
        """The keys go to the slide again; the drawer stays open, showing what was changed."""
        self.slide.setFocus(Qt.FocusReason.OtherFocusReason)
        self._sync_slide_keys()

    def _ensure_drawer(self) -> EditDrawer:
        if self.drawer is None:
            drawer = EditDrawer(self._host.document, self)
            drawer.hide()
            drawer.back_to_slide.connect(self.back_to_slide)
            drawer.close_requested.connect(self.close_drawer)
            drawer.set_zoom(self._zoom)
            if self._failed_lines is not None:
                drawer.show_problems(self._failed_lines)
            window_inputs = self._host.inputs  # one batch item, chosen in either panel
            drawer.inputs.batch.setValue(window_inputs.current_batch())
            drawer.inputs.batch_changed.connect(window_inputs.batch.setValue)
            window_inputs.batch_changed.connect(drawer.inputs.batch.setValue)
            self.outer.addWidget(drawer)
            self.drawer = drawer
        return self.drawer

    def _drawer_width(self) -> int:
        return int(min(max(self.width() * DRAWER_SHARE, DRAWER_MIN), DRAWER_MAX))

    def _focus_in_drawer(self) -> bool:
        focus = self.focusWidget()  # this window's focus widget, even while another is active
        return self.drawer is not None and focus is not None and self.drawer.isAncestorOf(focus)

    def _sync_slide_keys(self, *args) -> None:
        """Slide keys on unless the keyboard is in the drawer, where they type and move."""
        on = not self._focus_in_drawer()
        for sc in self._slide_keys:
            sc.setEnabled(on)

    def slide_keys_enabled(self) -> bool:
        return all(sc.isEnabled() for sc in self._slide_keys)

    # ---- engine results ------------------------------------------------------------------------
    def show_trace(self, trace: "Trace", scenario: "Scenario", seconds: float = 0.0) -> None:
        """A new result from the window's Recomputer: redraw the slide (or when next shown)."""
        self._set_trace(trace, scenario, self._window_batch(scenario))
        self._stale_reason = None
        self._failed_lines = None
        if self.drawer is not None:
            self.drawer.clear_problems()
        self._update_banner()
        if self.isVisible():
            self._render()

    def show_failed(self, lines: list, scenario: "Scenario") -> None:
        reason = str(lines[0]).rstrip(".") if lines else ""
        self._stale_reason = reason
        self._failed_lines = list(lines)
        if self.drawer is not None:
            self.drawer.show_problems(self._failed_lines)
        self._update_banner()
        for pane in self._panes.values():
            pane.set_stale(True)

    def show_batch_again(self) -> None:
        self.show_batch(self._batch)

    def show_batch(self, batch: int) -> None:
        if self._trace is not None and 0 <= batch < int(self._trace.options.get("batch", 1)):
            self._batch = batch
            self._dirty = True
            if self.isVisible():
                self._render()

    def _window_batch(self, scenario) -> int:
        try:
            return max(0, min(int(self._host.inputs.current_batch()), int(scenario.batch) - 1))
        except (TypeError, ValueError):
            return 0

    def restart(self) -> None:
        """A different scenario was opened (not an edit): its first trace starts at the first
        slide, rather than at the step the last scenario's show had reached, at the zoom last
        set on that scenario (the default for one not zoomed yet), showing all its heads."""
        self._restart = True
        self._selected = None  # a step selected in the last scenario says nothing about this one
        self._zooms[self._zoom_key] = self._zoom
        path = self._host.document.path
        self._zoom_key = str(path) if path is not None else None
        self.set_zoom(self._zooms.get(self._zoom_key, ZOOM_DEFAULT) if self._zoom_key is not None else ZOOM_DEFAULT)
        self._focus = -1
        for pane in self._panes.values():
            pane.set_focus(-1)

    def _set_trace(self, trace: "Trace", scenario: "Scenario", batch: int) -> None:
        current = None if self._restart else self.current_step()
        if current is None:
            self._index, self._restart = 0, False
        self._trace, self._scenario, self._batch = trace, scenario, batch
        self._ids = lessons.lesson_ids(trace)
        if current in self._ids:
            self._index = self._ids.index(current)
        self._index = max(0, min(self._index, len(self._ids) - 1))
        self._dirty = True

    def select_step(self, step_id: str) -> None:
        """The window selected `step_id` (a clicked cell, a chip of its map): the next F5 starts there."""
        self._selected = step_id

    # ---- navigation ------------------------------------------------------------------------------
    def lesson_ids(self) -> list[str]:
        return list(self._ids)

    def index(self) -> int:
        return self._index

    def current_step(self) -> Optional[str]:
        return self._ids[self._index] if 0 <= self._index < len(self._ids) else None

    def go_to(self, index: int) -> None:
        if not self._ids:
            return
        index = max(0, min(int(index), len(self._ids) - 1))
        if index != self._index or self._dirty:
            self._index = index
            self._render()

    def next(self) -> None:
        self.go_to(self._index + 1)

    def previous(self) -> None:
        self.go_to(self._index - 1)

    def first(self) -> None:
        self.go_to(0)

    def last(self) -> None:
        self.go_to(len(self._ids) - 1)

    # ---- zoom and heads ----------------------------------------------------------------------------
    def zoom(self) -> float:
        return self._zoom

    def set_zoom(self, zoom: float) -> None:
        zoom = min(max(float(zoom), ZOOMS[0]), ZOOMS[-1])
        if abs(zoom - self._zoom) > 1e-9:
            ratio = zoom / self._zoom
            self._zoom = zoom
            self._apply_zoom(ratio)
            self.zoomed.emit(zoom)

    def zoom_in(self) -> None:
        self.set_zoom(next((z for z in ZOOMS if z > self._zoom + 1e-9), ZOOMS[-1]))

    def zoom_out(self) -> None:
        self.set_zoom(next((z for z in reversed(ZOOMS) if z < self._zoom - 1e-9), ZOOMS[0]))

    def zoom_reset(self) -> None:
        self.set_zoom(ZOOM_DEFAULT)

    def zoom_text(self) -> str:
        """The zoom as the slide writes it: 100 % is the slide fitted to the screen."""
        return f"{round(self._zoom / ZOOM_DEFAULT * 100)}%"


    def set_focus_head(self, head: int) -> None:
        """Show head `head` alone in every per-head pane (-1: all heads side by side)."""
        n_heads = int(self._trace.options.get("n_heads", 1)) if self._trace is not None else 1
        head = head if 0 <= head < n_heads and n_heads > 1 else -1
        self._focus = head
        self._zoomed_head = False
        for pane in self._panes.values():
            pane.set_focus(head)
            pane.unzoom()
        self._show_head_picker()
        self.headFocused.emit(head)
        if self.isVisible() and self.current_step() is not None:
            self.refit_soon()  # one head alone fills the canvas the heads shared

    def _show_head_picker(self) -> None:
        n_heads = int(self._trace.options.get("n_heads", 1)) if self._trace is not None else 1
        self.heads.show_heads(n_heads if self.current_step() is not None else 1, self._focus)

    # ---- what is on screen (tests, the screenshot script, the slide's parts) -------------------------
    def output_pane(self) -> Optional[ZoomedPane]:
        sid = self.current_step()
        return self._panes.get((sid, False)) if sid is not None else None

    def input_panes(self) -> list[ZoomedPane]:
        return [self._panes[(n, True)] for n in self._shown_inputs]

    def explanation_text(self) -> str:
        return self.explanation.text()

    def trace(self) -> Optional["Trace"]:
        """The trace the slides show."""
        return self._trace

    def host(self) -> "FeatureHost":
        return self._host

    def lesson_widget(self) -> Optional[QWidget]:
        """What the canvas places as the lesson: the clicked cell's arithmetic while it is open,
        else the slide's sentences; None while neither is shown (the by-hand sheet's slides)."""
        box = self.slide_explain.box
        if not box.isHidden():
            return box
        return None if self.explanation.isHidden() else self.explanation

    # ---- drawing -----------------------------------------------------------------------------------
    def _lang(self) -> str:
        return i18n.current_language()

    def _forget_unused(self, in_use: set[tuple[str, bool]]) -> None:
        """Keep the panes of this slide and the HIDDEN_KEPT used last; delete the rest (a pane is a few
        MB of widgets: a long class through every kind's slides kept one per step id, issue 29)."""
        idle = sorted(self._panes.keys() - in_use, key=lambda n: self._used_at.get(n, -1))
        for key in idle[:max(0, len(idle) - HIDDEN_KEPT)]:
            pane = self._panes.pop(key)
            self._used_at.pop(key, None)
            pane.setParent(None)
            pane.deleteLater()

    def _pane(self, name: str, zoom: float, header: bool) -> ZoomedPane:
        """The pane of step `name` as the result (header False) or as an input (its title shown,
        no hint line: its hover is a tooltip), held unarranged until the plan gives it its cells."""
        self._used_at[(name, header)] = next(self._use_clock)
        pane = self._panes.get((name, header))
        if pane is None:
            pane = ZoomedPane(name, zoom, show_header=header)
            pane.setParent(self.canvas_box)
            pane.set_compact(header)
            pane.focusRequested.connect(self.set_focus_head)
            pane.zoomHead.connect(self._zoom_head)
            pane.lockRequested.connect(lambda on, n=name: self._host.view.lock_scale(n, on))
            self._panes[(name, header)] = pane
        pane.hold(True)  # no grid worked out for the desk-top sizes: the plan sets the cells next
        pane.wrapped, pane.per_row = False, None  # decided again by the plan on every slide
        pane.clear_plan()
        pane.set_zoom(zoom)
        pane.set_focus(self._focus)
        return pane

    def _data(self, name: str) -> Optional[PaneData]:
        qt, kt = tokens_of(self._scenario)
        if name in self._trace:
            data = pane_data(self._trace, name, self._batch, qt, kt)
            quiz = getattr(self._host, "quiz", None)
            return quiz.shown_data(self._trace, name, data, self._batch) if quiz is not None else data
        return parameter_pane_data(self._trace, name, self._batch, qt, kt)

    def _on_quiz_changed(self) -> None:
        self._dirty = True
        if self.isVisible():
            self._render()

    def _write_quiz_note(self, sid: str) -> None:
        """Say so on a slide whose output or inputs the quiz hides."""
        quiz = getattr(self._host, "quiz", None)
        hidden = quiz is not None and any(quiz.plan_for(self._trace).hides(n) for n in [sid, *self._shown_inputs])
        text = quiz.note(self._trace, self._lang(), instruction=False) if hidden else ""
        self.quiz_note.setText(text)
        self.quiz_note.setVisible(bool(text))
        self.quiz_note.setStyleSheet(f"#QuizNote {{ background: #eef3ff; color: #102a5c; border: 1px solid #b8c8e8; "
                                     f"padding: 4px 8px; font-size: {pane_font_px(15, self._zoom)}px; }}")

    def _render(self) -> None:
        """Draw the current slide: header texts, input panes, output pane, lesson; then lay out the
        canvas (painted once, when all of it is in place)."""
        self.canvas_box.setUpdatesEnabled(False)
        try:
            self._draw_slide()
        finally:
            self.canvas_box.setUpdatesEnabled(True)

    def _draw_slide(self) -> None:
        sid = self.current_step()
        has_slide = self._trace is not None and sid is not None
        self.empty.setVisible(not has_slide)
        for w in (self.body_scroll, self.formula, self.shape):
            w.setVisible(has_slide)
        self._clear_body()
        self._apply_fonts()
        self._plans.clear()
        self._renders += 1
        self._zoom_digits = None
        if not has_slide:
            self.title.setText("")
            self.explanation.setText("")
            self.counter.setText("")
            self.heads.hide()
            self._extras_shown()
            self.rendered.emit()
            return
        lang = self._lang()
        for name in lessons.inputs_of(sid, self._trace):
            data = self._data(name)
            if data is None:
                continue
            pane = self._pane(name, self._zoom * INPUT_TEXT_RATIO, header=True)
            pane.set_stale(False)
            pane.show_data(data, lang, self._focus, scale_lock.slide_picture(self._host.view, name, data))
            pane.show()
            self._shown_inputs.append(name)
        out = self._pane(sid, self._zoom, header=False)
        out.set_stale(False)
        data = self._data(sid)
        out.show_data(data, lang, self._focus, scale_lock.slide_picture(self._host.view, sid, data))
        out.show()
        self.arrow.setVisible(bool(self._shown_inputs))
        self._write_texts(sid, data)
        self._forget_unused({*((n, True) for n in self._shown_inputs), (sid, False)})
        self._show_head_picker()
        self._dirty = False
        self._extras_shown()
        self._fit_panes()
        self.refit_soon()  # again once the new texts above the canvas are laid out
        self.rendered.emit()

    def redraw(self) -> None:
        """Draw the current slide again (a layout option was switched)."""
        self._render()

    def _extras_shown(self) -> None:
        for x in self._extras:
            x.slide_shown()

    def _clear_body(self) -> None:
        for pane in self._panes.values():
            if not pane.isHidden():
                pane.hide()
        self._shown_inputs = []

    def _unzoom(self) -> bool:
        """Every pane's whole matrix again, every head again after a click showed one alone; True
        when there was something to undo."""
        if any([p.unzoom() for p in self._panes.values()]):
            return True
        if self._zoomed_head:
            self.set_focus_head(-1)
            return True
        return False

    def _zoom_head(self, head: int) -> None:
        """A click on a head too small for one number: that head alone (Esc: all of them again)."""
        self.set_focus_head(head)
        self._zoomed_head = True

    # ---- the canvas ------------------------------------------------------------------------------------
    def refit_soon(self) -> None:
        QTimer.singleShot(0, self, self._fit_panes)  # once the layout has given the canvas its size

    def _fit_panes(self) -> None:
        """Plan the canvas for its room (slide_layout) and place the panes, the arrow and the
        lesson as planned; then one precision for all the panes' numbers."""
        if self._laying_out:
            return
        lesson = self.lesson_widget()
        said = lesson.findChild(QLabel).text() if lesson is self.slide_explain.box else (
            lesson.text() if lesson is not None else None)
        done_for = (self._renders, self.body_scroll.size().toTuple(), self._zoom, self._focus, self.drawer_open(),
                    id(lesson), said, self.title.styleSheet())
        if done_for == self._laid_for:
            return  # the same slide at the same size: laid out already
        self._laying_out = True
        updates = self.canvas_box.updatesEnabled()
        self.canvas_box.setUpdatesEnabled(False)  # one paint once every pane is at its place
        try:
            self._fit_title()
            self._lay_out()
            self._share_digits()
        finally:
            self._laying_out = False
            self.canvas_box.setUpdatesEnabled(updates)
        self._laid_for = done_for

    def _room(self) -> tuple[float, float]:
        """The canvas's room at 100 %: the body's size (zoomed in: as it was at 100 %, before the
        larger texts above took some of it); zoomed out, the zoom's share of it."""
        room = self.body_scroll.size()
        w, h = float(room.width()), float(room.height())
        ratio = self._zoom / ZOOM_DEFAULT
        key = (self._index, room.width(), self.drawer_open())
        if abs(ratio - 1.0) < 1e-9:
            self._fit_room[key] = (w, h)
        elif ratio > 1.0:
            return self._fit_room.get(key, (w, h))
        return w * ratio, h * ratio

    def _lay_out(self) -> None:
        out = self.output_pane()
        if out is None or out.data is None or self.body_scroll.isHidden() or not self.isVisible() or self._dirty:
            return  # nothing to lay out, or a new trace whose slide is about to be drawn
        inputs = self.input_panes()
        try:
            self._plan_and_place(out, inputs)
        finally:
            for pane in [out, *inputs]:
                pane.hold(False)  # never left unlaid out, whatever the plan found

    def _plan_and_place(self, out: ZoomedPane, inputs: list[ZoomedPane]) -> None:
        room_w, room_h = self._room()
        if room_w < 40 or room_h < 40:
            return
        for pane in inputs:  # a long row that prints its numbers once written in rows (1 x 80 features)
            if pane.wraps_into_numbers():
                pane.set_wrapped(True)
        lesson = self.lesson_widget()
        ratio = self._zoom / ZOOM_DEFAULT
        at_100 = (self._renders, self.body_scroll.width(), self.drawer_open(), id(lesson), self._focus)
        if ratio > 1.0 + 1e-9 and self._plan_100 is not None and self._plan_100[0] == at_100:
            plan = self._plan_100[1]  # zoomed in on this slide: the plan it had at 100 %, larger
        else:
            plan = self._best_plan(out, inputs, lesson, room_w, room_h)
            if abs(ratio - 1.0) < 1e-9:
                self._plan_100 = (at_100, plan)
        if plan is not None and ratio > 1.0 + 1e-9 and set(plan.panes) <= {p.step_id for p in [out, *inputs]}:
            plan = self._zoomed(plan, ratio, [out, *inputs], lesson)  # every cell and place `ratio` times larger
        self.plan = plan
        if plan is not None:
            self._place(plan, out, inputs, lesson)

    def _best_plan(self, out: ZoomedPane, inputs: list[ZoomedPane], lesson: Optional[QWidget],
                   room_w: float, room_h: float) -> Optional[SlidePlan]:
        """The best of the panes' plans with the lesson below them or beside them (slide_layout.plan
        for each), in the canvas's coordinates; memoised for this slide's sizes."""
        outs = self._output_specs(out)
        ins = self._input_specs(inputs)
        gap = slide_layout.GAP
        # (panes' area: x, y, width, height; the lesson's rectangle or None)
        places: list[tuple[tuple[float, float, float, float], Optional[tuple[float, float, float, float]]]] = []
        if lesson is None:
            places.append(((0.0, 0.0, room_w, room_h), None))
        else:
            below = float(lesson.heightForWidth(int(room_w - 2 * gap)))
            places.append(((0.0, 0.0, room_w, room_h - below - gap),
                           (gap, room_h - below - gap, room_w - 2 * gap, below)))
            for share in LESSON_SIDE_SHARES:
                side_w = room_w * share
                side_h = float(lesson.heightForWidth(int(side_w - gap)))
                if side_h <= room_h - 2 * gap:
                    places.append(((0.0, 0.0, room_w - side_w, room_h),
                                   (room_w - side_w, (room_h - side_h) / 2, side_w - gap, side_h)))
        key = (round(room_w), round(room_h), self._focus, tuple((tuple(round(v) for v in a), None if r is None else
                                                                 tuple(round(v) for v in r)) for a, r in places),
               tuple(_spec_key(s, room_w) for s in [*outs, *(s for specs in ins for s in specs)]))
        if key in self._plans:
            return self._plans[key]
        cap = max(CELL_MOST_PX, room_h * CELL_MOST_SHARE)
        best: Optional[SlidePlan] = None
        best_value = -math.inf
        # the inputs with their axis names, and without them (small beside the result: their titles say it)
        tries = [(rect, specs) for rect in places for specs in ins]
        for ((ax, ay, aw, ah), rect), specs in tries:
            if ah < 40 or aw < 40 or (best is not None and _reads_fully(best)):
                continue  # the lesson below and every number legible at full precision: nothing reads better
            if specs and specs[0].variant == ("bare",) and best is not None and _inputs_large(best):
                continue  # the inputs are not small with their axis names: leaving them out gains nothing
            plan = slide_layout.plan(aw, ah, outs, specs, self._arrow_size(), cap, cap * INPUT_CELL_SHARE)
            if not plan.panes:
                continue
            value = plan.score + (LESSON_BELOW_BONUS if rect is None or rect[0] <= gap else 0.0) + (
                NAMED_BONUS if specs and specs[0].variant == ("named",) else 0.0)
            if value > best_value:
                for placed in plan.panes.values():
                    placed.x, placed.y = placed.x + ax, placed.y + ay
                if plan.arrow is not None:
                    x, y, w, h, glyph = plan.arrow
                    plan.arrow = (x + ax, y + ay, w, h, glyph)
                plan.lesson, plan.width, plan.height = rect, room_w, room_h
                best, best_value = plan, value
        if best is None and inputs:  # nothing fits beside the inputs (many heads of long titles): the result alone
            best = self._best_plan(out, [], lesson, room_w, room_h)
            if best is not None:
                best.dropped = [p.step_id for p in inputs]
        if best is None and not inputs:  # not even the result alone: a canvas that scrolls rather than none
            best = self._best_plan(out, [], lesson, room_w, room_h * 1.5)
        self._plans[key] = best
        return best

    def _zoomed(self, base: SlidePlan, ratio: float, panes: list[ZoomedPane], lesson: Optional[QWidget]) -> SlidePlan:
        """`base` (planned for the room at 100 %) with every cell and place `ratio` times larger, each
        pane measured at its zoomed fonts (at most `ratio` times larger too: nothing overlaps); the
        canvas grows past the screen and scrolls, and every number only ever grows."""
        by_name = {p.step_id: p for p in panes}
        plan = SlidePlan(width=base.width * ratio, height=base.height * ratio, arrangement=base.arrangement,
                         score=base.score, dropped=list(base.dropped))
        for name, placed in base.panes.items():
            f = placed.fit
            variant = f.spec.variant
            frame = self._spec(by_name[name], variant, bare=variant == ("bare",)).frame
            spec = dataclasses.replace(f.spec, frame=frame)
            cw, ch = f.cell_w * ratio, f.cell_h * ratio
            w = slide_layout.pane_width(spec, f.per_row, cw)
            h = slide_layout.pane_height(spec, f.per_row, ch, w)
            fit = slide_layout.Fit(spec, f.per_row, cw, ch, f.legible, w, h)
            plan.panes[name] = slide_layout.Placed(fit, placed.x * ratio, placed.y * ratio)
        if base.arrow is not None:
            x, y, w, h, glyph = base.arrow
            plan.arrow = (x * ratio, y * ratio, w * ratio, h * ratio, glyph)
        if base.lesson is not None and lesson is not None:
            x, y, w, _ = base.lesson
            plan.lesson = (x * ratio, y * ratio, w * ratio, float(lesson.heightForWidth(int(w * ratio))))
        return plan

    def _spec(self, pane: ZoomedPane, variant=None, bare: Optional[bool] = None) -> PaneSpec:
        d = pane._data  # noqa: SLF001 (what the pane draws: a wrapped row's rows)
        full = pane.legible_cell(SLIDE_DIGITS)
        return PaneSpec(pane.step_id, max(len(pane.visible_heads()), 1), d.layout.rows.size, d.layout.cols.size,
                        pane.slide_frame(bare), pane.legible_cell(), variant, full[0] if full is not None else 0.0)

    def _input_specs(self, inputs: list[ZoomedPane]) -> list[list[PaneSpec]]:
        """The inputs as they are drawn (with their axis names), and bare (ticks only): two sets to plan."""
        if not inputs:
            return [[]]
        return [[self._spec(p, ("named",), bare=False) for p in inputs], [self._spec(p, ("bare",), bare=True)
                                                                          for p in inputs]]

    def _output_specs(self, out: ZoomedPane) -> list[PaneSpec]:
        """The result as it is, and written in rows of each width a long row may take (1 x 80)."""
        widths = out.row_widths()
        if not widths:
            return [self._spec(out)]
        specs = []
        for per_row in [None, *widths]:
            out.set_wrapped(per_row is not None, per_row)
            specs.append(self._spec(out, ("wrapped", per_row)))
        return specs

    def _arrow_size(self) -> tuple[float, float]:
        px = pane_font_px(40, self._zoom)
        return px * 1.2, px * 1.4

    def _place(self, plan: SlidePlan, out: ZoomedPane, inputs: list[ZoomedPane], lesson: Optional[QWidget]) -> None:
        """Each pane at its planned place and cells, the arrow, the lesson; the canvas as large as
        planned (zoomed in: the body scrolls) or as the body (zoomed out: the plan centred)."""
        room = self.body_scroll.size()
        canvas_w, canvas_h = max(room.width(), math.ceil(plan.width)), max(room.height(), math.ceil(plan.height))
        if self.canvas_box.size() != QSize(canvas_w, canvas_h):
            self.canvas_box.resize(canvas_w, canvas_h)
        ox, oy = (canvas_w - plan.width) / 2, (canvas_h - plan.height) / 2
        for pane in [out, *inputs]:
            placed = plan.panes.get(pane.step_id)
            if placed is None:
                pane.hide()
                continue
            fit = placed.fit
            variant = fit.spec.variant
            if variant is not None and variant[0] == "wrapped":
                pane.set_wrapped(variant[1] is not None, variant[1])
            pane.set_bare(variant is not None and variant[0] == "bare")
            pane.set_cells(fit.cell_w, fit.cell_h, fit.per_row)
            pane.hold(False)  # the grid, once, at the planned cells
            pane.setGeometry(int(ox + placed.x), int(oy + placed.y), math.ceil(fit.width), math.ceil(fit.height))
            pane.show()
            pane.settle()
        if plan.arrow is not None and inputs:
            x, y, w, h, glyph = plan.arrow
            self.arrow.setText(glyph)
            self.arrow.setGeometry(int(ox + x), int(oy + y), math.ceil(w), math.ceil(h))
            self.arrow.show()
        else:
            self.arrow.hide()
        if lesson is not None and plan.lesson is not None:
            x, y, w, h = plan.lesson
            lesson.setGeometry(int(ox + x), int(oy + y), int(w), math.ceil(h))
            lesson.raise_()

    def _share_digits(self) -> None:
        """One precision on the whole slide: the most digits that every pane's cells hold at a
        legible size (0.7071 in the output beside 0.71 in an input read as two different values)."""
        panes = [p for p in [self.output_pane(), *self.input_panes()] if p is not None]
        for pane in panes:
            pane.set_max_digits(SLIDE_DIGITS)  # the show's one precision, unless a pane cannot hold it
        chosen = [c for c in (p.designed_choice() for p in panes) if c is not None]
        digits = min((d for _, d in chosen), default=SLIDE_DIGITS)
        if self._zoom_digits is not None:  # zoomed in: never more digits, which would draw them smaller
            digits = min(digits, self._zoom_digits)
        for pane in panes:
            pane.set_max_digits(digits)

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        if self.drawer is not None:
            self.drawer.setFixedWidth(self._drawer_width())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if watched is self.body_scroll and event.type() == QEvent.Type.Resize:
            # the window, the drawer or the texts above changed the canvas's room
            self.refit_soon() if self._laying_out else self._fit_panes()
        return super().eventFilter(watched, event)


    def _write_texts(self, sid: str, data: PaneData) -> None:
        lang = self._lang()
        step = self._trace[sid]
        # plain-text labels: the words exactly as the engine wrote them (escaping them for HTML
        # showed "&gt;" on a label that Qt then judged to be plain text)
        self.title.setText(step.title[lang])
        self._fit_title()
        self.formula.setText(keep_together(step.formula[lang]))
        self.shape.setText(keep_together(data.shape_text(lang)))
        self.explanation.setText(lessons.explanation(sid, self._trace.options, lang))
        self._write_quiz_note(sid)
        self.counter.setText(f"{self._index + 1} / {len(self._ids)}")
        self.prev_button.setEnabled(self._index > 0)
        self.next_button.setEnabled(self._index < len(self._ids) - 1)


    def _apply_zoom(self, ratio: float) -> None:
        """Every text `ratio` times its size, and the canvas planned again at the new zoom: past
        100 % larger than the screen's room (it scrolls), under it smaller (centred).  Zooming in
        keeps the slide's precision: the numbers only ever grow."""
        panes = [p for p in [self.output_pane(), *self.input_panes()] if p is not None]
        if ratio > 1 and panes:
            self._zoom_digits = min(p.max_digits for p in panes)
        elif ratio < 1:
            self._zoom_digits = None
        self._apply_fonts()
        for pane in self._panes.values():
            pane.set_zoom(pane.zoom * ratio)
        if self.isVisible():
            self._fit_panes()

    def _apply_fonts(self) -> None:
        z = self._zoom
        px = lambda base: pane_font_px(base, z)  # noqa: E731
        # beside the drawer the slide is narrower: its title and sentences a size smaller, so
        # that the numbers being edited keep their room
        small = DRAWER_TEXT_RATIO if self.drawer_open() else 1.0
        tx = lambda base: pane_font_px(base * small, z)  # noqa: E731
        self._title_full_px = tx(30)
        self._fit_title()
        self.counter.setStyleSheet(f"font-size: {px(22)}px; color: #333; padding: 0 6px;")
        self.zoom_label.setStyleSheet(f"font-size: {px(14)}px; color: #555;")
        self.zoom_label.setText(self.zoom_text())
        self.formula.setStyleSheet(f"font-size: {tx(22)}px; color: #1a1a1a; font-family: 'DejaVu Sans Mono', "
                                   f"'Noto Sans Mono CJK SC', monospace; background: white; "
                                   f"border: 1px solid #d0d0d0; border-radius: 4px; padding: 6px 10px;")
        self.shape.setStyleSheet(f"font-size: {px(15)}px; color: #555;")
        self.arrow.setStyleSheet(f"font-size: {px(40)}px; color: #888; padding: 0 4px;")
        self.explanation.setStyleSheet(f"#Explanation {{ font-size: {tx(20)}px; color: #111; background: #fbfbf3; "
                                       f"border: 1px solid #ddd; border-radius: 4px; padding: 8px 12px; }}")
        self.banner.setStyleSheet(BANNER_CSS + f" font-size: {px(15)}px;")
        self.empty.setStyleSheet(f"font-size: {px(22)}px; color: #555;")
        if self.drawer is not None and abs(self.drawer.zoom() - z) > 1e-9:
            self.drawer.set_zoom(z)
        for b in (self.zoom_out_button, self.zoom_in_button, self.prev_button, self.next_button,
                  self.edit_button, self.close_button, self.lang_button):
            b.setStyleSheet(f"font-size: {px(15)}px; padding: 2px 8px;")
        for x in self._extras:
            x.apply_fonts(z)
        self.heads.apply_fonts(z)

    def _fit_title(self) -> None:
        """The slide's title on one line where a slightly smaller font does it (down to
        TITLE_SHRINK of its size): "Attention weights (softmax)" on two lines at 1280 px took a
        line of height from the heads below it.  A title longer than that wraps as before."""
        full = getattr(self, "_title_full_px", None)
        if full is None:
            return
        others = sum(self.header.itemAt(i).sizeHint().width() for i in range(1, self.header.count()))
        margins = self.slide.layout().contentsMargins() if self.slide.layout() is not None else None
        side = margins.left() + margins.right() if margins is not None else 32
        room = self.slide.width() - side - others - self.header.spacing() * (self.header.count() - 1) - 4
        px = full
        font = QFont(self.title.font())
        font.setWeight(QFont.Weight.DemiBold)
        while px > max(MIN_TITLE_PX, int(full * TITLE_SHRINK)):
            font.setPixelSize(px)
            if room <= 0 or QFontMetricsF(font).horizontalAdvance(self.title.text()) <= room:
                break
            px -= 1
        font.setPixelSize(px)
        if QFontMetricsF(font).horizontalAdvance(self.title.text()) > room:
            px = full  # it wraps whatever: at its own size
        style = f"font-size: {px}px; font-weight: 600; color: #111;"
        if self.title.styleSheet() != style:
            self.title.setStyleSheet(style)


    def _update_banner(self) -> None:
        reason = self._stale_reason
        if reason is None:
            self.banner.hide()
            return
        lang = self._lang()
        text = pane_text.ui("stale", lang, reason=reason) if reason else pane_text.ui("stale_noreason", lang)
        self.banner.setText(text)
        self.banner.show()

    # ---- language ------------------------------------------------------------------------------------
    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        """Every text in the current language: buttons, the slide's texts and the panes."""
        self.setWindowTitle(self.tr("Presentation - Attention Explorer"))
        self.edit_button.setText(self.tr("Edit"))
        self.edit_button.setToolTip(self.tr("Show or hide the edit panel (E): parameters and inputs, "
                                            "recomputed live on the slide"))
        self.close_button.setText(self.tr("Leave"))
        # each language's own name, so that a person who reads only the other one finds it
        self.lang_button.setText("English" if self._lang() == "zh" else "中文")
        self.lang_button.setToolTip(self.tr("Show the slides, and the window, in the other language (L)"))
        self.close_button.setToolTip(self.tr("Leave presentation mode (Esc)"))
        self.zoom_in_button.setToolTip(self.tr("Larger (Ctrl +)"))
        self.zoom_out_button.setToolTip(self.tr("Smaller (Ctrl −)"))
        self.prev_button.setToolTip(self.tr("Previous step (Left, Page Up)"))
        self.next_button.setToolTip(self.tr("Next step (Right, Page Down, Space)"))
        self.empty.setText(self.tr("Nothing computed yet."))
        lang = self._lang()
        for pane in self._panes.values():
            pane.set_language(lang)
        sid = self.current_step()
        if self._trace is not None and sid is not None and sid in self._trace:
            self._write_texts(sid, self._data(sid))
        self._update_banner()
        self.heads.retranslate()
        self._extras_shown()


def _spec_key(spec: PaneSpec, width: float) -> tuple:
    """What makes two specs plan alike (the frame's measured sizes, the legible cell, the variant)."""
    f = spec.frame
    return (spec.name, spec.heads, spec.rows, spec.cols, round(f.fixed_w), round(f.head_w), round(f.head_h),
            round(f.band_gap), round(f.fixed_h(width)), spec.legible and tuple(round(v) for v in spec.legible),
            spec.variant)


def _reads_fully(plan: SlidePlan) -> bool:
    """Every pane's numbers legible at the slide's full precision (nothing could read better)."""
    fits = [p.fit for p in plan.panes.values()]
    return bool(fits) and all(f.full or f.spec.legible is None for f in fits) and not plan.dropped


def _inputs_large(plan: SlidePlan) -> bool:
    """The inputs drawn with cells of at least BARE_BELOW px: their axis names cost nothing worth saving."""
    fits = [p.fit for p in plan.panes.values() if p.fit.spec.variant is not None and p.fit.spec.variant[0] in
            ("named", "bare")]
    return bool(fits) and min(f.size_key() for f in fits) >= BARE_BELOW
