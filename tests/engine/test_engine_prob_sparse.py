"""prob_sparse against an independent reimplementation of Informer's ProbAttention.

The reference below is written from the description in reference-semantics.md, in the style of
Informer2020's models/attn.py: the key sample comes from the GLOBAL torch RNG after
`torch.manual_seed(seed)` (the engine uses its own seeded generator), K is expanded to
(B, H, L_Q, L_K, E) and indexed, the lazy context is the mean (or cumsum) of V, and the causal
ProbMask is filled with -inf (the engine fills -1e6)."""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
import torch
from engine_helpers import linear, scenario

from attention import run


class InformerProbAttention:
    """Informer's ProbAttention (eval, no dropout), keeping the intermediates it computes."""

    def __init__(self, mask_flag: bool, factor: int, scale=None):
        self.mask_flag, self.factor, self.scale = mask_flag, factor, scale

    def _prob_QK(self, Q, K, sample_k, n_top):
        B, H, L_K, E = K.shape
        _, _, L_Q, _ = Q.shape
        K_expand = K.unsqueeze(-3).expand(B, H, L_Q, L_K, E)
        index_sample = torch.randint(L_K, (L_Q, sample_k))  # the global RNG: first draw
        K_sample = K_expand[:, :, torch.arange(L_Q).unsqueeze(1), index_sample, :]
        Q_K_sample = torch.matmul(Q.unsqueeze(-2), K_sample.transpose(-2, -1)).squeeze(-2)
        M = Q_K_sample.max(-1)[0] - torch.div(Q_K_sample.sum(-1), L_K)
        M_top = M.topk(n_top, sorted=False)[1]
        Q_reduce = Q[torch.arange(B)[:, None, None], torch.arange(H)[None, :, None], M_top, :]
        Q_K = torch.matmul(Q_reduce, K.transpose(-2, -1))
        self.index_sample, self.Q_K_sample, self.M = index_sample, Q_K_sample, M
        return Q_K, M_top

    def _get_initial_context(self, V, L_Q):
        B, H, L_V, D = V.shape
        if not self.mask_flag:
            return V.mean(dim=-2).unsqueeze(-2).expand(B, H, L_Q, D).clone()
        assert L_Q == L_V
        return V.cumsum(dim=-2)

    def _update_context(self, context_in, V, scores, index, L_Q):
        B, H, L_V, D = V.shape
        if self.mask_flag:  # ProbMask: the upper triangle picked at the selected rows
            triu = torch.ones(L_Q, scores.shape[-1], dtype=torch.bool).triu(1)
            indicator = triu[None, None].expand(B, H, L_Q, scores.shape[-1])[
                torch.arange(B)[:, None, None], torch.arange(H)[None, :, None], index, :]
            scores = scores.masked_fill(indicator, -np.inf)
        attn = torch.softmax(scores, dim=-1)
        context_in[torch.arange(B)[:, None, None], torch.arange(H)[None, :, None], index, :] = torch.matmul(attn, V)
        return context_in

    def forward(self, queries, keys, values):
        """(B, L, H, E), (B, S, H, E), (B, S, H, D) -> context (B, H, L, D)."""
        B, L_Q, H, D = queries.shape
        _, L_K, _, _ = keys.shape
        queries, keys, values = queries.transpose(2, 1), keys.transpose(2, 1), values.transpose(2, 1)
        U_part = min(self.factor * int(np.ceil(np.log(L_K))), L_K)
        u = min(self.factor * int(np.ceil(np.log(L_Q))), L_Q)
        scores_top, index = self._prob_QK(queries, keys, sample_k=U_part, n_top=u)
        scale = self.scale or 1.0 / math.sqrt(D)
        scores_top = scores_top * scale
        self.scores_top, self.index = scores_top, index
        context = self._get_initial_context(values, L_Q)
        return self._update_context(context, values, scores_top, index, L_Q)


def _reference(sc, causal: bool):
    """Project and split with the scenario's weights, then run the reference after manual_seed."""
    P, H = sc.projections, sc.n_heads
    heads = lambda x: torch.as_tensor(x).view(x.shape[0], x.shape[1], H, -1)  # noqa: E731
    q, k, v = (heads(linear(sc.queries, P.get("query"))), heads(linear(sc.keys, P.get("key"))),
               heads(linear(sc.values, P.get("value"))))
    ref = InformerProbAttention(mask_flag=causal, factor=sc.factor)
    state = torch.get_rng_state()
    torch.manual_seed(sc.seed)
    try:
        ctx = ref.forward(q, k, v)  # (B, H, L, D)
    finally:
        torch.set_rng_state(state)
    return ref, ctx


CASES = [
    # B, L, S, d_model, H, factor, causal, seed
    (2, 20, 20, 8, 2, 1, False, 0),
    (1, 30, 25, 16, 4, 2, False, 11),
    (3, 12, 40, 6, 3, 1, False, 5),
    (2, 24, 24, 8, 2, 2, True, 3),
    (1, 50, 50, 12, 3, 1, True, 42),
]


@pytest.mark.parametrize("case", CASES)
def test_matches_informer(case):
    B, L, S, d_model, H, factor, causal, seed = case
    sc = scenario(np.random.default_rng(seed), B, L, S, d_model, H, scoring="prob_sparse",
                  factor=factor, seed=seed, causal=causal)
    ref, ctx = _reference(sc, causal)
    tr = run(sc)
    n_sample, n_top = tr.options["n_sample"], tr.options["n_top"]
    assert n_sample == min(factor * math.ceil(math.log(S)), S) and n_top == min(factor * math.ceil(math.log(L)), L)
    assert n_top < L  # the case really is sparse

    np.testing.assert_array_equal(tr.array("extra.sample_index"), ref.index_sample.numpy())
    np.testing.assert_allclose(tr.array("extra.sampled_scores"), ref.Q_K_sample.numpy(), rtol=1e-12)
    np.testing.assert_allclose(tr.array("extra.sparsity"), ref.M.numpy(), rtol=1e-12, atol=1e-12)
    top = np.sort(tr.array("extra.top_index"), axis=-1)
    np.testing.assert_array_equal(top, np.sort(ref.index.numpy(), axis=-1))

    # Scores only on the selected rows (Informer's scores_top), NaN elsewhere.
    selected = tr.array("extra.selected")
    scores = tr.array("scores")
    np.testing.assert_array_equal(selected.sum(-1), n_top)
    assert np.isnan(scores[~selected]).all() and not np.isnan(scores[selected]).any()
    b, h = np.arange(B)[:, None, None], np.arange(H)[None, :, None]
    np.testing.assert_allclose(scores[b, h, ref.index.numpy()], ref.scores_top.numpy(), rtol=1e-12)

    want = ctx.transpose(1, 2).numpy()  # (B, L, H, D)
    np.testing.assert_allclose(tr.array("weighted_sum"), want, rtol=1e-10, atol=1e-12)
    Wo = sc.projections["out"]
    np.testing.assert_allclose(tr.array("output"), linear(want.reshape(B, L, -1), Wo), rtol=1e-10, atol=1e-12)
    # The weights shown are the ones the context really uses.
    v = tr.array("head_split.value")
    np.testing.assert_allclose(np.einsum("bhls,bshd->blhd", tr.array("attention_weights"), v), want,
                               rtol=1e-10, atol=1e-12)
    lazy_w = tr.array("attention_weights")[~selected]  # (n_lazy, S)
    if causal:
        l_of = np.broadcast_to(np.arange(L), (B, H, L))[~selected]
        np.testing.assert_array_equal(lazy_w, (np.arange(S)[None, :] <= l_of[:, None]).astype(float))
    else:
        np.testing.assert_array_equal(lazy_w, np.full_like(lazy_w, 1 / S))


@pytest.mark.parametrize("causal", [False, True])
def test_n_top_equal_to_L_is_full_attention(causal):
    B, L, d_model, H = 2, 9, 8, 2
    sc = scenario(np.random.default_rng(8), B, L, L, d_model, H, scoring="prob_sparse", factor=4, causal=causal)
    tr = run(sc)
    assert tr.options["n_top"] == L and tr.array("extra.selected").all()
    full = run(dataclasses.replace(sc, scoring="scaled_dot"))
    for step in ("scores", "attention_weights", "weighted_sum", "output"):
        np.testing.assert_allclose(tr.array(step), full.array(step), rtol=1e-12, atol=1e-14)
    _, ctx = _reference(sc, causal)
    np.testing.assert_allclose(tr.array("weighted_sum"), ctx.transpose(1, 2).numpy(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("causal", [False, True])
def test_mix_is_tsl_view_without_transpose(causal):
    B, L, d_model, H = 2, 16, 12, 3
    sc = scenario(np.random.default_rng(9), B, L, L, d_model, H, scoring="prob_sparse", factor=1,
                  causal=causal, mix=True)
    _, ctx = _reference(sc, causal)  # (B, H, L, D)
    mixed = ctx.contiguous().view(B, L, -1).numpy()  # TSL: context (B,H,L,D) viewed as (B,L,H*D)
    tr = run(sc)
    np.testing.assert_allclose(tr.array("concat"), mixed, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(tr.array("output"), linear(mixed, sc.projections["out"]), rtol=1e-10, atol=1e-12)
    plain = run(dataclasses.replace(sc, mix=False)).array("concat")
    np.testing.assert_allclose(plain, ctx.transpose(1, 2).reshape(B, L, -1).numpy(), rtol=1e-10, atol=1e-12)
    assert not np.allclose(plain, mixed)


def test_same_seed_same_sample_and_other_seed_differs():
    sc = scenario(np.random.default_rng(10), 1, 30, 30, 8, 2, scoring="prob_sparse", factor=1, seed=123)
    a, b = run(sc), run(sc)
    np.testing.assert_array_equal(a.array("extra.sample_index"), b.array("extra.sample_index"))
    c = run(dataclasses.replace(sc, seed=124))
    assert not np.array_equal(a.array("extra.sample_index"), c.array("extra.sample_index"))
    counts = a.array("extra.sample_count")
    idx = a.array("extra.sample_index")
    np.testing.assert_array_equal(counts.sum(1), idx.shape[1])
    np.testing.assert_array_equal(counts[3], np.bincount(idx[3], minlength=30))
