"""Application start-up: one QApplication, names for QSettings, translators, error hook, run().

`run(path)` opens the window on the seed's toy preset (or on `path`) and returns the exit code
of the event loop, so `sys.exit(run(...))` is safe.  Errors that escape a slot are shown in the
window's message area instead of killing the process or printing only a traceback.

Start-up order (torch's import is the slowest part of a launch): pyqtgraph is imported and the
window built and shown without torch (attention's torch-free parts suffice for that); torch is
imported on a background thread from then on, and the first trace is computed on the engine's
worker thread once that import has finished (see app.pipeline.recompute), so the window appears and
stays responsive meanwhile.  When the start-up scenario and the engine are those of the last
launch, the trace the engine computed then (attention.files.trace_cache) is drawn at once and the
fresh one replaces it when torch is in (and the kept one is written anew if its numbers differ).
"""
from __future__ import annotations

import functools
import gc
import os
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path
from typing import Callable, Optional

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QStandardPaths, QTimer, Signal
from PySide6.QtWidgets import QApplication

from attention.files import trace_cache

ORGANIZATION = "AttentionExplorer"
APPLICATION = "Attention Explorer"

#: bench/gui.py's start-up probe: the launch time (time.time() in the parent, just before it
#: started this process).  When set, run() prints "bench-startup window <s>" once the window's
#: first paint is done and "bench-startup frame <s>" once every visible pane has been painted
#: with the first trace (seconds since launch), then quits.  Nothing else changes.
BENCH_STARTUP_ENV = "ATTENTION_EXPLORER_BENCH_STARTUP"


def get_app(argv: Optional[list[str]] = None) -> QApplication:
    """The QApplication, created on first use (Qt allows only one per process)."""
    app = QApplication.instance()
    if app is None:
        app = QApplication(argv if argv is not None else sys.argv[:1])
    QCoreApplication.setOrganizationName(ORGANIZATION)
    QCoreApplication.setApplicationName(APPLICATION)
    return app


def install_excepthook(show: Callable[[str], None]) -> Callable:
    """Route uncaught exceptions (GUI thread and worker threads) to `show`; returns the hook.

    The traceback still goes to stderr for a bug report; the person sees one line and keeps
    working.  A worker thread's error is passed to the GUI thread with a zero-delay timer."""
    def hook(exc_type, exc, tb) -> None:
        if issubclass(exc_type, KeyboardInterrupt):
            sys.__excepthook__(exc_type, exc, tb)
            return
        traceback.print_exception(exc_type, exc, tb)
        line = f"{exc_type.__name__}: {exc}"
        if threading.current_thread() is threading.main_thread():
            show(line)
        else:
            QTimer.singleShot(0, QCoreApplication.instance(), lambda: show(line))

    sys.excepthook = hook
    threading.excepthook = lambda args: hook(args.exc_type, args.exc_value, args.exc_traceback)
    return hook


def settle_heap() -> None:
    """Take everything alive now out of the garbage collector's sight (gc.freeze).

    Once torch and the panes are loaded the heap holds a few hundred thousand long-lived
    objects, and each of the collector's full passes walks all of them: a pause a person can see,
    every few dozen edits (bench/gui.py's longest UI-thread block shows it).  run() calls this once
    the first trace is on screen; what is frozen is never freed, which is what those objects
    (modules, the window) are for anyway."""
    gc.freeze()


class _TorchReady(QObject):
    """Carries "torch is imported" from the import thread to the GUI thread (queued)."""

    ready = Signal()


def run(path: Optional[str] = None) -> int:
    """Open the window (on `path` when given) and run the event loop; returns its exit code."""
    app = get_app()
    from app.main_window import MainWindow  # after the QApplication: pyqtgraph needs it
    from app.services import devices

    devices.defer()  # no torch for the device list until the window has been painted
    first = _first_preset()
    window = MainWindow(scenario=first)
    if first is not None:
        window.open_default()  # the same preset again, now with its title (a small file, just read)
    install_excepthook(window.show_error)
    if path:
        window.load_path(path)
    launched = os.environ.get(BENCH_STARTUP_ENV)
    if launched:
        probe = _StartupProbe(window, float(launched))  # noqa: F841 (kept alive until exec ends)
    startup, cache = window.document.scenario, _trace_cache_path()
    # the engine's numbers for exactly this scenario, if kept: last launch's, or (the very first
    # launch, on the first preset) the one the engine ships (attention/files/startup-trace.npz)
    cached = trace_cache.load(startup, cache) or trace_cache.load_canary(startup)
    # torch only after the first paint: importing it on another thread while this one builds
    # and paints the window delays both (one GIL; measured with bench/gui.py)
    window.recompute.hold()
    relay = _TorchReady()
    # the device list: CUDA is offered once known (forced: the scenario itself has not changed,
    # and a plain sync skips an unchanged scenario)
    relay.ready.connect(functools.partial(window.params.sync, True))
    importer: list[threading.Thread] = []

    # (ruff's F821 below: run() ends with `del window`; these closures all run before that)
    def import_torch() -> None:
        if cached is not None:  # draw last launch's trace now, and let it paint before torch takes the GIL
            window.recompute.show_cached(cached, startup)  # noqa: F821
            for _ in range(3):
                app.processEvents()
        importer.append(devices.import_torch_in_background(relay.ready.emit, also=("attention.compute.engine",)))
        window.recompute.release()  # noqa: F821 (the first trace: computed on the engine's thread)

    _after_first_paint(window, import_torch)
    settled: list[bool] = []

    def on_trace(trace, scenario, *_) -> None:
        if not settled and trace is not cached:  # the first fresh trace: torch and the panes are loaded
            settled.append(True)
            if scenario is startup and (cached is None or not trace_cache.same_numbers(cached, trace)):
                _store_quietly(trace, scenario, cache)  # none kept, or kept by an engine that computes otherwise
            QTimer.singleShot(0, settle_heap)

    window.recompute.ready.connect(on_trace)
    window.show()
    if not launched:  # the start-up probe measures a launch, it never asks anything
        QTimer.singleShot(0, window.offer_recovery)  # unsaved changes of a window that crashed
    code = app.exec()
    for thread in importer:
        thread.join()
    del window
    return int(code)


def _trace_cache_path() -> Path:
    """Where the last start-up trace is kept (attention.files.trace_cache): the user's cache folder."""
    folder = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.CacheLocation)
    return Path(folder or tempfile.gettempdir()) / "startup-trace.npz"


def _store_quietly(trace, scenario, path: Path) -> None:
    """A cache that cannot be written only makes the next launch wait for torch: say so, go on."""
    try:
        trace_cache.save(trace, scenario, path)
    except OSError as e:
        print(f"attention-explorer: could not cache the start-up trace at {path}: {e}", file=sys.stderr)


class _FirstPaint(QObject):
    def __init__(self, window, then: Callable[[], None]) -> None:
        super().__init__(window)
        self.then = then
        window.installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.Paint:
            obj.removeEventFilter(self)
            QTimer.singleShot(0, self.then)  # once this paint is done
        return False


def _after_first_paint(window, then: Callable[[], None]) -> None:
    """Call then() on the GUI thread as soon as the window's first paint has finished."""
    _FirstPaint(window, then)


def _first_preset():
    """The first preset's scenario, or None (the window then makes its own default).

    Read here so that MainWindow does not build its fresh default scenario first: that one is
    drawn by torch's seeded generator, and torch is still being imported."""
    import resources
    from attention import ScenarioError
    from attention.files import scenario_io

    presets = resources.list_presets()
    try:
        return scenario_io.load(presets[0][0]) if presets else None
    except ScenarioError:
        return None


class _StartupProbe(QObject):
    """BENCH_STARTUP_ENV: when the first paint and the first full frame are done (see above)."""

    def __init__(self, window, launched: float) -> None:
        super().__init__(window)
        self.window, self.launched = window, launched
        self.shown = False
        self.trace_on_screen = False
        self.painted: set = set()
        window.installEventFilter(self)
        window.recompute.ready.connect(self._on_ready)  # after the window's own slot

    def _on_ready(self, trace, *args) -> None:
        if not self.trace_on_screen:
            self.trace_on_screen = True
            kept = not trace.parameters  # a trace read back by attention.files.trace_cache keeps no parameters
            print(f"bench-startup first-trace {'kept' if kept else 'fresh'}", flush=True)
            for sid in self.window.view.pane_ids():
                self.window.view.pane(sid, current=False).canvas.viewport().installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        kind = event.type()
        if kind == QEvent.Type.Paint and obj is not self.window:
            self.painted.add(obj)
        elif kind in (QEvent.Type.Paint, QEvent.Type.UpdateRequest) and obj is self.window:
            QTimer.singleShot(0, self._after_paint)  # runs once this paint has finished
        return False

    def _after_paint(self) -> None:
        now = time.time() - self.launched
        if not self.shown:
            self.shown = True
            print(f"bench-startup window {now:.3f}", flush=True)
        if not self.trace_on_screen:
            return
        view = self.window.view
        visible = [view.pane(s).canvas.viewport() for s in view.pane_ids()]
        visible = [v for v in visible if not v.visibleRegion().isEmpty()]
        if visible and all(v in self.painted for v in visible):
            print(f"bench-startup frame {now:.3f}", flush=True)
            self.window.removeEventFilter(self)
            QCoreApplication.instance().quit()
