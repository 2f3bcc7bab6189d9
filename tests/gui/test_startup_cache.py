"""Start-up traces (attention.trace_cache): the very first launch draws the first preset's trace
shipped in resources/, and a second launch of any other scenario draws the trace the first one
kept, before torch has loaded; every launch exits cleanly.  Real processes, as a person starts them."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _launch(tmp_path: Path, cache: Path, *args: str) -> dict:
    home = tmp_path / f"home{time.monotonic_ns()}"
    home.mkdir()
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", HOME=str(home), XDG_CONFIG_HOME=str(home),
               XDG_CACHE_HOME=str(cache), ATTENTION_EXPLORER_BENCH_STARTUP=repr(time.time()))
    done = subprocess.run([sys.executable, str(ROOT / "main.py"), *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    return dict(line.split()[1:3] for line in done.stdout.splitlines() if line.startswith("bench-startup "))


def test_the_very_first_launch_draws_the_shipped_trace(tmp_path):
    cache = tmp_path / "cache"
    first = _launch(tmp_path, cache)
    assert first.get("first-trace") == "kept" and {"window", "frame"} <= set(first)
    assert list(cache.rglob("startup-trace.npz")) == []  # nothing to keep: resources/ has it


def test_second_launch_draws_the_kept_trace_and_exits_cleanly(tmp_path):
    import dataclasses

    import resources
    from attention import scenario_io

    sc = scenario_io.load(resources.list_presets()[0][0])
    q = sc.queries.copy()
    q[0, 0, 0] += 0.5  # a scenario no launch has computed
    path = tmp_path / "changed.json"
    scenario_io.save(dataclasses.replace(sc, queries=q), path)
    cache = tmp_path / "cache"
    first = _launch(tmp_path, cache, str(path))
    kept = list(cache.rglob("startup-trace.npz"))
    assert first == {**first, "first-trace": "fresh"} and {"window", "frame"} <= set(first) and len(kept) == 1
    second = _launch(tmp_path, cache, str(path))
    assert second["first-trace"] == "kept" and {"window", "frame"} <= set(second)
