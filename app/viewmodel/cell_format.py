"""How numbers read inside a heatmap cell and in the hover line.  Qt-free.

The rule lives in `attention.datamodel.numbers` (one formatter for cells, hover, Explain, lessons,
handouts, CSV and the CLI); these are the names the panes use for it.  Cells are small, so
`compact` spends at most a few characters (``0.7071``, ``-1e6``, ``-∞``); the hover line must
never round, so `exact` gives the shortest text that reads back to the same float; `csv_number`
is the same digits as `float()` reads them.
"""
from __future__ import annotations

from attention.datamodel import numbers

NOT_COMPUTED = "n/c"  # a cell ProbSparse never computed: a label, not a number
NAN_TEXT = numbers.NAN

compact = numbers.rounded
compact_many = numbers.rounded_many
compact_int = numbers.whole
exact = numbers.exact
csv_number = numbers.machine


def compact_bool(value: float) -> str:
    return numbers.flag(value, short=True)
