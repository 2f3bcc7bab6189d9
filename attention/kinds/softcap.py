"""Soft-capping the scores (Gemma 2): s -> cap * tanh(s / cap).

Near 0 it is the identity (tanh x ~ x), large scores bend smoothly towards +-cap, so no single
key can take all the weight through one huge logit.  Gemma 2 applies it to the already scaled
scores (its scale is query_pre_attn_scalar ** -0.5, not d_k ** -0.5), before the mask is added.
The order of the operations is transformers' (divide, tanh, multiply), so a float64 run matches
its eager attention elementwise.  Shapes: any; in the engine (B, H, L, S).
"""
from __future__ import annotations

import math

import torch


def softcap(scores: torch.Tensor, cap: float) -> torch.Tensor:
    """cap * tanh(scores / cap), elementwise.  cap > 0 (the caller's problems() check it)."""
    if not cap > 0:
        raise ValueError(f"cap={cap} must be > 0")
    return torch.tanh(scores / cap) * cap


def gemma_scale(query_pre_attn_scalar: float) -> float:
    """Gemma 2/3's score scale, query_pre_attn_scalar ** -0.5 (it need not equal d_k)."""
    return query_pre_attn_scalar ** -0.5


def softcap_value(score: float, cap: float) -> float:
    """One cell, for explain: the same formula in Python floats."""
    return math.tanh(score / cap) * cap
