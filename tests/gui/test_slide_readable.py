"""Every slide readable from the back row (issue 20): text sizes, eight heads, one head at a time.

Sizes are read from what each item draws with (tests/gui/slide_texts.py): font pixel sizes of
labels, buttons, axis ticks and names, head titles, the colour bar and the cells' numbers; where
things sit is read from widget and scene geometry.
"""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from slide_fit import head_rects
from slide_texts import slide_text_sizes, too_small
from test_slide_explain import mouse_click
from test_slide_layout import fits, go, number_sizes, present, preset, settle

from app.services import i18n
from app.teaching.presentation.zoomed_pane import LEGIBLE_DIGIT_PX

MIN_TEXT_PX = 14  # issue 20: no text on a slide under this

EIGHT = "09_trained_tsl_period"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_text_on_an_eight_head_slide_is_at_least_14px(qtbot, window, lang):
    view = present(qtbot, window, scenario=preset(EIGHT))
    try:
        window.set_language(lang, remember=False)
        for sid in ("projection.query", "scores", "attention_weights", "output"):
            go(qtbot, view, sid)
            sizes = slide_text_sizes(view)
            kinds = {what.split(" ", 1)[-1] for what, _ in sizes}
            # the measurement saw the small things the issue named
            assert any("colour bar" in k for k in kinds) and any("ticks" in k for k in kinds), kinds
            assert too_small(view, MIN_TEXT_PX) == [], sid
        # the by-hand button is the slide's size before it is ever pressed
        button = next(b for what, b in sizes if what.startswith("button ") and "Edit" not in what)
        assert button >= MIN_TEXT_PX
    finally:
        window.set_language("en", remember=False)
        i18n.set_language("en")
        view.leave()


def test_every_text_on_the_toy_slides_is_at_least_14px(qtbot, window):
    view = present(qtbot, window)
    try:
        for sid in view.lesson_ids():
            go(qtbot, view, sid)
            assert too_small(view, MIN_TEXT_PX) == [], sid
    finally:
        view.leave()


def _heads_shown_without_scrolling(view) -> list[int]:
    """The result's heads whose matrices lie wholly on the slide (slide_fit: none cut, none over another)."""
    sid = view.output_pane().step_id
    cut = [p for p in fits(view) if p.startswith(f"{sid} head") or "scroll bar" in p]
    return [] if cut else sorted(m for s, m, _ in head_rects(view) if s == sid)


@pytest.mark.parametrize("size", [(1280, 720), (1366, 768)])
def test_eight_heads_share_the_width_and_all_show(qtbot, window, size):
    view = present(qtbot, window, size=size, scenario=preset(EIGHT))
    try:
        for sid in ("scores", "attention_weights"):
            go(qtbot, view, sid)
            out = view.output_pane()
            # all eight on screen at once (they used to show two, the rest below the fold)
            assert _heads_shown_without_scrolling(view) == list(range(8)), sid
            assert out.heads_per_row() >= 4, sid
    finally:
        view.leave()


def test_the_head_picker_shows_one_head_large(qtbot, window):
    view = present(qtbot, window, scenario=preset(EIGHT))
    try:
        go(qtbot, view, "attention_weights")
        picker = view.heads
        assert picker.isVisible()
        assert [b.text() for b in picker.buttons if b.isVisible()] == [str(i) for i in range(1, 9)]
        out = view.output_pane()
        all_width = out.heatmaps[0].vb.sceneBoundingRect().width()
        qtbot.mouseClick(picker.buttons[2], Qt.MouseButton.LeftButton)
        settle(qtbot)
        settle(qtbot)
        assert out.visible_heads() == [2]
        assert picker.buttons[2].isChecked() and not picker.all_button.isChecked()
        one_width = out.heatmaps[2].vb.sceneBoundingRect().width()
        assert one_width >= 1.8 * all_width, (one_width, all_width)
        assert _heads_shown_without_scrolling(view) == [2]
        qtbot.keyClick(view, Qt.Key.Key_5)
        settle(qtbot)
        assert out.visible_heads() == [4] and picker.buttons[4].isChecked()
        qtbot.keyClick(view, Qt.Key.Key_A)
        settle(qtbot)
        assert out.visible_heads() == list(range(8)) and picker.all_button.isChecked()
    finally:
        view.leave()


def test_the_head_picker_hides_with_one_head(qtbot, window):
    view = present(qtbot, window)  # the toy: two heads
    try:
        go(qtbot, view, "scores")
        assert view.heads.isVisible()
        window.document.load(preset("03_d2l_masked_softmax"), None)
        window.recompute.recompute_now()
        window.recompute.wait_idle()
        settle(qtbot)
        go(qtbot, view, view.lesson_ids()[0])
        assert not view.heads.isVisible()
    finally:
        view.leave()


# ---- item 2: a wide and short matrix fits the slide's width ------------------------------------------
@pytest.mark.parametrize("size", [(1280, 720), (1366, 768)])
def test_one_query_by_ten_keys_fits_without_a_sideways_scroll(qtbot, window, size):
    view = present(qtbot, window, size=size, scenario=preset("04_d2l_additive"))
    try:
        for sid in ("scores", "masked_scores", "attention_weights"):
            go(qtbot, view, sid)
            settle(qtbot)
            out = view.output_pane()
            assert out.data.layout.cols.size == 10
            # every key's cell on the slide (nothing scrolls, nothing is cut), with a legible number
            assert fits(view) == [], sid
            assert out.geometry().right() <= view.canvas_box.width(), sid
            height, _ = number_sizes(view)[sid]
            assert height >= LEGIBLE_DIGIT_PX, (sid, height)
    finally:
        view.leave()


# ---- item 4: a zoom belongs to its scenario; Ctrl+Shift+= zooms ----------------------------------------
def test_ctrl_plus_as_typed_on_a_main_keyboard_zooms_in(qtbot, window):
    view = present(qtbot, window)
    try:
        before = view.zoom()
        # Ctrl and the "+" of the "=" key: X delivers Key_Plus with Ctrl and Shift held
        qtbot.keyClick(view, Qt.Key.Key_Plus, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
        settle(qtbot)
        assert view.zoom() > before
    finally:
        view.leave()


def test_a_zoom_stays_with_the_scenario_it_was_set_on(qtbot, window):
    import resources

    toy = resources.scenarios_dir() / "01_tsl_toy.json"
    window.load_path(toy)
    view = present(qtbot, window)
    try:
        view.set_zoom(1.6)
        qtbot.keyClick(view, Qt.Key.Key_2)  # the toy's head 2 alone
        view.leave()
        window.load_path(resources.scenarios_dir() / f"{EIGHT}.json")
        window.recompute.recompute_now()
        window.recompute.wait_idle()
        window.presentation.enter()  # F5
        settle(qtbot)
        assert view.zoom() == pytest.approx(1.25)  # the default, not the toy's 160 %
        go(qtbot, view, "scores")
        assert view.output_pane().visible_heads() == list(range(8))
        view.leave()
        window.load_path(toy)
        window.recompute.recompute_now()
        window.recompute.wait_idle()
        window.presentation.enter()  # F5
        assert view.zoom() == pytest.approx(1.6)  # back on the toy: its own zoom
    finally:
        view.leave()


# ---- item 6: one precision for every slide of a show -------------------------------------------------
@pytest.mark.parametrize("stem", ["01_tsl_toy", "08_hand_calculation"])
def test_every_slide_of_a_show_writes_numbers_with_one_precision(qtbot, window, stem):
    view = present(qtbot, window, scenario=preset(stem))
    try:
        seen = {}
        for sid in view.lesson_ids():
            go(qtbot, view, sid)
            settle(qtbot)
            for name, (height, digits) in number_sizes(view).items():
                assert height >= LEGIBLE_DIGIT_PX, (sid, name, height)
                seen[(sid, name)] = digits
        # the same value never reads 13.79 on one slide and 14 or 13.8 on another
        assert len(set(seen.values())) == 1, [k for k, d in seen.items() if d != 3]
    finally:
        view.leave()


# ---- item 8: the language is switched from the slides -----------------------------------------------
def test_l_or_the_language_button_switches_the_slides_language(qtbot, window):
    view = present(qtbot, window)
    try:
        go(qtbot, view, "scores")
        trace = window.last_trace
        assert view.lang_button.isVisible() and view.lang_button.text() == "中文"
        qtbot.keyClick(view, Qt.Key.Key_L)
        settle(qtbot)
        assert i18n.current_language() == "zh"
        assert view.title.text() == trace["scores"].title["zh"]
        assert view.lang_button.text() == "English" and view.edit_button.text() == "编辑"
        qtbot.mouseClick(view.lang_button, Qt.MouseButton.LeftButton)
        settle(qtbot)
        assert i18n.current_language() == "en" and view.title.text() == trace["scores"].title["en"]
    finally:
        window.set_language("en", remember=False)
        view.leave()


@pytest.mark.parametrize("size", [(1280, 720), (1366, 768)])
def test_a_long_row_is_written_in_rows_with_legible_numbers(qtbot, window, size):
    view = present(qtbot, window, size=size, scenario=preset("04_d2l_additive"))
    try:
        for sid in ("extra.additive_features", "head_split.query"):
            go(qtbot, view, sid)
            settle(qtbot)
            out = view.output_pane()
            original = out.data.block.shape  # (1, 1, 80) / (1, 1, 20): the trace's own shape
            shown = out.displayed_arrays()[0].shape
            assert original[1] == 1 and shown[0] > 1 and shown[0] * shown[1] == original[2], (sid, shown)
            assert fits(view) == [], sid  # no sideways scroll, nothing cut
            zoomed = sid not in number_sizes(view)
            if zoomed:  # too small for them beside its inputs: a click zooms into the cell's region
                mouse_click(out, 0, 1, 2)
                settle(qtbot)
                assert out.region is not None and fits(view) == [], sid
                assert not view.slide_explain.is_open()  # the first click shows the numbers, the next explains
            height, _ = number_sizes(view)[sid]  # 1 x 80 had no numbers at all
            assert height >= LEGIBLE_DIGIT_PX, (sid, height)
            if zoomed:
                qtbot.keyClick(view, Qt.Key.Key_Escape)  # the whole matrix again, still on the slides
                settle(qtbot)
                assert out.region is None and view.isVisible() and sid not in number_sizes(view), sid
            # every number where it was: row i holds columns i*w+1 ... (i+1)*w
            w = shown[1]
            flat = out.data.block[0, 0]
            assert np.array_equal(out.displayed_arrays()[0], flat.reshape(-1, w).astype(np.float32))
        # a cell says where it came from, and a click reaches Explain with the trace's own place
        out = view.output_pane()
        w = out.displayed_arrays()[0].shape[1]
        assert f" {w + 3}" in out.hover_text(0, 1, 2), out.hover_text(0, 1, 2)  # counted from 1
        clicked = []
        out.cellClicked.connect(lambda *a: clicked.append(a[:3]))
        out.click_cell(0, 1, 2)
        assert clicked == [(0, 0, w + 2)]
    finally:
        view.leave()
