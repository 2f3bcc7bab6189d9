"""The slide's head picker: "Heads: All 1 2 … 8" beside the shape line.

Keys 1–9 and A already show one head or all of them; a teacher who does not know the keys sees
the heads here and clicks one, and the class sees which head is on screen (the button is
pressed).  Shown only while the trace has more than one head.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from app.services import i18n
from app.teaching.presentation.zoomed_pane import pane_font_px
from app.viewmodel import pane_text

if TYPE_CHECKING:
    from app.teaching.presentation.slide_host import SlideHost

#: the buttons' font at zoom 1 (19 px at the slides' default 125 %)
FONT_PX = 15


class HeadPicker(QWidget):
    """A row of checkable buttons: All, then one per head."""

    def __init__(self, view: "SlideHost") -> None:
        super().__init__(view.slide)
        self.view = view
        self.label = QLabel()
        self.all_button = self._button(-1)
        self.buttons: list[QPushButton] = []
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(4)
        row.addWidget(self.label)
        row.addWidget(self.all_button)
        self.row = row
        self._px, self._css = 0, ""
        self.hide()

    def _button(self, head: int) -> QPushButton:
        b = QPushButton(self)
        b.setCheckable(True)
        b.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the keys belong to the slide show
        b.clicked.connect(lambda *_: self.view.set_focus_head(head))
        return b

    def show_heads(self, n_heads: int, focus: int) -> None:
        """`n_heads` buttons (hidden with one head), the one shown (`focus`, -1: all) pressed."""
        while len(self.buttons) < n_heads:
            b = self._button(len(self.buttons))
            b.setText(str(len(self.buttons) + 1))
            b.setStyleSheet(self._css)
            self.row.addWidget(b)
            self.buttons.append(b)
        for i, b in enumerate(self.buttons):
            b.setVisible(i < n_heads)
            b.setChecked(i == focus)
        self.all_button.setChecked(focus < 0)
        self.setVisible(n_heads > 1)
        self.retranslate()

    def retranslate(self) -> None:
        lang = i18n.current_language()
        self.label.setText(pane_text.ui("heads_label", lang))
        self.all_button.setText(pane_text.ui("all_heads", lang))
        for i, b in enumerate(self.buttons):
            b.setToolTip(pane_text.head_name(i, lang) + f" ({i + 1})" if i < 9 else pane_text.head_name(i, lang))
        self.all_button.setToolTip(pane_text.ui("all_heads", lang) + " (A)")

    def apply_fonts(self, zoom: float) -> None:
        px = pane_font_px(FONT_PX, zoom)
        if px == self._px:
            return
        self._px = px
        self.label.setStyleSheet(f"font-size: {px}px; color: #555;")
        css = self._css = (f"QPushButton {{ font-size: {px}px; padding: 1px 8px; }} "
               f"QPushButton:checked {{ background: #1f5fbf; color: white; border: 1px solid #1f5fbf; }}")
        for b in [self.all_button, *self.buttons]:
            b.setStyleSheet(css)
