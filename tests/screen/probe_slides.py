"""Probe: every slide of every preset, as a teacher goes through them on a real screen (issue 30, item 5).

    python tests/screen/probe_slides.py --lang zh [--presets 01_tsl_toy,22_grouped_query] [--shots DIR]

Under an X server with a window manager (tests/screen/real_screen.py): the window maximized in `--lang`; for
each preset: open it, F5, then Right through every slide; on each slide the problems of
tests/screen/slide_fit.slide_problems.  `--shots DIR` also saves every slide's screen (DIR/<preset>.<n>.png).
Prints one JSON object on its last line: {"screen", "lang", "checked", "fit", "failures": [{preset, slide,
step, problems}], "cpu_s"}.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import PySide6.QtWidgets  # noqa: F401  (before torch and pyqtgraph)

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).parent))


def settle(app, until=None, timeout: float = 5.0) -> None:
    """Let queued work (layouts, the slide's deferred refits, paints) run; with `until`, until it holds."""
    end = time.monotonic() + timeout
    for _ in range(6):
        app.processEvents()
    while until is not None and not until() and time.monotonic() < end:
        time.sleep(0.01)
        app.processEvents()


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--lang", default="en")
    p.add_argument("--presets", default="", help="comma-separated stems (default: every preset)")
    p.add_argument("--shots", type=Path, default=None)
    a = p.parse_args(argv)
    cpu0 = time.process_time()
    from PySide6.QtCore import QSettings, Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication, QMessageBox

    from app.startup.application import get_app

    app = get_app([])
    tmp = Path(tempfile.mkdtemp(prefix="ae-probe-slides-"))
    for fmt in (QSettings.Format.IniFormat, QSettings.Format.NativeFormat):
        QSettings.setPath(fmt, QSettings.Scope.UserScope, str(tmp))
    from slide_fit import slide_problems

    from app.main_window import MainWindow
    from app.services.settings import Settings

    settings = Settings.at(tmp / "settings.ini")
    settings.set_language(a.lang)
    window = MainWindow(settings)
    window.ask_save_changes = lambda: QMessageBox.StandardButton.Discard
    window.showMaximized()
    window.set_language(a.lang, remember=False)
    settle(app, lambda: window.isVisible() and window.isActiveWindow())
    view = window.presentation.view
    screen = app.primaryScreen().geometry()
    stems = [s for s in a.presets.split(",") if s] or sorted(
        f.stem for f in (ROOT / "resources" / "scenarios").glob("*.json"))
    if a.shots is not None:
        a.shots.mkdir(parents=True, exist_ok=True)
    checked, fit, failures = 0, 0, []
    for stem in stems:
        if not window.load_path(ROOT / "resources" / "scenarios" / f"{stem}.json"):
            failures.append({"preset": stem, "slide": 0, "step": "", "problems": ["could not open"]})
            continue
        window.recompute.recompute_now()
        window.recompute.wait_idle()
        settle(app, lambda: window.isActiveWindow())
        QTest.keyClick(window, Qt.Key.Key_F5)
        settle(app, lambda: view.isVisible() and view.geometry() == screen and QApplication.activeWindow() is view)
        n = len(view.lesson_ids())
        for i in range(n):
            if i:
                QTest.keyClick(view, Qt.Key.Key_Right)
                settle(app)
            settle(app)
            problems = [] if view.index() == i else [f"Right reached slide {view.index() + 1}, not {i + 1}"]
            problems += slide_problems(view)
            checked += 1
            if problems:
                failures.append({"preset": stem, "slide": i + 1, "step": view.current_step(), "problems": problems})
            else:
                fit += 1
            if a.shots is not None:
                view.screen().grabWindow(0).save(str(a.shots / f"{stem}.{i + 1:02d}.{a.lang}.png"))
        QTest.keyClick(view, Qt.Key.Key_Escape)
        settle(app, lambda: not view.isVisible())
    window.recompute.shutdown()
    window.close()
    print(json.dumps({"screen": [screen.width(), screen.height()], "lang": a.lang, "checked": checked, "fit": fit,
                      "failures": failures, "cpu_s": round(time.process_time() - cpu0, 1)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
