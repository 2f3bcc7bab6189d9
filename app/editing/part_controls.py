"""The Parameters panel's "Position & modifiers" group, generated from the kinds' tables.

Why generated: a position encoding, score modifier or mask rule that says `in_panel = True` gets
a check box (add / remove its part, one undo command) and, while it is on, its plain fields as
controls built by app/editing/field_controls.py (one undo command per edit).  Which kinds, their
words and how a field reads and writes the scenario's part are app/viewmodel/field_values.py's
answers; this module names no kind.
"""
from __future__ import annotations

from typing import Any, Optional

from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import QCheckBox, QFormLayout, QGroupBox, QVBoxLayout, QWidget

from app.editing.field_controls import FieldControls, undo_words
from app.pipeline.document import Document
from app.viewmodel import field_values
from attention import Scenario, words
from attention.datamodel.fields import Field


class PartControls(QGroupBox):
    """One check box per offered kind, and under it the kind's fields while its part is on."""

    def __init__(self, doc: Document, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.doc = doc
        self.checks: dict[tuple[str, str], QCheckBox] = {}
        self.boxes: dict[tuple[str, str], QWidget] = {}  # the kind's fields, shown while its part is on
        self.controls: dict[tuple[str, str], FieldControls] = {}
        layout = QVBoxLayout(self)
        for family, kind in field_values.panel_kinds():
            self._add_kind(layout, family, kind)

    def _add_kind(self, layout: QVBoxLayout, family: str, kind: str) -> None:
        key = (family, kind)
        check = QCheckBox(self)
        check.toggled.connect(lambda on, k=key: self._toggle(k, on))
        box = QWidget(self)
        form = QFormLayout(box)
        form.setContentsMargins(18, 0, 0, 0)  # indented under its check box
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        fc = FieldControls(box, lambda f, v, k=key: self._edit(k, f, v), lambda: self.doc.scenario,
                           read=lambda sc, f, k=key: field_values.part_value(sc, *k, f))
        fc.add(form, field_values.part_fields(family, kind))
        self.checks[key], self.boxes[key], self.controls[key] = check, box, fc
        layout.addWidget(check)
        layout.addWidget(box)

    # ---- edits -------------------------------------------------------------------------------
    def _toggle(self, key: tuple[str, str], on: bool) -> None:
        """The kind's part added (field defaults) or removed: one undo command."""
        name = words.text(field_values.kind_words(*key)[0])
        text = words.text("parts.add.undo" if on else "parts.remove.undo", kind=name)
        self.doc.replace(field_values.with_part(self.doc.scenario, *key, on), text)

    def _edit(self, key: tuple[str, str], f: Field, value: Any) -> None:
        """One field of the part edited: one undo command (none when the value is already there)."""
        sc = self.doc.scenario
        old = field_values.part_value(sc, *key, f)
        if old == value and type(old) is type(value):
            return
        merge = f"{key[0]}.{key[1]}.{f.name}" if f.type == "int" else None  # holding an arrow: one step
        self.doc.replace(field_values.with_part_value(sc, *key, f, value), undo_words(f, value), merge_key=merge)

    # ---- scenario -> controls ------------------------------------------------------------------
    def inputs(self) -> list[QWidget]:
        return [*self.checks.values(), *(w for fc in self.controls.values() for w in fc.inputs())]

    def sync(self, sc: Scenario) -> None:
        """Tick the kinds the scenario has, show their fields with its values; never edits."""
        for key, check in self.checks.items():
            on = field_values.has_part(sc, *key)
            if check.isChecked() != on:
                with QSignalBlocker(check):
                    check.setChecked(on)
            if self.boxes[key].isHidden() == on:
                self.boxes[key].setVisible(on)
            if on:
                self.controls[key].sync(sc)

    # ---- problems ----------------------------------------------------------------------------
    def show_problems(self, grouped: dict[str, list]) -> None:
        """Take from `grouped` (app.editing.problems.group_by_control) the problems of the fields
        shown now and put each under its control; a key two shown kinds share stays for the window."""
        shown: dict[str, list[Any]] = {}
        for key, fc in self.controls.items():
            for name, label in fc.problem_labels.items():
                label.set_lines([])
                if not self.boxes[key].isHidden():
                    shown.setdefault(field_values.part_problem_key(key[0], fc.fields[name]), []).append(label)
        for problem_key, labels in shown.items():
            if len(labels) == 1 and problem_key in grouped:
                labels[0].set_lines(grouped.pop(problem_key))

    def clear_problems(self) -> None:
        for fc in self.controls.values():
            for label in fc.problem_labels.values():
                label.set_lines([])

    # ---- words -------------------------------------------------------------------------------
    def retranslate(self) -> None:
        self.setTitle(words.text("parts.group"))
        for key, check in self.checks.items():
            name, tip = field_values.kind_words(*key)
            check.setText(words.text(name))
            check.setToolTip(words.text(tip))
            self.controls[key].retranslate()
