"""A drawn mask: a boolean matrix per batch item, painted cell by cell (True = masked).

It is data, not a rule with a formula, so the only math is keeping it the right shape: when the
scenario's batch, L or S change, the cells that still fit keep their value and new cells start
unmasked (False), so a resize never hides a key nobody painted.  Shrinking drops the cells that
no longer fit; growing back does not bring them back (the drawing is what is stored now).

Shapes: B batch, L queries, S keys.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Optional

import numpy as np

from attention.datamodel.fields import Field

if TYPE_CHECKING:  # torch loads when first computing (the registry is read before torch has loaded)
    import torch


def empty(B: int, L: int, S: int, device: torch.device | None = None) -> torch.Tensor:
    """(B, L, S) bool, nothing masked."""
    import torch

    return torch.zeros(B, L, S, dtype=torch.bool, device=device)


def resize(mask: torch.Tensor, B: int, L: int, S: int) -> torch.Tensor:
    """(B0, L0, S0) -> (B, L, S): the top-left min(B0, B) x min(L0, L) x min(S0, S) block kept,
    the rest False.  Always a new tensor (the drawing may be edited in place afterwards)."""
    out = empty(B, L, S, mask.device)
    b, l, s = min(B, mask.shape[0]), min(L, mask.shape[1]), min(S, mask.shape[2])
    out[:b, :l, :s] = mask[:b, :l, :s]
    return out


def resize_array(mask: np.ndarray, B: int, L: int, S: int) -> np.ndarray:
    """`resize` for a numpy (B0, L0, S0) bool array (the editors, which do not load torch)."""
    out = np.zeros((B, L, S), dtype=bool)
    b, l, s = min(B, mask.shape[0]), min(L, mask.shape[1]), min(S, mask.shape[2])
    out[:b, :l, :s] = mask[:b, :l, :s]
    return out


def paint(mask: torch.Tensor, cells: list[tuple[int, int, int]], value: bool) -> torch.Tensor:
    """A copy of mask with the (b, l, s) cells set to value: one stroke = one new tensor, so the
    undo stack can keep the one before."""
    out = mask.clone()
    if cells:
        import torch

        idx = torch.tensor(cells, dtype=torch.int64, device=mask.device)  # (n, 3)
        out[idx[:, 0], idx[:, 1], idx[:, 2]] = value
    return out


def as_mask(cells, B: int, L: int, S: int) -> torch.Tensor:
    """Nested lists / an array of 0/1 or bools, shape (B, L, S) -> (B, L, S) bool.

    Raises ValueError naming the expected shape; the kind's problems() turns that into words."""
    import torch

    t = torch.as_tensor(cells)
    if tuple(t.shape) != (B, L, S):
        raise ValueError(f"drawn mask has shape {tuple(t.shape)}, expected {(B, L, S)}")
    if t.dtype != torch.bool:
        if not torch.all((t == 0) | (t == 1)):
            raise ValueError("drawn mask cells must be 0 or 1")
        t = t != 0
    return t


# ---- the mask rule (attention/kinds/base.py MaskRule) --------------------------------------------
# A part of the scenario: Part("drawn", {"mask": (B, L, S) bool}).  The trace's options keep the
# painted cells as a list of [b, l, s] (JSON-safe, short for a drawing) so that explain can say,
# from the options alone, whether a cell was painted.

def _drawings(sc: Any) -> list[np.ndarray]:
    """The (B, L, S) bool arrays of the scenario's drawn parts."""
    from attention.datamodel import parts

    return [np.asarray(parts.value(p, DRAWN.fields[0])) != 0 for p in parts.of(sc, "masks")
            if isinstance(p, parts.Part) and p.kind == DRAWN.name and parts.value(p, DRAWN.fields[0]) is not None]


def _option_cells(options: Mapping[str, Any]) -> Optional[set[tuple[int, int, int]]]:
    """The painted cells of a trace's drawn parts; None when the trace has no drawn part."""
    drawn = [m for m in options.get("masks") or () if m.get("kind") == DRAWN.name]
    if not drawn:
        return None
    return {(int(b), int(l), int(s)) for m in drawn for b, l, s in m.get("cells") or ()}


class Drawn:
    """A boolean matrix per batch item, painted with the mouse; True = masked."""

    name = "drawn"
    attribute = None  # a part of the scenario (Scenario.masks)
    combines = True  # several drawings: a cell masked in any of them is masked (attention.compute.check.repeats)
    fields = (Field("masks.mask", "matrix", "field.masks.drawn.mask.label", "field.masks.drawn.mask.help",
                    group="masks"),)
    lesson_key = "lesson.extra.mask.drawn"

    def applies(self, sc: Any) -> bool:
        return bool(_drawings(sc))

    def applies_to(self, options: Mapping[str, Any]) -> bool:
        return _option_cells(options) is not None

    def mask(self, sc: Any, B: int, L: int, S: int, dev=None) -> "torch.Tensor":
        import torch

        out = empty(B, L, S, dev)
        for cells in _drawings(sc):
            out |= torch.as_tensor(cells, device=dev)  # (B, L, S)
        return out

    def option_values(self, part: Any) -> dict[str, Any]:
        """What the trace's options keep of a drawn part: its painted cells, [[b, l, s], ...]."""
        cells = part.get("mask")
        return {"cells": [] if cells is None else np.argwhere(np.asarray(cells) != 0).tolist()}

    def reason(self, options: Mapping[str, Any], b: int, l: int, s: int) -> Optional[tuple[bool, dict[str, str]]]:
        cells = _option_cells(options)
        if cells is None:
            return None
        from attention.datamodel.numbers import position as P
        from attention.kinds.mask_rules import _explain_words

        key = "explain.mask.drawn" if (b, l, s) in cells else "explain.mask.not_drawn"
        return (b, l, s) in cells, _explain_words(key, s=P(s), l=P(l), b=P(b))

    def script(self, sc: Any) -> str:
        return "".join(f"drawn = torch.tensor({cells.astype(int).tolist()}, dtype=torch.bool)  # painted, (B, L, S)\n"
                       "mask |= drawn\n" for cells in _drawings(sc))

    def part_problems(self, sc: Any, part: Any, path: str, kinds: Any) -> list:
        """The drawing must be (B, L, S) of 0/1 (or bools), B, L, S the scenario's."""
        from attention.datamodel.problem import Problem
        from attention.datamodel.problem import shape as _shape

        cells = part.get("mask")
        where = f"{path}.mask"
        if cells is None:
            return [Problem("required", where)]
        try:
            a = np.asarray(cells, dtype=float)
        except (TypeError, ValueError):
            return [Problem("drawn_cells", where)]
        want = (sc.batch, sc.L, sc.S)
        if a.shape != want:
            return [Problem("drawn_shape", where, {"want": _shape(want), "got": _shape(a.shape)})]
        if not np.all((a == 0) | (a == 1)):
            return [Problem("drawn_cells", where)]
        return []

    def problems(self, sc: Any) -> list:
        return []  # a part's own checks are part_problems (attention/datamodel/parts.py calls them)


DRAWN = Drawn()
