"""attention.files.trace_cache: the start-up trace on disk is exactly the engine's, or nothing."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import attention
import resources
from attention.files import scenario_io, trace_cache


def _preset(i: int = 0):
    return scenario_io.load(resources.list_presets()[i][0])


def test_round_trip_gives_back_every_step_exactly(tmp_path):
    for i in (0, 2, 7):  # toy, masked softmax (bool mask steps), ProbSparse (NaN rows, int indices)
        sc = _preset(i)
        trace = attention.run(sc)
        path = tmp_path / f"t{i}.npz"
        assert trace_cache.save(trace, sc, path)
        back = trace_cache.load(sc, path)
        assert back is not None and back.ids == trace.ids
        for sid in trace.ids:
            a, b = trace.array(sid), back.array(sid)
            assert a.dtype == b.dtype and a.shape == b.shape and back[sid].dims == trace[sid].dims
            assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), sid
        assert back.options == trace.options and back.warnings == trace.warnings


def test_warnings_come_back_as_problems_in_both_languages(tmp_path):
    """A kept trace's warnings are problems (code, path, arguments), so the window still shows
    them in Chinese after a restart, not the English they were written in."""
    sc = dataclasses.replace(_preset(0), valid_lens=np.array([0.0]))
    trace = attention.run(sc)
    assert trace_cache.save(trace, sc, tmp_path / "w.npz")
    back = trace_cache.load(sc, tmp_path / "w.npz")
    assert back.warnings == trace.warnings and len(back.warnings) == 1
    assert back.warnings[0].text("zh") == trace.warnings[0].text("zh") != trace.warnings[0].text("en")


def test_another_scenario_or_engine_gets_nothing(tmp_path, monkeypatch):
    sc = _preset(0)
    path = tmp_path / "t.npz"
    trace_cache.save(attention.run(sc), sc, path)
    q = sc.queries.copy()
    q[0, 0, 0] += 1.0
    assert trace_cache.load(dataclasses.replace(sc, queries=q), path) is None
    assert trace_cache.load(dataclasses.replace(sc, causal=True), path) is None
    monkeypatch.setattr(trace_cache, "engine_fingerprint", lambda: "an edited engine")
    assert trace_cache.load(sc, path) is None


def test_missing_or_broken_files_are_ignored(tmp_path):
    sc = _preset(0)
    assert trace_cache.load(sc, tmp_path / "none.npz") is None
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip file")
    assert trace_cache.load(sc, bad) is None


def test_big_traces_are_not_kept(tmp_path, monkeypatch):
    sc = _preset(0)
    monkeypatch.setattr(trace_cache, "MAX_BYTES", 16)
    assert not trace_cache.save(attention.run(sc), sc, tmp_path / "t.npz")
    assert not (tmp_path / "t.npz").exists()


def test_the_shipped_start_up_trace_is_the_engines_for_the_first_preset():
    """The very first launch draws attention/files/startup-trace.npz (the canary) before torch loads: it
    must hold what the engine computes now (rebuild it with `python -m attention.files.trace_cache FIRST_PRESET`).
    Numbers, not source: equal to the last bits a float32 sum may differ in between torch builds."""
    sc = _preset(0)
    shipped = trace_cache.load_canary(sc)
    assert shipped is not None, ("stale or missing: run `.venv/bin/python -m attention.files.trace_cache "
                                 "resources/scenarios/01_tsl_toy.json`")
    fresh = attention.run(sc)
    assert shipped.ids == fresh.ids and shipped.options == fresh.options
    for sid in fresh.ids:
        a, b = fresh.array(sid), shipped.array(sid)
        assert a.dtype == b.dtype and a.shape == b.shape, sid
        if a.dtype.kind == "f":
            assert np.allclose(a, b, rtol=1e-6, atol=1e-7, equal_nan=True), f"{sid}: rebuild the canary"
        else:
            assert np.array_equal(a, b), f"{sid}: rebuild the canary"


@pytest.mark.slow
def test_a_comment_in_the_engine_keeps_every_kept_trace(tmp_path):
    """The key is what the engine computes (the canary's numbers), not its source: a copy of
    attention/ with a comment added to every module still finds the shipped trace and the user's."""
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    sc = _preset(0)
    kept = tmp_path / "kept.npz"
    assert trace_cache.save(attention.run(sc), sc, kept)
    copy = tmp_path / "src"
    shutil.copytree(root / "attention", copy / "attention", ignore=shutil.ignore_patterns("__pycache__"))
    for f in (copy / "attention").rglob("*.py"):
        f.write_text(f.read_text(encoding="utf-8") + "\n# an edited comment\n", encoding="utf-8")
    code = ("import sys, resources; from attention.files import scenario_io, trace_cache as tc\n"
            "assert tc.__file__.startswith(sys.argv[1]), tc.__file__\n"
            "sc = scenario_io.load(resources.list_presets()[0][0])\n"
            "print(tc.load_canary(sc) is not None, tc.load(sc, sys.argv[2]) is not None)\n")
    env = {"PYTHONPATH": f"{copy}:{root}", "PATH": "/usr/bin:/bin"}
    res = subprocess.run([sys.executable, "-c", code, str(copy), str(kept)], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["True", "True"]


def test_new_canary_numbers_retire_every_kept_trace(tmp_path, monkeypatch):
    """When the engine computes otherwise, the rebuilt canary changes the fingerprint, and traces
    kept by the older engine are no longer drawn."""
    sc = _preset(0)
    kept = tmp_path / "kept.npz"
    trace = attention.run(sc)
    assert trace_cache.save(trace, sc, kept)
    assert trace_cache.load(sc, kept) is not None
    before = trace_cache.engine_fingerprint()
    changed = attention.Trace(tuple(dataclasses.replace(s, tensor=s.numpy() + (1 if s.numpy().dtype.kind == "f" else 0))
                                    for s in trace.steps), trace.options, {}, trace.warnings)
    canary = tmp_path / "canary.npz"
    trace_cache.save(changed, sc, canary, engine=trace_cache.CANARY)
    monkeypatch.setattr(trace_cache, "canary_path", lambda: canary)
    assert trace_cache.engine_fingerprint() != before
    assert trace_cache.load(sc, kept) is None
    assert trace_cache.load_canary(sc) is not None and not trace_cache.same_numbers(trace_cache.load_canary(sc), trace)


def test_same_numbers_sees_one_changed_cell_and_equal_nans():
    sc = _preset(7)  # ProbSparse: NaN rows
    a = attention.run(sc)
    assert trace_cache.same_numbers(a, attention.run(sc))
    w = a.array("attention_weights").copy()
    w.flat[0] += 1e-3
    b = attention.Trace(tuple(dataclasses.replace(s, tensor=w) if s.id == "attention_weights" else s for s in a.steps),
                        a.options, {}, a.warnings)
    assert not trace_cache.same_numbers(a, b)
