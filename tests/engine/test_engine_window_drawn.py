"""Sliding-window and drawn mask rules (Part("window", {"size": W}), Part("drawn", {"mask": ...})),
alone and with causal masking, valid lengths and shared key/value heads.  Expected numbers come
from a float64 numpy reference written here (the window rule spelled out cell by cell, not the
kind's formula) and from torch's own F.scaled_dot_product_attention(enable_gqa=True, attn_mask=...),
never from the engine."""
from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attention import Projection, Scenario, problems, run
from attention.datamodel.parts import Part
from attention.datamodel.scenario import ScenarioError
from attention.teaching import explain, lessons, script_export


def _scenario(rng, B=2, L=5, S=6, d=8, H=4, kv=2, dk=2, dv=3, masks=(), **options) -> Scenario:
    lin = lambda o, i: Projection(rng.normal(size=(o, i)) / np.sqrt(i), rng.normal(size=(o,)))  # noqa: E731
    return Scenario(rng.normal(size=(B, L, d)), rng.normal(size=(B, S, d)), rng.normal(size=(B, S, d)), n_heads=H,
                    n_kv_heads=kv, d_keys=dk, d_values=dv, masks=tuple(masks),
                    projections={"query": lin(H * dk, d), "key": lin(kv * dk, d), "value": lin(kv * dv, d),
                                 "out": lin(d, H * dv)}, **options)


def _hidden(sc: Scenario, b: int, l: int, s: int) -> bool:
    """Whether key s is hidden from query l of item b, rule by rule, as a person reads them."""
    if sc.causal and s > l:
        return True
    if sc.valid_lens is not None:
        n = sc.valid_lens[b][l] if np.ndim(sc.valid_lens) == 2 else sc.valid_lens[b]
        if s >= n:
            return True
    for part in sc.masks:
        if part.kind == "window" and l - s >= part.values["size"]:  # W or more positions back
            return True
        if part.kind == "drawn" and part.values["mask"][b][l][s]:
            return True
    return False


def _reference(sc: Scenario) -> tuple[np.ndarray, np.ndarray]:
    """(mask (B, L, S), output (B, L, d_out)) in float64, head by head; query head h reads
    key/value head h // (H / kv)."""
    P = sc.projections
    lin = lambda x, p: x @ p.weight.T + p.bias  # noqa: E731
    Q, K, V = lin(sc.queries, P["query"]), lin(sc.keys, P["key"]), lin(sc.values, P["value"])
    H, kv, dk, dv = sc.n_heads, sc.kv_heads, sc.d_keys, sc.d_values
    B, L, S = sc.batch, sc.L, sc.S
    mask = np.array([[[_hidden(sc, b, l, s) for s in range(S)] for l in range(L)] for b in range(B)])
    ctx = np.zeros((B, L, H * dv))
    for b in range(B):
        for h in range(H):
            j = h // (H // kv)
            q, k, v = Q[b, :, h * dk:(h + 1) * dk], K[b, :, j * dk:(j + 1) * dk], V[b, :, j * dv:(j + 1) * dv]
            s = np.where(mask[b], sc.fill_value, q @ k.T / np.sqrt(dk))
            w = np.exp(s - s.max(-1, keepdims=True))
            ctx[b, :, h * dv:(h + 1) * dv] = (w / w.sum(-1, keepdims=True)) @ v
    return mask, lin(ctx, P["out"])


def test_window_of_two_by_hand():
    """W = 2, causal, L = S = 4: query l sees keys l - 1 and l only (written out, not computed)."""
    sc = _scenario(np.random.default_rng(0), B=1, L=4, S=4, causal=True, masks=[Part("window", {"size": 2})])
    want = np.array([[0, 1, 1, 1],
                     [0, 0, 1, 1],
                     [1, 0, 0, 1],
                     [1, 1, 0, 0]], dtype=bool)
    np.testing.assert_array_equal(run(sc).array("extra.mask")[0], want)


@pytest.mark.parametrize("W", [1, 2, 3, 10])
@pytest.mark.parametrize("kv", [1, 2, 4])
def test_window_and_shared_heads_against_sdpa(W, kv):
    sc = _scenario(np.random.default_rng(W * 10 + kv), kv=kv, causal=True, masks=[Part("window", {"size": W})])
    trace = run(sc)
    q = torch.from_numpy(trace.array("head_split.query")).transpose(1, 2)  # (B, H, L, E)
    k = torch.from_numpy(trace.array("head_split.key")).transpose(1, 2)  # (B, kv, S, E)
    v = torch.from_numpy(trace.array("head_split.value")).transpose(1, 2)
    l, s = torch.arange(sc.L)[:, None], torch.arange(sc.S)[None, :]
    allowed = (s <= l) & (s > l - W)  # SDPA's boolean attn_mask: True = may attend
    want = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed, enable_gqa=True)  # (B, H, L, D)
    np.testing.assert_allclose(trace.array("weighted_sum"), want.transpose(1, 2).numpy(), rtol=1e-12, atol=1e-12)


def test_drawn_window_lengths_and_heads_against_the_reference():
    rng = np.random.default_rng(3)
    drawn = rng.random((2, 5, 6)) < 0.3
    sc = _scenario(rng, valid_lens=np.array([6.0, 4.0]), masks=[Part("drawn", {"mask": drawn}),
                                                                 Part("window", {"size": 3})])
    mask, out = _reference(sc)
    trace = run(sc)
    np.testing.assert_array_equal(trace.array("extra.mask"), mask)
    np.testing.assert_allclose(trace.array("output"), out, rtol=1e-12, atol=1e-12)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_combinations_against_the_reference(data):
    B, L, S = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 5)), data.draw(st.integers(1, 6))
    H = data.draw(st.sampled_from([1, 2, 4]))
    kv = data.draw(st.sampled_from([k for k in (1, 2, 4) if H % k == 0]))
    seed = data.draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    masks = []
    if data.draw(st.booleans()):
        masks.append(Part("window", {"size": data.draw(st.integers(1, 6))}))
    if data.draw(st.booleans()):
        masks.append(Part("drawn", {"mask": rng.random((B, L, S)) < data.draw(st.floats(0, 1))}))
    lens = data.draw(st.sampled_from(["none", "1d", "2d"]))
    valid = (None if lens == "none" else rng.integers(0, S + 1, size=(B,)).astype(float) if lens == "1d"
             else rng.integers(0, S + 1, size=(B, L)).astype(float))
    sc = _scenario(rng, B=B, L=L, S=S, H=H, kv=kv, masks=masks, causal=data.draw(st.booleans()), valid_lens=valid,
                   fill_value=-1e6)
    mask, out = _reference(sc)
    trace = run(sc)
    if mask.any():
        np.testing.assert_array_equal(trace.array("extra.mask"), mask)
    else:
        assert "extra.mask" not in trace.ids or not trace.array("extra.mask").any()
    np.testing.assert_allclose(trace.array("output"), out, rtol=1e-10, atol=1e-10)


def test_explain_says_which_rule_masked_a_cell():
    drawn = np.zeros((1, 4, 4), dtype=bool)
    drawn[0, 3, 2] = True
    sc = _scenario(np.random.default_rng(1), B=1, L=4, S=4, causal=True, valid_lens=np.array([3.0]),
                   masks=[Part("window", {"size": 2}), Part("drawn", {"mask": drawn})])
    trace = run(sc)

    def said(l, s, lang="en"):
        return explain.explain(trace, "extra.mask", (0, l, s)).summary[lang]

    assert said(0, 1).startswith("Masked") and "causal" in said(0, 1) and "window" not in said(0, 1).split(":")[1]
    assert "window of 2: key 1 lies 3 positions before query 4" in said(3, 0)  # 0-based l=3, s=0
    assert "painted" in said(3, 2) and "window" not in said(3, 2)  # only the rules that masked it
    assert said(2, 1).startswith("Not masked") and "window of 2: key 2 is not 2 or more" in said(2, 1)
    assert "is not painted" in said(2, 1)
    assert "valid length 3" in said(2, 3) and said(2, 3).startswith("Masked")
    assert said(1, 0).startswith("Not masked")
    assert "窗口 2" in said(3, 0, "zh") and "手绘" in said(3, 2, "zh")
    masked = explain.explain(trace, "masked_scores", (0, 1, 3, 0))
    assert "window of 2" in masked.summary["en"] and masked.value == -1e6


def test_the_lesson_has_a_sentence_per_rule():
    sc = _scenario(np.random.default_rng(2), masks=[Part("window", {"size": 2})])
    opts = run(sc).options
    en = lessons.explanation("extra.mask", opts, "en")
    assert "sliding window" in en and "painted" not in en and "valid_len" not in en
    assert "滑动窗口" in lessons.explanation("extra.mask", opts, "zh")


def test_bad_parts_are_named():
    sc = _scenario(np.random.default_rng(4), B=2, L=3, S=4)
    cases = [(Part("window", {"size": 0}), "expected_int_range", "masks[0].size"),
             (Part("window"), "required", "masks[0].size"),
             (Part("drawn", {"mask": np.zeros((2, 3, 3))}), "drawn_shape", "masks[0].mask"),
             (Part("drawn", {"mask": np.full((2, 3, 4), 2.0)}), "drawn_cells", "masks[0].mask"),
             (Part("drawn"), "required", "masks[0].mask")]
    for part, code, path in cases:
        (p,) = problems(dataclasses.replace(sc, masks=(part,)))
        assert (p.code, p.path) == (code, path)
        assert p.text("en") and p.text("zh")
        with pytest.raises(ScenarioError):
            run(dataclasses.replace(sc, masks=(part,)))


def test_the_trace_keeps_the_painted_cells():
    drawn = np.zeros((1, 2, 3), dtype=bool)
    drawn[0, 1, 2] = True
    sc = _scenario(np.random.default_rng(5), B=1, L=2, S=3, masks=[Part("drawn", {"mask": drawn}),
                                                                   Part("window", {"size": 1})])
    masks = run(sc).options["masks"]
    assert masks == [{"kind": "drawn", "cells": [[0, 1, 2]]}, {"kind": "window", "size": 1}]
    json.dumps(masks)


@pytest.mark.slow
def test_the_exported_script_reproduces_window_and_drawn(tmp_path):
    rng = np.random.default_rng(6)
    drawn = rng.random((2, 5, 6)) < 0.2
    sc = _scenario(rng, causal=True, masks=[Part("window", {"size": 2}), Part("drawn", {"mask": drawn})])
    path = tmp_path / "masks.py"
    path.write_text(script_export.python_script(sc), encoding="utf-8")
    out = subprocess.run([sys.executable, str(path), "--json"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    _, want = _reference(sc)
    np.testing.assert_allclose(np.array(got["output"]), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("new", [(1, 2, 3), (2, 5, 6), (3, 1, 7)])
def test_the_editors_resize_keeps_what_fits_as_the_kinds(new):
    """drawn.resize_array (numpy, for the editors) keeps the top-left block as drawn.resize does."""
    from attention.kinds import drawn

    old = np.random.default_rng(8).random((2, 4, 5)) < 0.5
    got = drawn.resize_array(old, *new)
    b, l, s = (min(a, c) for a, c in zip(old.shape, new))
    want = np.zeros(new, dtype=bool)
    want[:b, :l, :s] = old[:b, :l, :s]
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(drawn.resize(torch.from_numpy(old), *new).numpy(), want)
