"""One non-modal message area at the top of the window (load errors, unexpected errors, notes).

Shows a title and every line at once, so a bad file with five problems gives one message, not
five dialogs.  Closing it only hides it.
"""
from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QWidget

from app.editing.problems import localize

STYLES = {
    "error": "QFrame#MessageBar { background: #fdecea; border: 1px solid #e0a8a8; border-radius: 3px; }",
    "warning": "QFrame#MessageBar { background: #fff6e0; border: 1px solid #e6cf8b; border-radius: 3px; }",
    "info": "QFrame#MessageBar { background: #e8f1fb; border: 1px solid #a9c6e8; border-radius: 3px; }",
}


class MessageBar(QFrame):
    def __init__(self, parent: Optional[QWidget] = None):
        super().__init__(parent)
        self.setObjectName("MessageBar")
        self.level = "info"
        self.source = ""  # who showed it: "engine" messages are replaced by the next result
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.close_button = QToolButton(self)
        self.close_button.setText("\u2715")
        self.close_button.setAutoRaise(True)
        self.close_button.clicked.connect(self.hide)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 4, 4)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignTop)
        self._title = ""
        self._lines: list[str] = []
        self.retranslate()
        self.hide()

    def show_message(self, title: str, lines: list[str], level: str = "error", source: str = "") -> None:
        self.level, self.source = level, source
        self._title, self._lines = title, list(lines)
        self.setStyleSheet(STYLES.get(level, STYLES["info"]))
        self._render()
        self.show()

    def _render(self) -> None:
        text = f"<b>{_escape(self._title)}</b>"
        if self._lines:
            text += "<br>" + "<br>".join(f"\u2022 {_escape(localize(line))}" for line in self._lines)
        self.label.setText(text)

    def lines(self) -> list[str]:
        return [] if self.isHidden() else list(self._lines)

    def title(self) -> str:
        return "" if self.isHidden() else self._title

    def clear(self) -> None:
        self._title, self._lines, self.source = "", [], ""
        self.hide()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
            self._render()
        super().changeEvent(event)

    def retranslate(self) -> None:
        self.close_button.setToolTip(self.tr("Hide this message"))


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
