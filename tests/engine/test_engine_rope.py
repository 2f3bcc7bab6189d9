"""RoPE and QK-norm as kinds (Part("rope"), Part("qk_norm")): the engine's rotated / normalised q and k
and everything downstream against float64 references written here (complex numbers, plain loops) and
against torch's scaled_dot_product_attention with enable_gqa; the shift property; a decoder step with
a cache (key_offset); the exported script; problems named by field; explain on a rotated cell."""
from __future__ import annotations

import cmath
import dataclasses
import json
import math
import subprocess
import sys

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from attention import Scenario, problems, run
from attention.datamodel.parts import Part
from attention.teaching import explain, script_export


def _scenario(rng, B=2, L=4, S=5, d=16, H=4, kv=None, **more) -> Scenario:
    n = rng.normal
    dkv = (kv or H) * (d // H)  # identity projections: the keys and values hold the key/value heads' columns
    return Scenario(n(size=(B, L, d)), n(size=(B, S, dkv)), n(size=(B, S, dkv)), n_heads=H, n_kv_heads=kv, **more)


# ---- references, written without the engine's functions ------------------------------------------

def _rotate_ref(x: np.ndarray, start: int, base: float, fraction: float, pairing: str,
                freqs=None) -> np.ndarray:
    """x (B, N, H, d): each pair of the first r columns as a complex number times e^{i p θ_j}."""
    B, N, H, d = x.shape
    r = int(d * fraction)
    out = x.copy()
    for j in range(r // 2):
        theta = freqs[j] if freqs is not None else base ** (-2.0 * j / r)
        a, b = (j, j + r // 2) if pairing == "halves" else (2 * j, 2 * j + 1)
        for bi in range(B):
            for n in range(N):
                turn = cmath.exp(1j * (start + n) * theta)
                for h in range(H):
                    z = complex(x[bi, n, h, a], x[bi, n, h, b]) * turn
                    out[bi, n, h, a], out[bi, n, h, b] = z.real, z.imag
    return out


def _norm_ref(x: np.ndarray, w: np.ndarray, eps: float, style: str) -> np.ndarray:
    out = np.empty_like(x)
    for idx in np.ndindex(*x.shape[:-1]):
        row = x[idx]
        rms = math.sqrt(sum(v * v for v in row) / len(row) + eps)
        scale = w if style == "qwen3" else 1.0 + w
        out[idx] = [row[e] / rms * scale[e] for e in range(len(row))]
    return out


def _heads(sc: Scenario, a: np.ndarray, heads: int) -> np.ndarray:
    return a.reshape(a.shape[0], a.shape[1], heads, -1)  # identity projections


def _attention_ref(q, k, v, scale, causal) -> np.ndarray:
    """(B, L, H, d) q, (B, S, Hkv, d) k and v -> (B, L, H, dv), query head h reading kv head h // (H/Hkv)."""
    B, L, H, _ = q.shape
    S, Hkv = k.shape[1], k.shape[2]
    out = np.zeros((B, L, H, v.shape[-1]))
    for b in range(B):
        for h in range(H):
            j = h // (H // Hkv)
            for l in range(L):
                s_ = np.array([scale * float(np.dot(q[b, l, h], k[b, s, j])) for s in range(S)])
                if causal:
                    s_[np.arange(S) > l] = -np.inf
                w = np.exp(s_ - s_.max())
                w /= w.sum()
                out[b, l, h] = w @ v[b, :, j]
    return out


# ---- the rotation, its options, and what the scores read -------------------------------------------

@pytest.mark.parametrize("pairing", ["halves", "adjacent"])
@pytest.mark.parametrize("fraction, base, offset", [(1.0, 10000.0, 0), (0.5, 100.0, 3), (0.75, 7.5, 11)])
def test_rotated_q_and_k_and_the_scores_against_complex_numbers(pairing, fraction, base, offset):
    rng = np.random.default_rng(1)
    part = Part("rope", {"base": base, "fraction": fraction, "pairing": pairing, "offset": offset})
    sc = _scenario(rng, H=2, positions=(part,))  # head width 8
    assert problems(sc) == []
    t = run(sc)
    q = _rotate_ref(_heads(sc, sc.queries, 2), offset, base, fraction, pairing)
    k = _rotate_ref(_heads(sc, sc.keys, 2), offset, base, fraction, pairing)
    np.testing.assert_allclose(t.array("rope.query"), q, rtol=0, atol=1e-13)
    np.testing.assert_allclose(t.array("rope.key"), k, rtol=0, atol=1e-13)
    np.testing.assert_array_equal(t.array("head_split.query"), _heads(sc, sc.queries, 2))  # kept as it was
    want = np.einsum("blhe,bshe->bhls", q, k) / math.sqrt(8)
    np.testing.assert_allclose(t.array("scores"), want, rtol=0, atol=1e-12)


def test_the_two_pairings_give_other_scores():
    rng = np.random.default_rng(2)
    sc = _scenario(rng, positions=(Part("rope", {"pairing": "halves", "base": 10.0}),))
    other = dataclasses.replace(sc, positions=(Part("rope", {"pairing": "adjacent", "base": 10.0}),))
    assert np.abs(run(sc).array("scores") - run(other).array("scores")).max() > 1e-3


def test_given_frequencies_replace_the_base():
    rng = np.random.default_rng(3)
    freqs = np.array([0.9, 0.2])
    sc = _scenario(rng, positions=(Part("rope", {"frequencies": freqs, "base": 5.0, "offset": 2}),))
    t = run(sc)
    np.testing.assert_allclose(t.array("rope.query"), _rotate_ref(_heads(sc, sc.queries, 4), 2, 0, 1.0, "halves",
                                                                  freqs), rtol=0, atol=1e-13)


def test_shifting_every_position_leaves_the_scores_unchanged():
    rng = np.random.default_rng(4)
    sc = _scenario(rng, positions=(Part("rope", {"base": 50.0}),), causal=True)
    shifted = dataclasses.replace(sc, positions=(Part("rope", {"base": 50.0, "offset": 5}),))
    a, b = run(sc), run(shifted)
    assert np.abs(a.array("rope.query") - b.array("rope.query")).max() > 1e-2  # q and k did turn further
    np.testing.assert_allclose(b.array("scores"), a.array("scores"), rtol=0, atol=1e-12)
    np.testing.assert_allclose(b.array("output"), a.array("output"), rtol=0, atol=1e-12)


def test_a_decoder_step_with_a_cache_matches_the_last_rows_of_the_full_sequence():
    """Queries at S - L ... S - 1 (offset), keys at 0 ... S - 1 (key_offset 0): the same rows as the
    full causal self-attention over all S tokens."""
    rng = np.random.default_rng(5)
    x = rng.normal(size=(1, 6, 8))
    full = Scenario(x, x, x, n_heads=2, causal=True, positions=(Part("rope", {"base": 30.0}),))
    step = Scenario(x[:, 4:], x, x, n_heads=2, positions=(Part("rope", {"base": 30.0, "offset": 4, "key_offset": 0}),))
    # the step's last two queries see every cached key up to their own position: mask the future one
    a, b = run(full), run(step)
    np.testing.assert_allclose(b.array("scores"), a.array("scores")[:, :, 4:], rtol=0, atol=1e-12)
    np.testing.assert_allclose(b.array("weighted_sum")[:, 1], a.array("weighted_sum")[:, 5], rtol=0, atol=1e-12)


# ---- QK-norm -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("style", ["qwen3", "gemma3"])
def test_qk_norm_against_plain_loops_and_before_rope(style):
    rng = np.random.default_rng(6)
    wq, wk = rng.normal(size=4), rng.normal(size=4)
    sc = _scenario(rng, kv=2, modifiers=(Part("qk_norm", {"style": style, "eps": 1e-5, "query_weight": wq,
                                                          "key_weight": wk}),),
                   positions=(Part("rope", {"base": 20.0, "pairing": "adjacent"}),))
    assert problems(sc) == []
    t = run(sc)
    qn = _norm_ref(_heads(sc, sc.queries, 4), wq, 1e-5, style)
    kn = _norm_ref(_heads(sc, sc.keys, 2), wk, 1e-5, style)
    np.testing.assert_allclose(t.array("qk_norm.query"), qn, rtol=0, atol=1e-13)
    np.testing.assert_allclose(t.array("qk_norm.key"), kn, rtol=0, atol=1e-13)
    q, k = _rotate_ref(qn, 0, 20.0, 1.0, "adjacent"), _rotate_ref(kn, 0, 20.0, 1.0, "adjacent")
    np.testing.assert_allclose(t.array("rope.query"), q, rtol=0, atol=1e-13)  # normalised first, then turned
    v = _heads(sc, sc.values, 2)
    np.testing.assert_allclose(t.array("weighted_sum"), _attention_ref(q, k, v, 0.5, False), rtol=0, atol=1e-12)


def test_qk_norm_without_weights_is_a_plain_rms_norm():
    rng = np.random.default_rng(7)
    for style in ("qwen3", "gemma3"):
        t = run(_scenario(rng, modifiers=(Part("qk_norm", {"style": style}),)))
        q = t.array("head_split.query")
        np.testing.assert_allclose(t.array("qk_norm.query"), q / np.sqrt((q ** 2).mean(-1, keepdims=True) + 1e-6),
                                   rtol=0, atol=1e-13)


# ---- against SDPA with shared key/value heads ---------------------------------------------------------

@pytest.mark.parametrize("causal", [False, True])
def test_gqa_rope_causal_against_sdpa_enable_gqa(causal):
    rng = np.random.default_rng(8)
    part = Part("rope", {"base": 500.0, "fraction": 0.5, "offset": 2})
    sc = _scenario(rng, B=2, L=5, S=5, d=24, H=6, kv=2, causal=causal, positions=(part,))
    t = run(sc)
    q = torch.tensor(_rotate_ref(_heads(sc, sc.queries, 6), 2, 500.0, 0.5, "halves")).transpose(1, 2)
    k = torch.tensor(_rotate_ref(_heads(sc, sc.keys, 2), 2, 500.0, 0.5, "halves")).transpose(1, 2)
    v = torch.tensor(_heads(sc, sc.values, 2)).transpose(1, 2)
    want = F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=True)  # (B, H, L, d)
    np.testing.assert_allclose(t.array("weighted_sum"), want.transpose(1, 2).numpy(), rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", range(12))
def test_random_combinations_against_the_reference(seed):
    rng = np.random.default_rng(100 + seed)
    H = int(rng.choice([2, 4]))
    kv = int(rng.choice([k for k in (1, 2, H) if H % k == 0]))
    dk = int(rng.choice([2, 4, 6]))
    fraction = float(rng.choice([f for f in (0.5, 1.0) if int(dk * f) % 2 == 0 and int(dk * f) >= 2]))
    pairing = str(rng.choice(["halves", "adjacent"]))
    base, offset = float(rng.uniform(2, 1000)), int(rng.integers(0, 40))
    causal = bool(rng.integers(2))
    L = int(rng.integers(1, 6))
    parts = {"positions": (Part("rope", {"base": base, "fraction": fraction, "pairing": pairing,
                                         "offset": offset}),)}
    norm = rng.integers(3)
    if norm:
        style = ("qwen3", "gemma3")[norm - 1]
        w = rng.normal(size=(2, dk))
        parts["modifiers"] = (Part("qk_norm", {"style": style, "query_weight": w[0], "key_weight": w[1]}),)
    sc = _scenario(rng, B=1, L=L, S=L, d=H * dk, H=H, kv=kv, causal=causal, **parts)
    # keys and values hold kv * dk features: identity projections cut them into the kv heads
    sc = dataclasses.replace(sc, keys=sc.keys[..., :kv * dk], values=sc.values[..., :kv * dk])
    assert problems(sc) == [], problems(sc)
    q, k, v = _heads(sc, sc.queries, H), _heads(sc, sc.keys, kv), _heads(sc, sc.values, kv)
    if norm:
        q, k = _norm_ref(q, w[0], 1e-6, style), _norm_ref(k, w[1], 1e-6, style)
    q = _rotate_ref(q, offset, base, fraction, pairing)
    k = _rotate_ref(k, offset, base, fraction, pairing)
    t = run(sc)
    np.testing.assert_allclose(t.array("weighted_sum"), _attention_ref(q, k, v, 1 / math.sqrt(dk), causal),
                               rtol=0, atol=1e-11)


# ---- problems, explain, script --------------------------------------------------------------------------

def test_bad_parts_are_named_by_field():
    rng = np.random.default_rng(9)
    sc = _scenario(rng, d=12, H=2)  # head width 6
    (p,) = problems(dataclasses.replace(sc, positions=(Part("rope", {"fraction": 0.5}),)))  # 3 columns: odd
    assert (p.code, p.path) == ("rope_rotary_dim", "positions[0].fraction")
    assert "6" in p.text("en") and "头宽" in p.text("zh")
    (p,) = problems(dataclasses.replace(sc, positions=(Part("rope", {"frequencies": np.ones(2)}),)))
    assert (p.code, p.path) == ("shape", "positions[0].frequencies")
    (p,) = problems(dataclasses.replace(sc, positions=(Part("rope", {"pairing": "zigzag"}),)))
    assert (p.code, p.path) == ("expected_choice", "positions[0].pairing")
    (p,) = problems(dataclasses.replace(sc, modifiers=(Part("qk_norm", {"key_weight": np.ones(5)}),)))
    assert (p.code, p.path) == ("shape", "modifiers[0].key_weight")
    (p,) = problems(dataclasses.replace(sc, modifiers=(Part("qk_norm", {"query_weight": [1, 2, 3, 4, 5, np.nan]}),)))
    assert (p.code, p.path) == ("not_finite", "modifiers[0].query_weight")


def test_explain_a_rotated_cell_shows_the_pair_angle_cos_and_sin():
    rng = np.random.default_rng(10)
    sc = _scenario(rng, L=3, d=8, H=2, positions=(Part("rope", {"base": 100.0, "offset": 1}),))
    t = run(sc)
    e = explain.explain(t, "rope.query", (0, 2, 1, 1))  # query 3 (position 3), head 2, column 2: pair 1 of (1, 3)
    theta = 3 * 100.0 ** (-2 / 4)
    assert e.result == pytest.approx(e.value, abs=1e-12)
    en, zh = e.text("en"), e.text("zh")
    assert "pair 1 (columns 2 and 4" in en and "position 3" in en
    for x in (theta, math.cos(theta), math.sin(theta)):
        assert f"{x:.4g}" in en and f"{x:.4g}" in zh
    assert "第 1 对" in zh and "弧度" in zh
    assert {s.ref for s in e.sources} == {"head_split.query"}
    s = explain.explain(t, "scores", (0, 1, 2, 0))  # the scores read the rotated ones
    assert {src.ref for src in s.sources} == {"rope.query", "rope.key"}
    assert s.result == pytest.approx(s.value, abs=1e-12)


def test_explain_reads_through_qk_norm_then_rope():
    rng = np.random.default_rng(11)
    sc = _scenario(rng, d=8, H=2, positions=(Part("rope", {"fraction": 0.5}),),
                   modifiers=(Part("qk_norm", {"style": "gemma3", "query_weight": rng.normal(size=4)}),))
    t = run(sc)
    rot = explain.explain(t, "rope.query", (1, 3, 0, 0))
    assert {s.ref for s in rot.sources} == {"qk_norm.query"}
    assert rot.result == pytest.approx(rot.value, abs=1e-12)
    passes = explain.explain(t, "rope.key", (0, 3, 1, 3))  # column 4 of 4, 2 rotated: passes through
    assert passes.value == pytest.approx(t.array("qk_norm.key")[0, 3, 1, 3], abs=0)
    norm = explain.explain(t, "qk_norm.query", (1, 2, 1, 2))
    assert norm.result == pytest.approx(norm.value, abs=1e-12) and "1 + w" in norm.text("en")


@pytest.mark.slow  # runs the exported script in a child process
@pytest.mark.parametrize("freqs", [None, np.array([0.5, 0.125])])
def test_the_exported_script_reproduces_rope_and_qk_norm(tmp_path, freqs):
    rng = np.random.default_rng(12)
    rope = {"fraction": 0.5, "pairing": "adjacent", "offset": 3, "key_offset": 1, "frequencies": freqs}
    sc = _scenario(rng, L=3, S=4, d=16, H=2, kv=1, causal=True, positions=(Part("rope", rope),),
                   modifiers=(Part("qk_norm", {"style": "qwen3", "key_weight": rng.normal(size=8)}),))
    assert problems(sc) == []
    path = tmp_path / "s.py"
    path.write_text(script_export.python_script(sc), encoding="utf-8")
    out = subprocess.run([sys.executable, str(path), "--json"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    t = run(sc)
    assert list(got)[:9] == ["projection.query", "projection.key", "projection.value", "head_split.query",
                             "head_split.key", "head_split.value", "qk_norm.query", "rope.query", "qk_norm.key"]
    for sid in got:
        np.testing.assert_allclose(np.array(got[sid]), t.array(sid), rtol=0, atol=1e-12, err_msg=sid)


def test_lessons_and_slide_inputs_follow_what_each_step_read():
    from attention.teaching import lessons

    rng = np.random.default_rng(13)
    sc = _scenario(rng, d=8, H=2, positions=(Part("rope", {"base": 500.0, "fraction": 0.5, "offset": 5}),),
                   modifiers=(Part("qk_norm", {"style": "gemma3"}),))
    t = run(sc)
    assert lessons.inputs_of("scores", t) == ["rope.query", "rope.key"]
    assert lessons.inputs_of("rope.query", t) == ["qk_norm.query"]
    assert lessons.inputs_of("qk_norm.key", t) == ["head_split.key"]
    en, zh = lessons.explanation("rope.query", t.options, "en"), lessons.explanation("rope.query", t.options, "zh")
    assert "500" in en and "first 0.5" in en and "start at position 5, keys at 5" in en and "l − s" in en
    assert "500" in zh and "l − s" in zh and "从位置 5 开始" in zh
    assert "1 + w" in lessons.explanation("qk_norm.query", t.options, "en")
    ids = lessons.lesson_ids(t)
    assert ids.index("qk_norm.query") < ids.index("rope.query") < ids.index("scores")


def test_parts_with_matrices_and_null_fields_survive_a_file(tmp_path):
    from attention.files import scenario_io

    rng = np.random.default_rng(14)
    sc = _scenario(rng, d=8, H=2, kv=1,
                   positions=(Part("rope", {"frequencies": np.array([0.7, 0.1]), "key_offset": None, "offset": 3,
                                            "pairing": "adjacent"}),),
                   modifiers=(Part("qk_norm", {"style": "gemma3", "query_weight": rng.normal(size=4)}),))
    path = tmp_path / "rope.json"
    scenario_io.save(sc, path)
    back = scenario_io.load(path)
    assert json.loads(path.read_text(encoding="utf-8"))["version"] == 2
    for step in ("rope.query", "rope.key", "qk_norm.query", "output"):
        np.testing.assert_array_equal(run(back).array(step), run(sc).array(step))
