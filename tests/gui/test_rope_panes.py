"""RoPE and QK-norm in the window: their panes appear where they are computed (after the head
split, QK-norm before each rotation, all before the scores), a click on a rotated cell explains
its pair, angle, cos and sin in English and Chinese, and the by-hand sheet shows the rotated q and k."""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from attention.datamodel.parts import Part

pytestmark = pytest.mark.gui

#: written out by hand: the order a person reads the steps in
WANT = ["projection.query", "projection.key", "projection.value", "head_split.query", "head_split.key",
        "head_split.value", "qk_norm.query", "rope.query", "qk_norm.key", "rope.key", "scores", "masked_scores",
        "attention_weights", "weighted_sum", "concat", "output"]


@pytest.fixture
def rope_window(window):
    sc = window.document.scenario
    window.document.replace(dataclasses.replace(sc, causal=False, valid_lens=None,
                                                positions=(Part("rope", {"base": 100.0, "offset": 5}),),
                                                modifiers=(Part("qk_norm", {"style": "gemma3"}),)), "rope")
    window.recompute.wait_idle()
    return window


def test_the_new_panes_appear_in_order(rope_window):
    ids = rope_window.view.pane_ids()
    assert [i for i in ids if not i.startswith("extra.")] == WANT


def test_a_click_on_a_rotated_cell_explains_it_in_both_languages(rope_window):
    view, panel = rope_window.view, rope_window.cell_tools.panel
    trace = view.current_trace()
    d = trace.array("rope.query").shape[-1]
    view.pane("rope.query").click_cell(0, 1, 0)  # head 1, query 2 (position 6), column 1: pair 0, θ_0 = 1
    step_id, index = panel.selection
    assert step_id == "rope.query" and index == (0, 1, 0, 0)
    en = panel.explanation_text()
    assert "pair 0" in en and "position 6" in en
    for x in (6.0, math.cos(6.0), math.sin(6.0)):
        assert f"{x:.4g}" in en
    rope_window.set_language("zh")
    try:
        zh = panel.explanation_text()
        assert "第 0 对" in zh and "弧度" in zh and f"{math.sin(6.0):.4g}" in zh
    finally:
        rope_window.set_language("en")
    assert d >= 2 and panel.explanation.result == pytest.approx(float(trace.array("rope.query")[0, 1, 0, 0]))


def test_the_by_hand_sheet_shows_the_rotated_q_and_k(rope_window):
    from app.viewmodel import by_hand

    trace = rope_window.view.current_trace()
    plan = by_hand.plan(trace, 0, 0)
    assert plan.block("q").step_id == "rope.query" and plan.block("kt").step_id == "rope.key"
    np.testing.assert_array_equal(plan.block("q").values, trace.array("rope.query")[0, :, 0])
    np.testing.assert_array_equal(plan.block("kt").values, trace.array("rope.key")[0, :, 0].T)
