"""A colour bar's numbers never touch (issue 20, seen at 1280 x 720 under Xvfb: preset 09's eight
heads left a 62 px bar, and pyqtgraph wrote 0, 0.2, 0.4, 0.6, 0.8, 1 there in 14 px labels, one on
top of the next).  Label rectangles are pyqtgraph's own draw specs."""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtGui import QFont, QImage, QPainter
from test_slide_layout import go, present, preset

from app.panes.step_pane import _bar_tick_spacing


def axis_with_font(px: int) -> pg.AxisItem:
    axis = pg.AxisItem("right")
    font = QFont()
    font.setPixelSize(px)
    axis.setStyle(tickFont=font)
    return axis


def test_a_short_bar_gets_fewer_labels_and_a_tall_one_keeps_pyqtgraphs(qtbot):  # (a QApplication)
    axis = axis_with_font(14)
    # 62 px for 0..1: 0.2 apart is 12.4 px (< a 14 px line); 0.5 apart is 31 px
    assert _bar_tick_spacing(axis, 0.0, 1.0, 62.0) == [(0.5, 0.0)]
    tall = _bar_tick_spacing(axis, 0.0, 1.0, 400.0)
    assert tall == pg.AxisItem.tickSpacing(axis, 0.0, 1.0, 400.0)
    assert tall[0][0] * 400 >= 1.3 * 14
    # -20..20 on 62 px: pyqtgraph's 10 would be 15.5 px apart; 20 is 31 px
    assert _bar_tick_spacing(axis, -20.0, 20.0, 62.0)[0][0] == 20


def label_rects(pane):
    image = QImage(8, 8, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        specs = pane.bar.axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return sorted((rect for rect, _flags, _text in specs[2]), key=lambda r: r.top())


def test_the_eight_head_slides_colour_bar_numbers_do_not_touch(qtbot, window):
    view = present(qtbot, window, scenario=preset("09_trained_tsl_period"))
    try:
        for sid in ("scores", "attention_weights"):
            go(qtbot, view, sid)
            pane = view.output_pane()
            px = pane.bar.axis.style["tickFont"].pixelSize()
            rects = label_rects(pane)
            assert len(rects) >= 2, sid
            centres = [r.center().y() for r in rects]
            gaps = [b - a for a, b in zip(centres, centres[1:])]
            assert min(gaps) >= px, (sid, px, gaps)  # a line of the label's own size apart, at least
    finally:
        view.leave()
