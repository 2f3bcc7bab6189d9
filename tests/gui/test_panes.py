"""The Steps panes: what each heatmap holds, how it is scaled and marked, hover, redraw economy.

Expected numbers come from the engine's arrays cut independently here (batch item, one matrix
per head), from the seed's hand-computed toy (docs: reference-semantics, "Toy example"), or
from direct numpy computations; never from the pane code itself.
"""
from __future__ import annotations

import dataclasses
import math
import sys

import numpy as np
import pyqtgraph as pg
import pytest
from gui_helpers import expected_matrices as cut
from gui_helpers import random_scenario, toy

import attention
import resources
from app.panes.steps_view import StepsView
from app.viewmodel import cell_format
from app.viewmodel.nowrap import plain

pytestmark = pytest.mark.gui

# The seed's toy (study note "000"): head 1 and head 2 weights, hand-computed there.
SEED_WEIGHTS = [
    [[0.221181, 0.109057, 0.221181, 0.448581], [0.165119, 0.334881, 0.334881, 0.165119],
     [0.165119, 0.165119, 0.334881, 0.334881], [0.157323, 0.038248, 0.157323, 0.647107]],
    [[0.598069, 0.294889, 0.035349, 0.071692], [0.294889, 0.598069, 0.071692, 0.035349],
     [0.221181, 0.448581, 0.221181, 0.109057], [0.448581, 0.221181, 0.109057, 0.221181]],
]
SEED_OUTPUT_ROW2 = [13.0, 14.0, 21.695004, 22.695004]


@pytest.fixture
def view(qtbot):
    v = StepsView()
    qtbot.addWidget(v)
    v.resize(1600, 1000)
    v.show()
    return v


def show(view, sc, batch=0):
    trace = attention.run(sc)
    view.show_trace(trace, sc, batch)
    return trace


# ---- what is on screen --------------------------------------------------------------------------
def test_every_step_gets_a_pane_in_pipeline_order(view):
    show(view, toy())
    assert view.pane_ids() == list(attention.PIPELINE)
    show(view, toy(causal=True))
    assert view.pane_ids()[6:9] == ["scores", "extra.mask", "masked_scores"]
    assert view.pane_ids()[10:12] == ["extra.fully_masked", "weighted_sum"]


@pytest.mark.parametrize("causal", [False, True])
def test_displayed_arrays_are_the_engine_numbers_per_head_row_0_on_top(view, causal):
    trace = show(view, toy(causal=causal))
    for sid in trace.ids:
        shown = view.displayed_arrays(sid)
        want = cut(trace, sid, 0)
        assert len(shown) == len(want), sid
        pane = view.pane(sid)
        for m, (s, w) in enumerate(zip(shown, want)):
            hm = pane.heatmaps[m]
            assert s is hm.image.image, sid  # exactly what the ImageItem was handed
            assert s.dtype == np.float32 and s.flags.c_contiguous, sid
            np.testing.assert_array_equal(s, w.astype(np.float32), err_msg=sid)
            assert hm.image.axisOrder == "row-major" and hm.vb.yInverted(), sid
            # row 0 is drawn above row 1, column 0 left of column 1
            if s.shape[0] > 1:
                assert hm.scene_pos_of(0, 0).y() < hm.scene_pos_of(1, 0).y(), sid
            if s.shape[1] > 1:
                assert hm.scene_pos_of(0, 0).x() < hm.scene_pos_of(0, 1).x(), sid


def test_toy_weights_and_output_match_the_seed_hand_calculation(view):
    show(view, toy())
    w = view.displayed_arrays("attention_weights")
    np.testing.assert_allclose(w[0], SEED_WEIGHTS[0], atol=2e-6)
    np.testing.assert_allclose(w[1], SEED_WEIGHTS[1], atol=2e-6)
    np.testing.assert_allclose(view.displayed_arrays("output")[0][1], SEED_OUTPUT_ROW2, atol=2e-5)


def test_heads_of_one_step_are_side_by_side_and_share_one_colour_bar(view):
    show(view, toy())
    pane = view.pane("scores")
    a, b = pane.heatmaps[0].vb.sceneBoundingRect(), pane.heatmaps[1].vb.sceneBoundingRect()
    assert a.right() <= b.left() and abs(a.top() - b.top()) < 1 and abs(a.width() - b.width()) < 1
    assert pane.heatmaps[0].image.levels.tolist() == pane.heatmaps[1].image.levels.tolist()
    assert tuple(pane.bar.levels()) == tuple(pane.levels())


# ---- colour scales ------------------------------------------------------------------------------
def test_softmax_weights_use_fixed_levels_0_to_1(view):
    show(view, random_scenario(H=2, d=8))
    pane = view.pane("attention_weights")
    assert pane.levels() == (0.0, 1.0)
    assert tuple(pane.bar.levels()) == (0.0, 1.0)
    for hm in pane.heatmaps[:2]:
        assert hm.image.levels.tolist() == [0.0, 1.0]


def test_signed_steps_use_symmetric_levels_from_their_largest_magnitude(view):
    trace = show(view, random_scenario(H=2, d=8))
    for sid in ("projection.query", "scores", "output"):
        lo, hi = view.pane(sid).levels()
        m = float(np.max(np.abs(trace.array(sid)[0])))
        assert lo == -hi and m <= hi <= 1.25 * m, sid  # rounded up to a round number


def test_fill_value_does_not_set_the_masked_score_scale(view):
    trace = show(view, toy(causal=True))
    scores = trace.array("scores")[0]  # (H, L, S)
    unmasked = np.triu(np.ones((4, 4), bool), 1) == 0  # causal: key s <= query l
    m = float(np.max(np.abs(scores[:, unmasked])))
    assert m == pytest.approx(5 / math.sqrt(2))  # the seed's head-2 Gram diagonal 5, scaled by 1/sqrt(2)
    assert scores[:, unmasked].min() >= 0  # every unmasked score of the toy is >= 0: a one-signed scale from 0
    assert view.pane("masked_scores").levels() == (0.0, 4.0)  # 3.54 rounded up to a round 4, not 1e6
    assert view.pane("masked_scores").colour_map() == "positive"


def test_minus_infinity_fill_is_shown_as_the_lowest_colour_not_rescaled(view):
    trace = show(view, toy(causal=True, fill_value=-math.inf))
    lo, hi = view.pane("masked_scores").levels()
    assert math.isfinite(lo) and (lo, hi) == (0.0, 4.0)  # the -inf fills are masked: the unmasked scores set it
    img = view.displayed_arrays("masked_scores")[0]
    assert np.isneginf(img[0, 1]) and np.isneginf(trace.array("masked_scores")[0, 0, 0, 1])
    assert view.pane("masked_scores").data.cell_text(0, 0, 1) == "-∞"


# ---- marks --------------------------------------------------------------------------------------
def test_causal_masked_cells_are_marked_in_masked_scores_and_weights(view):
    show(view, toy(causal=True))
    causal = np.triu(np.ones((4, 4), bool), 1)  # key s > query l
    for sid in ("masked_scores", "attention_weights", "extra.mask"):
        pane = view.pane(sid)
        for m in range(len(view.displayed_arrays(sid))):
            np.testing.assert_array_equal(pane.heatmaps[m].overlay.marked_cells(), causal, err_msg=sid)
    assert not view.pane("scores").heatmaps[0].overlay.marked_cells().any()
    data = view.pane("masked_scores").data
    assert data.cell_text(0, 0, 3) == "-1e6"  # the fill value is printed in the hatched cell
    assert "-1e6" in view.pane("masked_scores").hover.text()  # and explained under the panes


def test_prob_sparse_rows_never_computed_are_drawn_as_not_computed(view):
    sc = random_scenario(L=24, S=24, d=8, H=2, scoring="prob_sparse", factor=2, seed=3)
    trace = show(view, sc)
    for sid in ("scores", "masked_scores"):
        raw = trace.array(sid)[0]
        assert np.isnan(raw).any(), "the scenario must have lazy queries"
        pane = view.pane(sid)
        for h in range(2):
            img = view.displayed_arrays(sid)[h]
            assert np.isfinite(img).all(), sid  # no NaN handed to the colour map
            np.testing.assert_array_equal(pane.heatmaps[h].overlay.not_computed_cells(), np.isnan(raw[h]))
            r = int(np.argwhere(np.isnan(raw[h]).all(axis=1))[0, 0])
            assert "not computed" in pane.hover_text(h, r, 0)
    assert view.pane("attention_weights").heatmaps[0].overlay.has_not_computed() is False


def test_small_prob_sparse_prints_n_c_in_lazy_cells(view):
    sc = random_scenario(L=8, S=8, d=8, H=2, scoring="prob_sparse", factor=2, seed=5)
    trace = show(view, sc)
    raw = trace.array("scores")[0, 0]
    r = int(np.argwhere(np.isnan(raw).all(axis=1))[0, 0])
    assert view.pane("scores").data.cell_text(0, r, 2) == cell_format.NOT_COMPUTED


def test_numbers_print_in_small_cells_only(view):
    show(view, random_scenario(H=1, L=20, S=20, d=4))
    assert not view.pane("scores").heatmaps[0].overlay.has_numbers()  # 20 x 20 = 400 cells
    assert view.pane("projection.query").heatmaps[0].overlay.has_numbers()  # 20 x 4 = 80 cells
    show(view, random_scenario(H=1, L=40, S=40, d=4))
    assert not view.pane("projection.query").heatmaps[0].overlay.has_numbers()  # 40 rows


def test_text_is_dark_on_light_cells_and_light_on_dark_ones(view, qtbot):
    show(view, toy(causal=True))
    pane = view.pane("attention_weights")
    qtbot.wait(10)
    overlay = pane.heatmaps[0].overlay
    dark = overlay.dark_text()
    assert dark[0, 0]  # weight 1: viridis' yellow end
    assert not dark[3, 1]  # weight 0.038: viridis' dark purple end
    assert dark[0, 3]  # masked (weight 0) but washed out by the mask veil


# ---- hover --------------------------------------------------------------------------------------
def test_hover_shows_index_tokens_and_the_exact_value(view):
    trace = show(view, toy())
    pane = view.pane("scores")
    value = float(trace.array("scores")[0, 1, 0, 3])  # head index 1, query index 0, key index 3
    text = pane.hover_text(1, 0, 3)
    for part in ("Head 2", "query 1", "t1", "key 4", "t4", repr(value)):  # positions from 1
        assert part in text
    # driven through the scene, as the mouse does
    pos = pane.heatmaps[1].scene_pos_of(0, 3)
    assert pane.hover_at(pos) == text
    assert pane.hover.text() == text
    pane.hover_at(pane.heatmaps[1].vb.mapViewToScene(pg.Point(10, 10)))  # outside the matrix
    assert pane.hover.text() != text


def test_hover_on_a_head_feature_names_its_head(view):
    trace = show(view, toy())
    text = view.pane("projection.query").hover_text(0, 2, 3)
    assert "feature 4 (head 2, #2)" in text  # column index 3: the 4th feature, head 2's 2nd (from 1)
    assert float(text.rsplit(" = ", 1)[1]) == float(trace.array("projection.query")[0, 2, 3])  # every digit


def test_signed_scale_ends_are_round_numbers_at_or_above_the_largest_value():
    from app.panes.colormaps import nice_ceiling

    assert ([nice_ceiling(x) for x in (0.7071, 1.0, 2.83, 3.54, 27.0, 1e6, 0.0011)]
            == [0.8, 1.0, 3.0, 4.0, 30.0, 1e6, 0.0012])


def test_an_edit_that_keeps_the_largest_value_keeps_the_colour_scale(view):
    sc = toy()
    show(view, sc)
    before = view.pane("scores").levels()
    v = sc.values.copy()
    v[0, 1, 1] += 0.5  # values do not reach the scores
    q = sc.queries.copy()
    q[0, 3, 3] = 0.1  # a small change in the queries: scores move a little
    show(view, dataclasses.replace(sc, queries=q, values=v))
    assert view.pane("scores").levels() == before


def test_cell_format_is_compact_and_exact_when_asked():
    assert cell_format.compact(-1e6) == "-1e6"
    assert cell_format.compact(-math.inf) == "-∞"
    assert cell_format.compact(1 / math.sqrt(2)) == "0.7071"
    assert cell_format.compact(1 / math.sqrt(2), 3) == "0.707"
    assert cell_format.compact(-0.0) == "0"
    assert cell_format.compact(13.794322) == "13.79"
    assert cell_format.compact(0.000123) == "1.23e-4"
    assert cell_format.exact(0.1) == "0.1"
    assert float(cell_format.exact(1 / 3)) == 1 / 3


# ---- batch, redraw economy, reshaping ----------------------------------------------------------------
def test_batch_switch_shows_the_other_items_numbers(view):
    sc = random_scenario(B=2, H=2, d=8)
    trace = show(view, sc, batch=1)
    for sid in trace.ids:
        for s, w in zip(view.displayed_arrays(sid), cut(trace, sid, 1)):
            np.testing.assert_array_equal(s, w.astype(np.float32), err_msg=sid)
    assert "batch item 2" in view.pane("scores").title_text()  # index 1: the second item, counted from 1
    view.show_trace(trace, sc, 0)
    np.testing.assert_array_equal(view.displayed_arrays("output")[0], trace.array("output")[0].astype(np.float32))
    with pytest.raises(ValueError, match="batch"):
        view.show_trace(trace, sc, 2)


def test_second_trace_redraws_only_the_panes_whose_numbers_changed(view, monkeypatch):
    sc = toy()
    first = show(view, sc)
    for sid in view.pane_ids():
        view.pane(sid)  # every pane drawn once (those out of sight wait until asked for)
    v = sc.values.copy()
    v[0, 0, 0] += 1.0  # touches the values' path only
    sc2 = dataclasses.replace(sc, values=v)
    second = attention.run(sc2)
    calls = []
    original = pg.ImageItem.setImage
    monkeypatch.setattr(pg.ImageItem, "setImage",
                        lambda self, *a, **k: (calls.append(self), original(self, *a, **k))[1])
    view.show_trace(second, sc2)
    for sid in view.pane_ids():
        view.pane(sid)  # panes out of sight are drawn when asked for (or a moment later)
    changed = [sid for sid in first.ids if not np.array_equal(first.array(sid), second.array(sid))]
    assert set(changed) == {"projection.value", "head_split.value", "weighted_sum", "concat", "output"}
    assert len(calls) == sum(len(cut(second, sid, 0)) for sid in changed)
    calls.clear()
    view.show_trace(attention.run(sc2), sc2)  # same numbers again: nothing to draw
    for sid in view.pane_ids():
        view.pane(sid)
    assert calls == []


def test_reshaping_reuses_panes_and_heatmaps(view):
    show(view, toy())
    panes = {sid: view.pane(sid) for sid in view.pane_ids()}
    heatmaps = {sid: list(p.heatmaps) for sid, p in panes.items()}
    trace = show(view, toy(n_heads=1))
    assert view.pane_ids() == list(attention.PIPELINE)
    for sid in trace.ids:
        assert view.pane(sid) is panes[sid]
        assert view.pane(sid).heatmaps[0] is heatmaps[sid][0]
        want = cut(trace, sid, 0)
        assert len(view.displayed_arrays(sid)) == len(want)
        for s, w in zip(view.displayed_arrays(sid), want):
            np.testing.assert_array_equal(s, w.astype(np.float32), err_msg=sid)
    assert view.pane("scores").visible_heads() == [0]
    rng = np.random.default_rng(0)
    sc6 = toy(queries=rng.normal(size=(1, 6, 4)), query_tokens=None)
    trace = show(view, sc6)
    assert view.pane("output").heatmaps[0] is heatmaps["output"][0]
    assert view.displayed_arrays("scores")[0].shape == (6, 4)
    np.testing.assert_array_equal(view.displayed_arrays("output")[0], trace.array("output")[0].astype(np.float32))
    show(view, toy())  # back to two heads: the same two heatmaps come back
    assert view.pane("scores").heatmaps[:2] == heatmaps["scores"][:2]


def test_extras_come_and_go_with_the_mask_without_rebuilding(view):
    show(view, toy(causal=True))
    mask_pane = view.pane("extra.mask")
    show(view, toy())
    assert "extra.mask" not in view.pane_ids()
    with pytest.raises(KeyError):
        view.pane("extra.mask")
    show(view, toy(causal=True))
    assert view.pane("extra.mask") is mask_pane


@pytest.mark.slow  # draws every preset's trace
def test_a_long_class_through_every_preset_keeps_only_a_few_hidden_panes(view):
    """Issue 29 (the soak's memory): panes of steps no longer shown are kept only HIDDEN_KEPT at a time, the
    last hidden; a step shown again after its pane went gets a new one with the trace's very numbers."""
    from app.panes.steps_view import HIDDEN_KEPT
    from attention.files import scenario_io

    seen: set[str] = set()
    for path, _ in resources.list_presets():
        sc = scenario_io.load(path)
        show(view, sc)
        seen |= set(view.pane_ids())
        assert len(view._panes) <= len(view.pane_ids()) + HIDDEN_KEPT
        assert set(view.pane_ids()) <= view._panes.keys()
    assert len(seen) > len(view.pane_ids()) + HIDDEN_KEPT  # some panes really went
    first = scenario_io.load(resources.list_presets()[0][0])
    trace = show(view, first)
    for sid in trace.ids:
        for shown, want in zip(view.displayed_arrays(sid), cut(trace, sid, 0)):
            ok = ~np.isnan(want)
            np.testing.assert_array_equal(np.asarray(shown)[ok], want.astype(np.float32)[ok], err_msg=sid)


# ---- focus, language, stale --------------------------------------------------------------------------
def test_focus_one_head_and_back(view, qtbot):
    show(view, toy())
    view.set_focus_head(1)
    assert view.pane("scores").visible_heads() == [1]
    assert view.pane("output").visible_heads() == [0]
    assert view.head_box.currentIndex() == 2
    with qtbot.waitSignal(view.focusHeadChanged) as sig:
        view.head_box.activated.emit(0)  # the user picks "All heads"
    assert sig.args == [-1]
    assert view.pane("scores").visible_heads() == [0, 1]
    with qtbot.waitSignal(view.focusHeadChanged) as sig:
        view.pane("weighted_sum").focusRequested.emit(0)  # a head title was clicked
    assert sig.args == [0] and view.pane("attention_weights").visible_heads() == [0]
    with qtbot.waitSignal(view.focusHeadChanged) as sig:
        show(view, toy(n_heads=1))  # the focused head is gone with the new head count
    assert sig.args == [-1]


def test_clicking_a_head_title_focuses_that_head(view, qtbot):
    show(view, toy())
    pane = view.pane("scores")
    qtbot.wait(20)
    title = pane.heatmaps[1].title
    centre = pane.canvas.mapFromScene(title.sceneBoundingRect().center())
    with qtbot.waitSignal(view.focusHeadChanged) as sig:
        qtbot.mouseClick(pane.canvas.viewport(), pg.QtCore.Qt.MouseButton.LeftButton, pos=centre)
    assert sig.args == [1]


def test_the_additive_scores_pane_shows_the_additive_formula(view):
    """d2l's additive scores are w_v · tanh(W_q q + W_k k), not a dot product: the pane says so,
    in both languages; a dot-product trace keeps q · k."""
    from attention.files import scenario_io

    sc = scenario_io.load(resources.scenarios_dir() / "04_d2l_additive.json")
    show(view, sc)
    assert "w_v · tanh(W_q q_l + W_k k_s)" in plain(view.pane("scores").formula.text())
    assert "q_l · k_s" not in plain(view.pane("scores").formula.text())
    view.set_language("zh")
    assert "w_v · tanh(W_q q_l + W_k k_s)" in plain(view.pane("scores").formula.text())
    view.set_language("en")
    show(view, toy())
    assert plain(view.pane("scores").formula.text()) == "scores[b,h,l,s] = scale × q_l · k_s"


def test_language_switch_changes_titles_axes_and_hover(view):
    trace = show(view, toy())
    view.set_language("zh")
    pane = view.pane("attention_weights")
    assert trace["attention_weights"].title["zh"] in pane.title_text()
    assert plain(pane.formula.text()) == trace["attention_weights"].formula["zh"]
    assert "查询" in pane.left.labelText and "键" in pane.heatmaps[0].bottom.labelText
    assert pane.hover_text(0, 0, 0).startswith("头 1")
    view.set_language("en")
    assert "queries" in pane.left.labelText
    with pytest.raises(ValueError, match="language"):
        view.set_language("fr")


def test_stale_keeps_the_numbers_and_says_why(view):
    trace = show(view, toy())
    view.set_stale(True, "n_heads: 3 heads do not divide d_model = 4")
    assert view.banner.isVisibleTo(view) and "n_heads: 3 heads" in view.banner.text()
    assert view.pane("scores").canvas.ci.opacity() < 1
    np.testing.assert_array_equal(view.displayed_arrays("scores")[0], trace.array("scores")[0, 0].astype(np.float32))
    view.set_stale(False)
    assert not view.banner.isVisibleTo(view) and view.pane("scores").canvas.ci.opacity() == 1


def test_eight_heads_classroom_size_draws(view):
    trace = show(view, random_scenario(L=8, S=8))
    assert len(view.displayed_arrays("scores")) == 8
    assert view.pane("scores").visible_heads() == list(range(8))
    for s, w in zip(view.displayed_arrays("head_split.value"), cut(trace, "head_split.value", 0)):
        np.testing.assert_array_equal(s, w.astype(np.float32))


def test_wheel_over_a_heatmap_is_left_to_the_list(view, qtbot):
    """The canvas ignores the wheel (so Qt hands a real wheel event on to the scroll area) and
    the heatmap never zooms.  Qt does not propagate synthesized wheel events, so the hand-over
    itself is Qt's and is not driven here."""
    from PySide6.QtCore import QPoint, QPointF, Qt
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    show(view, random_scenario(L=8, S=8))
    qtbot.wait(20)
    pane = view.pane("projection.query")
    ranges = pane.heatmaps[0].vb.viewRange()
    vp = pane.canvas.viewport()
    at = QPointF(vp.width() / 2, vp.height() / 2)
    ev = QWheelEvent(at, QPointF(vp.mapToGlobal(at.toPoint())), QPoint(0, 0), QPoint(0, -120),
                     Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(vp, ev)
    assert not ev.isAccepted()
    assert pane.heatmaps[0].vb.viewRange() == ranges
    bar = view.scroll.verticalScrollBar()
    assert bar.maximum() > 0  # the list itself scrolls
    vp = view.scroll.viewport()
    ev = QWheelEvent(QPointF(10, 10), QPointF(vp.mapToGlobal(QPoint(10, 10))), QPoint(0, 0), QPoint(0, -120),
                     Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(vp, ev)
    assert bar.value() > 0


def test_boolean_colour_bar_reads_false_and_true(view):
    show(view, toy(causal=True))
    ticks = view.pane("extra.mask").bar.axis._tickLevels
    assert ticks[0] == [(0.0, "✗"), (1.0, "✓")]


def test_moving_the_mouse_over_a_cell_shows_its_value(view, qtbot):
    """A real mouse-move event through Qt and pyqtgraph's scene (QTest.mouseMove does not reach
    an offscreen window without a button pressed, so the event is sent to the viewport)."""
    from PySide6.QtCore import QEvent, QPointF, Qt
    from PySide6.QtGui import QMouseEvent
    from PySide6.QtWidgets import QApplication

    trace = show(view, toy())
    pane = view.pane("attention_weights")
    qtbot.wait(20)
    vp = pane.canvas.viewport()
    target = QPointF(pane.canvas.mapFromScene(pane.heatmaps[0].scene_pos_of(2, 1)))
    ev = QMouseEvent(QEvent.Type.MouseMove, target, QPointF(vp.mapToGlobal(target.toPoint())),
                     Qt.MouseButton.NoButton, Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(vp, ev)
    qtbot.waitUntil(lambda: "query 3" in pane.hover.text())  # row index 2: query 3, counted from 1
    assert repr(float(trace.array("attention_weights")[0, 0, 2, 1])) in pane.hover.text()
    assert "Head 1" in pane.hover.text() and "key 2 “t2”" in pane.hover.text()
    assert pane.heatmaps[0].overlay._hover == (2, 1)  # the cell is outlined


def test_token_axes_shrink_their_words_before_leaving_any_out(qtbot):
    """Four English keys under four ~59 px cells: at 13 px "learning" needs every other label
    left out; the axis writes all four words a little smaller instead.  An index axis (no
    tokens) keeps its size and thins to a round stride, as before."""
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QFont, QFontMetricsF

    from app.panes.heatmap import MIN_TOKEN_FONT_PX, TICK_FONT_PX, TICK_GAP_PX, styled_axis
    from app.viewmodel.pane_data import Axis

    words = ("I", "love", "machine", "learning")
    font = QFont()
    font.setPixelSize(TICK_FONT_PX)
    widest = max(QFontMetricsF(font).horizontalAdvance(w) for w in words)
    cell = widest + TICK_GAP_PX - 4  # too narrow at the full size
    axis = styled_axis("bottom")
    axis.setGeometry(QRectF(0, 0, 4 * cell, 30))
    axis.set_index(Axis("S", 4, tokens=words))
    assert [t for _, t in axis._ticks] == list(words)
    assert MIN_TOKEN_FONT_PX <= axis.tick_font_px() < TICK_FONT_PX
    small = QFont()
    small.setPixelSize(axis.tick_font_px())
    assert max(QFontMetricsF(small).horizontalAdvance(w) for w in words) + TICK_GAP_PX <= cell

    numbers = styled_axis("bottom")
    numbers.setGeometry(QRectF(0, 0, 40 * 9, 30))
    numbers.set_index(Axis("S", 40))  # "38" needs more than 9 px: every 5th index
    assert numbers.tick_font_px() == TICK_FONT_PX and len(numbers._ticks) < 40


def test_quick_no_room_for_numbers_agrees_with_the_full_search(qtbot):
    """TextFit may say "no number fits" from a dozen labels (text_fn.sample); it must give the
    same answer as the search over every label, and skip formatting every cell when it can."""
    from app.panes.cell_overlay import TextFit
    from app.viewmodel.pane_data import pane_data

    sc = random_scenario(L=8, S=8, d=32, H=8, seed=3, causal=True)
    trace = attention.run(sc)
    rng = np.random.default_rng(0)
    for sid in ("projection.query", "scores", "masked_scores", "attention_weights", "output"):
        data = pane_data(trace, sid, 0, None, None)
        n = data.layout.n_matrices
        for w, h in [(6, 10), (12, 18), (18, 30), (26, 30), (34, 30), (44, 40), (70, 50)] + \
                [tuple(rng.uniform(5, 80, 2)) for _ in range(12)]:
            calls = []

            def full(m, record=False, calls=calls, data=data):
                def fn(digits):
                    if record:
                        calls.append(digits)
                    return data.cell_texts(m, digits)
                return fn

            plain = TextFit([full(m) for m in range(n)]).choose(w, h)
            fns = [full(m, record=True) for m in range(n)]
            for m, f in enumerate(fns):
                f.sample = lambda digits, m=m, data=data: data.sample_texts(m, digits)
            quick = TextFit(fns).choose(w, h)
            assert quick == plain, (sid, w, h)
            if plain is None and w < 12:  # far too narrow: the sample proves it alone
                assert calls == [], (sid, w, h)


# ---- panes out of sight -------------------------------------------------------------------------
def _classroom_pair():
    """Two traces of the classroom size (8 heads: only the first panes fit on screen) that
    differ in every step downstream of the queries."""
    sc = random_scenario(L=8, S=8, d=32, H=8, seed=11)
    q = sc.queries.copy()
    q[0, 2, 5] += 1.0
    sc2 = dataclasses.replace(sc, queries=q)
    return sc, attention.run(sc), sc2, attention.run(sc2)


def _shows(view, sid, trace):
    shown = view.pane(sid, current=False).displayed_arrays()
    return all(np.array_equal(s, w.astype(np.float32), equal_nan=True) for s, w in zip(shown, cut(trace, sid, 0)))


def test_panes_out_of_sight_are_drawn_right_after_the_ones_in_sight(view, qtbot):
    sc, first, sc2, second = _classroom_pair()
    view.show_trace(first, sc)
    qtbot.wait(100)  # laid out: the list knows where each pane is
    qtbot.waitUntil(lambda: all(view.is_current(s) for s in view.pane_ids()), timeout=5000)
    view.show_trace(second, sc2)
    assert view.is_current("projection.query") and _shows(view, "projection.query", second)
    assert not view.is_current("output") and _shows(view, "output", first)  # below the fold: still waiting
    with qtbot.waitSignal(view.caughtUp, timeout=5000):
        pass
    for sid in view.pane_ids():
        assert view.is_current(sid) and _shows(view, sid, second), sid


def test_a_waiting_pane_is_drawn_before_it_scrolls_into_sight_or_is_asked_for(view, qtbot):
    sc, first, sc2, second = _classroom_pair()
    view.show_trace(first, sc)
    qtbot.wait(100)
    for sid in view.pane_ids():
        view.pane(sid)
    view.show_trace(second, sc2)
    assert not view.is_current("output") and not view.is_current("concat")
    bar = view.scroll.verticalScrollBar()
    bar.setValue(bar.maximum())  # no event loop in between: the move itself draws it
    assert view.is_current("output") and _shows(view, "output", second)
    assert not view.is_current("scores") and _shows(view, "scores", first)  # in the middle: still waiting
    view.pane("scores")  # asking for a pane draws it
    assert view.is_current("scores") and _shows(view, "scores", second)


def test_a_hidden_view_draws_every_pane_at_once(qtbot):
    v = StepsView()
    qtbot.addWidget(v)
    v.resize(1600, 1000)
    sc, first, sc2, second = _classroom_pair()
    v.show_trace(second, sc2)
    assert all(v.is_current(s) and _shows(v, s, second) for s in v.pane_ids())


def test_a_step_that_goes_away_while_waiting_out_of_sight_is_forgotten(view, qtbot):
    sc = random_scenario(L=8, S=8, d=32, H=8, seed=12, causal=True)
    view.show_trace(attention.run(sc), sc)
    qtbot.wait(100)
    q = sc.queries.copy()
    q[0, 1, 1] += 1.0
    sc2 = dataclasses.replace(sc, queries=q)
    view.show_trace(attention.run(sc2), sc2)
    assert not view.is_current("extra.mask")  # at the bottom of the list: waiting
    sc3 = dataclasses.replace(sc2, causal=False)  # the mask step goes away
    third = attention.run(sc3)
    with qtbot.waitSignal(view.caughtUp, timeout=5000):
        view.show_trace(third, sc3)
    assert "extra.mask" not in view.pane_ids()
    assert all(view.is_current(s) and _shows(view, s, third) for s in view.pane_ids())
    assert not view._catch_up_timer.isActive()  # nothing left to catch up: no timer spinning


# ---- numbers beyond float32, and a paint that fails ----------------------------------------------
def test_text_colours_of_numbers_beyond_float32_are_defined():
    """A float64 scenario may hold numbers past float32's range: the images get ±inf and the
    levels go past float32 (here ±4e38).  Every cell still gets a LUT entry (in float32,
    -inf - (-4e38) is NaN, which used to raise inside a paint and crash the window)."""
    from app.panes.colormaps import lut_index

    idx = lut_index(np.array([-np.inf, -3.3e38, 0.0, 3.3e38, np.inf], dtype=np.float32), (-4e38, 4e38))
    assert idx.tolist() == [0, int((4e38 - 3.3e38) * 255 / 8e38), 127, int((4e38 + 3.3e38) * 255 / 8e38), 255]


def test_a_float64_scenario_past_float32_range_paints_without_error(view, qtbot):
    sc = toy(dtype="float64")
    q = sc.queries.copy()
    q[0, 0, 0], q[0, 0, 1] = 3.3e38, -1e39  # finite in float64; the second is -inf in a float32 image
    sc = dataclasses.replace(sc, queries=q)
    view.show_trace(attention.run(sc), sc)
    errors = []
    hook = sys.excepthook
    sys.excepthook = lambda *info: errors.append(info)
    try:
        view.pane("projection.query").grab()  # paints the cells and their numbers
        qtbot.wait(20)
    finally:
        sys.excepthook = hook
    assert errors == []
    dark = view.pane("projection.query").heatmaps[0].overlay.dark_text()
    assert dark.shape == (4, 4)


def test_a_paint_that_raises_is_reported_once_and_the_window_lives_on(view, qtbot, monkeypatch):
    """PySide6 6.11 segfaults when a Python paint() override raises; ours are guarded."""
    from app.panes import cell_overlay, paint_guard

    show(view, toy())
    monkeypatch.setattr(paint_guard, "_reported", set())
    monkeypatch.setattr(cell_overlay.CellOverlay, "_paint", lambda *a: 1 / 0)
    errors = []
    monkeypatch.setattr(sys, "excepthook", lambda *info: errors.append(info[0]))
    view.pane("attention_weights").grab()
    view.pane("scores").grab()
    qtbot.waitUntil(lambda: bool(errors), timeout=2000)
    qtbot.wait(20)
    assert errors == [ZeroDivisionError]  # once, not once per item or per paint
