"""The by-hand layout on the slides: B (or the "By hand" button) lays every slide out as a worksheet.

While it is on, a slide shows one head's Q, Kᵀ, scores, weights, V and output placed as the
AI-by-hand worksheets place them (app/panes/by_hand_view.py) instead of the step's input and
output panes, with the current step's block outlined heavily: the presenter still steps through
the pipeline (Right / Left ...) and the class sees where each step sits on the sheet.  1-9 choose
the head, as on every slide; edits (the drawer, the window, undo) redraw it live.  B again, or
the button, gives the usual slides back; Ctrl + / Ctrl − make the sheet's numbers larger or
smaller with the slide (never under 14 px).  A step the quiz hides stays hidden on the sheet.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QPushButton

from app.panes.by_hand_view import ByHandView
from app.services import i18n
from app.teaching.by_hand import follow_quiz
from app.teaching.presentation.presentation_view import ZOOM_DEFAULT
from attention.registry import step_registry

if TYPE_CHECKING:
    from app.features import FeatureHost
    from app.teaching.presentation.presentation_view import PresentationView

#: which blocks of the sheet show each step (outlined while it is the slide's step): the step
#: records' one table, which the sheet's quiz hiding reads too (app/viewmodel/by_hand.py)
BLOCK_OF_STEP: dict[str, tuple[str, ...]] = step_registry.BY_HAND


class ByHandSlide(QObject):
    """The layout option of one PresentationView."""

    def __init__(self, view: "PresentationView", host: "FeatureHost") -> None:
        super().__init__(view)
        self.slides, self.host = view, host
        self.on = False
        self.sheet = ByHandView(large=True)
        self.sheet.hide()
        view.slide.layout().insertWidget(view.slide.layout().indexOf(view.body_scroll) + 1, self.sheet, 1)
        self.button = QPushButton()
        self.button.setCheckable(True)
        self.button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the keys belong to the slide show
        self.button.clicked.connect(self.set_on)
        view.header.insertWidget(view.header.indexOf(view.edit_button), self.button)
        self.key = QShortcut(QKeySequence("B"), view)
        self.key.setContext(Qt.ShortcutContext.WindowShortcut)
        self.key.activated.connect(self.toggle)
        view._slide_keys.append(self.key)  # off while the keyboard is in the edit drawer, like every slide key
        view.rendered.connect(self._apply)
        view.headFocused.connect(self._follow_head)
        view.zoomed.connect(self._zoom)
        host.recompute.failed.connect(lambda *_: self.sheet.set_stale(True))
        host.on_language_change(self.retranslate)
        follow_quiz(host, self.sheet)  # a step the quiz hides stays hidden on the slide
        self.retranslate()

    def retranslate(self) -> None:
        self.button.setText(self.tr("By hand"))
        self.button.setToolTip(self.tr("Lay the slide out as a by-hand worksheet: Kᵀ above and Q to the left of "
                                       "the scores, V above the output (B)"))
        self.sheet.set_language(i18n.current_language())

    def toggle(self) -> None:
        self.set_on(not self.on)

    def set_on(self, on: bool) -> None:
        self.on = bool(on)
        self.button.setChecked(self.on)
        layout = self.slides.slide.layout()
        layout.setStretchFactor(self.slides.body_scroll, 0 if self.on else 1)  # the sheet takes the canvas's room
        self.slides.redraw()  # the usual slide, then (rendered) this layout over it when on

    def _apply(self) -> None:
        """After every slide drawn: hide its panes and show the sheet of the current trace, or
        leave the slide as it was drawn."""
        s = self.slides
        self.button.setStyleSheet(s.edit_button.styleSheet())  # the slide's zoom sizes its buttons, on or off
        self.sheet.setVisible(self.on)
        if not self.on:
            return
        for w in (s.body_scroll, s.shape, s.explanation, s.formula):
            w.hide()
        last = self.host.last_result()
        if last is None:
            self.sheet.show_trace(None)
            return
        self.sheet.set_stale(False)
        self.sheet.set_zoom(s.zoom() / ZOOM_DEFAULT)  # zoomed before B was pressed
        self.sheet.set_emphasis(BLOCK_OF_STEP.get(s.current_step() or "", ()), redraw=False)
        self.sheet.show_trace(last.trace, last.scenario, last.batch)

    def _zoom(self, zoom: float) -> None:
        """Ctrl + / Ctrl −: the sheet's numbers grow with the slide (never below 14 px)."""
        self.button.setStyleSheet(self.slides.edit_button.styleSheet())
        self.sheet.set_zoom(zoom / ZOOM_DEFAULT)

    def _follow_head(self, head: int) -> None:
        if head >= 0:
            self.sheet.set_head(head)


def install(view: "PresentationView", host: "FeatureHost") -> ByHandSlide:
    return ByHandSlide(view, host)
