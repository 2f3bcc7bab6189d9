"""`python main.py explain FILE STEP INDEX...` and `python main.py script FILE [--out PATH]`, run as
a user runs them.  Expected numbers come from the seed's toy by hand (reference-semantics.md):
head 1 of q1 = [1, 0] and of k4 = [2, 0], so score = 2 / √2; row 2 of the output is exactly 13.

The subprocesses are started together (each spends seconds importing torch)."""
from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from resources import list_presets

ROOT = Path(__file__).resolve().parents[1]
TOY = next(p for p, _ in list_presets() if p.name == "01_tsl_toy.json")
MASKED = next(p for p, _ in list_presets() if p.name == "03_d2l_masked_softmax.json")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out_dir = tmp_path_factory.mktemp("cli_explain")
    commands = {
        "score": ["explain", str(TOY), "scores", "0", "0", "0", "3"],
        "score_zh": ["explain", str(TOY), "scores", "0", "0", "0", "3", "--lang", "zh"],
        "output_json": ["explain", str(TOY), "output", "0", "1", "0", "--json"],
        "masked_json": ["explain", str(MASKED), "masked_scores", "0", "0", "1", "3", "--json"],
        "bad_step": ["explain", str(TOY), "scorez", "0", "0", "0", "3"],
        "bad_range": ["explain", str(TOY), "scores", "0", "2", "0", "0"],
        "bad_count": ["explain", str(TOY), "scores", "0", "0"],
        "bad_number": ["explain", str(TOY), "scores", "0", "0", "x", "1"],
        "bad_file": ["explain", str(out_dir / "missing.json"), "scores", "0", "0", "0", "0"],
        "script_out": ["script", str(TOY), "--out", str(out_dir / "toy.py")],
        "script_stdout": ["script", str(TOY)],
        "script_bad_out": ["script", str(TOY), "--out", str(out_dir / "no" / "such" / "dir.py")],
    }
    procs = {name: subprocess.Popen([sys.executable, "main.py", *args], cwd=ROOT, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True, encoding="utf-8")
             for name, args in commands.items()}
    res = {}
    for name, p in procs.items():
        stdout, stderr = p.communicate(timeout=300)
        res[name] = subprocess.CompletedProcess(commands[name], p.returncode, stdout, stderr)
        assert "Traceback" not in stderr, (name, stderr)
    res["dir"] = out_dir
    return res


@pytest.mark.slow
def test_explain_prints_the_hand_computed_score(runs):
    r = runs["score"]
    assert r.returncode == 0 and r.stderr == ""
    by_hand = f"{2 / math.sqrt(2):.4g}"  # 1.414: 4 significant digits, as the cell shows it
    lines = r.stdout.splitlines()
    assert lines[0].endswith(f"scores[0, 0, 0, 3] = {by_hand}")
    assert any(l.strip() == "q[0]·k[0] = 1 × 2 = 2" for l in lines)
    assert any(l.strip().endswith(f"= {1 / math.sqrt(2):.4g} × 2 = {by_hand}") for l in lines)
    zh = runs["score_zh"]
    assert zh.returncode == 0 and "缩放后的分数" in zh.stdout and by_hand in zh.stdout


@pytest.mark.slow
def test_explain_json_of_the_seed_output_cell(runs):
    r = runs["output_json"]
    assert r.returncode == 0
    d = json.loads(r.stdout)
    assert d["step_id"] == "output" and d["index"] == [0, 1, 0]
    assert d["value"] == pytest.approx(13.0, abs=1e-9) and d["result"] == pytest.approx(13.0, abs=1e-9)
    # identity W_o, zero bias: concat[1] · row 0 of W_o, then the bias
    assert [t["factors"] for t in d["terms"][:4]] == [[pytest.approx(13.0), 1.0], [pytest.approx(14.0), 0.0],
                                                      [pytest.approx(21.695004, abs=1e-6), 0.0],
                                                      [pytest.approx(22.695004, abs=1e-6), 0.0]]
    assert d["terms"][4]["sources"] == [{"ref": "projection.out.bias", "index": [0]}]


@pytest.mark.slow
def test_explain_json_of_a_masked_score(runs):
    d = json.loads(runs["masked_json"].stdout)  # item 0 has valid length 2: key 3 is masked
    assert d["value"] == -1e6 and d["terms"][0]["masked"] is True
    assert "valid length 2" in d["summary"]["en"]


@pytest.mark.slow
@pytest.mark.parametrize("name, message", [
    ("bad_step", "step id: unknown or not explainable 'scorez'; expected one of projection.query"),
    ("bad_range", "index: dim 1 (H) has size 2; expected 0 ... 1, got 2"),
    ("bad_count", "index: scores has 4 dims (B, H, L, S) of sizes [1, 2, 4, 4]; expected 4 indices, got 2"),
    ("bad_number", "index: expected whole numbers, got 0 0 x 1"),
    ("bad_file", "missing.json: file: cannot read"),
    ("script_bad_out", "--out: cannot write"),
])
def test_errors_are_one_line_exit_2(runs, name, message):
    r = runs[name]
    assert r.returncode == 2 and r.stdout == ""
    (line,) = r.stderr.splitlines()
    assert message in line


@pytest.mark.slow
def test_script_to_file_and_stdout(runs):
    r = runs["script_out"]
    assert r.returncode == 0 and r.stdout == "" and r.stderr == ""
    written = (runs["dir"] / "toy.py").read_text(encoding="utf-8")
    assert written == runs["script_stdout"].stdout
    assert "import torch" in written and "show(\"output\", output)" in written
