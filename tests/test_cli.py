"""The headless CLI, run as a user runs it: `python main.py validate|trace|presets ...`.

The subprocesses are started together (each spends seconds importing torch) and awaited by
the tests that read them."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from attention import cli
from resources import list_presets

ROOT = Path(__file__).resolve().parents[1]
PRESETS = {p.name: p for p, _ in list_presets()}
TOY = PRESETS["01_tsl_toy.json"]
SPARSE = PRESETS["07_informer_probsparse.json"]
HOSTILE = ROOT / "tests" / "hostile"

# The seed's toy (000_*.txt): the inputs, written down from the study note.
SEED_X = np.array([[1, 0, 2, 1], [0, 1, 1, 2], [1, 1, 0, 1], [2, 0, 1, 0]], dtype=np.float64)
SEED_V = np.array([[10, 11, 20, 21], [12, 13, 22, 23], [14, 15, 24, 25], [16, 17, 26, 27]], dtype=np.float64)


def _bad_file(folder: Path) -> Path:
    doc = json.loads(TOY.read_text(encoding="utf-8"))
    doc["mask"]["causl"] = True
    doc["queries"][0][2] = [1, 1, 0]
    doc["projections"]["query"]["weight"] = [row[:3] for row in doc["projections"]["query"]["weight"]]
    path = folder / "bad.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """name -> CompletedProcess-like (returncode, stdout, stderr), all started at once."""
    folder = tmp_path_factory.mktemp("cli")
    bad = _bad_file(folder)
    os.mkfifo(folder / "fifo.json")
    commands = {
        "validate_fifo": ["validate", str(folder / "fifo.json")],
        "validate_zero": ["validate", "/dev/zero"],
        "validate_huge": ["validate", str(HOSTILE / "huge_n_heads.json")],
        "trace_huge_mean": ["trace", str(HOSTILE / "huge_generator_mean.json")],
        "validate_ok": ["validate", str(TOY)],
        "validate_bad": ["validate", str(bad)],
        "trace_toy": ["trace", str(TOY)],
        "trace_sparse": ["trace", str(SPARSE), "--dtype", "float32"],
        "presets": ["presets"],
    }
    procs = {name: subprocess.Popen([sys.executable, "main.py", *args], cwd=ROOT, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True, encoding="utf-8")
             for name, args in commands.items()}
    out = {}
    for name, p in procs.items():
        stdout, stderr = p.communicate(timeout=300)
        out[name] = subprocess.CompletedProcess(commands[name], p.returncode, stdout, stderr)
    for name, r in out.items():
        assert "Traceback" not in r.stderr, (name, r.stderr)
    out["bad_path"] = bad
    return out


@pytest.mark.slow
def test_validate_ok_prints_one_summary_line(runs):
    r = runs["validate_ok"]
    assert r.returncode == 0 and r.stderr == ""
    (line,) = r.stdout.splitlines()
    assert line.startswith('ok: "Time-Series-Library toy')
    for part in ("B=1", "L=4", "S=4", "d_model=4", "H=2", "scoring=scaled_dot", "mask=none"):
        assert part in line.split()


@pytest.mark.slow
def test_validate_bad_lists_every_problem_on_stderr(runs):
    r = runs["validate_bad"]
    assert r.returncode == 2 and r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 2  # the weight shape comes from the engine checks, which need a parsed file
    assert any(l.endswith("bad.json: mask.causl: unknown field; expected one of causal, valid_lens, fill_value")
               for l in lines)
    assert any(l.endswith("bad.json: queries[0][2] (batch item 1, row 3): expected 4 numbers, got 3") for l in lines)


@pytest.mark.slow
def test_trace_of_a_bad_file_gives_the_same_lines(runs, capsys):
    assert cli.main(["trace", str(runs["bad_path"])]) == 2
    err = capsys.readouterr()
    assert err.out == "" and err.err == runs["validate_bad"].stderr


@pytest.mark.slow
def test_trace_toy_output_equals_the_seed_hand_computation(runs):
    r = runs["trace_toy"]
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["format"] == "attention-explorer/trace" and doc["version"] == 1
    steps = {s["id"]: s for s in doc["steps"]}
    # Independent: identity projections, two heads of width 2, softmax(q k^T / sqrt(2)) v, concat.
    heads = []
    for h in range(2):
        q = SEED_X[:, 2 * h:2 * h + 2]
        scores = q @ q.T / np.sqrt(2)
        w = np.exp(scores - scores.max(axis=1, keepdims=True))
        w /= w.sum(axis=1, keepdims=True)
        heads.append(w @ SEED_V[:, 2 * h:2 * h + 2])
    expected = np.concatenate(heads, axis=1)
    np.testing.assert_allclose(np.array(steps["output"]["data"])[0], expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(np.array(steps["output"]["data"])[0][1, :2], [13, 14], atol=1e-12)  # by hand
    assert steps["head_split.query"]["data"][0][0] == [[1.0, 0.0], [2.0, 1.0]]
    assert steps["scores"]["dims"] == ["B", "H", "L", "S"] and steps["scores"]["shape"] == [1, 2, 4, 4]
    assert doc["scenario"]["scale"] == pytest.approx(1 / np.sqrt(2))
    assert doc["scenario"]["title"]["en"].startswith("Time-Series-Library toy")
    assert doc["parameters"]["queries"] == [SEED_X.tolist()]
    assert doc["parameters"]["projection.out.bias"] == [0.0] * 4
    assert doc["warnings"] == []


@pytest.mark.slow
def test_trace_prob_sparse_is_strict_json_with_nan_strings(runs):
    r = runs["trace_sparse"]
    assert r.returncode == 0, r.stderr
    assert '"NaN"' in r.stdout and "NaN," not in r.stdout.replace('"NaN",', "")

    def refuse(constant):
        raise AssertionError(f"non-standard JSON constant {constant}")

    doc = json.loads(r.stdout, parse_constant=refuse)
    assert doc["scenario"]["dtype"] == "float32" and doc["scenario"]["scoring"] == "prob_sparse"
    steps = {s["id"]: s for s in doc["steps"]}
    L, n_top = doc["scenario"]["L"], doc["scenario"]["n_top"]
    for h in range(2):
        rows = steps["scores"]["data"][0][h]
        lazy = [row for row in rows if all(v == "NaN" for v in row)]
        assert len(lazy) == L - n_top > 0
        selected = steps["extra.selected"]["data"][0][h]
        assert sum(selected) == n_top and all(isinstance(v, bool) for v in selected)
    assert all(isinstance(i, int) for i in steps["extra.top_index"]["data"][0][0])


def test_trace_cuda_without_cuda_is_a_clear_error(capsys):
    code = cli.main(["trace", str(TOY), "--device", "cuda"])
    out, err = capsys.readouterr()
    if torch.cuda.is_available():
        assert code == 0 and json.loads(out)["scenario"]["device"] == "cuda"
    else:
        assert code == 2 and out == ""
        assert err.splitlines() == [
            f"{TOY}: device: CUDA was requested but torch.cuda.is_available() is False on this machine; use 'cpu'"]


@pytest.mark.slow
def test_presets_lists_every_file_with_both_titles(runs):
    r = runs["presets"]
    assert r.returncode == 0
    rows = [line.split("\t") for line in r.stdout.splitlines()]
    assert [row[0] for row in rows] == sorted(PRESETS)
    assert rows[0][0] == "01_tsl_toy.json"
    for (name, en, zh), (path, title) in zip(rows, list_presets()):
        assert (name, en, zh) == (path.name, title["en"], title["zh"])


def test_usage_errors_exit_2_with_usage(capsys):
    assert cli.main(["validate"]) == 2
    err = capsys.readouterr().err
    assert "usage:" in err and "FILE" in err and "Traceback" not in err


def test_help_and_bad_options_in_process(capsys):
    assert cli.main(["--help"]) == 0
    assert "validate" in capsys.readouterr().out
    assert cli.main(["trace", str(TOY), "--dtype", "float16"]) == 2
    assert "invalid choice: 'float16'" in capsys.readouterr().err
    assert cli.main(["frobnicate"]) == 2


# ---- hostile input (issue 13) ---------------------------------------------------------------------

@pytest.mark.slow  # the `runs` fixture starts main.py nine times
def test_paths_that_are_not_files_are_refused_at_once(runs):
    """A FIFO would block forever and /dev/zero never ends: both are refused before reading."""
    for name, what in (("validate_fifo", "a pipe (FIFO)"), ("validate_zero", "a device")):
        r = runs[name]
        assert r.returncode == 2 and r.stdout == "", (name, r.stderr)
        assert r.stderr.endswith(f": file: {what}, not a regular file; open a scenario file (.json)\n"), r.stderr


@pytest.mark.slow  # the `runs` fixture starts main.py nine times
def test_huge_integers_get_the_projects_own_error_naming_the_field(runs):
    r = runs["validate_huge"]
    assert r.returncode == 2 and "Error" not in r.stderr
    assert r.stderr.endswith("n_heads: expected a whole number >= 1 and <= 2147483647, got a very long number\n")
    r = runs["trace_huge_mean"]
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.endswith("queries.mean: expected a finite number between -1e300 and 1e300, got ~10^400\n")


def test_many_problems_are_capped_with_a_count(tmp_path, capsys):
    doc = json.loads(TOY.read_text(encoding="utf-8"))
    doc.update({f"field{i}": i for i in range(5000)})
    path = tmp_path / "many.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert cli.main(["validate", str(path)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 20 and lines[0].endswith("many.json: field0: unknown field; expected one of format, version, "
                                                   "title, notes, weights_note, time_axis, query_tokens, "
                                                   "key_tokens, queries, keys, values, "
                                                   "n_heads, n_kv_heads, d_keys, d_values, projections, scoring, "
                                                   "scale, additive, mask, prob_sparse, positions, modifiers, masks, "
                                                   "seed, device, dtype")
    assert lines[-1] == f"{path}: \u2026 and 4,981 more"


def test_a_megabyte_value_is_quoted_short(tmp_path, capsys):
    doc = json.loads(TOY.read_text(encoding="utf-8"))
    doc["scoring"] = "x" * (1 << 20)
    path = tmp_path / "long.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert cli.main(["validate", str(path)]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"{path}: scoring: unknown kind 'xxx")
    said = line.removeprefix(f"{path}: ")  # the file's name is as long as the temporary folder (xdist: longer)
    assert len(said) < 200 and "\u2026" in said


def test_validate_does_not_print_a_huge_title(tmp_path, capsys):
    doc = json.loads(TOY.read_text(encoding="utf-8"))
    doc["title"]["en"] = "T" * 10_000_000
    path = tmp_path / "title.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert cli.main(["validate", str(path)]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert len(line) < 250 and line.startswith('ok: "TTTT') and "\u2026" in line


def test_validate_refuses_what_trace_and_the_window_refuse(capsys):
    """A float32 file with a number beyond float32's range: one check, shared (issue 13 item 9)."""
    path = HOSTILE / "float32_overflow.json"
    assert cli.main(["validate", str(path)]) == 2
    validate = capsys.readouterr().err
    assert cli.main(["trace", str(path)]) == 2
    assert capsys.readouterr().err == validate
    assert validate.endswith("queries: a number is beyond float32's range (about ±3.403e38); use float64 or smaller "
                             "numbers\n")
    from app.pipeline.recompute import compute
    from attention.files import scenario_io

    trace, problems = compute(scenario_io.load(path, check=False))
    assert trace is None and [p.text("en") for p in problems] == [validate.split(": ", 1)[1].rstrip("\n")]


def test_a_json_syntax_error_names_line_and_column(capsys):
    assert cli.main(["validate", str(HOSTILE / "long_number.json")]) == 2
    assert capsys.readouterr().err.endswith(
        "file: invalid JSON at line 3, column 10: a number with 5,000 digits; at most 4,300 digits are read\n")


def test_validate_refuses_cuda_where_trace_does(tmp_path, capsys, monkeypatch):
    """Issue 21: `validate` said ok to "device": "cuda" on a machine where `trace` refuses it."""
    doc = json.loads(TOY.read_text(encoding="utf-8"))
    doc["device"] = "cuda"
    path = tmp_path / "cuda.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert cli.main(["validate", str(path)]) == 2
    validate = capsys.readouterr().err
    assert cli.main(["trace", str(path)]) == 2
    assert capsys.readouterr().err == validate == (
        f"{path}: device: CUDA was requested but torch.cuda.is_available() is False on this machine; use 'cpu'\n")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)  # validate itself never touches the device
    assert cli.main(["validate", str(path)]) == 0
