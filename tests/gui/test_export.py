"""Exports: a pane as PNG / SVG through pyqtgraph's exporters, a step's numbers as CSV."""
from __future__ import annotations

import csv
import math
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from gui_helpers import TOKENS, toy
from PySide6.QtGui import QImage

import attention
from app.panes.export import export_pane_image, step_to_csv
from app.panes.steps_view import StepsView
from attention import Scenario

pytestmark = pytest.mark.gui
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def shown(qtbot):
    sc = toy(causal=True)
    trace = attention.run(sc)
    v = StepsView()
    qtbot.addWidget(v)
    v.resize(1600, 1000)
    v.show()
    v.show_trace(trace, sc)
    return v, trace, sc


# ---- pictures ------------------------------------------------------------------------------------
def test_png_export_writes_a_png_of_the_pane(shown, tmp_path):
    view, trace, _ = shown
    before = [a.copy() for a in view.displayed_arrays("masked_scores")]
    path = tmp_path / "masked.png"
    export_pane_image(view, "masked_scores", str(path))
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    img = QImage(str(path))
    assert not img.isNull() and img.width() > 400 and img.height() > 100
    # not a blank picture: the diverging map's colours are in it
    colours = {img.pixel(x, y) for x in range(0, img.width(), 7) for y in range(0, img.height(), 7)}
    assert len(colours) > 20
    # the view is left as it was
    for a, b in zip(before, view.displayed_arrays("masked_scores")):
        np.testing.assert_array_equal(a, b)
    assert view.pane("masked_scores").canvas.ci.layout.rowCount() >= 3


def test_svg_export_is_valid_xml_with_the_title_and_numbers(shown, tmp_path):
    view, trace, _ = shown
    path = tmp_path / "weights.svg"
    export_pane_image(view, "attention_weights", str(path))
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg")
    text = " ".join(t.text or "" for t in root.iter() if t.tag.endswith("text"))
    assert "Head 1" in text and "t3" in text
    raw = path.read_text(encoding="utf-8")
    assert trace["attention_weights"].title["en"] in raw
    assert "0.5035" in text  # causal toy, head 1, row 3: a weight printed in its cell


def test_image_export_refuses_other_suffixes_and_unknown_steps(shown, tmp_path):
    view, _, _ = shown
    with pytest.raises(ValueError, match=r"\.png or \.svg"):
        export_pane_image(view, "scores", str(tmp_path / "scores.jpg"))
    with pytest.raises(ValueError, match="no suffix"):
        export_pane_image(view, "scores", str(tmp_path / "scores"))
    with pytest.raises(ValueError, match="extra.sparsity"):
        export_pane_image(view, "extra.sparsity", str(tmp_path / "x.png"))


def test_png_export_to_an_unwritable_place_raises_oserror(shown, tmp_path):
    view, _, _ = shown
    with pytest.raises(OSError, match="PNG"):
        export_pane_image(view, "scores", str(tmp_path / "missing" / "dir" / "scores.png"))


# ---- CSV -------------------------------------------------------------------------------------------
def read_blocks(path: Path) -> dict[str, list[list[str]]]:
    """'head 1' -> its rows (header first); a file without head lines -> {'': rows}."""
    blocks: dict[str, list[list[str]]] = {}
    name = ""
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.reader(f):
            if not row:
                continue
            if len(row) == 1 and row[0].startswith("head "):
                name = row[0]
                continue
            blocks.setdefault(name, []).append(row)
    return blocks


def test_csv_of_a_per_head_step_round_trips_every_number(shown, tmp_path):
    _, trace, sc = shown
    path = tmp_path / "masked_scores.csv"
    step_to_csv(trace, "masked_scores", 0, str(path), labels=sc)
    blocks = read_blocks(path)
    arr = trace.array("masked_scores")[0]  # (H, L, S)
    assert list(blocks) == ["head 1", "head 2"]
    for h, name in enumerate(blocks):
        header, *rows = blocks[name]
        assert header[1:] == list(TOKENS)
        assert [r[0] for r in rows] == list(TOKENS)
        got = np.array([[float(x) for x in r[1:]] for r in rows])
        np.testing.assert_array_equal(got, arr[h])  # exact: full precision, -1e6 fills included


def test_csv_of_a_2d_step_without_labels_uses_indices(shown, tmp_path):
    _, trace, _ = shown
    path = tmp_path / "output.csv"
    step_to_csv(trace, "output", 0, str(path))
    (header, *rows), = read_blocks(path).values()
    # row and column labels are positions, counted from 1 (a spreadsheet's, the panes' axes)
    assert header[1:] == ["1", "2", "3", "4"] and [r[0] for r in rows] == ["1", "2", "3", "4"]
    got = np.array([[float(x) for x in r[1:]] for r in rows])
    np.testing.assert_array_equal(got, trace.array("output")[0])


def test_csv_writes_nan_as_nan_and_booleans_as_words(tmp_path):
    rng = np.random.default_rng(3)
    sc = Scenario(queries=rng.normal(size=(1, 8, 4)), keys=rng.normal(size=(1, 8, 4)),
                  values=rng.normal(size=(1, 8, 4)), n_heads=2, scoring="prob_sparse", factor=1)
    trace = attention.run(sc)
    path = tmp_path / "scores.csv"
    step_to_csv(trace, "scores", 0, str(path))
    arr = trace.array("scores")[0]
    assert np.isnan(arr).any()
    for h, (_header, *rows) in enumerate(read_blocks(path).values()):
        cells = [r[1:] for r in rows]
        assert all((c == "NaN") == bool(np.isnan(arr[h][i, j])) for i, r in enumerate(cells) for j, c in enumerate(r))
        got = np.array([[float(x) for x in r] for r in cells])
        np.testing.assert_array_equal(got, arr[h])  # NaN == NaN under assert_array_equal
    path = tmp_path / "selected.csv"
    step_to_csv(trace, "extra.selected", 0, str(path))
    (header, *rows), = read_blocks(path).values()
    assert header[1:] == ["h1", "h2"]
    sel = trace.array("extra.selected")[0].T  # (L, H)
    assert [[c == "True" for c in r[1:]] for r in rows] == sel.tolist()


def test_csv_with_minus_infinity_reads_back(tmp_path):
    sc = toy(causal=True, fill_value=-math.inf)
    trace = attention.run(sc)
    path = tmp_path / "m.csv"
    step_to_csv(trace, "masked_scores", 0, str(path), labels={"L": TOKENS, "S": TOKENS})
    header, *rows = read_blocks(path)["head 1"]
    assert rows[0][2] == "-inf" and float(rows[0][2]) == -math.inf


def test_csv_refuses_unknown_steps_and_batch_items(shown, tmp_path):
    _, trace, _ = shown
    with pytest.raises(ValueError, match="extra.sparsity"):
        step_to_csv(trace, "extra.sparsity", 0, str(tmp_path / "x.csv"))
    with pytest.raises(ValueError, match="batch"):
        step_to_csv(trace, "scores", 1, str(tmp_path / "x.csv"))
    with pytest.raises(OSError, match="x.csv"):
        step_to_csv(trace, "scores", 0, str(tmp_path / "no" / "x.csv"))


@pytest.mark.slow
def test_csv_export_imports_no_qt():
    code = ("import sys, app.viewmodel.export_csv; "
            "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph')]; "
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, timeout=120)
