"""The "Steps" region: pyqtgraph heatmap panes that draw a Trace.

`StepsView` (steps_view.py) is the widget the main window embeds, one `StepPane` (step_pane.py) per
step.  The Qt-free parts (app/viewmodel: pane_data, pane_text, cell_format) can be imported
without Qt.
"""
