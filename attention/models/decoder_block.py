"""One decoder layer around its attention, described once for the Llama family and for Gemma 3.

    Llama, SmolLM2 (pre-norm):                       Gemma 3 (sandwich norms):
      h = N_attn(x)          what attention reads       h = N_attn(x)
      x = x + A(h)                                      x = x + N_post_attn(A(h))
      x = x + F(N_ffn(x))                               x = x + N_post_ffn(F(N_ffn(x)))

    F(h) = down(act(gate h) ⊙ up h)      act: SiLU (SwiGLU, Llama) or GELU with the tanh approximation (Gemma)
    N(x) = x / sqrt(mean(x²) + eps) · g  g = w (Llama) or 1 + w (Gemma's RMSNorm keeps w around 0)

`BlockStyle` says which of these a model does, `BlockWeights` holds one layer's tensors, `LayerAttention` what its
attention does beyond the four projections (RoPE base, window, scale, QK-norm: one for all of a Llama's layers,
two kinds of layer in Gemma 3's), and `run_layers` is the
loop both decoders' forwards share: it records what the explorer needs of every layer (the residual entering it,
the normed input its attention reads, the attention's output and weights: attention.models.decoder.DecoderForward)
and leaves the attention itself to the `attend` hook (the decoder's reference attention, or the engine).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import torch

from attention.models.decoder import Attend, rms_norm


@dataclass(frozen=True)
class BlockStyle:
    """What a model's layers do around attention (the same for all its layers)."""

    eps: float
    act: str = "silu"  # "silu" (SwiGLU) or "gelu_tanh" (Gemma's GeGLU)
    sandwich: bool = False  # norms after the attention and after the FFN too (Gemma 2 / 3)
    plus_one: bool = False  # every RMSNorm multiplies by 1 + w (Gemma), not w


@dataclass(frozen=True)
class BlockWeights:
    """One layer's tensors around its attention, nn.Linear layout: gate, up (f, d); down (d, f); norms (d,)."""

    attn_norm: torch.Tensor
    ffn_norm: torch.Tensor
    gate: torch.Tensor
    up: torch.Tensor
    down: torch.Tensor
    post_attn_norm: Optional[torch.Tensor] = None  # a sandwich style's
    post_ffn_norm: Optional[torch.Tensor] = None


@dataclass(frozen=True)
class LayerAttention:
    """One layer's attention beyond its projections, as the decoders' reference attention computes it.

    RoPE in halves at `base`; `window` W: a query sees only keys l - W < s <= l (None: every earlier key);
    `scale` multiplies q·k (None: divide by sqrt(head_dim), Llama's); `q_norm`/`k_norm` (head_dim,): QK-norm,
    each head's row over its RMS times 1 + w (Gemma 3), before RoPE (None: none)."""

    base: float
    window: Optional[int] = None
    scale: Optional[float] = None
    q_norm: Optional[torch.Tensor] = None
    k_norm: Optional[torch.Tensor] = None
    norm_eps: float = 1e-6


def norm(x: torch.Tensor, w: torch.Tensor, style: BlockStyle) -> torch.Tensor:
    """RMSNorm of x (..., d) with the style's gain: w, or 1 + w computed in x's dtype (as transformers' Gemma)."""
    return rms_norm(x, (1.0 + w) if style.plus_one else w, style.eps)


def ffn(h: torch.Tensor, t: BlockWeights, style: BlockStyle) -> torch.Tensor:
    """down(act(h gateᵀ) ⊙ h upᵀ): (..., d) -> (..., d)."""
    g = h @ t.gate.T
    g = torch.nn.functional.silu(g) if style.act == "silu" else torch.nn.functional.gelu(g, approximate="tanh")
    return (g * (h @ t.up.T)) @ t.down.T


def run_layers(n_layers: int, x: torch.Tensor, block: Callable[[int], BlockWeights], style: BlockStyle,
               attend: Attend, start: int, first: int = 0):
    """Layers `first` .. n_layers - 1 on the residual stream x (B, L, d) entering layer `first`:
    (resid, normed, attn_out, weights, x after the last), each list from layer `first` on.

    resid[k] enters layer k; normed[k] = N_attn(resid[k]) is what attention k reads (its scenario's queries,
    keys and values); attn_out[k], weights[k] are attend's (B, L, d), (B, H, L, S).  `first` > 0 resumes a pass
    at a layer (attention.models.head_map recomputes only the layers after a knocked-out head)."""
    resid, normed, outs, weights = [], [], [], []
    for k in range(first, n_layers):
        t = block(k)
        resid.append(x)
        h = norm(x, t.attn_norm, style)  # (1, L, d)
        normed.append(h)
        a, w = attend(k, h, start)
        outs.append(a)
        weights.append(w)
        x = x + (norm(a, t.post_attn_norm, style) if style.sandwich else a)
        f = ffn(norm(x, t.ffn_norm, style), t, style)
        x = x + (norm(f, t.post_ffn_norm, style) if style.sandwich else f)
    return resid, normed, outs, weights, x
