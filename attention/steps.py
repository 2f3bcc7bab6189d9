"""One pure function per step of multi-head attention.  Shapes in comments:
B batch, L queries, S keys, H heads, E = d_k, D = d_v, N = additive hidden size."""
from __future__ import annotations

from typing import Optional

import torch


def project(x: torch.Tensor, weight: Optional[torch.Tensor], bias: Optional[torch.Tensor]) -> torch.Tensor:
    """nn.Linear semantics; an absent weight is the identity (d2l's scoring functions)."""
    if weight is None:
        return x
    y = x @ weight.T  # (B, N, out)
    return y + bias if bias is not None else y


def split_heads(x: torch.Tensor, H: int) -> torch.Tensor:
    """(B, N, H*E) -> (B, N, H, E): head h owns columns h*E ... (h+1)*E - 1, as TSL's .view."""
    B, N, W = x.shape
    return x.view(B, N, H, W // H)


def dot_scores(q: torch.Tensor, k: torch.Tensor, scale: float) -> torch.Tensor:
    """(B, L, H, E), (B, S, H, E) -> scaled scores (B, H, L, S).

    The scale is folded into q before the product (as nn.MultiheadAttention does), so the big
    (B, H, L, S) tensor is written once."""
    qh = q.transpose(1, 2)  # (B, H, L, E)
    kh = k.transpose(1, 2)  # (B, H, S, E)
    if scale != 1.0:
        qh = qh * scale
    return qh @ kh.transpose(-2, -1)  # (B, H, L, S)


def additive_features(q: torch.Tensor, k: torch.Tensor, W_q: torch.Tensor, W_k: torch.Tensor):
    """Per-head W_q q and W_k k: (B, L, H, Eq) x (H, N, Eq) -> (B, H, L, N); keys -> (B, H, S, N)."""
    fq = torch.einsum("blhe,hne->bhln", q, W_q)
    fk = torch.einsum("bshe,hne->bhsn", k, W_k)
    return fq, fk


def additive_scores(fq: torch.Tensor, fk: torch.Tensor, w_v: torch.Tensor, scale: float) -> torch.Tensor:
    """d2l AdditiveAttention per head: w_v^T tanh(W_q q + W_k k) -> (B, H, L, S)."""
    features = torch.tanh(fq[:, :, :, None, :] + fk[:, :, None, :, :])  # (B, H, L, S, N)
    scores = torch.einsum("bhlsn,hn->bhls", features, w_v)
    return scores * scale if scale != 1.0 else scores


def apply_mask(scores: torch.Tensor, mask: Optional[torch.Tensor], fill: float) -> torch.Tensor:
    """Masked entries of the (already scaled) scores := fill (d2l style).  mask (B, L, S)."""
    if mask is None:
        return scores  # nothing masked: the same tensor, no copy
    return scores.masked_fill(mask[:, None, :, :], fill)  # (B, H, L, S)


def softmax(masked_scores: torch.Tensor) -> torch.Tensor:
    return torch.softmax(masked_scores, dim=-1)  # (B, H, L, S)


def weighted_sum(weights: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """(B, H, L, S) x (B, S, H, D) -> (B, L, H, D)."""
    out = weights @ v.transpose(1, 2)  # (B, H, L, D)
    return out.transpose(1, 2)  # (B, L, H, D)


def concat_heads(out: torch.Tensor, mix: bool = False) -> torch.Tensor:
    """(B, L, H, D) -> (B, L, H*D).

    mix=True reproduces Time-Series-Library's ProbAttention + AttentionLayer: the context comes
    back as (B, H, L, D) and is viewed as (B, L, H*D) without a transpose, so each output row
    holds pieces of several positions of one head."""
    B, L, H, D = out.shape
    if mix:
        return out.transpose(1, 2).contiguous().view(B, L, H * D)
    return out.reshape(B, L, H * D)
