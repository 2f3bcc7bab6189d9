"""Masks.  One polarity everywhere: True = masked (the key is hidden from that query).

d2l valid lengths: key position s is masked when s >= len, with one length per batch item
(B,) or per batch item and query row (B, L).  Causal: key s is masked when s > l, aligned at
the top-left when L != S (as TriangularCausalMask and scaled_dot_product_attention's is_causal).
"""
from __future__ import annotations

from typing import Optional

import torch


def build_mask(B: int, L: int, S: int, causal: bool, valid_lens: Optional[torch.Tensor],
               device: torch.device) -> Optional[torch.Tensor]:
    """(B, L, S) bool, True where masked; None when nothing is masked at all."""
    if not causal and valid_lens is None:
        return None
    s = torch.arange(S, device=device)  # (S,)
    mask = torch.zeros(B, L, S, dtype=torch.bool, device=device)
    if valid_lens is not None:
        lens = valid_lens.to(device=device, dtype=torch.float64)
        lens = lens[:, None].expand(B, L) if lens.dim() == 1 else lens  # (B, L)
        mask |= s[None, None, :] >= lens[:, :, None]
    if causal:
        l = torch.arange(L, device=device)
        mask |= (s[None, :] > l[:, None])[None]  # (1, L, S)
    return mask
