"""The engine against torch's own attention: nn.MultiheadAttention and F.scaled_dot_product_attention.

Every expected number comes from torch's layers (or plain numpy for the steps torch does not
expose), never from the engine."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from engine_helpers import linear, softmax

from attention import Projection, Scenario, run

TOL = dict(rtol=1e-10, atol=1e-12)


def _mha_case(seed: int, B: int, L: int, S: int, E: int, H: int, kdim: int, vdim: int):
    """A random eval-mode MultiheadAttention (random biases too) and the same layer as a Scenario."""
    torch.manual_seed(seed)
    mha = torch.nn.MultiheadAttention(E, H, batch_first=True, kdim=kdim, vdim=vdim, dtype=torch.float64).eval()
    with torch.no_grad():
        mha.in_proj_bias.normal_()
        mha.out_proj.bias.normal_()
    if mha._qkv_same_embed_dim:
        Wq, Wk, Wv = mha.in_proj_weight.detach().chunk(3)
    else:
        Wq, Wk, Wv = (mha.q_proj_weight.detach(), mha.k_proj_weight.detach(), mha.v_proj_weight.detach())
    bq, bk, bv = mha.in_proj_bias.detach().chunk(3)
    x = torch.randn(B, L, E, dtype=torch.float64)
    y = torch.randn(B, S, kdim, dtype=torch.float64)
    z = torch.randn(B, S, vdim, dtype=torch.float64)
    n = lambda t: t.numpy().copy()  # noqa: E731
    sc = Scenario(
        queries=n(x), keys=n(y), values=n(z), n_heads=H,
        projections={
            "query": Projection(n(Wq), n(bq)), "key": Projection(n(Wk), n(bk)),
            "value": Projection(n(Wv), n(bv)),
            "out": Projection(n(mha.out_proj.weight.detach()), n(mha.out_proj.bias.detach())),
        },
    )
    return mha, (x, y, z), sc


MHA_SHAPES = [
    # seed, B, L, S, E, H, kdim, vdim
    (0, 1, 4, 4, 4, 2, 4, 4),
    (1, 2, 3, 5, 6, 3, 6, 6),
    (2, 3, 5, 2, 8, 4, 3, 7),  # kdim / vdim differ from embed_dim
    (3, 2, 1, 6, 5, 1, 2, 9),
    (4, 1, 7, 7, 12, 6, 12, 5),
]


@pytest.mark.parametrize("case", MHA_SHAPES)
def test_matches_multihead_attention(case):
    seed, B, L, S, E, H, kdim, vdim = case
    mha, (x, y, z), sc = _mha_case(seed, B, L, S, E, H, kdim, vdim)
    with torch.no_grad():
        want_out, want_w = mha(x, y, z, need_weights=True, average_attn_weights=False)
    tr = run(sc)
    assert tr.options["scale"] == pytest.approx(1 / np.sqrt(E // H))

    # Projections and the head split, by hand.
    P = sc.projections
    Q, K, V = linear(sc.queries, P["query"]), linear(sc.keys, P["key"]), linear(sc.values, P["value"])
    np.testing.assert_allclose(tr.array("projection.query"), Q, **TOL)
    np.testing.assert_allclose(tr.array("projection.key"), K, **TOL)
    np.testing.assert_allclose(tr.array("projection.value"), V, **TOL)
    d = E // H
    last = H - 1  # head h owns columns h*d ... (h+1)*d - 1
    np.testing.assert_allclose(tr.array("head_split.query")[:, :, last], Q[:, :, last * d:(last + 1) * d], **TOL)
    np.testing.assert_allclose(tr.array("head_split.query"), Q.reshape(B, L, H, d), **TOL)
    np.testing.assert_allclose(tr.array("head_split.key"), K.reshape(B, S, H, d), **TOL)
    np.testing.assert_allclose(tr.array("head_split.value"), V.reshape(B, S, H, d), **TOL)

    # MHA does not expose its scores: ours must soft-max to its weights and differ from its
    # log-weights by one constant per row; and they must equal q.k / sqrt(d) by hand.
    scores = tr.array("scores")
    np.testing.assert_allclose(softmax(scores), want_w.numpy(), **TOL)
    gap = scores - np.log(want_w.numpy())
    np.testing.assert_allclose(gap, np.broadcast_to(gap[..., :1], gap.shape), rtol=0, atol=1e-9)
    by_hand = np.einsum("blhe,bshe->bhls", Q.reshape(B, L, H, d), K.reshape(B, S, H, d)) / np.sqrt(d)
    np.testing.assert_allclose(scores, by_hand, **TOL)
    assert "extra.mask" not in tr
    np.testing.assert_array_equal(tr.array("masked_scores"), scores)

    np.testing.assert_allclose(tr.array("attention_weights"), want_w.numpy(), **TOL)
    np.testing.assert_allclose(tr.array("output"), want_out.numpy(), **TOL)


@pytest.mark.parametrize("case", MHA_SHAPES[1:])
def test_key_padding_mask_matches_valid_lens(case):
    seed, B, L, S, E, H, kdim, vdim = case
    mha, (x, y, z), sc = _mha_case(seed, B, L, S, E, H, kdim, vdim)
    lens = np.random.default_rng(seed).integers(1, S + 1, size=B)  # >= 1: MHA gives NaN for none
    padding = torch.arange(S)[None, :] >= torch.as_tensor(lens)[:, None]  # MHA: True = ignore
    with torch.no_grad():
        want_out, want_w = mha(x, y, z, key_padding_mask=padding, need_weights=True, average_attn_weights=False)
    tr = run(dataclasses.replace(sc, valid_lens=lens.astype(float)))
    np.testing.assert_allclose(tr.array("attention_weights"), want_w.numpy(), **TOL)
    np.testing.assert_allclose(tr.array("output"), want_out.numpy(), **TOL)
    np.testing.assert_array_equal(tr.array("extra.mask"), np.broadcast_to(padding.numpy()[:, None, :], (B, L, S)))
    assert not tr.array("extra.fully_masked").any() and not tr.warnings


def _heads_scenario(rng, B, L, S, H, E, D, **options) -> Scenario:
    """No projections: the inputs are the heads side by side (H*E wide), as SDPA's (B, H, L, E)."""
    return Scenario(rng.normal(size=(B, L, H * E)), rng.normal(size=(B, S, H * E)),
                    rng.normal(size=(B, S, H * D)), n_heads=H, d_keys=E, d_values=D, **options)


def _sdpa(sc: Scenario, H: int, **kwargs) -> np.ndarray:
    """F.scaled_dot_product_attention on the scenario's heads -> (B, L, H, D)."""
    def heads(a):
        B, N, W = a.shape
        return torch.as_tensor(a).view(B, N, H, W // H).transpose(1, 2)  # (B, H, N, E)
    out = F.scaled_dot_product_attention(heads(sc.queries), heads(sc.keys), heads(sc.values), **kwargs)
    return out.transpose(1, 2).numpy()  # (B, L, H, D)


SDPA_SHAPES = [(1, 4, 4, 2, 3, 2), (2, 3, 6, 1, 2, 4), (2, 6, 3, 3, 4, 1), (3, 5, 5, 2, 1, 3)]


@pytest.mark.parametrize("fill", [-1e6, -np.inf])
@pytest.mark.parametrize("shape", SDPA_SHAPES)
def test_causal_matches_sdpa_is_causal(shape, fill):
    B, L, S, H, E, D = shape  # includes L != S: SDPA's is_causal aligns at the top-left
    sc = _heads_scenario(np.random.default_rng(L * 10 + S), B, L, S, H, E, D, causal=True, fill_value=fill)
    tr = run(sc)
    np.testing.assert_allclose(tr.array("weighted_sum"), _sdpa(sc, H, is_causal=True), **TOL)
    want_mask = np.arange(S)[None, :] > np.arange(L)[:, None]  # SDPA attends where tril(ones(L, S))
    np.testing.assert_array_equal(tr.array("extra.mask")[0], want_mask)
    assert not tr.warnings


@pytest.mark.parametrize("fill", [-1e6, -np.inf])
@pytest.mark.parametrize("shape", SDPA_SHAPES)
@pytest.mark.parametrize("per_row", [False, True])
def test_padding_matches_sdpa_bool_mask(shape, fill, per_row):
    B, L, S, H, E, D = shape
    rng = np.random.default_rng(B * 100 + L * 10 + S)
    lens = rng.integers(1, S + 1, size=(B, L) if per_row else (B,)).astype(float)
    sc = _heads_scenario(rng, B, L, S, H, E, D, valid_lens=lens, fill_value=fill)
    row_lens = lens if per_row else np.repeat(lens[:, None], L, axis=1)  # (B, L)
    attend = torch.arange(S)[None, None, :] < torch.as_tensor(row_lens)[:, :, None]  # SDPA: True = attend
    want = _sdpa(sc, H, attn_mask=attend[:, None])
    np.testing.assert_allclose(run(sc).array("weighted_sum"), want, **TOL)


@pytest.mark.parametrize("shape", SDPA_SHAPES)
def test_causal_and_padding_and_explicit_scale_match_sdpa(shape):
    B, L, S, H, E, D = shape
    rng = np.random.default_rng(7 + L + S)
    lens = rng.integers(1, S + 1, size=B).astype(float)
    sc = _heads_scenario(rng, B, L, S, H, E, D, valid_lens=lens, causal=True, scale=0.37)
    attend = ((torch.arange(S)[None, None, :] < torch.as_tensor(lens)[:, None, None])
              & torch.ones(L, S, dtype=torch.bool).tril())
    want = _sdpa(sc, H, attn_mask=attend[:, None], scale=0.37)
    np.testing.assert_allclose(run(sc).array("weighted_sum"), want, **TOL)
