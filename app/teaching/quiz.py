"""Quiz: hide the numbers of one step, let a student type answers into its cells, mark them
right or wrong (within a tolerance the teacher sets) and reveal a cell's value on request.

QuizLens hides the step in its pane (app.viewmodel.quiz_data builds the hidden picture); Quiz owns
the menu, the tolerance, the answers given (right / wrong outlines) and the revealed cells.
Answers and reveals are keyed by the full index into the step's tensor and forgotten when the
hidden step's numbers change (an edit made them stale).  A right answer shows its number in the
cell; a wrong one is outlined red and the number stays hidden.

Steps that repeat the hidden numbers here (V = I makes the weighted sum equal the weights; a head
split is the projection rearranged) are hidden as well, and inputs that repeat them are named on
screen: app.viewmodel.quiz_data.plan decides which.  A bar above the panes says how to answer and
why other steps are hidden.  The slides (`shown_data`), the handout export (`hidden_steps`) and the
CSV export (`export_refusal`) ask the quiz too, so a hidden number is hidden wherever it is read.
"""
from __future__ import annotations

from typing import Optional

import numpy as np
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction, QActionGroup, QColor
from PySide6.QtWidgets import QLabel, QMenu

from app.panes import prepared
from app.panes.steps_view import Shown, StepsView
from app.services import i18n
from app.services.settings import Settings
from app.viewmodel.pane_data import PaneData, cell_position, same_numbers
from app.viewmodel.quiz_data import DEFAULT_TOLERANCE, QuizPlan, Verdict, check_answer, hidden_pane, plan
from app.viewmodel.quiz_data import text as quiz_text
from attention.compute.trace import Trace

RIGHT_COLOUR = QColor(46, 125, 50)
WRONG_COLOUR = QColor(198, 40, 40)
LAYER = "quiz"
BAR_CSS = "background: #eef3ff; color: #102a5c; border: 1px solid #b8c8e8; padding: 4px 8px; font-size: 14px;"


class QuizLens:
    """Hides the numbers of `step_id` except the revealed cells (full indices), and every step
    that repeats them (quiz_data.plan)."""

    def __init__(self) -> None:
        self.step_id: Optional[str] = None
        self.revealed: set[tuple[int, ...]] = set()
        self._cache: dict[str, tuple] = {}  # step id -> (source picture, cells, picture)
        self._plan: Optional[tuple] = None  # (trace, step id, QuizPlan)

    @property
    def active(self) -> bool:
        return self.step_id is not None

    def plan(self, trace: Optional[Trace]) -> QuizPlan:
        """What is hidden in `trace` (computed once per trace and hidden step)."""
        if trace is None or self.step_id is None:
            return QuizPlan(())
        if self._plan is None or self._plan[0] is not trace or self._plan[1] != self.step_id:
            self._plan = (trace, self.step_id, plan(trace, [self.step_id]))
        return self._plan[2]

    def _cells(self, step, batch: int) -> frozenset:
        return frozenset(pos[1:] for pos in (cell_position(step, i) for i in self.revealed if len(i) == len(step.dims))
                         if pos[0] == batch)

    def hide(self, trace: Trace, sid: str, data: PaneData, batch: int) -> Optional[PaneData]:
        """`data` of step `sid` as the quiz shows it; None when the quiz leaves it as it is."""
        if not self.plan(trace).hides(sid):
            return None
        cells = self._cells(trace[sid], batch) if sid == self.step_id else frozenset()
        return hidden_pane(data, set(cells))

    def apply(self, trace: Trace, batch: int, shown: dict[str, Shown]) -> dict[str, Shown]:
        if self.step_id is None:
            return shown
        out = dict(shown)
        for sid in self.plan(trace).chosen + tuple(self.plan(trace).covered):
            if sid not in shown or shown[sid][1] is not None:
                continue
            pic = shown[sid][0]
            cells = self._cells(trace[sid], batch) if sid == self.step_id else frozenset()
            cached = self._cache.get(sid)
            if cached is None or cached[0] is not pic or cached[1] != cells:
                cached = (pic, cells, prepared.picture_of(hidden_pane(pic.data, set(cells))))
                self._cache[sid] = cached
            out[sid] = (cached[2], None)
        return out


class Quiz(QObject):
    changed = Signal()  # hidden step, answers or reveals changed

    def __init__(self, view: StepsView, settings: Optional[Settings] = None, parent: Optional[QObject] = None) -> None:
        super().__init__(parent)
        self.view = view
        self.settings = settings
        self.lens = QuizLens()
        view.add_lens(self.lens)
        self.answers: dict[tuple[int, ...], bool] = {}  # full index -> right
        self._numbers: Optional[np.ndarray] = None  # the hidden step's numbers the answers are for
        self.menu = QMenu()
        self.group = QActionGroup(self)
        self.off_action = QAction(self, checkable=True, checked=True)
        self.off_action.triggered.connect(lambda: self.hide_step(None))
        self.group.addAction(self.off_action)
        self._step_actions: dict[str, QAction] = {}
        self._ids: tuple[str, ...] = ()
        self.bar = QLabel()  # how to answer, and what else is hidden: above the panes while a quiz runs
        self.bar.setObjectName("QuizBar")
        self.bar.setWordWrap(True)
        self.bar.setStyleSheet(BAR_CSS)
        self.bar.hide()
        view.layout().insertWidget(1, self.bar)  # under the heads bar, above the list of panes
        view.traceShown.connect(self._on_trace_shown)
        self.retranslate()

    # ---- state -------------------------------------------------------------------------------
    @property
    def step_id(self) -> Optional[str]:
        return self.lens.step_id

    def tolerance(self) -> float:
        return DEFAULT_TOLERANCE if self.settings is None else self.settings.quiz_tolerance(DEFAULT_TOLERANCE)

    def set_tolerance(self, value: float) -> None:
        if self.settings is not None:
            self.settings.set_quiz_tolerance(value)

    def hide_step(self, step_id: Optional[str]) -> None:
        """Hide the numbers of `step_id` (None: quiz off, every pane shows its numbers)."""
        if step_id is not None and step_id not in self._ids:
            raise ValueError(f"quiz: no step {step_id!r} is shown (shown: {', '.join(self._ids)})")
        self.lens.step_id = step_id
        self.lens.revealed.clear()
        self.answers.clear()
        self._numbers = self._hidden_numbers()
        self._check_action()
        self.view.refresh_lenses()
        self._show_marks()
        self._show_bar()
        self.changed.emit()

    def is_hidden(self, step_id: str, index: tuple[int, ...]) -> bool:
        """True for a cell whose number the quiz hides (the quiz's step, or a step repeating it)."""
        if step_id == self.lens.step_id:
            return tuple(index) not in self.lens.revealed
        return self.hides_step(step_id)

    def hides_step(self, step_id: str) -> bool:
        """True when the quiz hides (some of) the numbers of `step_id` on screen."""
        return self.lens.plan(self.view.current_trace()).hides(step_id)

    def current_plan(self) -> QuizPlan:
        return self.lens.plan(self.view.current_trace())

    def plan_for(self, trace: Optional[Trace]) -> QuizPlan:
        """What the quiz hides in `trace` (the slides' trace may be a newer one than the window's)."""
        return self.lens.plan(trace)

    def hidden_steps(self) -> tuple[str, ...]:
        """The steps a handout made now must hide: the quiz's step (none while the quiz is off)."""
        return (self.lens.step_id,) if self.lens.step_id is not None else ()

    def shown_data(self, trace: Optional[Trace], step_id: str, data: Optional[PaneData], batch: int):
        """`data` of step `step_id` as the quiz shows it (the slides draw their panes through this)."""
        if data is None or trace is None or step_id not in trace:
            return data
        hidden = self.lens.hide(trace, step_id, data, batch)
        return data if hidden is None else hidden

    def note(self, trace: Optional[Trace], lang: str, instruction: bool = True) -> str:
        return self.lens.plan(trace).note(trace, lang, instruction) if trace is not None else ""

    def export_refusal(self, step_id: str) -> Optional[str]:
        """Why the numbers of `step_id` may not be exported now (None: they may)."""
        trace = self.view.current_trace()
        if trace is None or step_id not in trace or not self.hides_step(step_id):
            return None
        return quiz_text("no_export", i18n.current_language(), step=trace[step_id].title[i18n.current_language()])

    def answer(self, step_id: str, index: tuple[int, ...], text: str) -> Verdict:
        """Check a typed answer for one cell of the hidden step; mark it right or wrong."""
        trace = self.view.current_trace()
        step = trace[step_id]
        value = step.numpy()[tuple(index)]
        verdict = check_answer(text, float(value), self.tolerance(), is_bool=step.numpy().dtype == np.bool_)
        if verdict.right is not None:
            self.answers[tuple(index)] = verdict.right
            if verdict.right:  # found: the cell shows its number (a wrong answer leaves the "?")
                self.lens.revealed.add(tuple(index))
                self.view.refresh_lenses()
            self._show_marks()
            self.changed.emit()
        return verdict

    def reveal(self, step_id: str, index: tuple[int, ...]) -> None:
        if step_id != self.lens.step_id:
            return
        self.lens.revealed.add(tuple(index))
        self.view.refresh_lenses()
        self.changed.emit()

    # ---- internals ---------------------------------------------------------------------------
    def _hidden_numbers(self) -> Optional[np.ndarray]:
        trace = self.view.current_trace()
        sid = self.lens.step_id
        return trace.array(sid) if trace is not None and sid is not None and sid in trace else None

    def _on_trace_shown(self) -> None:
        trace = self.view.current_trace()
        ids = tuple(trace.ids)
        if ids != self._ids:
            self._ids = ids
            self._rebuild_menu()
        numbers = self._hidden_numbers()
        if not same_numbers(numbers, self._numbers):  # the numbers changed: old answers are stale
            self.answers.clear()
            if self.lens.revealed:
                self.lens.revealed.clear()
                self.view.refresh_lenses()
            self._numbers = numbers
            self.changed.emit()
        self._show_marks()
        self._show_bar()

    def _show_bar(self) -> None:
        text = self.note(self.view.current_trace(), i18n.current_language())
        self.bar.setText(text)
        self.bar.setVisible(bool(text))

    def _show_marks(self) -> None:
        trace = self.view.current_trace()
        sid = self.lens.step_id
        for pid in self.view.pane_ids():  # (marks only: a pane still waiting out of sight may wait)
            self.view.pane(pid, current=False).set_marks(LAYER, {})
        if trace is None or sid is None or sid not in trace or sid not in self.view.pane_ids():
            return
        batch = self.view.current_batch()
        marks = {}
        for index, right in self.answers.items():
            b, m, r, c = cell_position(trace[sid], index)
            if b == batch:
                marks[(m, r, c)] = RIGHT_COLOUR if right else WRONG_COLOUR
        self.view.pane(sid).set_marks(LAYER, marks)

    def _check_action(self) -> None:
        a = self._step_actions.get(self.lens.step_id) if self.lens.step_id else self.off_action
        if a is not None:
            a.setChecked(True)

    def _rebuild_menu(self) -> None:
        for a in self._step_actions.values():
            self.group.removeAction(a)
            self.menu.removeAction(a)
        self.menu.clear()
        self.menu.addAction(self.off_action)
        self.menu.addSeparator()
        self._step_actions = {}
        trace = self.view.current_trace()
        lang = i18n.current_language()
        for sid in self._ids:
            a = QAction(f"{trace[sid].title[lang]}  ({sid})", self, checkable=True)
            a.triggered.connect(lambda _=False, s=sid: self.hide_step(s))
            self.group.addAction(a)
            self.menu.addAction(a)
            self._step_actions[sid] = a
        if self.lens.step_id is not None and self.lens.step_id not in self._ids:
            self.lens.step_id = None
        self._check_action()

    def retranslate(self) -> None:
        self.menu.setTitle(self.tr("Quiz: hide the numbers of"))
        self.off_action.setText(self.tr("Off (show every number)"))
        if self._ids:
            self._rebuild_menu()
        self._show_bar()
