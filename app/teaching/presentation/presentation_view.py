"""Presentation mode: one step at a time, full screen, for a class in front of a projector.

Each slide shows a step's inputs (small panes, left), the operation as a formula and the step's
output (a large pane, right), and two or three sentences from app.viewmodel.lessons.  The panes are the
window's own (StepPane, via ZoomedPane); the numbers are the trace the window's Recomputer
delivered, so an edit (Ctrl+Z / Ctrl+Shift+Z here, or any edit made in the window) redraws the
slide live.  Keys are what presenter clickers send: Right / Page Down / Space forward,
Left / Page Up / Shift+Space back, Home / End, Esc leaves (the window keeps its state, and the
next F5 comes back to the same slide).  Ctrl + / Ctrl − / Ctrl 0 zoom; 1–9 show one head,
A all heads.  E (or the Edit button) opens the edit drawer beside the slide: the window's
Parameters and Inputs (app.teaching.presentation.edit_drawer), live; while the keyboard is in the drawer
the slide keys are off, and Esc gives them back to the slide.  A click on a cell of the result
writes its arithmetic on the slide (slide_explain; Esc closes it first); under the title, the map
of steps (slide_map).
"""
from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Optional

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
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

from app.panes import scale_lock
from app.panes.selectable_label import SelectableLabel
from app.panes.steps_view import HIDDEN_KEPT
from app.services import i18n
from app.teaching.presentation.edit_drawer import EditDrawer
from app.teaching.presentation.head_picker import HeadPicker
from app.teaching.presentation.slide_explain import SlideExplain
from app.teaching.presentation.slide_map import SlideMap
from app.teaching.presentation.zoomed_pane import SLIDE_DIGITS, ZoomedPane, pane_font_px
from app.viewmodel import lessons, pane_text
from app.viewmodel.nowrap import keep_together
from app.viewmodel.pane_data import PaneData, pane_data, tokens_of
from app.viewmodel.param_steps import parameter_pane_data

if TYPE_CHECKING:
    from app.features import FeatureHost
    from attention import Scenario, Trace

#: zoom steps (Ctrl + / Ctrl −); ZOOM_DEFAULT is where Ctrl+0 returns
ZOOMS: tuple[float, ...] = (0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.25, 1.4, 1.6, 1.8, 2.0, 2.5, 3.0)
ZOOM_DEFAULT = 1.25
#: the largest pane zoom, as a multiple of the slide's zoom: inputs, and the output that fills its area
INPUT_CAP, OUTPUT_CAP = 1.0, 2.0
#: several heads fill the output's width with cells up to this many times their designed width
WIDEN_MOST = 2.0
#: a title too long for its line may shrink to this share of its size (not under MIN_TITLE_PX) to keep one line
TITLE_SHRINK, MIN_TITLE_PX = 0.85, 24
#: the inputs column takes the width its panes need, at most this share of the slide
INPUTS_SHARE, INPUTS_SHARE_DRAWER = 0.45, 0.36
INPUTS_MIN = 200
BACKGROUND = "#f4f4f4"
BANNER_CSS = "background: #fff3cd; color: #5c4400; border: 1px solid #e0c060; padding: 4px 8px;"
#: the edit drawer's width: this share of the screen, within these bounds (px)
DRAWER_SHARE, DRAWER_MIN, DRAWER_MAX = 0.36, 380, 720
SLIDE_MIN = 400
#: the slide's title, formula and explanation shrink by this while the drawer is open
DRAWER_TEXT_RATIO = 0.8


def _pane_height(pane: ZoomedPane) -> int:
    """The height an input pane needs: its title wrapped at its width, the fixed-height canvas
    and the frame's margins (worked out directly: layouts answer late)."""
    margins = pane.layout().contentsMargins()
    inner = max(pane.width() - margins.left() - margins.right(), 100)
    title = pane.title.heightForWidth(inner) if pane.title.isVisibleTo(pane) else 0
    # the title shares its row with the Lock scale button, which holds the row up on its own where
    # the title is hidden (the output): counting only the title left the output's last line (the
    # "Numbers are printed only …" note) under the area's bottom edge, behind a scroll bar
    button = pane.scale_lock.button
    header = max(title, button.sizeHint().height() if button.isVisibleTo(pane) else 0)
    return header + pane.canvas.minimumHeight() + margins.top() + margins.bottom() + 2 * pane.layout().spacing()


def _pane_min_width(pane: ZoomedPane) -> int:
    """The narrowest a pane can be without cutting a head: one head's canvas and the frame's margins."""
    margins = pane.layout().contentsMargins()
    return pane.canvas.minimumWidth() + margins.left() + margins.right() + 2


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
        self._zoom = ZOOM_DEFAULT
        #: the zoom set on each scenario (by its file), and the one on screen: a zoom belongs to
        #: the scenario it was set on (160 % for the toy is not 160 % for eight heads of 28 rows)
        self._zooms: dict[Optional[str], float] = {}
        path = getattr(host.document, "path", None)
        self._zoom_key: Optional[str] = str(path) if path is not None else None
        self._focus = -1
        self._stale_reason: Optional[str] = None
        self._panes: dict[str, ZoomedPane] = {}  # this slide's and the HIDDEN_KEPT used last (_forget_unused)
        self._used_at: dict[str, int] = {}
        self._use_clock = itertools.count()
        self._shown_inputs: list[str] = []
        self._dirty = True  # the slide needs drawing when next shown
        self._failed_lines: Optional[list] = None  # the engine's problems while the slide is stale
        self.drawer: Optional[EditDrawer] = None  # built the first time it is opened
        self._slide_keys: list[QShortcut] = []  # off while the keyboard is in the drawer
        self._digits_pending = False  # a pane was resized: the shared precision is due again
        self._width_refits = 0  # the inputs column's width changes since the slide was drawn
        self._output_slack: Optional[int] = None  # px the output's area has beyond its narrowest legible width
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

        self.inputs_title = QLabel()
        self.inputs_box = QWidget()
        self.inputs_box.setObjectName("PresentationInputs")
        self.inputs_box.setStyleSheet(f"#PresentationInputs {{ background: {BACKGROUND}; }}")
        self.inputs_layout = QVBoxLayout(self.inputs_box)
        self.inputs_layout.setContentsMargins(0, 0, 0, 0)
        self.inputs_layout.setSpacing(8)
        self.inputs_layout.addStretch(1)
        self.inputs_scroll = self._scroll(self.inputs_box)
        inputs_col = QVBoxLayout()
        inputs_col.addWidget(self.inputs_title)
        inputs_col.addWidget(self.inputs_scroll, 1)
        self.inputs_column = QWidget()
        self.inputs_column.setLayout(inputs_col)
        inputs_col.setContentsMargins(0, 0, 0, 0)

        self.arrow = QLabel("→")
        self.arrow.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.output_box = QWidget()
        self.output_box.setObjectName("PresentationOutput")
        self.output_box.setStyleSheet(f"#PresentationOutput {{ background: {BACKGROUND}; }}")
        self.output_layout = QVBoxLayout(self.output_box)
        self.output_layout.setContentsMargins(0, 0, 0, 0)
        self.output_layout.addStretch(1)
        self.output_scroll = self._scroll(self.output_box)

        body = QHBoxLayout()
        body.addWidget(self.inputs_column, 2)
        body.addWidget(self.arrow, 0)
        body.addWidget(self.output_scroll, 3)
        self.body = body

        self.explanation = SelectableLabel()
        self.explanation.setWordWrap(True)
        self.explanation.setTextFormat(Qt.TextFormat.PlainText)
        self.explanation.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.explanation.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Maximum)
        self.explanation.setObjectName("Explanation")
        self.empty = QLabel()
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.hide()

        self.slide = QWidget()  # everything but the drawer; clicking it gives the keys back
        self.slide.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        # a floor of its own: the slide narrows for the drawer instead of pushing the
        # full-screen window past the screen's edge
        self.slide.setMinimumWidth(SLIDE_MIN)
        self.slide.installEventFilter(self)
        self.outer = QHBoxLayout(self)
        self.outer.setContentsMargins(0, 0, 0, 0)
        self.outer.setSpacing(0)
        self.outer.addWidget(self.slide, 1)
        lay = QVBoxLayout(self.slide)
        lay.setContentsMargins(16, 10, 16, 10)
        lay.setSpacing(6)
        lay.addLayout(header)
        lay.addWidget(self.formula)
        self.shape_row = QHBoxLayout()
        self.shape_row.setContentsMargins(0, 0, 0, 0)
        self.shape_row.addWidget(self.shape, 1)
        lay.addLayout(self.shape_row)
        lay.addWidget(self.banner)
        lay.addWidget(self.quiz_note)
        lay.addLayout(body, 1)
        lay.addWidget(self.empty, 1)
        lay.addWidget(self.explanation)

    def _scroll(self, inner: QWidget) -> QScrollArea:
        scroll = QScrollArea()
        scroll.setWidget(inner)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # arrows and Page keys turn slides, not scroll
        scroll.setStyleSheet(f"QScrollArea {{ background: {BACKGROUND}; }}")
        return scroll

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
        """Show full screen on the window's current trace, at the slide shown last time."""
        last = self._host.last_result()
        if last is not None and last.trace is not self._trace:
            self._set_trace(last.trace, last.scenario, last.batch)
        self.showFullScreen()
        self.slide.setFocus(Qt.FocusReason.OtherFocusReason)  # the presenter keys work at once
        self._sync_slide_keys()
        self.raise_()
        self.activateWindow()
        QTimer.singleShot(0, self, self.activateWindow)  # again once the F5 key event is done
        if self._dirty:
            self._render()

    def escape(self) -> None:
        """Esc: close what is open on the slide (a cell's explanation), else leave."""
        if not any(x.close() for x in self._extras):
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
        self._share_body()
        self._refit_soon()
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
        self._share_body()
        self._refit_soon()

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

    def _share_body(self) -> None:
        """Beside the drawer the output (the step being edited) gets the larger share."""
        inputs, output = (1, 2) if self.drawer_open() else (2, 3)
        self.body.setStretchFactor(self.inputs_column, inputs)
        self.body.setStretchFactor(self.output_scroll, output)

    def _refit_soon(self) -> None:
        QTimer.singleShot(0, self, self._fit_panes)  # once the layout has given the slide its width

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

    def set_focus_head(self, head: int) -> None:
        """Show head `head` alone in every per-head pane (-1: all heads side by side)."""
        n_heads = int(self._trace.options.get("n_heads", 1)) if self._trace is not None else 1
        head = head if 0 <= head < n_heads and n_heads > 1 else -1
        self._focus = head
        for pane in self._panes.values():
            pane.set_focus(head)
        self._show_head_picker()
        self.headFocused.emit(head)
        if self.isVisible() and self.current_step() is not None:
            self._width_refits = 0
            self._refit_soon()  # one head alone fills the area the heads shared

    def _show_head_picker(self) -> None:
        n_heads = int(self._trace.options.get("n_heads", 1)) if self._trace is not None else 1
        self.heads.show_heads(n_heads if self.current_step() is not None else 1, self._focus)

    # ---- what is on screen (tests, the screenshot script) -------------------------------------------
    def output_pane(self) -> Optional[ZoomedPane]:
        sid = self.current_step()
        return self._panes.get(sid) if sid is not None else None

    def input_panes(self) -> list[ZoomedPane]:
        return [self._panes[n] for n in self._shown_inputs]

    def explanation_text(self) -> str:
        return self.explanation.text()

    # ---- drawing -----------------------------------------------------------------------------------
    def _lang(self) -> str:
        return i18n.current_language()

    def _forget_unused(self, in_use: set[str]) -> None:
        """Keep the panes of this slide and the HIDDEN_KEPT used last; delete the rest (a pane is a few
        MB of widgets: a long class through every kind's slides kept one per step id, issue 29)."""
        idle = sorted(self._panes.keys() - in_use, key=lambda n: self._used_at.get(n, -1))
        for name in idle[:max(0, len(idle) - HIDDEN_KEPT)]:
            pane = self._panes.pop(name)
            self._used_at.pop(name, None)
            pane.setParent(None)
            pane.deleteLater()

    def _pane(self, name: str, zoom: float, header: bool) -> ZoomedPane:
        self._used_at[name] = next(self._use_clock)
        pane = self._panes.get(name)
        if pane is None:
            pane = ZoomedPane(name, zoom, show_header=header)
            pane.focusRequested.connect(self.set_focus_head)
            pane.installEventFilter(self)  # its cells' final size decides the slide's precision
            pane.lockRequested.connect(lambda on, n=name: self._host.view.lock_scale(n, on))
            self._panes[name] = pane
        pane.title.setVisible(header)
        pane.hover.setVisible(not header)  # hovering is for the output; inputs stay compact
        pane.wrapped, pane.per_row = False, None  # decided again by the fit (_fit_output, _fit_inputs) on every slide
        pane.fixed_per_row, pane.widen = None, 1.0  # the heads' rows, too (_fit_heads)
        pane.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
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
        """Draw the current slide: header texts, input panes, output pane, explanation."""
        self._width_refits = 0
        sid = self.current_step()
        has_slide = self._trace is not None and sid is not None
        self.empty.setVisible(not has_slide)
        for w in (self.inputs_column, self.arrow, self.output_scroll, self.formula, self.shape):
            w.setVisible(has_slide)
        self._clear_body()
        self._apply_fonts()
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
            pane = self._pane(name, self._zoom * INPUT_CAP, header=True)
            pane.set_stale(False)
            pane.show_data(data, lang, self._focus, scale_lock.slide_picture(self._host.view, name, data))
            self.inputs_layout.insertWidget(self.inputs_layout.count() - 1, pane)
            pane.show()
            self._shown_inputs.append(name)
        self.inputs_column.setVisible(bool(self._shown_inputs))
        self.arrow.setVisible(bool(self._shown_inputs))
        out = self._pane(sid, self._zoom, header=False)
        out.set_stale(False)
        data = self._data(sid)
        out.show_data(data, lang, self._focus, scale_lock.slide_picture(self._host.view, sid, data))
        self.output_layout.insertWidget(0, out)
        out.show()
        self._write_texts(sid, data)
        self._forget_unused({*self._shown_inputs, sid})
        self._show_head_picker()
        self._dirty = False
        self._extras_shown()
        self._fit_panes()
        QTimer.singleShot(0, self, self._fit_panes)  # again once the new texts are laid out
        self.rendered.emit()

    def redraw(self) -> None:
        """Draw the current slide again (a layout option was switched)."""
        self._render()

    def _extras_shown(self) -> None:
        for x in self._extras:
            x.slide_shown()

    def _fit_panes(self) -> None:
        """Size the panes to the slide: each as large as its area allows (up to a cap), never
        below the zoom at which its numbers are legible (the column or the output then scrolls
        instead), then one precision for all of them."""
        self._fit_title()
        self._fit_output()
        self._fit_inputs()
        self._share_digits()

    def _floor(self, pane: ZoomedPane) -> float:
        """The smallest zoom for `pane`: legible at the default zoom, scaled by the user's zoom."""
        return pane.legible_zoom() * self._zoom / ZOOM_DEFAULT

    @staticmethod
    def _largest_fitting(fits, low: float, high: float) -> float:
        """The largest zoom in [low, high] for which fits(zoom) holds, to 2 % (low when none)."""
        if high <= low or fits(high):
            return max(low, high)
        if not fits(low):
            return low
        while high - low > 0.02:
            mid = (low + high) / 2
            low, high = (mid, high) if fits(mid) else (low, mid)
        return low

    def _fit_output(self) -> None:
        """The output fills its area (the empty space under it is used), up to OUTPUT_CAP times
        the zoom, and never below its legible zoom."""
        out = self.output_pane()
        if out is None or not self.isVisible():
            return
        room_h = self.output_scroll.viewport().height()
        room_w = self.output_scroll.viewport().width()

        def fits(zoom: float) -> bool:
            out.set_zoom(zoom)
            hover = out.hover.minimumHeight() + out.layout().spacing() if out.hover.isVisibleTo(out) else 0
            # its width follows the area's (heads wrap), down to one head: a wide and short
            # matrix (1 query x 10 keys) must fit that one head into the width, never scroll sideways
            return _pane_height(out) + hover <= room_h and _pane_min_width(out) <= room_w

        if out.wraps_into_numbers():
            out.set_wrapped(True)  # 1 x 80 hidden features: 8 rows of 10, with their numbers
        out.set_squeeze(1.0)  # before the floor: legible at the cells' designed width
        out.set_heads_layout(None)
        low = self._floor(out)
        if self._fit_heads(out, low, room_w, room_h):
            self._output_slack = None
            return
        out.set_zoom(self._largest_fitting(fits, low, self._zoom * OUTPUT_CAP) if room_h > 0 else low)
        narrowest = self._squeeze_to(out, room_w)
        give = self.inputs_column.width() - INPUTS_MIN  # what the inputs column could give up
        if narrowest is not None and ((not out.wrapped and out.can_wrap() and narrowest > room_w + give)
                                      or (out.wrapped and narrowest > room_w)):
            # a long row (1 x 80) that no narrowing fits, even beside the narrowest inputs: in
            # rows; fewer a row while that does not fit either (rows are cheap, the inputs are not)
            if out.wrapped and not out.narrower_rows():
                self._output_slack = room_w - narrowest
                return
            out.set_wrapped(True)
            self._fit_output()
            return
        # a wide output at its narrowest legible width takes what it lacks from the inputs
        # column (_fit_inputs); the sum of the two is the body's, so this settles at once
        self._output_slack = None if narrowest is None else room_w - narrowest

    def _fit_heads(self, out: ZoomedPane, low: float, room_w: int, room_h: int) -> bool:
        """Several heads side by side: the rows of heads (1, 2, ... bands) at which the heads are
        drawn largest (the zoom; of two alike, the one with the larger tiles), their cells then
        widened (up to WIDEN_MOST times their designed width) until the heads fill the area's
        width.  False (nothing set) for one head, or when no arrangement fits at the legible zoom
        (the general fit then scrolls as little as it can)."""
        k = len(out.visible_heads())
        if k < 2 or out.data is None or not out.data.layout.per_head or room_h <= 0 or room_w <= 0:
            return False
        hover = lambda: out.hover.minimumHeight() + out.layout().spacing() if out.hover.isVisibleTo(out) else 0  # noqa: E731
        best: Optional[tuple[float, int, float, float]] = None  # (tile area, per row, zoom, widen)
        for per_row in sorted({-(-k // bands) for bands in range(1, k + 1)}, reverse=True):
            out.set_heads_layout(per_row)

            def fits(zoom: float) -> bool:
                out.set_zoom(zoom)
                return _pane_height(out) + hover() <= room_h and out.row_width() <= room_w

            if not fits(low):
                continue
            zoom = self._largest_fitting(fits, low, self._zoom * OUTPUT_CAP)
            out.set_zoom(zoom)
            spare = room_w - out.row_width()  # what the designed cells leave of the width
            cols = out.data.layout.cols.size
            h, cell_w = out._cell_size()
            widen = min(1.0 + spare / max(per_row * cols * cell_w, 1.0), WIDEN_MOST)
            area = h * cols * cell_w * widen
            # the largest zoom first (the heads as drawn, undistorted), then the largest tiles
            if best is None or zoom > best[2] * 1.02 or (zoom >= best[2] / 1.02 and area > best[0] + 1):
                best = (area, per_row, zoom, widen)
        if best is None:
            out.set_heads_layout(None)
            return False
        _, per_row, zoom, widen = best
        out.set_heads_layout(per_row)
        out.set_zoom(zoom)
        out.set_heads_layout(per_row, widen)
        while widen > 1.0 and out.row_width() > room_w:  # the estimate of the frame was a few px short
            widen = max(1.0, widen - 0.01)
            out.set_heads_layout(per_row, widen)
        return True

    def _squeeze_to(self, pane: ZoomedPane, room_w: int) -> Optional[int]:
        """Narrow the cells of a pane wider than `room_w` (one head) until it fits, never so far
        that its numbers are no longer legible (then the area scrolls as little as it can).
        Returns the narrowest legible width of the pane, None when it fit as it was."""
        if room_w <= 0 or _pane_min_width(pane) <= room_w:
            return None

        def narrow_enough(squeeze: float) -> bool:  # true from some squeeze downwards
            pane.set_squeeze(squeeze)
            return _pane_min_width(pane) <= room_w

        def legible(squeeze: float) -> bool:  # true from some squeeze upwards
            pane.set_squeeze(squeeze)
            return pane.numbers_legible()

        fit = self._largest_fitting(narrow_enough, 0.05, 1.0)
        low, high = 0.05, 1.0  # the narrowest legible cells
        if legible(low):
            high = low
        while high - low > 0.01:
            mid = (low + high) / 2
            low, high = (low, mid) if legible(mid) else (mid, high)
        pane.set_squeeze(high)
        narrowest = _pane_min_width(pane)
        pane.set_squeeze(max(fit, high))
        return narrowest

    def _squeeze_past_legible(self, pane: ZoomedPane, room_w: int, zoom: float) -> None:
        """A pane whose one head is wider than the column even at its narrowest legible cells
        (eight heads of 28 keys): the column's zoom rather than the pane's legible floor, and
        narrower cells whose numbers hide (the note under it says so), header included, rather
        than a column that scrolls sideways (issue 20: never a sideways scroll on a slide)."""
        pane.set_squeeze(1.0)
        pane.set_zoom(zoom)

        def narrow_enough(squeeze: float) -> bool:
            pane.set_squeeze(squeeze)
            return max(_pane_min_width(pane), pane.minimumSizeHint().width()) <= room_w

        pane.set_squeeze(self._largest_fitting(narrow_enough, 0.05, 1.0))

    def _fit_inputs(self) -> None:
        """The input panes as large as the column's height allows (up to INPUT_CAP times the zoom),
        each never below its legible zoom: when they do not all fit, the column scrolls."""
        panes = self.input_panes()
        if not panes or not self.isVisible():
            return
        room = self.inputs_scroll.viewport().height()
        spacing = self.inputs_layout.spacing() * (len(panes) - 1)
        for pane in panes:
            if pane.wraps_into_numbers():
                pane.set_wrapped(True)
            pane.set_squeeze(1.0)
        floors = [self._floor(p) for p in panes]

        bar = self.inputs_scroll.verticalScrollBar().sizeHint().width()
        share = int(self.slide.width() * (INPUTS_SHARE_DRAWER if self.drawer_open() else INPUTS_SHARE))
        if self._output_slack is not None:  # a wide output at its narrowest legible: the inputs give way
            share = max(INPUTS_MIN, min(share, self.inputs_column.width() + self._output_slack - 4))

        def fits(zoom: float) -> bool:
            for pane, floor in zip(panes, floors):
                pane.set_zoom(max(zoom, floor))
            return (sum(_pane_height(p) for p in panes) + spacing <= room
                    and max(_pane_min_width(p) for p in panes) + bar + 4 <= share)

        zoom = self._largest_fitting(fits, min(floors), self._zoom * INPUT_CAP) if room > 0 else min(floors)
        fits(zoom)
        room_w = share - bar - 4
        for pane in panes:
            narrowest = self._squeeze_to(pane, room_w)
            # a long row no narrowing fits into the column: in rows, fewer a row while needed
            while narrowest is not None and narrowest > room_w and (
                    (not pane.wrapped and pane.can_wrap() and (pane.set_wrapped(True) or True))
                    or pane.narrower_rows()):
                pane.set_squeeze(1.0)
                pane.set_zoom(max(zoom, self._floor(pane)))
                narrowest = self._squeeze_to(pane, room_w)
            # past legible only at the column's full share: where the output took the room for
            # its own legible numbers (a 1 x 10 row), the inputs keep theirs and scroll instead
            if narrowest is not None and narrowest > room_w and self._output_slack is None:
                self._squeeze_past_legible(pane, room_w, zoom)
        # the column as wide as its widest pane needs (up to INPUTS_SHARE of the body): what
        # the inputs leave goes to the output, whose heads then stay side by side
        need = max(p.sizeHint().width() for p in panes) + bar + 4
        width = max(min(need, share), INPUTS_MIN)
        # and at least one head of its widest pane (up to the same share): the body's stretch
        # gave the output room it did not use while an input scrolled sideways
        least = max(min(max(_pane_min_width(p) for p in panes) + bar + 4, width), INPUTS_MIN)
        # at most twice per slide or size: a width that depends on the fit it changes must not
        # send the slide round in circles
        if (self.inputs_column.maximumWidth(), self.inputs_column.minimumWidth()) != (width, least) \
                and self._width_refits < 2:
            self._width_refits += 1
            self.inputs_column.setMaximumWidth(width)
            self.inputs_column.setMinimumWidth(least)
            self._refit_soon()  # the output's area has changed

    def _share_digits_later(self) -> None:
        self._digits_pending = False
        self._share_digits(more=False)

    def _share_digits(self, more: bool = True) -> None:
        """One precision on the whole slide: the most digits that every pane's cells hold at a
        legible size (0.7071 in the output beside 0.71 in an input read as two different values)."""
        panes = [p for p in [self.output_pane(), *self.input_panes()] if p is not None]
        before = min((p.max_digits for p in panes), default=SLIDE_DIGITS)
        for pane in panes:
            pane.set_max_digits(SLIDE_DIGITS)  # the show's one precision, unless a pane cannot hold it
        chosen = [c for c in (p.designed_choice() for p in panes) if c is not None]
        digits = min((d for _, d in chosen), default=SLIDE_DIGITS)
        if not more:  # after a resize (a zoom): never more digits, which would draw them smaller
            digits = min(digits, before)
        for pane in panes:
            pane.set_max_digits(digits)

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        if self.drawer is not None:
            self.drawer.setFixedWidth(self._drawer_width())
        self._width_refits = 0
        self._fit_panes()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if watched is self.slide and event.type() == QEvent.Type.Resize:
            self._fit_panes()  # the drawer opened or closed: the slide's room changed
        elif isinstance(watched, ZoomedPane) and event.type() == QEvent.Type.Resize and not self._digits_pending:
            self._digits_pending = True  # once for all the panes the layout resizes together
            QTimer.singleShot(0, self, self._share_digits_later)
        return super().eventFilter(watched, event)

    def _clear_body(self) -> None:
        for layout in (self.inputs_layout, self.output_layout):
            for i in reversed(range(layout.count())):
                item = layout.itemAt(i)
                if item.widget() is not None:
                    layout.takeAt(i)
                    item.widget().hide()
        self._shown_inputs = []

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
        """Every pane `ratio` times its size: zooming in only ever makes things bigger (the
        panes are not fitted to the area again, which the larger texts have made smaller; the
        areas scroll instead)."""
        self._apply_fonts()
        for pane in [self.output_pane(), *self.input_panes()]:
            if pane is not None:
                # the heads' rows chosen for the old size no longer hold: they wrap by the width
                # again (the cells keep their widening: never narrower than before)
                pane.set_heads_layout(None, pane.widen)
                pane.set_zoom(pane.zoom * ratio)  # the same precision: the same digits, larger

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
        self.zoom_label.setText(f"{round(z * 100)}%")
        self.formula.setStyleSheet(f"font-size: {tx(22)}px; color: #1a1a1a; font-family: 'DejaVu Sans Mono', "
                                   f"'Noto Sans Mono CJK SC', monospace; background: white; "
                                   f"border: 1px solid #d0d0d0; border-radius: 4px; padding: 6px 10px;")
        self.shape.setStyleSheet(f"font-size: {px(15)}px; color: #555;")
        self.inputs_title.setStyleSheet(f"font-size: {px(16)}px; font-weight: 600; color: #444;")
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
        self.inputs_title.setText(self.tr("Inputs"))
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
