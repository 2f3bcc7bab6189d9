"""Attention rollout against Abnar & Zuidema's recipe written out with loops in the test."""
from __future__ import annotations

import numpy as np
import torch

from attention.models.rollout import from_arrays, rollout, terms


def _weights(rng, B, H, L):
    a = rng.random((B, H, L, L))
    return torch.from_numpy(a / a.sum(-1, keepdims=True))


def _by_hand(ws, head):
    out = None
    for w in ws:
        A = w.numpy().mean(axis=1) if head is None else w.numpy()[:, head]
        B, L, _ = A.shape
        mixed = np.empty_like(A)
        for b in range(B):
            for i in range(L):
                for j in range(L):
                    mixed[b, i, j] = 0.5 * A[b, i, j] + (0.5 if i == j else 0.0)
        if out is None:
            out = mixed
        else:
            nxt = np.zeros_like(out)
            for b in range(B):
                for i in range(L):
                    for j in range(L):
                        nxt[b, i, j] = sum(mixed[b, i, m] * out[b, m, j] for m in range(L))
            out = nxt
    return out


def test_rollout_matches_the_recipe_for_the_mean_and_one_head():
    rng = np.random.default_rng(3)
    ws = [_weights(rng, 2, 3, 5) for _ in range(4)]
    for head in (None, 1):
        r = rollout(ws, head)
        np.testing.assert_allclose(r.products[-1].numpy(), _by_hand(ws, head), rtol=0, atol=1e-14)
        np.testing.assert_allclose(r.products[-1].sum(-1).numpy(), 1.0, atol=1e-14)  # rows stay distributions


def test_terms_add_up_to_the_cell():
    rng = np.random.default_rng(4)
    ws = [_weights(rng, 1, 2, 4) for _ in range(3)]
    r = rollout(ws)
    t = terms(r, 2, 0, 1, 3)
    assert len(t) == 4
    assert abs(sum(a * b for _, a, b in t) - float(r.products[2][0, 1, 3])) < 1e-15
    assert terms(r, 0, 0, 1, 3) == [(3, float(r.layers[0][0, 1, 3]), 1.0)]


# ---- Abnar & Zuidema's own code --------------------------------------------------------------------------
# samiraabnar/attention_flow, attention_graph_util.py (MIT), copied as it is: the identity is added, each row
# renormalised, and the layers multiplied with the later one on the left; run_bert_sv.get_joint_relevance
# averages the heads first (sum over heads / number of heads).
def _compute_joint_attention(att_mat, add_residual=True):
    if add_residual:
        residual_att = np.eye(att_mat.shape[1])[None, ...]
        aug_att_mat = att_mat + residual_att
        aug_att_mat = aug_att_mat / aug_att_mat.sum(axis=-1)[..., None]
    else:
        aug_att_mat = att_mat

    joint_attentions = np.zeros(aug_att_mat.shape)

    layers = joint_attentions.shape[0]
    joint_attentions[0] = aug_att_mat[0]
    for i in np.arange(1, layers):
        joint_attentions[i] = aug_att_mat[i].dot(joint_attentions[i - 1])

    return joint_attentions


def test_rollout_matches_the_papers_own_code_layer_by_layer_and_per_head():
    rng = np.random.default_rng(7)
    L, H, n = 5, 4, 6
    s = rng.normal(size=(L, H, n, n)) * 3
    s = np.where(np.triu(np.ones((n, n), bool), 1), -np.inf, s)  # causal, as a decoder's
    full_att_mat = np.exp(s - s.max(-1, keepdims=True))
    full_att_mat /= full_att_mat.sum(-1, keepdims=True)  # (layers, heads, n, n)
    att_sum_heads = full_att_mat.sum(axis=1) / full_att_mat.shape[1]  # run_bert_sv.get_joint_relevance
    want = _compute_joint_attention(att_sum_heads, add_residual=True)
    r = from_arrays(list(full_att_mat))
    for k in range(L):  # every layer's product, so a product taken in the other order would fail
        np.testing.assert_allclose(r.products[k][0].numpy(), want[k], rtol=0, atol=1e-14)
    want_head = _compute_joint_attention(full_att_mat[:, 2], add_residual=True)
    np.testing.assert_allclose(from_arrays(list(full_att_mat), head=2).products[-1][0].numpy(), want_head[-1],
                               rtol=0, atol=1e-14)
