"""Informer's ProbSparse attention (ProbAttention), vectorised, with every intermediate kept.

Same call order as Informer, so `torch.manual_seed(seed)` before Informer's forward and our
generator seeded with `seed` draw the same key sample:
1. sample_index = randint(S, (L, n_sample))   one draw, shared by batch items and heads
2. sampled_scores = q_l . k_sample            (B, H, L, n_sample), unscaled
3. M = max(sampled) - sum(sampled) / S        sparsity measure (divided by the full S)
4. top_index = topk(M, n_top)                 the active queries
5. active rows: full scaled scores and softmax; lazy rows: mean of V (or cumsum when causal).

Only the n_top active rows are ever scored or soft-maxed (as in Informer); the full (B, H, L, S)
tensors the trace shows are written once each: NaN rows in the scores ("not computed"), the
lazy rows' effective weights in the attention weights.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import torch


@dataclass(frozen=True)
class ProbSparseParts:
    sample_index: torch.Tensor  # (L, n_sample) int64
    sample_count: torch.Tensor  # (L, S)
    sampled_scores: torch.Tensor  # (B, H, L, n_sample)
    sparsity: torch.Tensor  # (B, H, L)
    top_index: torch.Tensor  # (B, H, n_top) int64
    selected: torch.Tensor  # (B, H, L) bool


def select_queries(q: torch.Tensor, k: torch.Tensor, n_sample: int, n_top: int, seed: int,
                   sample_index: Optional[torch.Tensor] = None) -> ProbSparseParts:
    """q (B, L, H, E), k (B, S, H, E) -> the sample, M and the chosen queries.

    `sample_index` (L, n_sample), when given, is the sample itself (recorded from a real
    model's forward, whose draw came from a generator state we cannot re-seed); else it is
    drawn from `seed`."""
    B, L, H, _ = q.shape
    S = k.shape[1]
    if sample_index is not None:
        idx = sample_index.to(device=q.device, dtype=torch.int64)  # (L, n_sample)
    else:
        # Informer draws from the global CPU generator, on CUDA too: draw on the CPU, then move.
        gen = torch.Generator(device="cpu").manual_seed(int(seed))
        idx = torch.randint(S, (L, n_sample), generator=gen).to(q.device)  # (L, n_sample)
    qh, kh = q.transpose(1, 2), k.transpose(1, 2)  # (B, H, L, E), (B, H, S, E)
    k_sample = kh[:, :, idx, :]  # (B, H, L, n_sample, E), Informer's K_sample
    sampled = (qh.unsqueeze(-2) @ k_sample.transpose(-2, -1)).squeeze(-2)  # (B, H, L, n_sample)
    del k_sample
    M = sampled.max(-1).values - sampled.sum(-1) / S  # (B, H, L)
    top = M.topk(n_top, sorted=False).indices  # (B, H, n_top)
    selected = torch.zeros(B, H, L, dtype=torch.bool, device=q.device)
    selected.scatter_(-1, top, True)
    count = torch.zeros(L, S, dtype=q.dtype, device=q.device)
    count.scatter_add_(1, idx, torch.ones_like(idx, dtype=q.dtype))
    return ProbSparseParts(idx, count, sampled, M, top, selected)


def top_scores(q: torch.Tensor, k: torch.Tensor, parts: ProbSparseParts, scale: float) -> torch.Tensor:
    """Scaled scores of the active queries only: (B, H, n_top, S), Informer's scores_top."""
    B, L, H, _ = q.shape
    qh, kh = q.transpose(1, 2), k.transpose(1, 2)  # (B, H, L, E), (B, H, S, E)
    b = torch.arange(B, device=q.device)[:, None, None]
    h = torch.arange(H, device=q.device)[None, :, None]
    q_top = qh[b, h, parts.top_index]  # (B, H, n_top, E)
    return (q_top @ kh.transpose(-2, -1)) * scale  # (B, H, n_top, S)


def mask_top(top: torch.Tensor, mask: Optional[torch.Tensor], parts: ProbSparseParts, fill: float) -> torch.Tensor:
    """The fill on the active rows: mask (B, L, S) picked at each head's top_index."""
    if mask is None:
        return top
    B, H, _ = parts.top_index.shape
    b = torch.arange(B, device=top.device)[:, None, None]
    return top.masked_fill(mask[b, parts.top_index], fill)  # (B, H, n_top, S)


def scatter_rows(top_rows: torch.Tensor, parts: ProbSparseParts, base: torch.Tensor) -> torch.Tensor:
    """base (B, H, L, S) with the active rows replaced by top_rows (B, H, n_top, S), in place."""
    S = base.shape[-1]
    index = parts.top_index[..., None].expand(-1, -1, -1, S)  # (B, H, n_top, S)
    return base.scatter_(2, index, top_rows)


def not_computed(top_rows: torch.Tensor, parts: ProbSparseParts, L: int) -> torch.Tensor:
    """(B, H, L, S): the active rows, NaN elsewhere (lazy rows are never scored)."""
    B, H, _, S = top_rows.shape
    base = torch.full((B, H, L, S), float("nan"), dtype=top_rows.dtype, device=top_rows.device)
    return scatter_rows(top_rows, parts, base)


def effective_weights(top_masked: torch.Tensor, parts: ProbSparseParts, L: int, causal: bool) -> torch.Tensor:
    """Softmax on the active rows; lazy rows get the weights their context really uses:
    1/S each (mean of V), or 1 for every s <= l when causal (cumulative sum of V).  (B, H, L, S)."""
    B, H, _, S = top_masked.shape
    dev, dt = top_masked.device, top_masked.dtype
    if causal:
        lazy = torch.ones(L, S, dtype=dt, device=dev).tril_()  # (L, S): 1 where s <= l
        base = lazy.expand(B, H, L, S).clone()
    else:
        base = torch.full((B, H, L, S), 1.0 / S, dtype=dt, device=dev)
    return scatter_rows(torch.softmax(top_masked, dim=-1), parts, base)
