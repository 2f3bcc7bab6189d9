"""Where a plain option's value lives in today's Scenario, and how an edit of it reaches one.

The Parameters panel's generic controls (app/editing/field_controls.py) know only Field records;
this module is the one place that maps a record to the scenario: reading its value, the value
"auto" stands for, the scenario after an edit, and which fields the current scoring kind shows.
When the scenario's kind parameters move into generic parts (attention/kinds/), these functions
become look-ups in the part and the kinds registry, and the panel does not change.
"""
from __future__ import annotations

from typing import Any

from app.viewmodel import edits
from attention import Scenario, kinds
from attention.fields import Field

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
        return sc.resolved_scale()
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
