"""The composed scenario's generic parts: one kind used by a scenario, with its field values.

A scenario lists its position encodings (RoPE), score modifiers (ALiBi, soft-capping, sinks) and
extra mask rules (windows, drawn masks) as parts: ``Part("rope", {"base": 10000.0})``.  Why
generic: a new kind then needs no new attribute on Scenario, no new branch in the checks and no
new control written by hand; its module declares its fields (attention/fields.py) and this
module checks a part's values against them, naming the field (``positions[0].base``).

The families and their tables are in attention/kinds/__init__.py (POSITIONS, MODIFIERS,
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

#: scenario attribute -> the kinds' table it names kinds of (attention/kinds/__init__.py)
FAMILIES: tuple[str, ...] = ("positions", "modifiers", "masks")


@dataclass(frozen=True)
class Part:
    """One kind (`kind`: its name in its family's table) and its field values (by field name);
    a field left out takes its default."""

    kind: str
    values: Mapping[str, Any] = field(default_factory=dict)

    def get(self, name: str, default: Any = None) -> Any:
        return self.values.get(name, default)


def table(family: str) -> Mapping[str, Any]:
    """The kinds a part of `family` ("positions", "modifiers", "masks") may name.  Mask rules kept
    in a scenario attribute of their own (`causal`, `valid_lens`: rule.attribute) are set there."""
    from attention.registry import kinds

    if family == "masks":
        return {n: r for n, r in kinds.MASK_RULES.items() if getattr(r, "attribute", None) is None}
    return {"positions": kinds.POSITIONS, "modifiers": kinds.MODIFIERS}[family]


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


def problems(sc: Any, kinds: Any = None) -> list[Problem]:
    """Every part that names no known kind, holds a field its kind does not have, or a value its
    field does not allow; then each kind's own checks (`kind.part_problems(sc, part, path, kinds)`;
    `kinds`: the kind objects `sc` uses, resolved from the table when not given)."""
    errs: list[Problem] = []
    for family in FAMILIES:
        used = of(sc, family)
        if not used:
            continue  # the engine asks on every edit: a scenario without parts costs nothing here
        known = table(family)
        for i, part in enumerate(used):
            path = f"{family}[{i}]"
            if not isinstance(part, Part) or part.kind not in known:
                got = part.kind if isinstance(part, Part) else part
                errs.append(Problem("expected_choice", path, {"choices": ", ".join(known) or "—",
                                                              "got": _quoted(got)}))
                continue
            kind = known[part.kind]
            fields = {f.name: f for f in kind.fields}
            for name in part.values:
                if name not in fields:
                    errs.append(Problem("unknown_field", f"{path}.{name}", {"allowed": ", ".join(fields) or "—"}))
            for f in kind.fields:
                bad = field_problem(f, value(part, f), f"{path}.{f.name}")
                if bad is not None:
                    errs.append(bad)
            check = getattr(kind, "part_problems", None)
            if check is not None and not errs:
                if kinds is None:
                    from attention.registry import kinds as kind_table

                    kinds = kind_table.resolve(sc)
                errs += check(sc, part, path, kinds)
    return errs


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


def options(sc: Any) -> dict[str, list[dict[str, Any]]]:
    """The parts as trace options (JSON-safe): family -> [{"kind": name, field: value, ...}], for
    the families the scenario uses."""
    out = {}
    for family in FAMILIES:
        if not of(sc, family):
            continue  # a trace names only the families its scenario uses
        known = table(family)
        out[family] = [{"kind": p.kind, **{f.name: value(p, f) for f in known[p.kind].fields if f.type != "matrix"},
                        **_option_values(known[p.kind], p)} for p in of(sc, family)]
    return out


def _option_values(kind: Any, part: Part) -> dict[str, Any]:
    """What a kind keeps of a part's matrices in the trace's options (a drawn mask's painted
    cells: `kind.option_values(part)`), so explain can read them from the options alone."""
    extra = getattr(kind, "option_values", None)
    return extra(part) if extra is not None else {}
