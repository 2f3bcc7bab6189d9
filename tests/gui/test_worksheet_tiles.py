"""`tiles` beside the step ids: `main.py render --blank tiles` and File ▸ Export worksheet… write
FlashAttention's running-values worksheet and its answer key (issue 19 §4).

The key's numbers are checked against an online softmax written here in float64 from the
hand-computed scores of the preset (the same X as tests/gui/test_worksheet.py), and against
attention.teaching.tiles' own walk of the trace.
"""
from __future__ import annotations

import html
import re
from pathlib import Path

import numpy as np
import pytest
import torch
from PySide6.QtCore import Qt

import attention
from app.startup import render_cli
from app.teaching import worksheet
from attention import words
from attention.files import scenario_io
from attention.teaching.tiles import default_blocks, tiled
from attention.teaching.tiles_worksheet import KEY_NAME, WORKSHEET_NAME

pytestmark = [pytest.mark.gui]
ROOT = Path(__file__).resolve().parents[2]
HAND = ROOT / "resources" / "scenarios" / "08_hand_calculation.json"
INFORMER = ROOT / "resources" / "scenarios" / "07_informer_probsparse.json"
X = torch.tensor([[2, 0, 1, 1], [0, 2, 1, 1], [2, 2, 0, 2]], dtype=torch.float64)
HEADS = X.view(3, 2, 2).transpose(0, 1)  # (H, L, 2): the preset's q = k heads
SCORES = (0.5 * HEADS @ HEADS.transpose(1, 2)).numpy()  # (H, L, S), by hand


def online_softmax(scores: np.ndarray, v: np.ndarray, br: int, bc: int) -> list[np.ndarray]:
    """Per tile in FlashAttention-2 order, rows (m_old, block max, m_new, exp(m_old − m_new), ℓ, O...)."""
    L, S = scores.shape
    out = []
    for r0 in range(0, L, br):
        rows = range(r0, min(L, r0 + br))
        m = {r: -np.inf for r in rows}
        lsum = {r: 0.0 for r in rows}
        o = {r: np.zeros(v.shape[1]) for r in rows}
        for c0 in range(0, S, bc):
            table = []
            for r in rows:
                block = scores[r, c0:c0 + bc]
                m_new = max(m[r], block.max())
                corr = np.exp(m[r] - m_new)
                p = np.exp(block - m_new)
                table.append([m[r], block.max(), m_new, corr, corr * lsum[r] + p.sum(),
                              *(corr * o[r] + p @ v[c0:c0 + bc])])
                m[r], lsum[r], o[r] = m_new, table[-1][4], np.array(table[-1][5:])
            out.append(np.array(table))
    return out


def key_tables(page: str) -> list[list[list[str]]]:
    """The cells of each tile's table on a tiles page (the tables after the first <h3>)."""
    tables = re.findall(r"<h3>.*?</h3><table>(.*?)</table>", page, re.S)
    return [[[html.unescape(c) for c in re.findall(r"<td>(.*?)</td>", row)]
             for row in re.findall(r"<tr><th>[^<]+</th>(.*?)</tr>", t, re.S)] for t in tables]


def as_numbers(cells: list[list[str]]) -> np.ndarray:
    return np.array([[-np.inf if c in ("-∞", "−∞") else float(c) for c in row] for row in cells])


def check_tiles_pages(folder: Path, trace) -> None:
    """The worksheet's tables are empty; the key's equal the reference and attention.teaching.tiles' walk."""
    sheet = (folder / WORKSHEET_NAME).read_text(encoding="utf-8")
    key = (folder / KEY_NAME).read_text(encoding="utf-8")
    v = trace.array("head_split.value")[0, :, 0].astype(np.float64)  # (S, D) batch 0, head 0
    br, bc = default_blocks(3, 3)
    want = online_softmax(SCORES[0], v, br, bc)
    got_key, got_sheet = key_tables(key), key_tables(sheet)
    assert len(got_key) == len(got_sheet) == len(want) == 6  # 2 query blocks × 3 key blocks
    walk = tiled(trace, br, bc)
    for tile, blank, filled, ref in zip(walk.tiles, got_sheet, got_key, want):
        assert all(c.strip() in ("", "\xa0") for row in blank for c in row)
        numbers = as_numbers(filled)
        assert numbers.shape == ref.shape
        assert np.allclose(numbers, ref, rtol=1e-3, atol=1e-4)
        assert np.allclose(numbers[:, 4], tile.l_new[0, 0], rtol=1e-3, atol=1e-4)
        assert np.allclose(numbers[:, 2], tile.m_new[0, 0], rtol=1e-3, atol=1e-4)


def test_render_blank_tiles_writes_the_tiles_pages(tmp_path, qapp, capsys):
    out = tmp_path / "o"
    assert render_cli.main(["render", str(HAND), "--out", str(out), "--blank", "tiles"]) == 0
    printed = capsys.readouterr().out.split()
    assert printed == [str(out / WORKSHEET_NAME), str(out / KEY_NAME)]
    assert not (out / worksheet.WORKSHEET_NAME).exists()  # no step chosen: no step worksheet
    check_tiles_pages(out, attention.run(scenario_io.load(HAND)))


def test_render_blank_steps_and_tiles_writes_all_four(tmp_path, qapp, capsys):
    out = tmp_path / "o"
    assert render_cli.main(["render", str(HAND), "--out", str(out), "--lang", "zh",
                            "--blank", "scores", "--blank", "tiles"]) == 0
    assert capsys.readouterr().out.split() == [str(out / n) for n in (
        worksheet.WORKSHEET_NAME, worksheet.KEY_NAME, WORKSHEET_NAME, KEY_NAME)]
    assert "练习纸" in (out / WORKSHEET_NAME).read_text(encoding="utf-8")
    check_tiles_pages(out, attention.run(scenario_io.load(HAND)))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_render_blank_tiles_refused_for_probsparse_says_why(tmp_path, qapp, capsys, lang):
    out = tmp_path / "o"
    assert render_cli.main(["render", str(INFORMER), "--out", str(out), "--lang", lang, "--blank", "tiles"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("--blank: ") and "Traceback" not in err and "ProbSparse" in err
    assert ("tiles" in err) and (("分块" in err) if lang == "zh" else ("running values" in err))
    assert not list(out.glob("*.html"))


def test_render_blank_unknown_id_names_tiles_as_a_choice(tmp_path, qapp, capsys):
    assert render_cli.main(["render", str(HAND), "--out", str(tmp_path), "--blank", "tile"]) == 2
    err = capsys.readouterr().err
    assert "'tile'" in err and "tiles" in err


def test_the_dialog_offers_tiles_next_to_the_steps(qtbot):
    trace = attention.run(scenario_io.load(HAND))
    dialog = worksheet.WorksheetDialog(trace, [])
    qtbot.addWidget(dialog)
    assert dialog.steps.count() == len(trace.ids) + 1
    item = dialog.steps.item(dialog.steps.count() - 1)
    assert item.data(Qt.ItemDataRole.UserRole) == worksheet.TILES and item.flags() & Qt.ItemFlag.ItemIsEnabled
    item.setCheckState(Qt.CheckState.Checked)
    assert dialog.chosen() == ["tiles"]


def test_the_dialog_greys_tiles_out_for_probsparse_saying_why(qtbot):
    trace = attention.run(scenario_io.load(INFORMER))
    dialog = worksheet.WorksheetDialog(trace, ["tiles"])
    qtbot.addWidget(dialog)
    item = dialog.steps.item(dialog.steps.count() - 1)
    assert not item.flags() & Qt.ItemFlag.ItemIsEnabled and "ProbSparse" in item.toolTip()
    assert dialog.chosen() == []


def test_file_menu_writes_the_tiles_worksheet(window, tmp_path):
    assert window.open_preset(HAND, {"en": "hand"})
    window.recompute.recompute_now()
    window.recompute.wait_idle()
    window.handout.ask_worksheet_steps = lambda trace: ["attention_weights", "tiles"]
    window.handout.ask_folder = lambda: str(tmp_path / "ws")
    window.handout.worksheet_action.trigger()
    folder = tmp_path / "ws"
    assert (folder / worksheet.WORKSHEET_NAME).exists() and (folder / worksheet.KEY_NAME).exists()
    check_tiles_pages(folder, attention.run(scenario_io.load(HAND)))
    assert "worksheet" in window.statusBar().currentMessage().lower()


def test_file_menu_refuses_tiles_for_probsparse_with_a_message(window, tmp_path):
    assert window.open_preset(INFORMER, {"en": "informer"})
    window.recompute.recompute_now()
    window.recompute.wait_idle()
    shown = []
    window.show_messages = lambda title, lines, *a, **k: shown.append((title, lines))
    window.handout.ask_worksheet_steps = lambda trace: ["tiles"]
    window.handout.ask_folder = lambda: str(tmp_path / "ws")
    assert window.handout.export_worksheet() is False
    assert not list(tmp_path.rglob("*.html"))
    assert words.text("worksheet.tiles_refused", "en", why="")[:20] in str(shown)
