"""Spin boxes that hold every value the scenario format allows.

QSpinBox holds a C int (setValue(2**31) raises OverflowError; the panel was then left half
synced) and clamps to its range (a file's `hidden` 10000 showed 4096).  `WideSpinBox` keeps a
Python int of any size between its minimum and maximum; `ExactDoubleSpinBox` shows a float as
Python writes it (shortest exact text: 5000000.0, 1e-09), never rounded to a few decimals.
Both keep QSpinBox's API where the panel uses it: value, setValue, setRange, minimum, maximum,
valueChanged, setSpecialValueText, keyboard tracking, arrows and Page Up/Down.
"""
from __future__ import annotations

import math
import sys
from typing import Optional

from PySide6.QtCore import QSize, Signal
from PySide6.QtGui import QValidator
from PySide6.QtWidgets import QAbstractSpinBox, QDoubleSpinBox, QWidget

Acceptable, Intermediate, Invalid = (QValidator.State.Acceptable, QValidator.State.Intermediate,
                                     QValidator.State.Invalid)


class WideSpinBox(QAbstractSpinBox):
    """An integer spin box over Python ints (no 32-bit limit)."""

    valueChanged = Signal(object)  # the new int (object: a Qt int signal would overflow too)

    def __init__(self, parent: Optional[QWidget] = None):
        super().__init__(parent)
        self._min, self._max, self._value = 0, 99, 0
        self._editing = False
        self.lineEdit().textEdited.connect(self._on_text_edited)
        self.editingFinished.connect(self._commit_text)
        self._show()

    # ---- value -------------------------------------------------------------------------------
    def value(self) -> int:
        return self._value

    def setValue(self, value: int) -> None:  # noqa: N802 (Qt API)
        value = min(max(int(value), self._min), self._max)
        changed = value != self._value
        self._value = value
        self._show()
        if changed:
            self.valueChanged.emit(value)

    def minimum(self) -> int:
        return self._min

    def maximum(self) -> int:
        return self._max

    def setRange(self, lo: int, hi: int) -> None:  # noqa: N802
        self._min, self._max = int(lo), max(int(lo), int(hi))
        if not self._min <= self._value <= self._max:
            self.setValue(self._value)
        self.updateGeometry()

    def setMinimum(self, lo: int) -> None:  # noqa: N802
        self.setRange(lo, max(lo, self._max))

    def setMaximum(self, hi: int) -> None:  # noqa: N802
        self.setRange(min(self._min, hi), hi)

    # ---- text --------------------------------------------------------------------------------
    def setSpecialValueText(self, text: str) -> None:  # noqa: N802
        """Redraw at once: a box that starts at its minimum never gets a setValue, so without
        this it kept showing "0" where the special text ("auto") belongs."""
        super().setSpecialValueText(text)
        self._show()
        self.updateGeometry()

    def textFromValue(self, value: int) -> str:  # noqa: N802
        if value == self._min and self.specialValueText():
            return self.specialValueText()
        return str(value)

    def valueFromText(self, text: str) -> Optional[int]:  # noqa: N802
        text = text.strip()
        if self.specialValueText() and text == self.specialValueText():
            return self._min
        try:
            return int(text.replace(",", "").replace("_", "").replace(" ", ""))
        except ValueError:
            return None

    def validate(self, text: str, pos: int):
        plain = text.strip()
        special = self.specialValueText()
        if special and plain == special:
            return Acceptable, text, pos
        if special and special.startswith(plain):
            return Intermediate, text, pos
        if plain in ("", "-", "+"):
            return Intermediate, text, pos
        if len(plain) > 4300:  # Python's int <-> str limit
            return Invalid, text, pos
        value = self.valueFromText(plain)
        if value is None:
            return Invalid, text, pos
        if self._min <= value <= self._max:
            return Acceptable, text, pos
        # 1 on the way to 12 when the minimum is 5: let the person keep typing
        return (Intermediate if value >= 0 and value < self._min else Invalid), text, pos

    def fixup(self, text: str) -> str:
        return self.textFromValue(self._value)

    def _show(self) -> None:
        text = self.textFromValue(self._value)
        if self.lineEdit().text() != text:
            self.lineEdit().setText(text)

    def _on_text_edited(self, text: str) -> None:
        if self.keyboardTracking():
            value = self.valueFromText(text)
            if value is not None and self._min <= value <= self._max:
                self._editing = True
                try:
                    self.setValue(value)
                finally:
                    self._editing = False

    def _commit_text(self) -> None:
        value = self.valueFromText(self.lineEdit().text())
        if value is not None and self._min <= value <= self._max:
            self.setValue(value)
        self._show()  # anything else: back to the value

    # ---- stepping ----------------------------------------------------------------------------
    def stepBy(self, steps: int) -> None:  # noqa: N802
        self._commit_text()
        self.setValue(self._value + steps)
        self.selectAll()

    def stepEnabled(self):  # noqa: N802
        flags = QAbstractSpinBox.StepEnabledFlag.StepNone
        if self.isReadOnly():
            return flags
        if self._value < self._max:
            flags |= QAbstractSpinBox.StepEnabledFlag.StepUpEnabled
        if self._value > self._min:
            flags |= QAbstractSpinBox.StepEnabledFlag.StepDownEnabled
        return flags

    # ---- size --------------------------------------------------------------------------------
    def sizeHint(self) -> QSize:  # noqa: N802
        """Wide enough for the value shown, the minimum and a 6-digit number (not for 2**63: a
        seed that long scrolls in its box, the panel stays narrow)."""
        hint = super().sizeHint()
        fm = self.fontMetrics()
        texts = [self.textFromValue(self._min), "999999", self.specialValueText()]
        width = max(fm.horizontalAdvance(t) for t in texts)
        return QSize(max(hint.width(), width + 40), hint.height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return self.sizeHint()


class ExactDoubleSpinBox(QDoubleSpinBox):
    """A float spin box that shows the exact value (Python's shortest repr), over the whole range
    of finite doubles: nothing is rounded to 6 decimals (1e-09 is not 0) or clamped to +-1e6."""

    def __init__(self, parent: Optional[QWidget] = None):
        super().__init__(parent)
        self.setDecimals(323)  # Qt's maximum: QDoubleSpinBox never rounds a double then
        self.setRange(-sys.float_info.max, sys.float_info.max)

    def textFromValue(self, value: float) -> str:  # noqa: N802
        value = float(value)
        if value == int(value) and abs(value) < 1e16:
            return str(int(value)) if abs(value) < 1e6 else repr(value)
        return repr(value)

    def valueFromText(self, text: str) -> float:  # noqa: N802
        try:
            value = float(text.strip().replace(",", "."))
        except ValueError:
            return self.value()
        return value if math.isfinite(value) else self.value()

    def validate(self, text: str, pos: int):
        plain = text.strip().replace(",", ".")
        if plain in ("", "-", "+", ".", "-.", "+.") or plain.lower().endswith(("e", "e-", "e+")):
            return Intermediate, text, pos
        try:
            value = float(plain)
        except ValueError:
            return Invalid, text, pos
        if not math.isfinite(value) or plain.lower() in ("nan", "inf", "-inf", "infinity"):
            return Invalid, text, pos
        return (Acceptable if self.minimum() <= value <= self.maximum() else Invalid), text, pos

    def fixup(self, text: str) -> str:
        return self.textFromValue(self.value())

    def sizeHint(self) -> QSize:  # noqa: N802
        hint = super().sizeHint()
        width = self.fontMetrics().horizontalAdvance("-0.35355339059327373") + 40
        return QSize(min(hint.width(), width), hint.height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return QSize(min(super().minimumSizeHint().width(), 80), super().minimumSizeHint().height())
