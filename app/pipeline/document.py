"""The open document: the current Scenario, its file path and its undo stack.

The Scenario is immutable.  Every edit builds a new one (dataclasses.replace, fresh copies only
of the arrays it changes) and goes through the undo stack, so undo is exact and a scenario
handed to a worker thread can never change under it.  Views listen to `changed` and compare
array identities to see what moved.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoStack

from app.pipeline import undo
from app.pipeline.disk_stamp import DiskStamp
from app.viewmodel.matrix_ref import MatrixRef
from attention import Scenario

#: Steps kept for undo.  A cell edit costs two numbers; a paste or fill, its block twice.
UNDO_LIMIT = 500
#: Bytes the undo history may hold.  Past this the oldest steps are dropped (at least the
#: newest step is always kept): 500 resizes of a 28 MB scenario would otherwise keep 14 GB.
UNDO_BYTES = 256 * 2**20


class Document(QObject):
    """Holds the scenario; the only place that swaps it (via `apply`, called by undo commands)."""

    changed = Signal()  # the scenario was replaced (edit, undo, redo, load)
    loaded = Signal()  # a different document was opened (path and undo history are new)
    path_changed = Signal()

    def __init__(self, scenario: Scenario, path: Optional[Path] = None, parent: Optional[QObject] = None):
        super().__init__(parent)
        self._scenario = scenario
        self._path = path
        #: the file as it was opened or last saved (app.pipeline.disk_stamp): a save over a file
        #: changed since then asks first.  None: nothing known, nothing compared.
        self.disk_stamp: Optional[DiskStamp] = None
        self.undo_stack = QUndoStack(self)
        self.undo_stack.setUndoLimit(UNDO_LIMIT)
        self.replaying = False  # True while the history is rebuilt: commands then change nothing
        self.undo_budget = UNDO_BYTES

    # ---- state -------------------------------------------------------------------------------
    @property
    def scenario(self) -> Scenario:
        return self._scenario

    @property
    def path(self) -> Optional[Path]:
        return self._path

    def is_modified(self) -> bool:
        return not self.undo_stack.isClean()

    def apply(self, scenario: Scenario) -> None:
        """Swap the scenario in (undo commands call this; everyone else pushes commands)."""
        self._scenario = scenario
        self.changed.emit()

    def load(self, scenario: Scenario, path: Optional[Path], stamp: Optional[DiskStamp] = None) -> None:
        """A new document: fresh history, clean state; `stamp`: the file as it was read."""
        self.undo_stack.clear()
        self._path = path
        self.disk_stamp = stamp
        self._scenario = scenario
        self.undo_stack.setClean()
        self.path_changed.emit()
        self.loaded.emit()
        self.changed.emit()

    def mark_saved(self, path: Path, stamp: Optional[DiskStamp] = None) -> None:
        self._path = path
        self.disk_stamp = stamp
        self.undo_stack.setClean()
        self.path_changed.emit()

    # ---- undo memory ---------------------------------------------------------------------------
    def undo_bytes(self) -> int:
        """Bytes of arrays the undo history keeps (each step counts what it alone holds)."""
        stack = self.undo_stack
        return sum(stack.command(i).nbytes() for i in range(stack.count()))

    def _push(self, command) -> None:
        self.undo_stack.push(command)
        if self.undo_bytes() > self.undo_budget:
            self._drop_oldest()

    def _drop_oldest(self) -> None:
        """Keep the newest steps that fit in `undo_budget` (at least one).  QUndoStack can only
        drop old steps through its count limit, so the history is rebuilt from copies of the
        steps kept, with `replaying` set: pushing and moving through them changes nothing, the
        scenario on screen stays the very same object, and the clean state is kept if it was
        among them."""
        stack = self.undo_stack
        sizes = [stack.command(i).nbytes() for i in range(stack.count())]
        total, first = sum(sizes), 0
        while total > self.undo_budget and first < len(sizes) - 1:
            total -= sizes[first]
            first += 1
        if first == 0:
            return
        keep = [stack.command(i).clone() for i in range(first, stack.count())]
        index, clean = stack.index() - first, stack.cleanIndex() - first
        current = self._scenario
        was = (stack.canUndo(), stack.canRedo(), stack.undoText(), stack.redoText(), stack.isClean())
        self.replaying = True
        stack.blockSignals(True)
        try:
            stack.clear()
            for command in keep:
                stack.push(command)
            if 0 <= clean <= len(keep):
                stack.setIndex(clean)
                stack.setClean()
            else:
                stack.resetClean()
            stack.setIndex(max(index, 0))
        finally:
            stack.blockSignals(False)
            self.replaying = False
            self._scenario = current
        now = (stack.canUndo(), stack.canRedo(), stack.undoText(), stack.redoText(), stack.isClean())
        stack.indexChanged.emit(stack.index())
        for signal, before, after in zip((stack.canUndoChanged, stack.canRedoChanged, stack.undoTextChanged,
                                          stack.redoTextChanged, stack.cleanChanged), was, now):
            if before != after:
                signal.emit(after)

    # ---- edits (each is one undo step) ------------------------------------------------------
    def set_cell(self, ref: MatrixRef, row: int, col: int, value: float) -> None:
        self._push(undo.SetCells(self, ref, row, col, np.array([[float(value)]]), merge=True))

    def set_block(self, ref: MatrixRef, row: int, col: int, block: np.ndarray, text: str) -> None:
        """A paste or fill: one undo step for the whole block."""
        self._push(undo.SetCells(self, ref, row, col, np.asarray(block, dtype=np.float64), text=text))

    def set_option(self, field: str, value: Any, text: str) -> None:
        """An option that resizes nothing (causal, scale, fill value, seed, device...)."""
        old = getattr(self._scenario, field)
        if _equal(old, value):
            return
        self._push(undo.SetOption(self, field, old, value, text))

    def drag_cell(self, session: object, ref: MatrixRef, row: int, col: int, value: float, text: str) -> None:
        """One frame of a slider drag on a cell: the frames of one `session` make one undo step."""
        if float(ref.view(self._scenario)[row, col]) == float(value):
            return
        self._push(undo.DragCells(self, ref, row, col, value, session, text))

    def drag_option(self, session: object, field: str, value: Any, text: str) -> None:
        """One frame of a slider drag on an option (the scale); one undo step per `session`."""
        old = getattr(self._scenario, field)
        if _equal(old, value):
            return
        self._push(undo.DragOption(self, field, old, value, text, session))

    def replace(self, new: Scenario, text: str, merge_key: Optional[str] = None,
                companion: Optional[tuple[Callable[[Any], None], Any, Any]] = None, companion_bytes: int = 0,
                remake: Optional[tuple[Callable[[Any], Scenario], bool]] = None) -> None:
        """A change that may resize arrays (L, S, H, widths, switches): old and new scenarios.
        `companion` (restore, old_state, new_state): state outside the scenario that undo and redo
        must bring back with it, and the bytes it keeps alive; `remake`: how to build a scenario again
        from a companion state, so the step keeps the state instead of arrays (see undo.ReplaceScenario)."""
        if new is self._scenario:
            return
        self._push(undo.ReplaceScenario(self, self._scenario, new, text, merge_key, companion, companion_bytes,
                                        remake))


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True
    return type(a) is type(b) and a == b


#: the fields a typed, pasted or filled cell of the Inputs tab changes
INPUT_FIELDS = ("queries", "keys", "values")


def only_input_numbers_changed(old: Optional[Scenario], new: Scenario) -> bool:
    """True when `new` differs from `old` at most in the numbers of queries, keys and values:
    same shapes, every other field the very same object.  Edits replace only the fields they
    change (dataclasses.replace on an immutable Scenario), so `is` is exact here.  Panels that
    show sizes and options, not input numbers, skip their work on such an edit (typing in the
    Inputs tab is the commonest change and the one that must feel instant)."""
    if old is None:
        return False
    if old is new:
        return True
    for f in dataclasses.fields(new):
        a, b = getattr(old, f.name), getattr(new, f.name)
        if f.name in INPUT_FIELDS:
            if a.shape != b.shape:
                return False
        elif a is not b:
            return False
    return True
