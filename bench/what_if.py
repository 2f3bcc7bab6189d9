"""What-if slider benchmark: how live is a scale drag, from the knob to the weights on screen?

    .venv/bin/python bench/what_if.py            # three sizes
    .venv/bin/python bench/what_if.py --quick    # the small one only

The real window (MainWindow, offscreen, 1600 x 1000), View ▸ What if sliders open, the Steps
region on screen.  A drag is what QSlider emits for a person's drag: sliderPressed, one
valueChanged per mouse move, sliderReleased.  Two figures per size:

- frame latency: one knob move, then the event loop runs until the Recomputer's `ready` has been
  handled for exactly that scale (engine, and the panes on screen drawn with it); the median and
  the worst of 30 moves;
- a continuous drag: a knob move every 16 ms (a 60 Hz mouse) for 2 seconds, the event loop
  running normally; how many distinct scales reached the screen per second (the Recomputer drops
  the frames a slower engine cannot keep up with, and always delivers the last one).

After each drag the bench checks that it is one undo step and that the weights on screen equal
attention.run(document.scenario) for the final scale.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
import PySide6.QtWidgets  # noqa: E402,F401  (before torch)
from PySide6.QtCore import QCoreApplication, QElapsedTimer, QEventLoop, QSettings, QTimer  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SIZES = {"toy (L=S=4, H=2)": None, "L=S=128, d=64, H=8": (128, 64, 8), "L=S=512, d=256, H=8": (512, 256, 8)}


def scenario(size):
    import numpy as np

    from attention import Scenario
    sys.path.insert(0, str(ROOT / "tests" / "gui"))
    from gui_helpers import toy

    if size is None:
        return toy()
    L, d, H = size
    rng = np.random.default_rng(0)
    return Scenario(queries=rng.normal(size=(1, L, d)), keys=rng.normal(size=(1, L, d)),
                    values=rng.normal(size=(1, L, d)), n_heads=H)


def run_size(app, window, name: str, size) -> dict:
    import numpy as np

    import attention

    window.document.load(scenario(size), None)
    window.recompute.recompute_now()
    window.recompute.wait_idle()
    panel = window.what_if.panel
    slider = panel.scale_slider
    seen: list[tuple[float, float]] = []  # (perf_counter, scale) of every trace delivered

    def record(trace, sc, seconds) -> None:
        seen.append((time.perf_counter(), sc.scale))
    window.recompute.ready.connect(record)

    # frame latency
    stack = window.document.undo_stack
    n = stack.count()
    slider.setSliderDown(True)
    latencies = []
    for i in range(30):
        pos = 520 + i * 10
        want = panel._scale_range.value(pos)
        t0 = time.perf_counter()
        slider.setValue(pos)
        timer = QElapsedTimer()
        timer.start()
        while not (seen and seen[-1][1] == want) and timer.elapsed() < 60_000:
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)
        latencies.append((time.perf_counter() - t0) * 1000)
        time.sleep(0.02)
    slider.setSliderDown(False)
    window.recompute.wait_idle()
    one_step = stack.count() == n + 1

    # continuous drag at 60 Hz for 2 s
    stack.undo()
    window.recompute.wait_idle()
    seen.clear()
    slider.setSliderDown(True)
    positions = iter(range(400, 1000, 3))
    ticker = QTimer()
    ticker.setInterval(16)
    loop = QEventLoop()

    def tick():
        pos = next(positions, None)
        if pos is None:
            loop.quit()
        else:
            slider.setValue(pos)
    ticker.timeout.connect(tick)
    ticker.start()
    QTimer.singleShot(2000, loop.quit)
    t0 = time.perf_counter()
    loop.exec()
    ticker.stop()
    seconds = time.perf_counter() - t0
    slider.setSliderDown(False)
    window.recompute.wait_idle()
    delivered = len({s for _, s in seen})
    final = window.document.scenario
    ok = np.array_equal(window.last_trace.array("attention_weights"),
                        attention.run(final).array("attention_weights")) and window.last_scenario is final
    one_step = one_step and stack.count() == n + 1
    window.recompute.ready.disconnect(record)
    return {"name": name, "median": statistics.median(latencies), "worst": max(latencies),
            "fps": delivered / seconds, "moves": int(seconds / 0.016), "one_step": one_step, "ok": ok}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    from app.startup.application import get_app

    app = get_app([])
    tmp = Path(tempfile.mkdtemp(prefix="ae-bench-"))
    for fmt in (QSettings.Format.IniFormat, QSettings.Format.NativeFormat):
        QSettings.setPath(fmt, QSettings.Scope.UserScope, str(tmp))
    from app.main_window import MainWindow
    from app.services.settings import Settings

    window = MainWindow(Settings.at(tmp / "settings.ini"))
    window.ask_save_changes = lambda: PySide6.QtWidgets.QMessageBox.StandardButton.Discard
    window.resize(1600, 1000)
    window.show()
    window.what_if.action.trigger()
    QCoreApplication.processEvents()
    sizes = list(SIZES.items())[:1 if args.quick else None]
    rows = [run_size(app, window, name, size) for name, size in sizes]
    print(f"{'scenario':<24} {'frame median ms':>16} {'worst ms':>9} {'scales shown/s':>15} "
          f"{'one undo step':>14} {'weights = engine':>17}")
    for r in rows:
        print(f"{r['name']:<24} {r['median']:>16.1f} {r['worst']:>9.1f} {r['fps']:>15.1f} {str(r['one_step']):>14} "
              f"{str(r['ok']):>17}")
    print(f"(continuous drag: a knob move every 16 ms for 2 s, about {rows[-1]['moves']} moves)")
    window.recompute.shutdown()
    window.close()
    return 0 if all(r["one_step"] and r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
