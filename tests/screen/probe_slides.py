"""Probe: every slide of every preset, as a teacher goes through them on a real screen (issue 30, item 5).

    python tests/screen/probe_slides.py --lang zh [--presets 01_tsl_toy,22_grouped_query] [--shots DIR]

Under an X server with a window manager (tests/screen/real_screen.py): the window maximized in `--lang`; for
each preset: open it, F5, then Right through every slide; on each slide the problems of
tests/gui/slide_fit.slide_problems.  `--shots DIR` also saves every slide's screen (DIR/<preset>.<n>.png).
Prints one JSON object on its last line: {"screen", "lang", "checked", "fit", "presets": {stem: slides},
"failures": [{preset, slide, step, problems}], "cpu_s", ...} (CPU seconds: start-up, turning the slides,
their settling, the checks).  `--detail` adds each failing slide's panes as planned and as laid out.
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
sys.path.insert(0, str(ROOT / "tests" / "gui"))  # slide_fit: the checks, shared with the offscreen tests


def settle(app, until=None, timeout: float = 5.0) -> None:
    """Let queued work (layouts, the slide's deferred refits, paints) run; with `until`, until it holds."""
    end = time.monotonic() + timeout
    for _ in range(6):
        app.processEvents()
    while until is not None and not until() and time.monotonic() < end:
        time.sleep(0.01)
        app.processEvents()


def still(app, view, rounds: int = 40) -> None:
    """Run the event loop until what the slide shows stops moving (two rounds alike): a person
    looks at the slide a moment after pressing the key, not in the middle of its layout."""
    last = None
    for _ in range(rounds):
        app.processEvents()
        now = _geometry(view)
        if now == last:
            return
        last = now


def _geometry(view) -> tuple:
    panes = [p for p in [view.output_pane(), *view.input_panes()] if p is not None]
    return tuple((p.geometry().getRect(), p.canvas.geometry().getRect(),
                  tuple(p.heatmaps[m].vb.geometry().getRect() for m in p.visible_heads()), p.bar.geometry().getRect())
                 for p in panes) + (view.slide.size().toTuple(),)


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--lang", default="en")
    p.add_argument("--presets", default="", help="comma-separated stems (default: every preset)")
    p.add_argument("--shots", type=Path, default=None)
    p.add_argument("--detail", action="store_true", help="each failing slide's panes, as planned and as laid out")
    p.add_argument("--detail-steps", default="", help="report these steps' details too")
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
    start_cpu = time.process_time() - cpu0
    stems = [s for s in a.presets.split(",") if s] or sorted(
        f.stem for f in (ROOT / "resources" / "scenarios").glob("*.json"))
    if a.shots is not None:
        a.shots.mkdir(parents=True, exist_ok=True)
    checked, fit, failures, walked = 0, 0, [], {}
    timing = [0.0, 0.0, 0.0]  # CPU s: turning slides (drawing them), settling (layout, paint), checking
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
        walked[stem] = n
        for i in range(n):
            t0 = time.process_time()
            if i:
                QTest.keyClick(view, Qt.Key.Key_Right)
            t1 = time.process_time()
            still(app, view)
            t2 = time.process_time()
            timing[0] += t1 - t0
            timing[1] += t2 - t1
            problems = [] if view.index() == i else [f"Right reached slide {view.index() + 1}, not {i + 1}"]
            t3 = time.process_time()
            problems += slide_problems(view)
            timing[2] += time.process_time() - t3
            if a.detail and view.current_step() in a.detail_steps.split(","):
                problems.append("detail asked")
            checked += 1
            if problems:
                failure = {"preset": stem, "slide": i + 1, "step": view.current_step(), "problems": problems}
                if a.detail:
                    failure["detail"] = _detail(view)
                failures.append(failure)
            else:
                fit += 1
            if a.shots is not None:
                view.screen().grabWindow(0).save(str(a.shots / f"{stem}.{i + 1:02d}.{a.lang}.png"))
        QTest.keyClick(view, Qt.Key.Key_Escape)
        settle(app, lambda: not view.isVisible())
    window.recompute.shutdown()
    window.close()
    print(json.dumps({"screen": [screen.width(), screen.height()], "lang": a.lang, "checked": checked, "fit": fit,
                      "presets": walked,
                      "failures": failures, "cpu_s": round(time.process_time() - cpu0, 1),
                      "cpu_start_s": round(start_cpu, 1), "cpu_turn_settle_check_s": [round(t, 1) for t in timing]}))
    return 0


def _detail(view) -> list[str]:
    """What a failing slide's panes were planned as and what they became (to find why)."""
    out = []
    plan = getattr(view, "plan", None)
    for pane in [p for p in [view.output_pane(), *view.input_panes()] if p is not None]:
        placed = plan.panes.get(pane.step_id) if plan is not None else None
        fit = placed.fit if placed is not None else None
        planned = None if fit is None else (fit.per_row, round(fit.cell_w, 1), round(fit.cell_h, 1), round(fit.width),
                                            round(fit.height))
        grid = pane.canvas.ci.layout
        items = [(type(grid.itemAt(i)).__name__, [round(v) for v in grid.itemAt(i).geometry().getRect()])
                 for i in range(grid.count())]
        out.append(f"{pane.step_id}: pane {pane.geometry().getRect()} canvas {pane.canvas.geometry().getRect()} "
                   f"grid {[round(v) for v in pane.canvas.ci.geometry().getRect()]} plan {planned} "
                   f"frame {pane._frame_sizes()} items {items}")
    return out


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
