"""A one-row matrix written in rows, as a long line of text wraps (issue 20: long rows on a slide).

One query against 80 hidden features (additive attention's 8 units x 10 keys) is a 1 x 80 bar:
on a slide it scrolled sideways, too narrow for numbers.  `wrap(data, width)` shows the same
numbers as a (80 / width) x width matrix: row i holds columns i*width+1 ... (i+1)*width, its label
says so ("11–20"), the column axis counts within the row.  Every cell still names its original
position when hovered, and `to_original` / `to_wrapped` carry a clicked or marked cell across.
Nothing is computed: the numbers are the trace's, reshaped.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from app.viewmodel.pane_data import Axis, Layout, PaneData
from attention import words
from attention.datamodel import numbers

#: a row of a wrapped matrix holds between these many columns (a divisor of the matrix's width)
ROW_MIN, ROW_MAX = 5, 16


@dataclass(frozen=True)
class RowsAxis(Axis):
    """The wrapped matrix's rows: each names the original columns it holds ("11–20")."""

    per_row: int = 1
    original: Optional[Axis] = None

    def name(self, lang: str) -> str:
        base = self.original.name(lang) if self.original is not None else ""
        return words.text("pane.wrap_rows", lang, name=base, n=self.per_row)

    def tick(self, i: int) -> str:
        first, count = i * self.per_row, self.original.number if self.original is not None else numbers.position
        return f"{count(first)}–{count(first + self.per_row - 1)}"

    def describe(self, i: int, lang: str) -> str:
        return self.tick(i)


@dataclass(frozen=True)
class WithinAxis(Axis):
    """The wrapped matrix's columns: the position within the row (1 ... per_row)."""

    def name(self, lang: str) -> str:
        return words.text("pane.wrap_cols", lang)

    def tick(self, i: int) -> str:
        return numbers.position(i)

    def describe(self, i: int, lang: str) -> str:
        return numbers.position(i)


def row_widths(data: PaneData) -> list[int]:
    """Every width a row of the wrapped matrix may have, the preferred first (row_width's), then
    the narrower divisors (a slide too narrow for ten numbers a row takes eight)."""
    first = row_width(data)
    if first is None:
        return []
    cols = data.block.shape[2]
    return [first] + [w for w in range(first - 1, ROW_MIN - 1, -1) if cols % w == 0]


def row_width(data: PaneData) -> Optional[int]:
    """How many columns a row of the wrapped matrix holds: the original's groups (additive
    features: the keys of one hidden unit) when they fit ROW_MIN..ROW_MAX, else the largest
    divisor of the width in that range; None for a matrix that does not wrap (more than one
    row, or no such divisor)."""
    rows, cols = data.block.shape[1:]
    if rows != 1 or cols <= ROW_MAX:
        return None
    group = data.layout.cols.group
    if group and ROW_MIN <= group <= ROW_MAX and cols % group == 0:
        return group
    return next((w for w in range(ROW_MAX, ROW_MIN - 1, -1) if cols % w == 0), None)


class WrappedData(PaneData):
    """`original` (1 x C per matrix) shown as (C / per_row) x per_row; hover and cell texts are the
    original's, at the original position."""

    def __init__(self, original: PaneData, per_row: int) -> None:
        m, _, cols = original.block.shape
        k = cols // per_row
        lay = original.layout
        rows = RowsAxis(dim=lay.cols.dim, size=k, per_row=per_row, original=lay.cols)
        within = WithinAxis(dim=lay.cols.dim, size=per_row)
        masked = original.masked.reshape(k, per_row) if original.masked is not None else None
        super().__init__(Layout(lay.step_id, lay.kind, rows, within, lay.n_matrices, lay.per_head),
                         original.step, original.batch, original.block.reshape(m, k, per_row), masked,
                         original.mask_style, original.nan_label, original.value_axis, original.fill_value)
        object.__setattr__(self, "original", original)
        object.__setattr__(self, "per_row", per_row)

    def __getattr__(self, name: str) -> Any:  # hides_values, revealed, ...: the original's
        if name in ("original", "per_row"):
            raise AttributeError(name)
        return getattr(self.original, name)

    def to_original(self, m: int, r: int, c: int) -> tuple[int, int, int]:
        return m, 0, r * self.per_row + c

    def to_wrapped(self, m: int, r: int, c: int) -> tuple[int, int, int]:
        return m, c // self.per_row, c % self.per_row

    def cell_text(self, m: int, r: int, c: int, digits: int = 4) -> str:
        return self.original.cell_text(*self.to_original(m, r, c), digits)

    def cell_texts(self, m: int, digits: int = 4) -> list[str]:
        return self.original.cell_texts(m, digits)  # row-major: the same order

    def sample_texts(self, m: int, digits: int = 4, first: int = 2) -> list[str]:
        return self.original.sample_texts(m, digits, first)

    def hover_text(self, m: int, r: int, c: int, lang: str) -> str:
        return self.original.hover_text(*self.to_original(m, r, c), lang)

    def value_phrase(self, m: int, r: int, c: int, lang: str) -> str:
        return self.original.value_phrase(*self.to_original(m, r, c), lang)


def wrap(data: PaneData, per_row: Optional[int] = None) -> PaneData:
    """`data` written in rows of `per_row` (default row_width's) as WrappedData, or `data` itself
    when it does not wrap."""
    widths = row_widths(data)
    if not widths:
        return data
    return WrappedData(data, per_row if per_row in widths else widths[0])


def unwrapped_cell(data: PaneData, m: int, r: int, c: int) -> tuple[int, int, int]:
    return data.to_original(m, r, c) if isinstance(data, WrappedData) else (m, r, c)


def wrapped_cell(data: PaneData, m: int, r: int, c: int) -> tuple[int, int, int]:
    return data.to_wrapped(m, r, c) if isinstance(data, WrappedData) else (m, r, c)
