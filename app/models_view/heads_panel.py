"""The Heads part of the Model dock: what the knocked-out heads did, the second prompt, the importance map's
buttons, progress bar and Cancel.  A view: app.models_view.head_tools fills it and acts on its signals."""
from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QEvent, QSignalBlocker, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from app.services import i18n
from attention import words

#: the pause after typing in the second prompt box before it counts (as the Sentence box's)
EDIT_PAUSE_MS = 300


class HeadsPanel(QWidget):
    """Laid out whole on the Model dock's page, which scrolls where the dock is shorter (app.models_view.
    page_scroll): a scroll area of its own inside that page cut its hint and its before → after in half at
    1280 x 720, one scroll bar inside another."""

    secondEdited = Signal(str)
    mapRequested = Signal(str)  # "knock" or "patch"
    cancelRequested = Signal()
    mapClosed = Signal()

    def __init__(self, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.text.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.second_label = QLabel()
        self.second_label.setWordWrap(True)
        self.second = QLineEdit()
        self.second_count = QLabel()
        self.second_count.setStyleSheet("color: #555;")
        self.second_count.setWordWrap(True)
        self.map_button, self.patch_button = QPushButton(), QPushButton()
        self.cancel = QPushButton()
        self.progress = QProgressBar()
        self.progress.setTextVisible(False)
        self.progress.setMaximumHeight(12)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setStyleSheet("color: #555;")
        self.map_title = QLabel()
        self.map_title.setWordWrap(True)
        self.close_map = QPushButton()
        for w in (self.map_button, self.patch_button, self.cancel, self.close_map):
            w.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(EDIT_PAUSE_MS)
        self._timer.timeout.connect(self.commit_second)
        self.second.textEdited.connect(lambda _t: self._timer.start())
        self.second.returnPressed.connect(self.commit_second)
        self.map_button.clicked.connect(lambda: self.mapRequested.emit("knock"))
        self.patch_button.clicked.connect(lambda: self.mapRequested.emit("patch"))
        self.cancel.clicked.connect(self.cancelRequested)
        self.close_map.clicked.connect(self.mapClosed)
        self._layout()
        self.set_running(False)
        self.show_map_title("")
        self.retranslate()

    def _layout(self) -> None:
        v = QVBoxLayout(self)
        v.setContentsMargins(0, 2, 4, 2)
        title = QHBoxLayout()  # the map's title, then its buttons: in sight however little room the dock gives
        title.addWidget(self.map_title, 1)
        title.addWidget(self.close_map)
        v.addLayout(title)
        # a row each: side by side they are wider than the dock at its least (208 px)
        for w in (self.map_button, self.patch_button):
            row = QHBoxLayout()
            row.addWidget(w)
            row.addStretch(1)
            v.addLayout(row)
        run = QHBoxLayout()
        run.addWidget(self.progress, 1)
        run.addWidget(self.cancel)
        v.addLayout(run)
        v.addWidget(self.status)
        v.addWidget(self.text)
        v.addWidget(self.second_label)
        v.addWidget(self.second)
        v.addWidget(self.second_count)

    # ---- what it shows ---------------------------------------------------------------------------------------
    def show_lines(self, lines: list[str]) -> None:
        """What the knocked-out heads did (or the hint): laid out whole, the dock's page scrolls."""
        self.text.setText("\n".join(lines))

    def set_second(self, text: str, count: str) -> None:
        if self.second.text() != text and not self._timer.isActive():
            with QSignalBlocker(self.second):
                self.second.setText(text)
        self.second_count.setText(count)

    def set_running(self, running: bool, done: int = 0, total: int = 0) -> None:
        """The map's progress bar and Cancel while it runs; the buttons otherwise."""
        self.progress.setVisible(running)
        self.cancel.setVisible(running)
        self.map_button.setEnabled(not running)
        self.patch_button.setEnabled(not running)
        if running:
            self.progress.setRange(0, max(1, total))
            self.progress.setValue(done)
            self.status.setText(words.text("heads_map_running", i18n.current_language(), done=done, total=total))

    def show_status(self, text: str) -> None:
        self.status.setText(text)

    def show_map_title(self, text: str) -> None:
        self.map_title.setText(text)
        self.map_title.setVisible(bool(text))
        self.close_map.setVisible(bool(text))

    def commit_second(self) -> None:
        self._timer.stop()
        self.secondEdited.emit(self.second.text())

    # ---- language -----------------------------------------------------------------------------------------------
    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        lang = i18n.current_language()
        self.second_label.setText(words.text("heads_second_label", lang))
        self.map_button.setText(words.text("heads_map_button", lang))
        self.map_button.setToolTip(words.text("heads_map_tip", lang))
        self.patch_button.setText(words.text("heads_patch_map_button", lang))
        self.patch_button.setToolTip(words.text("heads_patch_map_tip", lang))
        self.cancel.setText(words.text("heads_map_cancel", lang))
        self.close_map.setText(words.text("heads_map_close", lang))
