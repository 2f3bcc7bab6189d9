"""Where a plain option's value lives in today's Scenario, and how an edit of it reaches one.

The Parameters panel's generic controls (app/editing/field_controls.py) know only Field records;
this module is the one place that maps a record to the scenario: reading its value, the value
"auto" stands for, the scenario after an edit, and which fields the current scoring kind shows.
When the scenario's kind parameters move into generic parts (attention/kinds/), these functions
become look-ups in the part and the kinds registry, and the panel does not change.
"""
from __future__ import annotations

import dataclasses
from typing import Any

from app.viewmodel import edits
from attention import Scenario
from attention.compute import check
from attention.datamodel import parts
from attention.datamodel.fields import Field
from attention.registry import kinds

#: Fields whose edit resizes or regenerates arrays (weights, additive weights, a recorded key
#: sample): the edit replaces the scenario (conform).  Every other field is a plain option the
#: document sets on its own (undo keeps only the old and new value).
RESHAPING = frozenset({"n_heads", "n_kv_heads", "d_keys", "d_values", "scoring", "hidden", "factor", "seed"})


def fields_for_scoring(kind: str) -> tuple[Field, ...]:
    """The options a scoring kind adds to the panel, shown only while that kind is chosen.

    The one place that decides it: the kind's own plain fields (its matrices are edited in the
    Inputs region); a name no kind has shows none."""
    if not kinds.known_scoring(kind):
        return ()
    return tuple(f for f in kinds.SCORING[kind].fields if f.type != "matrix")


def value(sc: Scenario, field: Field) -> Any:
    """The value `field` has in `sc` (None: "auto", or a part the scenario does not have)."""
    if field.name == "hidden":
        return sc.additive.hidden if sc.additive is not None else None
    return getattr(sc, field.name)


def auto_value(sc: Scenario, field: Field) -> Any:
    """The value a nullable field takes when left on auto (the scale 1/sqrt(d_k) or 1); raises
    ValueError or ZeroDivisionError when the scenario cannot say (a broken head split)."""
    if field.name == "scale":
        return check.resolved_scale(sc)
    if field.name in ("d_keys", "d_values"):
        return sc.dk if field.name == "d_keys" else sc.dv
    if field.name == "n_kv_heads":
        return sc.n_heads  # auto: one key/value head per query head
    raise ValueError(f"{field.key} has no automatic value")


def reshapes(field: Field) -> bool:
    return field.name in RESHAPING


def with_value(sc: Scenario, field: Field, new: Any) -> Scenario:
    """`sc` with `field` set to `new` and everything that depends on it resized (for the
    RESHAPING fields; the others go through Document.set_option)."""
    if field.name == "scoring":
        return edits.with_scoring(sc, new)
    if field.name == "hidden":
        return edits.with_hidden(sc, new) if sc.additive is not None else sc
    return edits.with_fields(sc, **{field.name: new})


# ---- generic parts (positions, score modifiers, extra mask rules) ------------------------------
# A kind shows in the panel's "Position & modifiers" group when its object says `in_panel = True`:
# kinds whose part means nothing without matrices (sinks' logits, drawn masks...) leave it unset.

def panel_kinds() -> tuple[tuple[str, str], ...]:
    """(family, kind name) of every kind the panel offers as a check box, in the tables' order."""
    return tuple((family, name) for family in parts.FAMILIES for name, kind in kinds.of_family(family).items()
                 if getattr(kind, "in_panel", False))


def part_fields(family: str, kind: str) -> tuple[Field, ...]:
    """A kind's plain fields (its matrices are not edited here)."""
    return tuple(f for f in kinds.of_family(family)[kind].fields if f.type != "matrix")


def kind_words(family: str, kind: str) -> tuple[str, str]:
    """Catalogue keys of a kind's check box: its name and its tooltip."""
    return f"parts.kind.{kind}", f"parts.kind.{kind}.help"


def has_part(sc: Scenario, family: str, kind: str) -> bool:
    return parts.find(sc, family, kind) is not None


def part_value(sc: Scenario, family: str, kind: str, field: Field) -> Any:
    """A field's value in the scenario's part of `kind` (its default when the part has none)."""
    part = parts.find(sc, family, kind)
    return field.default if part is None else parts.value(part, field)


def _start_value(kind: Any, field: Field) -> Any:
    """The value a new part starts with: the field's default, the kind's `panel_start`, or the minimum."""
    if field.default is not None or field.nullable:
        return field.default
    start = getattr(kind, "panel_start", {})
    if field.name in start:
        return start[field.name]
    return int(field.minimum) if field.type == "int" and field.minimum is not None else field.minimum


def with_part(sc: Scenario, family: str, kind: str, on: bool) -> Scenario:
    """`sc` with a part of `kind` added (its required values filled in) or every such part removed."""
    used = parts.of(sc, family)
    if on:
        if has_part(sc, family, kind):
            return sc
        obj = kinds.of_family(family)[kind]
        values = {f.name: _start_value(obj, f) for f in obj.fields if f.default is None and not f.nullable}
        return dataclasses.replace(sc, **{family: used + (parts.Part(kind, values),)})
    kept = tuple(p for p in used if getattr(p, "kind", None) != kind)
    return sc if len(kept) == len(used) else dataclasses.replace(sc, **{family: kept})


def with_part_value(sc: Scenario, family: str, kind: str, field: Field, new: Any) -> Scenario:
    """`sc` with `field` of its part of `kind` set to `new` (unchanged when it has no such part)."""
    used = parts.of(sc, family)
    for i, p in enumerate(used):
        if getattr(p, "kind", None) == kind:
            changed = parts.Part(kind, {**p.values, field.name: new})
            return dataclasses.replace(sc, **{family: used[:i] + (changed,) + used[i + 1:]})
    return sc


def part_problem_key(family: str, field: Field) -> str:
    """The key app.editing.problems.control_key gives a problem of this field ('positions[0].base' ->
    'positions.base')."""
    return f"{family}.{field.name}"
