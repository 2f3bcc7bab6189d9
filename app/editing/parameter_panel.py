"""The Parameters region: sizes, heads, scoring and its options, mask, projections, device.

Every control pushes one undo command through the document; `sync` puts the scenario's values
back into the controls (signals blocked, so syncing never edits).  `show_problems` places each
`attention.problems` line under the control that caused it and returns the lines it could not
place.
"""
from __future__ import annotations

import math
from typing import Callable, Optional

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

from app.editing.matrix_editor import MatrixEditor
from app.editing.problems import ProblemLabel, group_by_control
from app.editing.wide_spin import ExactDoubleSpinBox, WideSpinBox
from app.pipeline.document import Document, only_input_numbers_changed
from app.services.devices import available_devices
from app.viewmodel import edits
from app.viewmodel.matrix_ref import MatrixRef
from attention import Scenario, numbers
from attention.generators import MAX_ELEMENTS
from attention.scenario_io import INT_MAX

SCORINGS = ("scaled_dot", "dot", "additive", "prob_sparse")
PROJECTIONS = ("query", "key", "value", "out")
FILL_VALUES = (-1e6, -math.inf)
SIZE_FIELDS = ("batch", "L", "S", "d_model", "key_width", "value_width")
#: Every whole number of the format is at most scenario_io.INT_MAX (2**31 - 1): the controls
#: hold exactly that range, so whatever a file holds shows unclamped and whatever is typed saves.
UNBOUNDED = INT_MAX


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
        self.labels: dict[str, QLabel] = {}
        self.controls: dict[str, QWidget] = {}
        self.problem_labels: dict[str, ProblemLabel] = {}
        self.groups: dict[str, QGroupBox] = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        for build in (self._build_sizes, self._build_heads, self._build_scoring, self._build_mask,
                      self._build_projections, self._build_compute):
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

    def _spin(self, lo: int, hi: int, on_change: Callable[[int], None], special: str = "") -> WideSpinBox:
        s = WideSpinBox(self)
        s.setRange(lo, hi)
        s.setKeyboardTracking(False)  # one edit per committed number, not per keystroke
        s.setAccelerated(True)
        if special:
            s.setSpecialValueText(special)
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
        self._row(form, "n_heads", self._spin(1, UNBOUNDED, self._set_heads))
        self._row(form, "d_keys", self._spin(0, UNBOUNDED, lambda v: self._set_head_width("d_keys", v), special="auto"))
        self._row(form, "d_values", self._spin(0, UNBOUNDED, lambda v: self._set_head_width("d_values", v),
                                               special="auto"))
        return box

    def _build_scoring(self) -> QGroupBox:
        box, form = self._group("scoring")
        combo = QComboBox(self)
        combo.addItems([""] * len(SCORINGS))
        combo.currentIndexChanged.connect(self._set_scoring)
        self._row(form, "scoring", combo)
        scale_row = QWidget(self)
        h = QHBoxLayout(scale_row)
        h.setContentsMargins(0, 0, 0, 0)
        self.scale_auto = QCheckBox(self)
        self.scale_auto.toggled.connect(self._set_scale_auto)
        self.scale_spin = ExactDoubleSpinBox(self)  # every finite double, shown exactly
        self.scale_spin.setKeyboardTracking(False)
        self.scale_spin.valueChanged.connect(lambda v: self.doc.set_option("scale", float(v), self.tr("Change scale")))
        h.addWidget(self.scale_auto)
        h.addWidget(self.scale_spin, 1)
        self._row(form, "scale", scale_row)
        self.additive_box = QWidget(self)
        af = QFormLayout(self.additive_box)
        af.setContentsMargins(0, 0, 0, 0)
        self._row(af, "hidden", self._spin(1, UNBOUNDED, self._set_hidden), problem=False)
        buttons = QHBoxLayout()
        self.additive_buttons: dict[str, QPushButton] = {}
        for name in ("W_q", "W_k", "w_v"):
            b = QPushButton(self)
            b.clicked.connect(
                lambda _=False, n=name: self.edit_matrix.emit(MatrixRef(f"additive.{n}", 0 if n != "w_v" else None)))
            self.additive_buttons[name] = b
            buttons.addWidget(b)
        af.addRow(buttons)
        self._problem(af, "additive")
        form.addRow(self.additive_box)
        self.sparse_box = QWidget(self)
        pf = QFormLayout(self.sparse_box)
        pf.setContentsMargins(0, 0, 0, 0)
        # Through with_fields, not set_option: a sample recorded from a real model (sample_index)
        # no longer fits another factor, and a new seed means "draw from the seed" again.
        self._row(pf, "factor", self._spin(1, UNBOUNDED, lambda v: self._sampling("factor", int(v),
                                                                                  self.tr("Change factor"))))
        self._row(pf, "seed", self._spin(0, INT_MAX, lambda v: self._sampling("seed", int(v), self.tr("Change seed"))))
        mix = QCheckBox(self)
        mix.toggled.connect(lambda on: self.doc.set_option("mix", bool(on), self.tr("Change mix")))
        self._row(pf, "mix", mix)
        form.addRow(self.sparse_box)
        return box

    def _sampling(self, field: str, value: int, text: str) -> None:
        if getattr(self.doc.scenario, field) != value:
            self.doc.replace(edits.with_fields(self.doc.scenario, **{field: value}), text)

    def _build_mask(self) -> QGroupBox:
        box, form = self._group("mask")
        causal = QCheckBox(self)
        causal.toggled.connect(lambda on: self.doc.set_option("causal", bool(on), self.tr("Change causal mask")))
        self._row(form, "causal", causal)
        mode = QComboBox(self)
        mode.addItems([""] * len(edits.VALID_MODES))
        mode.currentIndexChanged.connect(self._set_valid_mode)
        self._row(form, "valid_mode", mode, problem=False)
        self.valid_editor = MatrixEditor(self.doc, MatrixRef("valid_lens"), compact=True, parent=self)
        form.addRow(self.valid_editor)
        self._problem(form, "valid_lens")
        fill = QComboBox(self)
        fill.addItems(["-1e6", "-inf"])
        fill.currentIndexChanged.connect(self._set_fill)
        self._row(form, "fill_value", fill)
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
        return box

    def _build_compute(self) -> QGroupBox:
        box, form = self._group("compute")
        device = QComboBox(self)
        device.currentIndexChanged.connect(
            lambda i: self.doc.set_option("device", device.itemData(i), self.tr("Change device")))
        self._row(form, "device", device)
        dtype = QComboBox(self)
        dtype.addItems(["float64", "float32"])
        dtype.currentTextChanged.connect(lambda t: self.doc.set_option("dtype", t, self.tr("Change precision")))
        self._row(form, "dtype", dtype)
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

    def _set_heads(self, value: int) -> None:
        if self._refuse_if_too_big("n_heads", n_heads=int(value)):
            return
        new = edits.with_fields(self.doc.scenario, n_heads=int(value))
        self.doc.replace(new, self.tr("Change heads to {0}").format(value), merge_key="n_heads")

    def _set_head_width(self, field: str, value: int) -> None:
        if self._refuse_if_too_big(field, **{field: int(value) or None}):
            return
        new = edits.with_fields(self.doc.scenario, **{field: int(value) or None})
        self.doc.replace(new, self.tr("Change {0}").format(self.labels[field].text()), merge_key=field)

    def _set_hidden(self, value: int) -> None:
        if self.doc.scenario.additive is not None:
            if self._refuse_if_too_big("additive", hidden=int(value)):
                return
            self.doc.replace(edits.with_hidden(self.doc.scenario, int(value)), self.tr("Change hidden size"),
                             merge_key="hidden")

    def _set_scoring(self, index: int) -> None:
        if 0 <= index < len(SCORINGS):
            kind = SCORINGS[index]
            self.doc.replace(edits.with_scoring(self.doc.scenario, kind), self.tr("Change scoring"))

    def _set_scale_auto(self, auto: bool) -> None:
        sc = self.doc.scenario
        try:
            value = None if auto else sc.resolved_scale()
        except (ZeroDivisionError, ValueError):
            value = None if auto else 1.0
        self.doc.set_option("scale", value, self.tr("Change scale"))

    def _set_valid_mode(self, index: int) -> None:
        mode = edits.VALID_MODES[index]
        self.doc.replace(edits.with_valid_mode(self.doc.scenario, mode), self.tr("Change valid lengths"))

    def _set_fill(self, index: int) -> None:
        value = self.controls["fill_value"].itemData(index)
        self.doc.set_option("fill_value", float(value), self.tr("Change fill value"))

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
                               ("key_width", sc.keys.shape[2]), ("value_width", sc.values.shape[2]),
                               ("n_heads", sc.n_heads), ("d_keys", sc.d_keys or 0), ("d_values", sc.d_values or 0),
                               ("factor", sc.factor), ("seed", sc.seed)):
                _set_value(c[key], int(value))
            _set_index(c["scoring"], SCORINGS.index(sc.scoring) if sc.scoring in SCORINGS else -1)
            _set_checked(self.scale_auto, sc.scale is None)
            _set_enabled(self.scale_spin, sc.scale is not None)
            try:
                _set_value(self.scale_spin, sc.resolved_scale())
            except (ZeroDivisionError, ValueError):
                pass
            _set_visible(self.additive_box, sc.scoring == "additive")
            _set_visible(self.sparse_box, sc.scoring == "prob_sparse")
            if sc.additive is not None:
                _set_value(c["hidden"], int(sc.additive.hidden))
            _set_checked(c["mix"], bool(sc.mix))
            _set_checked(c["causal"], bool(sc.causal))
            mode = edits.valid_mode(sc)
            _set_index(c["valid_mode"], edits.VALID_MODES.index(mode))
            _set_visible(self.valid_editor, mode != "none")
            self._sync_fill(sc)
            for name in PROJECTIONS:
                p = sc.projection(name)
                _set_checked(self.weight_checks[name], p is not None)
                _set_checked(self.bias_checks[name], p is not None and p.bias is not None)
                _set_enabled(self.bias_checks[name], p is not None)
                _set_enabled(self.edit_buttons[name], p is not None)
            self._sync_devices(sc)
            if c["dtype"].currentText() != sc.dtype:
                c["dtype"].setCurrentText(sc.dtype)
        finally:
            # unblock explicitly: blockers kept alive by the traceback of an exception raised
            # here (setValue(2**31) on a QSpinBox) were destroyed at exit after their widgets,
            # the likely cause of the `malloc_consolidate()` abort on quit (issue 13 item 3)
            for b in blockers:
                b.unblock()

    def _sync_fill(self, sc: Scenario) -> None:
        combo: QComboBox = self.controls["fill_value"]
        values = list(FILL_VALUES)
        if sc.fill_value not in values:
            values.append(float(sc.fill_value))
        if combo.count() != len(values):
            combo.clear()
            for v in values:
                combo.addItem(numbers.rounded(v), v)
        for i, v in enumerate(values):
            if combo.itemData(i) != v:
                combo.setItemData(i, v)
                if i >= len(FILL_VALUES):  # a file's own fill value: its text follows it
                    combo.setItemText(i, numbers.rounded(v))
        _set_index(combo, values.index(sc.fill_value))

    def _sync_devices(self, sc: Scenario) -> None:
        combo: QComboBox = self.controls["device"]
        devices = list(available_devices())
        if sc.device not in devices:
            devices.append(sc.device)
        if [combo.itemData(i) for i in range(combo.count())] != devices:
            combo.clear()
            for d in devices:
                combo.addItem(self._device_text(d), d)
        _set_index(combo, devices.index(sc.device))

    def _device_text(self, device: str) -> str:
        if device == "cpu":
            return "CPU"
        if device in available_devices():
            return "CUDA"
        return self.tr("{0} (not available here)").format(device.upper())

    def _all_inputs(self) -> list[QWidget]:
        return [*self.controls.values(), self.scale_auto, self.scale_spin,
                *self.weight_checks.values(), *self.bias_checks.values()]

    # ---- problems ----------------------------------------------------------------------------
    def show_problems(self, lines: list[str]) -> list[str]:
        """Put each line under its control; return the lines that belong elsewhere."""
        grouped = group_by_control(lines)
        hidden_with = {"factor": self.sparse_box, "seed": self.sparse_box, "mix": self.sparse_box,
                       "additive": self.additive_box}
        for key, label in self.problem_labels.items():
            box = hidden_with.get(key)
            if box is not None and box.isHidden():
                label.set_lines([])  # its control is not on screen: the window shows the line instead
                continue
            label.set_lines(grouped.pop(key, []))
        return [line for group in grouped.values() for line in group]

    def clear_problems(self) -> None:
        for label in self.problem_labels.values():
            label.set_lines([])

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
            "n_heads": (self.tr("Heads H"),
                        self.tr("Number of attention heads. "
                                "Head h owns columns (h-1)*d_k+1 to h*d_k of the projected queries and keys "
                                "(head 1 the first d_k).")),
            "d_keys": (self.tr("d_keys per head"),
                       self.tr("Query/key width of each head. auto = d_model / H, Time-Series-Library's default.")),
            "d_values": (self.tr("d_values per head"),
                         self.tr("Value width of each head. auto = d_model / H, Time-Series-Library's default.")),
            "scoring": (self.tr("Scoring"),
                        self.tr("How a query and a key give a score: scaled dot product q.k/sqrt(d_k), "
                                "plain dot product q.k, additive w_v^T tanh(W_q q + W_k k) (d2l), "
                                "or Informer's ProbSparse (only the top queries get full attention).")),
            "scale": (self.tr("Scale"),
                      self.tr("Number the scores are multiplied by. "
                              "auto = 1/sqrt(d_k) for scaled dot product and ProbSparse, "
                              "1 for dot product and additive. "
                              "Untick auto to type your own.")),
            "hidden": (self.tr("Hidden size"), self.tr("Additive attention: width of W_q q + W_k k before tanh.")),
            "factor": (self.tr("Factor c"),
                       self.tr("ProbSparse: samples c*ceil(ln S) keys per query "
                               "and keeps the top c*ceil(ln L) queries.")),
            "seed": (self.tr("Sampling seed"),
                     self.tr("ProbSparse: seed of the random key sample; "
                             "the same seed gives the same sample as torch.manual_seed before Informer's forward.")),
            "mix": (self.tr("Mix heads (TSL)"),
                    self.tr("ProbSparse: reproduce Time-Series-Library's view of (B,H,L,D) as (B,L,H*D) "
                            "without a transpose, which mixes positions and heads.")),
            "causal": (self.tr("Causal"), self.tr("Hide later keys: query l may only attend to keys s <= l.")),
            "valid_mode": (self.tr("Valid lengths"),
                           self.tr("d2l valid lengths: key s is hidden when s >= the length. "
                                   "None, one length per batch item, or one per batch item and query row. "
                                   "Edit them in the small table.")),
            "fill_value": (self.tr("Fill value"),
                           self.tr("What masked scores become before softmax: "
                                   "-1e6 (d2l; a fully masked row becomes uniform) "
                                   "or -inf (a fully masked row becomes NaN).")),
            "device": (self.tr("Device"),
                       self.tr("Where the engine computes: CPU, or CUDA when this machine has a usable GPU.")),
            "dtype": (self.tr("Precision"),
                      self.tr("float64 matches hand calculation; float32 is what models usually run in.")),
        }
        for key, (text, tip) in texts.items():
            self.labels[key].setText(text)
            self.labels[key].setToolTip(tip)
            self.controls[key].setToolTip(tip)
        self.controls["d_keys"].setSpecialValueText(self.tr("auto"))
        self.controls["d_values"].setSpecialValueText(self.tr("auto"))
        self.scale_auto.setText(self.tr("auto"))
        self.scale_auto.setToolTip(texts["scale"][1])
        self.scale_spin.setToolTip(texts["scale"][1])
        scorings = (self.tr("Scaled dot product"), self.tr("Dot product"), self.tr("Additive (d2l)"),
                    self.tr("ProbSparse (Informer)"))
        for i, text in enumerate(scorings):
            self.controls["scoring"].setItemText(i, text)
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
        device = self.controls["device"]
        for i in range(device.count()):
            device.setItemText(i, self._device_text(device.itemData(i)))
