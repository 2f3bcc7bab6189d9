"""Quiz: hide the numbers of one step, let a student type answers into its cells, mark them
right or wrong (within a tolerance the teacher sets) and reveal a cell's value on request.

QuizLens hides the step in its pane (app.viewmodel.quiz_data builds the hidden picture); Quiz owns
the menu, the tolerance, the answers given (right / wrong outlines) and the revealed cells.
Answers and reveals are keyed by the full index into the step's tensor and forgotten when the
hidden step's numbers change (an edit made them stale).
"""
from __future__ import annotations

from typing import Optional

import numpy as np
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction, QActionGroup, QColor
from PySide6.QtWidgets import QMenu

from app.panes import prepared
from app.panes.steps_view import Shown, StepsView
from app.startup import i18n
from app.startup.settings import Settings
from app.viewmodel.pane_data import cell_position, same_numbers
from app.viewmodel.quiz_data import DEFAULT_TOLERANCE, Verdict, check_answer, hidden_pane
from attention.trace import Trace

RIGHT_COLOUR = QColor(46, 125, 50)
WRONG_COLOUR = QColor(198, 40, 40)
LAYER = "quiz"


class QuizLens:
    """Hides the numbers of `step_id` except the revealed cells (full indices)."""

    def __init__(self) -> None:
        self.step_id: Optional[str] = None
        self.revealed: set[tuple[int, ...]] = set()
        self._cache: Optional[tuple] = None  # (source picture, cells, picture)

    @property
    def active(self) -> bool:
        return self.step_id is not None

    def apply(self, trace: Trace, batch: int, shown: dict[str, Shown]) -> dict[str, Shown]:
        sid = self.step_id
        if sid is None or sid not in shown or shown[sid][1] is not None:
            return shown
        pic = shown[sid][0]
        step = trace[sid]
        cells = frozenset(pos[1:] for pos in (cell_position(step, i) for i in self.revealed if len(i) == len(step.dims))
                          if pos[0] == batch)
        if self._cache is None or self._cache[0] is not pic or self._cache[1] != cells:
            self._cache = (pic, cells, prepared.picture_of(hidden_pane(pic.data, set(cells))))
        out = dict(shown)
        out[sid] = (self._cache[2], None)
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
        self.changed.emit()

    def is_hidden(self, step_id: str, index: tuple[int, ...]) -> bool:
        return step_id == self.lens.step_id and tuple(index) not in self.lens.revealed

    def answer(self, step_id: str, index: tuple[int, ...], text: str) -> Verdict:
        """Check a typed answer for one cell of the hidden step; mark it right or wrong."""
        trace = self.view.current_trace()
        step = trace[step_id]
        value = step.numpy()[tuple(index)]
        verdict = check_answer(text, float(value), self.tolerance(), is_bool=step.numpy().dtype == np.bool_)
        if verdict.right is not None:
            self.answers[tuple(index)] = verdict.right
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
