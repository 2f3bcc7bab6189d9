"""Which matrix of a scenario an editor shows, and how to write cells into it (no Qt).

A `MatrixRef` names one 2-D slice of a scenario array: ``queries`` at batch item b, the query
projection's weight, the additive W_q of head h, the valid lengths, a part's matrix field
(``modifiers.destationary.tau``: family, kind, field; only the fields its kind lists in
`editable`)...  Reading returns a read-only view; writing returns a new Scenario with a fresh
copy of only the array written (the old scenario, held by the undo stack, is never touched).
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

    def cell_problem(self, sc: Scenario, row: int, col: int, value: float):
        """The problem (attention.datamodel.problem.Problem, naming the field) that writing `value` at (row,
        col) of a part's matrix would make, by the part's kind's own checks; None when it is fine or
        the matrix is not a part's.  Why ask the kind: τ ≤ 0 is a problem of DSAttention's, not of
        the editor's."""
        if part_path(self.path) is None:
            return None
        from attention.compute import check

        candidate = self.with_block(sc, row, col, np.array([[float(value)]]))
        where = problem_path(sc, self.path)
        return next((p for p in check.part_problems(candidate) if p.path == where or p.path.startswith(where + "[")),
                    None)

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


def part_path(path: str) -> Optional[tuple[str, str, str]]:
    """(family, kind, field) of a part's matrix path ("modifiers.destationary.tau"), else None."""
    from attention.datamodel import parts

    bits = path.split(".")
    return (bits[0], bits[1], bits[2]) if len(bits) == 3 and bits[0] in parts.FAMILIES else None


def problem_path(sc: Scenario, path: str) -> str:
    """How a problem names a part's matrix: "modifiers[0].tau" (the first part of that kind)."""
    from attention.datamodel import parts

    family, kind, field = part_path(path)
    i = next(i for i, p in enumerate(parts.of(sc, family)) if getattr(p, "kind", None) == kind)
    return f"{family}[{i}].{field}"


def part_matrices(sc: Scenario) -> list[tuple[str, str]]:
    """(path, field label key) of every editable matrix of the scenario's parts, in their order:
    the kinds say which (`editable`: DSAttention's τ and Δ, Crossformer's router)."""
    from attention.datamodel import parts
    from attention.registry import kinds

    out = []
    for family in parts.FAMILIES:
        table = kinds.of_family(family)
        for part in parts.of(sc, family):
            kind = table.get(getattr(part, "kind", None))
            fields = {f.name: f for f in getattr(kind, "fields", ())}
            for name in getattr(kind, "editable", ()):
                path = f"{family}.{part.kind}.{name}"
                if get_array(sc, path) is not None and path not in (p for p, _ in out):
                    out.append((path, fields[name].label))
    return out


def get_array(sc: Scenario, path: str) -> Optional[np.ndarray]:
    if part_path(path) is not None:
        from attention.datamodel import parts
        from attention.registry import kinds

        family, kind, field = part_path(path)
        part = parts.find(sc, family, kind)
        v = None if part is None else part.get(field)
        if v is None and part is not None:  # left out: the library's default, shown to be edited (τ = 1, Δ = 0)
            default = getattr(kinds.of_family(family).get(kind), "default_matrix", None)
            v = None if default is None else default(sc, field)
        return None if v is None else np.asarray(v, dtype=np.float64)
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
    if part_path(path) is not None:
        from attention.datamodel import parts

        family, kind, field = part_path(path)
        used = list(parts.of(sc, family))
        i = next(i for i, p in enumerate(used) if getattr(p, "kind", None) == kind)
        used[i] = parts.Part(kind, {**used[i].values, field: arr})
        return dataclasses.replace(sc, **{family: tuple(used)})
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
