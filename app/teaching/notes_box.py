"""The preset's notes above the Inputs: as tall as their text, up to a share of the window.

A fixed 120-px box showed two lines of a ten-line note and hid the rest behind a scrollbar;
a note is read once, before the numbers, so it gets the room it needs (up to MAX_SHARE of the
window's height, beyond which it scrolls).
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QWidget

#: the most of the window's height the notes take before they scroll
MAX_SHARE = 0.3
MIN_HEIGHT = 40
CSS = ("QScrollArea { background: #fbfbf3; border: 1px solid #ddd; }"
       " QLabel { background: #fbfbf3; color: #333; padding: 4px; }")


class NotesBox(QScrollArea):
    """A scroll area around `label` whose height follows the label's wrapped text."""

    def __init__(self, label: QLabel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._want = MIN_HEIGHT  # the height the text asks for (within the cap)
        self.label = label
        self.setWidget(label)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setStyleSheet(CSS)
        self.setMinimumHeight(MIN_HEIGHT)  # never more: a short window squeezes the notes, not the numbers
        label.installEventFilter(self)

    def set_text(self, text: str) -> None:
        self.label.setText(text)
        self.fit()

    def fit(self) -> None:
        """Height = the text's height at the current width, within [MIN_HEIGHT, MAX_SHARE of the window]."""
        width = max(self.viewport().width(), 100)
        frame = 2 * self.frameWidth()
        content = self.label.heightForWidth(width) + frame
        window = self.window()
        cap = int(window.height() * MAX_SHARE) if window is not None and window is not self else 240
        height = max(min(content, max(cap, MIN_HEIGHT)), MIN_HEIGHT)
        if height != self._want or self.maximumHeight() != height:
            self._want = height
            self.setMaximumHeight(height)
            self.updateGeometry()

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override): the layout gives the text its height when it can
        return QSize(super().sizeHint().width(), self._want)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        return QSize(super().minimumSizeHint().width(), MIN_HEIGHT)

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.fit()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if watched is self.label and event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self.fit()
        return super().eventFilter(watched, event)

    def showEvent(self, event) -> None:  # noqa: N802 (Qt override)
        super().showEvent(event)
        self.fit()
