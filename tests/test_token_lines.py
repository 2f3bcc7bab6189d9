"""Token lines without Qt (app.viewmodel.token_lines) and the what-if slider ranges (app.viewmodel.what_if).

Every weight here comes from a softmax written out in the test (math.exp over hand-made scores)
or from the engine checked against one."""
from __future__ import annotations

import math

import numpy as np
import pytest

import attention
from app.viewmodel import token_lines as tl
from app.viewmodel.what_if import MIDDLE, SCALE_SPAN, STEPS, CellRange, ScaleRange


def softmax_rows(scores: list[list[float]], masked: set[tuple[int, int]] = frozenset(), fill: float = -1e6):
    """Row softmax by hand: masked scores replaced by `fill` first (as the engine does)."""
    out = []
    for r, row in enumerate(scores):
        row = [fill if (r, c) in masked else s for c, s in enumerate(row)]
        top = max(row)
        e = [math.exp(s - top) for s in row]
        out.append([x / sum(e) for x in e])
    return out


SCORES = [  # (H=2, L=3, S=3), made up
    [[1.0, 2.0, 0.5], [0.0, 0.0, 3.0], [-1.0, 1.0, 1.0]],
    [[2.0, -2.0, 0.0], [1.5, 1.5, 1.5], [0.0, 4.0, 1.0]],
]
MASKED = {(0, 1), (0, 2), (1, 2)}  # causal


def hand_weights(masked=frozenset()) -> np.ndarray:
    return np.array([softmax_rows(h, masked) for h in SCORES])


def test_one_line_per_head_query_key_with_the_weight_as_width_and_opacity():
    w = hand_weights()
    model = tl.build(w)
    assert len(model.lines) == 2 * 3 * 3
    for line in model.lines:
        expected = softmax_rows(SCORES[line.head])[line.query][line.key]
        assert line.weight == pytest.approx(expected, rel=1e-12)
        assert line.width == pytest.approx(expected * tl.MAX_WIDTH)
        assert line.alpha == pytest.approx(expected)
        assert line.color == tl.HEAD_COLORS[line.head]
    assert tl.HEAD_COLORS[0] != tl.HEAD_COLORS[1]
    # the widths of one query's lines in one head add up to MAX_WIDTH (its weights sum to 1)
    assert sum(ln.width for ln in model.lines if (ln.head, ln.query) == (1, 2)) == pytest.approx(tl.MAX_WIDTH)


def test_masked_pairs_have_no_line():
    mask = np.zeros((3, 3), bool)
    for r, c in MASKED:
        mask[r, c] = True
    model = tl.build(hand_weights(MASKED), mask)
    pairs = {(ln.query, ln.key) for ln in model.lines}
    assert pairs == {(r, c) for r in range(3) for c in range(3)} - MASKED
    first = [ln for ln in model.lines if ln.query == 0]
    assert [ln.weight for ln in first] == [1.0, 1.0]  # one key left for query 0: all of its weight


def test_head_choice_and_hover_isolate_lines():
    w = hand_weights()
    one = tl.build(w, head=1)
    assert one.heads == (1,) and {ln.head for ln in one.lines} == {1} and len(one.lines) == 9
    assert tl.build(w, head=7).heads == (0, 1)  # a head that is not there: all of them
    row = tl.build(w, hover=("query", 2))
    assert {(ln.head, ln.query, ln.key) for ln in row.lines} == {(h, 2, k) for h in range(2) for k in range(3)}
    col = tl.build(w, head=0, hover=("key", 1))
    assert {(ln.head, ln.query, ln.key) for ln in col.lines} == {(0, q, 1) for q in range(3)}
    assert tl.build(w, hover=("query", 9)).lines == ()


def test_weights_that_are_not_numbers_have_no_line():
    w = hand_weights()
    w[0, 1, :] = np.nan  # a row ProbSparse never computed, or one that overflowed
    model = tl.build(w, head=0)
    assert {ln.query for ln in model.lines} == {0, 2}


def test_labels_are_the_tokens_else_the_positions():
    w = hand_weights()
    model = tl.build(w, query_tokens=("the", "cat", "sat"), key_tokens=None)
    assert model.query_labels == ("the", "cat", "sat")
    assert model.key_labels == ("1", "2", "3")  # positions count from 1 (docs/numbers.md)
    assert tl.build(w, query_tokens=("only", "two")).query_labels == ("1", "2", "3")  # wrong count: positions


def test_many_tokens_are_clipped_and_said_so():
    w = np.full((1, 5, 4), 0.25)
    model = tl.build(w, max_tokens=3)
    assert model.clipped and len(model.query_labels) == 3 and len(model.key_labels) == 3
    assert {(ln.query, ln.key) for ln in model.lines} == {(q, k) for q in range(3) for k in range(3)}
    assert not tl.build(w).clipped
    with pytest.raises(ValueError, match="weights"):
        tl.build(np.zeros((3, 3)))


def test_geometry_centres_and_hit_test():
    ys = tl.centres(4, 10.0, 80.0)
    assert ys == [20.0, 40.0, 60.0, 80.0]
    assert [tl.token_at(y, 4, 10.0, 80.0) for y in ys] == [0, 1, 2, 3]
    assert tl.token_at(9.9, 4, 10.0, 80.0) is None and tl.token_at(90.0, 4, 10.0, 80.0) is None
    assert tl.centres(0, 0, 10) == [] and tl.token_at(5, 0, 0, 10) is None


def test_lines_of_an_engine_trace_equal_a_hand_softmax():
    """The engine's weights step, drawn: each line's weight is softmax(q.k * scale) by hand."""
    q = np.array([[[1.0, 0.0, 2.0, -1.0], [0.5, 1.0, 0.0, 1.0], [2.0, -1.0, 1.0, 0.0]]])
    k = np.array([[[0.0, 1.0, 1.0, 0.0], [1.0, 1.0, -1.0, 2.0], [-1.0, 0.0, 0.5, 1.0]]])
    sc = attention.Scenario(queries=q, keys=k, values=k.copy(), n_heads=2, causal=True, scale=0.5,
                            query_tokens=("a", "b", "c"), key_tokens=("x", "y", "z"))
    trace = attention.run(sc)
    model = tl.build(trace.array("attention_weights")[0], trace.array("extra.mask")[0],
                     query_tokens=sc.query_tokens, key_tokens=sc.key_tokens)
    masked = {(r, c) for r in range(3) for c in range(3) if c > r}
    for h in range(2):
        scores = [[0.5 * sum(q[0, r, 2 * h + i] * k[0, c, 2 * h + i] for i in range(2)) for c in range(3)]
                  for r in range(3)]
        want = softmax_rows(scores, masked)
        got = {(ln.query, ln.key): ln.weight for ln in model.lines if ln.head == h}
        assert set(got) == {(r, c) for r in range(3) for c in range(3)} - masked
        for (r, c), value in got.items():
            assert value == pytest.approx(want[r][c], rel=1e-12)
    assert model.query_labels == ("a", "b", "c") and model.key_labels == ("x", "y", "z")


# ---- what-if slider ranges ---------------------------------------------------------------------------
def test_scale_slider_is_logarithmic_around_the_default():
    r = ScaleRange.around(current=0.5, default=1 / math.sqrt(2))
    assert r.centre == 1 / math.sqrt(2) and r.value(MIDDLE) == r.centre  # the middle is exact
    assert r.value(0) == pytest.approx(r.centre / SCALE_SPAN, rel=1e-3)
    assert r.value(STEPS) == pytest.approx(r.centre * SCALE_SPAN, rel=1e-3)
    values = [r.value(p) for p in range(0, STEPS + 1, 50)]
    assert values == sorted(values) and len(set(values)) == len(values)
    # halfway to the right end is sqrt(SPAN) times the centre (log scale)
    assert r.value(MIDDLE + MIDDLE // 2) == pytest.approx(r.centre * math.sqrt(SCALE_SPAN), rel=1e-3)
    for p in (0, 123, MIDDLE, 777, STEPS):
        assert r.position(r.value(p)) == p
    assert r.position(-1.0) == 0 and r.position(1e9) == STEPS
    far = ScaleRange.around(current=100.0, default=0.5)  # out of reach of the default: centred on it
    assert far.centre == 100.0 and ScaleRange.around(0.0, 0.5).centre == 0.5


def test_cell_slider_is_linear_around_the_value():
    r = CellRange(3.0)
    assert r.span == 6.0 and r.value(MIDDLE) == 3.0
    assert r.value(0) == pytest.approx(-3.0) and r.value(STEPS) == pytest.approx(9.0)
    assert r.value(MIDDLE + 1) == pytest.approx(3.0 + 6.0 / MIDDLE)
    small = CellRange(0.0)
    assert small.span == 2.0 and small.value(STEPS) == pytest.approx(2.0)
    for p in (0, 1, 250, MIDDLE, 999, STEPS):
        assert r.position(r.value(p)) == p
    assert r.contains(8.9) and not r.contains(9.5) and not r.contains(float("nan"))


def test_heads_sit_side_by_side_at_the_tokens():
    assert tl.head_offset(0, 1, 40.0) == 0.0
    offsets = [tl.head_offset(h, 4, 40.0) for h in range(4)]
    assert offsets == sorted(offsets) and sum(offsets) == pytest.approx(0.0)  # centred on the token
    assert offsets[1] - offsets[0] == pytest.approx(4.0)
    # with little room the heads' ends stay inside the token's row
    tight = [tl.head_offset(h, 8, 20.0) for h in range(8)]
    assert max(tight) - min(tight) < 20.0
