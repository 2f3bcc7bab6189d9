"""The map of steps, "you are here": one chip per step above the window's panels and under each slide's
title, in pipeline order, the current step filled; a click on a chip scrolls the Steps region to that
pane and outlines it (window) or goes to that slide; it fits a 1280 x 720 screen in both languages."""
from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.panes.pipeline_map import PANE_HIGHLIGHT_CSS, PipelineMap
from app.services import i18n
from app.viewmodel.pipeline_map import map_order
from attention.registry import step_registry

ROOT = Path(__file__).resolve().parents[2]
PRESETS = ROOT / "resources" / "scenarios"
#: what the toy's chips say, in pipeline order (written out, not read from the catalogue)
TOY_EN = ["Project Q", "Project K", "Project V", "Split Q", "Split K", "Split V", "Scores", "Masked scores",
          "Softmax", "Weighted sum", "Concat", "Output"]


@pytest.fixture
def chinese():
    yield
    i18n.set_language("en")


def shown(qtbot, window):
    """The window shown (as wide as the test screen lets it be: offscreen's is 800 px; the map's
    fit at 1280 px is checked on its own below)."""
    window.resize(1280, 720)
    window.show()
    qtbot.waitExposed(window)
    window.recompute.wait_idle()
    qtbot.wait(100)
    return window


def load(window, name: str) -> None:
    assert window.load_path(PRESETS / name)
    window.recompute.recompute_now()
    window.recompute.wait_idle()


def assert_fits(strip, chips, max_rows: int = 2) -> None:
    """Every chip whole, inside the strip, none over another, in at most `max_rows` rows."""
    rects = [c.geometry() for c in chips]
    assert all(c.isVisible() for c in chips)
    for c, r in zip(chips, rects):
        assert r.left() >= 0 and r.right() < strip.width(), c.text()
        assert r.width() >= c.sizeHint().width(), c.text()  # never squeezed: its words stay whole
    for i, a in enumerate(rects):
        assert not any(a.intersects(b) for b in rects[i + 1:])
    assert len({r.top() for r in rects}) <= max_rows, strip.width()


def test_window_map_follows_the_steps_and_a_click_scrolls_there(qtbot, window):
    w = shown(qtbot, window)
    wmap, view = w.pipeline_map, w.view
    strip = wmap.map
    assert strip.step_ids() == list(step_registry.PIPELINE)  # the toy: the pipeline, in order
    assert [strip.chip(s).text() for s in strip.step_ids()] == TOY_EN
    assert strip.current() == "projection.query" and strip.chip("projection.query").isChecked()
    assert_fits(strip, [strip.chip(s) for s in strip.step_ids()])
    chip = strip.chip("weighted_sum")
    assert "Weighted sum of values" in chip.toolTip()
    qtbot.mouseClick(chip, Qt.MouseButton.LeftButton)
    pane = view.pane("weighted_sum")
    bar = view.scroll.verticalScrollBar()
    assert bar.value() == min(pane.geometry().top() - 6, bar.maximum())  # scrolled there
    assert pane.visibleRegion().isEmpty() is False
    assert strip.current() == "weighted_sum"
    assert [s for s in strip.step_ids() if strip.chip(s).isChecked()] == ["weighted_sum"]
    assert wmap.outlined() == "weighted_sum" and pane.styleSheet() == PANE_HIGHLIGHT_CSS
    assert "You are here" in chip.toolTip()
    bar.setValue(0)  # the reader scrolls back up: the map follows, the outline goes
    assert strip.current() == "projection.query"
    assert wmap.outlined() is None and pane.styleSheet() != PANE_HIGHLIGHT_CSS


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_strip_at_1280_px_holds_the_toy_in_one_row_and_probsparse_with_a_mask_in_two(qtbot, lang):
    strip = PipelineMap()
    qtbot.addWidget(strip)
    strip.resize(1280, 100)
    strip.show()
    qtbot.waitExposed(strip)
    strip.set_steps(list(step_registry.PIPELINE), lang)
    qtbot.wait(20)
    assert_fits(strip, [strip.chip(s) for s in strip.step_ids()], max_rows=1)
    # the main pipeline, the mask, fully masked rows, ProbSparse's extras and additive's features: more
    # steps than any one trace holds
    from attention.kinds.additive import ADDITIVE
    from attention.kinds.prob_sparse import PROB_SPARSE
    from attention.pipeline.records import BASE

    records = BASE + ADDITIVE.records() + PROB_SPARSE.records()
    every = map_order([r.id for r in records])
    strip.set_steps(every, lang)
    qtbot.wait(20)
    assert len(strip.step_ids()) == len(records)
    assert_fits(strip, [strip.chip(s) for s in strip.step_ids()], max_rows=2)
    assert strip.height() <= 2 * strip.chip("output").sizeHint().height() + 12


def test_window_map_fits_with_probsparse_and_a_mask_in_both_languages(qtbot, window, chinese):
    w = shown(qtbot, window)
    load(w, "07_informer_probsparse.json")
    w.params.controls["causal"].setChecked(True)
    w.recompute.wait_idle()
    qtbot.waitUntil(lambda: "extra.mask" in w.pipeline_map.map.step_ids())
    strip = w.pipeline_map.map
    w.cell_tools.panel.show()  # the Explain panel open on the right: the map still spans the window
    qtbot.wait(30)
    assert strip.width() >= w.width() - 8 and strip.height() >= strip.chip("output").height()
    ids = strip.step_ids()
    assert ids.index("extra.sparsity") < ids.index("scores") and ids.index("extra.mask") < ids.index("masked_scores")
    assert set(ids) == set(w.view.pane_ids())
    for lang in ("en", "zh"):
        w.set_language(lang, remember=False)
        qtbot.wait(30)
        chips = [strip.chip(s) for s in strip.step_ids()]
        assert_fits(strip, chips, max_rows=3)  # the window as wide as offscreen's 800-px screen allows
        assert strip.geometry().right() < w.width()
        assert strip.height() >= max(c.geometry().bottom() for c in chips)  # every row in sight
    assert strip.chip("output").text() == "输出" and strip.chip("attention_weights").text() == "Softmax 权重"
    qtbot.mouseClick(strip.chip("extra.mask"), Qt.MouseButton.LeftButton)  # an extra scrolls there too
    assert strip.current() == "extra.mask"


def test_slide_map_marks_the_slide_and_a_click_goes_there(qtbot, window, presentation):
    view = presentation(window, (1280, 720))
    strip = view.map.map
    assert strip.step_ids() == view.lesson_ids()
    assert strip.current() == view.current_step() == "projection.query"
    qtbot.keyClick(view, Qt.Key.Key_Right)
    assert strip.current() == "projection.key" and strip.chip("projection.key").isChecked()
    qtbot.mouseClick(strip.chip("weighted_sum"), Qt.MouseButton.LeftButton)
    assert view.current_step() == "weighted_sum"
    assert [s for s in strip.step_ids() if strip.chip(s).isChecked()] == ["weighted_sum"]
    assert view.counter.text() == f"{view.lesson_ids().index('weighted_sum') + 1} / {len(view.lesson_ids())}"
    qtbot.keyClick(view, Qt.Key.Key_Right)  # the slide keys still turn slides after a chip was clicked
    assert view.current_step() == "concat" and strip.current() == "concat"
    qtbot.wait(30)
    assert_fits(strip, [strip.chip(s) for s in strip.step_ids()], max_rows=1)
    view.leave()


def test_slide_map_fits_1280_for_probsparse_and_follows_the_language(qtbot, window, chinese, presentation):
    load(window, "07_informer_probsparse.json")
    view = presentation(window, (1280, 720))
    strip = view.map.map
    assert strip.step_ids() == view.lesson_ids()
    for lang in ("en", "zh"):
        window.set_language(lang, remember=False)
        qtbot.wait(30)
        assert_fits(strip, [strip.chip(s) for s in strip.step_ids()])
        assert strip.geometry().right() < view.slide.width()
    assert strip.chip("extra.sparsity").text() == "稀疏度 M"
    qtbot.mouseClick(strip.chip("extra.sparsity"), Qt.MouseButton.LeftButton)
    assert view.current_step() == "extra.sparsity"
    assert view.title.text() == window.last_trace["extra.sparsity"].title["zh"]
    view.leave()
