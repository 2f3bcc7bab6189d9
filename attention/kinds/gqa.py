"""Grouped-query and multi-query attention: fewer key/value heads than query heads.

H query heads share H_kv key/value heads (H_kv divides H; H_kv = 1 is multi-query attention,
H_kv = H is plain multi-head attention).  The order is Hugging Face's `repeat_kv`
(Llama, Mistral, Qwen, Gemma): the query heads are cut into H_kv consecutive groups of
g = H / H_kv, so query head h reads key/value head h // g.  (Not h % H_kv: that interleaved
order is a different model, and importing a checkpoint with it would silently mix heads.)

Shapes: B batch, L queries, S keys, H query heads, J = H_kv key/value heads, g = H / J group size,
E = d_k per head, D = d_v per head.  Layout after the head split is (B, N, heads, width), as
attention/ops/steps.py; scores are (B, H, L, S).
"""
from __future__ import annotations

import torch


def group_size(H: int, H_kv: int) -> int:
    """g = H / H_kv, the number of query heads reading each key/value head.

    Raises ValueError when H_kv does not divide H: the scenario's problems() should have said so
    in words first; this is the last guard against silently wrong heads."""
    if H < 1 or H_kv < 1 or H % H_kv:
        raise ValueError(f"n_kv_heads={H_kv} must be >= 1 and divide n_heads={H}")
    return H // H_kv


def kv_head_of(h: int, H: int, H_kv: int) -> int:
    """The key/value head query head h reads (repeat_kv order)."""
    return h // group_size(H, H_kv)


def query_heads_of(j: int, H: int, H_kv: int) -> range:
    """The query heads that read key/value head j: a consecutive block of g heads."""
    g = group_size(H, H_kv)
    return range(j * g, (j + 1) * g)


def kv_head_index(H: int, H_kv: int, device: torch.device | None = None) -> torch.Tensor:
    """(H,) int64: entry h is the key/value head of query head h.  x[:, :, index] expands."""
    return torch.arange(H, device=device) // group_size(H, H_kv)


def expand_kv(x: torch.Tensor, H: int) -> torch.Tensor:
    """(B, S, J, E) -> (B, S, H, E): key/value head j repeated for its g query heads.

    A view (no copy) when J == H (nothing to repeat) or J == 1 (multi-query: one head broadcast
    with stride 0).  Otherwise the result needs a copy, because an expanded (J, g) pair of axes
    cannot be merged into one strided axis; the grouped functions below avoid that copy."""
    B, S, J, E = x.shape
    g = group_size(H, J)
    if g == 1:
        return x
    if J == 1:
        return x.expand(B, S, H, E)  # stride-0 view
    return x[:, :, :, None, :].expand(B, S, J, g, E).reshape(B, S, H, E)  # copies: (J, g) -> H


def group_queries(q: torch.Tensor, H_kv: int) -> torch.Tensor:
    """(B, L, H, E) -> (B, L, J, g, E): query head h = j * g + i sits at [.., j, i, ..].
    A view whenever the head axis can be split without a copy (always after steps.split_heads)."""
    B, L, H, E = q.shape
    return q.reshape(B, L, H_kv, group_size(H, H_kv), E)


def grouped_dot_scores(q: torch.Tensor, k: torch.Tensor, scale: float) -> torch.Tensor:
    """(B, L, H, E), (B, S, J, E) -> scaled scores (B, H, L, S), without repeating k.

    The g query heads of a group are stacked along the query axis, so one batched product per
    (batch, kv head) serves the whole group: (B, J, g*L, E) @ (B, J, E, S) -> (B, J, g*L, S),
    which is (B, H, L, S) as a view.  The scale is folded into q (written once, as
    steps.dot_scores does), into the contiguous buffer the grouping needs anyway."""
    B, L, H, E = q.shape
    S, J = k.shape[1], k.shape[2]
    g = group_size(H, J)
    qg = torch.empty(B, J, g, L, E, dtype=q.dtype, device=q.device)
    src = group_queries(q, J).permute(0, 2, 3, 1, 4)  # (B, J, g, L, E), a strided view
    if scale != 1.0:
        torch.mul(src, scale, out=qg)
    else:
        qg.copy_(src)
    kt = k.permute(0, 2, 3, 1)  # (B, J, E, S), a strided view
    return (qg.view(B, J, g * L, E) @ kt).view(B, H, L, S)


def grouped_weighted_sum(weights: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """(B, H, L, S), (B, S, J, D) -> (B, L, H, D), without repeating v: a group's g heads share
    one product with their key/value head, (B, J, g*L, S) @ (B, J, S, D)."""
    B, H, L, S = weights.shape
    J, D = v.shape[2], v.shape[3]
    g = group_size(H, J)
    w = weights.reshape(B, J, g * L, S)  # a view when weights are contiguous
    out = w @ v.transpose(1, 2)  # (B, J, g*L, D)
    return out.view(B, H, L, D).transpose(1, 2)  # (B, L, H, D)
