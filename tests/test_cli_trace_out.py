"""`main.py trace` knows how big its output would be (issue 13 item 5): it refuses JSON text
above a limit before building any, saying how big it would be, and offers a compact .npz
(--out FILE.npz) and only some steps (--steps a,b)."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

import attention
from attention import cli
from attention.compute import engine
from attention.files import scenario_io, trace_json, trace_out
from resources import list_presets

PRESETS = [p for p, _ in list_presets()]
TOY = PRESETS[0]


def _run(capsys, *args):
    code = cli.main(["trace", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_above_the_limit_is_refused_before_it_is_built(capsys, monkeypatch):
    built = []
    monkeypatch.setattr(trace_json, "trace_to_dict", lambda *a, **k: built.append(1))
    code, out, err = _run(capsys, TOY, "--max-json", "2KB")
    assert code == 2 and out == "" and not built
    line = err.strip()
    assert "\n" not in line and "KiB as JSON text" in line
    assert "--out FILE.npz" in line and "--steps" in line and "--max-json" in line


def test_the_estimate_is_close_to_the_real_size():
    for path in PRESETS:
        sc = scenario_io.load(path)
        trace = attention.run(sc)
        real = len(trace_json.dumps(trace, sc))
        assert 0.8 * real <= trace_out.estimate_json_bytes(trace) <= 1.25 * real, path.name


def test_npz_holds_every_step_exactly(capsys, tmp_path):
    target = tmp_path / "toy.npz"
    code, out, err = _run(capsys, TOY, "--out", target)
    assert code == 0 and out == "" and err == ""
    trace = attention.run(scenario_io.load(TOY))
    with np.load(target, allow_pickle=False) as z:
        meta = json.loads(str(z["meta"]))
        assert meta["format"] == "attention-explorer/trace" and meta["encoding"] == "npz"
        assert [s["id"] for s in meta["steps"]] == list(trace.ids)
        for s in trace.steps:
            got = z[f"step/{s.id}"]
            assert got.shape == s.shape and got.dtype == s.numpy().dtype
            assert np.array_equal(got, s.numpy(), equal_nan=True), s.id
        for name, t in trace.parameters.items():
            assert np.array_equal(z[f"parameter/{name}"], t.numpy())
    assert os.listdir(tmp_path) == ["toy.npz"]


def test_only_the_steps_asked_for(capsys):
    code, out, _ = _run(capsys, TOY, "--steps", "scores,attention_weights")
    assert code == 0
    doc = json.loads(out)
    assert [s["id"] for s in doc["steps"]] == ["scores", "attention_weights"]
    full = attention.run(scenario_io.load(TOY))
    for s in doc["steps"]:
        assert np.array_equal(np.array(s["data"]), full.array(s["id"]))
    assert set(doc["parameters"]) == set(full.parameters)


def test_steps_make_a_big_trace_fit(capsys):
    sc = scenario_io.load(TOY)
    trace = attention.run(sc)
    small = trace_out.estimate_json_bytes(trace, ["attention_weights"])
    assert small < trace_out.estimate_json_bytes(trace)
    code, out, _ = _run(capsys, TOY, "--steps", "attention_weights", "--max-json", str(small + 1024))
    assert code == 0 and [s["id"] for s in json.loads(out)["steps"]] == ["attention_weights"]


def test_an_unknown_step_is_named(capsys):
    code, out, err = _run(capsys, TOY, "--steps", "scores,nope")
    assert code == 2 and out == "" and "no step 'nope'" in err and "scores" in err


@pytest.mark.parametrize("bad", [["--out", "trace.txt"], ["--max-json", "lots"]])
def test_bad_options(capsys, tmp_path, bad):
    code, out, err = _run(capsys, TOY, *bad)
    assert code == 2 and out == "" and err.count("\n") == 1


def test_json_to_a_file(capsys, tmp_path):
    code, out, _ = _run(capsys, TOY, "--out", tmp_path / "t.json")
    assert code == 0 and out == ""
    assert json.loads((tmp_path / "t.json").read_text())["format"] == "attention-explorer/trace"


def test_a_write_protected_output_is_refused(capsys, tmp_path):
    """Even a file the command may otherwise replace (empty, or its own kind: attention/out_guard.py)."""
    from attention.files.out_guard import SCRIPT_MARK

    target = tmp_path / "t.npz"
    target.write_bytes(b"")
    os.chmod(target, 0o444)
    code, _, err = _run(capsys, TOY, "--out", target)
    assert code == 2 and "write-protected" in err and target.read_bytes() == b""
    script = tmp_path / "s.py"
    script.write_text(SCRIPT_MARK + " kept\n")
    os.chmod(script, 0o444)
    assert cli.main(["script", str(TOY), "--out", str(script)]) == 2
    assert script.read_text() == SCRIPT_MARK + " kept\n" and "write-protected" in capsys.readouterr().err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_an_output_that_is_a_pipe_is_refused_and_left_a_pipe(capsys, tmp_path):
    import stat

    for name, argv in (("t.npz", ["trace", str(TOY)]), ("t.json", ["trace", str(TOY)]), ("s.py", ["script", str(TOY)])):
        target = tmp_path / name
        os.mkfifo(target)
        assert cli.main([*argv, "--out", str(target)]) == 2
        err = capsys.readouterr().err
        assert err == f"{target}: a pipe (FIFO), not a regular file; nothing was written (choose a file name)\n"
        assert stat.S_ISFIFO(os.stat(target).st_mode)


@pytest.mark.parametrize("text, n", [("0", 0), ("500MB", 500 * 2**20), ("2g", 2 * 2**30), ("1024", 1024),
                                     ("1.5KiB", 1536), ("lots", None), ("-1", None)])
def test_parse_size(text, n):
    assert trace_out.parse_size(text) == n


# ---- refused from the shapes, before computing (issue 21: 13-17 s and 4-5 GB before the refusal) ------

def _big_scenario(tmp_path, L: int = 400):
    doc = {"format": "attention-explorer/scenario", "version": 1, "n_heads": 2}
    for i, name in enumerate(("queries", "keys", "values")):
        doc[name] = {"generate": "normal", "shape": [1, L, 8], "seed": i}
    path = tmp_path / "big.json"
    path.write_text(json.dumps(doc))
    return path


def test_a_trace_too_big_for_json_is_refused_before_it_is_computed(capsys, monkeypatch, tmp_path):
    ran = []
    monkeypatch.setattr(engine, "run", lambda *a, **k: ran.append(1) or 1 / 0)  # what `main.py trace` runs
    # at least 3 * 400 * 8 inputs + 2 * 400 * 400 weights = 329,600 numbers, 5 characters each: 1.6 MB
    code, out, err = _run(capsys, _big_scenario(tmp_path), "--max-json", "1MB")
    assert code == 2 and out == "" and ran == []
    line = err.strip()
    assert "\n" not in line and "at least 329,600 numbers" in line and "nothing was computed" in line
    assert "--max-json 0" in line
    code, _, _ = _run(capsys, _big_scenario(tmp_path), "--max-json", "1MB", "--out", tmp_path / "t.npz")
    assert ran == [1]  # .npz is not JSON: it is computed (and the stub fails)


def test_the_shape_count_never_exceeds_the_real_json():
    """least_numbers * MIN_CHARS is a lower bound, or the early refusal would refuse a trace that fits."""
    for path in PRESETS:
        sc = scenario_io.load(path)
        trace = attention.run(sc)
        for steps in (None, ["attention_weights"], ["output"], ["scores", "attention_weights"]):
            real = len(trace_json.dumps(trace, sc, steps=steps))
            assert trace_out.least_numbers(sc, steps) * trace_out.MIN_CHARS <= real, (path.name, steps)
