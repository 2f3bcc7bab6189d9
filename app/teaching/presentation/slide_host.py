"""What the slide's parts (head picker, map of steps, explanation box) need of the slide show.

PresentationView provides it; the parts name this protocol instead of importing the view, so that
the view can import them without a circle (`python /work/shared/tools/import_circles.py .`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Protocol

if TYPE_CHECKING:
    from PySide6.QtWidgets import QLabel, QScrollArea, QWidget

    from app.features import FeatureHost
    from app.teaching.presentation.zoomed_pane import ZoomedPane
    from attention import Trace


class SlideHost(Protocol):
    slide: "QWidget"  # the slide (everything but the edit drawer)
    canvas_box: "QWidget"  # the canvas the plan places the panes, the arrow and the lesson on
    body_scroll: "QScrollArea"  # holds the canvas (scrolls only when zoomed past 100 %)
    explanation: "QLabel"  # the lesson's sentences

    def zoom(self) -> float: ...

    def trace(self) -> Optional["Trace"]: ...

    def host(self) -> "FeatureHost": ...

    def lesson_ids(self) -> list[str]: ...

    def current_step(self) -> Optional[str]: ...

    def go_to(self, index: int) -> None: ...

    def set_focus_head(self, head: int) -> None: ...

    def output_pane(self) -> Optional["ZoomedPane"]: ...

    def input_panes(self) -> list["ZoomedPane"]: ...

    def refit_soon(self) -> None: ...
