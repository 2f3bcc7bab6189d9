"""No pane on a slide scrolls sideways (issue 20 item 2; slides5): the scores slide of preset 09
(eight heads) once had an input pane whose Chinese header "查询拆分为多头 (…)，批次第 1 项" was glued
into one unbreakable line wider than its column.  Measured from the scroll bars' ranges and the
header label's laid-out width against its pane, and every head on the slide (slide_fit)."""
from __future__ import annotations

import pytest
from test_slide_layout import fits, go, present, preset, settle

from app.services import i18n

EIGHT = "09_trained_tsl_period"


@pytest.mark.parametrize("size", [(1280, 720), (1366, 768)])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_pane_on_the_scores_slide_scrolls_sideways(qtbot, window, size, lang):
    view = present(qtbot, window, size=size, scenario=preset(EIGHT))
    try:
        window.set_language(lang, remember=False)
        settle(qtbot)
        go(qtbot, view, "scores")
        settle(qtbot)
        assert view.body_scroll.horizontalScrollBar().maximum() == 0
        assert fits(view) == []
        assert view.input_panes()
        for pane in view.input_panes():
            # the pane and its header lie on the canvas, the header inside its pane
            assert pane.geometry().right() <= view.canvas_box.width(), pane.title.text()
            if pane.title.isVisible():
                right = pane.title.mapTo(pane, pane.title.rect().topRight()).x()
                assert right <= pane.width(), (pane.title.text(), right, pane.width())
    finally:
        window.set_language("en", remember=False)
        i18n.set_language("en")
        view.leave()
