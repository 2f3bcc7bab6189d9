"""The Parameters region: sizes, heads, scoring and its options, mask, projections, device.

The plain options (heads, scoring, scale, a scoring kind's own options, causal, fill value,
device, precision) are generated from their Field records (attention/datamodel/fields.py) by
app/editing/field_controls.py: labels, tooltips, choice words and undo words come from the
catalogue (attention/words/fields.py).  Which kind options show is decided by
`field_values.fields_for_scoring` alone.  What stays written here is what is not a plain option:
the sizes (they reshape the inputs), the valid lengths (a matrix), the projections (weights) and
the additive kind's weight buttons.  The "Position & modifiers" group (RoPE, ALiBi, soft-capping,
windows: every kind whose object says `in_panel`) is app/editing/part_controls.py, generated from the
kinds' tables.

Every control pushes one undo command through the document; `sync` puts the scenario's values
back into the controls (signals blocked, so syncing never edits).  `show_problems` places each
`attention.problems` line under the control that caused it and returns the lines it could not
place.
"""
from __future__ import annotations

from typing import Any, Callable, Optional

from PySide6.QtCore import QEvent, QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.editing.field_controls import FieldControls, undo_words
from app.editing.matrix_editor import MatrixEditor
from app.editing.part_controls import PartControls
from app.editing.problems import ProblemLabel, group_by_control
from app.editing.wide_spin import WideSpinBox
from app.pipeline.document import Document, only_input_numbers_changed
from app.services.devices import available_devices
from app.viewmodel import edits, field_values, weights_note
from app.viewmodel.matrix_ref import MatrixRef
from attention import Scenario, words
from attention.datamodel.fields import COMPUTE_FIELDS, HEADS_FIELDS, MASK_FIELDS, SCORING_FIELDS, Field
from attention.files.generators import MAX_ELEMENTS
from attention.kinds.additive import ADDITIVE
from attention.kinds.prob_sparse import PROB_SPARSE
from attention.registry import kinds

SCORINGS: tuple[str, ...] = tuple(kinds.SCORING)
PROJECTIONS = ("query", "key", "value", "out")
SIZE_FIELDS = ("batch", "L", "S", "d_model", "key_width", "value_width")
#: The fields whose new value changes how many numbers the weights hold: checked against
#: MAX_ELEMENTS before anything is allocated.
GROWS_WEIGHTS = ("n_heads", "d_keys", "d_values", "hidden")
#: Where a field's refusal or problem line shows, where that is not its own label: the options of
#: a kind with weights of its own sit under its weight buttons (app.editing.problems.control_key:
#: the kind's weights_attr).
PROBLEM_KEY = {f.name: k.weights_attr for k in kinds.SCORING.values() if k.weights_attr
               for f in k.fields if f.type != "matrix"}


def _set_value(spin: QSpinBox | QDoubleSpinBox | WideSpinBox, value: float) -> None:
    """setValue only when the shown value would change (a double spin box rounds to its decimals)."""
    if isinstance(spin, QDoubleSpinBox):
        if round(spin.value(), spin.decimals()) == round(float(value), spin.decimals()):
            return
    elif spin.value() == value:
        return
    spin.setValue(value)


def _set_index(combo: QComboBox, index: int) -> None:
    if combo.currentIndex() != index:
        combo.setCurrentIndex(index)


def _set_checked(box: QCheckBox, on: bool) -> None:
    if box.isChecked() != on:
        box.setChecked(on)


def _set_enabled(widget: QWidget, on: bool) -> None:
    if widget.isEnabled() != on:
        widget.setEnabled(on)


def _set_visible(widget: QWidget, on: bool) -> None:
    """isHidden, not isVisible: a control inside a not-yet-shown panel is hidden but not hidden
    explicitly, and its explicit state is what setVisible changes."""
    if widget.isHidden() == on:
        widget.setVisible(on)


def _numbers_after(sc: Scenario, **changes) -> int:
    """About how many numbers `sc` holds once n_heads / d_keys / d_values / hidden take
    `changes` (inputs, the four projections at their new shapes, additive weights)."""
    H = max(int(changes.get("n_heads", sc.n_heads)), 1)
    dq = sc.d_model
    dk = changes.get("d_keys", sc.d_keys) or dq // H
    dv = changes.get("d_values", sc.d_values) or dq // H
    hidden = changes.get("hidden", sc.additive.hidden if sc.additive is not None else 0)
    n = sc.queries.size + sc.keys.size + sc.values.size
    n += H * dk * (dq + int(sc.keys.shape[2])) + H * dv * (int(sc.values.shape[2]) + dq)
    return n + H * int(hidden) * (2 * dk + 1)


class ParameterPanel(QWidget):
    edit_matrix = Signal(object)  # MatrixRef the user wants to edit in the Inputs region

    def __init__(self, doc: Document, parent: Optional[QWidget] = None):
        super().__init__(parent)
        self.doc = doc
        self.fields = FieldControls(self, self._edit, lambda: self.doc.scenario,
                                    offered={"device": lambda: available_devices()})
        # one dict per kind of thing, the generated controls' and the hand-written ones together
        self.labels: dict[str, QLabel] = self.fields.labels
        self.controls: dict[str, QWidget] = self.fields.controls
        self.problem_labels: dict[str, ProblemLabel] = self.fields.problem_labels
        self.groups: dict[str, QGroupBox] = {}
        self.kind_boxes: dict[str, QWidget] = {}  # scoring kind -> the box of its own options
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self.parts = PartControls(doc, self)  # positions, score modifiers, windows: from the kinds' tables
        for build in (self._build_sizes, self._build_heads, self._build_scoring, self._build_mask,
                      lambda: self.parts, self._build_projections, self._build_compute):
            layout.addWidget(build())
        layout.addStretch(1)
        self._synced: Optional[Scenario] = None  # the scenario the controls show
        self.retranslate()
        self.sync()
        doc.changed.connect(self.sync)

    # ---- small builders ----------------------------------------------------------------------
    def _group(self, key: str) -> tuple[QGroupBox, QFormLayout]:
        box = QGroupBox(self)
        form = QFormLayout(box)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.groups[key] = box
        return box, form

    def _row(self, form: QFormLayout, key: str, widget: QWidget, problem: bool = True) -> None:
        label = QLabel(self)
        self.labels[key] = label
        self.controls[key] = widget
        form.addRow(label, widget)
        if problem:
            self._problem(form, key)

    def _problem(self, form, key: str) -> ProblemLabel:
        p = ProblemLabel(self)
        self.problem_labels[key] = p
        form.addRow(p) if isinstance(form, QFormLayout) else form.addWidget(p)
        return p

    def _spin(self, lo: int, hi: int, on_change: Callable[[int], None]) -> WideSpinBox:
        s = WideSpinBox(self)
        s.setRange(lo, hi)
        s.setKeyboardTracking(False)  # one edit per committed number, not per keystroke
        s.setAccelerated(True)
        s.valueChanged.connect(on_change)
        return s

    # ---- groups ------------------------------------------------------------------------------
    def _build_sizes(self) -> QGroupBox:
        box, form = self._group("sizes")
        for key in SIZE_FIELDS:  # no size can exceed the numbers the inputs may hold
            self._row(form, key, self._spin(1, MAX_ELEMENTS, lambda v, k=key: self._set_size(k, v)), problem=False)
        self._problem(form, "sizes")
        return box

    def _build_heads(self) -> QGroupBox:
        box, form = self._group("heads")
        self.fields.add(form, HEADS_FIELDS)
        return box

    def _build_scoring(self) -> QGroupBox:
        box, form = self._group("scoring")
        self.fields.add(form, (kinds.SCORING_FIELD, *SCORING_FIELDS))
        self.scale_auto = self.fields.auto_boxes["scale"]
        self.scale_spin = self.fields.number_boxes["scale"]  # every finite double, shown exactly
        for kind, obj in kinds.SCORING.items():  # each kind's own options in a box shown while it is chosen
            own = field_values.fields_for_scoring(kind)
            if not own and not obj.weights_attr:
                continue
            kind_box = QWidget(self)
            kf = QFormLayout(kind_box)
            kf.setContentsMargins(0, 0, 0, 0)
            self.fields.add(kf, own, problems=not obj.weights_attr)
            if obj.weights_attr:
                self._kind_weights(kf, obj)
            self.kind_boxes[kind] = kind_box
            form.addRow(kind_box)
        self.additive_box, self.sparse_box = self.kind_boxes[ADDITIVE.name], self.kind_boxes[PROB_SPARSE.name]
        return box

    def _kind_weights(self, form: QFormLayout, kind) -> None:
        """A kind's own weights (additive: W_q, W_k, w_v): matrices, edited in the spreadsheet editor,
        one button each; the kind's problems show under them."""
        buttons = QHBoxLayout()
        self.additive_buttons: dict[str, QPushButton] = {}
        for name, per_head in kind.weight_matrices:
            b = QPushButton(self)
            ref = MatrixRef(f"{kind.weights_attr}.{name}", 0 if per_head else None)
            b.clicked.connect(lambda _=False, r=ref: self.edit_matrix.emit(r))
            self.additive_buttons[name] = b
            buttons.addWidget(b)
        form.addRow(buttons)
        self._problem(form, kind.weights_attr)

    def _build_mask(self) -> QGroupBox:
        box, form = self._group("mask")
        causal, fill = MASK_FIELDS
        self.fields.add(form, [causal])
        mode = QComboBox(self)
        mode.addItems([""] * len(edits.VALID_MODES))
        mode.currentIndexChanged.connect(self._set_valid_mode)
        self._row(form, "valid_mode", mode, problem=False)
        self.valid_editor = MatrixEditor(self.doc, MatrixRef("valid_lens"), compact=True, parent=self)
        form.addRow(self.valid_editor)
        self._problem(form, "valid_lens")
        self.fields.add(form, [fill])
        return box

    def _build_projections(self) -> QGroupBox:
        box = QGroupBox(self)
        self.groups["projections"] = box
        grid = QGridLayout(box)
        grid.setHorizontalSpacing(6)
        self.weight_checks: dict[str, QCheckBox] = {}
        self.bias_checks: dict[str, QCheckBox] = {}
        self.edit_buttons: dict[str, QPushButton] = {}
        # "use weight" / "use bias" once, as column headings: the panel's widest row stays narrow
        self.projection_heads = (QLabel(self), QLabel(self))
        for col, head in enumerate(self.projection_heads, start=1):
            head.setAlignment(Qt.AlignmentFlag.AlignCenter)
            grid.addWidget(head, 0, col)
        row = 1
        for name in PROJECTIONS:
            label = QLabel(self)
            self.labels[f"projections.{name}"] = label
            w, b, e = QCheckBox(self), QCheckBox(self), QPushButton(self)
            e.setMaximumWidth(64)  # the panel's widest row: keep it narrow so the steps get the room
            w.toggled.connect(lambda on, n=name: self._set_projection(n, on))
            b.toggled.connect(lambda on, n=name: self._set_bias(n, on))
            e.clicked.connect(lambda _=False, n=name: self.edit_matrix.emit(MatrixRef(f"projections.{n}.weight")))
            self.weight_checks[name], self.bias_checks[name], self.edit_buttons[name] = w, b, e
            for col, widget in enumerate((label, w, b, e)):
                grid.addWidget(widget, row, col)
            p = ProblemLabel(self)
            self.problem_labels[f"projections.{name}"] = p
            grid.addWidget(p, row + 1, 0, 1, 4)
            row += 2
        self.weights_note = QLabel(self)  # where the weights came from (a quantized file's), when the scenario says
        self.weights_note.setWordWrap(True)
        self.weights_note.hide()
        grid.addWidget(self.weights_note, row, 0, 1, 4)
        return box

    def _build_compute(self) -> QGroupBox:
        box, form = self._group("compute")
        self.fields.add(form, COMPUTE_FIELDS)
        return box

    # ---- edits -------------------------------------------------------------------------------
    def _set_size(self, key: str, value: int) -> None:
        sc = self.doc.scenario
        sizes = {"batch": sc.batch, "L": sc.L, "S": sc.S, "d_model": sc.d_model,
                 "key_width": int(sc.keys.shape[2]), "value_width": int(sc.values.shape[2])}
        sizes[key] = int(value)
        n = sizes["batch"] * (sizes["L"] * sizes["d_model"] + sizes["S"] * (sizes["key_width"] + sizes["value_width"]))
        if n > MAX_ELEMENTS:
            self.problem_labels["sizes"].set_lines([self.tr(
                "sizes: the inputs would hold {0:,} numbers, more than the {1:,} this window edits; nothing was changed"
            ).format(n, MAX_ELEMENTS)])
            self.sync(force=True)
            return
        new = edits.with_sizes(sc, **{key: int(value)})
        self.doc.replace(new, self.tr("Change {0} to {1}").format(self.labels[key].text(), value), merge_key=key)

    def _refuse_if_too_big(self, key: str, **changes) -> bool:
        """True (and a line under the control) when the weights that follow from `changes`
        would hold more numbers than the window edits: nothing is allocated then."""
        n = _numbers_after(self.doc.scenario, **changes)
        if n <= MAX_ELEMENTS:
            return False
        self.problem_labels[key].set_lines([self.tr(
            "{0}: the weights would hold {1:,} numbers, more than the {2:,} this window edits; nothing was changed"
        ).format(key, n, MAX_ELEMENTS)])
        self.sync(force=True)
        return True

    def _edit(self, f: Field, value: Any) -> None:
        """A plain option edited: one undo command (none when the value is already there)."""
        sc = self.doc.scenario
        old = field_values.value(sc, f)
        if old == value and type(old) is type(value):
            return
        if f.name in GROWS_WEIGHTS and self._refuse_if_too_big(PROBLEM_KEY.get(f.name, f.name), **{f.name: value}):
            return
        text = undo_words(f, value)
        if field_values.reshapes(f):
            # spin boxes merge: holding an arrow is one undo step, as typing one number is
            merge = f.name if f.type == "int" else None
            self.doc.replace(field_values.with_value(sc, f, value), text, merge_key=merge)
        else:
            self.doc.set_option(f.name, value, text)

    def _set_valid_mode(self, index: int) -> None:
        mode = edits.VALID_MODES[index]
        self.doc.replace(edits.with_valid_mode(self.doc.scenario, mode), self.tr("Change valid lengths"))

    def _set_projection(self, name: str, on: bool) -> None:
        text = self.tr("Use {0} weight") if on else self.tr("Remove {0} weight")
        self.doc.replace(edits.with_projection(self.doc.scenario, name, on),
                         text.format(self.labels[f"projections.{name}"].text()))

    def _set_bias(self, name: str, on: bool) -> None:
        self.doc.replace(edits.with_bias(self.doc.scenario, name, on),
                         self.tr("Change {0} bias").format(self.labels[f"projections.{name}"].text()))

    # ---- document -> controls ------------------------------------------------------------------
    def sync(self, force: bool = False) -> None:
        """Put the scenario's values into the controls, touching only those that differ: one
        edit then repaints the one control it changed, not every spin box of the panel.  A
        typed input number changes none of them: nothing to look at then (unless `force`: a
        control showing a value that was refused is put back)."""
        sc = self.doc.scenario
        if not force and only_input_numbers_changed(self._synced, sc):
            self._synced = sc
            return
        self._synced = sc
        blockers = [QSignalBlocker(w) for w in self._all_inputs()]
        try:
            c = self.controls
            for key, value in (("batch", sc.batch), ("L", sc.L), ("S", sc.S), ("d_model", sc.d_model),
                               ("key_width", sc.keys.shape[2]), ("value_width", sc.values.shape[2])):
                _set_value(c[key], int(value))
            self.fields.sync(sc)
            self._show_recorded_sample(sc)
            self.parts.sync(sc)
            for kind, box in self.kind_boxes.items():
                _set_visible(box, kinds.SCORING[kind] is kinds.SCORING.get(sc.scoring))
            mode = edits.valid_mode(sc)
            _set_index(c["valid_mode"], edits.VALID_MODES.index(mode))
            _set_visible(self.valid_editor, mode != "none")
            for name in PROJECTIONS:
                p = sc.projection(name)
                _set_checked(self.weight_checks[name], p is not None)
                _set_checked(self.bias_checks[name], p is not None and p.bias is not None)
                _set_enabled(self.bias_checks[name], p is not None)
                _set_enabled(self.edit_buttons[name], p is not None)
            self._show_weights_note(sc)
        finally:
            # unblock explicitly: blockers kept alive by the traceback of an exception raised
            # here (setValue(2**31) on a QSpinBox) were destroyed at exit after their widgets,
            # the likely cause of the `malloc_consolidate()` abort on quit (issue 13 item 3)
            for b in blockers:
                b.unblock()

    def _show_weights_note(self, sc: Scenario) -> None:
        """'Weights: dequantized 4-bit (Q4_1).' under the projections of a layer whose scenario says so."""
        text = weights_note.shown(sc)
        if self.weights_note.text() != text:
            self.weights_note.setText(text)
        _set_visible(self.weights_note, bool(text))

    def _show_recorded_sample(self, sc: Scenario) -> None:
        """A recorded ProbSparse key sample (sample_index, as attention.capture writes it) is used as it is:
        the seed draws nothing then, so its box is greyed and its tooltip says why (issue 17, item 5)."""
        seed = self.fields.controls.get("seed")
        if seed is None:
            return
        recorded = sc.sample_index is not None
        _set_enabled(seed, not recorded)
        seed.setToolTip(words.text("seed_recorded_sample") if recorded else words.text(self.fields.fields["seed"].help))

    def _all_inputs(self) -> list[QWidget]:
        generated = set(self.fields.fields)
        return [*self.fields.inputs(), *(w for k, w in self.controls.items() if k not in generated),
                *self.weight_checks.values(), *self.bias_checks.values()]

    # ---- problems ----------------------------------------------------------------------------
    def show_problems(self, lines: list[str]) -> list[str]:
        """Put each line under its control; return the lines that belong elsewhere."""
        grouped = group_by_control(lines)
        hidden_with = {f.name: box for kind, box in self.kind_boxes.items()
                       for f in field_values.fields_for_scoring(kind)}
        hidden_with.update({k.weights_attr: self.kind_boxes[name] for name, k in kinds.SCORING.items()
                            if k.weights_attr and name in self.kind_boxes})
        for key, label in self.problem_labels.items():
            box = hidden_with.get(key)
            if box is not None and box.isHidden():
                label.set_lines([])  # its control is not on screen: the window shows the line instead
                continue
            label.set_lines(grouped.pop(key, []))
        self.parts.show_problems(grouped)
        return [line for group in grouped.values() for line in group]

    def clear_problems(self) -> None:
        for label in self.problem_labels.values():
            label.set_lines([])
        self.parts.clear_problems()

    # ---- language ----------------------------------------------------------------------------
    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        titles = {"sizes": self.tr("Sizes"), "heads": self.tr("Heads"), "scoring": self.tr("Scoring"),
                  "mask": self.tr("Mask"),
                  "projections": self.tr("Projections (nn.Linear weights)"), "compute": self.tr("Computation")}
        for key, box in self.groups.items():
            box.setTitle(titles[key])
        texts = {
            "batch": (self.tr("Batch size B"),
                      self.tr("How many independent examples are computed at once. "
                              "The editors show one batch item at a time (chosen above them).")),
            "L": (self.tr("Queries L"), self.tr("Number of query positions: the rows of the queries matrix.")),
            "S": (self.tr("Keys S"),
                  self.tr("Number of key/value positions: the rows of the keys and values matrices.")),
            "d_model": (self.tr("d_model (query width)"),
                        self.tr("Width of each query vector. "
                                "With d_keys and d_values on auto, each head gets d_model / H columns.")),
            "key_width": (self.tr("Key width"),
                          self.tr("Width of each key vector before the key projection "
                                  "(Time-Series-Library uses d_model).")),
            "value_width": (self.tr("Value width"),
                            self.tr("Width of each value vector before the value projection "
                                    "(Time-Series-Library uses d_model).")),
            "valid_mode": (self.tr("Valid lengths"),
                           self.tr("d2l valid lengths: key s is hidden when s >= the length. "
                                   "None, one length per batch item, or one per batch item and query row. "
                                   "Edit them in the small table.")),
        }
        for key, (text, tip) in texts.items():
            self.labels[key].setText(text)
            self.labels[key].setToolTip(tip)
            self.controls[key].setToolTip(tip)
        self.parts.retranslate()
        self.fields.retranslate()  # the plain options: their words come from the catalogue
        self._show_recorded_sample(self.doc.scenario)
        self._show_weights_note(self.doc.scenario)
        for i, text in enumerate((self.tr("none"), self.tr("one per batch item"), self.tr("one per query row"))):
            self.controls["valid_mode"].setItemText(i, text)
        names = {"query": self.tr("Query W_Q"), "key": self.tr("Key W_K"), "value": self.tr("Value W_V"),
                 "out": self.tr("Output W_O")}
        self.projection_heads[0].setText(self.tr("use weight"))
        self.projection_heads[1].setText(self.tr("use bias"))
        for name in PROJECTIONS:
            self.labels[f"projections.{name}"].setText(names[name])
            self.weight_checks[name].setAccessibleName(self.tr("use weight"))
            self.weight_checks[name].setToolTip(self.tr(
                "Off: no projection (identity), as in d2l's scoring functions. "
                "On: an nn.Linear weight (out x in) you can edit; it starts as an identity-like matrix."))
            self.bias_checks[name].setAccessibleName(self.tr("use bias"))
            self.bias_checks[name].setToolTip(self.tr("Add a bias vector to this projection (it starts at zero)."))
            self.edit_buttons[name].setText(self.tr("Edit"))
            self.edit_buttons[name].setToolTip(self.tr("Open this weight (and its bias) in the spreadsheet editor"))
        for name, b in self.additive_buttons.items():
            b.setText(self.tr("Edit {0}").format(name))
            b.setToolTip(self.tr("Open the additive weight {0} in the spreadsheet editor").format(name))
