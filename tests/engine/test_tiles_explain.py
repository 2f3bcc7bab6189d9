"""Explain a running value of the tiles (attention/teaching/tiles_explain.py): the arithmetic of one update.

Numbers by hand on one head of width 1 without projections, dot scoring: q = 1, 2 and k = 0, 1, 2
give the score rows [0, 1, 2] and [0, 2, 4]; the values are 1, 2, 3; tiles of 2 queries x 2 keys."""
from __future__ import annotations

import math

import numpy as np
import pytest
from engine_helpers import scenario
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import Scenario, run
from attention.teaching.tiles import TilesError, tiled
from attention.teaching.tiles_explain import explain_running

e = math.exp


@pytest.fixture(scope="module")
def hand():
    sc = Scenario(queries=np.array([[[1.0], [2.0]]]), keys=np.array([[[0.0], [1.0], [2.0]]]),
                  values=np.array([[[1.0], [2.0], [3.0]]]), n_heads=1, projections={}, scoring="dot")
    return tiled(run(sc), 2, 2)


def test_running_maximum_by_hand(hand):
    ex = explain_running(hand, 1, "m", 0, 0, 1)  # query 2 after key block 2: max(2, 4)
    assert ex.value == 4 and ex.result == 4
    assert ex.combine == "max(2, 4) = 4"
    assert "before this tile: m_old = 2" in ex.text("en") and "key 3: s = 4" in ex.text("en")
    assert "这一块之前：m_旧 = 2" in ex.text("zh")


def test_running_sum_by_hand(hand):
    ex = explain_running(hand, 1, "l", 0, 0, 0)  # query 1: m 1 -> 2, correction e^-1, new key e^0
    want = (e(-1) + 1) * e(-1) + 1
    assert ex.value == pytest.approx(want, rel=1e-15) and ex.result == pytest.approx(want, rel=1e-15)
    text = ex.text("en")
    assert "correction exp(m_old − m_new) = exp(1 − 2) = 0.3679" in text
    assert "key 3: exp(2 − 2) = 1" in text
    assert ex.combine == "0.3679 × 1.368 + (1) = 1.503"


def test_first_tile_says_nothing_was_summed_yet(hand):
    ex = explain_running(hand, 0, "l", 0, 0, 1)  # query 2, keys 1-2: scores 0, 2
    assert ex.value == pytest.approx(e(-2) + 1, rel=1e-15)
    assert "m_old = −∞" in ex.text("en") and "exp(-∞ − 2) = 0" in ex.text("en")


def test_output_after_the_last_block_gives_o_over_l_beside_the_engine(hand):
    ex = explain_running(hand, 1, "O", 0, 0, 0, 0)
    l0 = e(-2) + e(-1) + 1
    O0 = 1 * e(-2) + 2 * e(-1) + 3
    assert ex.value == pytest.approx(O0, rel=1e-15) and ex.result == pytest.approx(O0, rel=1e-15)
    assert f"O / ℓ = {O0:.4g} / {l0:.4g} = {O0 / l0:.4g}" in ex.text("en")
    assert "引擎的加权和" in ex.text("zh")


def test_every_value_recombines_to_the_walks_own_number():
    rng = np.random.default_rng(11)
    sc = scenario(rng, 2, 5, 7, 4, 2, causal=True, valid_lens=np.array([7.0, 3.0]))
    result = tiled(run(sc), 2, 3)
    for tile in result.tiles:
        for r in range(*tile.rows):
            for what in ("m", "l", "O"):
                ex = explain_running(result, tile.order, what, 1, 1, r, 1)
                assert ex.result == pytest.approx(ex.value, rel=1e-12, abs=1e-300), (tile.order, what, r)


def test_a_skipped_tile_says_so():
    sc = scenario(np.random.default_rng(12), 1, 4, 4, 2, 1, causal=True)
    result = tiled(run(sc), 2, 2)
    ex = explain_running(result, 1, "l", 0, 0, 0)  # queries 1-2 x keys 3-4: all masked
    assert "skipped" in ex.text("en") and "跳过" in ex.text("zh") and ex.value == ex.result


@pytest.mark.parametrize("args, field", [((9, "m", 0, 0, 0), "tile:"), ((0, "x", 0, 0, 0), "what:"),
                                         ((0, "m", 0, 0, 5), "row:"), ((0, "O", 0, 0, 0, 3), "col:")])
def test_bad_requests_name_the_field(hand, args, field):
    with pytest.raises(TilesError) as err:
        explain_running(hand, *args)
    assert err.value.text("en").startswith(field)


@pytest.mark.slow
@settings(max_examples=40)
@given(st.integers(0, 2**32 - 1), st.sampled_from([-1e6, -np.inf, -2.0]), st.integers(1, 4), st.integers(1, 4))
def test_random_walks_recombine_every_value(seed, fill, br, bc):
    rng = np.random.default_rng(seed)
    lens = rng.integers(0, 6, size=(1, 4)).astype(float)  # some rows fully masked
    result = tiled(run(scenario(rng, 1, 4, 5, 4, 2, causal=bool(seed % 2), valid_lens=lens, fill_value=fill)), br, bc)
    for tile in result.tiles:
        for r in range(*tile.rows):
            for what in ("m", "l", "O"):
                ex = explain_running(result, tile.order, what, 0, 1, r, 1)
                if np.isnan(ex.value):
                    assert np.isnan(ex.result)
                else:
                    assert ex.result == pytest.approx(ex.value, rel=1e-12, abs=1e-300)
                assert ex.text("en") and ex.text("zh")
