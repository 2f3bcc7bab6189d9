"""Launching twice: the second launch draws the trace kept by the first (attention.trace_cache)
before torch has loaded, and both exit cleanly.  Real processes, as a person starts them."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _launch(tmp_path: Path, cache: Path) -> dict:
    home = tmp_path / f"home{time.monotonic_ns()}"
    home.mkdir()
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", HOME=str(home), XDG_CONFIG_HOME=str(home),
               XDG_CACHE_HOME=str(cache), ATTENTION_EXPLORER_BENCH_STARTUP=repr(time.time()))
    done = subprocess.run([sys.executable, str(ROOT / "main.py")], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    return dict(line.split()[1:3] for line in done.stdout.splitlines() if line.startswith("bench-startup "))


def test_second_launch_draws_the_kept_trace_and_exits_cleanly(tmp_path):
    cache = tmp_path / "cache"
    first = _launch(tmp_path, cache)
    kept = list(cache.rglob("startup-trace.npz"))
    assert first == {**first, "first-trace": "fresh"} and {"window", "frame"} <= set(first) and len(kept) == 1
    second = _launch(tmp_path, cache)
    assert second["first-trace"] == "kept" and {"window", "frame"} <= set(second)
