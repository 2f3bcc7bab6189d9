"""Explain on the slide: click a cell of the slide's result and its arithmetic is written out, large,
in place of the slide's sentences, while the cells it came from are outlined on the input panes
beside it (the q row and k column of a score, the weights row and V column of a weighted sum...),
as llm-viz does.

The arithmetic is the explain engine's (attention.teaching.explain.explain: what the window's Explain
panel prints), laid out for a projector by app.viewmodel.slide_explain; nothing is computed here.
Esc closes it (then the next Esc leaves the slides), another cell replaces it, the same cell again
closes it; it follows edits and closes when the slide changes.  A cell the quiz hides, or whose
terms read a hidden step, gets the formula and a word of why, never the numbers.
"""
from __future__ import annotations

import html
from typing import TYPE_CHECKING, Optional

import shiboken6
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QFont, QFontMetricsF
from PySide6.QtWidgets import QFrame, QSizePolicy, QVBoxLayout

from app.panes.selectable_label import SelectableLabel
from app.services import i18n
from app.teaching.explain_panel import CELL_COLOUR, SOURCE_COLOUR
from app.teaching.presentation.zoomed_pane import pane_font_px
from app.viewmodel import slide_explain
from app.viewmodel.pane_data import cell_index
from attention import words

if TYPE_CHECKING:
    from app.teaching.presentation.slide_host import SlideHost

CELL_LAYER, SOURCE_LAYER = "slide_explain_cell", "slide_explain_source"
#: the smallest text on the box at any zoom: readable from the back row at 1280 x 720
MIN_TEXT_PX = 18
#: the box's text at zoom 1 (18 px at the slides' default 125 %; the first and last lines 2 px larger)
TEXT_PX = 14.5
MONO = "DejaVu Sans Mono, Noto Sans Mono CJK SC, monospace"  # no quotes: it goes inside a style='...'
BOX_CSS = "#SlideExplain {{ background: #f3f7ff; border: 2px solid {border}; border-radius: 6px; }}"
#: the outlined input cells are scrolled into sight this long after a click (the panes refit first)
SCROLL_DELAY_MS = 60
SCROLL_MARGIN = 24
#: rows of terms at most (more terms: "… n more" and the last one)
MAX_TERM_ROWS = 4


class SlideExplain:
    """The explanation box of one PresentationView; `quiz` (app.teaching.quiz.Quiz) is set by the window."""

    def __init__(self, view: "SlideHost") -> None:
        self.view = view
        self.quiz = None
        self.selection: Optional[tuple[str, tuple[int, ...]]] = None
        self.lines: Optional[slide_explain.SlideLines] = None  # what the box shows now
        self._panes: set = set()  # panes whose clicks come here
        self._marked: set = set()  # panes holding this box's outlines
        self._px = MIN_TEXT_PX
        self._cols = 1  # terms side by side
        self.box = QFrame(view.canvas_box)  # placed by the slide's plan in the lesson's place
        self.box.setObjectName("SlideExplain")
        self.box.setStyleSheet(BOX_CSS.format(border=SOURCE_COLOUR.name()))
        self.label = SelectableLabel()
        self.label.setParent(self.box)
        self.label.setObjectName("SlideExplainText")
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Maximum)
        lay = QVBoxLayout(self.box)
        lay.setContentsMargins(12, 8, 12, 8)
        lay.addWidget(self.label)
        self.box.hide()
        self.apply_fonts(view.zoom())

    # ---- public ------------------------------------------------------------------------------
    def is_open(self) -> bool:
        return self.selection is not None

    def select(self, step_id: str, index: tuple[int, ...]) -> None:
        """Explain cell `index` (full index) of the slide's step `step_id`."""
        self.selection = (step_id, tuple(int(i) for i in index))
        self.refresh()

    def close(self) -> bool:
        """Close the box; True when it was open (Esc then stays on the slides)."""
        if self.selection is None:
            return False
        self.selection = None
        self.refresh()
        return True

    def text(self) -> str:
        """What the box says, as plain text ("" when closed)."""
        return self.lines.plain() if self.lines is not None and self.is_open() else ""

    # ---- called by the presentation view -----------------------------------------------------
    def slide_shown(self) -> None:
        """A slide was drawn (another step, a new trace, the language): follow it."""
        self._panes = {p for p in self._panes if shiboken6.isValid(p)}  # the view deletes panes unused a while
        for pane in [self.view.output_pane(), *self.view.input_panes()]:
            if pane is not None and pane not in self._panes:
                self._panes.add(pane)
                pane.cellClicked.connect(lambda m, r, c, dbl, p=pane: self._on_cell(p, m, r, c, dbl))
        out = self.view.output_pane()
        if out is not None:
            out.canvas.setToolTip(words.text("slide_explain.hint", i18n.current_language()))
        if self.selection is not None and self.selection[0] != self.view.current_step():
            self.selection = None
        self.refresh()
        if self.is_open():
            QTimer.singleShot(0, self.view, self._follow_layout)

    def _follow_layout(self) -> None:
        """A layout option drawn over the slide (the by-hand sheet) hid its result: nothing to
        point at, so the box goes (and the option keeps the slide's sentences as it left them)."""
        if self.is_open() and self.view.body_scroll.isHidden():
            self.selection, self.lines = None, None
            self._mark(None)
            self.box.hide()

    def apply_fonts(self, zoom: float) -> None:
        px = max(MIN_TEXT_PX, pane_font_px(TEXT_PX, zoom))
        if px != self._px:
            self._px = px
            if self.selection is not None and self.selection[0] == self.view.current_step():
                self.refresh()

    # ---- internals ---------------------------------------------------------------------------
    def _on_cell(self, pane, m: int, r: int, c: int, double: bool) -> None:
        if pane is not self.view.output_pane() or pane.data is None:
            return  # the inputs are drawn to be pointed at; their own slides explain them
        index = cell_index(pane.data.step, pane.data.batch, m, r, c)
        if self.selection == (pane.step_id, index):
            if not double:
                self.close()
            return
        self.select(pane.step_id, index)

    def _explain(self):
        """(Explanation, None) or (None, words of why not)."""
        from attention.teaching.explain import ExplainError, explain  # at the first click, not on the start-up path

        lang = i18n.current_language()
        trace = self.view.trace()
        sid, index = self.selection
        if trace is None or sid not in trace or sid != self.view.current_step():
            return None, None
        shape = trace[sid].shape
        if len(index) != len(shape) or not all(0 <= i < n for i, n in zip(index, shape)):
            return None, None  # a new trace without that cell (fewer queries...): nothing to explain
        if not trace.parameters:  # the start-up trace read back from disk, before torch has loaded
            return None, words.text("slide_explain.starting", lang)
        try:
            return explain(trace, sid, index), None
        except ExplainError as e:
            return None, words.text("slide_explain.cannot", lang, reason=str(e))

    def refresh(self) -> None:
        """Show the selection's explanation for the slide's trace now (or close the box)."""
        expl, error = (None, None) if self.selection is None else self._explain()
        if expl is None and error is None:
            self.selection = None
        if self.selection is None:
            self.lines = None
            self._mark(None)
            was_open = not self.box.isHidden()
            self.box.hide()
            # the slide's sentences in the box's place (not while a by-hand sheet replaces the slide)
            sentences = not self.view.body_scroll.isHidden()
            if self.view.explanation.isHidden() == sentences:
                self.view.explanation.setVisible(sentences)
            if was_open:  # the panes refit to the room the box gave back
                self._refit()
            return
        lang = i18n.current_language()
        if expl is None:
            self.lines = slide_explain.SlideLines("", "", (), "", "", error)
            self._mark(None)
        else:
            sid, index = self.selection
            quiz = self._quiz()
            hidden = slide_explain.hidden_reason(self._hides, quiz is not None and quiz.is_hidden(sid, index),
                                                 expl.sources)
            self._cols = self._columns(expl, lang)
            self.lines = slide_explain.slide_lines(expl, lang, hidden, max_terms=self._cols * MAX_TERM_ROWS)
            self._mark(expl)
        self.label.setText(self._html(self.lines, lang))
        self.view.explanation.hide()
        self.box.show()
        self._refit()

    def _quiz(self):
        """The window's quiz: set by the window, or the one its feature host carries."""
        return self.quiz if self.quiz is not None else getattr(self.view.host(), "quiz", None)

    def _hides(self, step_id: str) -> bool:
        """Whether the quiz hides numbers of `step_id` (its step, or one repeating it where it says so)."""
        quiz = self._quiz()
        if quiz is None:
            return False
        hides_step = getattr(quiz, "hides_step", None)
        return hides_step(step_id) if hides_step is not None else step_id == quiz.step_id

    def _columns(self, expl, lang: str) -> int:
        """How many terms fit side by side in the box at its font."""
        font = QFont()
        font.setFamilies(["DejaVu Sans Mono", "Noto Sans Mono CJK SC", "monospace"])
        font.setPixelSize(self._px)
        fm = QFontMetricsF(font)
        widest = max((fm.horizontalAdvance(t.text[lang]) for t in expl.terms), default=1.0) + 3 * self._px
        room = max(self.view.slide.width() - 80, 200)
        return max(1, min(4, int(room // widest)))

    def _html(self, lines: slide_explain.SlideLines, lang: str) -> str:
        px, e = self._px, html.escape
        mono = f"font-family: {MONO};"
        parts = []
        hint = e(words.text('slide_explain.close_hint', lang))
        parts.append(f"<table width='100%' cellspacing='0'><tr><td style='font-size: {px + 2}px; font-weight: 600;"
                     f" {mono}'>{e(lines.header)}</td><td align='right' style='font-size: {MIN_TEXT_PX}px;"
                     f" color: #666;'>{hint}</td></tr></table>")
        if lines.formula:
            parts.append(f"<div style='font-size: {px}px; color: #333; {mono}'>{e(lines.formula)}</div>")
        if lines.terms:
            n = len(lines.terms)
            rows_needed = -(-n // self._cols)
            cols = -(-n // rows_needed)  # balanced: 4 terms in 2 x 2 rather than 3 + 1
            rows = [lines.terms[i:i + cols] for i in range(0, len(lines.terms), cols)]
            gap = "&nbsp;" * 4
            cells = "".join("<tr>" + "".join(f"<td>{e(t)}{gap}</td>" for t in row) + "</tr>" for row in rows)
            parts.append(f"<table style='font-size: {px}px; {mono}' cellspacing='0'>{cells}</table>")
        if lines.combine:
            parts.append(f"<div style='font-size: {px + 2}px; font-weight: 600; color: #0d3c8c; {mono}'>"
                         f"{e(lines.combine)}</div>")
        if lines.summary:
            parts.append(f"<div style='font-size: {px}px; color: #222;'>{e(lines.summary)}</div>")
        if lines.note:
            parts.append(f"<div style='font-size: {px}px; color: #8a5a00;'>{e(lines.note)}</div>")
        return "".join(parts)

    def _mark(self, expl) -> None:
        """Outline the explained cell on the result and its sources on the input panes."""
        for pane in self._marked:
            pane.set_marks(CELL_LAYER, {})
            pane.set_marks(SOURCE_LAYER, {})
        self._marked = set()
        if expl is None:
            return
        out = self.view.output_pane()
        inputs = {p.step_id: p for p in self.view.input_panes() if p.data is not None}
        if out is not None and out.data is not None and out.step_id == expl.step_id:
            from app.viewmodel.pane_data import cell_position

            _, m, r, c = cell_position(out.data.step, expl.index)
            out.set_marks(CELL_LAYER, {(m, r, c): CELL_COLOUR})
            self._marked.add(out)
            batch = out.data.batch
        else:
            batch = 0
        cells = slide_explain.source_cells(expl.sources, {n: p.data.step for n, p in inputs.items()}, batch)
        for name, marks in cells.items():
            inputs[name].set_marks(SOURCE_LAYER, {cell: SOURCE_COLOUR for cell in marks})
            self._marked.add(inputs[name])
        if cells:  # once the slide has refitted its panes around the box
            QTimer.singleShot(SCROLL_DELAY_MS, self.view, self.show_marked_inputs)

    def marked_input_points(self) -> list:
        """Centres of the outlined input cells in the slide canvas's coordinates (heads on screen)."""
        box = self.view.canvas_box
        points = []
        for pane in self.view.input_panes():
            heads = set(pane.visible_heads())
            for m, r, c in sorted(pane.marks(SOURCE_LAYER)):
                if m in heads and m < len(pane.heatmaps):
                    at = pane.canvas.mapFromScene(pane.cell_scene_pos(m, r, c))
                    points.append(pane.canvas.viewport().mapTo(box, at))
        return points

    def show_marked_inputs(self) -> None:
        """Scroll the canvas so that the outlined cells are in sight (all of them when they fit,
        else the first ones): at 100 % they are, zoomed in the canvas scrolls."""
        points = self.marked_input_points() if self.is_open() else []
        if not points:
            return
        scroll = self.view.body_scroll
        room = scroll.viewport().height()
        top, bottom = min(p.y() for p in points), max(p.y() for p in points)
        bottom = min(bottom, top + max(room - 2 * SCROLL_MARGIN, 0))
        scroll.ensureVisible(points[0].x(), (top + bottom) // 2, 0, (bottom - top) // 2 + SCROLL_MARGIN)

    def marks_on(self, name: str) -> set[tuple[int, int, int]]:
        """The cells outlined on the slide's pane `name` (tests): the result's cell or the sources."""
        panes = {p.step_id: p for p in self.view.input_panes()}
        out = self.view.output_pane()
        if out is not None:
            panes[out.step_id] = out
        pane = panes.get(name)
        if pane is None:
            return set()
        return set(pane.marks(CELL_LAYER)) | set(pane.marks(SOURCE_LAYER))

    def _refit(self) -> None:
        QTimer.singleShot(0, self.view, self.view.refit_soon)  # the box took or gave the lesson's room
