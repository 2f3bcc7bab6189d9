"""Undo commands.  Each stores only what it changes:

- SetCells: the block's old and new values (a typed cell, a paste, a fill);
- SetOption: one option's old and new value;
- ReplaceScenario: old and new scenario, for changes that resize arrays (the two scenarios
  share every array the change did not touch).

Consecutive typing into the SAME cell merges into one step (and disappears when it returns to
the original value); edits of different cells, pastes and fills never merge.  Repeated changes
of the same parameter (spin box arrows) merge the same way.  Every frame of one drag of a what-if
slider (app.teaching.what_if) merges into one step (DragCells, DragOption: same `session` only).
"""
from __future__ import annotations

import dataclasses
import weakref
from typing import Any, Callable, Optional, Protocol

import numpy as np
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QUndoCommand

from app.viewmodel.matrix_ref import MatrixRef
from attention.datamodel import numbers
from attention.datamodel.scenario import same


class Document(Protocol):
    """What an undo command changes (app.pipeline.document.Document, which owns the stack): the
    scenario, replaced whole by `apply`; `replaying` while the stack itself undoes or redoes."""

    scenario: Any
    replaying: bool

    def apply(self, scenario: Any) -> None: ...

CELL_ID = 1001
OPTION_ID = 1002
REPLACE_ID = 1003
DRAG_ID = 1004


def scenario_arrays(sc) -> list[np.ndarray]:
    """Every array a Scenario holds (what an undo step may keep alive)."""
    out = [sc.queries, sc.keys, sc.values]
    for name in ("query", "key", "value", "out"):
        p = sc.projection(name)
        if p is not None:
            out += [p.weight] + ([] if p.bias is None else [p.bias])
    if sc.additive is not None:
        out += [sc.additive.W_q, sc.additive.W_k, sc.additive.w_v]
    if sc.valid_lens is not None:
        out.append(sc.valid_lens)
    # each array once: a self-attention layer's queries, keys and values are one array (a model's
    # layer), which counted three times made its undo steps look three times their size
    return list({id(a): a for a in out if isinstance(a, np.ndarray)}.values())


class SetCells(QUndoCommand):
    def __init__(self, doc: "Document", ref: MatrixRef, row: int, col: int, block: np.ndarray,
                 merge: bool = False, text: str = ""):
        super().__init__()
        self.doc, self.ref, self.row, self.col = doc, ref, row, col
        h, w = block.shape
        view = ref.view(doc.scenario)
        self.old = np.array(view[row:row + h, col:col + w], dtype=np.float64, copy=True)
        self.new = np.array(block, dtype=np.float64, copy=True)
        self.mergeable = merge and block.shape == (1, 1)
        self.setText(text or QCoreApplication.translate("undo", "Edit cell ({0}, {1})").format(
            numbers.position(row), numbers.position(col)))  # rows and columns count from 1, as the editor's

    def nbytes(self) -> int:
        return int(self.old.nbytes + self.new.nbytes)

    def clone(self) -> "SetCells":
        c = SetCells.__new__(SetCells)
        QUndoCommand.__init__(c, self.text())
        c.doc, c.ref, c.row, c.col, c.old, c.new = self.doc, self.ref, self.row, self.col, self.old, self.new
        c.mergeable = False  # a kept step never merges with the next one
        return c

    def id(self) -> int:
        return CELL_ID if self.mergeable else -1

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not (isinstance(other, SetCells) and other.mergeable and other.ref == self.ref
                and (other.row, other.col) == (self.row, self.col)):
            return False
        self.new = other.new
        if np.array_equal(self.new, self.old):
            self.setObsolete(True)
        return True

    def redo(self) -> None:
        if not self.doc.replaying:
            self.doc.apply(self.ref.with_block(self.doc.scenario, self.row, self.col, self.new))

    def undo(self) -> None:
        if not self.doc.replaying:
            self.doc.apply(self.ref.with_block(self.doc.scenario, self.row, self.col, self.old))


class SetOption(QUndoCommand):
    def __init__(self, doc: "Document", field: str, old: Any, new: Any, text: str):
        super().__init__(text)
        self.doc, self.field, self.old, self.new = doc, field, old, new
        self.mergeable = True

    def nbytes(self) -> int:
        return sum(int(v.nbytes) for v in (self.old, self.new) if isinstance(v, np.ndarray))

    def clone(self) -> "SetOption":
        c = SetOption(self.doc, self.field, self.old, self.new, self.text())
        c.mergeable = False
        return c

    def id(self) -> int:
        return OPTION_ID if self.mergeable else -1

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not (isinstance(other, SetOption) and other.field == self.field):
            return False
        self.new = other.new
        if self.new == self.old and type(self.new) is type(self.old):
            self.setObsolete(True)
        return True

    def redo(self) -> None:
        if not self.doc.replaying:
            self.doc.apply(dataclasses.replace(self.doc.scenario, **{self.field: self.new}))

    def undo(self) -> None:
        if not self.doc.replaying:
            self.doc.apply(dataclasses.replace(self.doc.scenario, **{self.field: self.old}))


class _Remade:
    """A scenario an undo step can make again from its companion state (a model's layer from the
    sentence's token ids): held weakly, so the history keeps ids, not arrays; made again only
    when nothing else (the document, a view) still holds it."""

    def __init__(self, scenario, make: Callable[[Any], Any], state: Any):
        self._ref, self._make, self._state = weakref.ref(scenario), make, state

    def get(self):
        sc = self._ref()
        if sc is None:
            sc = self._make(self._state)
            self._ref = weakref.ref(sc)
        return sc


def _held(side) -> list:
    """The scenario an undo step holds itself (none when it can make it again)."""
    return [] if isinstance(side, _Remade) else [side]


class ReplaceScenario(QUndoCommand):
    """`companion` (restore, old_state, new_state): state kept outside the scenario that belongs to
    it (a model's sentences and run, app.models_view.tools); `restore(state)` is called before the
    scenario is swapped in, so whoever listens to the document sees both already matching.
    `companion_bytes`: what the companion states keep alive that no other step counts.
    `remake` (make, old_too): `make(state)` builds the scenario of a companion state again (called
    right after `restore(state)`), so the step holds the new scenario (and the old one too when
    `old_too`: it was made the same way) weakly instead of its arrays."""

    def __init__(self, doc: "Document", old, new, text: str, merge_key: Optional[str] = None,
                 companion: Optional[tuple[Callable[[Any], None], Any, Any]] = None, companion_bytes: int = 0,
                 remake: Optional[tuple[Callable[[Any], Any], bool]] = None):
        super().__init__(text)
        if remake is not None and companion is not None and not isinstance(new, _Remade):
            make, old_too = remake
            new = _Remade(new, make, companion[2])
            old = _Remade(old, make, companion[1]) if old_too else old
        self.doc, self._old, self._new, self.merge_key = doc, old, new, merge_key
        self.companion, self.companion_bytes = companion, int(companion_bytes)

    @property
    def old(self):
        return self._old.get() if isinstance(self._old, _Remade) else self._old

    @property
    def new(self):
        return self._new.get() if isinstance(self._new, _Remade) else self._new

    @new.setter
    def new(self, scenario) -> None:
        self._new = scenario

    def nbytes(self) -> int:
        """The arrays only one of the two scenarios holds (the rest they share); none of one it can make again."""
        a = [x for sc in _held(self._old) for x in scenario_arrays(sc)]
        b = [x for sc in _held(self._new) for x in scenario_arrays(sc)]
        ids_a, ids_b = {id(x) for x in a}, {id(x) for x in b}
        own = sum(int(x.nbytes) for x in a if id(x) not in ids_b) + sum(int(x.nbytes) for x in b if id(x) not in ids_a)
        return own + self.companion_bytes

    def clone(self) -> "ReplaceScenario":
        return ReplaceScenario(self.doc, self._old, self._new, self.text(), None, self.companion, self.companion_bytes)

    def id(self) -> int:
        return REPLACE_ID if self.merge_key else -1

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not (isinstance(other, ReplaceScenario) and other.merge_key == self.merge_key
                and self.companion is None and other.companion is None):
            return False
        self.new = other.new
        if same(self.old, self.new):
            self.setObsolete(True)
        return True

    def redo(self) -> None:
        if not self.doc.replaying:
            if self.companion is not None:
                self.companion[0](self.companion[2])
            self.doc.apply(self.new)

    def undo(self) -> None:
        if not self.doc.replaying:
            if self.companion is not None:
                self.companion[0](self.companion[1])
            self.doc.apply(self.old)


class DragCells(SetCells):
    """One cell set by every frame of one slider drag: the frames of the same `session` (one
    press-to-release) merge, so undo takes the whole drag back to its start value at once."""

    def __init__(self, doc: "Document", ref: MatrixRef, row: int, col: int, value: float, session: object,
                 text: str):
        super().__init__(doc, ref, row, col, np.array([[float(value)]]), text=text)
        self.session = session

    def id(self) -> int:
        return DRAG_ID

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not (isinstance(other, DragCells) and other.session is self.session and other.ref == self.ref
                and (other.row, other.col) == (self.row, self.col)):
            return False
        self.new = other.new
        if np.array_equal(self.new, self.old):
            self.setObsolete(True)
        return True


class DragOption(SetOption):
    """One option (the scale) set by every frame of one slider drag; see DragCells."""

    def __init__(self, doc: "Document", field: str, old: Any, new: Any, text: str, session: object):
        super().__init__(doc, field, old, new, text)
        self.session = session

    def id(self) -> int:
        return DRAG_ID

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not (isinstance(other, DragOption) and other.session is self.session and other.field == self.field):
            return False
        self.new = other.new
        if self.new == self.old and type(self.new) is type(self.old):
            self.setObsolete(True)
        return True
