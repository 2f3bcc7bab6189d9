"""How numbers read inside a heatmap cell and in the hover line.  Qt-free.

Cells are small, so `compact` spends at most a few characters (``0.7071``, ``-1e6``, ``-∞``);
the hover line and the CSV export must never round, so `exact` gives the shortest text that
reads back to the same float (Python's repr), with the infinities spelt as a class reads them.
"""
from __future__ import annotations

import math

NOT_COMPUTED = "n/c"
NAN_TEXT = "NaN"


def _tidy_exponent(text: str) -> str:
    """'1.50e+06' -> '1.5e6', '-1e-04' -> '-1e-4': the shortest honest scientific form."""
    mantissa, _, exp = text.partition("e")
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}e{int(exp)}"


def compact(value: float, digits: int = 4) -> str:
    """A cell label with at most `digits` significant digits.

    Large and tiny magnitudes switch to scientific form so the -1e6 fill value reads "-1e6"
    rather than "-1000000"; a rounded zero never shows a sign.  Memoised: after an edit most
    cells print the same numbers again (-0.0 and 0.0 share an entry: both print "0")."""
    v = float(value)
    key = (v, digits)
    text = _COMPACT.get(key)
    if text is None:
        text = _compact(v, digits)
        if v == v:  # NaN never equals a key: not worth keeping
            if len(_COMPACT) > 65536:
                _COMPACT.clear()
            _COMPACT[key] = text
    return text


_COMPACT: dict[tuple[float, int], str] = {}


def compact_many(values: list, digits: int = 4, nan_text: str = NAN_TEXT) -> list[str]:
    """`compact` for a whole matrix (values: Python floats, e.g. from ndarray.tolist()), NaN
    printed as `nan_text`; one dictionary look-up per number once they have been seen."""
    memo = _COMPACT
    out = []
    for v in values:
        text = memo.get((v, digits))
        if text is None:
            text = nan_text if v != v else compact(v, digits)
        out.append(text)
    return out


def _compact(v: float, digits: int) -> str:
    if math.isnan(v):
        return NAN_TEXT
    if math.isinf(v):
        return "∞" if v > 0 else "-∞"
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 1e4 or a < 1e-3:
        return _tidy_exponent(f"{v:.{max(digits - 1, 0)}e}")
    if a >= 10 ** digits:  # e.g. 1234.5 with 3 digits: keep the integer part, never "1.23e3"
        return f"{v:.0f}"
    text = f"{v:.{digits}g}"
    if "e" in text:
        text = _tidy_exponent(text)
    return "0" if text in ("-0", "0") else text


def compact_int(value: float) -> str:
    """Counts and indices: whole numbers, NaN kept visible."""
    v = float(value)
    if math.isnan(v):
        return NAN_TEXT
    return str(int(v))


def compact_bool(value: float) -> str:
    return "T" if value else "F"


def exact(value: float) -> str:
    """Full precision: the shortest decimal that reads back to the very same float."""
    v = float(value)
    if math.isnan(v):
        return NAN_TEXT
    if math.isinf(v):
        return "∞" if v > 0 else "-∞"
    return repr(v)


def csv_number(value: float) -> str:
    """CSV text that `float()` reads back exactly (NaN as "NaN", infinities as "inf"/"-inf")."""
    v = float(value)
    if math.isnan(v):
        return NAN_TEXT
    return repr(v)
