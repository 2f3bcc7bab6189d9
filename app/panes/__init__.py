"""The "Steps" region: pyqtgraph heatmap panes that draw a Trace.

`StepsView` (steps_view.py) is the widget the main window embeds.  The Qt-free parts
(pane_data, pane_text, cell_format) can be imported without Qt; the widgets are loaded lazily.
"""
from __future__ import annotations

__all__ = ["StepPane", "StepsView"]


def __getattr__(name: str):
    if name == "StepsView":
        from app.panes.steps_view import StepsView

        return StepsView
    if name == "StepPane":
        from app.panes.step_pane import StepPane

        return StepPane
    raise AttributeError(name)
