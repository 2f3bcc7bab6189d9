"""The Inputs region: queries, keys, values (one batch item at a time) and the weights.

The first tab stacks the three input editors (so a class sees Q, K and V together); the
Weights tab edits whichever projection weight, bias or additive weight is chosen in its list
(per head for the additive W_q and W_k).
"""
from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QEvent, QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.editing.matrix_editor import MatrixEditor
from app.editing.position_spin import PositionSpinBox
from app.editing.problems import ProblemLabel
from app.pipeline.document import Document, only_input_numbers_changed
from app.pipeline.heap import IdleTrim
from app.viewmodel import weights_note
from app.viewmodel.matrix_ref import INPUTS, MatrixRef, part_matrices, part_path, problem_path
from attention import Scenario, words
from attention.datamodel import numbers
from attention.registry import kinds

SYMBOL = {"query": "Q", "key": "K", "value": "V", "out": "O"}


class InputsPanel(QWidget):
    batch_changed = Signal(int)

    def __init__(self, doc: Document, parent: Optional[QWidget] = None):
        super().__init__(parent)
        self.doc = doc
        self._last_editor: Optional[MatrixEditor] = None  # where Edit ▸ Copy/Paste go once focus has left
        self.batch = PositionSpinBox(self)  # value(): the index from 0; shown from 1
        self.batch.setRange(0, 0)
        self.batch.valueChanged.connect(self._set_batch)
        self.batch_label = QLabel(self)
        top = QHBoxLayout()
        top.addWidget(self.batch_label)
        top.addWidget(self.batch)
        top.addStretch(1)
        self.tabs = QTabWidget(self)
        self.editors: dict[str, MatrixEditor] = {}
        self.problem_labels: dict[str, ProblemLabel] = {}
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.setChildrenCollapsible(False)
        for path in INPUTS:
            self.splitter.addWidget(self._tab(path, MatrixRef(path, 0)))
        self.tabs.addTab(self.splitter, "")
        self.tabs.addTab(self._weights_tab(), "")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.tabs, 1)
        self._synced: Optional[Scenario] = None  # the scenario the batch box, weights list and captions show
        self.retranslate()
        doc.changed.connect(self.sync)
        # the Inputs show every document change; a second after the last one (a sentence run, a
        # fill), the C heap's freed pages go back to the system (app.pipeline.heap)
        self.heap_trim = IdleTrim(self)
        doc.changed.connect(self.heap_trim.poke)
        self.sync()

    def _tab(self, key: str, ref: Optional[MatrixRef], extra: Optional[QWidget] = None) -> QWidget:
        """An editor (with an optional bar above it) and the problem line under it."""
        page = QWidget(self)
        v = QVBoxLayout(page)
        v.setContentsMargins(2, 2, 2, 2)
        if extra is not None:
            v.addWidget(extra)
        editor = MatrixEditor(self.doc, ref, caption_above=True, parent=page)
        self.editors[key] = editor
        editor.used.connect(lambda e=editor: self._remember(e))
        v.addWidget(editor, 1)
        label = ProblemLabel(page)
        self.problem_labels[key] = label
        v.addWidget(label)
        return page

    def _weights_tab(self) -> QWidget:
        bar = QWidget(self)
        h = QHBoxLayout(bar)
        h.setContentsMargins(0, 0, 0, 0)
        self.weight_label = QLabel(bar)
        self.weight_combo = QComboBox(bar)
        # as wide as its longest entry would make the whole Inputs region (and the window) that wide
        self.weight_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.weight_combo.setMinimumContentsLength(10)
        self.weight_combo.currentIndexChanged.connect(self._weight_chosen)
        self.head_label = QLabel(bar)
        self.head = PositionSpinBox(bar)  # head 1 is index 0, as the panes name heads
        self.head.setRange(0, 0)
        self.head.valueChanged.connect(self._weight_chosen)
        for w in (self.weight_label, self.weight_combo, self.head_label, self.head):
            h.addWidget(w)
        h.addStretch(1)
        return self._tab("weights", None, bar)

    # ---- state -------------------------------------------------------------------------------
    def current_batch(self) -> int:
        return self.batch.value()

    def current_editor(self) -> MatrixEditor:
        """The editor holding the keyboard focus, else the one a person last worked in, else the
        one on the visible tab.

        Why the middle step: opening a menu or clicking a toolbar button can take the focus away
        from the table (a popup menu grabs it, a window manager may deactivate the window), and
        Edit ▸ Copy cells must still copy the cells the person selected.
        """
        editor = self._editor_holding(QApplication.focusWidget())
        if editor is not None:
            self._last_editor = editor
            return editor
        last = self._last_editor
        if last is not None and last.isVisibleTo(self) and last.model.matrix() is not None:
            return last
        return self.editors["weights"] if self.tabs.currentIndex() == 1 else self.editors["queries"]

    def _editor_holding(self, widget: Optional[QWidget]) -> Optional[MatrixEditor]:
        if widget is None:
            return None
        for editor in self.editors.values():
            if editor.isAncestorOf(widget):
                return editor
        return None

    def _remember(self, editor: MatrixEditor) -> None:
        self._last_editor = editor

    def _set_batch(self, b: int) -> None:
        for path in INPUTS:
            self.editors[path].set_ref(MatrixRef(path, b))
        self._captions()
        self.batch_changed.emit(b)

    def _weight_entries(self) -> list[tuple[str, str]]:
        """(path, label) of every weight the scenario has now."""
        sc = self.doc.scenario
        out = []
        for name in ("query", "key", "value", "out"):
            p = sc.projection(name)
            if p is None:
                continue
            s = SYMBOL[name]
            out.append((f"projections.{name}.weight",
                        self.tr("W_{0}: {1} projection weight").format(s, self._proj_name(name))))
            if p.bias is not None:
                out.append((f"projections.{name}.bias",
                            self.tr("b_{0}: {1} projection bias").format(s, self._proj_name(name))))
        for path in kinds.scoring(sc).parameter_paths(sc) if kinds.known_scoring(sc.scoring) else ():
            out.append((path, self.tr("additive {0}").format(path.rsplit(".", 1)[-1])))
        # the parts' editable matrices (DSAttention's τ and Δ, Crossformer's router), named by their kind
        out += [(path, words.text(label)) for path, label in part_matrices(sc)]
        return out

    def _proj_name(self, name: str) -> str:
        names = {"query": self.tr("query"), "key": self.tr("key"), "value": self.tr("value"), "out": self.tr("output")}
        return names[name]

    def _weight_chosen(self, *args) -> None:
        path = self.weight_combo.currentData()
        if path is None:
            self.editors["weights"].set_ref(None)
            self.head.setEnabled(False)
        else:
            arr = MatrixRef(path).source(self.doc.scenario)
            three_d = arr is not None and arr.ndim == 3
            self.head.setEnabled(three_d)
            if three_d:
                with QSignalBlocker(self.head):
                    self.head.setMaximum(arr.shape[0] - 1)
            self.editors["weights"].set_ref(MatrixRef(path, self.head.value() if three_d else None))
        self._captions()

    def open_matrix(self, ref: MatrixRef) -> None:
        """Show `ref` (a weight) in the Weights tab."""
        self.tabs.setCurrentIndex(1)
        i = self.weight_combo.findData(ref.path)
        if i >= 0:
            with QSignalBlocker(self.head):
                self.head.setValue(ref.index or 0)
            self.weight_combo.setCurrentIndex(i)
            self._weight_chosen()

    # ---- document -> widgets -------------------------------------------------------------------
    def sync(self) -> None:
        sc = self.doc.scenario
        if only_input_numbers_changed(self._synced, sc):  # the editors' models follow on their own
            self._synced = sc
            return
        self._synced = sc
        with QSignalBlocker(self.batch):
            self.batch.setMaximum(sc.batch - 1)
        if self.batch.value() != self.editors["queries"].model.ref.index:
            self._set_batch(self.batch.value())
        entries = self._weight_entries()
        combo = self.weight_combo
        if [(combo.itemData(i), combo.itemText(i)) for i in range(combo.count())] != entries:
            current = combo.currentData()
            with QSignalBlocker(combo):
                combo.clear()
                for path, text in entries:
                    combo.addItem(text, path)
                i = combo.findData(current)
                combo.setCurrentIndex(i if i >= 0 else 0)
        self._weight_chosen()

    def _captions(self) -> None:
        sc = self.doc.scenario
        b = self.batch.value()
        for path, title, rows, cols in (
            ("queries", self.tr("Queries X_q"), sc.L, sc.d_model),
            ("keys", self.tr("Keys X_k"), sc.S, sc.keys.shape[2]),
            ("values", self.tr("Values X_v"), sc.S, sc.values.shape[2]),
        ):
            editor = self.editors[path]
            editor.set_caption(self.tr("<b>{0}</b>: {1} positions x {2} features").format(title, rows, cols))
            editor.caption.setToolTip(self.tr(
                "{0} of batch item {1}: one row per position, one column per feature. "
                "Type a number, paste a block from a spreadsheet, or use Fill."
            ).format(title, numbers.position(b)))
        ref = self.editors["weights"].model.ref
        m = self.editors["weights"].model.matrix()
        if ref is None or m is None:
            text = self.tr("No weights: every projection is off (identity). "
                           "Switch one on under Parameters > Projections.")
        elif ref.path.startswith("projections.") and ref.path.endswith(".weight"):
            s = SYMBOL[ref.path.split(".")[1]]
            text = self.tr("W_{0}: {1} x {2}, one row per output feature and one column per input feature; "
                           "the projection computes X W_{0}^T + b_{0}.").format(s, m.shape[0], m.shape[1])
        elif ref.path.startswith("projections."):
            s = SYMBOL[ref.path.split(".")[1]]
            text = self.tr("b_{0}: {1} numbers, added to every projected row.").format(s, m.shape[1])
        elif part_path(ref.path) is not None:  # a part's matrix: its field's own help, in the catalogue
            family, kind, field = part_path(ref.path)
            f = next(f for f in kinds.of_family(family)[kind].fields if f.name == field)
            text = f"<b>{words.text(f.label)}</b>: {m.shape[0]} x {m.shape[1]}. {words.text(f.help)}"
        elif ref.path == "additive.w_v":
            text = self.tr("additive w_v: one row per head, one column per hidden unit; "
                           "score = w_v . tanh(W_q q + W_k k).")
        else:
            text = self.tr("additive {0} of head {1}: {2} x {3} (hidden x head width).").format(
                ref.path.replace("additive.", ""), numbers.position(ref.index), m.shape[0], m.shape[1])
        note = weights_note.shown(sc)
        if note and ref is not None and ref.path.startswith("projections."):  # the file's weights, as they came
            text += " " + note
        self.editors["weights"].set_caption(text)

    # ---- problems ----------------------------------------------------------------------------
    def show_problems(self, grouped: dict[str, list[str]]) -> None:
        for key, label in self.problem_labels.items():
            label.set_lines(grouped.get(key, []))
        ref = self.editors["weights"].model.ref
        if ref is not None and part_path(ref.path) is not None:  # a part's matrix: its problems under it
            where = problem_path(self.doc.scenario, ref.path)
            self.problem_labels["weights"].set_lines(
                [p for items in grouped.values() for p in items
                 if isinstance(getattr(p, "path", None), str) and (p.path == where or p.path.startswith(where + "["))])

    # ---- language ----------------------------------------------------------------------------
    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        self.batch_label.setText(self.tr("Batch item"))
        tip = self.tr("Which batch item the editors and the step panes show (1 = the first)")
        self.batch.setToolTip(tip)
        self.batch_label.setToolTip(tip)
        self.tabs.setTabText(0, self.tr("Queries, keys, values"))
        self.tabs.setTabText(1, self.tr("Weights"))
        self.weight_label.setText(self.tr("Matrix"))
        self.weight_combo.setToolTip(
            self.tr("Which weight to edit; switch projections on under Parameters > Projections"))
        self.head_label.setText(self.tr("head"))
        self.head.setToolTip(self.tr("Which head's additive weights to edit"))
        if hasattr(self, "doc"):
            with QSignalBlocker(self.weight_combo):
                for i, (_path, text) in enumerate(self._weight_entries()):
                    if i < self.weight_combo.count():
                        self.weight_combo.setItemText(i, text)
            self._captions()
