"""Printable worksheets: chosen steps as empty grids of their own shape (labels kept) and an answer
key with the same grids filled in from the trace; from File ▸ Export worksheet… and from
`main.py render --blank`, in English and Chinese.

The answers are checked against plain torch computations of the hand calculation preset
(identity projections, scale 0.5; head h of a row is its columns 2h, 2h+1)."""
from __future__ import annotations

import html
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

import attention
from app.teaching import worksheet
from app.viewmodel import cell_format
from attention.files import scenario_io

pytestmark = [pytest.mark.gui, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]
HAND = ROOT / "resources" / "scenarios" / "08_hand_calculation.json"
D2L = ROOT / "resources" / "scenarios" / "03_d2l_masked_softmax.json"
X = torch.tensor([[2, 0, 1, 1], [0, 2, 1, 1], [2, 2, 0, 2]], dtype=torch.float64)
HEADS = X.view(3, 2, 2).transpose(0, 1)  # (H, L, 2)
SCORES = 0.5 * HEADS @ HEADS.transpose(1, 2)  # (H, L, S)
WEIGHTS = torch.softmax(SCORES, dim=-1)
TOKENS = ["a", "b", "c"]  # the preset's tokens


def grids(page: str, step: str) -> list[dict]:
    """Each table of `step`: its column labels, row labels and cell texts."""
    out = []
    for m, body in re.findall(rf'<table class="grid" data-step="{re.escape(step)}" data-matrix="(\d+)">(.*?)</table>',
                              page, re.S):
        rows = re.findall(r"<tr>(.*?)</tr>", body, re.S)
        head = [html.unescape(t) for t in re.findall(r"<th>(.*?)</th>", rows[0])]
        out.append({"m": int(m), "cols": head[1:],
                    "rows": [html.unescape(re.search(r"<th>(.*?)</th>", r).group(1)) for r in rows[1:]],
                    "cells": [[html.unescape(t) for t in re.findall(r"<td>(.*?)</td>", r)] for r in rows[1:]]})
    return out


def text_without_images(page: str) -> str:
    return re.sub(r'src="data:image/png;base64,[^"]*"', "", page)


def check_pair(folder: Path, step: str, want: torch.Tensor) -> tuple[str, str]:
    """The blank grid on the worksheet and the same grid with `want` (H, L, S) in the key."""
    sheet = (folder / worksheet.WORKSHEET_NAME).read_text(encoding="utf-8")
    key = (folder / worksheet.KEY_NAME).read_text(encoding="utf-8")
    blank, answers = grids(sheet, step), grids(key, step)
    assert len(blank) == len(answers) == want.shape[0]  # one grid per head
    for g, a, w in zip(blank, answers, want):
        assert g["cells"] == [[""] * w.shape[1]] * w.shape[0]  # every cell empty, the right shape
        assert g["cols"] == a["cols"] and g["rows"] == a["rows"] and len(g["cols"]) == w.shape[1]
        numbers = np.array([[float(t) for t in row] for row in a["cells"]])
        assert np.allclose(numbers, w.numpy(), atol=5e-5), step
    # no picture of the blank step, and none of its numbers anywhere on the worksheet
    assert not list(folder.glob(f"*_{step}.png"))
    plain = text_without_images(sheet)
    distinctive = [cell_format.compact(v, 4) for v in want.numpy().ravel().tolist()]
    distinctive = [t for t in distinctive if len(t) >= 5]  # 0.7870, not "4" (also a CSS size)
    assert not [t for t in distinctive if t in plain]
    return sheet, key


def test_file_menu_writes_a_worksheet_and_its_answer_key(window, tmp_path):
    path, title = HAND, {"en": "hand"}
    assert window.open_preset(path, title)
    window.recompute.recompute_now()
    window.recompute.wait_idle()
    asked = []
    window.handout.ask_worksheet_steps = lambda trace: asked.append(list(trace.ids)) or ["attention_weights"]
    window.handout.ask_folder = lambda: str(tmp_path / "ws")
    assert window.handout.worksheet_action.text() == "Export worksheet..."
    window.handout.worksheet_action.trigger()
    assert asked and "attention_weights" in asked[0]
    sheet, key = check_pair(tmp_path / "ws", "attention_weights", WEIGHTS)
    assert grids(sheet, "attention_weights")[0]["cols"] == TOKENS
    assert "Worksheet" in sheet and "Name:" in sheet and "Answer key" in key
    assert "worksheet" in window.statusBar().currentMessage().lower()


def test_the_dialog_offers_every_step_and_needs_one(qtbot):
    trace = attention.run(scenario_io.load(HAND))
    dialog = worksheet.WorksheetDialog(trace, ["scores"])
    qtbot.addWidget(dialog)
    assert dialog.steps.count() == len(trace.ids) + 1 and dialog.chosen() == ["scores"]  # + the tiles
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    row = list(trace.ids).index("scores")
    dialog.steps.item(row).setCheckState(Qt.CheckState.Unchecked)
    assert not ok.isEnabled()
    dialog.steps.item(list(trace.ids).index("output")).setCheckState(Qt.CheckState.Checked)
    assert ok.isEnabled() and dialog.chosen() == ["output"]


def test_a_step_repeating_a_blank_one_is_blank_too(tmp_path):
    sc = scenario_io.load(D2L)
    trace = attention.run(sc)
    worksheet.write_worksheet(sc, trace, tmp_path, ["attention_weights"], lang="en")
    sheet = (tmp_path / worksheet.WORKSHEET_NAME).read_text(encoding="utf-8")
    for sid in ("weighted_sum", "concat", "output"):  # V = I: they repeat the weights
        assert all(c == "" for g in grids(sheet, sid) for row in g["cells"] for c in row), sid
    assert "left blank as well" in sheet and "V is the identity" in sheet
    assert not grids(sheet, "scores")  # the others stay pictures


def _render(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "main.py"), "render", *args], capture_output=True, text=True,
                          timeout=300, cwd=ROOT, env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_render_blank_writes_both_pages_in_each_language(tmp_path, lang):
    res = _render(str(HAND), "--out", str(tmp_path / "o"), "--lang", lang, "--blank", "scores,attention_weights")
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == [str(tmp_path / "o" / worksheet.WORKSHEET_NAME),
                                  str(tmp_path / "o" / worksheet.KEY_NAME)]
    sheet, key = check_pair(tmp_path / "o", "scores", SCORES)
    check_pair(tmp_path / "o", "attention_weights", WEIGHTS)
    if lang == "zh":
        assert "练习单" in sheet and "姓名" in sheet and "答案" in key and "Worksheet" not in sheet
    else:
        assert "Worksheet" in sheet and "Answer key" in key


def test_render_blank_names_an_unknown_step(tmp_path):
    res = _render(str(HAND), "--out", str(tmp_path / "o"), "--blank", "weights")
    assert res.returncode == 2
    assert "--blank" in res.stderr and "'weights'" in res.stderr and "attention_weights" in res.stderr
    assert "Traceback" not in res.stderr
