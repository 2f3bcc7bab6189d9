"""The slide as a canvas (issue 30): F5 at the step selected in the window, a click on colour-only
cells zooms into its region, zooming past 100 % scrolls and Ctrl 0 fits again, grouped-query head
titles say which key/value head each reads, Pyraformer's mask slide speaks of the pyramid, and
Crossformer's 26 chips page as one row of whole chips.

Offscreen at a projector's 1280 x 720 (the view resized; tests/screen/test_slides_fit.py walks every
slide of every preset on a real screen).  Numbers come from the trace's own arrays and references
written here (a K/V head's scores recomputed with numpy, TSL's get_mask re-implemented).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from slide_fit import head_rects
from test_slide_explain import mouse_click
from test_slide_layout import fits, go, number_sizes, present, preset, settle

import resources
from app.services import i18n
from app.teaching.presentation.zoomed_pane import LEGIBLE_DIGIT_PX
from app.viewmodel import pipeline_map
from attention import words


def load(qtbot, window, stem: str) -> None:
    assert window.load_path(resources.scenarios_dir() / f"{stem}.json")
    window.recompute.recompute_now()
    window.recompute.wait_idle()
    settle(qtbot)


def f5(qtbot, window):
    """F5 in the window, as the slides were left (Esc gives the window the keys back)."""
    view = window.presentation.view
    qtbot.waitUntil(lambda: not view.isVisible())
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    qtbot.keyClick(window, Qt.Key.Key_F5)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is view)
    return view


# ---- F5 starts at the step selected in the window ------------------------------------------------------
def test_f5_starts_at_the_step_a_cell_or_a_chip_selected_in_the_window(qtbot, window):
    window.resize(1280, 720)
    load(qtbot, window, "01_tsl_toy")
    view = present(qtbot, window)
    assert view.index() == 0  # a fresh preset, nothing selected: the first slide
    qtbot.keyClick(view, Qt.Key.Key_Escape)
    # a click on a cell of the window's weights pane selects that step
    window.view.pane("attention_weights").click_cell(0, 1, 2)
    view = f5(qtbot, window)
    assert view.current_step() == "attention_weights"
    qtbot.keyClick(view, Qt.Key.Key_Right)
    assert view.current_step() == "weighted_sum"
    qtbot.keyClick(view, Qt.Key.Key_Escape)
    view = f5(qtbot, window)  # nothing selected since: the slide left last time
    assert view.current_step() == "weighted_sum"
    qtbot.keyClick(view, Qt.Key.Key_Escape)
    # a chip of the window's map of steps selects its step too
    qtbot.mouseClick(window.pipeline_map.map.chip("scores"), Qt.MouseButton.LeftButton)
    view = f5(qtbot, window)
    assert view.current_step() == "scores"
    qtbot.keyClick(view, Qt.Key.Key_Escape)
    # another preset: its first slide, whatever the last one had selected
    window.view.pane("output").click_cell(0, 0, 0)
    load(qtbot, window, "03_d2l_masked_softmax")
    view = f5(qtbot, window)
    assert view.index() == 0
    view.leave()


# ---- cells too small for their numbers: a click zooms into a region ----------------------------------
def test_a_click_on_colour_only_cells_zooms_into_their_region(qtbot, window):
    view = present(qtbot, window, scenario=preset("02_tsl_real_config"))  # eight heads of 6 x 6 ...
    try:
        for sid, cell in (("projection.query", (0, 3, 20)), ("scores", (3, 4, 5))):  # ... and 6 x 32 projections
            go(qtbot, view, sid)
            out = view.output_pane()
            assert sid not in number_sizes(view) and fits(view) == []  # colour only, every head in sight
            assert out.hover.text() == words.text("pane.slide_numbers_hidden", "en")
            m, r, c = cell
            several = out.data.layout.per_head and out.data.layout.n_matrices > 1
            mouse_click(out, m, r, c)
            settle(qtbot)
            settle(qtbot)
            alone = several and len(out.visible_heads()) == 1
            if alone:  # a head too narrow for one number: the click showed it alone
                assert out.visible_heads() == [m] and view.heads.buttons[m].isChecked()
            rows, cols = out._data.layout.rows.size, out._data.layout.cols.size
            if out.region is not None:
                r0, n_r, c0, n_c = out.region
                assert r0 <= r < r0 + n_r and c0 <= c < c0 + n_c and (n_r < rows or n_c < cols)
                # the hint under the heads says which rows and columns are in sight (counted from 1), and how back
                assert f"{r0 + 1}–{r0 + n_r}" in out.hover.text() and f"{c0 + 1}–{c0 + n_c}" in out.hover.text()
                assert "Esc" in out.hover.text()
            height, _ = number_sizes(view)[sid]
            assert height >= LEGIBLE_DIGIT_PX, sid
            assert fits(view) == [] and not view.slide_explain.is_open(), sid
            # the next click explains the cell; Esc closes that, then Esc undoes the zoom, step by step
            mouse_click(out, m, r, c)
            qtbot.waitUntil(view.slide_explain.is_open)
            qtbot.keyClick(view, Qt.Key.Key_Escape)
            assert not view.slide_explain.is_open()
            while out.region is not None or (several and len(out.visible_heads()) == 1):
                qtbot.keyClick(view, Qt.Key.Key_Escape)
                settle(qtbot)
                assert view.isVisible(), sid
            assert sid not in number_sizes(view) and fits(view) == [], sid
    finally:
        view.leave()


def test_zooming_past_100_percent_scrolls_and_ctrl_0_fits_again(qtbot, window):
    view = present(qtbot, window)
    try:
        go(qtbot, view, "scores")
        assert view.zoom_label.text() == "100%" and fits(view) == []
        before = number_sizes(view)["scores"][0]
        for _ in range(3):
            qtbot.keyClick(view, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
        settle(qtbot)
        assert view.zoom_label.text() == f"{round(view.zoom() / 1.25 * 100)}%" != "100%"
        bars = view.body_scroll.verticalScrollBar(), view.body_scroll.horizontalScrollBar()
        assert bars[0].maximum() > 0 or bars[1].maximum() > 0  # larger than the screen: it scrolls
        assert number_sizes(view)["scores"][0] > before
        rects = [r for _, _, r in head_rects(view)]
        assert all(not a.intersects(b) for i, a in enumerate(rects) for b in rects[i + 1:])
        qtbot.keyClick(view, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
        settle(qtbot)
        assert view.zoom_label.text() == "100%" and fits(view) == []
    finally:
        view.leave()


# ---- grouped-query attention: each query head's title names the key/value head it reads ---------------
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_gqa_head_titles_name_the_key_value_head_each_query_head_reads(qtbot, window, lang):
    view = present(qtbot, window, scenario=preset("22_grouped_query"))
    try:
        window.set_language(lang, remember=False)
        go(qtbot, view, "scores")
        trace = window.last_trace
        q, k = trace.array("head_split.query")[0], trace.array("head_split.key")[0]  # (L, H, dk), (S, H_kv, dk)
        scores = trace.array("scores")[0]  # (H, L, S)
        out = view.output_pane()
        H, kv = scores.shape[0], k.shape[1]
        assert kv < H
        for h in range(H):
            title = out.heatmaps[h].title.text.replace("<br>", " ")
            said = int(title.split()[-1])  # "Head 3 · K/V 2" / "头 3 · 键/值 2": the K/V head, counted from 1
            # the scores of head h are its queries against the keys of that K/V head, and no other
            for j in range(kv):
                reads = np.allclose(q[:, h] @ k[:, j].T * trace.options["scale"], scores[h])
                assert reads == (j == said - 1), (h, j, title)
        assert fits(view) == []
    finally:
        window.set_language("en", remember=False)
        i18n.set_language("en")
        view.leave()


# ---- Pyraformer's mask slide explains the pyramid ----------------------------------------------------
def tsl_get_mask(input_size: int, window_size: list[int], inner_size: int) -> np.ndarray:
    """Time-Series-Library's get_mask (layers/Pyraformer_EncDec.py), written out again: True = masked."""
    all_size = [input_size]
    for w in window_size:
        all_size.append(math.floor(all_size[-1] / w))
    n = sum(all_size)
    keep = np.zeros((n, n), dtype=bool)
    inner = inner_size // 2
    for j in range(len(all_size)):
        start = sum(all_size[:j])
        for i in range(start, start + all_size[j]):
            keep[i, max(i - inner, start):min(i + inner + 1, start + all_size[j])] = True
    for j in range(1, len(all_size)):
        start = sum(all_size[:j])
        for i in range(start, start + all_size[j]):
            left = (start - all_size[j - 1]) + (i - start) * window_size[j - 1]
            last = i == start + all_size[j] - 1  # the last node also adopts the steps floor() left over
            right = start if last else (start - all_size[j - 1]) + (i - start + 1) * window_size[j - 1]
            keep[i, left:right] = True
            keep[left:right, i] = True
    return ~keep


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_pyramid_mask_slide_says_what_the_pyramid_keeps(qtbot, window, lang):
    view = present(qtbot, window, scenario=preset("30_tsl_pyraformer_pyramid"))
    try:
        window.set_language(lang, remember=False)
        go(qtbot, view, "extra.mask")
        formula = view.formula.text()
        generic = words.text("step.extra.mask.formula", lang)
        assert formula.replace("\u00a0", " ") != generic  # not the generic valid_len / causal / window formula
        for word in {"en": ("parent", "children", "scale"), "zh": ("父节点", "子节点", "尺度")}[lang]:
            assert word in formula, (word, formula)
        assert {"en": "pyramid", "zh": "金字塔"}[lang] in view.explanation_text()
        part = window.last_trace.options["masks"][0]
        want = tsl_get_mask(part["input_size"], list(part["window_size"]), part["inner_size"])
        assert np.array_equal(view.output_pane().displayed_arrays()[0].astype(bool), want)
        assert fits(view) == []
    finally:
        window.set_language("en", remember=False)
        i18n.set_language("en")
        view.leave()


# ---- Crossformer's 26 chips: one row of whole chips, paged ---------------------------------------------
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_crossformers_chips_page_as_one_row_and_never_cut_a_word(qtbot, window, lang):
    view = present(qtbot, window, scenario=preset("37_tsl_crossformer_two_stage"))
    try:
        window.set_language(lang, remember=False)
        strip = view.map.map
        ids = view.lesson_ids()
        assert len(ids) == 27
        full = {c.step_id: c.label for c in pipeline_map.chips(ids, lang, window.last_trace.options.get("scoring"))}
        for i in range(len(ids)):
            view.go_to(i)
            settle(qtbot)
            shown = strip.shown_chips()
            assert view.current_step() in shown  # the slide's own chip is always in sight
            chips = [strip.chip(s) for s in shown]
            tops = {c.geometry().top() for c in chips}
            assert len(tops) == 1, tops  # one row
            for c in chips:  # whole: the full label, never squeezed, inside the strip
                sid = next(s for s in shown if strip.chip(s) is c)
                assert c.text() == full[sid] and "…" not in c.text()
                assert c.width() >= c.sizeHint().width() and 0 <= c.geometry().left() and \
                    c.geometry().right() < strip.width()
            hidden_before = ids.index(shown[0])
            hidden_after = len(ids) - 1 - ids.index(shown[-1])
            assert strip.before.isVisible() == (hidden_before > 0) and strip.after.isVisible() == (hidden_after > 0)
            if hidden_after:
                assert str(hidden_after) in strip.after.text()
        # the page button shows the chips left out on that side
        view.go_to(0)
        settle(qtbot)
        last = strip.shown_chips()[-1]
        qtbot.mouseClick(strip.after, Qt.MouseButton.LeftButton)
        settle(qtbot)
        assert ids[ids.index(last) + 1] in strip.shown_chips() and ids.index(strip.shown_chips()[-1]) > ids.index(last)
        assert fits(view) == []
    finally:
        window.set_language("en", remember=False)
        i18n.set_language("en")
        view.leave()
