"""ALiBi (attention with linear biases, Press et al. 2022): no position embedding at all; each head h
adds slope_h times a key position to its (scaled) scores, so far-away keys lose weight linearly.

Slopes.  BLOOM's formula, as transformers' build_alibi_tensor: for n heads take the largest power
of two c <= n; the first c slopes are base ** 1 .. base ** c with base = 2 ** (-8 / c) (a
geometric series starting at 2 ** (-8/c)); when n is not a power of two, the remaining n - c heads
take the odd powers 1, 3, 5, .. of 2 ** (-8 / (2c)) (every other slope of the 2c-head series).
transformers builds the base as a float32 tensor and raises it to int32 powers in float32;
hf_float32=True reproduces those float32 slopes (then cast), the default computes in float64.
For a power-of-two n of 8 or fewer heads the slopes are exact powers of two and both agree; for
others they differ: the float32 base's rounding is raised to the k-th power, so slope k is off by
up to about k * 6e-8 relative (2e-6 at 32 heads), which a float64 comparison with transformers sees.

The bias, two equivalent forms (a per-row constant apart, which softmax ignores):
  "key"      bias[h, l, s] = slope_h * s         what BLOOM adds (query-independent, (H, 1, S))
  "relative" bias[h, l, s] = slope_h * (s - l)   the paper's form: 0 on the diagonal, -slope_h
                                                 per step back (a distance penalty)
They differ by slope_h * l in row l, so the attention weights (and outputs) are the same under
any mask; only the scores step shows a different number.  The default is "key" so that the
scores step equals what the imported model itself computes (capture, golden files); explain can
still say the relative story ("the same as -slope x distance, up to the row's constant").
With padding BLOOM's key positions are (cumsum(keep) - 1) * keep: a key's position counts only
kept keys before it (left padding shifts them); key_positions() gives those.

Shapes: B batch, H heads, L queries, S keys.
"""
from __future__ import annotations

import math
from typing import Literal

import torch

Form = Literal["key", "relative"]
FORMS: tuple[Form, ...] = ("key", "relative")


def _series(n: int, dtype: torch.dtype, hf_float32: bool) -> torch.Tensor:
    """Slopes of BLOOM's formula, step by step as build_alibi_tensor: (n,)."""
    c = 2 ** math.floor(math.log2(n))  # closest power of two <= n
    work = torch.float32 if hf_float32 else torch.float64
    base = torch.tensor(2 ** (-(2 ** -(math.log2(c) - 3))), dtype=work)  # 2 ** (-8 / c)
    slopes = torch.pow(base, torch.arange(1, 1 + c, dtype=torch.int32))  # (c,)
    if c != n:
        extra_base = torch.tensor(2 ** (-(2 ** -(math.log2(2 * c) - 3))), dtype=work)  # 2 ** (-8 / 2c)
        remaining = min(c, n - c)
        extra = torch.pow(extra_base, torch.arange(1, 1 + 2 * remaining, 2, dtype=torch.int32))  # odd powers
        slopes = torch.cat([slopes, extra])
    return slopes.to(dtype)


def bloom_slopes(n_heads: int, dtype: torch.dtype = torch.float64, hf_float32: bool = False) -> torch.Tensor:
    """(H,) BLOOM's default slopes for n_heads heads (any n >= 1, powers of two or not)."""
    if n_heads < 1:
        raise ValueError(f"n_heads={n_heads} must be >= 1")
    return _series(n_heads, dtype, hf_float32)


def key_positions(keep: torch.Tensor) -> torch.Tensor:
    """keep (B, S) bool (True = a real key) -> (B, S) BLOOM's positions (cumsum(keep) - 1) * keep:
    each kept key's index among the kept keys, 0 at padding."""
    k = keep.to(torch.int64)
    return (k.cumsum(dim=-1) - 1) * k


def alibi_bias(slopes: torch.Tensor, L: int, S: int, form: Form = "key",
               key_pos: torch.Tensor | None = None, hf_float32: bool = False) -> torch.Tensor:
    """The bias added to the scaled scores: slopes (H,) -> (1, H, L, S), or (B, H, L, S) when
    key_pos (B, S) is given (BLOOM's padded positions; "key" form only).

    Shaped as the scores (the "key" form as a broadcast view over L, no copy) so the trace can
    show it as a step.  hf_float32: transformers multiplies slope by position in float32 and casts
    the product; the default multiplies in the slopes' dtype."""
    if form not in FORMS:
        raise ValueError(f"form must be one of {FORMS}, not {form!r}")
    if form == "relative" and key_pos is not None:
        raise ValueError("key positions (padding) apply to the 'key' form only")
    dt, dev, H = slopes.dtype, slopes.device, slopes.shape[0]
    work = torch.float32 if hf_float32 else dt
    m = slopes.to(work)
    if form == "relative":
        dist = torch.arange(S, device=dev)[None, :] - torch.arange(L, device=dev)[:, None]  # (L, S): s - l
        return (m[:, None, None] * dist.to(work)).to(dt)[None]  # (1, H, L, S)
    if key_pos is None:
        key_pos = torch.arange(S, device=dev)[None, :]  # (1, S)
    bias = (m[None, :, None, None] * key_pos.to(work)[:, None, None, :]).to(dt)  # (B or 1, H, 1, S)
    return bias.expand(bias.shape[0], H, L, S)


def add_bias(scores: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """scores (B, H, L, S) + bias (1 or B, H, L, S): the visible 'biased scores' step, before the mask."""
    return scores + bias
