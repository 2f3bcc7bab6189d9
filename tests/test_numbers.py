"""attention.datamodel.numbers: one way to write a number, and the same number reads the same everywhere.

Properties (hypothesis): every text reads back to its value within the precision it states
(`machine` bit for bit, `exact` to the same float, `rounded` to `digits` significant digits,
checked in exact decimal arithmetic); the spelling rules of the module docstring hold for any
float.  Then -1e6 and 0.00012 are followed through a cell, the hover line, Explain, a lesson, the
CSV export and `main.py explain`: the same text in each (the hover's and the CSV's with every
digit, which for these numbers is the same text).  Expected texts are written out by hand."""
from __future__ import annotations

import csv
import io
import math
import re
import struct
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from attention import Scenario, run
from attention.datamodel import numbers
from attention.files import scenario_io
from attention.teaching.explain import explain

ROOT = Path(__file__).resolve().parents[1]
any_float = st.floats(allow_nan=True, allow_infinity=True, width=64)
finite = st.floats(allow_nan=False, allow_infinity=False, width=64)
SCI = re.compile(r"^-?[1-9](\.\d*[1-9])?e-?[1-9]\d*$")  # 1.5e6, -1e-4: no "+", no zero padding, no trailing zeros
PLAIN = re.compile(r"^-?(0|[1-9]\d*)(\.\d*[1-9])?$")  # 0.7071, 13, -2.5: no trailing zeros


def _bits(v: float) -> bytes:
    return struct.pack("<d", v)


# ---- by hand ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("value,digits,text", [
    (-1e6, 4, "-1e6"), (0.00012, 4, "1.2e-4"), (1 / math.sqrt(2), 4, "0.7071"), (1 / math.sqrt(2), 3, "0.707"),
    (13.794322, 4, "13.79"), (2.0, 4, "2"), (-0.0, 4, "0"), (0.0, 4, "0"), (1234.56, 3, "1235"), (99.96, 2, "100"),
    (9999.6, 4, "1e4"), (12345.678, 4, "1.235e4"), (6.02214076e23, 4, "6.022e23"), (-2.5e-7, 4, "-2.5e-7"),
    (0.001, 4, "0.001"), (math.inf, 4, "∞"), (-math.inf, 4, "-∞"), (math.nan, 4, "NaN"),
])
def test_rounded_by_hand(value, digits, text):
    assert numbers.rounded(value, digits) == text


@pytest.mark.parametrize("value,screen,file", [
    (-1e6, "-1e6", "-1e6"), (0.00012, "1.2e-4", "1.2e-4"), (0.1, "0.1", "0.1"), (2.0, "2", "2"),
    (123456.0, "1.23456e5", "1.23456e5"), (1 / 3, "0.3333333333333333", "0.3333333333333333"),
    (-0.0, "0", "-0"), (math.inf, "∞", "inf"), (-math.inf, "-∞", "-inf"), (math.nan, "NaN", "NaN"),
    (5e-324, "5e-324", "5e-324"), (1.7976931348623157e308, "1.7976931348623157e308", "1.7976931348623157e308"),
])
def test_exact_and_machine_by_hand(value, screen, file):
    assert numbers.exact(value) == screen and numbers.machine(value) == file


def test_whole_numbers_and_flags():
    assert [numbers.whole(v) for v in (3.0, 0.0, -2.0, math.nan, 2.5)] == ["3", "0", "-2", "NaN", "2.5"]
    assert [numbers.flag(v) for v in (1.0, 0.0, True)] == ["True", "False", "True"]
    assert [numbers.flag(v, short=True) for v in (1.0, 0.0)] == ["✓", "✗"]
    assert numbers.read("True") == 1.0 and numbers.read("-∞") == -math.inf and math.isnan(numbers.read("NaN"))


# ---- properties --------------------------------------------------------------------------------------

@settings(max_examples=400, deadline=None)
@given(any_float)
@example(-0.0)
@example(5e-324)
def test_machine_reads_back_bit_for_bit_with_float(v):
    back = float(numbers.machine(v))
    assert math.isnan(back) if math.isnan(v) else _bits(back) == _bits(v)


@settings(max_examples=400, deadline=None)
@given(any_float)
def test_exact_reads_back_to_the_same_float(v):
    back = numbers.read(numbers.exact(v))
    assert math.isnan(back) if math.isnan(v) else back == v


@settings(max_examples=600, deadline=None)
@given(finite, st.integers(min_value=1, max_value=8))
@example(1.7976931348623157e308, 4)  # rounds up past the largest float: checked in decimals, not floats
@example(9.9996e-4, 4)
def test_rounded_reads_back_within_its_significant_digits(v, digits):
    text = numbers.rounded(v, digits)
    if v == 0:
        assert text == "0"
        return
    err = abs(Decimal(text) - Decimal(v))
    assert err <= Decimal(5) * Decimal(10) ** -digits * abs(Decimal(v)), (v, digits, text)


@settings(max_examples=600, deadline=None)
@given(finite, st.integers(min_value=1, max_value=8))
def test_one_spelling_for_every_writer(v, digits):
    texts = [numbers.rounded(v, digits), numbers.exact(v), numbers.machine(v)]
    for text in texts:
        assert "+" not in text and "\u2212" not in text and " " not in text
        assert SCI.match(text) or PLAIN.match(text) or text == "-0", text
    a = abs(v)
    if v != 0 and (a < numbers.SMALL or a >= numbers.LARGE):
        assert all("e" in t for t in texts[1:])  # exact digits keep the value's magnitude
    elif v != 0:
        assert all("e" not in t for t in texts[1:])
    if v != 0:
        assert numbers.exact(v) == numbers.machine(v)  # screen and file differ only for ±∞ and -0


@settings(max_examples=400, deadline=None)
@given(finite)
def test_a_number_with_few_digits_reads_the_same_rounded_and_exact(x):
    """A value that has at most 4 significant digits is written identically by every writer
    (normal floats: a subnormal's shortest digits can be fewer than its 4 rounded ones, 5e-324)."""
    v = float(f"{x:.4g}")
    if math.isfinite(v) and (v == 0 or abs(v) >= sys.float_info.min):
        assert numbers.rounded(v) == numbers.exact(v)


def test_rounded_many_matches_rounded_and_writes_nan_as_asked():
    values = [1 / 3, -1e6, math.nan, 0.00012, -0.0, math.inf]
    assert numbers.rounded_many(values, 3, nan_text="n/c") == ["0.333", "-1e6", "n/c", "1.2e-4", "0", "∞"]
    assert numbers.rounded_many(values, 3) == [numbers.rounded(v, 3) for v in values]


# ---- the same number everywhere ----------------------------------------------------------------------

def _d2l_masked():
    """The d2l masked softmax preset: a masked score is the fill value -1e6."""
    path = next((ROOT / "resources" / "scenarios").glob("03_d2l_masked_softmax.json"))
    sc = scenario_io.load(path)
    trace = run(sc)
    b, l, s = map(int, np.argwhere(trace.array("extra.mask"))[0])
    return path, trace, (b, 0, l, s)


def _tiny(tmp_path):
    """Identity projections (no weights): projection.query[0, 0, 0] is the input 0.00012 itself."""
    q = np.array([[[0.00012, 1.0]]])
    sc = Scenario(q, np.array([[[1.0, 0.0]]]), np.array([[[1.0, 2.0]]]), n_heads=1)
    path = tmp_path / "tiny.json"
    path.write_text(scenario_io.dumps(sc), encoding="utf-8")
    return path, run(sc), (0, 0, 0)


def _cli_first_line(path: Path, step: str, index: tuple[int, ...]) -> str:
    res = subprocess.run([sys.executable, "main.py", "explain", str(path), step, *map(str, index)], cwd=ROOT,
                         capture_output=True, text=True, encoding="utf-8", timeout=300)
    assert res.returncode == 0, res.stderr
    return res.stdout.splitlines()[0]


def _csv_cell(trace, step: str, batch: int, m: int, r: int, c: int) -> str:
    from app.viewmodel.export_csv import step_csv_text
    rows = list(csv.reader(io.StringIO(step_csv_text(trace, step, batch))))
    blocks, block = [], []
    for row in rows:
        if not row:
            blocks.append(block)
            block = []
        elif not row[0].startswith("head "):
            block.append(row)
    blocks.append(block)
    return blocks[m][1 + r][1 + c]


@pytest.mark.slow  # the CLI part starts main.py
def test_minus_a_million_reads_the_same_in_cell_hover_explain_lesson_csv_and_cli():
    from app.viewmodel import lessons
    from app.viewmodel.pane_data import pane_data
    path, trace, (b, h, l, s) = _d2l_masked()
    assert float(trace.array("masked_scores")[b, h, l, s]) == -1e6
    want = "-1e6"  # written out by hand: d2l's fill value
    data = pane_data(trace, "masked_scores", b)
    assert data.cell_text(h, l, s) == want
    assert data.hover_text(h, l, s, "en").split(" = ", 1)[1].startswith(want + " ")  # "-1e6 (masked)"
    ex = explain(trace, "masked_scores", (b, h, l, s))
    assert ex.text("en").splitlines()[0].endswith(f"= {want}") and ex.text("zh").splitlines()[0].endswith(f"= {want}")
    assert f"fill value {want} (" in ex.summary["en"]
    assert f"fill value {want}:" in lessons.explanation("masked_scores", trace.options)
    assert _csv_cell(trace, "masked_scores", b, h, l, s) == want and float(want) == -1e6
    assert _cli_first_line(path, "masked_scores", (b, h, l, s)).endswith(f"= {want}")


@pytest.mark.slow  # the CLI part starts main.py
def test_a_small_number_reads_the_same_in_cell_hover_explain_csv_and_cli(tmp_path):
    from app.viewmodel.pane_data import pane_data
    path, trace, idx = _tiny(tmp_path)
    assert float(trace.array("projection.query")[idx]) == 0.00012
    want = "1.2e-4"  # by hand: 0.00012 in short scientific form
    assert pane_data(trace, "projection.query", 0).cell_text(0, 0, 0) == want
    assert pane_data(trace, "projection.query", 0).hover_text(0, 0, 0, "en").endswith(f"= {want}")
    ex = explain(trace, "projection.query", idx)
    assert ex.text("en").splitlines()[0].endswith(f"= {want}")
    assert f"X_q[0,0,0] = {want}" in ex.text("en")
    assert _csv_cell(trace, "projection.query", 0, 0, 0, 0) == want
    assert _cli_first_line(path, "projection.query", idx).endswith(f"= {want}")
