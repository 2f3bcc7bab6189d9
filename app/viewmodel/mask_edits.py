"""The mask parts of a scenario as the editors change them: the drawn mask (Part("drawn", {"mask":
(B, L, S) bool}), attention/kinds/drawn.py) and the sliding window (Part("window")).  Qt-free.

Why here and not in the painter: a stroke, a cleared batch item and a resize are edits of the
immutable Scenario, each giving a new one that the document pushes as one undo step; keeping
them free of Qt lets tests check them cell by cell and lets `edits.conform` keep the drawing the
scenario's shape whenever B, L or S change (the cells that still fit keep their value:
attention.kinds.drawn.resize).
"""
from __future__ import annotations

import dataclasses
from typing import Iterable, Optional

import numpy as np

from attention import Scenario
from attention.datamodel.parts import Part

KIND = "drawn"


def _index(sc: Scenario) -> Optional[int]:
    """Where the scenario's drawn part sits in `sc.masks`, or None."""
    for i, part in enumerate(sc.masks or ()):
        if isinstance(part, Part) and part.kind == KIND:
            return i
    return None


def drawing(sc: Scenario) -> Optional[np.ndarray]:
    """The drawn mask (B, L, S) bool (a copy), or None when the scenario has none."""
    i = _index(sc)
    if i is None or sc.masks[i].get("mask") is None:
        return None
    return np.asarray(sc.masks[i].get("mask")) != 0


def with_drawing(sc: Scenario, mask: Optional[np.ndarray]) -> Scenario:
    """`sc` with its drawn mask set to `mask` (added when it had none; None removes the part)."""
    masks = list(sc.masks or ())
    i = _index(sc)
    if mask is None:
        if i is None:
            return sc
        del masks[i]
    else:
        part = Part(KIND, {"mask": np.asarray(mask, dtype=bool)})
        if i is None:
            masks.append(part)
        else:
            masks[i] = part
    return dataclasses.replace(sc, masks=tuple(masks))


def stroke(sc: Scenario, batch: int, cells: Iterable[tuple[int, int]], value: bool) -> Scenario:
    """`sc` with the (query row, key column) `cells` of batch item `batch` painted `value`
    (True = masked); cells outside (L, S) are ignored.  A scenario without a drawing gets one."""
    B, L, S = sc.batch, sc.L, sc.S
    old = drawing(sc)
    mask = np.zeros((B, L, S), dtype=bool) if old is None or old.shape != (B, L, S) else old.copy()
    for r, c in cells:
        if 0 <= batch < B and 0 <= r < L and 0 <= c < S:
            mask[batch, r, c] = value
    if old is not None and old.shape == mask.shape and np.array_equal(old, mask):
        return sc
    return with_drawing(sc, mask)


def fitted(sc: Scenario) -> Scenario:
    """`sc` with its drawing resized to its (B, L, S): the cells that still fit keep their value,
    new cells start unmasked (attention.kinds.drawn.resize_array)."""
    old = drawing(sc)
    if old is None or old.ndim != 3 or old.shape == (sc.batch, sc.L, sc.S):
        return sc
    from attention.kinds import drawn

    return with_drawing(sc, drawn.resize_array(old, sc.batch, sc.L, sc.S))


# ---- the sliding window (Part("window", {"size": W}), attention/kinds/window.py) -----------------

def window_size(sc: Scenario) -> Optional[int]:
    """The scenario's window W, or None when it has no window part."""
    for part in sc.masks or ():
        if isinstance(part, Part) and part.kind == "window":
            return part.get("size")
    return None


def with_window(sc: Scenario, size: Optional[int]) -> Scenario:
    """`sc` with its window set to `size` (added when it had none; None removes it)."""
    masks = [p for p in sc.masks or () if not (isinstance(p, Part) and p.kind == "window")]
    if size is not None:
        masks.append(Part("window", {"size": int(size)}))
    return sc if window_size(sc) == size else dataclasses.replace(sc, masks=tuple(masks))
