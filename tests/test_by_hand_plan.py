"""The by-hand grid plan (app/viewmodel/by_hand.py), without Qt: every number is the trace's, each
score lies where its row of Q and its column of Kᵀ cross, each output where its row of weights
and its column of V cross, and nothing drawn overlaps anything else."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import attention
from app.viewmodel import by_hand
from attention import Scenario, words

SHAPES = [  # (B, L, S, d_model, H, d_v_in)
    (1, 3, 3, 4, 2, 4),
    (2, 2, 5, 6, 3, 6),  # S > L, batch item 1 shown
    (1, 5, 2, 8, 1, 8),  # d_k (8) > S, L > S
    (1, 1, 7, 2, 2, 2),  # one query
]


def scenario(B, L, S, d, H, dv_in, **more) -> Scenario:
    rng = np.random.default_rng(L * 100 + S * 10 + d)
    return Scenario(rng.normal(size=(B, L, d)), rng.normal(size=(B, S, d)), rng.normal(size=(B, S, dv_in)),
                    n_heads=H, query_tokens=tuple(f"q{i}" for i in range(L)),
                    key_tokens=tuple(f"k{j}" for j in range(S)), **more)


def sheets():
    for shape, arrangement in itertools.product(SHAPES, by_hand.ARRANGEMENTS):
        sc = scenario(*shape)
        trace = attention.run(sc)
        for head in range(sc.n_heads):
            yield sc, trace, head, by_hand.plan(trace, sc.batch - 1, head, "en", sc.query_tokens, sc.key_tokens,
                                                arrangement=arrangement)


@pytest.mark.parametrize("case", list(sheets()), ids=lambda c: f"{c[3].arrangement}-L{c[0].L}-S{c[0].S}-h{c[2]}")
def test_each_result_cell_lies_where_its_row_and_column_cross(case):
    _, _, _, sheet = case
    q, kt, scores = sheet.block("q"), sheet.block("kt"), sheet.block("scores")
    w, v, out = sheet.block("weights"), sheet.block("v"), sheet.block("output")
    assert q.cols == kt.rows and w.cols == v.rows  # the inner dimensions meet
    for i, j in itertools.product(range(scores.rows), range(scores.cols)):
        cell = scores.cell(i, j)
        assert cell.y == q.cell(i, 0).y == q.cell(i, q.cols - 1).y  # Q's row i, the same y
        assert cell.x == kt.cell(0, j).x == kt.cell(kt.rows - 1, j).x  # Kᵀ's column j, the same x
        assert q.rect.x + q.rect.w < cell.x and kt.rect.y + kt.rect.h < cell.y  # Q to the left, Kᵀ above
    for i, j in itertools.product(range(out.rows), range(out.cols)):
        cell = out.cell(i, j)
        assert cell.y == w.cell(i, 0).y == w.cell(i, w.cols - 1).y
        assert cell.x == v.cell(0, j).x == v.cell(v.rows - 1, j).x
        assert w.rect.x + w.rect.w < cell.x and v.rect.y + v.rect.h < cell.y
    # the weights are the scores after softmax: row for row (wide) or column for column (stacked)
    if sheet.arrangement == "wide":
        assert all(w.cell(i, 0).y == scores.cell(i, 0).y for i in range(w.rows))
    else:
        assert all(w.cell(0, j).x == scores.cell(0, j).x for j in range(w.cols))


@pytest.mark.parametrize("case", list(sheets()), ids=lambda c: f"{c[3].arrangement}-L{c[0].L}-S{c[0].S}-h{c[2]}")
def test_nothing_overlaps_and_everything_lies_on_the_sheet(case):
    sheet = case[3]
    rects = sheet.rects()
    for (a, ra), (b, rb) in itertools.combinations(rects, 2):
        assert not ra.overlaps(rb), f"{a} overlaps {b}"
    for name, r in rects:
        assert r.x >= 0 and r.y >= 0 and r.x + r.w <= sheet.width + 1e-9 and r.y + r.h <= sheet.height + 1e-9, name
    for block in sheet.blocks.values():  # every label sits beside its row or column
        for lane in block.labels:
            owner = block
            if lane.side == "left":
                assert lane.lane.x + lane.lane.w == pytest.approx(owner.x) and lane.lane.y == owner.y
                assert len(lane.texts) == owner.rows
            else:
                assert lane.lane.x == owner.x and len(lane.texts) == owner.cols
                assert lane.lane.y + lane.lane.h <= owner.y


@pytest.mark.parametrize("case", list(sheets()), ids=lambda c: f"{c[3].arrangement}-L{c[0].L}-S{c[0].S}-h{c[2]}")
def test_the_numbers_are_the_traces_and_multiply_out_by_hand(case):
    sc, trace, h, sheet = case
    b = sc.batch - 1
    assert np.array_equal(sheet.block("q").values, trace.array("head_split.query")[b, :, h, :])
    assert np.array_equal(sheet.block("kt").values, trace.array("head_split.key")[b, :, h, :].T)
    assert np.array_equal(sheet.block("v").values, trace.array("head_split.value")[b, :, h, :])
    assert np.array_equal(sheet.block("scores").values, trace.array("scores")[b, h])
    assert np.array_equal(sheet.block("weights").values, trace.array("attention_weights")[b, h])
    assert np.array_equal(sheet.block("output").values, trace.array("weighted_sum")[b, :, h, :])
    # worked by hand from the sheet's own blocks: scale · Q Kᵀ, softmax by rows, weights · V
    q, kt, v = sheet.block("q").values, sheet.block("kt").values, sheet.block("v").values
    by_hand_scores = (q @ kt) / np.sqrt(q.shape[1])
    np.testing.assert_allclose(sheet.block("scores").values, by_hand_scores, rtol=1e-12, atol=1e-12)
    e = np.exp(by_hand_scores - by_hand_scores.max(axis=1, keepdims=True))
    np.testing.assert_allclose(sheet.block("weights").values, e / e.sum(axis=1, keepdims=True), atol=1e-12)
    np.testing.assert_allclose(sheet.block("output").values, sheet.block("weights").values @ v, atol=1e-12)


def test_labels_are_the_tokens_and_the_feature_indices():
    sc = scenario(1, 3, 4, 4, 2, 4)
    sheet = by_hand.plan(attention.run(sc), 0, 1, "en", sc.query_tokens, sc.key_tokens, arrangement="stacked")
    lanes = {(b.key, lane.side): lane.texts for b in sheet.blocks.values() for lane in b.labels}
    assert lanes[("q", "left")] == lanes[("weights", "left")] == ("q0", "q1", "q2")
    assert lanes[("kt", "top")] == lanes[("v", "left")] == ("k0", "k1", "k2", "k3")
    assert lanes[("q", "top")] == lanes[("kt", "left")] == ("1", "2")  # feature positions count from 1 (numbers.md)
    assert sheet.block("q").title == "Q, Head 2" and sheet.heading == "By hand: Head 2 of 2"
    zh = by_hand.plan(attention.run(sc), 0, 1, "zh", arrangement="wide")
    assert zh.block("kt").title == "Kᵀ，头 2" and zh.block("scores").title == attention.run(sc)["scores"].title["zh"]


def test_a_masked_key_is_marked_and_a_prob_sparse_gap_says_not_computed():
    sc = scenario(1, 3, 3, 4, 1, 4, causal=True)
    sheet = by_hand.plan(attention.run(sc))
    want = np.triu(np.ones((3, 3), bool), 1)  # causal: later keys hidden
    assert np.array_equal(sheet.block("scores").masked, want) and np.array_equal(sheet.block("weights").masked, want)
    assert sheet.block("q").masked is None
    ps = scenario(1, 6, 6, 4, 1, 4, scoring="prob_sparse", factor=1)
    sheet = by_hand.plan(attention.run(ps))
    scores = sheet.block("scores")
    texts = {scores.text(i, j) for i in range(scores.rows) for j in range(scores.cols)}
    if np.isnan(scores.values).any():
        assert "n/c" in texts


def test_head_and_batch_are_clamped_and_a_big_scenario_is_refused_in_words():
    sc = scenario(1, 3, 3, 4, 2, 4)
    trace = attention.run(sc)
    assert by_hand.plan(trace, 5, 9).head == 1 and by_hand.plan(trace, -1, -3).head == 0
    big = scenario(1, by_hand.MAX_SIDE + 1, 3, 4, 1, 4)
    for lang in words.LANGS:
        refused = by_hand.plan(attention.run(big), lang=lang)
        assert isinstance(refused, by_hand.TooBig)
        assert str(by_hand.MAX_SIDE) in refused.message and f"L = {by_hand.MAX_SIDE + 1}" in refused.message
    with pytest.raises(ValueError, match="arrangement"):
        by_hand.plan(trace, arrangement="diagonal")
