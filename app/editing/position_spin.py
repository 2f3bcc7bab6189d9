"""A spin box that picks an index (a batch item) and shows it as the position a person reads.

Its value() is the code's index, from 0, as everything behind it expects; its text is that index
counted from 1 (attention.datamodel.numbers.position), as the editors' row headers and the heatmaps' axes:
the first batch item reads "1".  What a person types back is read the same way.
"""
from __future__ import annotations

from PySide6.QtGui import QValidator
from PySide6.QtWidgets import QSpinBox

from attention.datamodel import numbers


class PositionSpinBox(QSpinBox):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # QSpinBox wrote its first text before this class's textFromValue could answer
        self.lineEdit().setText(self.textFromValue(self.value()))

    def textFromValue(self, value: int) -> str:  # noqa: N802 (Qt override)
        return numbers.position(value)

    def valueFromText(self, text: str) -> int:  # noqa: N802 (Qt override)
        try:
            return numbers.index_of(text)
        except ValueError:
            return self.value()

    def validate(self, text: str, pos: int):  # Qt override: positions from 1, not indices from 0
        stripped = text.strip()
        if not stripped:
            return QValidator.State.Intermediate, text, pos
        try:
            index = numbers.index_of(stripped)
        except ValueError:
            return QValidator.State.Invalid, text, pos
        ok = self.minimum() <= index <= self.maximum()
        return (QValidator.State.Acceptable if ok else QValidator.State.Intermediate), text, pos
