"""The edit drawer of presentation mode: the window's Parameters and Inputs beside the slide.

The drawer holds a second ParameterPanel and a second InputsPanel bound to the window's own
Document.  Both are views of that document, so an edit made here is one undo step of the same
history: the window's panels show it, Ctrl+Z takes it back, and the window's Recomputer sends the
new trace to the slide.  While the keyboard focus is inside the drawer the slide's keys are off
(PresentationView does that), so digits, arrows, Return and Backspace edit instead of turning
slides; Esc (when no open cell editor or list takes it first) puts the focus back on the slide.
"""
from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QScrollArea, QTabWidget, QToolButton, QVBoxLayout, QWidget

from app.editing.inputs_panel import InputsPanel
from app.editing.matrix_editor import COLUMN_WIDTH, MatrixEditor
from app.editing.parameter_panel import ParameterPanel
from app.editing.problems import ProblemLabel, group_by_control
from app.pipeline.document import Document
from app.teaching.presentation.zoomed_pane import pane_font_px
from app.viewmodel.matrix_ref import MatrixRef

# the drawer's font at zoom 1 (the desk-top size); it grows with the presentation's zoom
BASE_FONT_PX = 13
INPUT_KEYS = ("queries", "keys", "values")
# a style sheet, not setFont: under the presentation's own style sheet a font set on a parent
# does not reach its children
DRAWER_CSS = ("#EditDrawer {{ background: white; border-left: 1px solid #c8c8c8; }} "
              "QWidget {{ font-size: {px}px; }} #DrawerHeading {{ font-size: {heading}px; font-weight: 600; }} "
              "#DrawerHint {{ color: #555; }}")


class EditDrawer(QFrame):
    """Tabs "Parameters" and "Inputs" over the window's document, in projector-sized fonts."""

    back_to_slide = Signal()  # Esc inside the drawer: the keys go back to the slide
    close_requested = Signal()

    def __init__(self, doc: Document, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.setObjectName("EditDrawer")
        self._zoom = 1.0
        self.heading = QLabel()
        self.heading.setObjectName("DrawerHeading")
        self.close_button = QToolButton()
        self.close_button.setText("×")
        self.close_button.setAutoRaise(True)
        self.close_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.close_button.clicked.connect(self.close_requested)
        self.hint = QLabel()
        self.hint.setObjectName("DrawerHint")
        self.hint.setWordWrap(True)
        self.params = ParameterPanel(doc)
        self.params_scroll = QScrollArea()
        self.params_scroll.setWidget(self.params)
        self.params_scroll.setWidgetResizable(True)
        self.params_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.inputs = InputsPanel(doc)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.params_scroll, "")
        self.tabs.addTab(self.inputs, "")
        self.message = ProblemLabel()  # engine lines that belong to no control shown here
        self.params.edit_matrix.connect(self.open_matrix)

        top = QHBoxLayout()
        top.addWidget(self.heading, 1)
        top.addWidget(self.close_button)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(8, 6, 6, 6)
        lay.setSpacing(4)
        lay.addLayout(top)
        lay.addWidget(self.hint)
        lay.addWidget(self.tabs, 1)
        lay.addWidget(self.message)
        self.retranslate()
        self.set_zoom(1.0)

    # ---- edits ---------------------------------------------------------------------------------
    def open_matrix(self, ref: MatrixRef) -> None:
        """A weight's Edit button under Parameters: show that weight on the Inputs tab."""
        self.tabs.setCurrentWidget(self.inputs)
        self.inputs.open_matrix(ref)

    def focus_editor(self) -> None:
        """Give the keyboard to the drawer (its tab bar: Tab goes on to the controls)."""
        self.tabs.tabBar().setFocus(Qt.FocusReason.OtherFocusReason)

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt override)
        if event.key() == Qt.Key.Key_Escape:  # not taken by a cell editor or a spin box
            event.accept()
            self.back_to_slide.emit()
            return
        super().keyPressEvent(event)

    # ---- engine problems, next to their controls as in the window ------------------------------------
    def show_problems(self, lines: list) -> None:
        leftover = self.params.show_problems(lines)
        self.inputs.show_problems(group_by_control(lines))
        self.message.set_lines([line for line in leftover
                                if group_by_control([line]).keys().isdisjoint(INPUT_KEYS)])

    def clear_problems(self) -> None:
        self.params.clear_problems()
        self.inputs.show_problems({})
        self.message.set_lines([])

    # ---- size ------------------------------------------------------------------------------------
    def set_zoom(self, zoom: float) -> None:
        """Fonts (and table rows) at the presentation's zoom, so the class can read the edit."""
        self._zoom = float(zoom)
        px = self.font_px()
        self.setStyleSheet(DRAWER_CSS.format(px=px, heading=pane_font_px(BASE_FONT_PX * 1.3, self._zoom)))
        for editor in self.findChildren(MatrixEditor):
            if editor.compact:
                continue  # the valid-lengths table fits its height to the desk-top row size
            editor.table.verticalHeader().setDefaultSectionSize(int(px * 1.8))
            editor.table.horizontalHeader().setDefaultSectionSize(int(COLUMN_WIDTH * px / BASE_FONT_PX))

    def zoom(self) -> float:
        return self._zoom

    def font_px(self) -> int:
        return pane_font_px(BASE_FONT_PX, self._zoom)

    # ---- language --------------------------------------------------------------------------------
    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        self.heading.setText(self.tr("Edit the scenario"))
        self.hint.setText(self.tr("Every change is recomputed on the slide at once. Esc gives the keys back "
                                 "to the slides."))
        self.close_button.setToolTip(self.tr("Close the edit panel (E)"))
        self.tabs.setTabText(0, self.tr("Parameters"))
        self.tabs.setTabText(1, self.tr("Inputs"))
