"""Which steps give a quiz's answer away (app.viewmodel.quiz_data.repeat_share / repeats_of / plan).

The scenarios are built here with numpy; which steps must repeat which is worked out by hand from
the formulas (V = I makes weights @ V equal the weights; no projection makes Q the queries), and
the counter-cases change exactly that one condition."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import attention
from app.viewmodel import quiz_data
from app.viewmodel.quiz_data import plan, repeat_share, repeats_of
from attention.datamodel.scenario import Projection, Scenario

RNG = np.random.default_rng(7)


def d2l_like(values: np.ndarray) -> Scenario:
    """One head, no projections, dot scoring, scale 1: S = 4 keys with the given values (B=1)."""
    q = RNG.uniform(0.1, 1.0, size=(1, 2, 3))
    k = RNG.uniform(0.1, 1.0, size=(1, 4, 3))
    return Scenario(queries=q, keys=k, values=values, n_heads=1, d_keys=3, d_values=4, scoring="dot", scale=1.0)


# ---- repeat_share on plain arrays ------------------------------------------------------------------
def test_the_same_numbers_in_another_arrangement_count():
    a = RNG.normal(size=(2, 3, 4))
    assert repeat_share(a, a.transpose(1, 0, 2).copy()) == 1.0  # a head split / concat: rearranged
    assert repeat_share(a, a.reshape(6, 4)[::-1].copy()) == 1.0
    assert repeat_share(a, a + 1e-15) == 1.0  # the same to 9 significant digits


def test_other_numbers_sizes_and_guessable_steps_do_not_count():
    a = RNG.normal(size=(3, 4))
    assert repeat_share(a, RNG.normal(size=(3, 4))) == 0.0
    assert repeat_share(a, np.concatenate([a.ravel(), [5.0]])) == 0.0  # another size
    assert repeat_share(np.eye(4), np.eye(4)) == 0.0  # nothing but 0 and 1: nothing to give away
    half = a.copy()
    half[:, :3] = RNG.normal(size=(3, 3))  # a quarter of the numbers the same
    assert repeat_share(a, half) == 0.0


def test_the_same_numbers_at_the_same_places_count_for_most_cells():
    scores = RNG.normal(size=(4, 4))
    masked = np.where(np.tril(np.ones((4, 4), bool)), scores, -np.inf)  # causal: 10 of 16 kept
    assert repeat_share(scores, masked) == pytest.approx(10 / 16)
    assert repeat_share(masked, scores) == 1.0  # every finite masked score is a score


# ---- repeats_of on engine traces ---------------------------------------------------------------------
def test_identity_values_make_the_weighted_sum_repeat_the_weights():
    trace = attention.run(d2l_like(np.eye(4)[None]))
    reps = {r.ref: r for r in repeats_of(trace, "attention_weights")}
    # weights @ I = weights (worked out by hand); concat and output only rearrange / pass it on
    assert {"weighted_sum", "concat", "output"} <= set(reps)
    assert reps["weighted_sum"].reasons == ("v_identity",)
    assert reps["output"].reasons == ("v_identity", "wo")
    assert "scores" not in reps and "masked_scores" not in reps
    text = quiz_data.plan(trace, ["attention_weights"]).note(trace, "en")
    assert "V is the identity" in text and "Double-click a ?" in text
    zh = quiz_data.plan(trace, ["attention_weights"]).note(trace, "zh")
    assert "单位矩阵" in zh and "双击" in zh


def test_other_values_give_nothing_away():
    v = RNG.normal(size=(1, 4, 4))
    trace = attention.run(d2l_like(v))
    assert [r.ref for r in repeats_of(trace, "attention_weights")] == []
    assert plan(trace, ["attention_weights"]).covered == {}


def test_no_projection_puts_the_hidden_queries_in_the_inputs():
    sc = d2l_like(RNG.normal(size=(1, 4, 4)))
    trace = attention.run(sc)
    p = plan(trace, ["projection.query"])
    assert "head_split.query" in p.covered  # the same numbers, split into heads
    assert p.exposed["queries"][1].reasons == ("wq",)
    assert "can be read off the queries (Inputs)" in p.note(trace, "en")
    # a real projection: Q is no longer the queries
    w = RNG.normal(size=(3, 3))
    projected = attention.run(dataclasses.replace(sc, projections={"query": Projection(w)}))
    assert "queries" not in plan(projected, ["projection.query"]).exposed


def test_a_causal_mask_keeps_the_unmasked_scores():
    x = RNG.normal(size=(1, 4, 4))
    sc = Scenario(queries=x, keys=x, values=x, n_heads=1, scoring="dot", scale=1.0, causal=True)
    trace = attention.run(sc)
    p = plan(trace, ["scores"])
    assert p.covered["masked_scores"][1].reasons == ("mask",)
    assert p.hides("scores") and p.hides("masked_scores") and not p.hides("attention_weights")


def test_equal_inputs_are_named_without_a_made_up_reason():
    x = RNG.normal(size=(1, 3, 4))
    trace = attention.run(Scenario(queries=x, keys=x.copy(), values=RNG.normal(size=(1, 3, 4)), n_heads=2))
    reps = {r.ref: r for r in repeats_of(trace, "projection.query")}
    assert reps["projection.key"].reasons == ()  # neither comes from the other: they are just equal
    assert "they hold the same numbers" in plan(trace, ["projection.query"]).note(trace, "en")
