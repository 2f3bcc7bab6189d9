"""The modern kinds' math (attention/kinds/*.py) against float64 references written here: hand-computed
small cases, plain Python loops, the ALiBi paper's slope recipe, and torch's own
scaled_dot_product_attention(enable_gqa=True) for GQA + RoPE + causal/window composed."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from attention.kinds import alibi, drawn, gqa, qk_norm, rope, sinks, softcap, window

f64 = torch.float64


def rand(*shape, seed=0, scale=1.0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=f64) * scale


# ---------------------------------------------------------------- references written separately

def rope_loop(x: torch.Tensor, base: float, rot: int, pairing: str, offset: int) -> torch.Tensor:
    """Rotation one pair at a time in Python floats: angle = position * base ** (-2i / rot)."""
    B, N, H, d = x.shape
    out = x.clone()
    for b in range(B):
        for n in range(N):
            for h in range(H):
                for i in range(rot // 2):
                    a, c = (i, i + rot // 2) if pairing == "halves" else (2 * i, 2 * i + 1)
                    theta = (n + offset) * math.pow(base, -2.0 * i / rot)
                    xa, xc = float(x[b, n, h, a]), float(x[b, n, h, c])
                    out[b, n, h, a] = xa * math.cos(theta) - xc * math.sin(theta)
                    out[b, n, h, c] = xc * math.cos(theta) + xa * math.sin(theta)
    return out


def rope_complex(x: torch.Tensor, base: float, offset: int) -> torch.Tensor:
    """Meta's reference idea: adjacent pairs as complex numbers times e^{i theta} (full rotary)."""
    B, N, H, d = x.shape
    inv = base ** (-torch.arange(0, d, 2, dtype=f64) / d)
    theta = (torch.arange(N, dtype=f64) + offset)[:, None] * inv[None, :]  # (N, d/2)
    z = torch.view_as_complex(x.reshape(B, N, H, d // 2, 2).contiguous())
    return torch.view_as_real(z * torch.polar(torch.ones_like(theta), theta)[None, :, None, :]).reshape(B, N, H, d)


def alibi_paper_slopes(n: int) -> list[float]:
    """The ALiBi authors' get_slopes (attention_with_linear_biases), in Python floats."""
    def power_of_2(m):
        start = 2 ** (-2 ** -(math.log2(m) - 3))
        return [start * start ** i for i in range(m)]
    if math.log2(n).is_integer():
        return power_of_2(n)
    c = 2 ** math.floor(math.log2(n))
    return power_of_2(c) + alibi_paper_slopes(2 * c)[0::2][: n - c]


def attention_loop(q, k, v, H_kv, scale, mask):
    """Per head, per query: softmax over visible keys of the kv head h // (H / H_kv)."""
    B, L, H, E = q.shape
    S, D = k.shape[1], v.shape[-1]
    g = H // H_kv
    out = torch.zeros(B, L, H, D, dtype=f64)
    for b in range(B):
        for h in range(H):
            j = h // g
            for l in range(L):
                seen = [s for s in range(S) if mask is None or not mask[l, s]]
                logits = [scale * float(q[b, l, h] @ k[b, s, j]) for s in seen]
                top = max(logits)
                e = [math.exp(z - top) for z in logits]
                for w, s in zip(e, seen):
                    out[b, l, h] += w / sum(e) * v[b, s, j]
    return out


# ---------------------------------------------------------------- GQA / MQA

def test_kv_head_of_groups_consecutive_query_heads():
    assert [gqa.kv_head_of(h, 8, 2) for h in range(8)] == [0, 0, 0, 0, 1, 1, 1, 1]
    assert [gqa.kv_head_of(h, 6, 3) for h in range(6)] == [0, 0, 1, 1, 2, 2]
    assert [gqa.kv_head_of(h, 4, 1) for h in range(4)] == [0, 0, 0, 0]  # multi-query
    assert [gqa.kv_head_of(h, 4, 4) for h in range(4)] == [0, 1, 2, 3]  # plain multi-head
    assert list(gqa.query_heads_of(1, 6, 3)) == [2, 3]
    assert gqa.kv_head_index(6, 2).tolist() == [0, 0, 0, 1, 1, 1]


@pytest.mark.parametrize("H,H_kv", [(6, 4), (4, 0), (3, 6)])
def test_group_size_refuses_a_non_divisor(H, H_kv):
    with pytest.raises(ValueError, match="divide"):
        gqa.group_size(H, H_kv)


@pytest.mark.parametrize("H,J", [(6, 2), (4, 1), (3, 3), (6, 3)])
def test_expand_kv_is_repeat_interleave(H, J):
    x = rand(2, 5, J, 3)
    out = gqa.expand_kv(x, H)
    assert torch.equal(out, torch.repeat_interleave(x, H // J, dim=2))  # HF repeat_kv's order
    if J in (1, H):  # a view, no copy
        assert out.data_ptr() == x.data_ptr()


def test_grouped_scores_and_sum_match_loops():
    B, L, S, H, J, E, D = 2, 3, 4, 6, 2, 3, 2
    q, k, v = rand(B, L, H, E, seed=1), rand(B, S, J, E, seed=2), rand(B, S, J, D, seed=3)
    scores = gqa.grouped_dot_scores(q, k, 0.5)
    w = torch.softmax(scores, dim=-1)
    ctx = gqa.grouped_weighted_sum(w, v)
    assert scores.shape == (B, H, L, S) and ctx.shape == (B, L, H, D)
    for b in range(B):
        for h in range(H):
            for l in range(L):
                for s in range(S):
                    ref = 0.5 * sum(float(q[b, l, h, e]) * float(k[b, s, h // 3, e]) for e in range(E))
                    assert scores[b, h, l, s].item() == pytest.approx(ref, abs=1e-14)
                for d in range(D):
                    ref = sum(float(w[b, h, l, s]) * float(v[b, s, h // 3, d]) for s in range(S))
                    assert ctx[b, l, h, d].item() == pytest.approx(ref, abs=1e-14)


# ---------------------------------------------------------------- RoPE

def test_rope_by_hand_two_columns():
    """d = 2: one pair, inv_freq 1, so (1, 0) at position p turns into (cos p, sin p)."""
    x = torch.tensor([1.0, 0.0], dtype=f64).expand(1, 4, 1, 2)
    out = rope.rotate(x, base=10000.0, pairing="halves")
    for p in range(4):
        assert out[0, p, 0].tolist() == pytest.approx([math.cos(p), math.sin(p)], abs=1e-15)


@pytest.mark.parametrize("pairing", ["halves", "adjacent"])
def test_rope_by_hand_four_columns(pairing):
    """d = 4, base 10000: inv_freq = (1, 0.01); x = (1, 2, 3, 4) at position 1."""
    x = torch.tensor([[[[0.0, 0, 0, 0]], [[1.0, 2, 3, 4]]]], dtype=f64)  # (1, 2, 1, 4): positions 0, 1
    out = rope.rotate(x, 10000.0, 1.0, pairing)[0, 1, 0].tolist()
    c1, s1, c2, s2 = math.cos(1), math.sin(1), math.cos(0.01), math.sin(0.01)
    if pairing == "halves":  # pairs (0, 2) and (1, 3)
        want = [1 * c1 - 3 * s1, 2 * c2 - 4 * s2, 3 * c1 + 1 * s1, 4 * c2 + 2 * s2]
    else:  # pairs (0, 1) and (2, 3)
        want = [1 * c1 - 2 * s1, 2 * c1 + 1 * s1, 3 * c2 - 4 * s2, 4 * c2 + 3 * s2]
    assert out == pytest.approx(want, abs=1e-14)


@pytest.mark.parametrize("pairing", ["halves", "adjacent"])
@pytest.mark.parametrize("fraction", [1.0, 0.5, 0.25])
def test_rope_matches_loop_with_partial_rotary_and_offset(pairing, fraction):
    x = rand(2, 5, 3, 8, seed=4)
    out = rope.rotate(x, 500.0, fraction, pairing, offset=7)
    rot = int(8 * fraction)
    assert torch.allclose(out, rope_loop(x, 500.0, rot, pairing, 7), atol=1e-12, rtol=0)
    assert torch.equal(out[..., rot:], x[..., rot:])  # the rest passes through


def test_rope_with_positions_per_batch_item():
    """(B, N) positions (e.g. left padding): each item rotated as if alone with its own offset."""
    x = rand(2, 4, 2, 6, seed=19)
    pos = torch.stack([rope.positions(4, 0), rope.positions(4, 3)])  # (2, 4)
    c, s = rope.cos_sin(pos, 4, 50.0)
    assert c.shape == (2, 4, 2)
    out = rope.apply_rope(x, c, s, "adjacent")
    for b, offset in enumerate((0, 3)):
        assert torch.allclose(out[b:b + 1], rope_loop(x[b:b + 1], 50.0, 4, "adjacent", offset), atol=1e-13)


def test_adjacent_pairing_is_complex_multiplication():
    x = rand(1, 6, 2, 6, seed=5)
    assert torch.allclose(rope.rotate(x, 10000.0, 1.0, "adjacent", 3), rope_complex(x, 10000.0, 3), atol=1e-12)


def test_the_two_pairings_differ():
    x = rand(1, 4, 1, 4, seed=6)
    assert not torch.allclose(rope.rotate(x, pairing="halves"), rope.rotate(x, pairing="adjacent"))


@pytest.mark.parametrize("pairing", ["halves", "adjacent"])
def test_shifting_every_position_keeps_the_scores(pairing):
    """The point of RoPE (the preset): q_l . k_s depends on l - s only."""
    q, k = rand(1, 6, 2, 8, seed=7), rand(1, 6, 2, 8, seed=8)
    s0 = gqa.grouped_dot_scores(rope.rotate(q, pairing=pairing), rope.rotate(k, pairing=pairing), 1.0)
    s5 = gqa.grouped_dot_scores(rope.rotate(q, pairing=pairing, offset=5),
                                rope.rotate(k, pairing=pairing, offset=5), 1.0)
    assert torch.allclose(s0, s5, atol=1e-12)
    assert not torch.allclose(rope.rotate(q, pairing=pairing), rope.rotate(q, pairing=pairing, offset=5))


def test_rotation_keeps_pair_lengths():
    x = rand(1, 5, 1, 6, seed=9)
    out = rope.rotate(x, pairing="halves")
    assert torch.allclose(out[..., :3] ** 2 + out[..., 3:] ** 2, x[..., :3] ** 2 + x[..., 3:] ** 2, atol=1e-13)


def test_inv_freq_and_angles_in_float32_as_transformers():
    """hf_float32: inv_freq from float32 steps, angle = one float32 product, then cast."""
    inv32 = rope.inv_frequencies(8, 10000.0, f64, hf_float32=True)
    steps = np.arange(0, 8, 2).astype(np.float32) / np.float32(8)
    assert inv32.tolist() == pytest.approx((1 / np.float32(10000.0) ** steps).astype(np.float64).tolist(), rel=2e-7)
    assert torch.all(inv32 == inv32.to(torch.float32).to(f64))  # representable in float32
    inv64 = rope.inv_frequencies(8, 10000.0, f64)
    assert inv64.tolist() == pytest.approx([10000.0 ** (-i / 8) for i in range(0, 8, 2)], rel=1e-15)
    pos = torch.tensor([1234])
    inv32, inv64 = (rope.inv_frequencies(64, 500000.0, f64, hf_float32=h) for h in (True, False))  # Llama 3
    a32 = rope.angles(pos, inv32, hf_float32=True)
    assert torch.equal(a32, (pos.to(torch.float32)[:, None] * inv32.to(torch.float32)).to(f64))
    a64 = rope.angles(pos, inv64)
    assert 1e-6 < (a32 - a64).abs().max() < 1e-3  # float32 rounding, visible at position 1234


def test_rotary_dim_follows_transformers_truncation():
    assert rope.rotary_dim(64, 0.25) == 16 and rope.rotary_dim(80, 0.4) == 32 and rope.rotary_dim(8) == 8
    for d, f in [(10, 0.5), (8, 0.1), (6, 1.5)]:
        with pytest.raises(ValueError):
            rope.rotary_dim(d, f)
    with pytest.raises(ValueError, match="pairing"):
        rope.apply_rope(rand(1, 1, 1, 4), *rope.cos_sin(torch.tensor([0]), 4, 10.0), "interleaved")


def test_pair_of_and_rope_cell_by_hand():
    assert rope.pair_of(5, 8, "halves") == (1, 1, 5)
    assert rope.pair_of(5, 8, "adjacent") == (2, 4, 5)
    assert rope.pair_of(8, 8, "halves") is None
    cell = rope.rope_cell(5, 3, 8, 10000.0, 1.0, "halves")  # inv_freq of pair 1 = 10000 ** (-2/8) = 0.1
    assert (cell.pair, cell.partner, cell.is_first) == (1, 1, False)
    assert cell.inv_freq == pytest.approx(0.1, rel=1e-15)
    assert cell.angle == pytest.approx(0.3, rel=1e-15)
    assert (cell.cos, cell.sin) == pytest.approx((math.cos(0.3), math.sin(0.3)), rel=1e-15)
    assert rope.rope_cell(6, 3, 8, 10000.0, 0.5, "adjacent") is None  # partial: column 6 does not rotate


@pytest.mark.parametrize("pairing", ["halves", "adjacent"])
def test_rope_cell_reproduces_the_rotated_tensor(pairing):
    x = rand(1, 6, 1, 8, seed=10)
    out = rope.rotate(x, 100.0, 0.75, pairing, offset=2)
    for col in range(6):
        cell = rope.rope_cell(col, 4 + 2, 8, 100.0, 0.75, pairing)
        got = rope.rotated_value(cell, float(x[0, 4, 0, col]), float(x[0, 4, 0, cell.partner]))
        assert got == pytest.approx(float(out[0, 4, 0, col]), abs=1e-14)


# ---------------------------------------------------------------- ALiBi

def test_bloom_slopes_by_hand():
    assert alibi.bloom_slopes(8).tolist() == [2.0 ** -k for k in range(1, 9)]
    assert alibi.bloom_slopes(4).tolist() == [2.0 ** -k for k in (2, 4, 6, 8)]
    assert alibi.bloom_slopes(6).tolist() == [2.0 ** -k for k in (2, 4, 6, 8, 1, 3)]
    assert alibi.bloom_slopes(1).tolist() == [2.0 ** -8]
    assert alibi.bloom_slopes(12).tolist() == pytest.approx(
        [2.0 ** -k for k in range(1, 9)] + [2.0 ** -(k / 2) for k in (1, 3, 5, 7)], rel=1e-15)


@pytest.mark.parametrize("n", range(1, 41))
def test_bloom_slopes_match_the_alibi_papers_recipe(n):
    ref = alibi_paper_slopes(n)
    assert alibi.bloom_slopes(n).tolist() == pytest.approx(ref, rel=1e-14)
    hf = alibi.bloom_slopes(n, hf_float32=True)  # float32 base ** k: its rounding grows with k (up to ~2e-6)
    assert hf.tolist() == pytest.approx(ref, rel=2e-6)
    assert torch.equal(hf, hf.to(torch.float32).to(f64))


def test_alibi_bias_forms():
    m = torch.tensor([0.5, 0.25], dtype=f64)
    key = alibi.alibi_bias(m, 3, 4, "key")
    rel = alibi.alibi_bias(m, 3, 4, "relative")
    assert key.shape == rel.shape == (1, 2, 3, 4)
    assert key[0, 0].tolist() == [[0.0, 0.5, 1.0, 1.5]] * 3
    assert rel[0, 1].tolist() == [[0.0, 0.25, 0.5, 0.75], [-0.25, 0.0, 0.25, 0.5], [-0.5, -0.25, 0.0, 0.25]]


def test_alibi_forms_give_the_same_weights_under_a_mask():
    m = alibi.bloom_slopes(6)
    scores = rand(2, 6, 5, 5, seed=11)
    mask = window.sliding_window_causal_mask(5, 5, 3)
    w = [torch.softmax(alibi.add_bias(scores, alibi.alibi_bias(m, 5, 5, f)).masked_fill(mask, -math.inf), -1)
         for f in alibi.FORMS]
    assert torch.allclose(w[0], w[1], atol=1e-14)


def test_alibi_key_positions_with_padding():
    keep = torch.tensor([[0, 0, 1, 1, 1], [1, 1, 1, 0, 0]], dtype=torch.bool)
    pos = alibi.key_positions(keep)
    assert pos.tolist() == [[0, 0, 0, 1, 2], [0, 1, 2, 0, 0]]
    bias = alibi.alibi_bias(torch.tensor([0.5], dtype=f64), 2, 5, "key", pos)
    assert bias.shape == (2, 1, 2, 5) and bias[0, 0, 1].tolist() == [0.0, 0.0, 0.0, 0.5, 1.0]


def test_alibi_bias_in_float32_as_transformers():
    m = alibi.bloom_slopes(12, hf_float32=True)
    b = alibi.alibi_bias(m, 1, 3000, hf_float32=True)
    ref = (m.to(torch.float32)[:, None] * torch.arange(3000, dtype=torch.float32)).to(f64)
    assert torch.equal(b[0, :, 0], ref)


# ---------------------------------------------------------------- sliding window

def test_window_by_hand():
    """W = 2: query l sees keys l - 1 and l (Mistral: l - W < s <= l)."""
    visible = ~window.sliding_window_causal_mask(5, 5, 2)
    assert visible.int().tolist() == [[1, 0, 0, 0, 0],
                                      [1, 1, 0, 0, 0],
                                      [0, 1, 1, 0, 0],
                                      [0, 0, 1, 1, 0],
                                      [0, 0, 0, 1, 1]]
    assert window.window_mask(5, 5, 2).int().tolist() == [[0, 0, 0, 0, 0],
                                                          [0, 0, 0, 0, 0],
                                                          [1, 0, 0, 0, 0],
                                                          [1, 1, 0, 0, 0],
                                                          [1, 1, 1, 0, 0]]


@pytest.mark.parametrize("L,S,W", [(6, 6, 1), (6, 6, 3), (4, 7, 2), (7, 4, 3), (5, 5, 5), (5, 5, 9)])
def test_window_matches_loop(L, S, W):
    m = window.window_mask(L, S, W)
    full = window.sliding_window_causal_mask(L, S, W)
    for l in range(L):
        visible = [s for s in range(S) if l - W < s <= l]
        assert [s for s in range(S) if not full[l, s]] == visible
        for s in range(S):
            assert bool(m[l, s]) == (s <= l - W) == window.masked_by_window(l, s, W)
        if l < S:
            assert len(visible) == min(W, l + 1)  # the last W keys, itself included


def test_window_refuses_zero():
    with pytest.raises(ValueError):
        window.window_mask(3, 3, 0)


# ---------------------------------------------------------------- drawn mask

def test_drawn_resize_keeps_what_still_fits():
    m = drawn.paint(drawn.empty(2, 3, 4), [(0, 0, 3), (0, 2, 1), (1, 1, 1), (1, 2, 3)], True)
    assert m.sum().item() == 4
    small = drawn.resize(m, 1, 2, 3)
    assert small.shape == (1, 2, 3) and small.nonzero().tolist() == []  # (0,0,3) and (0,2,1) cut off
    big = drawn.resize(m, 3, 4, 5)
    assert big.shape == (3, 4, 5)
    assert big.nonzero().tolist() == [[0, 0, 3], [0, 2, 1], [1, 1, 1], [1, 2, 3]]
    assert drawn.resize(small, 2, 3, 4).sum().item() == 0  # what was cut stays cut
    kept = drawn.resize(m, 2, 3, 2)
    assert kept.nonzero().tolist() == [[0, 2, 1], [1, 1, 1]]


def test_drawn_paint_is_a_new_tensor_and_erases():
    m = drawn.paint(drawn.empty(1, 2, 2), [(0, 1, 0)], True)
    m2 = drawn.paint(m, [(0, 1, 0)], False)
    assert m[0, 1, 0] and not m2.any()


def test_drawn_as_mask_checks_shape_and_values():
    assert drawn.as_mask([[[0, 1], [1, 0]]], 1, 2, 2).tolist() == [[[False, True], [True, False]]]
    with pytest.raises(ValueError, match="shape"):
        drawn.as_mask([[0, 1]], 1, 2, 2)
    with pytest.raises(ValueError, match="0 or 1"):
        drawn.as_mask([[[0, 2], [1, 0]]], 1, 2, 2)


# ---------------------------------------------------------------- soft-capping

def test_softcap_by_hand_and_against_math():
    out = softcap.softcap(torch.tensor([0.0, 50.0, -100.0, 1e6], dtype=f64), 50.0).tolist()
    assert out == pytest.approx([0.0, 50 * math.tanh(1), -50 * math.tanh(2), 50.0], rel=1e-15)
    x = rand(3, 4, seed=12, scale=80)
    ref = [50.0 * math.tanh(v / 50.0) for v in x.flatten().tolist()]
    assert softcap.softcap(x, 50.0).flatten().tolist() == pytest.approx(ref, rel=1e-14)
    assert (softcap.softcap(x, 50.0).abs() < 50).all()
    assert softcap.softcap_value(30.0, 50.0) == pytest.approx(50 * math.tanh(0.6), rel=1e-15)
    assert softcap.gemma_scale(256) == 1 / 16
    with pytest.raises(ValueError):
        softcap.softcap(x, 0.0)


# ---------------------------------------------------------------- attention sinks

def test_sink_by_hand():
    scores = torch.tensor([[[[0.0, 0.0], [math.log(2), 0.0]]]], dtype=f64)  # (1, 1, 2, 2)
    w, mass = sinks.softmax_with_sink(scores, torch.tensor([0.0], dtype=f64))
    assert w[0, 0].flatten().tolist() == pytest.approx([1 / 3, 1 / 3, 0.5, 0.25], rel=1e-15)
    assert mass[0, 0].tolist() == pytest.approx([1 / 3, 0.25], rel=1e-15)


def test_sink_matches_loop_and_rows_sum_below_one():
    scores = rand(2, 3, 4, 5, seed=13, scale=3)
    scores[0, 1, 2, 3] = -math.inf  # a masked key
    sink = torch.tensor([0.5, -1.0, 2.0], dtype=f64)
    w, mass = sinks.softmax_with_sink(scores, sink)
    for b in range(2):
        for h in range(3):
            for l in range(4):
                e = [math.exp(float(v)) if math.isfinite(v) else 0.0 for v in scores[b, h, l].tolist()]
                total = sum(e) + math.exp(float(sink[h]))
                assert w[b, h, l].tolist() == pytest.approx([v / total for v in e], rel=1e-13)
                assert mass[b, h, l].item() == pytest.approx(math.exp(float(sink[h])) / total, rel=1e-13)
    assert torch.allclose(w.sum(-1) + mass, torch.ones(2, 3, 4, dtype=f64), atol=1e-15)
    assert (w.sum(-1) < 1).all()


def test_sink_takes_a_fully_masked_row_and_stays_finite():
    scores = torch.full((1, 1, 1, 3), -math.inf, dtype=f64)
    w, mass = sinks.softmax_with_sink(scores, torch.tensor([0.3], dtype=f64))
    assert w.tolist() == [[[[0.0, 0.0, 0.0]]]] and mass.item() == 1.0
    big = torch.tensor([[[[1000.0, 999.0]]]], dtype=f64)  # no overflow: the max is subtracted
    w, mass = sinks.softmax_with_sink(big, torch.tensor([998.0], dtype=f64))
    e = [1.0, math.exp(-1), math.exp(-2)]
    assert w[0, 0, 0].tolist() + [mass.item()] == pytest.approx([v / sum(e) for v in e], rel=1e-14)
    plain = rand(1, 2, 3, 4, seed=14)
    w, mass = sinks.softmax_with_sink(plain, torch.tensor([-math.inf, -math.inf], dtype=f64))
    assert torch.allclose(w, torch.softmax(plain, -1), atol=1e-15) and (mass == 0).all()


# ---------------------------------------------------------------- QK-norm

def test_qk_norm_by_hand():
    x = torch.tensor([3.0, 4.0], dtype=f64).reshape(1, 1, 1, 2)  # mean square 12.5
    r = math.sqrt(12.5)
    q3 = qk_norm.rms_norm(x, torch.tensor([1.0, 2.0], dtype=f64), 0.0, "qwen3")
    g3 = qk_norm.rms_norm(x, torch.tensor([0.0, 1.0], dtype=f64), 0.0, "gemma3")
    assert q3.flatten().tolist() == pytest.approx([3 / r, 8 / r], rel=1e-15)
    assert g3.flatten().tolist() == pytest.approx([3 / r, 8 / r], rel=1e-15)
    e = qk_norm.rms_norm(x, torch.ones(2, dtype=f64), 0.5, "qwen3")
    assert e.flatten().tolist() == pytest.approx([3 / math.sqrt(13), 4 / math.sqrt(13)], rel=1e-15)


@pytest.mark.parametrize("style", ["qwen3", "gemma3"])
def test_qk_norm_matches_loop_per_head(style):
    x, w = rand(2, 3, 4, 5, seed=15, scale=4), rand(5, seed=16)
    out = qk_norm.rms_norm(x, w, 1e-6, style)
    for b in range(2):
        for n in range(3):
            for h in range(4):
                row = x[b, n, h].tolist()
                rms = math.sqrt(sum(v * v for v in row) / 5 + 1e-6)
                scale = w.tolist() if style == "qwen3" else [1 + v for v in w.tolist()]
                assert out[b, n, h].tolist() == pytest.approx([v / rms * s for v, s in zip(row, scale)], rel=1e-13)
    assert qk_norm.effective_scale(w, style).tolist() == pytest.approx(
        w.tolist() if style == "qwen3" else (1 + w).tolist())


def test_qk_norm_styles_differ_and_float32_inside_is_close():
    x, w = rand(1, 2, 2, 4, seed=17), rand(4, seed=18)
    assert not torch.allclose(qk_norm.rms_norm(x, w, 1e-6, "qwen3"), qk_norm.rms_norm(x, w, 1e-6, "gemma3"))
    for style in qk_norm.STYLES:
        exact = qk_norm.rms_norm(x, w, 1e-6, style)
        hf = qk_norm.rms_norm(x, w, 1e-6, style, hf_float32=True)
        assert hf.dtype == f64 and 0 < (hf - exact).abs().max() < 1e-6


# ---------------------------------------------------------------- GQA + RoPE + causal / window vs SDPA

@st.composite
def gqa_rope_cases(draw):
    J = draw(st.integers(1, 3))
    g = draw(st.integers(1, 3))
    E = draw(st.sampled_from([2, 4, 6, 8]))
    fractions = [f for f in (1.0, 0.5, 0.25) if int(E * f) >= 2 and int(E * f) % 2 == 0]
    return dict(
        B=draw(st.integers(1, 2)), L=draw(st.integers(1, 6)), extra_keys=draw(st.integers(0, 2)),
        J=J, H=J * g, E=E, D=draw(st.integers(1, 3)),
        fraction=draw(st.sampled_from(fractions)), pairing=draw(st.sampled_from(rope.PAIRINGS)),
        base=draw(st.sampled_from([10.0, 10000.0, 1e6])), offset=draw(st.integers(0, 20)),
        mask=draw(st.sampled_from(["none", "causal", "window"])), W=draw(st.integers(1, 4)),
        seed=draw(st.integers(0, 2**31 - 1)),
    )


@settings(max_examples=60)
@given(gqa_rope_cases())
def test_gqa_rope_masks_match_sdpa(c):
    B, L, H, J, E, D = c["B"], c["L"], c["H"], c["J"], c["E"], c["D"]
    S = L if c["mask"] == "window" else L + c["extra_keys"]  # every query keeps at least one key
    seed = c["seed"]
    q, k, v = rand(B, L, H, E, seed=seed), rand(B, S, J, E, seed=seed + 1), rand(B, S, J, D, seed=seed + 2)
    mask = ref_mask = None  # ours from window.py; the reference's written out here (True = sees)
    if c["mask"] == "causal":
        mask = torch.arange(S)[None, :] > torch.arange(L)[:, None]
        ref_mask = torch.tensor([[s <= l for s in range(S)] for l in range(L)])
    elif c["mask"] == "window":
        mask = window.sliding_window_causal_mask(L, S, c["W"])
        ref_mask = torch.tensor([[l - c["W"] < s <= l for s in range(S)] for l in range(L)])
    # ours: rotate, grouped scores, mask, softmax, grouped sum
    qr = rope.rotate(q, c["base"], c["fraction"], c["pairing"], c["offset"])
    kr = rope.rotate(k, c["base"], c["fraction"], c["pairing"], c["offset"])
    scores = gqa.grouped_dot_scores(qr, kr, E ** -0.5)
    if mask is not None:
        scores = scores.masked_fill(mask, -math.inf)
    ours = gqa.grouped_weighted_sum(torch.softmax(scores, -1), v)  # (B, L, H, D)
    # torch's own: loop-rotated q and k, SDPA with enable_gqa (True = takes part there)
    rot = int(E * c["fraction"])
    qref = rope_loop(q, c["base"], rot, c["pairing"], c["offset"])
    kref = rope_loop(k, c["base"], rot, c["pairing"], c["offset"])
    ref = F.scaled_dot_product_attention(qref.transpose(1, 2), kref.transpose(1, 2), v.transpose(1, 2),
                                         attn_mask=ref_mask, enable_gqa=True).transpose(1, 2)
    assert torch.allclose(ours, ref, atol=1e-11, rtol=0)
    # and the expanded (copying) path agrees with the grouped one
    full = torch.softmax(gqa.grouped_dot_scores(qr, gqa.expand_kv(kr, H), E ** -0.5).masked_fill(
        mask if mask is not None else torch.zeros(L, S, dtype=torch.bool), -math.inf), -1)
    assert torch.allclose(gqa.grouped_weighted_sum(full, gqa.expand_kv(v, H)), ours, atol=1e-13)


def test_gqa_rope_window_against_loop():
    """One fixed case through the plain-loop attention too (independent of SDPA)."""
    B, L, H, J, E, D = 1, 5, 4, 2, 4, 2
    q, k, v = rand(B, L, H, E, seed=20), rand(B, L, J, E, seed=21), rand(B, L, J, D, seed=22)
    mask = window.sliding_window_causal_mask(L, L, 2)
    qr, kr = rope.rotate(q, 100.0, 1.0, "adjacent", 3), rope.rotate(k, 100.0, 1.0, "adjacent", 3)
    w = torch.softmax(gqa.grouped_dot_scores(qr, kr, 0.5).masked_fill(mask, -math.inf), -1)
    ours = gqa.grouped_weighted_sum(w, v)
    ref = attention_loop(rope_loop(q, 100.0, 4, "adjacent", 3), rope_loop(k, 100.0, 4, "adjacent", 3), v, J, 0.5,
                         mask)
    assert torch.allclose(ours, ref, atol=1e-13)
