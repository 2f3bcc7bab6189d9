"""The tiles dialog's quiz: after each tile, one running value of the block is asked (cycling m, ℓ,
O), its new numbers hidden until the student types an answer and presses Check (or Return).

A number counts as right when it reads the same to 4 significant digits as the walk's value (the
digits every cell shows: attention.datamodel.numbers.rounded); `-inf` and `∞` are read as infinities.
"""
from __future__ import annotations

from typing import Optional

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QWidget

from attention import words
from attention.datamodel import numbers

#: How the quiz names the running values it asks about.
NAMES = {"m": "m", "l": "ℓ", "O": "O[1]"}


def question_of(tile) -> tuple[str, int, int]:
    """The running value asked after `tile`: (what, query row, column), cycling m, l, O and the
    block's rows with the tile's place in the walk."""
    what = ("m", "l", "O")[tile.order % 3]
    n = tile.rows[1] - tile.rows[0]
    return what, tile.rows[0] + tile.order % n, 0


def value_of(tile, what: str, b: int, h: int, row: int, col: int) -> float:
    """The walk's own value of the question (after `tile`)."""
    i = row - tile.rows[0]
    return float({"m": tile.m_new, "l": tile.l_new, "O": tile.O_new[..., col]}[what][b, h, i])


def read_answer(text: str) -> Optional[float]:
    """What the student typed as a number (U+2212 and `inf` accepted), None when it is none."""
    try:
        return numbers.read(text.replace("−", "-").replace("-inf", "-∞").replace("inf", "∞"))
    except ValueError:
        return None


def is_right(got: float, value: float) -> bool:
    return numbers.rounded(got) == numbers.rounded(value) or got == value


class QuizRow(QWidget):
    """The question, the answer box, Check and the verdict, in one row."""

    submitted = Signal()  # Check pressed, or Return in the box

    def __init__(self, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.question = QLabel()
        self.answer = QLineEdit()
        self.check_button = QPushButton()
        self.feedback = QLabel()
        self.feedback.setWordWrap(True)
        self.answer.returnPressed.connect(self.submitted)
        self.check_button.clicked.connect(self.submitted)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        for w, stretch in ((self.question, 0), (self.answer, 0), (self.check_button, 0), (self.feedback, 1)):
            row.addWidget(w, stretch)
        self.retranslate()

    def retranslate(self) -> None:
        self.check_button.setText(words.text("tiles.view.check"))

    def ask(self, what: str, row: int) -> None:
        self.question.setText(words.text("tiles.view.question", what=NAMES[what], r=row + 1))
        self.feedback.setText("")
        self.answer.setFocus()

    def judge(self, text: str, what: str, value: float) -> Optional[bool]:
        """Say whether `text` is right; None (and why) when it is not a number."""
        got = read_answer(text)
        if got is None:
            self.feedback.setText(words.text("tiles.view.not_number", text=text))
            return None
        right = is_right(got, value)
        key = "tiles.view.right" if right else "tiles.view.wrong"
        self.answer.clear()
        self.feedback.setText(words.text(key, what=NAMES[what], value=numbers.rounded(value), got=text.strip()))
        return right
