"""Eight heads use the slide's width, the output's last line stays on screen, a Chinese pane header
never breaks inside a phrase (issue 20 items 1 and 3; slides4).

Everything is measured from geometry: the heads' scene rectangles mapped into the output area's
viewport, the area's scroll bar, the lines Qt lays a pane header out in (QTextDocument).
"""
from __future__ import annotations

import pytest
from PySide6.QtGui import QTextDocument
from test_slide_layout import go, present, preset, settle

from app.panes.step_pane import WORD_JOINER, chinese_together
from app.services import i18n

EIGHT = "09_trained_tsl_period"


def _tiles(view):
    """The output's heads as rectangles in its area's viewport coordinates (x, y, right, bottom)."""
    out = view.output_pane()
    port = view.output_scroll.viewport()
    rects = []
    for m in out.visible_heads():
        r = out.heatmaps[m].vb.sceneBoundingRect()
        tl = out.canvas.mapTo(port, out.canvas.mapFromScene(r.topLeft()))
        br = out.canvas.mapTo(port, out.canvas.mapFromScene(r.bottomRight()))
        rects.append((tl.x(), tl.y(), br.x(), br.y()))
    return rects


@pytest.mark.parametrize("size", [(1280, 720), (1366, 768)])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_eight_heads_use_the_width_and_the_note_stays_on_screen(qtbot, window, size, lang):
    view = present(qtbot, window, size=size, scenario=preset(EIGHT))
    try:
        window.set_language(lang, remember=False)
        settle(qtbot)
        for sid in ("scores", "attention_weights"):
            go(qtbot, view, sid)
            settle(qtbot)
            out, port = view.output_pane(), view.output_scroll.viewport()
            tiles = _tiles(view)
            assert len(tiles) == 8
            width = tiles[0][2] - tiles[0][0]
            # the widest row's last tile: what lies right of it is the colour bar and less than a tile
            row = [t for t in tiles if abs(t[1] - tiles[0][1]) < 1]
            strip = port.width() - max(t[2] for t in row)
            assert strip < width, (sid, strip, width)
            # the rows of heads together cover most of the area's width
            assert max(t[2] for t in row) - min(t[0] for t in row) >= 0.7 * port.width(), sid
            # no text under 14 px was given up for it, and every head is inside the area
            assert all(0 <= t[0] and t[2] <= port.width() and 0 <= t[1] and t[3] <= port.height() for t in tiles)
            # the note under the heads ("Numbers are printed only ...") is inside the area, no scroll bar
            bar = view.output_scroll.verticalScrollBar()
            assert bar.maximum() == 0, (sid, bar.maximum())
            note = out.hover
            bottom = note.mapTo(port, note.rect().bottomLeft()).y()
            assert note.isVisible() and note.text() and bottom <= port.height(), (sid, bottom, port.height())
    finally:
        window.set_language("en", remember=False)
        i18n.set_language("en")
        view.leave()


def test_one_head_alone_keeps_its_designed_cells(qtbot, window):
    """Widening is for several heads sharing the area: one head (key 3) is zoomed, never stretched."""
    view = present(qtbot, window, scenario=preset(EIGHT))
    try:
        go(qtbot, view, "attention_weights")
        assert view.output_pane().widen > 1.0  # eight heads: the cells were widened to fill
        view.set_focus_head(2)
        settle(qtbot)
        settle(qtbot)
        assert view.output_pane().widen == 1.0
    finally:
        view.leave()


def _lines(html: str, width: float) -> list[str]:
    doc = QTextDocument()
    doc.setHtml(html)
    doc.setTextWidth(width)
    doc.documentLayout()
    out, block = [], doc.begin()
    while block.isValid():
        layout, text = block.layout(), block.text()
        for i in range(layout.lineCount()):
            line = layout.lineAt(i)
            out.append(text[line.textStart():line.textStart() + line.textLength()])
        block = block.next()
    return out


def test_a_chinese_pane_header_never_breaks_inside_a_phrase(qtbot, window):
    view = present(qtbot, window, scenario=preset(EIGHT))
    try:
        window.set_language("zh", remember=False)
        go(qtbot, view, "attention_weights")
        pane = view.input_panes()[0]
        html = pane.title.text()
        assert "批" in html
        for width in range(120, 700, 7):
            for line in _lines(html, width):
                shown = line.replace(WORD_JOINER, "").replace("\u00a0", " ").strip()
                assert shown != "项" and not shown.startswith("项"), (width, line)
                # "批次第 1 项" is one unit: wherever it starts, it ends on the same line
                if "批" in shown:
                    assert shown.endswith("项") or "项" in shown, (width, line)
    finally:
        window.set_language("en", remember=False)
        i18n.set_language("en")
        view.leave()


def test_chinese_together_glues_a_phrase_and_leaves_english_alone():
    assert chinese_together("(1, 8)，批次第 1 项") == "(1, 8)，批\u2060次\u2060第\u00a01\u00a0项"
    assert chinese_together("(1, 8), batch item 1") == "(1, 8), batch item 1"
    assert chinese_together("头 2，键 (S)") == "头\u00a02，键 (S)"  # a bracket still breaks before it
