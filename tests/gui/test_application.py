"""app.startup.application.run in a fresh process: it opens, quits cleanly and returns 0 (no crash at exit)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import sys
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication
from app.startup.application import get_app, run
app = get_app()
for fmt in (QSettings.Format.NativeFormat, QSettings.Format.IniFormat):
    QSettings.setPath(fmt, QSettings.Scope.UserScope, sys.argv[1])

def check():
    w = [w for w in QApplication.topLevelWidgets() if w.inherits("QMainWindow")][0]
    w.recompute.wait_idle()
    print("TITLE", w.windowTitle())
    print("MESSAGES", len(w.message_bar.lines()))
    print("PANES", len(w.view.pane_ids()))
    app.quit()

QTimer.singleShot(200, check)
sys.exit(run(sys.argv[2] if len(sys.argv) > 2 else None))
"""


def _run(tmp_path, *args):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT),
               XDG_DATA_HOME=str(tmp_path / "data"))  # autosaves: never the user's folder
    return subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path), *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_run_opens_the_toy_and_exits_cleanly(tmp_path):
    res = _run(tmp_path)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "TITLE Time-Series-Library toy" in res.stdout
    assert "MESSAGES 0" in res.stdout and "PANES 12" in res.stdout


@pytest.mark.slow
def test_run_with_a_bad_file_keeps_the_window_and_says_why(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    res = _run(tmp_path, str(bad))
    assert res.returncode == 0, res.stderr[-2000:]
    assert "TITLE Time-Series-Library toy" in res.stdout
    assert "MESSAGES 0" not in res.stdout and "MESSAGES" in res.stdout
