"""A StepPane drawn at a zoom factor, for the projector.

The drawing is StepPane's own; this subclass only scales the sizes it works from: the matrix
height and cell width, the fixed rows of its grid, the fonts of its labels, axes and colour
bar, and the font cap of the numbers in the cells (TextFit.scale), so that numbers grow with
the cells instead of staying at their desk-top size.
"""
from __future__ import annotations

from PySide6.QtGui import QFont, QFontMetricsF

from app.panes import step_pane
from app.panes.heatmap import AXIS_COLOUR, TICK_FONT_PX
from app.panes.step_pane import BAR_LABELS_PX, BAR_WIDTH, MIN_PANE_WIDTH, R_AXIS, R_TITLE, R_VIEW, StepPane

#: the desk-top pane's fixed sizes (step_pane._size_canvas), scaled here
HEAD_TITLE_PX, AXIS_ROW_PX, HEAD_TITLE_FONT_PX, AXIS_NAME_PX = 26, 50, 15, 14


class ZoomedPane(StepPane):
    """StepPane at `zoom` (1.0 = the window's size).  `show_header=False` hides the pane's own
    title and formula (the presentation shows them once, large, above the output)."""

    def __init__(self, step_id: str, zoom: float = 1.0, show_header: bool = True) -> None:
        super().__init__(step_id)
        self._zoom = float(zoom)
        self.title.setVisible(show_header)
        self.formula.setVisible(False)  # the presentation writes the operation once, above
        self._apply_fonts()

    @property
    def zoom(self) -> float:
        return self._zoom

    def set_zoom(self, zoom: float) -> None:
        zoom = float(zoom)
        if abs(zoom - self._zoom) < 1e-9:
            return
        self._zoom = zoom
        self._apply_fonts()
        if self._data is not None:
            self._arranged_key = None
            self._arrange()

    # ---- StepPane overrides --------------------------------------------------------------------
    def show_data(self, data, lang: str, focus: int, picture=None) -> None:
        super().show_data(data, lang, focus, picture)
        self._scale_numbers()

    def _cell_size(self) -> tuple[int, float]:
        h, cell_w = super()._cell_size()
        return int(round(h * self._zoom)), cell_w * self._zoom

    def _arrange(self) -> None:
        super()._arrange()
        self._scale_axis_names()

    def _size_canvas(self, k: int) -> None:
        """StepPane's sizing with every fixed height and width scaled by the zoom."""
        d, z = self._data, self._zoom
        rows, cols = d.layout.rows.size, d.layout.cols.size
        h, cell_w = self._cell_size()
        gl = self.canvas.ci.layout
        gl.setRowFixedHeight(R_VIEW, h)
        title_h = int(HEAD_TITLE_PX * z) if d.layout.per_head else 0
        gl.setRowFixedHeight(R_TITLE, title_h)
        axis_h = int(AXIS_ROW_PX * z)
        gl.setRowFixedHeight(R_AXIS, axis_h)
        self.canvas.setFixedHeight(int(h + title_h + axis_h + 10))
        ticks = [len(d.layout.rows.tick(i)) for i in range(min(rows, 64))]
        left_w = (30 + 8 * max(ticks, default=1)) * z
        width = int(left_w + k * (cols * cell_w + 8) + (BAR_WIDTH + BAR_LABELS_PX) * z)
        self.canvas.setMaximumWidth(width)
        self._natural_width = max(width + 22, MIN_PANE_WIDTH)
        self.updateGeometry()

    # ---- fonts -------------------------------------------------------------------------------
    def _px(self, base: float) -> int:
        return max(int(round(base * self._zoom)), 6)

    def _apply_fonts(self) -> None:
        self.title.setStyleSheet(step_pane.TITLE_CSS.replace("21px", f"{self._px(21)}px"))
        self.hover.setStyleSheet(step_pane.HOVER_CSS.replace("14px", f"{self._px(14)}px"))
        self.hover.setMinimumHeight(int(2 * self._px(14) * 1.4) + 6)
        font = QFont()
        font.setPixelSize(self._px(TICK_FONT_PX))
        axes = [self.left, self.bar.axis] + [hm.bottom for hm in self.heatmaps]
        for axis in axes:
            axis.setStyle(tickFont=font)
            if hasattr(axis, "_extent"):  # an IndexAxis: measure its labels again for the stride
                axis._extent = None
        for hm in self.heatmaps:
            hm.title.opts["size"] = f"{self._px(HEAD_TITLE_FONT_PX)}px"
            hm.title.setText(hm.title.text)
        self._scale_numbers()

    def _ensure_heatmaps(self, n: int) -> None:
        before = len(self.heatmaps)
        super()._ensure_heatmaps(n)
        if len(self.heatmaps) != before:
            self._apply_fonts()

    def _scale_numbers(self) -> None:
        if self._fit is not None:
            self._fit.scale = self._zoom
            for hm in self.heatmaps:
                hm.overlay.update()

    def _scale_axis_names(self) -> None:
        style = {"color": AXIS_COLOUR, "font-size": f"{self._px(AXIS_NAME_PX)}px"}
        font = QFont()
        font.setPixelSize(self._px(AXIS_NAME_PX))
        heads = self.visible_heads()
        name = self._data.layout.cols.name(self._lang) if self._data is not None else ""
        # the pane decided at its own font size whether every head gets the column name; at
        # this size a name wider than its matrix would run into the next one: first head only
        crowded = (QFontMetricsF(font).horizontalAdvance(name) + 12
                   > self._data.layout.cols.size * self._cell_size()[1]
                   if self._data is not None else False)
        for i, m in enumerate(heads):
            if crowded and i > 0:
                self.heatmaps[m].bottom.setLabel("")
                self.heatmaps[m].bottom.showLabel(False)
                self.heatmaps[m].bottom_labels._name = ""
        axes = [self.left] + [self.heatmaps[m].bottom for m in heads]
        for axis in axes:
            text = axis.labelText
            if text and axis.label.isVisible():
                axis.setLabel(text, **style)


def pane_font_px(base: float, zoom: float) -> int:
    """A font size at `zoom` (the presentation's own labels use it too)."""
    return max(int(round(base * zoom)), 6)

