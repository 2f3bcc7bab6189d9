"""Autosave of unsaved changes, and the crash recovery that offers them back.

A few seconds (`DELAY_MS`) after an edit leaves the document modified, the scenario goes to
`<data folder>/autosave/session-<id>.json` (the user's application data folder: Settings.
data_folder), atomically (attention.safe_write).  Big scenarios are written on a worker thread:
the Scenario is immutable, so the thread reads a snapshot nobody changes, and the JSON is made a
matrix row at a time, so the window keeps running meanwhile.  Saving the document, undoing back
to the saved state, opening another document and quitting normally delete the autosave.

Each window holds an exclusive lock (`flock`) on `session-<id>.lock` for as long as it runs; the
system drops it when the process dies, however it dies (kill -9 too).  So at the next launch an
autosave whose lock nobody holds belongs to a window that did not close normally, and
`find_orphans` returns it (locked again while it is being offered, so two launches at once do
not both offer it).
"""
from __future__ import annotations

import contextlib
import json
import os
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from PySide6.QtCore import QObject, QTimer, Signal

from attention import Scenario, ScenarioError, safe_write, scenario_io

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no lock, an autosave is offered once its window is gone
    fcntl = None

FORMAT = "attention-explorer/autosave"
VERSION = 1
DELAY_MS = 3000  # after the last edit
BACKGROUND_NUMBERS = 100_000  # numbers in a scenario above which it is written on a worker thread
SUBFOLDER = "autosave"


def scenario_numbers(sc: Scenario) -> int:
    n = sc.queries.size + sc.keys.size + sc.values.size
    for name in ("query", "key", "value", "out"):
        p = sc.projection(name)
        if p is not None:
            n += p.weight.size + (0 if p.bias is None else p.bias.size)
    if sc.additive is not None:
        n += sc.additive.W_q.size + sc.additive.W_k.size + sc.additive.w_v.size
    return int(n)


@dataclass
class Orphan:
    """An autosave left by a window that did not close normally."""

    file: Path
    scenario: Scenario
    source: Optional[str]  # the document's file then, if it had one
    title: Optional[dict]  # its preset title {"en", "zh"} when it had no file
    saved_at: float  # time.time() of the autosave
    lock_fd: Optional[int]  # held while it is offered

    def name(self, lang: str) -> Optional[str]:
        if self.source:
            return Path(self.source).name
        if self.title:
            return self.title.get(lang) or self.title.get("en")
        return None

    def release(self) -> None:
        """Give the lock back (the files stay for a later launch)."""
        if self.lock_fd is not None:
            os.close(self.lock_fd)
            self.lock_fd = None

    def remove(self) -> None:
        """Delete the autosave (restored or discarded)."""
        with contextlib.suppress(OSError):
            self.file.unlink()
        with contextlib.suppress(OSError):
            _lock_path(self.file).unlink()
        self.release()


def _lock_path(file: Path) -> Path:
    return file.with_suffix(".lock")


def _try_lock(path: Path) -> Optional[int]:
    """An fd holding an exclusive lock on `path` (created if missing), or None if held."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return None
    if fcntl is None:
        return fd
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def find_orphans(folder: Path) -> list[Orphan]:
    """Autosaves in `folder` whose window is gone, newest first, each locked while offered.
    A file that cannot be read is left where it is and not offered."""
    found = []
    for file in sorted(Path(folder).glob("session-*.json")):
        fd = _try_lock(_lock_path(file))
        if fd is None:
            continue  # a running window's
        try:
            doc = json.loads(file.read_text(encoding="utf-8"))
            if doc.get("format") != FORMAT:
                raise ValueError(doc.get("format"))
            sc = scenario_io.from_dict(doc["scenario"], check=False)
        except (OSError, ValueError, KeyError, TypeError, ScenarioError) as e:
            print(f"attention-explorer: cannot read the autosave {file}: {e}", flush=True)
            os.close(fd)
            continue
        found.append(Orphan(file, sc, doc.get("source"), doc.get("title"), float(doc.get("saved_at", 0)), fd))
    return sorted(found, key=lambda o: -o.saved_at)


class Autosaver(QObject):
    """Writes the document's unsaved changes DELAY_MS after the last edit; deletes them when
    they are saved, undone, replaced by another document or the window closes normally."""

    written = Signal(str)  # the autosave file, once a write is complete (tests wait for it)
    _finished = Signal(int, str)  # generation, error ("" when written): worker -> GUI thread

    def __init__(self, document, folder: Path, describe: Callable[[], dict], parent: Optional[QObject] = None):
        super().__init__(parent)
        self.document, self.describe = document, describe
        self.folder = Path(folder) / SUBFOLDER
        self.file = self.folder / f"session-{uuid.uuid4().hex[:12]}.json"
        self._lock_fd: Optional[int] = None
        self._generation = 0  # bumped by discard(): a write in flight for an older one is dropped
        self._worker: Optional[threading.Thread] = None
        self._pending = False
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(self.write_now)
        self._finished.connect(self._on_finished)
        document.changed.connect(self.schedule)
        document.undo_stack.cleanChanged.connect(self._on_clean_changed)
        document.loaded.connect(self.discard)

    # ---- when ----------------------------------------------------------------------------------
    def schedule(self) -> None:
        if self.document.is_modified():
            self.timer.start(DELAY_MS)

    def _on_clean_changed(self, clean: bool) -> None:
        if clean:
            self.discard()
        else:
            self.schedule()

    # ---- writing -------------------------------------------------------------------------------
    def write_now(self) -> bool:
        """Write the autosave now (on a worker thread for a big scenario).  False when there
        is nothing to write or it could not start."""
        self.timer.stop()
        if not self.document.is_modified():
            return False
        if self._worker is not None and self._worker.is_alive():
            self._pending = True  # once this one is done
            return True
        if not self._hold_lock():
            return False
        sc, meta, generation = self.document.scenario, self.describe(), self._generation
        if scenario_numbers(sc) <= BACKGROUND_NUMBERS:
            self._on_finished(generation, self._write(sc, meta))
            return True
        self._worker = threading.Thread(target=lambda: self._finished.emit(generation, self._write(sc, meta)),
                                        name="autosave", daemon=True)
        self._worker.start()
        return True

    def _write(self, sc: Scenario, meta: dict) -> str:
        """(any thread) The autosave file, atomically; "" or why not."""
        try:
            body = scenario_io.to_dict(sc)
        except ScenarioError as e:  # NaN typed somewhere: keep the previous autosave
            return "; ".join(e.lines)
        doc = {"format": FORMAT, "version": VERSION, "saved_at": time.time(), **meta, "scenario": body}
        try:
            safe_write.write_atomic(self.file, scenario_io.json_chunks(doc), overwrite_protected=True, mode=0o600)
        except OSError as e:
            return str(e.strerror or e)
        return ""

    def _on_finished(self, generation: int, error: str) -> None:
        self._worker = None
        if generation != self._generation:  # discarded meanwhile: what was just written goes too
            self._remove_files()
        elif error:
            print(f"attention-explorer: autosave failed: {error}", flush=True)
        else:
            self.written.emit(str(self.file))
        if self._pending:
            self._pending = False
            self.write_now()

    def _hold_lock(self) -> bool:
        if self._lock_fd is not None:
            return True
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            print(f"attention-explorer: cannot autosave in {self.folder}: {e.strerror or e}", flush=True)
            return False
        self._lock_fd = _try_lock(_lock_path(self.file))
        return self._lock_fd is not None

    # ---- discarding ----------------------------------------------------------------------------
    def discard(self) -> None:
        """The changes are saved or gone: delete the autosave (and one being written)."""
        self.timer.stop()
        self._pending = False
        self._generation += 1
        if self._worker is None:
            self._remove_files()

    def _remove_files(self) -> None:
        with contextlib.suppress(OSError):
            self.file.unlink()

    def close(self) -> None:
        """The window closes normally: wait for a write in flight, delete everything."""
        self.timer.stop()
        worker = self._worker
        if worker is not None:
            worker.join()
        self._worker = None
        self._pending = False
        self._generation += 1
        self._remove_files()
        if self._lock_fd is not None:
            with contextlib.suppress(OSError):
                _lock_path(self.file).unlink()
            os.close(self._lock_fd)
            self._lock_fd = None
