"""What one pass of a decoder language model hands the explorer, and the pieces every such decoder shares.

A decoder here is the pre-norm stack used by glassllm, Llama, SmolLM2 and kin:

    x0 = E[ids]
    per layer k:  h = RMSNorm(x) ; x = x + Attention_k(h) ; x = x + SwiGLU(RMSNorm(x))
    logits = RMSNorm(x) @ W_out^T          (W_out = E where the embeddings are tied)

The explorer needs more than the logits: the residual stream entering each layer and the normed input
each attention reads (so the engine can replay that layer as a scenario), each layer's attention output and
weights (the model view's grid), and the logits.  `DecoderForward` is that record, the same for every
decoder; `Attend` is the hook through which the engine computes each attention layer.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import torch


@dataclass(frozen=True)
class DecoderForward:
    """One pass over one sequence.

    resid[k] (1, L, d) the residual stream entering layer k (resid[n_layers]: after the last);
    normed[k] (1, L, d) RMSNorm(resid[k]): what layer k's attention reads as queries, keys, values;
    attn_out[k] (1, L, d) layer k's attention output; weights[k] (1, H, L, S) its attention weights (S = L, or
    with a KV cache the cached positions + L); logits (1, L, vocab)."""

    resid: list[torch.Tensor]
    normed: list[torch.Tensor]
    attn_out: list[torch.Tensor]
    weights: list[torch.Tensor]
    logits: torch.Tensor


#: One attention layer: (layer, normed input (1, L, d), first position) -> (output (1, L, d), weights (1, H, L, L)).
Attend = Callable[[int, torch.Tensor, int], tuple[torch.Tensor, torch.Tensor]]


def rms_norm(x: torch.Tensor, gamma: torch.Tensor, eps: float) -> torch.Tensor:
    """x / sqrt(mean(x²) + eps) * gamma over the last dim.  x (..., d), gamma (d,)."""
    return x / torch.sqrt((x * x).mean(dim=-1, keepdim=True) + eps) * gamma


def swiglu(x: torch.Tensor, W1: torch.Tensor, W3: torch.Tensor, W2: torch.Tensor) -> torch.Tensor:
    """(SiLU(x W1ᵀ) ⊙ x W3ᵀ) W2ᵀ with nn.Linear-layout weights: W1 = gate (f, d), W3 = up (f, d), W2 = down (d, f)."""
    return (torch.nn.functional.silu(x @ W1.T) * (x @ W3.T)) @ W2.T
