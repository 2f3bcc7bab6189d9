"""Masks.  One polarity everywhere: True = masked (the key is hidden from that query).

The rules themselves (causal, valid lengths; what each masks and why) are in
attention/kinds/mask_rules.py; this is their combination for callers that hold a causal flag
and a lengths tensor rather than a scenario (capture's reading of a recorded mask).
"""
from __future__ import annotations

from typing import Optional

import torch

from attention.kinds.mask_rules import causal_part, length_part


def build_mask(B: int, L: int, S: int, causal: bool, valid_lens: Optional[torch.Tensor],
               device: torch.device) -> Optional[torch.Tensor]:
    """(B, L, S) bool, True where masked; None when nothing is masked at all."""
    if not causal and valid_lens is None:
        return None
    mask = torch.zeros(B, L, S, dtype=torch.bool, device=device)
    if valid_lens is not None:
        mask |= length_part(valid_lens, L, S, device)
    if causal:
        mask |= causal_part(L, S, device)
    return mask
