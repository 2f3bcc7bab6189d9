"""Spreadsheet clipboard text <-> numbers, without Qt.

Excel, LibreOffice and Google Sheets put a copied block on the clipboard as tab-separated text:
CRLF line ends, usually a trailing line end, cells with tabs/newlines/quotes in double quotes,
and numbers formatted in the sheet's locale (``1,5`` where the decimal mark is a comma).  CSV
files use commas (or semicolons where the comma is the decimal mark).  `parse_table` accepts all
of these and refuses anything else with one line naming the row and column (in the window's
language: attention.words "paste.*"), so a paste never writes half a block or a silently wrong number.
"""
from __future__ import annotations

import csv
import io
import math
import re
from typing import Optional, Sequence

import numpy as np

from attention import words
from attention.datamodel import numbers

_GROUPED = re.compile(r"^[+-]?\d{1,3}(,\d{3})+$")  # 1,234,567 (comma as thousands separator)
_MINUS = str.maketrans({"\u2212": "-", "\u2013": "-"})  # typographic minus signs


class ClipboardError(ValueError):
    """Text that is not a rectangular block of finite numbers; the message names the cell."""


def parse_number(text: str, decimal_comma: Optional[bool] = None) -> float:
    """One finite number from a cell, or ValueError saying why not.

    decimal_comma: True when the user's locale writes 1,5 for one and a half; False when it
    writes 1,500 for fifteen hundred; None (unknown) reads a lone comma as a decimal mark.
    A comma that cannot be a thousands separator (``1,5`` under an English locale) is always
    a decimal mark: that is the only reading that is not an error.
    """
    s = text.strip().translate(_MINUS).replace("\u00a0", "").replace("\u202f", "")
    if not s:
        raise ValueError(words.text("paste.empty_cell"))
    if "," in s:
        s = _normalise_commas(s, decimal_comma)
    try:
        value = float(s)
    except ValueError:
        raise ValueError(words.text("paste.not_number", text=repr(text.strip()))) from None
    if not math.isfinite(value):
        raise ValueError(words.text("paste.not_finite", text=repr(text.strip())))
    return value


def _normalise_commas(s: str, decimal_comma: Optional[bool]) -> str:
    if "." in s:  # both marks: the last one is the decimal mark, the other groups digits
        if s.rfind(",") > s.rfind("."):
            return s.replace(".", "").replace(",", ".")
        return s.replace(",", "")
    if decimal_comma is not True and _GROUPED.match(s) and (decimal_comma is False or s.count(",") > 1):
        return s.replace(",", "")
    if s.count(",") == 1:
        return s.replace(",", ".")
    return s  # several commas that are not thousands groups: float() will refuse it


def parse_table(text: str, decimal_comma: Optional[bool] = None) -> np.ndarray:
    """A (rows, columns) float64 array from clipboard or CSV text.

    Separator: tab if the text has one, else semicolon, else comma.  Without tabs or
    semicolons and with a decimal-comma locale, each line is one cell (``1,5`` is one number).
    One trailing line end (and any trailing empty lines) is ignored; quoted cells are unquoted.
    """
    rows = _split_rows(text, decimal_comma)
    while rows and all(not c.strip() for c in rows[-1]):
        rows.pop()
    if not rows:
        raise ClipboardError(words.text("paste.no_numbers"))
    width = len(rows[0])
    for r, row in enumerate(rows):
        if len(row) != width:
            raise ClipboardError(words.text("paste.ragged", r=numbers.position(r), n=len(row),
                                            first=numbers.position(0), width=width))
    out = np.empty((len(rows), width), dtype=np.float64)
    for r, row in enumerate(rows):
        for c, cell in enumerate(row):
            try:
                out[r, c] = parse_number(cell, decimal_comma)
            except ValueError as e:
                why = words.text("paste.cell", r=numbers.position(r), c=numbers.position(c), why=e)
                raise ClipboardError(why) from None
    return out


def _split_rows(text: str, decimal_comma: Optional[bool]) -> list[list[str]]:
    if "\t" in text:
        delimiter = "\t"
    elif ";" in text:
        delimiter = ";"
    elif decimal_comma and '"' not in text:
        return [[line] for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    else:
        delimiter = ","
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, quotechar='"', doublequote=True)
    try:
        return [row for row in reader]
    except csv.Error as e:
        raise ClipboardError(words.text("paste.unreadable", why=e)) from None


def format_number(value: float) -> str:
    """Shortest text that reads back as exactly the same float (attention.datamodel.numbers.machine:
    whole numbers without .0, the CSV export's spelling)."""
    return numbers.machine(value)


def format_table(block: np.ndarray | Sequence[Sequence[float]], delimiter: str = "\t") -> str:
    """TSV (or CSV with delimiter=',') that spreadsheets paste cell by cell; one line per row."""
    arr = np.atleast_2d(np.asarray(block, dtype=np.float64))
    buf = io.StringIO()
    writer = csv.writer(buf, delimiter=delimiter, quotechar='"', lineterminator="\n")
    for row in arr:
        writer.writerow([format_number(v) for v in row])
    return buf.getvalue()
