"""Next token through a KV cache for a single causal layer (attention.models.layer_cache), against a float64
reference written here: projections with biases, grouped-query heads, RoPE (halves, from an offset), causal
self-attention, two batch items.  Each cached step (one query row over the cached K, V) must give row k of the
reference; the step's causal mask is the bottom-right one (nothing hidden from the last row), and the engine's
top-left rule on that 1-row step would hide the cached keys (the reason the step does not use it)."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from attention.compute import engine
from attention.datamodel.parts import Part
from attention.datamodel.scenario import Projection, Scenario
from attention.files import scenario_io
from attention.models.errors import ModelError
from attention.models.layer_cache import LayerCache, step_scenario

PRESETS = Path(__file__).parents[2] / "resources" / "scenarios"
B, L, D, H, HKV, E, BASE, OFFSET = 2, 6, 8, 4, 2, 4, 100.0, 3


def _layer() -> Scenario:
    g = np.random.default_rng(7)
    x = g.standard_normal((B, L, D))
    p = {n: Projection(g.standard_normal((w, D if n != "out" else H * E)) * 0.5, g.standard_normal(w) * 0.1)
         for n, w in (("query", H * E), ("key", HKV * E), ("value", HKV * E), ("out", D))}
    return Scenario(queries=x, keys=x, values=x, n_heads=H, n_kv_heads=HKV, d_keys=E, d_values=E, projections=p,
                    causal=True, positions=(Part("rope", {"base": BASE, "pairing": "halves", "offset": OFFSET}),),
                    query_tokens=tuple(f"t{i}" for i in range(L)), key_tokens=tuple(f"t{i}" for i in range(L)))


def _rope_halves(x: np.ndarray, start: int) -> np.ndarray:
    """x (n, E) at positions start .. start + n - 1: pair i = columns (i, i + E/2), angle pos · BASE^(-2i/E)."""
    n, e = x.shape
    out = x.copy()
    for r in range(n):
        for i in range(e // 2):
            a = (start + r) * BASE ** (-2 * i / e)
            c, s = np.cos(a), np.sin(a)
            out[r, i] = x[r, i] * c - x[r, i + e // 2] * s
            out[r, i + e // 2] = x[r, i + e // 2] * c + x[r, i] * s
    return out


def _reference(sc: Scenario, b: int) -> tuple[np.ndarray, np.ndarray]:
    """Float64 causal GQA with RoPE over every row of batch item b: weights (H, L, L), output (L, D)."""
    x = sc.queries[b]

    def lin(n):
        p = sc.projections[n]
        return x @ p.weight.T + p.bias

    q, k, v = lin("query"), lin("key"), lin("value")
    weights = np.zeros((H, L, L))
    heads = []
    for h in range(H):
        kv = h // (H // HKV)
        qh = _rope_halves(q[:, h * E:(h + 1) * E], OFFSET)
        kh = _rope_halves(k[:, kv * E:(kv + 1) * E], OFFSET)
        s = qh @ kh.T / np.sqrt(E)
        for i in range(L):
            row = np.exp(s[i, :i + 1] - s[i, :i + 1].max())  # bottom-right = top-left when L = S
            weights[h, i, :i + 1] = row / row.sum()
        heads.append(weights[h] @ v[:, kv * E:(kv + 1) * E])
    out = np.concatenate(heads, axis=1) @ sc.projections["out"].weight.T + sc.projections["out"].bias
    return weights, out


@pytest.mark.parametrize("b", [0, 1])
def test_each_cached_step_is_row_k_of_the_full_causal_layer(b):
    sc = _layer()
    want_w, want_out = _reference(sc, b)
    cache = LayerCache(sc, batch=b)
    assert cache.read == 1 and cache.keys[0].shape == (1, 1, HKV * E)
    k_proj = sc.queries[b] @ sc.projections["key"].weight.T + sc.projections["key"].bias
    while not cache.done:
        step = cache.next()
        k = cache.read - 1
        assert step.position == k and step.label == f"t{k}"
        assert cache.keys[0].shape == (1, k + 1, HKV * E)  # the cache grew by one row, the new one's
        np.testing.assert_allclose(cache.keys[0][0], k_proj[:k + 1], rtol=0, atol=1e-12)  # K before RoPE
        np.testing.assert_allclose(step.rows[0][0, :, 0], want_w[:, k, :k + 1], rtol=0, atol=1e-12)
        np.testing.assert_allclose(cache.output[b, 0], want_out[k], rtol=0, atol=1e-12)
        assert cache.diff <= 1e-12
    assert cache.read == L
    with pytest.raises(ModelError, match="every input row has been read"):
        cache.next()


def test_the_step_needs_the_bottom_right_causal_mask():
    """A 1-row step at position k over keys 0 .. k: aligned at the bottom-right nothing is masked (what the step
    does); the engine's top-left rule (SDPA's is_causal for L != S) would leave only key 0."""
    sc = _layer()
    k = 4
    cache = LayerCache(sc)
    keys, values = cache._k[:, :k + 1], cache._v[:, :k + 1]
    step = step_scenario(sc, keys, values, k)
    assert not step.causal and step.L == 1 and step.S == k + 1
    want_w, _ = _reference(sc, 0)
    got = engine.run(step).array("attention_weights")[0, :, 0]
    np.testing.assert_allclose(got, want_w[:, k, :k + 1], rtol=0, atol=1e-12)
    top_left = engine.run(dataclasses.replace(step, causal=True)).array("attention_weights")[0, :, 0]
    np.testing.assert_allclose(top_left[:, 0], 1.0)  # only key 0 seen: not row k of the layer
    assert np.abs(top_left - want_w[:, k, :k + 1]).max() > 0.1


def test_preset_06_walks_row_by_row():
    sc = scenario_io.load(PRESETS / "06_causal_self_attention.json")
    full = engine.run(sc)
    cache = LayerCache(sc)
    while not cache.done:
        cache.next()
        k = cache.read - 1
        np.testing.assert_allclose(cache.output[0, 0], full.array("output")[0, k], rtol=0, atol=1e-12)
        assert cache.diff <= 1e-12


@pytest.mark.parametrize("change, en, zh", [
    (dict(causal=False), "needs a causal layer", "需要因果层"),
    (dict(scoring="additive"), "scores with additive", "打分方式为 additive"),
])
def test_what_a_cache_cannot_step_is_said(change, en, zh):
    sc = scenario_io.load(PRESETS / "06_causal_self_attention.json")
    sc = dataclasses.replace(sc, **change)  # checked before anything is computed
    with pytest.raises(ModelError) as e:
        LayerCache(sc)
    assert en in e.value.text("en") and zh in e.value.text("zh")
