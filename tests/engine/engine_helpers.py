"""Small builders and independent numpy references shared by the engine tests.

Nothing here calls the engine: every expected number in tests/engine comes from these numpy
functions, from torch's own layers, or from a reference reimplementation in the test file.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from attention import Projection, Scenario


def rand_projection(rng: np.random.Generator, out: int, inp: int, bias: bool = True) -> Projection:
    w = rng.normal(size=(out, inp)) / np.sqrt(inp)
    return Projection(w, rng.normal(size=(out,)) if bias else None)


def scenario(rng: np.random.Generator, B: int, L: int, S: int, d_model: int, H: int,
             d_k_in: Optional[int] = None, d_v_in: Optional[int] = None, projected: bool = True,
             **options) -> Scenario:
    """Random inputs; with `projected` all four projections (nn.Linear-style, with bias)."""
    d_k_in = d_model if d_k_in is None else d_k_in
    d_v_in = d_model if d_v_in is None else d_v_in
    projections = {}
    if projected:
        dk = options.get("d_keys") or d_model // H
        dv = options.get("d_values") or d_model // H
        projections = {
            "query": rand_projection(rng, H * dk, d_model),
            "key": rand_projection(rng, H * dk, d_k_in),
            "value": rand_projection(rng, H * dv, d_v_in),
            "out": rand_projection(rng, d_model, H * dv),
        }
    return Scenario(
        queries=rng.normal(size=(B, L, d_model)),
        keys=rng.normal(size=(B, S, d_k_in)),
        values=rng.normal(size=(B, S, d_v_in)),
        n_heads=H, projections=projections, **options,
    )


def linear(x: np.ndarray, p: Optional[Projection]) -> np.ndarray:
    """nn.Linear by hand; None is the identity."""
    if p is None:
        return x
    y = x @ p.weight.T
    return y + p.bias if p.bias is not None else y


def mask_of(B: int, L: int, S: int, valid_lens: Optional[np.ndarray], causal: bool) -> np.ndarray:
    """(B, L, S) bool, True = masked: d2l's s >= len (per item or per row) or causal s > l."""
    s = np.arange(S)
    mask = np.zeros((B, L, S), dtype=bool)
    if valid_lens is not None:
        lens = np.asarray(valid_lens, dtype=float)
        lens = np.repeat(lens[:, None], L, axis=1) if lens.ndim == 1 else lens  # (B, L)
        mask |= s[None, None, :] >= lens[:, :, None]
    if causal:
        mask |= s[None, None, :] > np.arange(L)[None, :, None]
    return mask


def softmax(x: np.ndarray) -> np.ndarray:
    """Softmax over the last axis (NaN for an all -inf row, as torch)."""
    with np.errstate(invalid="ignore"):
        m = np.max(x, axis=-1, keepdims=True)
        e = np.exp(x - m)
        return e / e.sum(axis=-1, keepdims=True)


def dot_reference(sc: Scenario, scale: float) -> dict[str, np.ndarray]:
    """Multi-head dot-product attention in plain numpy, d2l-style mask on the scaled scores."""
    P = sc.projections
    H = sc.n_heads
    Q, K, V = linear(sc.queries, P.get("query")), linear(sc.keys, P.get("key")), linear(sc.values, P.get("value"))
    B, L, _ = Q.shape
    S = K.shape[1]
    q, k, v = Q.reshape(B, L, H, -1), K.reshape(B, S, H, -1), V.reshape(B, S, H, -1)
    scores = np.einsum("blhe,bshe->bhls", q, k) * scale
    mask = mask_of(B, L, S, sc.valid_lens, sc.causal)
    masked = np.where(mask[:, None], sc.fill_value, scores)
    weights = softmax(masked)
    ctx = np.einsum("bhls,bshd->blhd", weights, v)
    cat = ctx.reshape(B, L, -1)
    return {"Q": Q, "K": K, "V": V, "q": q, "k": k, "v": v, "scores": scores, "masked": masked,
            "weights": weights, "ctx": ctx, "cat": cat, "out": linear(cat, P.get("out")), "mask": mask}
