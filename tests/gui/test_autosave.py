"""Autosave and crash recovery (issue 13 item 12): unsaved changes reach the data folder a few
seconds after an edit, atomically; a save, an undo back to the saved state, another document
or a normal quit deletes them; after kill -9 the next launch offers them exactly, saying what
and when, in both languages."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from app.pipeline import autosave
from attention.datamodel.scenario import same
from attention.files import scenario_io

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def quick(monkeypatch):
    monkeypatch.setattr(autosave, "DELAY_MS", 50)


def _edit(window, value="2.75"):
    model = window.inputs.editors["queries"].model
    model.setData(model.index(1, 2), value)


def _written(window, qtbot):
    with qtbot.waitSignal(window.autosave.written, timeout=5000):
        pass
    return Path(window.autosave.file)


def test_an_edit_is_autosaved_in_the_data_folder(window, qtbot, settings):
    assert not window.autosave.file.exists()
    _edit(window)
    file = _written(window, qtbot)
    assert file.parent == settings.data_folder() / "autosave"  # the test's folder, never the user's
    doc = json.loads(file.read_text(encoding="utf-8"))
    assert doc["format"] == "attention-explorer/autosave" and abs(doc["saved_at"] - time.time()) < 60
    assert same(scenario_io.from_dict(autosave.unpack(doc["scenario"])), window.document.scenario)
    assert sorted(p.name for p in file.parent.iterdir()) == sorted([file.name, file.with_suffix(".lock").name])


def test_save_undo_and_quit_discard_it(window, qtbot, tmp_path):
    _edit(window)
    file = _written(window, qtbot)
    window.document.undo_stack.undo()  # back to the saved state
    assert not file.exists()
    _edit(window, "3")
    _written(window, qtbot)
    window.ask_save_path = lambda *a: str(tmp_path / "kept.json")
    assert window.save_as() and not file.exists()
    _edit(window, "4")
    _written(window, qtbot)
    window.ask_save_changes = lambda: QMessageBox.StandardButton.Discard
    assert window.close()
    assert not file.exists() and list(file.parent.iterdir()) == []


def test_a_big_scenario_is_written_off_the_gui_thread(window, qtbot, monkeypatch):
    monkeypatch.setattr(autosave, "BACKGROUND_NUMBERS", 0)
    _edit(window)
    qtbot.waitUntil(lambda: window.autosave._worker is not None or window.autosave.file.exists(), timeout=5000)
    file = _written(window, qtbot) if not window.autosave.file.exists() else window.autosave.file
    qtbot.waitUntil(lambda: window.autosave._worker is None, timeout=5000)
    doc = json.loads(file.read_text(encoding="utf-8"))
    assert same(scenario_io.from_dict(autosave.unpack(doc["scenario"])), window.document.scenario)


def test_a_running_window_s_autosave_is_not_offered(window, qtbot, make_window):
    _edit(window)
    _written(window, qtbot)
    assert autosave.find_orphans(window.autosave.folder) == []  # its window holds the lock


def test_the_offer_says_what_and_when_in_both_languages(window, qtbot, tmp_path):
    _edit(window)
    _written(window, qtbot)
    os.close(window.autosave._lock_fd)  # as if the process had died
    window.autosave._lock_fd = None
    [orphan] = autosave.find_orphans(window.autosave.folder)
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(orphan.saved_at))
    en = window.restore_text(orphan)
    assert "Time-Series-Library toy" in en and when in en and "L=4" in en
    window.set_language("zh")
    try:
        zh = window.restore_text(orphan)
        assert zh != en and when in zh and "恢复" in zh
    finally:
        window.set_language("en")  # Qt's translator is process-wide: the next test reads English
        orphan.release()


KILLED = r"""
import sys
from pathlib import Path
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication
from app.startup.application import get_app, run
from app.pipeline import autosave
autosave.DELAY_MS = 300
app = get_app()
for fmt in (QSettings.Format.NativeFormat, QSettings.Format.IniFormat):
    QSettings.setPath(fmt, QSettings.Scope.UserScope, sys.argv[1])
expected = Path(sys.argv[2])

def edit():
    from attention.files import scenario_io
    w = [w for w in QApplication.topLevelWidgets() if w.inherits("QMainWindow")][0]
    w.recompute.wait_idle()
    m = w.inputs.editors["queries"].model
    m.setData(m.index(1, 2), "2.75")
    w.params.controls["causal"].setChecked(True)
    w.params.controls["n_heads"].setValue(1)
    def done(path):
        scenario_io.save(w.document.scenario, expected)
        print("AUTOSAVED", path, flush=True)
    w.autosave.written.connect(done)

QTimer.singleShot(300, edit)
sys.exit(run(None))
"""

RELAUNCH = r"""
import sys
from pathlib import Path
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication
from app.startup.application import get_app, run
from app.main_window import MainWindow
app = get_app()
for fmt in (QSettings.Format.NativeFormat, QSettings.Format.IniFormat):
    QSettings.setPath(fmt, QSettings.Scope.UserScope, sys.argv[1])
offers = []

def ask(self, orphan):
    offers.append(self.restore_text(orphan))
    return sys.argv[3]

MainWindow.ask_restore = ask

def check():
    from attention.files import scenario_io
    from attention.datamodel.scenario import same
    w = [w for w in QApplication.topLevelWidgets() if w.inherits("QMainWindow")][0]
    print("OFFERS", len(offers), flush=True)
    for text in offers:
        print("OFFER", text, flush=True)
    print("SAME", same(w.document.scenario, scenario_io.load(sys.argv[2])), flush=True)
    print("MODIFIED", w.isWindowModified(), flush=True)
    print("TITLE", w.windowTitle(), flush=True)
    from PySide6.QtWidgets import QMessageBox
    w.ask_save_changes = lambda: QMessageBox.StandardButton.Discard
    app.quit()

QTimer.singleShot(1500, check)
sys.exit(run(None))
"""


def _env(tmp_path):
    return dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT), XDG_DATA_HOME=str(tmp_path / "data"),
                XDG_CACHE_HOME=str(tmp_path / "cache"), XDG_CONFIG_HOME=str(tmp_path / "config"), LANG="C.UTF-8")


def _killed_after_edits(tmp_path, expected):
    p = subprocess.Popen([sys.executable, "-c", KILLED, str(tmp_path / "qs"), str(expected)], cwd=ROOT,
                         env=_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 240
        line = ""
        while "AUTOSAVED" not in line:
            line = p.stdout.readline()
            assert line or p.poll() is None, p.stderr.read()[-2000:]
            assert time.monotonic() < deadline
        os.kill(p.pid, signal.SIGKILL)
    finally:
        p.wait(timeout=60)
    assert p.returncode == -signal.SIGKILL
    return Path(line.split(" ", 1)[1].strip())


def _relaunch(tmp_path, expected, choice):
    r = subprocess.run([sys.executable, "-c", RELAUNCH, str(tmp_path / "qs"), str(expected), choice], cwd=ROOT,
                       env=_env(tmp_path), capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout


@pytest.mark.slow  # kills and relaunches the window in child processes
def test_after_kill_9_the_next_launch_offers_the_changes_exactly(tmp_path):
    expected = tmp_path / "expected.json"
    file = _killed_after_edits(tmp_path, expected)
    assert file.exists() and str(file).startswith(str(tmp_path / "data"))
    out = _relaunch(tmp_path, expected, "restore")
    assert "OFFERS 1" in out and "Time-Series-Library toy" in out
    assert "SAME True" in out and "MODIFIED True" in out
    assert not file.exists()  # restored: the new window autosaves it under its own name from now on
    out = _relaunch(tmp_path, expected, "restore")  # and that window quit normally: nothing offered now
    assert "OFFERS 0" in out and "SAME False" in out


@pytest.mark.slow  # kills and relaunches the window in child processes
def test_not_now_keeps_it_and_discard_deletes_it(tmp_path):
    expected = tmp_path / "expected.json"
    file = _killed_after_edits(tmp_path, expected)
    assert "OFFERS 1" in _relaunch(tmp_path, expected, "later") and file.exists()
    out = _relaunch(tmp_path, expected, "discard")
    assert "OFFERS 1" in out and "SAME False" in out and not file.exists()
    assert "OFFERS 0" in _relaunch(tmp_path, expected, "restore")
