"""Which matrix of a scenario an editor shows, and how to write cells into it (no Qt).

A `MatrixRef` names one 2-D slice of a scenario array: ``queries`` at batch item b, the query
projection's weight, the additive W_q of head h, the valid lengths...  Reading returns a
read-only view; writing returns a new Scenario with a fresh copy of only the array written
(the old scenario, held by the undo stack, is never touched).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Optional

import numpy as np

from attention import Additive, Projection, Scenario

#: Paths of every editable array; index = batch item (inputs) or head (additive W_q / W_k).
INPUTS = ("queries", "keys", "values")
PROJECTION_PARTS = tuple(f"projections.{n}.{p}" for n in ("query", "key", "value", "out") for p in ("weight", "bias"))
ADDITIVE = ("additive.W_q", "additive.W_k", "additive.w_v")


@dataclass(frozen=True)
class MatrixRef:
    path: str
    index: Optional[int] = None  # leading axis picked for 3-D arrays

    @property
    def integer(self) -> bool:
        """Valid lengths are whole numbers; everything else is a real number."""
        return self.path == "valid_lens"

    def source(self, sc: Scenario) -> Optional[np.ndarray]:
        """The whole array at `path` (None when that weight is absent)."""
        return get_array(sc, self.path)

    def view(self, sc: Scenario) -> Optional[np.ndarray]:
        """The 2-D matrix shown: a read-only view, never a copy."""
        arr = self.source(sc)
        if arr is None:
            return None
        if arr.ndim == 3:
            if self.index is None or not 0 <= self.index < arr.shape[0]:
                return None
            arr = arr[self.index]
        elif arr.ndim == 1:
            # A bias is a row added to every output row; one valid length per batch item is a column.
            arr = arr[:, None] if self.path == "valid_lens" else arr[None, :]
        elif arr.ndim != 2:
            return None
        view = arr.view()
        view.flags.writeable = False
        return view

    def with_block(self, sc: Scenario, row: int, col: int, block: np.ndarray) -> Scenario:
        """A new scenario whose matrix has `block` written at (row, col); the rest is shared."""
        arr = np.array(self.source(sc), dtype=np.float64, copy=True)
        target = arr
        if arr.ndim == 3:
            target = arr[self.index]
        elif arr.ndim == 1:
            target = arr[:, None] if self.path == "valid_lens" else arr[None, :]
        h, w = block.shape
        target[row:row + h, col:col + w] = block
        return set_array(sc, self.path, arr)


def get_array(sc: Scenario, path: str) -> Optional[np.ndarray]:
    if path in INPUTS or path == "valid_lens":
        return getattr(sc, path)
    if path.startswith("projections."):
        _, name, part = path.split(".")
        p = sc.projection(name)
        return None if p is None else getattr(p, part)
    if path.startswith("additive."):
        return None if sc.additive is None else getattr(sc.additive, path.split(".")[1])
    raise KeyError(path)


def set_array(sc: Scenario, path: str, arr: Optional[np.ndarray]) -> Scenario:
    """Scenario with the array at `path` replaced (None removes a projection or its bias)."""
    if path in INPUTS or path == "valid_lens":
        return dataclasses.replace(sc, **{path: arr})
    if path.startswith("projections."):
        _, name, part = path.split(".")
        projections = dict(sc.projections)
        p = projections.get(name)
        if part == "weight":
            projections[name] = None if arr is None else Projection(arr, None if p is None else p.bias)
        elif p is not None:
            projections[name] = Projection(p.weight, arr)
        projections = {k: v for k, v in projections.items() if v is not None}
        return dataclasses.replace(sc, projections=projections)
    if path.startswith("additive."):
        field = path.split(".")[1]
        a: Additive = sc.additive
        return dataclasses.replace(sc, additive=dataclasses.replace(a, **{field: arr}))
    raise KeyError(path)
