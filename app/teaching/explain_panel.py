"""The "Explain" panel: click a cell of any step and read how that exact number was computed.

It shows what `attention.teaching.explain.explain(trace, step id, index)` returns (formula, terms with
the trace's numbers, result) in the current language, and outlines the cell and the cells it
came from in their own panes.  It computes nothing itself.  For a cell of a step the quiz hides,
it shows an answer box instead of the explanation until the student asks to be shown how.

Click another cell to move it; the same cell again, or Esc, clears it.  A new trace (an edit)
explains the same index again, or clears it when that index no longer exists.
"""
from __future__ import annotations

import html
from typing import Optional

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtGui import QColor, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QDockWidget,
    QDoubleSpinBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMainWindow,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.panes.steps_view import StepsView
from app.services import i18n
from app.viewmodel.pane_data import cell_index, cell_position

CELL_COLOUR = QColor(20, 90, 200)  # the cell explained
SOURCE_COLOUR = QColor(200, 30, 130)  # the cells it came from
CELL_LAYER, SOURCE_LAYER = "explain_cell", "explain_source"
TEXT_CSS = "font-size: 14px; font-family: 'DejaVu Sans Mono', 'Noto Sans Mono CJK SC', monospace;"
PREFERRED_WIDTH, MIN_WIDTH = 440, 250  # px; a narrow panel wraps its term lines
WINDOW_SHARE = 0.22  # the most of the window's width the panel asks for when it opens
VERDICT_CSS = {True: "color: #1b5e20; font-weight: 600;", False: "color: #b71c1c; font-weight: 600;",
               None: "color: #8a5a00;"}


class ExplainPanel(QDockWidget):
    """A dock on the right; `select(step_id, index)` explains one cell, `clear()` forgets it."""

    selectionChanged = Signal()

    def __init__(self, view: StepsView, quiz=None, parent: Optional[QWidget] = None, inputs=None) -> None:
        super().__init__(parent)
        self.setObjectName("ExplainPanel")
        self.view = view
        self.quiz = quiz
        self.inputs = inputs  # the InputsPanel: input cells a number came from are selected there
        self.selection: Optional[tuple[str, tuple[int, ...]]] = None
        self._blank: Optional[str] = None  # the language the "nothing selected" text was last shown in
        self.explanation = None  # the last Explanation shown (None: none)
        self.on_language_change = None  # called on LanguageChange (the installer retranslates its actions)

        self.where = QLabel()
        self.where.setWordWrap(True)
        self.where.setTextFormat(Qt.TextFormat.RichText)
        self.where.setStyleSheet("font-size: 15px;")
        self.quiz_box = QFrame()
        self.quiz_box.setStyleSheet("QFrame#quizBox { background: #f3f7ff; border: 1px solid #b8c8e8; }")
        self.quiz_box.setObjectName("quizBox")
        self.answer_label = QLabel()
        self.answer_edit = QLineEdit()
        self.answer_edit.returnPressed.connect(self.check_answer)
        self.check_button = QPushButton()
        self.check_button.clicked.connect(self.check_answer)
        self.show_button = QPushButton()
        self.show_button.clicked.connect(self.show_how)
        self.verdict = QLabel()
        self.verdict.setWordWrap(True)
        self.tolerance_label = QLabel()
        self.tolerance = QDoubleSpinBox()
        self.tolerance.setDecimals(6)
        self.tolerance.setRange(0.0, 1e9)
        self.tolerance.setSingleStep(0.001)
        if quiz is not None:
            self.tolerance.setValue(quiz.tolerance())
            self.tolerance.valueChanged.connect(quiz.set_tolerance)
        # three short rows rather than two long ones: the panel may be as narrow as MIN_WIDTH
        # (a 1280-px screen), and Check must stay in view there
        self.answer_edit.setMinimumWidth(60)
        row1 = QHBoxLayout()
        row1.addWidget(self.answer_label)
        row1.addWidget(self.answer_edit, 1)
        row2 = QHBoxLayout()
        row2.addWidget(self.check_button)
        row2.addWidget(self.show_button)
        row2.addStretch(1)
        row3 = QHBoxLayout()
        row3.addWidget(self.tolerance_label)
        row3.addWidget(self.tolerance, 1)
        qlay = QVBoxLayout(self.quiz_box)
        qlay.addLayout(row1)
        qlay.addLayout(row2)
        qlay.addWidget(self.verdict)
        qlay.addLayout(row3)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.text.setStyleSheet(TEXT_CSS)
        self.sources = QLabel()
        self.sources.setWordWrap(True)
        self.sources.setStyleSheet("font-size: 13px; color: #444;")
        self.sources.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        body = QWidget()
        lay = QVBoxLayout(body)
        lay.addWidget(self.where)
        lay.addWidget(self.quiz_box)
        lay.addWidget(self.text, 1)
        lay.addWidget(self.sources)
        # in a scroll area: the quiz row (answer, Check, tolerance) is wider than a narrow panel,
        # and a dock's minimum width would otherwise push the window past a 1280-px screen's edge
        scroll = QScrollArea()
        scroll.setWidget(body)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.setWidget(scroll)
        self.setMinimumWidth(MIN_WIDTH)

        for owner in (view, self):
            esc = QShortcut(QKeySequence(Qt.Key.Key_Escape), owner, self.clear)
            esc.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        view.cellClicked.connect(self._on_cell_clicked)
        view.traceShown.connect(self.refresh)
        if quiz is not None:
            quiz.changed.connect(self.refresh)
        self.retranslate()
        self.refresh()

    # ---- public ------------------------------------------------------------------------------
    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        """Wide enough that a term line ("q[0]·k[0] = 1.0000 × 1.0000 = 1.0000") does not wrap, but
        at most a share of the window: on a 1366 px laptop a 440 px panel left the Steps ~210 px."""
        window = self.parentWidget()
        share = int(window.width() * WINDOW_SHARE) if isinstance(window, QMainWindow) else PREFERRED_WIDTH
        return QSize(max(min(PREFERRED_WIDTH, share), self.minimumWidth()), super().sizeHint().height())

    def showEvent(self, event) -> None:  # noqa: N802 (Qt override)
        """The first time it opens, at its preferred width (a dock shown after the window keeps
        whatever width the layout had left for it)."""
        super().showEvent(event)
        window = self.parentWidget()
        if not getattr(self, "_sized", False) and isinstance(window, QMainWindow) and not self.isFloating():
            self._sized = True
            window.resizeDocks([self], [self.sizeHint().width()], Qt.Orientation.Horizontal)

    def select(self, step_id: str, index: tuple[int, ...]) -> None:
        """Explain cell `index` (full index into the step's tensor) of step `step_id`."""
        self.selection = (step_id, tuple(int(i) for i in index))
        self.verdict.clear()
        self.answer_edit.clear()
        self.refresh()
        self.selectionChanged.emit()

    def clear(self) -> None:
        if self.selection is None:
            return
        self.selection = None
        self.verdict.clear()
        self.refresh()
        self.selectionChanged.emit()

    def explanation_text(self) -> str:
        return self.text.toPlainText()

    def check_answer(self) -> None:
        if self.selection is None or self.quiz is None:
            return
        sid, index = self.selection
        verdict = self.quiz.answer(sid, index, self.answer_edit.text())
        self.verdict.setText(verdict.message[i18n.current_language()])
        self.verdict.setStyleSheet(VERDICT_CSS[verdict.right])
        self.verdict.setProperty("right", verdict.right)

    def show_how(self) -> None:
        if self.selection is not None and self.quiz is not None:
            self.quiz.reveal(*self.selection)

    # ---- internals ---------------------------------------------------------------------------
    def _on_cell_clicked(self, step_id: str, m: int, r: int, c: int, double: bool) -> None:
        trace = self.view.current_trace()
        if trace is None or step_id not in trace:
            return
        index = cell_index(trace[step_id], self.view.current_batch(), m, r, c)
        if self.selection == (step_id, index) and not double:
            self.clear()
            return
        if self.selection != (step_id, index):
            self.select(step_id, index)
        self.show()
        self.raise_()
        if double and not self.quiz_box.isHidden() and self.answer_edit.isEnabled():
            self.answer_edit.setFocus()

    def _valid(self, trace, step_id: str, index: tuple[int, ...]) -> bool:
        if trace is None or step_id not in trace:
            return False
        shape = trace[step_id].shape
        return len(index) == len(shape) and all(0 <= i < n for i, n in zip(index, shape))

    def refresh(self) -> None:
        """Show the selection's explanation for the trace on screen now (or clear it)."""
        trace = self.view.current_trace()
        if self.selection is not None and not self._valid(trace, *self.selection):
            self.selection = None
            self.verdict.clear()
        lang = i18n.current_language()
        self.explanation = None
        if self.selection is None:
            if self._blank == lang:  # already blank (a new trace with nothing selected: every edit)
                return
            self._blank = lang
            self.where.setText(html.escape(self.tr("Click any cell of a step to see how its number was computed. "
                                                   "Click it again or press Esc to clear.")))
            self.quiz_box.hide()
            self.text.clear()
            self.sources.clear()
            self._highlight(trace, None, ())
            return
        self._blank = None
        sid, index = self.selection
        self.where.setText(self._where(trace, sid, index, lang))
        hidden = self.quiz is not None and self.quiz.is_hidden(sid, index)
        in_quiz = self.quiz is not None and sid == self.quiz.step_id
        self.quiz_box.setVisible(in_quiz)
        self.answer_edit.setEnabled(hidden and in_quiz)
        self.check_button.setEnabled(hidden and in_quiz)
        self.show_button.setEnabled(hidden and in_quiz)
        expl, error = self._explain(trace, sid, index)
        sources = expl.sources if expl is not None else ()
        self._highlight(trace, (sid, index), sources)
        if error is not None:
            self.text.setPlainText(error)
            self.sources.clear()
            return
        self.explanation = expl
        if hidden or (self.quiz is not None and any(self.quiz.hides_step(s.ref) for s in sources)):
            # the terms would print the hidden numbers: the formula only
            covered = self.quiz.current_plan().covered_note(trace, sid, lang) if hidden and not in_quiz else ""
            note = (covered if covered
                    else self.tr("The quiz hides this cell: work it out and type your answer, or ask to be shown how.")
                    if hidden
                    else self.tr("The terms are hidden while the quiz hides one of the steps they come from."))
            self.text.setPlainText(f"{expl.formula[lang]}\n\n{note}")
        else:
            self.text.setPlainText(expl.text(lang))
        self.sources.setText(self._sources_text(trace, sources))
        self._select_inputs(sources)

    def _select_inputs(self, sources) -> None:
        """Select the queries / keys / values cells a number came from in their editors (the
        bounding rectangle per matrix: a projection reads one whole input row)."""
        editors = getattr(self.inputs, "editors", None)
        if not editors:
            return
        batch = self.view.current_batch()
        for ref in ("queries", "keys", "values"):
            cells = [s.index for s in sources if s.ref == ref and len(s.index) == 3 and s.index[0] == batch]
            if cells and ref in editors:
                rows, cols = [i[1] for i in cells], [i[2] for i in cells]
                editors[ref].select_rect(min(rows), min(cols), max(rows) - min(rows) + 1, max(cols) - min(cols) + 1)

    def _explain(self, trace, sid: str, index: tuple[int, ...]):
        from attention.teaching.explain import ExplainError, explain  # at the first click, not on the start-up path

        if not trace.parameters:  # the start-up trace read back from disk, before torch has loaded
            return None, self.tr("The engine is still starting: the explanation appears in a moment.")
        try:
            return explain(trace, sid, index), None
        except ExplainError as e:
            return None, self.tr("No explanation for this cell: {0}").format(str(e))

    def _where(self, trace, sid: str, index: tuple[int, ...], lang: str) -> str:
        title = html.escape(trace[sid].title[lang])
        b, m, r, c = cell_position(trace[sid], index)
        try:
            pane = self.view.pane(sid)
        except KeyError:
            pane = None
        data = pane.data if pane is not None else None
        if data is not None and b == self.view.current_batch() and m < data.block.shape[0] \
                and r < data.block.shape[1] and c < data.block.shape[2]:
            where = html.escape(data.hover_text(m, r, c, lang))  # the pane's own words (a quiz hides the value)
        else:
            where = html.escape(f"{sid}[{', '.join(map(str, index))}]")
        return f"<b>{title}</b> <span style='color:#666'>({html.escape(sid)})</span><br>{where}"

    def _sources_text(self, trace, sources) -> str:
        """The sources that are inputs or parameters (not panes): listed, as they cannot be outlined."""
        params = [s for s in sources if s.ref not in trace]
        if not params:
            return ""
        cells = ", ".join(f"{s.ref}[{', '.join(map(str, s.index))}]" for s in params)
        return self.tr("From the inputs and parameters: {0}").format(cells)

    def _highlight(self, trace, cell, sources) -> None:
        """Outline the explained cell and its sources in their own panes (this batch item only)."""
        marks: dict[str, dict[str, dict]] = {CELL_LAYER: {}, SOURCE_LAYER: {}}
        batch = self.view.current_batch()
        shown = set(self.view.pane_ids())
        items = [(SOURCE_LAYER, s.ref, s.index, SOURCE_COLOUR) for s in sources]
        if cell is not None:
            items.append((CELL_LAYER, cell[0], cell[1], CELL_COLOUR))
        for layer, ref, index, colour in items:
            if trace is None or ref not in trace or ref not in shown:
                continue
            try:
                b, m, r, c = cell_position(trace[ref], tuple(index))
            except ValueError:
                continue
            if b == batch:
                marks[layer].setdefault(ref, {})[(m, r, c)] = colour
        for pid in shown:
            pane = self.view.pane(pid)
            for layer in (CELL_LAYER, SOURCE_LAYER):
                pane.set_marks(layer, marks[layer].get(pid, {}))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
            self.refresh()
            if self.on_language_change is not None:
                self.on_language_change()
        super().changeEvent(event)

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("Explain"))
        self.answer_label.setText(self.tr("Your answer:"))
        self.check_button.setText(self.tr("Check"))
        self.show_button.setText(self.tr("Show how"))
        self.tolerance_label.setText(self.tr("Tolerance:"))
        self.tolerance.setToolTip(self.tr("An answer is right when it is within this much of the value "
                                          "(or within this fraction of it, for large values)"))
        self.answer_edit.setPlaceholderText(self.tr("e.g. 0.25 or 1/3"))
