"""`python main.py tiles FILE --block-q N --block-k M [--batch B --head H] [--json]`, run as a user runs it.

The expected numbers are worked out by hand below on a scenario small enough for paper: one head
of width 1, no projections, dot scoring, q = 1, 2 and k = 0, 1, 2, so the scores are the rows
[0, 1, 2] and [0, 2, 4]; the values are 1, 2, 3."""
from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from attention import Scenario
from attention.cli import main
from attention.files import scenario_io

ROOT = Path(__file__).resolve().parents[1]
e = math.exp


def write(tmp_path: Path, name: str = "hand.json", **options) -> str:
    sc = Scenario(queries=np.array([[[1.0], [2.0]]]), keys=np.array([[[0.0], [1.0], [2.0]]]),
                  values=np.array([[[1.0], [2.0], [3.0]]]), n_heads=1, projections={}, scoring="dot", **options)
    path = tmp_path / name
    scenario_io.save(sc, path)
    return str(path)


def run_json(capsys, *argv) -> dict:
    assert main(["tiles", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_by_hand(tmp_path, capsys):
    got = run_json(capsys, write(tmp_path), "--block-q", "2", "--block-k", "2")
    assert (got["block_q"], got["block_k"]) == (2, 2)
    tiles = got["tiles"]
    assert [(t["batch"], t["head"], t["q_block"], t["k_block"]) for t in tiles] == [(0, 0, 0, 0), (0, 0, 0, 1)]
    assert tiles[1]["key_range"] == [2, 3] and tiles[0]["query_range"] == [0, 2]
    np.testing.assert_allclose(tiles[0]["row_max"], [1, 2])  # max of [0, 1] and of [0, 2]
    np.testing.assert_allclose(tiles[0]["row_sum"], [e(-1) + 1, e(-2) + 1], rtol=1e-15)
    np.testing.assert_allclose(tiles[1]["row_max"], [2, 4])
    l0, l1 = e(-2) + e(-1) + 1, e(-4) + e(-2) + 1  # corrected by e^-1 and e^-2, plus e^0 of the new key
    np.testing.assert_allclose(tiles[1]["row_sum"], [l0, l1], rtol=1e-15)
    want = [[[(1 * e(-2) + 2 * e(-1) + 3) / l0]], [[(1 * e(-4) + 2 * e(-2) + 3) / l1]]]  # (L, H, D) of item 0
    assert got["output_dims"] == ["B", "L", "H", "dv"]
    np.testing.assert_allclose(got["output"], [want], rtol=1e-15)
    assert 0 <= got["max_abs_diff"] < 1e-15


def test_blocks_that_do_not_divide_and_one_head(tmp_path, capsys):
    got = run_json(capsys, write(tmp_path), "--block-q", "1", "--block-k", "2", "--batch", "1", "--head", "1")
    assert [(t["q_block"], t["k_block"]) for t in got["tiles"]] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert got["output_dims"] == ["L", "dv"] and len(got["output"]) == 2
    np.testing.assert_allclose(got["tiles"][2]["row_sum"], [e(-2) + 1])  # query 2 over keys 0, 1


def test_a_fully_masked_row_under_minus_infinity(tmp_path, capsys):
    path = write(tmp_path, valid_lens=np.array([[2.0, 0.0]]), fill_value=-math.inf)
    got = run_json(capsys, path, "--block-q", "1", "--block-k", "2")
    second = [t for t in got["tiles"] if t["q_block"] == 1]
    assert all(t["skipped"] for t in second)  # every key of query 2 masked: both tiles skipped
    assert second[-1]["row_max"] == ["-Infinity"] and second[-1]["row_sum"] == [0]
    assert got["output"][0][1] == [["NaN"]]  # as the engine's row: NaN (no defined attention)
    assert 0 <= got["max_abs_diff"] < 1e-15  # NaN against NaN counts as equal (not "NaN", not inf)


def test_text_counts_from_one_in_both_languages(tmp_path, capsys):
    path = write(tmp_path)
    assert main(["tiles", path, "--block-q", "2", "--block-k", "2"]) == 0
    out = capsys.readouterr().out
    assert "query block 1 (queries 1–2) × key block 2 (keys 3)" in out
    assert "running row sum ℓ: [1.368, 1.135]" in out  # e^-1 + 1, e^-2 + 1 to 4 digits
    assert "Largest difference" in out and "At L = S = 32768" in out
    assert main(["tiles", path, "--block-q", "2", "--block-k", "2", "--lang", "zh"]) == 0
    assert "查询块 1（查询 1–2）× 键块 2（键 3）" in capsys.readouterr().out


@pytest.mark.parametrize("argv, words", [
    (["--block-q", "0"], "--block-q: expected a whole number of at least 1, got 0"),
    (["--block-k", "-2"], "--block-k: expected a whole number of at least 1, got -2"),
    (["--batch", "2"], "--batch: batch items are counted from 1; this scenario has 1, numbered 1 … 1; got 2"),
    (["--head", "3"], "--head: heads are counted from 1; this scenario has 1, numbered 1 … 1; got 3"),
    (["--head", "0"], "--head: heads are counted from 1; this scenario has 1, numbered 1 … 1; got 0"),
    (["--batch", "0"], "--batch: batch items are counted from 1; this scenario has 1, numbered 1 … 1; got 0"),
])
def test_bad_options_get_one_line(tmp_path, capsys, argv, words):
    path = write(tmp_path)
    assert main(["tiles", path, *argv]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"{path}: {words}"


def test_prob_sparse_says_it_does_not_apply(capsys):
    path = str(ROOT / "resources" / "scenarios" / "07_informer_probsparse.json")
    assert main(["tiles", path]) == 2
    err = capsys.readouterr().err
    assert "does not apply to ProbSparse" in err and "lazy" in err and "Traceback" not in err


@pytest.mark.slow  # starts main.py in a child process
def test_main_py_runs_it_headless(tmp_path):
    path = write(tmp_path)
    done = subprocess.run([sys.executable, "main.py", "tiles", path, "--json"], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert (got["block_q"], got["block_k"]) == (1, 1)  # default: L / 2 = 1, S / 3 = 1
    assert len(got["tiles"]) == 6


def test_blank_writes_a_worksheet_without_answers_and_its_key(tmp_path, capsys):
    path = write(tmp_path)
    out = tmp_path / "sheet"
    assert main(["tiles", path, "--block-q", "2", "--block-k", "2", "--blank", "--out", str(out)]) == 0
    assert "tiles_worksheet.html" in capsys.readouterr().out
    sheet = (out / "tiles_worksheet.html").read_text(encoding="utf-8")
    key = (out / "tiles_answer_key.html").read_text(encoding="utf-8")
    l_after_first = f"{e(-1) + 1:.4g}"  # ℓ of query 1 after keys 1-2, by hand: 1.368
    out_row = f"{(1 * e(-2) + 2 * e(-1) + 3) / (e(-2) + e(-1) + 1):.4g}"  # O / ℓ of query 1
    assert f"<td>{l_after_first}</td>" in key and f"<td>{out_row}</td>" in key
    assert l_after_first not in sheet and out_row not in sheet
    # 2 tiles x 2 query rows x (m_old, tile max, m_new, correction, ℓ, O[1]) + O / ℓ of 2 queries
    assert sheet.count("<td>&nbsp;</td>") == 2 * 2 * 6 + 2 and "&nbsp;</td>" not in key
    assert '<td class="tile-edge-left">4</td>' in sheet  # the given scores stay (query 2 x key 3 = 2 x 2)
    assert main(["tiles", path, "--blank", "--out", str(out), "--lang", "zh"]) == 0
    assert "练习纸" in (out / "tiles_worksheet.html").read_text(encoding="utf-8")


def test_blank_needs_a_folder(tmp_path, capsys):
    path = write(tmp_path)
    assert main(["tiles", path, "--blank"]) == 2
    assert "--out DIR" in capsys.readouterr().err


def test_explain_a_running_value(tmp_path, capsys):
    path = write(tmp_path)
    assert main(["tiles", path, "--block-q", "2", "--block-k", "2", "--explain", "2", "l", "1"]) == 0  # tile 2, query 1
    text = capsys.readouterr().out
    assert text.startswith("running sum ℓ of query 1 after query block 1 × key block 2 = 1.503")  # (e^-1+1)e^-1+1
    assert "correction exp(m_old − m_new) = exp(1 − 2) = 0.3679" in text
    assert main(["tiles", path, "--block-q", "2", "--block-k", "2", "--explain", "2", "O", "2", "1", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["what"] == "O" and abs(got["value"] - (1 * e(-4) + 2 * e(-2) + 3)) < 1e-14
    assert main(["tiles", path, "--explain", "1", "x", "1"]) == 2
    assert "--explain: what: expected one of m, l, O" in capsys.readouterr().err
    assert main(["tiles", path, "--explain", "1", "l"]) == 2
    assert "expected TILE WHAT ROW [COL]" in capsys.readouterr().err
    assert main(["tiles", path, "--explain", "0", "l", "1"]) == 2  # counted from 1, as the text prints them
    assert "counted from 1" in capsys.readouterr().err


def test_head_counts_from_one_as_the_text_prints_it(tmp_path, capsys):
    """`--head 2` is the second head: the text names only head 2, and its numbers are the second head's."""
    path = str(ROOT / "resources" / "scenarios" / "06_causal_self_attention.json")
    assert main(["tiles", path, "--head", "2", "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    assert "第 2 头" in out and "第 1 头" not in out
    every = run_json(capsys, path)
    second = run_json(capsys, path, "--head", "2")
    want = np.asarray(every["output"])[:, :, 1]  # (B, L, H, dv): head index 1 is head 2
    np.testing.assert_array_equal(np.asarray(second["output"]), want)
    assert {t["head"] for t in second["tiles"]} == {1}  # JSON keeps code's count, as trace files do
