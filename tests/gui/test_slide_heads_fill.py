"""Eight heads use the slide's width, the output's last line stays on screen, a Chinese pane header
never breaks inside a phrase (issue 20 items 1 and 3; slides4; issue 30: the slide is a canvas).

Everything is measured from geometry: the heads' scene rectangles on the screen (slide_fit), the
canvas, the lines Qt lays a pane header out in (QTextDocument).
"""
from __future__ import annotations

import pytest
from PySide6.QtGui import QTextDocument
from slide_fit import head_rects
from test_slide_layout import fits, go, present, preset, settle

from app.panes.step_pane import WORD_JOINER, chinese_together
from app.services import i18n

EIGHT = "09_trained_tsl_period"


def _tiles(view):
    """The result's heads as rectangles on the screen (x, y, right, bottom)."""
    sid = view.output_pane().step_id
    return [(r.left(), r.top(), r.right(), r.bottom()) for s, _, r in head_rects(view) if s == sid]


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
            out = view.output_pane()
            tiles = _tiles(view)
            assert len(tiles) == 8
            # every head inside the slide, none over another, no scroll bar (slide_fit)
            assert fits(view) == [], sid
            # the widest row's last tile: right of it in its pane only the colour bar and its numbers
            row = [t for t in tiles if abs(t[1] - tiles[0][1]) < 1]
            bar = out.bar.sceneBoundingRect().width()
            pane_right = out.mapToGlobal(out.rect().topRight()).x()
            assert pane_right - max(t[2] for t in row) <= bar + 50, (sid, pane_right, row, bar)
            # and the pane as large as the canvas lets it be: its grid of heads spans most of the canvas one way
            g = out.geometry()
            canvas = view.canvas_box.rect()
            assert g.width() >= 0.4 * canvas.width() or g.height() >= 0.9 * canvas.height() - 150, (sid, g)
            # the note under the heads ("Cells too small ...: hover ...") is on the canvas
            note = out.hover
            bottom = note.mapTo(view.canvas_box, note.rect().bottomLeft()).y()
            assert note.isVisible() and note.text() and bottom <= view.canvas_box.height(), (sid, bottom)
    finally:
        window.set_language("en", remember=False)
        i18n.set_language("en")
        view.leave()


def test_one_head_alone_is_drawn_larger_with_square_cells(qtbot, window):
    """Key 3 shows head 3 alone: larger than when it shared the canvas with seven others, its
    28 x 28 cells never stretched into bars."""
    view = present(qtbot, window, scenario=preset(EIGHT))
    try:
        go(qtbot, view, "attention_weights")
        shared = view.output_pane().cells
        view.set_focus_head(2)
        settle(qtbot)
        settle(qtbot)
        alone = view.output_pane().cells
        assert view.output_pane().visible_heads() == [2]
        assert alone[1] > 1.5 * shared[1], (shared, alone)
        assert 0.6 <= alone[0] / alone[1] <= 1.6, alone  # a colour-only cell: near square
        assert fits(view) == []
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
        pane = window.view.pane("masked_scores")  # the window's pane header: title and shape, one paragraph
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
