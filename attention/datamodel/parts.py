"""The composed scenario's generic parts: one kind used by a scenario, with its field values.

A scenario lists its position encodings (RoPE), score modifiers (ALiBi, soft-capping, sinks) and
extra mask rules (windows, drawn masks) as parts: ``Part(ROPE.name, {"base": 10000.0})``.  Why
generic: a new kind then needs no new attribute on Scenario, no new branch in the checks and no
new control written by hand; its module declares its fields (attention/datamodel/fields.py) and this
module checks a part's values against them, naming the field (``positions[0].base``).

The families and their tables are in attention/registry/kinds.py (POSITIONS, MODIFIERS,
MASK_RULES).  Causal masking and valid lengths stay the scenario's own attributes (`causal`,
`valid_lens`): every version-1 file and caller uses them.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from typing import Any, Mapping

from attention.datamodel.fields import Field
from attention.datamodel.problem import Problem, elide, literal

#: scenario attribute -> the kinds' table it names kinds of (attention/registry/kinds.py)
FAMILIES: tuple[str, ...] = ("positions", "modifiers", "masks")


@dataclass(frozen=True)
class Part:
    """One kind (`kind`: its name in its family's table) and its field values (by field name);
    a field left out takes its default."""

    kind: str
    values: Mapping[str, Any] = field(default_factory=dict)

    def get(self, name: str, default: Any = None) -> Any:
        return self.values.get(name, default)


def of(sc: Any, family: str) -> tuple[Part, ...]:
    """The scenario's parts of one family (none for an object without that attribute)."""
    return tuple(getattr(sc, family, ()) or ())


def find(sc: Any, family: str, kind: str):
    """The scenario's first part of kind `kind` in `family`, or None."""
    return next((p for p in of(sc, family) if isinstance(p, Part) and p.kind == kind), None)


def present(family: str, kind: str):
    """The `active` predicate of a kind's own step records: the scenario has a part of that kind."""
    def active(sc: Any, kinds: Any) -> bool:
        return find(sc, family, kind) is not None
    active.__qualname__ = f"present[{family}.{kind}]"
    return active


def value(part: Part, f: Field) -> Any:
    """A field's value in a part: the part's own, or the field's default."""
    return part.values.get(f.name, f.default)


def field_problem(f: Field, v: Any, path: str):
    """The problem with value `v` of field `f` (named by `path`), or None when it is allowed."""
    if v is None:
        return None if f.nullable or f.type == "matrix" else Problem("required", path)
    if f.type == "bool":
        return None if isinstance(v, bool) else Problem("expected_bool", path, {"got": _quoted(v)})
    if f.type == "choice":
        if v in f.choices:
            return None
        return Problem("expected_choice", path, {"choices": ", ".join(map(str, f.choices)), "got": _quoted(v)})
    if f.type == "int":
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            return Problem("expected_int", path, {"minimum": _bound(f.minimum), "got": _quoted(v)})
    elif f.type == "float":
        if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v):
            return Problem("expected_finite", path, {"got": _quoted(v)})
    else:
        return None  # a matrix: its kind checks its shape
    low = f.minimum if f.minimum is not None else -math.inf
    high = f.maximum if f.maximum is not None else math.inf
    if not low <= v <= high:
        return Problem("expected_int_range" if f.type == "int" else "part_range", path,
                       {"minimum": _bound(low), "maximum": _bound(high), "got": _quoted(v)})
    return None


def _bound(x: float) -> str:
    return "−∞" if x == -math.inf else "∞" if x == math.inf else literal(int(x)) if float(x).is_integer() else repr(x)


def _quoted(v: Any) -> str:
    return elide(literal(v))


