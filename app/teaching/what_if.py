"""What if: sliders that change the scale or the selected cell while a class watches softmax react.

A dock (View ▸ What if sliders) holds two sliders:
- Scale: the factor on every score before softmax (1/temperature).  Right sharpens the weights,
  left flattens them.  It writes the scenario's own `scale` field (the one the Parameters panel's
  scale box shows), so a saved file keeps it and "auto" comes back on undo.
- Cell: the cell last selected in an Inputs editor (Q, K, V or a weight), on a linear range
  around its value.

Every frame of a drag is an ordinary document edit: Document -> `changed` -> the Recomputer,
which throttles to one engine run per frame (off the GUI thread for big scenarios): the panes
follow the slider live.  While the engine is still busy with the last frame, the newest knob
position waits for its result (a big scenario then shows every result it can, instead of none
until the mouse stops: bench/what_if.py measures both).  The frames of one press-to-release
share a drag `session`, so they merge into one undo step (app.pipeline.undo.DragCells /
DragOption): Undo puts back the value the drag started from.  A key press or a wheel turn on a
slider is one step of its own.
The slider ranges are worked out without Qt in app.viewmodel.what_if; every number is written by
attention.datamodel.numbers (as the cells write it: -1e6, never -1e+06) and a cell's row and column are
counted from 1, as everywhere a person reads them.
"""
from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget, QLabel, QSlider, QVBoxLayout, QWidget

from app.editing.matrix_editor import MatrixEditor
from app.features import FeatureHost
from app.pipeline.document import Document
from app.pipeline.recompute import Recomputer
from app.viewmodel.matrix_ref import MatrixRef
from app.viewmodel.what_if import MIDDLE, STEPS, CellRange, ScaleRange
from attention.compute import check
from attention.datamodel import numbers

#: the symbol each input or weight goes by (the same in both languages: it is a formula's name)
SYMBOLS = {"queries": "X_q", "keys": "X_k", "values": "X_v",
           "projections.query.weight": "W_q", "projections.key.weight": "W_k",
           "projections.value.weight": "W_v", "projections.out.weight": "W_o",
           "projections.query.bias": "b_q", "projections.key.bias": "b_k",
           "projections.value.bias": "b_v", "projections.out.bias": "b_o",
           "additive.W_q": "W_q", "additive.W_k": "W_k", "additive.w_v": "w_v"}
BIG_FONT = "font-size: 15px;"
#: the dock's width when it opens: its slider (160 px) and wrapped words, no more, so that at
#: 1280 x 720 the Steps beside it keep room for a pane's matrix and its colour bar's numbers
DOCK_WIDTH = 220


class _Body(QWidget):
    """The dock's contents, asking for DOCK_WIDTH (a person may still drag the dock wider)."""

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        hint = super().sizeHint()
        return QSize(min(hint.width(), DOCK_WIDTH), hint.height())


def _slider() -> QSlider:
    s = QSlider(Qt.Orientation.Horizontal)
    s.setRange(0, STEPS)
    s.setValue(MIDDLE)
    s.setPageStep(STEPS // 20)
    s.setMinimumWidth(160)
    s.setMinimumHeight(28)
    return s


class _Drag:
    """One press-to-release of a slider: the undo session its frames share."""


class WhatIfPanel(QDockWidget):
    def __init__(self, doc: Document, editors: dict[str, MatrixEditor], parent: Optional[QWidget] = None,
                 recompute: Optional[Recomputer] = None) -> None:
        super().__init__(parent)
        self.setObjectName("WhatIfDock")
        self.doc = doc
        self.recompute = recompute
        self._deferred: dict[QSlider, int] = {}  # a knob position that waits for the engine (see _frame)
        self.editors = editors
        self._scale_range: Optional[ScaleRange] = None
        self._cell_range: Optional[CellRange] = None
        self._cell: Optional[tuple[MatrixRef, int, int]] = None  # the cell the slider moves
        self._editor: Optional[MatrixEditor] = None  # the editor whose current cell was chosen last
        self._sessions: dict[QSlider, Optional[_Drag]] = {}

        body = _Body(self)
        self.intro = QLabel(body)
        self.scale_title = QLabel(body)
        self.scale_slider = _slider()
        self.scale_value = QLabel(body)
        self.cell_title = QLabel(body)
        self.cell_slider = _slider()
        self.cell_value = QLabel(body)
        v = QVBoxLayout(body)
        for w in (self.intro, self.scale_title, self.scale_slider, self.scale_value, self.cell_title,
                  self.cell_slider, self.cell_value):
            if isinstance(w, QLabel):  # a narrow dock wraps them rather than squeezing the Steps region
                w.setWordWrap(True)
                w.setStyleSheet(BIG_FONT)
            v.addWidget(w)
        self.intro.setStyleSheet("")
        for title in (self.scale_title, self.cell_title):
            title.setStyleSheet(BIG_FONT + " font-weight: bold; padding-top: 8px;")
        v.addStretch(1)
        self.setWidget(body)

        for slider, frame in ((self.scale_slider, self._scale_frame), (self.cell_slider, self._cell_frame)):
            self._sessions[slider] = None
            slider.sliderPressed.connect(lambda s=slider: self._begin(s))
            slider.sliderReleased.connect(lambda s=slider: self._end(s))
            slider.valueChanged.connect(lambda pos, s=slider, f=frame: self._frame(s, f, pos))
        self._frames = {self.scale_slider: self._scale_frame, self.cell_slider: self._cell_frame}
        if recompute is not None:
            recompute.ready.connect(self._engine_done)
            recompute.failed.connect(self._engine_done)
        for editor in editors.values():
            editor.table.selectionModel().currentChanged.connect(lambda *_, e=editor: self._cell_chosen(e))
            editor.model.modelReset.connect(lambda e=editor: self._editor_reset(e))
        doc.changed.connect(self.sync)
        doc.loaded.connect(self._forget_cell)
        self.retranslate()
        self.sync()

    # ---- drags -------------------------------------------------------------------------------
    def _begin(self, slider: QSlider) -> None:
        self._sessions[slider] = _Drag()

    def _frame(self, slider: QSlider, apply, pos: int) -> None:
        """One knob move.  While a drag waits for the engine (a big scenario computes longer than
        a frame on the worker thread) the newest position waits too and is applied as soon as
        that result is on screen: the Recomputer shows only the newest request's result, so an
        edit every 16 ms would otherwise drop every result until the mouse stops."""
        if slider.isSliderDown() and self.recompute is not None and not self.recompute.is_idle():
            self._deferred[slider] = pos
            return
        self._deferred.pop(slider, None)
        apply(pos)

    def _engine_done(self, *_) -> None:
        if self._deferred:
            QTimer.singleShot(0, self._apply_deferred)  # after the result is handed to every view

    def _apply_deferred(self) -> None:
        for slider, pos in list(self._deferred.items()):
            del self._deferred[slider]
            self._frames[slider](pos)

    def _end(self, slider: QSlider) -> None:
        """The drag is over (its frames are one undo step).  A drag that ran to an end of its
        range re-centres the range on where it stopped, so the next drag can go further."""
        if slider in self._deferred:  # where the knob was let go, in the same undo step
            self._frames[slider](self._deferred.pop(slider))
        self._sessions[slider] = None
        if slider.value() in (0, STEPS):
            if slider is self.scale_slider and self._scale_range is not None:
                self._scale_range = ScaleRange(self._scale_range.value(slider.value()))
            elif slider is self.cell_slider:
                self._cell_range = None
        self.sync()

    def _session(self, slider: QSlider) -> object:
        """The drag's session, or a fresh one for a key press or a wheel turn (a step of its own)."""
        return self._sessions[slider] or _Drag()

    def _scale_frame(self, pos: int) -> None:
        if self._scale_range is None:
            return
        value = self._scale_range.value(pos)
        self.doc.drag_option(self._session(self.scale_slider), "scale", value, self.tr("Drag scale"))

    def _cell_frame(self, pos: int) -> None:
        if self._cell_range is None or self._cell is None:
            return
        ref, row, col = self._cell
        value = self._cell_range.value(pos)
        self.doc.drag_cell(self._session(self.cell_slider), ref, row, col, value,
                           self.tr("Drag cell {0} ({1}, {2})").format(SYMBOLS.get(ref.path, ref.path),
                                                                      numbers.position(row), numbers.position(col)))

    # ---- the chosen cell -------------------------------------------------------------------------
    def _cell_chosen(self, editor: MatrixEditor) -> None:
        self._editor = editor
        self._take_cell()

    def _editor_reset(self, editor: MatrixEditor) -> None:
        if editor is self._editor:
            self._take_cell()

    def _forget_cell(self) -> None:
        self._editor, self._cell = None, None
        self.sync()

    def _take_cell(self) -> None:
        """The slider moves the current cell of the editor chosen last (never mid-drag)."""
        if self.cell_slider.isSliderDown():
            return
        cell = None
        editor = self._editor
        if editor is not None and editor.model.ref is not None and not editor.model.ref.integer:
            index = editor.table.currentIndex()
            if index.isValid():
                cell = (editor.model.ref, index.row(), index.column())
        if cell != self._cell:
            self._cell = cell
            self._cell_range = None  # re-centred on the new cell's value
        self.sync()

    def select_cell(self, editor_key: str, row: int, col: int) -> None:
        """Make the slider move cell (row, col) of the Inputs editor `editor_key` (as a click does)."""
        editor = self.editors[editor_key]
        editor.table.setCurrentIndex(editor.model.index(row, col))
        self._cell_chosen(editor)

    def cell_value_now(self) -> Optional[float]:
        if self._cell is None:
            return None
        ref, row, col = self._cell
        view = ref.view(self.doc.scenario)
        if view is None or not (row < view.shape[0] and col < view.shape[1]):
            return None
        return float(view[row, col])

    # ---- document -> sliders ---------------------------------------------------------------------
    def sync(self) -> None:
        """Show the scenario's scale and cell; re-centre a range only when its value left it (or
        a new cell was chosen), and never while that slider is held."""
        sc = self.doc.scenario
        try:
            scale, default = check.resolved_scale(sc), check.default_scale(sc)
        except (ZeroDivisionError, ValueError, TypeError):
            scale, default = None, 1.0
        if not self.scale_slider.isSliderDown():
            if scale is not None and (self._scale_range is None or not self._scale_range.contains(scale)):
                self._scale_range = ScaleRange.around(scale, default)
            if self._scale_range is not None and scale is not None:
                self._set_position(self.scale_slider, self._scale_range.position(scale))
        self.scale_slider.setEnabled(scale is not None)
        if scale is None:
            self.scale_value.setText(self.tr("The scale cannot be worked out for these sizes."))
        else:
            auto = self.tr(" (auto)") if sc.scale is None else ""
            ratio = scale / default if default else float("nan")
            self.scale_value.setText(self.tr("scale = {0}{1}, {2} × the default {3}").format(
                numbers.rounded(scale), auto, numbers.rounded(ratio, 3), numbers.rounded(default)))

        value = self.cell_value_now()
        if value is None:
            self._cell, self._cell_range = None, None
        elif not self.cell_slider.isSliderDown() or self._cell_range is None:
            if self._cell_range is None or not self._cell_range.contains(value):
                self._cell_range = CellRange(value)
            self._set_position(self.cell_slider, self._cell_range.position(value))
        self.cell_slider.setEnabled(self._cell is not None)
        if self._cell is None:
            self.cell_title.setText(self.tr("Cell"))
            self.cell_value.setText(self.tr("Click a cell of Q, K, V or a weight under Inputs to drag it here."))
        else:
            ref, row, col = self._cell
            self.cell_title.setText(self.tr("Cell {0} ({1}, {2})").format(
                SYMBOLS.get(ref.path, ref.path), numbers.position(row), numbers.position(col)))
            lo, hi = self._cell_range.value(0), self._cell_range.value(STEPS)
            self.cell_value.setText(self.tr("value = {0}   (slider from {1} to {2})").format(
                numbers.rounded(value), numbers.rounded(lo), numbers.rounded(hi)))

    def _set_position(self, slider: QSlider, pos: int) -> None:
        """Move the knob without making an edit of it."""
        if slider.value() != pos:
            slider.blockSignals(True)
            slider.setValue(pos)
            slider.blockSignals(False)

    # ---- words ---------------------------------------------------------------------------------
    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("What if sliders"))  # also the View menu entry (its toggle action)
        self.intro.setText(self.tr("Drag a slider and watch the weights: every step follows while you drag. "
                                   "Undo takes back a whole drag at once."))
        self.scale_title.setText(self.tr("Scale"))
        tip = self.tr("The factor on every score before softmax (1/temperature): drag right to sharpen the "
                      "attention weights, left to flatten them.")
        self.scale_slider.setToolTip(tip)
        self.scale_title.setToolTip(tip)
        self.cell_slider.setToolTip(self.tr("Drag to change the selected input cell and watch every step follow."))
        self.sync()


class WhatIf(QObject):
    """The What if dock and its View menu entry."""

    def __init__(self, host: FeatureHost) -> None:
        super().__init__(host.window)
        self.panel = WhatIfPanel(host.document, host.inputs.editors, host.window, host.recompute)
        host.add_dock(self.panel)
        self.panel.hide()
        self.action: QAction = self.panel.toggleViewAction()
        host.add_action(self.action, "view", group="what_if")
        host.on_language_change(self.retranslate)
        self.retranslate()

    def retranslate(self) -> None:
        self.panel.retranslate()
        self.action.setStatusTip(self.tr("Sliders for the scale and the selected cell: drag and watch softmax react"))


def install(host: FeatureHost) -> WhatIf:
    """Add View ▸ What if sliders (a dock) to the host's window."""
    return WhatIf(host)
