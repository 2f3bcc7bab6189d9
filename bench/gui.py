"""Window benchmark: edit-to-repaint latency, the drawing floor, matplotlib, start-up time.

    .venv/bin/python bench/gui.py              # the full run (under two minutes on 2 cores)
    .venv/bin/python bench/gui.py --quick      # fewer edits and launches, for a smoke test

Everything runs on the real window (MainWindow), offscreen, at 1600 x 1000:

- Edit-to-repaint latency.  One edit = a typed cell: the queries editor's model gets
  setData(index, "1.234") exactly as the table's delegate would give it; from there the real
  path runs (undo stack, Document, the Recomputer's throttle and, when big, its worker thread,
  StepsView.show_trace).  The clock stops when the panes on screen hold the new trace AND the
  window has repainted: the top-level widget's UpdateRequest (Qt 6 paints a window's dirty
  widgets in one pass when it handles that event) that painted the last visible pane whose
  numbers changed has been handled.  Panes out of sight are drawn right after that repaint
  (StepsView draws what is on screen first); the table also gives the time until every pane,
  out of sight too, shows the new trace.  The bench waits 25 ms between edits (a person does not
  type faster), so each edit is measured from an idle window.  The event loop runs normally
  (QEventLoop.exec), nothing is forced.  Two warm-up edits per size are not counted; the heap
  is frozen after the first trace as app.startup.application.run() does (settle_heap).  The table
  also splits the median into the setData call, the time until the Recomputer's `ready` has
  been handled (engine and panes), and the repaint.
- UI-thread blocking: a 5 ms PreciseTimer on the GUI thread records the longest gap between
  two ticks while the edits run; the table shows that gap minus the 5 ms period.
- Drawing floor: the arrays of the same two traces (the last two edits), already float32 and
  with the panes' own levels, handed straight to the ImageItems of the panes they differ in
  (setImage), alternating, then the same "repainted" test as above (so the same panes are
  painted).  No engine, model, undo, signal or pane code in between.  That is the issue's
  floor; it hands arrays to the panes out of sight too, which the window now draws after the
  repaint, so a stricter floor (the panes on screen only) is printed as well, and so is the
  floor read as "repaint the window once" (QWidget.repaint of the whole window: every widget
  on screen, not only the changed panes), for the team's decision on which one the target means.
- matplotlib: one Agg figure of the same pixel size with one Axes per matrix the panes draw
  (the same count), imshow once, then set_data on every AxesImage and fig.canvas.draw() per
  redraw; the median of several redraws, alternating the same two traces.
- Start-up: `main.py` in a fresh process (settings in a temporary folder, an empty user cache
  folder shared by the launches), with ATTENTION_EXPLORER_BENCH_STARTUP set to the launch time
  (see app/startup/application.py): the first painted window and the first full frame (every visible
  pane painted with the first trace), in seconds since the parent started the process.  The
  default launches open the first preset, whose trace ships in resources/ (the very first
  launch on a machine draws it before torch has loaded); one more launch opens a scenario no
  launch has computed, for the cost of waiting for torch.

At the end of each size the panes are checked against attention.run(document.scenario)
(NaN-aware), so a fast wrong picture cannot pass.
"""
from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import busy  # noqa: E402  (bench/busy.py: --busy runs this script twice, quiet and busy)

if __name__ == "__main__" and (_code := busy.main_if_busy(__file__)) is not None:
    sys.exit(_code)
sys.path.insert(0, str(ROOT / "tests" / "gui"))  # gui_helpers: what a pane must show, as the tests cut it

# PySide6 before torch and pyqtgraph (pyqtgraph would prefer PyQt6; torch first can segfault at exit)
import numpy as np  # noqa: E402
from gui_helpers import expected_matrices  # noqa: E402
from PySide6.QtCore import QEvent, QEventLoop, QObject, Qt, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

WINDOW = (1600, 1000)
CLASSROOM = (1, 8, 32, 8)  # B, L = S, d_model, H
LARGE = (1, 1024, 256, 8)
SETTLE_MS = 25
WARM_UP_EDITS = 2
HEARTBEAT_MS = 5
TARGETS = {
    "classroom_p95_ms": 100.0, "classroom_floor_ratio": 1.3, "large_median_ms": 100.0,  # issue 29: 400 -> 100
    "large_block_ms": 50.0, "matplotlib_ratio": 20.0, "window_s": 1.5, "frame_s": 3.0,
}


def make_scenario(B: int, L: int, d: int, H: int, seed: int = 0):
    """Random inputs and all four projections with bias (nn.MultiheadAttention's layout)."""
    from attention import Projection, Scenario

    rng = np.random.default_rng(seed)
    proj = lambda: Projection(rng.normal(size=(d, d)) / np.sqrt(d), rng.normal(size=(d,)) * 0.1)  # noqa: E731
    return Scenario(queries=rng.normal(size=(B, L, d)), keys=rng.normal(size=(B, L, d)),
                    values=rng.normal(size=(B, L, d)), n_heads=H,
                    projections={n: proj() for n in ("query", "key", "value", "out")},
                    scoring="scaled_dot", dtype="float32", device="cpu")


# ---- start-up ---------------------------------------------------------------------------------
def startup(runs: int) -> dict:
    """Launch main.py `runs` times on its default scenario (the first preset), and once on a
    scenario no launch has computed before (the toy with one number changed, passed as FILE:
    nothing kept, the frame waits for torch); seconds to the first window and full frame."""
    windows, frames, failures, kinds = [], [], [], []
    cache = tempfile.mkdtemp(prefix="ae-bench-cache-")  # one user cache folder for all launches
    with tempfile.TemporaryDirectory() as files:
        fresh = Path(files) / "changed-toy.json"
        sys.path.insert(0, str(ROOT))
        import resources
        from attention.files import scenario_io

        sc = scenario_io.load(resources.list_presets()[0][0])
        q = sc.queries.copy()
        q[0, 0, 0] += 0.25
        scenario_io.save(__import__("dataclasses").replace(sc, queries=q), fresh)
        for args in [[str(fresh)]] + [[]] * runs:
            with tempfile.TemporaryDirectory() as tmp:
                env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=tmp, HOME=tmp, XDG_CACHE_HOME=cache)
                launched = time.time()
                env["ATTENTION_EXPLORER_BENCH_STARTUP"] = repr(launched)
                res = subprocess.run([sys.executable, str(ROOT / "main.py"), *args], cwd=ROOT, env=env,
                                     capture_output=True, text=True, timeout=120)
            got = dict(line.split()[1:3] for line in res.stdout.splitlines() if line.startswith("bench-startup "))
            if res.returncode != 0 or not {"window", "frame"} <= set(got):
                failures.append(f"exit code {res.returncode}: {res.stderr.strip().splitlines()[-1:] or got}")
                continue
            windows.append(float(got["window"]))
            frames.append(float(got["frame"]))
            kinds.append("file" if args else got.get("first-trace", "fresh"))
    torch_s = []
    for _ in range(min(runs, 3)):
        res = subprocess.run([sys.executable, "-c", "import time; t = time.perf_counter(); import torch; "
                              "print(time.perf_counter() - t)"], capture_output=True, text=True, timeout=120)
        torch_s.append(float(res.stdout.strip().splitlines()[-1]))
    return {"window": windows, "frame": frames, "failures": failures, "torch": torch_s, "kinds": kinds}


# ---- the window -------------------------------------------------------------------------------
class FrameProbe(QObject):
    """Stops an event loop once the window has repainted after an edit: every expected pane
    viewport got a Paint event since `since` (the panes got their new numbers), and the
    top-level widget's UpdateRequest that painted the last of them has been handled."""

    def __init__(self, window) -> None:
        super().__init__()
        self.window = window
        self.viewports: set = set()
        self.painted: dict = {}  # viewport -> perf_counter() of its last Paint event
        self.expect = None
        self.since = 0.0
        self.last_sync = -math.inf  # when the last UpdateRequest of the window was done
        self.loop = None
        self.done_at = None
        window.installEventFilter(self)

    def watch(self, view) -> None:
        for sid in view.pane_ids():
            vp = view.pane(sid, current=False).canvas.viewport()
            if vp not in self.viewports:
                vp.installEventFilter(self)
                self.viewports.add(vp)

    def start(self, since: float) -> None:
        """An edit (or the floor's setImage) begins now: forget any earlier result."""
        self.expect, self.since, self.done_at = None, since, None

    def arm(self, expect) -> None:
        self.expect = set(expect)
        self._check()

    def eventFilter(self, obj, ev) -> bool:  # noqa: N802 (Qt override)
        kind = ev.type()
        if kind == QEvent.Type.Paint and obj in self.viewports:
            self.painted[obj] = time.perf_counter()
        elif kind == QEvent.Type.UpdateRequest and obj is self.window:
            QTimer.singleShot(0, self._after_sync)  # handled after this UpdateRequest is done
        return False

    def _after_sync(self) -> None:
        self.last_sync = time.perf_counter()
        self._check()

    def _check(self) -> None:
        if self.expect is None or self.done_at is not None:
            return
        times = [self.painted.get(vp, -math.inf) for vp in self.expect]
        if all(t >= self.since for t in times) and self.last_sync >= max(times, default=self.since):
            self.done_at = self.last_sync
            self.expect = None
            if self.loop is not None:
                self.loop.quit()

    def wait(self, timeout_s: float = 60.0) -> float:
        """Run the event loop until done; returns the perf_counter time it finished."""
        if self.done_at is None:
            self.loop = QEventLoop()
            guard = QTimer()
            guard.setSingleShot(True)
            guard.timeout.connect(self.loop.quit)
            guard.start(int(timeout_s * 1000))
            self.loop.exec()
            guard.stop()
            self.loop = None
        if self.done_at is None:
            raise RuntimeError("the window did not repaint within the time limit")
        return self.done_at


class Heartbeat(QObject):
    """The longest gap between ticks of a 5 ms timer on the GUI thread."""

    def __init__(self) -> None:
        super().__init__()
        self.timer = QTimer(self)
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(HEARTBEAT_MS)
        self.timer.timeout.connect(self._tick)
        self.last = None
        self.longest = 0.0

    def start(self) -> None:
        self.last, self.longest = time.perf_counter(), 0.0
        self.timer.start()

    def stop(self) -> float:
        self._tick()
        self.timer.stop()
        return max(self.longest - HEARTBEAT_MS / 1000, 0.0)

    def _tick(self) -> None:
        now = time.perf_counter()
        self.longest = max(self.longest, now - self.last)
        self.last = now


def idle(ms: int) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def visible_viewports(view, ids) -> list:
    out = []
    for sid in ids:
        vp = view.pane(sid, current=False).canvas.viewport()
        if not vp.visibleRegion().isEmpty():
            out.append(vp)
    return out


class EditRun:
    """Types cells into the queries editor and times each edit until repainted, with where the
    time went: the setData call itself (parse, undo stack, Document, every listener of the
    document), then until the Recomputer's `ready` has been handled (throttle, engine, panes'
    show_trace; the worker's time for big traces), then until the window has repainted."""

    def __init__(self, window, probe: FrameProbe) -> None:
        self.window, self.probe = window, probe
        self.before: dict = {}
        self.ready_at = None
        self.caught_up_at = -math.inf
        self.rng = np.random.default_rng(1)
        window.view.caughtUp.connect(self._on_caught_up)
        window.recompute.ready.connect(self._on_ready)  # runs after the window's own slot
        probe.watch(window.view)  # before the first edit: its panes may paint before `ready` gets here

    def _on_ready(self, *args) -> None:
        self.ready_at = time.perf_counter()
        view = self.window.view
        self.probe.watch(view)
        changed = [sid for sid in view.pane_ids() if view.pane(sid, current=False).redraw_count != self.before.get(sid)]
        # paints before this moment showed older numbers (a big trace greys the panes while it
        # is computed); the window's own `ready` slot has just handed the panes the new ones
        self.probe.since = self.ready_at
        self.probe.arm(visible_viewports(view, changed))

    def _on_caught_up(self) -> None:
        self.caught_up_at = time.perf_counter()

    def run(self, n: int, heartbeat: Heartbeat) -> dict:
        model = self.window.inputs.editors["queries"].model
        rows, cols = model.rowCount(), model.columnCount()
        rng = self.rng
        view = self.window.view
        out = {"latency": [], "cpu": [], "set_data": [], "to_ready": [], "paint": [], "every_pane": [], "traces": []}
        heartbeat.start()
        for _i in range(n):
            r, c = int(rng.integers(rows)), int(rng.integers(cols))
            text = f"{rng.normal():.3f}"
            if float(text) == float(model.matrix()[r, c]):
                text = f"{float(text) + 0.5:.3f}"  # a real change, so there is something to redraw
            if model.decimal_comma:
                text = text.replace(".", ",")
            self.before = {sid: view.pane(sid, current=False).redraw_count for sid in view.pane_ids()}
            t0, c0 = time.perf_counter(), time.process_time()
            self.probe.start(t0)
            if not model.setData(model.index(r, c), text, Qt.ItemDataRole.EditRole):
                raise RuntimeError(f"the edit {text!r} at ({r}, {c}) was refused")
            t1 = time.perf_counter()
            done = self.probe.wait()
            out["cpu"].append(time.process_time() - c0)  # this process, every thread (the worker's engine too)
            out["latency"].append(done - t0)
            out["set_data"].append(t1 - t0)
            out["to_ready"].append(self.ready_at - t1)
            out["paint"].append(done - self.ready_at)
            out["traces"] = (out["traces"] + [self.window.last_trace])[-2:]
            waiting = not all(view.is_current(sid) for sid in view.pane_ids())
            idle(SETTLE_MS)
            if waiting:  # the panes out of sight are drawn after the repaint (StepsView._catch_up)
                while not all(view.is_current(sid) for sid in view.pane_ids()):
                    idle(1)
                out["every_pane"].append(self.caught_up_at - t0)
            else:
                out["every_pane"].append(done - t0)
        out["block"] = heartbeat.stop()
        return out


def check_panes(window) -> None:
    """Every pane shows exactly attention.run(document.scenario) for batch item 0 (NaN-aware)."""
    import attention

    window.recompute.wait_idle()
    trace = attention.run(window.document.scenario)
    view = window.view
    assert view.pane_ids() == list(trace.ids), "pane list differs from the trace"
    for sid in trace.ids:
        shown, want = view.displayed_arrays(sid), expected_matrices(trace, sid, 0)
        assert len(shown) == len(want), sid
        for s, w in zip(shown, want):
            w = w.astype(np.float32)
            ok = ~np.isnan(w)
            assert np.array_equal(np.asarray(s)[ok], w[ok]), f"{sid}: the pane shows other numbers than the engine"


def changed_panes(view, traces: list) -> list[str]:
    """Step ids whose numbers differ between the two traces (the panes an edit redraws)."""
    return [sid for sid in view.pane_ids()
            if not np.array_equal(traces[0].array(sid), traces[1].array(sid), equal_nan=True)]


def images_for(view, traces: list, sids: list[str]) -> tuple[list, list]:
    """The ImageItems of the panes `sids` with their levels, and for each trace the float32
    arrays those items would be handed, made before any clock starts."""
    items, arrays = [], [[], []]
    for sid in sids:
        pane = view.pane(sid)
        lv = pane.levels()
        for k, tr in enumerate(traces):
            for m, a in enumerate(expected_matrices(tr, sid, 0)):
                arrays[k].append(np.ascontiguousarray(np.nan_to_num(a.astype(np.float32))))
                if k == 0:
                    items.append((pane.heatmaps[m].image, lv))
    return items, arrays


def set_images(items: list, arrays: list) -> None:
    for (item, lv), img in zip(items, arrays):
        item.setImage(img, levels=lv, autoLevels=False)


def floor(window, probe: FrameProbe, traces: list, reps: int, in_sight_only: bool = False) -> list[float]:
    """setImage of the two traces' arrays straight into the changed panes' ImageItems, repaint.
    `in_sight_only`: only the panes on screen get their arrays (the window draws the others
    after the repaint), a stricter floor than the issue's."""
    view = window.view
    changed = changed_panes(view, traces)
    if in_sight_only:
        changed = [sid for sid in changed if visible_viewports(view, [sid])]
    items, arrays = images_for(view, traces, changed)
    expect = visible_viewports(view, changed)
    times = []
    for i in range(reps):
        t0 = time.perf_counter()
        probe.start(t0)
        set_images(items, arrays[i % 2])
        probe.arm(expect)
        times.append(probe.wait() - t0)
        idle(SETTLE_MS)
    return times


def floor_window(window, traces: list, reps: int) -> list[float]:
    """The floor read as "hand the arrays to the image items, then repaint the window once":
    setImage of the changed panes (as `floor`) and one synchronous repaint of the whole window
    (every widget on screen, QWidget.repaint), as a first-principles "draw it all" would."""
    items, arrays = images_for(window.view, traces, changed_panes(window.view, traces))
    times = []
    for i in range(reps):
        t0 = time.perf_counter()
        set_images(items, arrays[i % 2])
        window.repaint()
        times.append(time.perf_counter() - t0)
        idle(SETTLE_MS)
    return times


def _pane_contents(view, sids: list) -> list:
    """What the changed panes' items hold now: per heatmap, its image and levels and its overlay's
    content (labels already formatted, text colours worked out), to hand back straight later."""
    from app.panes.cell_overlay import DIGITS

    out = []
    for sid in sids:
        pane = view.pane(sid)
        lv = pane.levels()
        fns = []
        for hm in pane.heatmaps[: len(view.displayed_arrays(sid))]:
            ov = hm.overlay
            labels = {d: list(ov._text_fn(d)) for d in DIGITS} if ov._text_fn is not None else None
            dark = ov.dark_text()
            dark = None if dark is None else dark.copy()
            fns.append((hm, np.array(hm.image.image, copy=True), lv,
                        None if labels is None else labels.__getitem__,
                        None if dark is None else (lambda dk=dark: dk),
                        ov._nc, ov._masked, ov._veil, ov._group))
        out.append((pane, fns))
    return out


def floor_with_numbers(window, probe: FrameProbe, traces: list, reps: int) -> list[float]:
    """As `floor`, and the cells' numbers too: the labels of both traces are formatted before the
    clock starts; in the clock, each changed heatmap gets its image (setImage) and its overlay the
    ready labels and text colours (set_content, a fresh TextFit seeded with the last choices, as
    the panes do), then the same repaint test.  The picture is then the one the window shows."""
    from app.panes.cell_overlay import TextFit

    view = window.view
    changed = changed_panes(view, traces)
    shown = window.last_trace
    contents = []
    for tr in traces:
        view.show_trace(tr, window.document.scenario, 0)
        idle(50)  # paint once, so text colours and fits are worked out as after an edit
        contents.append(_pane_contents(view, changed))
    expect = visible_viewports(view, changed)
    times = []
    for i in range(reps):
        t0 = time.perf_counter()
        probe.start(t0)
        for _pane, fns in contents[i % 2]:
            fit = TextFit([f[3] for f in fns if f[3] is not None], previous=fns[0][0].overlay.fit)
            for hm, img, lv, text_fn, dark, nc, masked, veil, group in fns:
                hm.image.setImage(img, levels=lv, autoLevels=False)
                hm.overlay.fit = fit
                hm.overlay.set_content(text_fn, dark, nc, masked, veil, group)
        probe.arm(expect)
        times.append(probe.wait() - t0)
        idle(SETTLE_MS)
    view.show_trace(shown, window.document.scenario, 0)
    return times


def matplotlib_installed() -> bool:
    """The matplotlib comparison needs the bench extra (`bash .ci/setup bench`); without it that line says so."""
    import importlib.util

    return importlib.util.find_spec("matplotlib") is not None


def matplotlib_redraw(window, traces: list, reps: int) -> tuple[float, int]:
    """Median seconds to redraw every matrix the panes draw with matplotlib (Agg, one figure)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ids = window.view.pane_ids()
    mats = [[m for sid in ids for m in expected_matrices(tr, sid, 0)] for tr in traces]
    n = len(mats[0])
    cols = math.ceil(math.sqrt(n * WINDOW[0] / WINDOW[1]))
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(WINDOW[0] / 100, WINDOW[1] / 100), dpi=100, squeeze=False)
    images = [ax.imshow(m, cmap="Reds") for ax, m in zip(axes.flat, mats[0])]  # as d2l.show_heatmaps
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    fig.canvas.draw()
    times = []
    for i in range(reps):
        t0 = time.perf_counter()
        for im, m in zip(images, mats[(i + 1) % 2]):
            im.set_data(m)
            im.autoscale()
        fig.canvas.draw()
        times.append(time.perf_counter() - t0)
    plt.close(fig)
    return statistics.median(times), n


def size_run(app, size: tuple, edits: int, floor_reps: int, mpl_reps: int, settings_dir: Path) -> dict:
    from app.main_window import MainWindow
    from app.services.settings import Settings
    from app.startup.application import settle_heap

    window = MainWindow(Settings.at(settings_dir / f"settings-{size[1]}.ini"))
    window.resize(*WINDOW)
    window.show()
    probe = FrameProbe(window)
    window.document.load(make_scenario(*size), None)
    window.recompute.wait_idle()
    idle(300)  # first layout and paint
    settle_heap()  # as app.startup.application.run() does once the first trace is on screen
    runner = EditRun(window, probe)
    runner.run(WARM_UP_EDITS, Heartbeat())  # first-use costs (font and label caches): not counted
    idle(50)
    out = runner.run(edits, Heartbeat())
    check_panes(window)
    traces = out.pop("traces")
    out.update(edits=edits, panes=len(window.view.pane_ids()),
               heatmaps=sum(len(window.view.displayed_arrays(s)) for s in window.view.pane_ids()))
    if floor_reps:
        out["floor"] = floor(window, probe, traces, floor_reps)
        out["floor_sight"] = floor(window, probe, traces, floor_reps, in_sight_only=True)
        out["floor_window"] = floor_window(window, traces, floor_reps)
        out["floor_numbers"] = floor_with_numbers(window, probe, traces, floor_reps)
    if mpl_reps and matplotlib_installed():
        out["mpl"], out["mpl_n"] = matplotlib_redraw(window, traces, mpl_reps)
    window.document.undo_stack.setClean()
    window.close()
    window.deleteLater()
    idle(50)
    return out


# ---- report -----------------------------------------------------------------------------------
def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


def row(name: str, value: str, target: str = "", ok=None) -> str:
    verdict = "" if ok is None else ("PASS" if ok else "MISS")
    return f"  {name:<52} {value:>12}  {target:<14} {verdict}"


def breakdown(res: dict, ms) -> None:
    print(row("  of which setData (undo, Document, its listeners), median", ms(statistics.median(res["set_data"]))))
    print(row("  then until `ready` is handled (engine, panes), median", ms(statistics.median(res["to_ready"]))))
    print(row("  then until the window has repainted, median", ms(statistics.median(res["paint"]))))
    print(row("until every pane, out of sight too, shows it, median", ms(statistics.median(res["every_pane"]))))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    busy.add_flag(ap)
    ap.add_argument("--quick", action="store_true", help="fewer edits and launches (smoke test)")
    args = ap.parse_args()
    busy.apply(args)
    n_small, n_large, launches, floor_reps, mpl_reps = (20, 8, 2, 10, 2) if args.quick else (200, 40, 5, 60, 5)

    t_start = time.perf_counter()
    boot = startup(launches)  # first, while this process is still small and idle
    app = QApplication.instance() or QApplication(sys.argv[:1])
    with tempfile.TemporaryDirectory() as tmp:
        small = size_run(app, CLASSROOM, n_small, floor_reps, mpl_reps, Path(tmp))
        large = size_run(app, LARGE, n_large, 0, 0, Path(tmp))

    T = TARGETS
    ms = lambda s: f"{s * 1000:.1f} ms"  # noqa: E731
    med = statistics.median
    s_med, s_p95 = med(small["latency"]), pct(small["latency"], 95)
    f_med = med(small["floor"])
    l_med, l_p95 = med(large["latency"]), pct(large["latency"], 95)
    print(f"Attention Explorer window benchmark (offscreen, {WINDOW[0]}x{WINDOW[1]}, "
          f"{os.cpu_count()} CPUs, torch threads {__import__('torch').get_num_threads()})")
    print(f"classroom: B={CLASSROOM[0]} L=S={CLASSROOM[1]} d_model={CLASSROOM[2]} H={CLASSROOM[3]}, "
          f"{small['panes']} panes / {small['heatmaps']} heatmaps, {small['edits']} edits "
          f"(after {WARM_UP_EDITS} not counted)")
    print(row("edit -> repainted, median", ms(s_med)))
    print(row("  its CPU time (this process, all threads), median", ms(med(small["cpu"]))))
    print(row("edit -> repainted, p95", ms(s_p95), f"<= {T['classroom_p95_ms']:.0f} ms",
              s_p95 * 1000 <= T["classroom_p95_ms"]))
    print(row("edit -> repainted, max", ms(max(small["latency"]))))
    breakdown(small, ms)
    print(row("longest UI-thread block (5 ms timer gap - 5 ms)", ms(small["block"])))
    print(row(f"drawing floor (setImage + repaint), median of {len(small['floor'])}", ms(f_med)))
    print(row("latency / floor (medians)", f"{s_med / f_med:.2f}x", f"<= {T['classroom_floor_ratio']}x",
              s_med / f_med <= T["classroom_floor_ratio"]))
    fn_med = med(small["floor_numbers"])
    print(row("drawing floor with the cells' numbers (setImage + labels + repaint), median", ms(fn_med)))
    print(row("latency / floor with numbers (medians)", f"{s_med / fn_med:.2f}x", f"<= {T['classroom_floor_ratio']}x",
              s_med / fn_med <= T["classroom_floor_ratio"]))
    fw_med = med(small["floor_window"])
    print(row("floor read as setImage + one repaint of the whole window", ms(fw_med)))
    print(row("latency / whole-window floor (medians)", f"{s_med / fw_med:.2f}x"))
    fs_med = med(small["floor_sight"])
    print(row("stricter floor: setImage of the panes in sight only + repaint", ms(fs_med)))
    print(row("latency / stricter floor (medians)", f"{s_med / fs_med:.2f}x"))
    if "mpl" in small:
        print(row(f"matplotlib imshow redraw of {small['mpl_n']} matrices, median", ms(small["mpl"])))
        print(row("matplotlib / latency (medians)", f"{small['mpl'] / s_med:.1f}x", f">= {T['matplotlib_ratio']:.0f}x",
                  small["mpl"] / s_med >= T["matplotlib_ratio"]))
    else:
        print(row("matplotlib imshow redraw: not measured (matplotlib missing: `bash .ci/setup bench`)", "-"))
    print(f"large: B={LARGE[0]} L=S={LARGE[1]} d_model={LARGE[2]} H={LARGE[3]}, {large['panes']} panes / "
          f"{large['heatmaps']} heatmaps, {large['edits']} edits (fewer: each takes a few hundred ms; "
          f"after {WARM_UP_EDITS} not counted)")
    print(row("edit -> repainted, median", ms(l_med), f"<= {T['large_median_ms']:.0f} ms",
              l_med * 1000 <= T["large_median_ms"]))
    print(row("  its CPU time (this process, all threads: the worker's engine too), median", ms(med(large["cpu"]))))
    print(row("edit -> repainted, p95", ms(l_p95)))
    breakdown(large, ms)
    print(row("longest UI-thread block (5 ms timer gap - 5 ms)", ms(large["block"]), f"<= {T['large_block_ms']:.0f} ms",
              large["block"] * 1000 <= T["large_block_ms"]))
    print(f"start-up: {len(boot['window'])} of {launches + 1} launches of main.py measured ({launches} on the default "
          f"scenario, 1 on a FILE no launch has computed)"
          + (f"; FAILED: {boot['failures']}" if boot["failures"] else ""))
    default = [(w, f) for w, f, k in zip(boot["window"], boot["frame"], boot["kinds"]) if k != "file"]
    cold = [f for f, k in zip(boot["frame"], boot["kinds"]) if k == "file"]
    if default:
        w_med, f_med2 = med([w for w, _ in default]), med([f for _, f in default])
        print(row(f"launch -> first window painted, median of {len(default)}", f"{w_med:.2f} s",
                  f"<= {T['window_s']} s", w_med <= T["window_s"]))
        print(row("launch -> first window painted, worst", f"{max(w for w, _ in default):.2f} s"))
        print(row(f"launch -> first full frame, median of {len(default)}", f"{f_med2:.2f} s", f"<= {T['frame_s']} s",
                  f_med2 <= T["frame_s"]))
        print(row("launch -> first full frame, worst (incl. the very first launch)",
                  f"{max(f for _, f in default):.2f} s",
                  f"<= {T['frame_s']} s", max(f for _, f in default) <= T["frame_s"]))
        kept = sum(k == "kept" for k in boot["kinds"])
        print(f"  ({kept} of {len(default)} default launches drew a kept trace before torch loaded: the one "
              "shipped in resources/ or the user's cache)")
    if cold:
        print(row("  a scenario no launch has computed (FILE; waits for torch)", f"{cold[0]:.2f} s"))
    print(row("  for scale: `import torch` alone in a fresh process, median", f"{med(boot['torch']):.2f} s"))
    print("correctness: every pane equals attention.run(document.scenario) after both runs: yes")
    print(f"(benchmark took {time.perf_counter() - t_start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
