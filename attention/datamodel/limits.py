"""One rule for every size or number a file or an argument sets: within its bound, checked before
anything is allocated, generated or computed from it; refused in one line naming the field and the
bound, in both languages.

The bounds live where they mean something (one home each): a scenario field's range in its Field
(attention/fields.py, each kind's fields), INT_MAX for every size, count and seed, an option's own
bound next to the option (trace_out.MAX_INDENT, tiles.MAX_BLOCKS ...).  This module holds only the
rule and the words of "what was expected", so that the loader, the importers (Hugging Face configs,
GGUF metadata) and the command line all refuse the same value the same way:

    bad = limits.outside(value, 1, limits.INT_MAX)      # None, or the Phrase of what was expected
    bad = limits.outside_field(ROPE_BASE, value)        # a kind's Field: its own range
    raise CheckpointError("models.error.family_field", field="head_dim", value=..., expected=bad)

`expected` is an attention.datamodel.problem.Phrase: rendered in the language of the line it goes into.
"""
from __future__ import annotations

import math
import numbers
from typing import Any, Optional

from attention.datamodel.fields import INT_MAX, Field
from attention.datamodel.problem import Phrase

__all__ = ["INT_MAX", "outside", "outside_field", "is_whole", "shown"]


def is_whole(value: Any) -> bool:
    """A whole number that is not a bool (JSON true is no size)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _bound(x: float) -> str:
    if isinstance(x, float) and x.is_integer() and abs(x) < 2 ** 53:
        x = int(x)
    return f"{x:,}" if isinstance(x, int) and abs(x) >= 10_000 else f"{x:g}" if isinstance(x, float) else str(x)


def outside(value: Any, minimum: float, maximum: float, whole: bool = True) -> Optional[Phrase]:
    """None when `value` is a whole number (or, `whole=False`, a finite number) from `minimum` to
    `maximum`; else the Phrase saying what was expected."""
    if whole:
        ok = is_whole(value) and minimum <= value <= maximum
        return None if ok else Phrase("range_whole", {"minimum": _bound(minimum), "maximum": _bound(maximum)})
    ok = (isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)
          and minimum <= value <= maximum)
    return None if ok else Phrase("range_number", {"minimum": _bound(minimum), "maximum": _bound(maximum)})


def outside_field(f: Field, value: Any) -> Optional[Phrase]:
    """The same rule with a scenario Field's own range (so an importer never writes what the loader refuses)."""
    low = -math.inf if f.minimum is None else f.minimum
    high = (INT_MAX if f.type == "int" else math.inf) if f.maximum is None else f.maximum
    return outside(value, low, high, whole=f.type == "int")


def shown(value: Any, chars: int = 40) -> str:
    """A value as a refusal quotes it (as Python writes it: 'yarn', True), short whatever it is: a
    4,000-digit int by its size, a long list cut."""
    from attention.datamodel.problem import elide, literal

    if is_whole(value) or isinstance(value, (list, tuple, dict)):
        return elide(literal(value), chars)
    return elide(repr(value), chars)
