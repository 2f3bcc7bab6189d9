"""The screenshot run (tests/screenshot_presets.py) works on the real window for every preset.

Under Xvfb when xvfb-run is installed (what a person sees), offscreen otherwise.  It runs in a
subprocess, like pyqtgraph's example tests, so a crash at exit is caught by its exit code."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

import resources

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_screenshot_run_writes_a_full_window_per_preset_and_language(tmp_path):
    cmd = [sys.executable, str(ROOT / "tests" / "screenshot_presets.py"), str(tmp_path)]
    env = dict(os.environ)
    if shutil.which("xvfb-run"):
        cmd = ["xvfb-run", "-a", "-s", "-screen 0 1600x1000x24"] + cmd
        env.pop("QT_QPA_PLATFORM", None)
    else:
        env["QT_QPA_PLATFORM"] = "offscreen"
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    stems = [p.stem for p, _ in resources.list_presets()]
    for lang in ("en", "zh"):
        for stem in stems:
            image = QImage(str(tmp_path / f"{stem}.{lang}.png"))
            assert (image.width(), image.height()) == (1600, 1000), stem
            # a drawn window, not a blank one: many distinct colours in a strip across the steps
            colours = {image.pixel(x, y) for x in range(900, 1600, 7) for y in range(100, 900, 7)}
            assert len(colours) > 20, (stem, lang, len(colours))
