"""One pure function per step of multi-head attention.  Shapes in comments:
B batch, L queries, S keys, H heads, E = d_k, D = d_v, N = additive hidden size."""
from __future__ import annotations

from typing import Optional

import torch
import torch.nn.functional as F


def project(x: torch.Tensor, weight: Optional[torch.Tensor], bias: Optional[torch.Tensor]) -> torch.Tensor:
    """nn.Linear semantics; an absent weight is the identity (d2l's scoring functions)."""
    if weight is None:
        return x
    return F.linear(x, weight, bias)  # (B, N, out); one fused addmm, as nn.Linear


def split_heads(x: torch.Tensor, H: int) -> torch.Tensor:
    """(B, N, H*E) -> (B, N, H, E): head h owns columns h*E ... (h+1)*E - 1, as TSL's .view."""
    B, N, W = x.shape
    return x.view(B, N, H, W // H)


def repeat_kv(x: torch.Tensor, H: int) -> torch.Tensor:
    """(B, S, Hkv, E) -> (B, S, H, E): key/value head j serves query heads j*g ... (j+1)*g - 1,
    g = H / Hkv (Hugging Face's repeat_kv, SDPA's enable_gqa).  The tensor itself when Hkv = H."""
    Hkv = x.shape[2]
    if Hkv == H:
        return x
    return x.repeat_interleave(H // Hkv, dim=2)


def dot_scores(q: torch.Tensor, k: torch.Tensor, scale: float) -> torch.Tensor:
    """(B, L, H, E), (B, S, H, E) -> scaled scores (B, H, L, S).

    The scale is folded into q before the product (as nn.MultiheadAttention does), so the big
    (B, H, L, S) tensor is written once."""
    B, L, H, E = q.shape
    qh = q.transpose(1, 2)  # (B, H, L, E), a strided view
    if scale != 1.0:
        # Written straight into a contiguous (B, H, L, E) buffer: the product below can then
        # treat (B, H) as one batch axis without another copy.
        qh = torch.mul(qh, scale, out=torch.empty(B, H, L, E, dtype=q.dtype, device=q.device))
    kh = k.transpose(1, 2)  # (B, H, S, E)
    return qh @ kh.transpose(-2, -1)  # (B, H, L, S)


def additive_features(q: torch.Tensor, k: torch.Tensor, W_q: torch.Tensor, W_k: torch.Tensor) -> torch.Tensor:
    """d2l's hidden features tanh(W_q q + W_k k) for every head, query, hidden unit and key:
    (B, L, H, Eq), (B, S, H, Ek), W_q (H, N, Eq), W_k (H, N, Ek) -> (B, H, L, N, S).

    W_q q is computed once per query and W_k k once per key; only the sum and tanh are done per
    (query, key) pair.  Unit-major (N before S) so that one hidden unit's features form an L x S
    block laid out as the scores are: scores = sum_n w_v[n] * features[..., n, :]."""
    fq = torch.einsum("blhe,hne->bhln", q, W_q)  # (B, H, L, N)
    fk = torch.einsum("bshe,hne->bhns", k, W_k)  # (B, H, N, S)
    B, H, L, N = fq.shape
    S = fk.shape[-1]
    # written into a contiguous buffer (a broadcast sum may pick another memory order), so the
    # trace can keep it as a (B, H, L, N*S) view without a copy
    features = torch.add(fq[:, :, :, :, None], fk[:, :, None, :, :],
                         out=torch.empty(B, H, L, N, S, dtype=fq.dtype, device=fq.device))  # (B, H, L, N, S)
    return features.tanh_()


def additive_scores(features: torch.Tensor, w_v: torch.Tensor, scale: float) -> torch.Tensor:
    """w_v^T features per head: (B, H, L, N, S), w_v (H, N) -> scores (B, H, L, S)."""
    scores = (w_v[None, :, None, None, :] @ features).squeeze(-2)  # (1, H, 1, 1, N) @ (B, H, L, N, S) -> (B, H, L, S)
    return scores * scale if scale != 1.0 else scores


def apply_mask(scores: torch.Tensor, mask: Optional[torch.Tensor], fill: float) -> torch.Tensor:
    """Masked entries of the (already scaled) scores := fill (d2l style).  mask (B, L, S)."""
    if mask is None:
        return scores  # nothing masked: the same tensor, no copy
    # one pass that writes the new tensor (masked_fill would clone the scores, then fill them):
    # the same numbers, the fill rounded to the scores' dtype as masked_fill does
    return torch.where(mask[:, None, :, :], float(fill), scores)  # (B, H, L, S)


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
