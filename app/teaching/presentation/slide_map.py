"""The map of steps on the slides: one chip per slide under the slide's title, the slide on screen
filled; a click on a chip goes to that slide.  The chips are app.panes.pipeline_map's."""
from __future__ import annotations

from typing import TYPE_CHECKING

from app.panes.pipeline_map import PipelineMap
from app.services import i18n
from app.teaching.presentation.zoomed_pane import pane_font_px

if TYPE_CHECKING:
    from app.teaching.presentation.slide_host import SlideHost

#: the chips' font at zoom 1 (16 px at the slides' default 125 %)
FONT_PX = 13


class SlideMap:
    """Placed in the slide's layout right under its header row."""

    def __init__(self, view: "SlideHost") -> None:
        self.view = view
        # one row of whole chips past two rows (Crossformer: 26 steps), never a shortened label
        self.map = PipelineMap(view.slide, font_px=pane_font_px(FONT_PX, view.zoom()), paged_after=2)
        self.map.setObjectName("SlideMap")
        view.slide.layout().insertWidget(1, self.map)
        self.map.stepChosen.connect(self.go_to)

    def go_to(self, step_id: str) -> None:
        ids = self.view.lesson_ids()
        if step_id in ids:
            self.view.go_to(ids.index(step_id))

    # ---- called by the presentation view -------------------------------------------------------------
    def slide_shown(self) -> None:
        trace = self.view.trace()
        scoring = trace.options.get("scoring") if trace is not None else None
        self.map.set_steps(self.view.lesson_ids(), i18n.current_language(), scoring)
        self.map.set_current(self.view.current_step())

    def apply_fonts(self, zoom: float) -> None:
        self.map.set_font_px(pane_font_px(FONT_PX, zoom))

    def close(self) -> bool:
        return False  # nothing of its own for Esc to close
