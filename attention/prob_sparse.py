"""Informer's ProbSparse attention (ProbAttention), vectorised, with every intermediate kept.

Same call order as Informer, so `torch.manual_seed(seed)` before Informer's forward and our
generator seeded with `seed` draw the same key sample:
1. sample_index = randint(S, (L, n_sample))   one draw, shared by batch items and heads
2. sampled_scores = q_l . k_sample            (B, H, L, n_sample), unscaled
3. M = max(sampled) - sum(sampled) / S        sparsity measure (divided by the full S)
4. top_index = topk(M, n_top)                 the active queries
5. active rows: full scaled scores and softmax; lazy rows: mean of V (or cumsum when causal).
"""
from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class ProbSparseParts:
    sample_index: torch.Tensor  # (L, n_sample) int64
    sample_count: torch.Tensor  # (L, S)
    sampled_scores: torch.Tensor  # (B, H, L, n_sample)
    sparsity: torch.Tensor  # (B, H, L)
    top_index: torch.Tensor  # (B, H, n_top) int64
    selected: torch.Tensor  # (B, H, L) bool


def select_queries(q: torch.Tensor, k: torch.Tensor, n_sample: int, n_top: int, seed: int) -> ProbSparseParts:
    """q (B, L, H, E), k (B, S, H, E) -> the sample, M and the chosen queries."""
    B, L, H, _ = q.shape
    S = k.shape[1]
    gen = torch.Generator(device="cpu").manual_seed(int(seed))
    idx = torch.randint(S, (L, n_sample), generator=gen).to(q.device)  # (L, n_sample)
    qh, kh = q.transpose(1, 2), k.transpose(1, 2)  # (B, H, L, E), (B, H, S, E)
    k_sample = kh[:, :, idx, :]  # (B, H, L, n_sample, E)
    sampled = (qh.unsqueeze(-2) @ k_sample.transpose(-2, -1)).squeeze(-2)  # (B, H, L, n_sample)
    M = sampled.max(-1).values - sampled.sum(-1) / S  # (B, H, L)
    top = M.topk(n_top, sorted=False).indices  # (B, H, n_top)
    selected = torch.zeros(B, H, L, dtype=torch.bool, device=q.device)
    selected.scatter_(-1, top, True)
    count = torch.zeros(L, S, dtype=q.dtype, device=q.device)
    count.scatter_add_(1, idx, torch.ones_like(idx, dtype=q.dtype))
    return ProbSparseParts(idx, count, sampled, M, top, selected)


def scores_on_selected(q: torch.Tensor, k: torch.Tensor, parts: ProbSparseParts, scale: float) -> torch.Tensor:
    """Scaled scores of the active queries only; lazy rows are NaN (never computed).  (B, H, L, S)."""
    B, L, H, _ = q.shape
    S = k.shape[1]
    qh, kh = q.transpose(1, 2), k.transpose(1, 2)
    b = torch.arange(B, device=q.device)[:, None, None]
    h = torch.arange(H, device=q.device)[None, :, None]
    q_top = qh[b, h, parts.top_index]  # (B, H, n_top, E)
    top_scores = (q_top @ kh.transpose(-2, -1)) * scale  # (B, H, n_top, S)
    scores = torch.full((B, H, L, S), float("nan"), dtype=q.dtype, device=q.device)
    scores[b, h, parts.top_index] = top_scores
    return scores


def effective_weights(masked_scores: torch.Tensor, selected: torch.Tensor, causal: bool) -> torch.Tensor:
    """Softmax on active rows; lazy rows get the weights their context really uses:
    1/S each (mean of V), or 1 for every s <= l when causal (cumulative sum of V)."""
    B, H, L, S = masked_scores.shape
    active = torch.softmax(masked_scores.nan_to_num(0.0), dim=-1)  # lazy rows replaced below
    if causal:
        s = torch.arange(S, device=masked_scores.device)
        l = torch.arange(L, device=masked_scores.device)
        lazy = (s[None, :] <= l[:, None]).to(masked_scores.dtype).expand(B, H, L, S)
    else:
        lazy = torch.full_like(masked_scores, 1.0 / S)
    return torch.where(selected[..., None], active, lazy)
