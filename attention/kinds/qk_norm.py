"""QK-norm (Qwen3, Gemma 3; also OLMo 2 per head): each head's q and k rows are RMS-normalised and
scaled by a learned per-column weight, after the head split and BEFORE RoPE, so that the score
q . k cannot blow up with the size of the projections.

    rms(x) = sqrt(mean(x ** 2) + eps)   over one head's d columns
    "qwen3":  w * (x / rms(x))            (Qwen3RMSNorm; weights stored around 1)
    "gemma3": (1 + w) * (x / rms(x))      (Gemma3RMSNorm; weights stored around 0)
The style is always named: the same stored weights give different numbers under the other one.
The weight has one entry per head column (d,), shared by all heads (as both models).

Precision (hf_float32): both transformers norms cast the input to float32 first, even in a
float64 model.  Qwen3 normalises in float32, casts back, then multiplies by the weight in the
model's dtype; Gemma 3 also multiplies by (1 + w.float()) in float32 and only then casts back.
hf_float32=True follows those casts; the default computes everything in x's dtype.
The order x * rsqrt(mean + eps) is theirs too.

Shapes: B batch, N positions, H heads, d head width; weight (d,).
"""
from __future__ import annotations

from typing import Literal

import torch

Style = Literal["qwen3", "gemma3"]
STYLES: tuple[Style, ...] = ("qwen3", "gemma3")


def inv_rms(x: torch.Tensor, eps: float) -> torch.Tensor:
    """(B, N, H, d) -> (B, N, H, 1): 1 / sqrt(mean of squares over the head's columns + eps)."""
    return torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float, style: Style,
             hf_float32: bool = False) -> torch.Tensor:
    """x (B, N, H, d), weight (d,) -> (B, N, H, d), each head's row normalised and scaled."""
    if style not in STYLES:
        raise ValueError(f"style must be one of {STYLES}, not {style!r}")
    dt = x.dtype
    work = torch.float32 if hf_float32 else dt
    xw = x.to(work)
    normed = xw * inv_rms(xw, eps)  # (B, N, H, d)
    if style == "qwen3":
        return weight.to(dt) * normed.to(dt)  # Qwen3: cast back, then scale in the model's dtype
    return (normed * (1.0 + weight.to(work))).to(dt)  # Gemma 3: scale in the working dtype, then cast


def effective_scale(weight: torch.Tensor, style: Style) -> torch.Tensor:
    """(d,) the factor each normalised column is multiplied by: w (qwen3) or 1 + w (gemma3)."""
    if style not in STYLES:
        raise ValueError(f"style must be one of {STYLES}, not {style!r}")
    return weight if style == "qwen3" else 1.0 + weight
