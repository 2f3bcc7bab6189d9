"""Start-up traces (attention.files.trace_cache): the very first launch draws the first preset's trace
shipped with the engine, and a second launch of any other scenario draws the trace the first one
kept, before torch has loaded (and writes it anew when the engine computes otherwise); every
launch exits cleanly.  Real processes, as a person starts them: slow."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
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


UNTIL_FRESH = r"""
import sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from app.startup.application import get_app, run
app = get_app()

def done():
    w = [w for w in QApplication.topLevelWidgets() if w.inherits("QMainWindow")][0]
    w.recompute.wait_idle()  # the engine's own trace has been delivered (after the kept one)
    app.quit()

QTimer.singleShot(0, done)
sys.exit(run(sys.argv[1]))
"""


def _launch_until_fresh(tmp_path: Path, cache: Path, path: Path) -> None:
    """A launch that stays open until the engine's own trace is in, then quits."""
    home = tmp_path / f"home{time.monotonic_ns()}"
    home.mkdir()
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", HOME=str(home), XDG_CONFIG_HOME=str(home),
               XDG_CACHE_HOME=str(cache), PYTHONPATH=str(ROOT))
    env.pop("ATTENTION_EXPLORER_BENCH_STARTUP", None)
    done = subprocess.run([sys.executable, "-c", UNTIL_FRESH, str(path)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_very_first_launch_draws_the_shipped_trace(tmp_path):
    cache = tmp_path / "cache"
    first = _launch(tmp_path, cache)
    assert first.get("first-trace") == "kept" and {"window", "frame"} <= set(first)
    assert list(cache.rglob("startup-trace.npz")) == []  # nothing to keep: the engine ships it


def test_second_launch_draws_the_kept_trace_and_exits_cleanly(tmp_path):
    import dataclasses

    import attention
    import resources
    from attention.files import scenario_io, trace_cache

    sc = scenario_io.load(resources.list_presets()[0][0])
    q = sc.queries.copy()
    q[0, 0, 0] += 0.5  # a scenario no launch has computed
    path = tmp_path / "changed.json"
    scenario_io.save(dataclasses.replace(sc, queries=q), path)
    sc = scenario_io.load(path)
    cache = tmp_path / "cache"
    first = _launch(tmp_path, cache, str(path))
    kept = list(cache.rglob("startup-trace.npz"))
    assert first == {**first, "first-trace": "fresh"} and {"window", "frame"} <= set(first) and len(kept) == 1
    engine = trace_cache.load(sc, kept[0])
    assert engine is not None and trace_cache.same_numbers(engine, attention.run(sc))
    # as if an older engine had kept it: other numbers under the same key
    other = attention.Trace(tuple(dataclasses.replace(s, tensor=s.numpy() * 2) if s.id == "output" else s
                                  for s in engine.steps), engine.options, {}, engine.warnings)
    trace_cache.save(other, sc, kept[0])
    second = _launch(tmp_path, cache, str(path))  # quits once the kept trace is on screen
    assert second["first-trace"] == "kept" and {"window", "frame"} <= set(second)
    _launch_until_fresh(tmp_path, cache, path)
    again = trace_cache.load(sc, kept[0])
    assert again is not None and trace_cache.same_numbers(again, engine)  # written anew by the engine
