"""A drawn mask: a boolean matrix per batch item, painted cell by cell (True = masked).

It is data, not a rule with a formula, so the only math is keeping it the right shape: when the
scenario's batch, L or S change, the cells that still fit keep their value and new cells start
unmasked (False), so a resize never hides a key nobody painted.  Shrinking drops the cells that
no longer fit; growing back does not bring them back (the drawing is what is stored now).

Shapes: B batch, L queries, S keys.
"""
from __future__ import annotations

import torch


def empty(B: int, L: int, S: int, device: torch.device | None = None) -> torch.Tensor:
    """(B, L, S) bool, nothing masked."""
    return torch.zeros(B, L, S, dtype=torch.bool, device=device)


def resize(mask: torch.Tensor, B: int, L: int, S: int) -> torch.Tensor:
    """(B0, L0, S0) -> (B, L, S): the top-left min(B0, B) x min(L0, L) x min(S0, S) block kept,
    the rest False.  Always a new tensor (the drawing may be edited in place afterwards)."""
    out = empty(B, L, S, mask.device)
    b, l, s = min(B, mask.shape[0]), min(L, mask.shape[1]), min(S, mask.shape[2])
    out[:b, :l, :s] = mask[:b, :l, :s]
    return out


def paint(mask: torch.Tensor, cells: list[tuple[int, int, int]], value: bool) -> torch.Tensor:
    """A copy of mask with the (b, l, s) cells set to value: one stroke = one new tensor, so the
    undo stack can keep the one before."""
    out = mask.clone()
    if cells:
        idx = torch.tensor(cells, dtype=torch.int64, device=mask.device)  # (n, 3)
        out[idx[:, 0], idx[:, 1], idx[:, 2]] = value
    return out


def as_mask(cells, B: int, L: int, S: int) -> torch.Tensor:
    """Nested lists / an array of 0/1 or bools, shape (B, L, S) -> (B, L, S) bool.

    Raises ValueError naming the expected shape; the kind's problems() turns that into words."""
    t = torch.as_tensor(cells)
    if tuple(t.shape) != (B, L, S):
        raise ValueError(f"drawn mask has shape {tuple(t.shape)}, expected {(B, L, S)}")
    if t.dtype != torch.bool:
        if not torch.all((t == 0) | (t == 1)):
            raise ValueError("drawn mask cells must be 0 or 1")
        t = t != 0
    return t
