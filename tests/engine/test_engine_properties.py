"""Properties every trace must have, over random shapes, masks, kinds, fills and scales."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from engine_helpers import linear, mask_of, rand_projection
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import Additive, Scenario, run

pytestmark = pytest.mark.slow  # hypothesis over random shapes: the big property tests
KINDS = ("scaled_dot", "dot", "additive", "prob_sparse")


@st.composite
def scenarios(draw) -> Scenario:
    kind = draw(st.sampled_from(KINDS))
    sparse = kind == "prob_sparse"
    B = draw(st.integers(1, 2))
    L = draw(st.integers(2 if sparse else 1, 5))
    S = draw(st.integers(2 if sparse else 1, 5))
    H, E, D = draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    projected = draw(st.booleans())
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    masks = ["none", "causal"] if sparse else ["none", "lens1", "lens2", "causal", "lens1+causal", "lens2+causal"]
    mask = draw(st.sampled_from(masks))
    if sparse and mask == "causal":
        S = L  # causal prob_sparse needs L == S
    valid_lens = None
    if "lens1" in mask:
        valid_lens = rng.integers(0, S + 1, size=B).astype(float)
    elif "lens2" in mask:
        valid_lens = rng.integers(0, S + 1, size=(B, L)).astype(float)
    d_model = H * E
    d_v_in = d_model if projected else H * D
    projections = {}
    if projected:
        projections = {"query": rand_projection(rng, H * E, d_model), "key": rand_projection(rng, H * E, d_model),
                       "value": rand_projection(rng, H * D, d_v_in),
                       "out": rand_projection(rng, draw(st.integers(1, 4)), H * D, bias=draw(st.booleans()))}
    additive = None
    if kind == "additive":
        n = draw(st.integers(1, 3))
        additive = Additive(n, rng.normal(size=(H, n, E)), rng.normal(size=(H, n, E)), rng.normal(size=(H, n)))
    scale = draw(st.sampled_from([None, 0.0, float(rng.uniform(-2, 2))]))
    return Scenario(
        queries=rng.normal(size=(B, L, d_model)), keys=rng.normal(size=(B, S, d_model)),
        values=rng.normal(size=(B, S, d_v_in)), n_heads=H, d_keys=E, d_values=D, projections=projections,
        scoring=kind, scale=scale, additive=additive, causal="causal" in mask, valid_lens=valid_lens,
        fill_value=draw(st.sampled_from([-1e6, -np.inf])), factor=draw(st.integers(1, 3)),
        seed=draw(st.integers(0, 1000)), dtype="float64",
    )


@settings(max_examples=60)
@given(scenarios())
def test_trace_properties(sc: Scenario):
    tr = run(sc)
    B, L, S, H = sc.batch, sc.L, sc.S, sc.n_heads
    w = tr.array("attention_weights")  # (B, H, L, S)
    mask = mask_of(B, L, S, sc.valid_lens, sc.causal)  # (B, L, S), by hand
    full = mask.all(-1)  # (B, L)

    # The trace's mask and its flags.
    if sc.valid_lens is None and not sc.causal:
        assert "extra.mask" not in tr and not tr.warnings
    else:
        np.testing.assert_array_equal(tr.array("extra.mask"), mask)
        np.testing.assert_array_equal(tr.array("extra.fully_masked"), full)
        assert bool(tr.warnings) == bool(full.any())

    selected = tr.array("extra.selected") if sc.scoring == "prob_sparse" else np.ones((B, H, L), bool)
    rows_nan = np.isnan(w).any(-1)  # (B, H, L)
    expect_nan = np.broadcast_to(full[:, None, :], (B, H, L)) & (sc.fill_value == -np.inf)
    np.testing.assert_array_equal(rows_nan, expect_nan)
    assert np.isnan(w[expect_nan]).all()
    assert (w[~rows_nan] >= 0).all()

    # Row sums: 1, except lazy causal prob_sparse rows (a cumulative sum: l + 1 ones).
    sums = w.sum(-1)
    want_sums = np.ones((B, H, L))
    if sc.scoring == "prob_sparse" and sc.causal:
        want_sums = np.where(selected, 1.0, np.arange(1, L + 1)[None, None, :].astype(float))
    np.testing.assert_allclose(sums[~rows_nan], want_sums[~rows_nan], rtol=1e-12)

    # Masked keys get weight 0, unless the whole row is masked: then -1e6 gives 1/S over all keys.
    m = np.broadcast_to(mask[:, None], w.shape)
    partial = m & ~np.broadcast_to(full[:, None, :, None], w.shape)
    assert (w[partial] == 0).all()
    if np.isfinite(sc.fill_value) and full.any():
        uniform_rows = w[np.broadcast_to(full[:, None], (B, H, L))]
        np.testing.assert_allclose(uniform_rows, 1.0 / S, rtol=1e-12)

    # weighted_sum = weights @ V for every kind; concat and output by hand.
    v = tr.array("head_split.value")
    ctx = np.einsum("bhls,bshd->blhd", w, v)
    np.testing.assert_allclose(tr.array("weighted_sum"), ctx, rtol=1e-10, atol=1e-12, equal_nan=True)
    cat = tr.array("weighted_sum").reshape(B, L, -1)
    np.testing.assert_array_equal(tr.array("concat"), cat)
    np.testing.assert_allclose(tr.array("output"), linear(cat, sc.projections.get("out")), rtol=1e-10, atol=1e-12,
                               equal_nan=True)

    # scale 0: every computed score is 0, so the weights are uniform over the unmasked keys.
    if sc.scale == 0.0:
        keep = ~mask
        rows = np.broadcast_to((keep / np.maximum(keep.sum(-1, keepdims=True), 1))[:, None], w.shape)
        ok = selected & ~np.broadcast_to(full[:, None], (B, H, L))
        np.testing.assert_allclose(w[ok], rows[ok], rtol=1e-12, atol=0)


@settings(max_examples=30)
@given(scenarios())
def test_explicit_scale_zero_is_honoured(sc: Scenario):
    tr = run(dataclasses.replace(sc, scale=0.0))
    assert tr.options["scale"] == 0.0
    scores = tr.array("scores")
    assert (scores[~np.isnan(scores)] == 0).all()


@settings(max_examples=30)
@given(scenarios())
def test_the_default_scale_is_reported_whatever_scale_is_set(sc: Scenario):
    """options["default_scale"] is the scale a scenario without one gets (1/√d_keys for scaled dot
    and ProbSparse, 1 otherwise), so a reader can tell a hand-set scale from the default."""
    unset = run(dataclasses.replace(sc, scale=None))
    want = 1 / np.sqrt(unset.options["d_keys"]) if sc.scoring in ("scaled_dot", "prob_sparse") else 1.0
    assert unset.options["default_scale"] == pytest.approx(want, rel=1e-15)
    assert unset.options["scale"] == unset.options["default_scale"]
    assert run(dataclasses.replace(sc, scale=0.25)).options["default_scale"] == unset.options["default_scale"]
