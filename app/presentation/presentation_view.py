"""Presentation mode: one step at a time, full screen, for a class in front of a projector.

Each slide shows a step's inputs (small panes, left), the operation as a formula and the step's
output (a large pane, right), and two or three sentences from app.lessons.  The panes are the
window's own (StepPane, via ZoomedPane); the numbers are the trace the window's Recomputer
delivered, so an edit (Ctrl+Z / Ctrl+Shift+Z here, or any edit made in the window) redraws the
slide live.  Keys are what presenter clickers send: Right / Page Down / Space forward,
Left / Page Up / Shift+Space back, Home / End, Esc leaves (the window keeps its state, and the
next F5 comes back to the same slide).  Ctrl + / Ctrl − / Ctrl 0 zoom; 1–9 show one head,
A all heads; E goes back to the window to edit.
"""
from __future__ import annotations

import html
from typing import TYPE_CHECKING, Optional

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (QFrame, QHBoxLayout, QLabel, QPushButton, QScrollArea, QSizePolicy,
                               QVBoxLayout, QWidget)

from app import i18n, lessons
from app.panes import pane_text
from app.panes.pane_data import PaneData, pane_data, tokens_of
from app.presentation.param_steps import parameter_pane_data
from app.presentation.zoomed_pane import ZoomedPane, pane_font_px

if TYPE_CHECKING:
    from attention import Scenario, Trace

#: zoom steps (Ctrl + / Ctrl −); ZOOM_DEFAULT is where Ctrl+0 returns
ZOOMS: tuple[float, ...] = (0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.25, 1.4, 1.6, 1.8, 2.0, 2.5, 3.0)
ZOOM_DEFAULT = 1.25
#: input panes are drawn this much smaller than the output
INPUT_RATIO = 0.8
MIN_INPUT_ZOOM = 0.5
BACKGROUND = "#f4f4f4"
BANNER_CSS = "background: #fff3cd; color: #5c4400; border: 1px solid #e0c060; padding: 4px 8px;"


def _pane_height(pane: ZoomedPane) -> int:
    """The height an input pane needs: its title wrapped at its width, the fixed-height canvas
    and the frame's margins (worked out directly: layouts answer late)."""
    margins = pane.layout().contentsMargins()
    inner = max(pane.width() - margins.left() - margins.right(), 100)
    title = pane.title.heightForWidth(inner) if pane.title.isVisibleTo(pane) else 0
    return title + pane.canvas.minimumHeight() + margins.top() + margins.bottom() + 2 * pane.layout().spacing()


class PresentationView(QWidget):
    """The full-screen slide show of one window's current trace."""

    left = Signal()  # presentation mode was left (Esc, the close button, E)

    def __init__(self, window, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent if parent is not None else window, Qt.WindowType.Window)
        self.setObjectName("Presentation")
        self._window = window
        self._trace: Optional["Trace"] = None
        self._scenario: Optional["Scenario"] = None
        self._batch = 0
        self._ids: list[str] = []
        self._index = 0
        self._zoom = ZOOM_DEFAULT
        self._focus = -1
        self._stale_reason: Optional[str] = None
        self._panes: dict[str, ZoomedPane] = {}
        self._shown_inputs: list[str] = []
        self._dirty = True  # the slide needs drawing when next shown
        self._build()
        self._build_keys()
        self.retranslate()

    # ---- construction ------------------------------------------------------------------------
    def _build(self) -> None:
        self.setStyleSheet(f"#Presentation {{ background: {BACKGROUND}; }}")
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.counter = QLabel()
        self.counter.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.zoom_out_button = QPushButton("−")
        self.zoom_label = QLabel()
        self.zoom_in_button = QPushButton("+")
        self.prev_button = QPushButton("◀")
        self.next_button = QPushButton("▶")
        self.edit_button = QPushButton()
        self.close_button = QPushButton()
        for b in (self.zoom_out_button, self.zoom_in_button, self.prev_button, self.next_button,
                  self.edit_button, self.close_button):
            b.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the keys belong to the slide show
        self.zoom_out_button.clicked.connect(self.zoom_out)
        self.zoom_in_button.clicked.connect(self.zoom_in)
        self.prev_button.clicked.connect(self.previous)
        self.next_button.clicked.connect(self.next)
        self.edit_button.clicked.connect(self.edit_in_window)
        self.close_button.clicked.connect(self.leave)

        header = QHBoxLayout()
        header.addWidget(self.title, 1)
        for w in (self.zoom_out_button, self.zoom_label, self.zoom_in_button):
            header.addWidget(w)
        header.addSpacing(12)
        for w in (self.prev_button, self.counter, self.next_button):
            header.addWidget(w)
        header.addSpacing(12)
        header.addWidget(self.edit_button)
        header.addWidget(self.close_button)

        self.formula = QLabel()
        self.formula.setWordWrap(True)
        self.formula.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.shape = QLabel()
        self.banner = QLabel()
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet(BANNER_CSS)
        self.banner.hide()

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

        self.explanation = QLabel()
        self.explanation.setWordWrap(True)
        self.explanation.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.explanation.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Maximum)
        self.explanation.setObjectName("Explanation")
        self.empty = QLabel()
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.hide()

        lay = QVBoxLayout(self)
        lay.setContentsMargins(16, 10, 16, 10)
        lay.setSpacing(6)
        lay.addLayout(header)
        lay.addWidget(self.formula)
        lay.addWidget(self.shape)
        lay.addWidget(self.banner)
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
        def keys(sequences, slot) -> None:
            for seq in sequences:
                sc = QShortcut(QKeySequence(seq), self)
                sc.setContext(Qt.ShortcutContext.WindowShortcut)
                sc.activated.connect(slot)

        keys(["Right", "PgDown", "Space", "Down", "Return"], self.next)
        keys(["Left", "PgUp", "Shift+Space", "Up", "Backspace"], self.previous)
        keys(["Home"], self.first)
        keys(["End"], self.last)
        keys(["Esc", "F5"], self.leave)
        keys(["Ctrl+=", "Ctrl++", "Ctrl+Shift+="], self.zoom_in)
        keys(["Ctrl+-"], self.zoom_out)
        keys(["Ctrl+0"], self.zoom_reset)
        keys(["E"], self.edit_in_window)
        keys(["A"], lambda: self.set_focus_head(-1))
        for n in range(1, 10):
            keys([str(n)], lambda h=n - 1: self.set_focus_head(h))
        for action in (self._window.undo_action, self._window.redo_action):
            self.addAction(action)  # Ctrl+Z / Ctrl+Shift+Z undo and redo here too: edits stay live

    # ---- entering and leaving --------------------------------------------------------------------
    def enter(self) -> None:
        """Show full screen on the window's current trace, at the slide shown last time."""
        w = self._window
        if w.last_trace is not None and w.last_trace is not self._trace:
            self._set_trace(w.last_trace, w.last_scenario, self._window_batch(w.last_scenario))
        self.showFullScreen()
        self.raise_()
        self.activateWindow()
        QTimer.singleShot(0, self, self.activateWindow)  # again once the F5 key event is done
        if self._dirty:
            self._render()

    def leave(self) -> None:
        if self.isVisible():
            self.hide()
            self._window.activateWindow()
            self.left.emit()

    def edit_in_window(self) -> None:
        """Back to the window to edit (F5 returns to this slide, with the new numbers)."""
        self.leave()

    # ---- engine results ------------------------------------------------------------------------
    def show_trace(self, trace: "Trace", scenario: "Scenario", seconds: float = 0.0) -> None:
        """A new result from the window's Recomputer: redraw the slide (or when next shown)."""
        self._set_trace(trace, scenario, self._window_batch(scenario))
        self._stale_reason = None
        self._update_banner()
        if self.isVisible():
            self._render()

    def show_failed(self, lines: list, scenario: "Scenario") -> None:
        reason = str(lines[0]).rstrip(".") if lines else ""
        self._stale_reason = reason
        self._update_banner()
        for pane in self._panes.values():
            pane.set_stale(True)

    def show_batch(self, batch: int) -> None:
        if self._trace is not None and 0 <= batch < int(self._trace.options.get("batch", 1)):
            self._batch = batch
            self._dirty = True
            if self.isVisible():
                self._render()

    def _window_batch(self, scenario) -> int:
        try:
            return max(0, min(int(self._window.inputs.current_batch()), int(scenario.batch) - 1))
        except (AttributeError, TypeError, ValueError):
            return 0

    def _set_trace(self, trace: "Trace", scenario: "Scenario", batch: int) -> None:
        current = self.current_step()
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
            self._zoom = zoom
            self._apply_zoom()

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

    def _pane(self, name: str, zoom: float, header: bool) -> ZoomedPane:
        pane = self._panes.get(name)
        if pane is None:
            pane = ZoomedPane(name, zoom, show_header=header)
            pane.focusRequested.connect(self.set_focus_head)
            self._panes[name] = pane
        pane.title.setVisible(header)
        pane.hover.setVisible(not header)  # hovering is for the output; inputs stay compact
        pane.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        pane.set_zoom(zoom)
        pane.set_focus(self._focus)
        return pane

    def _data(self, name: str) -> Optional[PaneData]:
        qt, kt = tokens_of(self._scenario)
        if name in self._trace:
            return pane_data(self._trace, name, self._batch, qt, kt)
        return parameter_pane_data(self._trace, name, self._batch, qt, kt)

    def _render(self) -> None:
        """Draw the current slide: header texts, input panes, output pane, explanation."""
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
            return
        lang = self._lang()
        for name in lessons.inputs_of(sid, self._trace):
            data = self._data(name)
            if data is None:
                continue
            pane = self._pane(name, self._zoom * INPUT_RATIO, header=True)
            pane.set_stale(False)
            pane.show_data(data, lang, self._focus)
            self.inputs_layout.insertWidget(self.inputs_layout.count() - 1, pane)
            pane.show()
            self._shown_inputs.append(name)
        self.inputs_column.setVisible(bool(self._shown_inputs))
        self.arrow.setVisible(bool(self._shown_inputs))
        out = self._pane(sid, self._zoom, header=False)
        out.set_stale(False)
        data = self._data(sid)
        out.show_data(data, lang, self._focus)
        self.output_layout.insertWidget(0, out)
        out.show()
        self._write_texts(sid, data)
        self._dirty = False
        self._fit_inputs()
        QTimer.singleShot(0, self, self._fit_inputs)  # again once the new texts are laid out

    def _fit_inputs(self) -> None:
        """Shrink the input panes (never below MIN_INPUT_ZOOM) until they fit the column's
        height, so that a slide's inputs are seen together without scrolling."""
        panes = self.input_panes()
        if not panes or not self.isVisible():
            return
        room = self.inputs_scroll.viewport().height()
        spacing = self.inputs_layout.spacing() * (len(panes) - 1)

        def fits(zoom: float) -> bool:
            for pane in panes:
                pane.set_zoom(zoom)
            return sum(_pane_height(p) for p in panes) + spacing <= room

        target = self._zoom * INPUT_RATIO
        if room <= 0 or fits(target):
            return
        low, high = MIN_INPUT_ZOOM, target  # the largest zoom that fits, to 2 %
        while high - low > 0.02:
            mid = (low + high) / 2
            low, high = (mid, high) if fits(mid) else (low, mid)
        fits(low)

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        self._fit_inputs()

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
        self.title.setText(html.escape(step.title[lang]))
        self.formula.setText(html.escape(step.formula[lang]))
        self.shape.setText(data.shape_text(lang))
        self.explanation.setText(lessons.explanation(sid, self._trace.options))
        self.counter.setText(f"{self._index + 1} / {len(self._ids)}")
        self.prev_button.setEnabled(self._index > 0)
        self.next_button.setEnabled(self._index < len(self._ids) - 1)

    def _apply_zoom(self) -> None:
        self._apply_fonts()
        out = self.output_pane()
        if out is not None:
            out.set_zoom(self._zoom)
        self._fit_inputs()
        QTimer.singleShot(0, self, self._fit_inputs)  # again once the bigger texts are laid out

    def _apply_fonts(self) -> None:
        z = self._zoom
        px = lambda base: pane_font_px(base, z)  # noqa: E731
        self.title.setStyleSheet(f"font-size: {px(30)}px; font-weight: 600; color: #111;")
        self.counter.setStyleSheet(f"font-size: {px(22)}px; color: #333; padding: 0 6px;")
        self.zoom_label.setStyleSheet(f"font-size: {px(14)}px; color: #555;")
        self.zoom_label.setText(f"{round(z * 100)}%")
        self.formula.setStyleSheet(f"font-size: {px(22)}px; color: #1a1a1a; font-family: 'DejaVu Sans Mono', "
                                   f"'Noto Sans Mono CJK SC', monospace; background: white; "
                                   f"border: 1px solid #d0d0d0; border-radius: 4px; padding: 6px 10px;")
        self.shape.setStyleSheet(f"font-size: {px(15)}px; color: #555;")
        self.inputs_title.setStyleSheet(f"font-size: {px(16)}px; font-weight: 600; color: #444;")
        self.arrow.setStyleSheet(f"font-size: {px(40)}px; color: #888; padding: 0 4px;")
        self.explanation.setStyleSheet(f"#Explanation {{ font-size: {px(20)}px; color: #111; background: #fbfbf3; "
                                       f"border: 1px solid #ddd; border-radius: 4px; padding: 8px 12px; }}")
        self.banner.setStyleSheet(BANNER_CSS + f" font-size: {px(15)}px;")
        self.empty.setStyleSheet(f"font-size: {px(22)}px; color: #555;")
        for b in (self.zoom_out_button, self.zoom_in_button, self.prev_button, self.next_button,
                  self.edit_button, self.close_button):
            b.setStyleSheet(f"font-size: {px(15)}px; padding: 2px 8px;")

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
        self.edit_button.setToolTip(self.tr("Back to the window to edit (E); F5 returns to this step"))
        self.close_button.setText(self.tr("Leave"))
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
