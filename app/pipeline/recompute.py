"""Document -> engine -> panes, at most once per frame, off the UI thread when it is big.

Every document change schedules one recompute with a leading-edge throttle (see `schedule`):
it starts in the next event-loop pass if the last one started a frame (16 ms) ago or more,
else when that frame is over, and changes made meanwhile share it.  Small scenarios run at
once on the GUI thread; big ones (work B*H*L*S above `BACKGROUND_WORK`) run on one worker
thread, which also prepares what the panes will draw (app.panes.prepared: images, levels,
colour-mapped QImages, what changed), so the GUI thread only hands finished pieces over.
Every scenario also runs on the worker until the engine (and torch) has been imported once (at
start-up the window opens before that import has finished; waiting for it would freeze the
window).  Every request (`Request`) carries a generation number and what the view shows now
(`DisplayHints`: which batch item to prepare, which pictures to reuse); only the newest result
is delivered, so the panes never show numbers that belong to an older scenario (or a mix).
Results come back to the GUI thread through a queued Qt signal with a @Slot receiver (PySide6
cross-thread rule).
"""
from __future__ import annotations

import math
import threading
import time
import traceback
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Optional

from PySide6.QtCore import QCoreApplication, QDeadlineTimer, QMetaObject, QObject, Qt, QThread, QTimer, Signal, Slot

import attention
from app.panes import prepared
from app.pipeline.document import Document
from app.services import devices
from attention import Scenario, ScenarioError, Trace
from attention.datamodel.problem import Problem

BACKGROUND_WORK = 200_000  # B*H*L*S (plus input sizes) above which the engine runs off the GUI thread
FRAME_MS = 16


def estimated_work(sc: Scenario) -> int:
    H = sc.n_heads if isinstance(sc.n_heads, int) and sc.n_heads > 0 else 1
    return sc.batch * H * sc.L * sc.S + sc.queries.size + sc.keys.size + sc.values.size


#: set once the worker has computed a trace: attention.compute.engine (and so torch) is then imported completely
_engine_imported = threading.Event()


def engine_ready() -> bool:
    """True once the worker has computed a trace (the engine and torch are then imported
    completely).  Until then every scenario goes to the worker: importing torch on the GUI
    thread, or waiting there for another thread's import of it, would freeze the window."""
    return _engine_imported.is_set()


@dataclass(frozen=True)
class Request:
    """One recompute: everything the worker needs travels with it, nothing through globals."""

    generation: int
    scenario: Scenario
    hints: prepared.DisplayHints


def prepare_display(trace: Trace, sc: Scenario, hints: prepared.DisplayHints) -> None:
    """On the worker thread, right after the engine: turn the trace into what the panes draw
    (images, levels, colour-mapped QImages; app.panes.prepared), so that the GUI thread only
    hands finished pieces over.  A failure here only means the panes make them themselves."""
    try:
        batch = min(max(hints.batch, 0), sc.batch - 1)
        prepared.stash(prepared.prepare_trace(trace, sc, batch, hints.drawn))
    except Exception:  # pragma: no cover - reported, and the GUI thread's own path still works
        traceback.print_exc()


def compute(sc: Scenario) -> tuple[Optional[Trace], list[Problem]]:
    """(trace, []) or (None, problems).  Never raises: an engine bug becomes a problem too.
    attention.run checks the scenario itself (attention.problems) and raises ScenarioError
    with those lines, so they are not worked out twice per edit."""
    try:
        return attention.run(sc), []
    except ScenarioError as e:
        return None, list(e.problems)
    except MemoryError:
        return None, [Problem("no_memory", "sizes")]
    except Exception as e:  # pragma: no cover - reported, not hidden
        traceback.print_exc()
        return None, [Problem("text", "engine", {"text": f"{type(e).__name__}: {e}"})]


class Recomputer(QObject):
    """Owns the timer, the worker thread and the generation counter."""

    ready = Signal(object, object, float)  # trace, scenario it was computed from, seconds
    failed = Signal(object, object)  # problems (list[attention.datamodel.problem.Problem]), scenario
    busy_changed = Signal(bool)  # a background computation started / ended
    _delivered = Signal(int, object, object, object, float)  # worker -> GUI thread (queued)

    def __init__(self, doc: Document, parent: Optional[QObject] = None,
                 hints: Optional[Callable[[], prepared.DisplayHints]] = None):
        """`hints`: asked on the GUI thread for each request sent to the worker (what the view
        shows now, e.g. StepsView.display_hints); without it the worker prepares batch item 0."""
        super().__init__(parent)
        self.doc = doc
        self._hints = hints or prepared.DisplayHints
        self.generation = 0
        self._pending: Optional[Future] = None
        self._busy = False
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="attention-engine",
                                            initializer=devices.leave_a_core_for_the_gui)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.start)
        self._last_start = -math.inf  # perf_counter() of the last recompute
        self._held = False  # hold(): nothing starts until release()
        self._missed = False  # a recompute was asked for while held
        self._queued = False  # a queued start() is on its way (see schedule)
        self._delivered.connect(self._on_delivered)
        doc.changed.connect(self.schedule)
        self.background_threshold = BACKGROUND_WORK

    def show_cached(self, trace: Trace, scenario: Scenario) -> None:
        """Deliver a trace the engine computed earlier for exactly `scenario` (attention.files.trace_cache),
        e.g. while torch is still importing.  The next real computation replaces it."""
        self.ready.emit(trace, scenario, 0.0)

    def schedule(self) -> None:
        """Recompute soon, at most once per frame: at once (see below) if the last recompute
        started a frame ago or more, else when that frame is over.  Changes made before it
        starts (one pass of the event loop) share one recompute.

        A small scenario is computed by a queued call, which runs before the window's pending
        repaint (a low-priority event): the edited cell and the new panes are then painted
        together, once.  A big one starts from a 0 ms timer instead, after that repaint: its
        result comes later anyway, and greying the panes in the same pass as the repaint would
        make one long pass of the GUI thread."""
        if self._held:
            self._missed = True
            return
        if self._timer.isActive() or self._queued:
            return
        wait_ms = FRAME_MS - (time.perf_counter() - self._last_start) * 1000
        if wait_ms > 0 or not self._runs_here(self.doc.scenario):
            self._timer.start(math.ceil(wait_ms) if wait_ms > 0 else 0)
        else:
            self._queued = True
            QMetaObject.invokeMethod(self, "_start_queued", Qt.ConnectionType.QueuedConnection)

    def _runs_here(self, sc: Scenario) -> bool:
        """Whether `sc` is computed on the GUI thread (small, and torch already imported)."""
        return estimated_work(sc) <= self.background_threshold and engine_ready()

    @Slot()
    def _start_queued(self) -> None:
        if self._queued:
            self._queued = False
            if not self._held:
                self.start()

    def start(self) -> None:
        """Compute the current scenario now (synchronously when small)."""
        self._timer.stop()
        self._queued = False
        self._last_start = time.perf_counter()
        self.generation += 1
        gen, sc = self.generation, self.doc.scenario
        if self._runs_here(sc):
            t0 = time.perf_counter()
            trace, lines = compute(sc)
            self._deliver(gen, sc, trace, lines, time.perf_counter() - t0)
            return
        if self._pending is not None:
            self._pending.cancel()  # not started yet: skip it; running: its result will be dropped
        self._set_busy(True)
        self._pending = self._executor.submit(self._work, Request(gen, sc, self._hints()))

    def hold(self) -> None:
        """Start nothing until release() (start-up: the window paints before the engine's thread
        starts importing torch); what is asked for meanwhile is computed on release()."""
        self._held = True
        if self._timer.isActive() or self._queued:
            self._timer.stop()
            self._queued = False
            self._missed = True

    def release(self) -> None:
        self._held = False
        if self._missed:
            self._missed = False
            self.schedule()

    def _work(self, request: Request) -> None:
        gen, sc = request.generation, request.scenario
        t0 = time.perf_counter()
        trace, lines = compute(sc)
        seconds = time.perf_counter() - t0
        if trace is not None:
            _engine_imported.set()
        if trace is not None and gen == self.generation:  # (a newer request makes this one moot)
            prepare_display(trace, sc, request.hints)
        self._delivered.emit(gen, sc, trace, lines, seconds)

    @Slot(int, object, object, object, float)
    def _on_delivered(self, gen: int, sc: Scenario, trace, lines: list, seconds: float) -> None:
        self._deliver(gen, sc, trace, lines, seconds)

    def _deliver(self, gen: int, sc: Scenario, trace, lines: list, seconds: float) -> None:
        if gen != self.generation:
            return  # an older request: its scenario is no longer on screen
        if self._pending is not None and self._pending.done():
            self._pending = None
        self._set_busy(False)
        if trace is None:
            self.failed.emit(lines, sc)
        else:
            self.ready.emit(trace, sc, seconds)

    def _set_busy(self, busy: bool) -> None:
        if busy != self._busy:
            self._busy = busy
            self.busy_changed.emit(busy)

    def is_busy(self) -> bool:
        """A computation is running on the worker (busy_changed said True and not yet False)."""
        return self._busy

    # ---- for tests and shutdown ----------------------------------------------------------------
    def is_idle(self) -> bool:
        return not self._timer.isActive() and not self._busy and not self._missed and not self._queued

    def recompute_now(self) -> None:
        """Run the pending recompute at once and wait until its result is delivered."""
        self.start()
        self.wait_idle()

    def wait_idle(self, timeout_s: float = 60.0) -> bool:
        """Process events until no recompute is scheduled or running; False on timeout."""
        deadline = QDeadlineTimer(int(timeout_s * 1000))
        while not self.is_idle():
            if deadline.hasExpired():
                return False
            QCoreApplication.processEvents()
            if self._busy:
                QThread.msleep(2)
        return True

    def shutdown(self) -> None:
        self._timer.stop()
        self._held, self._missed, self._queued = True, False, False
        self.generation += 1
        self._executor.shutdown(wait=True, cancel_futures=True)
