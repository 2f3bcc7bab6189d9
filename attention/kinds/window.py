"""Sliding-window attention (Mistral, Gemma 2/3 local layers, gpt-oss): a query sees only the last
W keys, itself included.

transformers (masking_utils.sliding_window_causal_mask_function) keeps key s for query l when
    s <= l            (causal_mask_function: kv_idx <= q_idx)
and s > l - W         (sliding_window_overlay: kv_idx > q_idx - sliding_window)
so query l sees s in (l - W, l]: exactly W keys once l >= W - 1 (its own and W - 1 before it).
Its flash-attention path agrees: window_size = (W - 1, ...) counts W - 1 keys to the left plus
the query's own.  (transformers before the masking_utils rewrite let the flash path see W + 1
keys while eager saw W; the eager/sdpa semantics above are the ones every current path shares.)

This rule masks only the "too far back" part, s <= l - W; the future part s > l is the causal
rule's, so that explain can say which rule hid a cell.  Sliding-window models always run it with
the causal rule (as transformers ANDs the two).  Top-left aligned like masks.build_mask's causal
rule: query row l is position l, key column s is position s.

Shapes: B batch, L queries, S keys.  True = masked, as everywhere in the engine.
"""
from __future__ import annotations

import torch


def window_mask(L: int, S: int, W: int, device: torch.device | None = None) -> torch.Tensor:
    """(L, S) bool: True where key s is more than W - 1 positions before query l (s <= l - W)."""
    if W < 1:
        raise ValueError(f"window={W} must be >= 1")
    l = torch.arange(L, device=device)[:, None]  # (L, 1)
    s = torch.arange(S, device=device)[None, :]  # (1, S)
    return s <= l - W  # (L, S)


def sliding_window_causal_mask(L: int, S: int, W: int, device: torch.device | None = None) -> torch.Tensor:
    """(L, S) bool: the whole Mistral mask, window and causal together (visible iff l - W < s <= l)."""
    l = torch.arange(L, device=device)[:, None]
    s = torch.arange(S, device=device)[None, :]
    return window_mask(L, S, W, device) | (s > l)


def masked_by_window(l: int, s: int, W: int) -> bool:
    """The rule for one cell, for explain: is key s too far back for query l?"""
    return s <= l - W
