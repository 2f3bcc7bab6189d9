"""Compare: pin the current trace as a reference, then let every pane show current − pinned.

The lens (CompareLens) turns each pane's picture into its difference picture (app.panes.
compare_data does the subtraction), all on one symmetric colour scale; the controller
(Compare) owns the three actions (pin, show difference, unpin) and the pinned trace.
"""
from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence

from app.panes import colormaps, prepared
from app.panes.steps_view import Shown, StepsView
from app.viewmodel.compare_data import DiffPaneData, diff_pane, shared_limit
from attention.compute.trace import Trace


class CompareLens:
    """current − pinned in every pane, on one shared symmetric scale (see compare_data)."""

    def __init__(self) -> None:
        self.pinned: Optional[Trace] = None
        self.enabled = False
        self.limits: tuple[float, float] = (-1.0, 1.0)  # the shared levels last used
        self._diffs: dict[str, tuple] = {}  # step id -> (source picture, pinned, batch, diff or notice)
        self._pictures: dict[str, tuple] = {}  # step id -> (diff, levels, picture)

    @property
    def active(self) -> bool:
        return self.enabled and self.pinned is not None

    def apply(self, trace: Trace, batch: int, shown: dict[str, Shown]) -> dict[str, Shown]:
        if not self.enabled or self.pinned is None:
            return shown
        diffs = {sid: self._diff(sid, pic, batch) for sid, (pic, notice) in shown.items() if notice is None}
        scaled = [(d, shown[sid][0].data.kind) for sid, d in diffs.items() if isinstance(d, DiffPaneData)]
        limit = shared_limit(scaled)
        m = colormaps.nice_ceiling(limit) if limit > 0 else 1.0
        self.limits = (-m, m)
        out = dict(shown)
        for sid, d in diffs.items():
            if isinstance(d, DiffPaneData):
                out[sid] = (self._picture(sid, d), None)
            else:  # a notice: the pane says why in words; its own picture stays underneath
                out[sid] = (shown[sid][0], d)
        return out

    def _diff(self, sid: str, pic: prepared.PanePicture, batch: int):
        cached = self._diffs.get(sid)
        if cached is not None and cached[0] is pic and cached[1] is self.pinned and cached[2] == batch:
            return cached[3]
        d = diff_pane(pic.data, self.pinned, batch)
        self._diffs[sid] = (pic, self.pinned, batch, d)
        return d

    def _picture(self, sid: str, d: DiffPaneData) -> prepared.PanePicture:
        cached = self._pictures.get(sid)
        if cached is not None and cached[0] is d and cached[1] == self.limits:
            return cached[2]
        picture = prepared.picture_of(d, self.limits)
        self._pictures[sid] = (d, self.limits, picture)
        return picture

    def forget(self) -> None:
        self._diffs.clear()
        self._pictures.clear()


class Compare(QObject):
    """Pin / show difference / unpin, acting on a StepsView through a CompareLens."""

    changed = Signal()
    message = Signal(str)  # for the status bar

    def __init__(self, view: StepsView, parent: Optional[QObject] = None) -> None:
        super().__init__(parent)
        self.view = view
        self.lens = CompareLens()
        view.add_lens(self.lens)
        self.pin_action = QAction(self)
        self.pin_action.setShortcut(QKeySequence("Ctrl+Shift+P"))
        self.pin_action.triggered.connect(self.pin)
        self.diff_action = QAction(self, checkable=True)
        self.diff_action.setShortcut(QKeySequence("Ctrl+Shift+D"))
        self.diff_action.toggled.connect(self.show_difference)
        self.unpin_action = QAction(self)
        self.unpin_action.triggered.connect(self.unpin)
        for a in (self.pin_action, self.diff_action, self.unpin_action):
            a.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self._sync_actions()
        self.retranslate()

    @property
    def pinned(self) -> Optional[Trace]:
        return self.lens.pinned

    def pin(self) -> bool:
        """Keep the trace on screen now as the reference."""
        trace = self.view.current_trace()
        if trace is None:
            self.message.emit(self.tr("Nothing to pin yet: no step has been computed."))
            return False
        self.lens.pinned = trace
        self.lens.forget()
        self._sync_actions()
        self.view.refresh_lenses()
        self.message.emit(self.tr("Pinned the current result as the reference. "
                                  "Change anything, then show the difference."))
        self.changed.emit()
        return True

    def show_difference(self, on: bool) -> None:
        if on and self.lens.pinned is None:
            self.message.emit(self.tr("Pin a result first (View ▸ Pin as reference)."))
            on = False
        self.lens.enabled = bool(on)
        if self.diff_action.isChecked() != self.lens.enabled:
            self.diff_action.setChecked(self.lens.enabled)
        self.view.refresh_lenses()
        self.changed.emit()

    def unpin(self) -> None:
        self.lens.pinned = None
        self.lens.enabled = False
        self.lens.forget()
        self._sync_actions()
        self.view.refresh_lenses()
        self.message.emit(self.tr("Unpinned: the panes show the current result."))
        self.changed.emit()

    def _sync_actions(self) -> None:
        pinned = self.lens.pinned is not None
        self.diff_action.blockSignals(True)
        self.diff_action.setChecked(self.lens.enabled and pinned)
        self.diff_action.blockSignals(False)
        self.diff_action.setEnabled(pinned)
        self.unpin_action.setEnabled(pinned)

    def retranslate(self) -> None:
        for a, text, tip in (
            (self.pin_action, self.tr("Pin as reference"),
             self.tr("Keep the current result, to compare what a change does")),
            (self.diff_action, self.tr("Show difference to pinned"),
             self.tr("Every pane shows current − pinned, on one colour scale")),
            (self.unpin_action, self.tr("Unpin"), self.tr("Forget the pinned result")),
        ):
            a.setText(text)
            a.setStatusTip(tip)
            a.setToolTip(tip)
