"""Attention rollout against Abnar & Zuidema's recipe written out with loops in the test."""
from __future__ import annotations

import numpy as np
import torch

from attention.models.rollout import rollout, terms


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
