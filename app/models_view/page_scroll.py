"""A dock's page that scrolls when the dock is shorter than what it holds, instead of squeezing it.

Without it a dock lays its widgets into whatever height it has: at 1280 x 720 the Model dock squeezed
SmolLM2's 30 x 9 grid to 4-px cells and cut the KV cache's wrapped labels to one line (issue 30).  In a
PageScroll the page keeps at least what its widgets need (wrapped labels their height for the width), takes
any spare height, and shows a vertical bar, which the wheel turns anywhere over the page, where it is taller.

Width: the dock asks for the page's own width (the Steps column pays for every pixel of it), and at the least
for the page's least width plus room for that bar, so a bar that appears never hides the page's right edge or
adds a horizontal bar.
"""
from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtWidgets import QFrame, QScrollArea, QWidget

#: the least height the page's viewport asks for (a dock is never squeezed below a few rows of it)
MIN_VIEW_HEIGHT = 120


class PageScroll(QScrollArea):
    """`page` in a frameless, width-following scroll area (vertical bar as needed)."""

    def __init__(self, page: QWidget, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setWidget(page)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        """The page's layout changed (another model, a label rewrapped): the dock asks for its size anew (a
        scroll area otherwise keeps the hints it first gave)."""
        if watched is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            self.updateGeometry()
        return super().eventFilter(watched, event)

    def _bar(self) -> int:
        return self.verticalScrollBar().sizeHint().width()

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        page = self.widget().sizeHint()
        return QSize(max(page.width(), self.minimumSizeHint().width()), page.height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        return QSize(self.widget().minimumSizeHint().width() + self._bar(), MIN_VIEW_HEIGHT)
