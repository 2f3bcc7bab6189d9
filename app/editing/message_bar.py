"""One non-modal message area at the top of the window (load errors, unexpected errors, notes).

Shows a title and the lines at once, so a bad file with five problems gives one message, not
five dialogs; at most MAX_LINES lines (then "… and N more"), each at most a few hundred
characters, so a file with 200,000 unknown fields or a 1 MB value cannot push the window off the
screen.  Problems are rendered in the window's language.  Closing it only hides it.
"""
from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QWidget

from app.editing.problems import Line, render, render_all

#: At most this many lines in the bar (the last then says how many more there are).
MAX_LINES = 12
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
        self._lines: list[Line] = []
        self._omitted = 0
        self.retranslate()
        self.hide()

    def show_message(self, title: str, lines: list[Line], level: str = "error", source: str = "",
                     omitted: int = 0) -> None:
        """`lines`: problems (attention.datamodel.problem.Problem) or plain text; `omitted`: how many more
        problems were found but not kept (said in the last line)."""
        self.level, self.source = level, source
        self._title, self._lines, self._omitted = title, list(lines), int(omitted)
        self.setStyleSheet(STYLES.get(level, STYLES["info"]))
        self._render()
        self.show()

    def _render(self) -> None:
        text = f"<b>{_escape(render(self._title))}</b>"
        if self._lines:
            shown = render_all(self._lines, MAX_LINES, self._omitted)
            text += "<br>" + "<br>".join(f"\u2022 {_escape(line)}" for line in shown)
        self.label.setText(text)

    def lines(self) -> list[str]:
        """Every line given, in English (as the engine says it); [] when hidden."""
        return [] if self.isHidden() else [render(x, "en") for x in self._lines]

    def problems(self) -> list[Line]:
        return [] if self.isHidden() else list(self._lines)

    def title(self) -> str:
        return "" if self.isHidden() else self._title

    def clear(self) -> None:
        self._title, self._lines, self._omitted, self.source = "", [], 0, ""
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

