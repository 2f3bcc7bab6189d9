"""attention.trace_cache: the start-up trace on disk is exactly the engine's, or nothing."""
from __future__ import annotations

import dataclasses

import numpy as np

import attention
import resources
from attention import scenario_io, trace_cache


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
    """The very first launch draws resources/startup-trace.npz before torch loads: it must be
    exactly what the engine computes now (rebuild it with `python -m attention.trace_cache`)."""
    sc = _preset(0)
    shipped = trace_cache.load(sc, resources.startup_trace_path())
    assert shipped is not None, "stale or missing: run `.venv/bin/python -m attention.trace_cache`"
    fresh = attention.run(sc)
    assert shipped.ids == fresh.ids and shipped.options == fresh.options
    for sid in fresh.ids:
        a, b = fresh.array(sid), shipped.array(sid)
        assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), sid


def test_the_fingerprint_covers_every_module_the_engine_runs():
    """ENGINE_MODULES = engine.py and every attention/ module it imports, directly or not: a module
    left out could change the numbers without invalidating kept traces."""
    import ast
    from pathlib import Path

    pkg = Path(trace_cache.__file__).parent
    seen, todo = set(), ["engine.py"]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for node in ast.walk(ast.parse((pkg / name).read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("attention"):
                mods = [node.module.split(".", 1)[1]] if "." in node.module else [a.name for a in node.names]
                todo += [f"{m}.py" for m in mods if (pkg / f"{m}.py").exists()]
    assert seen == set(trace_cache.ENGINE_MODULES)
