"""app.viewmodel.clipboard: what spreadsheets put on the clipboard, read back exactly (no Qt needed)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from app.viewmodel.clipboard import ClipboardError, format_number, format_table, parse_number, parse_table

finite = st.floats(allow_nan=False, allow_infinity=False, width=64)
matrices = arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 6)), elements=finite)


@given(matrices)
def test_tsv_round_trip_is_exact(m):
    back = parse_table(format_table(m))
    assert back.shape == m.shape and np.array_equal(back, m)


@given(matrices)
def test_csv_round_trip_is_exact(m):
    back = parse_table(format_table(m, delimiter=","))
    assert np.array_equal(back, m)


@given(matrices)
def test_excel_line_ends_round_trip(m):
    excel = format_table(m).replace("\n", "\r\n")  # what Excel puts on the clipboard
    assert np.array_equal(parse_table(excel), m)


def test_excel_block_with_crlf_and_trailing_newline():
    assert parse_table("1\t2.5\r\n-3\t4e-2\r\n").tolist() == [[1.0, 2.5], [-3.0, 0.04]]


def test_trailing_empty_lines_are_not_rows():
    assert parse_table("1\t2\n\n\n").shape == (1, 2)
    assert parse_table("7\r\n").tolist() == [[7.0]]


def test_quoted_cells_are_unquoted():
    assert parse_table('"1"\t" 2 "\n"3"\t4\n').tolist() == [[1, 2], [3, 4]]
    assert parse_table('"1,5",2\n3,"4,25"\n').tolist() == [[1.5, 2], [3, 4.25]]  # CSV with decimal commas in quotes


def test_decimal_commas_in_tab_and_semicolon_text():
    assert parse_table("1,5\t-2,25\r\n").tolist() == [[1.5, -2.25]]  # German/French Excel
    assert parse_table("1,5;2\n3;4,75\n").tolist() == [[1.5, 2], [3, 4.75]]  # European CSV
    assert parse_table("1.234,5\t1,234.5\n").tolist() == [[1234.5, 1234.5]]


def test_a_single_cell_with_a_decimal_comma_locale():
    assert parse_table("1,5\r\n", decimal_comma=True).tolist() == [[1.5]]
    assert parse_table("1,5\n2,5\n", decimal_comma=True).tolist() == [[1.5], [2.5]]


def test_thousands_separator_depends_on_locale():
    assert parse_number("1,500", decimal_comma=False) == 1500.0
    assert parse_number("1,500", decimal_comma=True) == 1.5
    assert parse_number("1,5", decimal_comma=False) == 1.5  # cannot be a thousands group
    assert parse_number("1,234,567") == 1234567.0


def test_typographic_minus_and_spaces():
    assert parse_number(" \u22122.5 ") == -2.5
    assert parse_number("1\u00a0000,5", decimal_comma=True) == 1000.5


def test_ragged_rows_name_the_row():
    with pytest.raises(ClipboardError, match=r"row 2 has 1 cells but row 1 has 2"):
        parse_table("1\t2\n3\n")


@pytest.mark.parametrize("text,cell", [("1\tabc\n", "row 1, column 2"), ("1\t2\nnan\tinf\n", "row 2, column 1"),
                                       ("1\t\n", "row 1, column 2")])
def test_bad_cells_name_the_cell(text, cell):
    with pytest.raises(ClipboardError, match=cell):
        parse_table(text)


def test_empty_clipboard():
    with pytest.raises(ClipboardError, match="no numbers"):
        parse_table("\r\n")


@pytest.mark.parametrize("bad", ["abc", "nan", "inf", "-inf", "", "1 2", "1,2,3"])
def test_parse_number_refuses(bad):
    with pytest.raises(ValueError):
        parse_number(bad)


@given(finite)
def test_format_number_round_trips(x):
    assert parse_number(format_number(x)) == x
