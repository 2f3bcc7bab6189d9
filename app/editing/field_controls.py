"""Labelled controls generated from Field records (attention/datamodel/fields.py), as pyqtgraph's
parametertree builds widgets from a list of descriptions.

Why: the Parameters panel had one hand-written control, label, tooltip, sync line and retranslate
entry per option.  Here a record is enough: its type picks the widget, its range the spin box's
limits, its words (catalogue keys) the label, tooltip, choice texts and undo words, and `sync`
reads its value from a scenario.  A scoring kind's own fields (``kind.fields``) are passed to the
same builder, so a new kind needs no new control written by hand.

The widget of each type:
- int: a spin box over [minimum, maximum]; nullable: one step below the minimum reads "auto";
- float: an exact double spin box; nullable: an "auto" check box beside it (the box shows the
  automatic value, greyed); with `choices`: a menu of those numbers (a scenario's own number is
  one more entry);
- bool: a check box;  choice: a menu of the choices' words (values offered now only, plus the
  scenario's own value if it is not one of them, marked "not available here").

Every edit calls `edit(field, value)` once (the panel turns it into one undo command); `sync`
never edits (it blocks the widgets' signals).
"""
from __future__ import annotations

import math
from typing import Any, Callable, Mapping, Optional, Sequence

from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import QCheckBox, QComboBox, QFormLayout, QHBoxLayout, QLabel, QWidget

from app.editing.problems import ProblemLabel
from app.editing.wide_spin import ExactDoubleSpinBox, WideSpinBox
from app.viewmodel import field_values
from attention import Scenario, words
from attention.datamodel import numbers
from attention.datamodel.fields import INT_MAX, Field

Edit = Callable[[Field, Any], None]


def undo_words(field: Field, value: Any) -> str:
    """The undo command's words for setting `field` to `value`, in the current language."""
    return words.text(field.undo or "field.undo", label=words.text(field.label), value=value)


def number_text(x: float) -> str:
    """A number of a menu: "-inf" as a file writes it, else attention.datamodel.numbers' short form."""
    if math.isinf(x):
        return "-inf" if x < 0 else "inf"
    return numbers.rounded(x)


class FieldControls:
    """The controls of any number of Field records, placed in forms the caller owns.

    `labels`, `controls` and `problem_labels` are keyed by the field's name (its last key part),
    the keys the panel's problem routing (app.editing.problems.control_key) uses.  The owner may
    put hand-written rows in the same dicts; `fields` names the generated ones."""

    def __init__(self, owner: QWidget, edit: Edit, current: Callable[[], Scenario],
                 offered: Optional[Mapping[str, Callable[[], Sequence[Any]]]] = None,
                 read: Callable[[Scenario, Field], Any] = field_values.value,
                 auto: Callable[[Scenario, Field], Any] = field_values.auto_value) -> None:
        self.owner, self.edit, self.current = owner, edit, current
        self.offered = dict(offered or {})  # field name -> the values offered now (devices available)
        self.read, self.auto = read, auto
        self.fields: dict[str, Field] = {}
        self.labels: dict[str, QLabel] = {}
        self.controls: dict[str, QWidget] = {}
        self.problem_labels: dict[str, ProblemLabel] = {}
        self.auto_boxes: dict[str, QCheckBox] = {}  # a nullable float's "auto"
        self.number_boxes: dict[str, ExactDoubleSpinBox] = {}  # a nullable float's number

    # ---- building ------------------------------------------------------------------------------
    def add(self, form: QFormLayout, fields: Sequence[Field], problems: bool = True) -> None:
        """One labelled row per field in `form` (and a problem label under each when asked)."""
        for f in fields:
            if f.name in self.fields:
                raise ValueError(f"field {f.name!r} added twice")
            self.fields[f.name] = f
            label, control = QLabel(self.owner), self._control(f)
            self.labels[f.name], self.controls[f.name] = label, control
            form.addRow(label, control)
            if problems:
                self.problem_labels[f.name] = ProblemLabel(self.owner)
                form.addRow(self.problem_labels[f.name])

    def _control(self, f: Field) -> QWidget:
        if f.type == "bool":
            box = QCheckBox(self.owner)
            box.toggled.connect(lambda on: self.edit(f, bool(on)))
            return box
        if f.type == "choice" or (f.type == "float" and f.choices):
            combo = QComboBox(self.owner)
            # a long choice ("De-stationary (Non-stationary Transformer)") must not widen the panel and
            # push the window past a 1280-px screen: the box is as wide as ~14 characters at least and
            # elides the rest (the open list shows every word in full)
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(14)
            combo.currentIndexChanged.connect(lambda i: self._chose(f, combo, i))
            return combo
        if f.type == "int":
            return self._int_spin(f)
        return self._float_row(f) if f.nullable else self._float_spin(f)

    def _int_spin(self, f: Field) -> WideSpinBox:
        lo = int(f.minimum if f.minimum is not None else 0)
        hi = int(f.maximum if f.maximum is not None else INT_MAX)
        spin = WideSpinBox(self.owner)
        spin.setRange(lo - 1 if f.nullable else lo, hi)  # nullable: the step below reads "auto"
        spin.setKeyboardTracking(False)  # one edit per committed number, not per keystroke
        spin.setAccelerated(True)
        auto_at = spin.minimum() if f.nullable else None
        spin.valueChanged.connect(lambda v: self.edit(f, None if v == auto_at else int(v)))
        return spin

    def _float_spin(self, f: Field) -> ExactDoubleSpinBox:
        spin = ExactDoubleSpinBox(self.owner)  # every finite double, shown exactly
        if f.minimum is not None or f.maximum is not None:
            spin.setRange(spin.minimum() if f.minimum is None else f.minimum,
                          spin.maximum() if f.maximum is None else f.maximum)
        spin.setKeyboardTracking(False)
        spin.valueChanged.connect(lambda v: self.edit(f, float(v)))
        return spin

    def _float_row(self, f: Field) -> QWidget:
        row = QWidget(self.owner)
        h = QHBoxLayout(row)
        h.setContentsMargins(0, 0, 0, 0)
        box, spin = QCheckBox(self.owner), self._float_spin(f)
        box.toggled.connect(lambda on: self._auto_toggled(f, on))
        h.addWidget(box)
        h.addWidget(spin, 1)
        self.auto_boxes[f.name], self.number_boxes[f.name] = box, spin
        return row

    def _auto_toggled(self, f: Field, on: bool) -> None:
        if on:
            self.edit(f, None)
            return
        try:  # unticked: start from the value auto stood for
            value = float(self.auto(self.current(), f))
        except (ZeroDivisionError, ValueError):
            value = 1.0
        self.edit(f, value)

    def _chose(self, f: Field, combo: QComboBox, index: int) -> None:
        if index < 0:
            return
        value = combo.itemData(index)
        self.edit(f, float(value) if f.type == "float" else value)

    # ---- scenario -> controls ------------------------------------------------------------------
    def inputs(self) -> list[QWidget]:
        """The widgets that emit edits (a nullable float's row is two of them)."""
        own = [self.controls[name] for name in self.fields if name not in self.auto_boxes]
        return own + [*self.auto_boxes.values(), *self.number_boxes.values()]

    def sync(self, sc: Scenario) -> None:
        """Show `sc`'s values, touching only widgets whose value differs; never edits."""
        blockers = [QSignalBlocker(w) for w in self.inputs()]
        try:
            for name, f in self.fields.items():
                self._show(f, self.controls[name], self.read(sc, f), sc)
        finally:
            for b in blockers:
                b.unblock()

    def _show(self, f: Field, control: QWidget, value: Any, sc: Scenario) -> None:
        if isinstance(control, QCheckBox):
            if control.isChecked() != bool(value):
                control.setChecked(bool(value))
        elif isinstance(control, QComboBox):
            self._show_choice(f, control, value)
        elif isinstance(control, WideSpinBox):
            shown = control.minimum() if value is None else int(value)
            if control.value() != shown:
                control.setValue(shown)
        elif f.name in self.auto_boxes:
            box, spin = self.auto_boxes[f.name], self.number_boxes[f.name]
            if box.isChecked() != (value is None):
                box.setChecked(value is None)
            if spin.isEnabled() != (value is not None):
                spin.setEnabled(value is not None)
            try:
                number = float(self.auto(sc, f)) if value is None else float(value)
            except (ZeroDivisionError, ValueError):
                return
            _set_float(spin, number)
        elif value is not None:
            _set_float(control, float(value))

    def _values(self, f: Field, value: Any) -> list[Any]:
        source = self.offered.get(f.name)
        values = list(source() if source is not None else f.choices)
        if value is not None and value not in values:
            values.append(value)  # a file's own number, or a device this machine lacks
        return values

    def _show_choice(self, f: Field, combo: QComboBox, value: Any) -> None:
        values = self._values(f, value)
        if [combo.itemData(i) for i in range(combo.count())] != values:
            combo.clear()
            for v in values:
                combo.addItem(self._choice_text(f, v), v)
        index = values.index(value) if value in values else -1
        if combo.currentIndex() != index:
            combo.setCurrentIndex(index)

    def _choice_text(self, f: Field, value: Any) -> str:
        if f.type == "float":
            return number_text(float(value))
        word = words.text(f.choice_words[f.choices.index(value)]) if value in f.choices and f.choice_words \
            else str(value)
        source = self.offered.get(f.name)
        if source is not None and value not in source():
            return words.text("field.unavailable", value=word)
        return word

    # ---- words ---------------------------------------------------------------------------------
    def retranslate(self) -> None:
        """Labels, tooltips, "auto" and the choices' words, from the catalogue's current language."""
        auto = words.text("field.auto")
        for name, f in self.fields.items():
            text, tip = words.text(f.label), words.text(f.help)
            self.labels[name].setText(text)
            self.labels[name].setToolTip(tip)
            control = self.controls[name]
            control.setToolTip(tip)
            if isinstance(control, WideSpinBox) and f.nullable:
                control.setSpecialValueText(auto)
            elif isinstance(control, QComboBox):
                for i in range(control.count()):
                    control.setItemText(i, self._choice_text(f, control.itemData(i)))
            if name in self.auto_boxes:
                self.auto_boxes[name].setText(auto)
                self.auto_boxes[name].setToolTip(tip)
                self.number_boxes[name].setToolTip(tip)


def _set_float(spin: ExactDoubleSpinBox, value: float) -> None:
    """setValue only when the shown value would change (a double spin box rounds to its decimals)."""
    if round(spin.value(), spin.decimals()) != round(float(value), spin.decimals()):
        spin.setValue(value)
