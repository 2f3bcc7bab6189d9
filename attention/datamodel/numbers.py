"""How every number a person reads is written: one rule for cells, hover, Explain, lessons, handouts, the CLI and files.

Three writers, differing only in precision and in who reads the text:

- ``rounded(v, digits=4)`` (screen, rounded): a heatmap cell (4 significant digits, 3 or 2 when the
  cell is narrow: app/panes/cell_overlay.TextFit), the Explain panel and ``main.py explain``,
  lessons, handouts, the matrix editor's cells.  All of them write 4 digits unless a cell is too
  narrow, so one number reads the same in a cell, in Explain and in a lesson.
- ``exact(v)`` (screen, full precision): the hover line, compare's differences, the quiz's
  tolerance: the shortest decimal that reads back to the very same float.
- ``machine(v)`` (files: CSV export, clipboard): full precision too, spelt as Python's
  ``float()`` (and a spreadsheet) reads it; ``float(machine(v))`` is ``v`` bit for bit.

The spelling, the same for all three:

- plain decimals while 1e-3 <= |v| < 1e4, without trailing zeros: ``0.7071``, ``13.79``, ``2``
  (never ``2.0000``); a rounded number keeps all its integer digits (``1235`` with 3 digits).
- scientific notation outside that range, written short: the mantissa without trailing zeros,
  the exponent without "+" or leading zeros: ``-1e6``, ``1.2e-4``, ``6.022e23`` (never ``-1e+06``).
- the minus sign is ASCII "-" (U+002D) on screen and in files: a number a person reads is one
  they can type or paste back (the editor, the quiz, scenario files and ``float()`` read "-",
  none reads U+2212), and it keeps narrow cells narrow.  U+2212 "−" is the subtraction operator
  in formulas (``exp(x − m)``), never a number's sign.
- zero is ``0``; on screen neither -0.0 nor a number rounded to zero shows a sign; ``machine``
  writes ``-0`` so that the sign bit survives a round trip.
- infinities are ``∞`` and ``-∞`` on screen, ``inf`` and ``-inf`` in files.
- NaN is ``NaN`` everywhere.
- whole numbers (counts, indices): ``whole(v)`` -> ``3``; flags: ``flag(v)`` -> ``True`` / ``False``
  (``T`` / ``F`` in a cell).

Positions (rows, columns, heads, queries, keys, batch items) are counted from 1 wherever a person
reads them, from 0 wherever code is shown: ``position(i)`` is the one place that turns the
code's index into the number a person reads (see "Positions" in docs/numbers.md).

``read(text)`` reads every form written here back to a float (∞ included).  docs/numbers.md
says the same for users.  Pure Python: the engine, the CLI and the Qt-free view-model use it.
"""
from __future__ import annotations

import math
from typing import Iterable

#: significant digits of a rounded number (cells may drop to 3 or 2 when narrow)
DIGITS = 4
#: plain decimals for SMALL <= |v| < LARGE; scientific notation outside
SMALL = 1e-3
LARGE = 1e4

NAN = "NaN"
INF = "∞"
MINUS = "-"


def _tidy(text: str) -> str:
    """'1.50e+06' -> '1.5e6', '-1e-04' -> '-1e-4': Python's scientific form, written short."""
    mantissa, _, exp = text.partition("e")
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}e{int(exp)}"


def _special(v: float) -> str | None:
    """Screen text of NaN, ±∞ and zero (no signed zero on screen), None for other numbers."""
    if v != v:
        return NAN
    if v in (math.inf, -math.inf):
        return INF if v > 0 else MINUS + INF
    if v == 0:
        return "0"
    return None


# ---- rounded: cells, Explain, lessons, handouts, the CLI ----------------------------------------

def rounded(value: float, digits: int = DIGITS) -> str:
    """`value` with at most `digits` significant digits (see the module docstring).  Memoised:
    after an edit most cells print the same numbers again."""
    v = float(value)
    key = (v, digits)
    text = _ROUNDED.get(key)
    if text is None:
        text = _rounded(v, digits)
        if v == v:  # NaN never equals a key: not worth keeping
            if len(_ROUNDED) > 65536:
                _ROUNDED.clear()
            _ROUNDED[key] = text
    return text


_ROUNDED: dict[tuple[float, int], str] = {}


def rounded_many(values: Iterable[float], digits: int = DIGITS, nan_text: str = NAN) -> list[str]:
    """`rounded` for a whole matrix (Python floats, e.g. ndarray.tolist()), NaN written as
    `nan_text`: one dictionary look-up per number once it has been seen (the cells' hot path)."""
    memo = _ROUNDED
    out = []
    for v in values:
        text = memo.get((v, digits))
        if text is None:
            text = nan_text if v != v else rounded(v, digits)
        out.append(text)
    return out


def _rounded(v: float, digits: int) -> str:
    a = abs(v)
    if a == 0 or a != a or a == math.inf:  # one test for the common case; no function call
        return _special(v)
    if digits < 1:
        digits = 1
    if a >= LARGE or a < SMALL:
        return _tidy(f"{v:.{digits - 1}e}")
    if a >= 10 ** digits:  # 1234.5 with 3 digits: keep the integer part, never "1.23e3"
        return f"{v:.0f}"
    text = f"{v:.{digits}g}"
    if "e" in text:  # rounded up to 10**digits: 99.96 with 2 digits is "100", 9999.6 with 4 is "1e4"
        return _tidy(text) if abs(float(text)) >= LARGE else f"{v:.0f}"
    return "0" if text in ("-0", "0") else text


# ---- exact and machine: hover, compare, CSV, clipboard ----------------------------------------

def _shortest(v: float) -> str:
    """A finite, non-zero `v` with the shortest digits that read back to it (Python's repr), in this
    module's layout: plain in [SMALL, LARGE), short scientific outside."""
    text = repr(v)
    if SMALL <= abs(v) < LARGE:  # repr writes these as plain decimals already
        return text[:-2] if text.endswith(".0") else text
    if "e" not in text:  # 123456.0 or 0.00012: the same digits in scientific form
        significant = text.lstrip("-").replace(".", "").strip("0")
        text = f"{v:.{len(significant) - 1}e}"
    return _tidy(text)


def exact(value: float) -> str:
    """Full precision for the screen: `rounded`'s spelling with every digit repr needs."""
    v = float(value)
    special = _special(v)
    return special if special is not None else _shortest(v)


def machine(value: float) -> str:
    """Full precision for files: what float() reads back to the identical value (inf, -inf,
    NaN, -0 included)."""
    v = float(value)
    if v != v:
        return NAN
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v == 0:
        return "-0" if math.copysign(1.0, v) < 0 else "0"
    return _shortest(v)


# ---- whole numbers and flags ---------------------------------------------------------------------

def whole(value: float) -> str:
    """A count or an index: ``3``; NaN stays visible, anything not whole falls back to `rounded`."""
    v = float(value)
    if v != v or math.isinf(v) or not v.is_integer():
        return rounded(v)
    return str(int(v))


def grouped(value: float) -> str:
    """A large whole quantity in a sentence, its thousands grouped: ``1,000,000`` (a RoPE base, a window); the same
    in both languages.  Not for cells or files (``whole`` there: one spelling a person can type back)."""
    v = float(value)
    if v != v or math.isinf(v) or not v.is_integer():
        return rounded(v)
    return f"{int(v):,}"
#: a yes/no heatmap cell: the same marks in every language, read with the pane's legend (pane.legend_bool)
YES, NO = "✓", "✗"


def flag(value, short: bool = False) -> str:
    """A yes/no value: ``True`` / ``False`` (a formula's, a file's), or ✓ / ✗ where room is short (a heatmap
    cell, a colour bar: the pane's legend says what they mean, in words of either language)."""
    if short:
        return YES if value else NO
    return "True" if value else "False"


# ---- positions -------------------------------------------------------------------------------------

#: What the first row, column, head, query, key or batch item is called where a person reads it:
#: 1, as in a spreadsheet, a worksheet and a classroom ("head 1", "row 3").  Code keeps its own
#: index from 0 wherever code is shown: the exported script, a trace or file path such as
#: ``queries[0][2]``, a formula's brackets ``scores[b,h,l,s]``, ``main.py explain STEP INDEX...``.
FIRST = 1


def position(index: int) -> str:
    """The code's 0-based `index` as the position a person reads: ``position(2)`` -> ``"3"``."""
    return str(int(index) + FIRST)


def positions(index) -> str:
    """Several indices as positions, comma-separated: ``(0, 2)`` -> ``"1, 3"``."""
    return ", ".join(position(i) for i in index)


def row(values) -> str:
    """A row of numbers as every text writes it: ``[0.5, -1e6, −∞]`` (a 1-D array or sequence)."""
    return "[" + ", ".join(rounded(float(v)) for v in values) + "]"


def span(lo: int, hi: int) -> str:
    """The half-open index range [lo, hi) as positions a person reads: ``(0, 3)`` -> ``"1–3"``,
    ``(3, 4)`` -> ``"4"`` for one."""
    return position(lo) if hi - lo == 1 else f"{position(lo)}–{int(hi) - 1 + FIRST}"


def index_of(position_text: str) -> int:
    """A position a person typed back to the code's index: ``"3"`` -> ``2`` (ValueError if not whole)."""
    return int(str(position_text).strip()) - FIRST


# ---- reading back ----------------------------------------------------------------------------------

def read(text: str) -> float:
    """Any text written by this module back to a float (ValueError for anything else)."""
    t = text.strip()
    if t in (INF, "+" + INF):
        return math.inf
    if t == MINUS + INF:
        return -math.inf
    if t == "True":
        return 1.0
    if t == "False":
        return 0.0
    return float(t)
