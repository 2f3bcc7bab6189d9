"""Autosave of unsaved changes, and the crash recovery that offers them back.

A second (`DELAY_MS`) after an edit leaves the document modified, and at most `MAX_WAIT_MS`
after the first unsaved edit, the scenario goes to `<data folder>/autosave/session-<id>.json`
(the user's application data folder: Settings.data_folder), atomically (attention.files.safe_write),
its matrices as float64 bytes (`pack`: exact, and fast: a 62 MB scenario lands 1.7-2.3 s after
the edit on a loaded 2-core machine, where its decimal text alone took 11-14 s;
bench/autosave_latency.py measures it).  Big scenarios are written on a
worker thread: the Scenario is immutable, so the thread reads a snapshot nobody changes.  Saving
the document, undoing back to the saved state, opening another document and quitting normally
delete the autosave.  A write that fails turns recovery off visibly (`failed`), never silently.

Each window holds an exclusive lock (`flock`) on `session-<id>.lock` for as long as it runs; the
system drops it when the process dies, however it dies (kill -9 too).  So at the next launch an
autosave whose lock nobody holds belongs to a window that did not close normally, and
`find_orphans` returns it (locked again while it is being offered, so two launches at once do
not both offer it).  A damaged autosave is set aside with a line and never hides the others;
temporaries of writes killed midway are removed whatever session made them.
"""
from __future__ import annotations

import base64
import contextlib
import errno
import json
import math
import os
import re
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Optional

import numpy as np
from PySide6.QtCore import QCoreApplication, QObject, QTimer, Signal

from app.pipeline.disk_stamp import DiskStamp, changed_since
from attention import Scenario, ScenarioError
from attention.files import safe_write, scenario_io
from attention.registry import kinds

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no lock, an autosave is offered once its window is gone
    fcntl = None

FORMAT = "attention-explorer/autosave"
VERSION = 2  # 2: big matrices as float64 bytes (base64) instead of decimal text; 1 is still read
DELAY_MS = 1000  # after the last edit
MAX_WAIT_MS = 3000  # ... but never longer than this after the first unsaved edit (typing on and on)
BACKGROUND_NUMBERS = 100_000  # numbers in a scenario above which it is written on a worker thread
SUBFOLDER = "autosave"
PACKED = "$array"  # {"$array": {"shape": [...], "float64_base64": "..."}} in place of a nested list
MAX_DEPTH = 3  # the scenario's matrices have at most 3 axes
#: a temporary of write_atomic for an autosave: `.session-<id>.json.<8 random>.tmp`
KILLED_TEMPORARY = re.compile(r"\.(session-[0-9a-f]{12}\.json)\.[a-z0-9_]{8}\.tmp")
#: the latest time an autosave may carry (9999-12-31): anything beyond is damage
LATEST = 253402300799.0


translate = QCoreApplication.translate  # words in both languages (lupdate reads translate("Autosave", ...))


def scenario_numbers(sc: Scenario) -> int:
    n = sc.queries.size + sc.keys.size + sc.values.size
    for name in ("query", "key", "value", "out"):
        p = sc.projection(name)
        if p is not None:
            n += p.weight.size + (0 if p.bias is None else p.bias.size)
    if sc.additive is not None:
        n += sc.additive.W_q.size + sc.additive.W_k.size + sc.additive.w_v.size
    return int(n)


# ---- packing the numbers ---------------------------------------------------------------------
def _matrices(sc: Scenario) -> dict[tuple[str, ...], np.ndarray]:
    """Where each matrix sits in scenario_io.to_dict's document, and the array itself."""
    out = {(name,): getattr(sc, name) for name in ("queries", "keys", "values")}
    for name in ("query", "key", "value", "out"):
        p = sc.projection(name)
        if p is not None:
            out[("projections", name, "weight")] = p.weight
            if p.bias is not None:
                out[("projections", name, "bias")] = p.bias
    for kind in kinds.SCORING.values():  # a kind's own weights (additive's W_q, W_k, w_v)
        held = getattr(sc, kind.weights_attr, None) if kind.weights_attr else None
        if held is not None:
            for name, _ in kind.weight_matrices:
                out[(kind.weights_attr, name)] = getattr(held, name)
    return out


def _slot(doc: dict, path: tuple[str, ...]) -> Optional[dict]:
    """The dict that holds `path`'s last key, or None when the document has no such place."""
    for key in path[:-1]:
        doc = doc.get(key) if isinstance(doc, dict) else None
    return doc if isinstance(doc, dict) and path[-1] in doc else None


def pack(body: dict, sc: Scenario) -> dict:
    """to_dict's document with each matrix written inline (a list, not a generator recipe)
    replaced by its float64 bytes: base64 is ~40 times faster to write than decimal text (a
    62 MB scenario took 4.6 s as text), and exact bit for bit."""
    for path, arr in _matrices(sc).items():
        holder = _slot(body, path)
        if holder is not None and isinstance(holder[path[-1]], list):
            a = np.ascontiguousarray(arr, dtype="<f8")
            holder[path[-1]] = {PACKED: {"shape": list(a.shape),
                                         "float64_base64": base64.b64encode(a.tobytes()).decode("ascii")}}
    return body


def unpack(body: dict) -> dict:
    """`pack` undone: nested lists again, for scenario_io.from_dict.  DamagedAutosave when a
    packed matrix is not what pack writes."""
    paths = [(n,) for n in ("queries", "keys", "values")]
    paths += [("projections", n, p) for n in ("query", "key", "value", "out") for p in ("weight", "bias")]
    paths += [(k.weights_attr, n) for k in kinds.SCORING.values() if k.weights_attr for n, _ in k.weight_matrices]
    for path in paths:
        holder = _slot(body, path)
        value = holder[path[-1]] if holder is not None else None
        if isinstance(value, dict) and PACKED in value:
            holder[path[-1]] = _unpack_one(value).tolist()
    return body


def _unpack_one(value: dict) -> np.ndarray:
    inner = value.get(PACKED)
    if len(value) != 1 or not isinstance(inner, dict) or set(inner) != {"shape", "float64_base64"}:
        raise DamagedAutosave(translate("Autosave", "its numbers are damaged"))
    shape, text = inner["shape"], inner["float64_base64"]
    if (not isinstance(shape, list) or not 1 <= len(shape) <= MAX_DEPTH or not isinstance(text, str)
            or not all(type(n) is int and 0 <= n < 2**31 for n in shape)):
        raise DamagedAutosave(translate("Autosave", "its numbers are damaged"))
    try:
        raw = base64.b64decode(text, validate=True)
    except ValueError:
        raise DamagedAutosave(translate("Autosave", "its numbers are damaged")) from None
    if len(raw) != 8 * math.prod(shape):
        raise DamagedAutosave(translate("Autosave", "its numbers are damaged"))
    return np.frombuffer(raw, dtype="<f8").reshape(shape)


def json_chunks(doc: dict) -> Iterator[str]:
    """`doc` as compact JSON, a scenario field at a time.  scenario_io.json_chunks pretty-prints
    for people and measures every nested object by dumping it whole (the 31 MB of packed numbers
    three times over); nobody reads an autosave, and each piece here is one C-speed json.dumps,
    short enough for the GUI thread to run between them."""
    yield "{"
    for i, (key, value) in enumerate(doc.items()):
        yield ("" if i == 0 else ", ") + json.dumps(key) + ": "
        if key == "scenario" and isinstance(value, dict):
            yield "{"
            for j, (k, v) in enumerate(value.items()):
                yield ("" if j == 0 else ", ") + json.dumps(k) + ": " + json.dumps(v, ensure_ascii=False,
                                                                                  allow_nan=False)
            yield "}"
        else:
            yield json.dumps(value, ensure_ascii=False, allow_nan=False)
    yield "}\n"


# ---- finding what a crashed window left ------------------------------------------------------
class DamagedAutosave(ValueError):
    """An autosave that cannot be offered; the message says why, in the window's language."""


@dataclass
class Orphan:
    """An autosave left by a window that did not close normally."""

    file: Path
    scenario: Scenario
    source: Optional[str]  # the document's file then, if it had one
    title: Optional[dict]  # its preset title {"en", "zh"} when it had no file
    saved_at: float  # time.time() of the autosave
    lock_fd: Optional[int]  # held while it is offered
    source_stamp: Optional[DiskStamp] = None  # the source file as the changes started from it

    def name(self, lang: str) -> Optional[str]:
        if self.source:
            return Path(self.source).name
        if self.title:
            return self.title.get(lang) or self.title.get("en")
        return None

    def base_stamp(self) -> Optional[DiskStamp]:
        """What a save over the source must find on disk not to ask first: the recorded stamp,
        else (an autosave without one) "not written after the autosave"."""
        if self.source_stamp is not None:
            return self.source_stamp
        return DiskStamp(-1, int(self.saved_at * 1e9), None) if self.source else None

    def disk_changed(self) -> Optional[DiskStamp]:
        """The source file's stamp when it changed on disk since these changes began."""
        return changed_since(self.source, self.base_stamp()) if self.source else None

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


@dataclass
class Skipped:
    """A damaged autosave, not offered: why, and the name it was set aside under (None when it
    could not be renamed and stays where it was)."""

    file: Path
    reason: str
    kept_as: Optional[Path]


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


def remove_killed_temporaries(folder: Path) -> int:
    """Delete the temporaries of autosaves killed while writing, whatever session wrote them
    (safe_write only clears a target's own, and a new session writes under a new name, so a
    killed 7 MB temporary stayed for ever).  One a running write holds is kept.  How many went."""
    n = 0
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            m = KILLED_TEMPORARY.fullmatch(entry.name)
            if m:
                n += safe_write.remove_stale(Path(folder) / m.group(1))
    return n


def find_orphans(folder: Path, skipped: Optional[list[Skipped]] = None) -> list[Orphan]:
    """Autosaves in `folder` whose window is gone, newest first, each locked while offered.

    A damaged one (not JSON, not an autosave, a field of the wrong kind, numbers that do not
    make a scenario) never stops the others: it is set aside as `<name>.damaged` (kept for a
    person to look at, never offered again), said in one line on the console and in `skipped`."""
    remove_killed_temporaries(Path(folder))
    found = []
    for file in sorted(Path(folder).glob("session-*.json")):
        fd = _try_lock(_lock_path(file))
        if fd is None:
            continue  # a running window's
        try:
            found.append(_read_orphan(file, fd))
        except Exception as e:  # noqa: BLE001 - whatever is in the file, the other autosaves are offered
            reason = str(e) if isinstance(e, DamagedAutosave) else \
                translate("Autosave", "it cannot be read ({0})").format(type(e).__name__)
            kept = _set_aside(file, fd)
            print(f"attention-explorer: skipped the damaged autosave {file}: {reason}", flush=True)
            if skipped is not None:
                skipped.append(Skipped(file, reason, kept))
    return sorted(found, key=lambda o: -o.saved_at)


def _set_aside(file: Path, fd: int) -> Optional[Path]:
    kept: Optional[Path] = file.with_name(file.name + ".damaged")
    try:
        os.replace(file, kept)
    except OSError:
        kept = None
    if kept is not None:
        with contextlib.suppress(OSError):
            _lock_path(file).unlink()
    os.close(fd)
    return kept


def _read_orphan(file: Path, fd: int) -> Orphan:
    """The Orphan in `file`; DamagedAutosave (or the reader's own error) when it is not one."""
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as e:
        raise DamagedAutosave(translate("Autosave", "it cannot be read ({0})").format(e.strerror or e)) from None
    except ValueError:
        raise DamagedAutosave(translate("Autosave", "it is not text (UTF-8)")) from None
    try:
        doc = json.loads(text)
    except RecursionError:
        raise DamagedAutosave(translate("Autosave", "it is nested too deeply to be an autosave")) from None
    except ValueError:
        raise DamagedAutosave(translate("Autosave", "it is not JSON")) from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(doc.get("scenario"), dict):
        raise DamagedAutosave(translate("Autosave", "it is not an autosave of this program"))
    saved_at = _saved_at(doc.get("saved_at"))
    source, title = _source(doc.get("source")), _title(doc.get("title"))
    try:
        sc = scenario_io.from_dict(unpack(doc["scenario"]), check=False)
    except ScenarioError as e:
        first = e.lines[0] if e.lines else ""
        raise DamagedAutosave(translate("Autosave", "its scenario cannot be read: {0}").format(first)) from None
    except RecursionError:
        raise DamagedAutosave(translate("Autosave", "it is nested too deeply to be an autosave")) from None
    return Orphan(file, sc, source, title, saved_at, fd, DiskStamp.from_json(doc.get("source_stamp")))


def _saved_at(value: object) -> float:
    ok = type(value) in (int, float) and math.isfinite(value) and 0 <= value <= LATEST
    if ok:
        try:
            time.localtime(value)
        except (OverflowError, OSError, ValueError):
            ok = False
    if not ok:
        raise DamagedAutosave(translate("Autosave", "its time (saved_at) is not a time"))
    return float(value)


def _source(value: object) -> Optional[str]:
    if value is None:
        return None
    if not isinstance(value, str) or not value or "\0" in value or len(value) > 4096:
        raise DamagedAutosave(translate("Autosave", "its file name (source) is not a path"))
    return value


def _title(value: object) -> Optional[dict]:
    if value is None:
        return None
    names = {k: v for k, v in value.items() if k in ("en", "zh")} if isinstance(value, dict) else {}
    if not names or not all(isinstance(v, str) and 0 < len(v) <= 1000 for v in names.values()):
        raise DamagedAutosave(translate("Autosave", "its title is not a pair of names"))
    return names


class Autosaver(QObject):
    """Writes the document's unsaved changes DELAY_MS after the last edit (MAX_WAIT_MS after
    the first at the latest); deletes them when they are saved, undone, replaced by another
    document or the window closes normally.  A write that fails says why (`failed`, in the
    window's language) until one works again (`resumed`): the window shows recovery is off."""

    written = Signal(str)  # the autosave file, once a write is complete (tests wait for it)
    failed = Signal(str)  # why autosave does not work now (recovery is off)
    resumed = Signal()  # a write worked again after a failure
    _finished = Signal(int, str, str)  # generation, what went wrong ("" when written), detail: worker -> GUI

    def __init__(self, document, folder: Path, describe: Callable[[], dict], parent: Optional[QObject] = None):
        super().__init__(parent)
        self.document, self.describe = document, describe
        self.folder = Path(folder) / SUBFOLDER
        self.file = self.folder / f"session-{uuid.uuid4().hex[:12]}.json"
        #: what went wrong last ("full" | "readonly" | "numbers" | "other", a detail); None while it works
        self.trouble: Optional[tuple[str, str]] = None
        self._lock_fd: Optional[int] = None
        self._generation = 0  # bumped by discard(): a write in flight for an older one is dropped
        self._worker: Optional[threading.Thread] = None
        self._pending = False
        self._deadline: Optional[float] = None  # monotonic time by which the pending write must start
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(self.write_now)
        self._finished.connect(self._on_finished)
        document.changed.connect(self.schedule)
        document.undo_stack.cleanChanged.connect(self._on_clean_changed)
        document.loaded.connect(self.discard)

    # ---- when ----------------------------------------------------------------------------------
    def schedule(self) -> None:
        """DELAY_MS after this edit, or sooner: one unsaved edit waits MAX_WAIT_MS at most
        however long the typing goes on (the timer restarting at every edit kept postponing it)."""
        if not self.document.is_modified():
            return
        now = time.monotonic()
        if self._deadline is None or not self.timer.isActive():
            self._deadline = now + MAX_WAIT_MS / 1000
        left_ms = max(0, int((self._deadline - now) * 1000))
        self.timer.start(min(DELAY_MS, left_ms))

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
        self._deadline = None
        if not self.document.is_modified():
            return False
        if self._worker is not None and self._worker.is_alive():
            self._pending = True  # once this one is done
            return True
        trouble = self._hold_lock()
        if trouble:
            self._report(*trouble)
            return False
        sc, meta, generation = self.document.scenario, self.describe(), self._generation
        if scenario_numbers(sc) <= BACKGROUND_NUMBERS:
            self._on_finished(generation, *self._write(sc, meta))
            return True
        self._worker = threading.Thread(target=lambda: self._finished.emit(generation, *self._write(sc, meta)),
                                        name="autosave", daemon=True)
        self._worker.start()
        return True

    def _write(self, sc: Scenario, meta: dict) -> tuple[str, str]:
        """(any thread) The autosave file, atomically; ("", "") or what went wrong and a detail."""
        try:
            body = pack(scenario_io.to_dict(sc), sc)
        except ScenarioError as e:  # NaN typed somewhere: keep the previous autosave
            return "numbers", e.lines[0] if e.lines else ""
        doc = {"format": FORMAT, "version": VERSION, "saved_at": time.time(), **meta, "scenario": body}
        try:
            safe_write.write_atomic(self.file, json_chunks(doc), overwrite_protected=True, mode=0o600)
        except OSError as e:
            return _os_trouble(e, self.folder)
        return "", ""

    def _on_finished(self, generation: int, trouble: str, detail: str) -> None:
        self._worker = None
        if generation != self._generation:  # discarded meanwhile: what was just written goes too
            self._remove_files()
        elif trouble:
            self._report(trouble, detail)
        else:
            if self.trouble is not None:
                self.trouble = None
                self.resumed.emit()
            self.written.emit(str(self.file))
        if self._pending:
            self._pending = False
            self.write_now()

    @property
    def problem(self) -> Optional[str]:
        """Why autosave does not work now, in the current language; None while it works."""
        if self.trouble is None:
            return None
        trouble, detail = self.trouble
        return {
            "full": translate("Autosave", "the disk is full"),
            "readonly": translate("Autosave", "the folder {0} cannot be written").format(detail),
            "numbers": translate("Autosave", "the scenario holds numbers a file cannot hold ({0})").format(detail),
        }.get(trouble) or translate("Autosave", "the system refused: {0}").format(detail)

    def _report(self, trouble: str, detail: str) -> None:
        """Say (console and `failed`) why there is no autosave now."""
        print(f"attention-explorer: autosave failed: {trouble}: {detail}", flush=True)
        self.trouble = (trouble, detail)
        self.failed.emit(self.problem)

    def _hold_lock(self) -> Optional[tuple[str, str]]:
        """None once this window holds its lock, else what went wrong."""
        if self._lock_fd is not None:
            return None
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            return _os_trouble(e, self.folder)
        fd = _try_lock(_lock_path(self.file))
        if fd is None:
            return "readonly", str(self.folder)
        self._lock_fd = fd
        return None

    # ---- discarding ----------------------------------------------------------------------------
    def discard(self) -> None:
        """The changes are saved or gone: delete the autosave (and one being written)."""
        self.timer.stop()
        self._deadline = None
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


def _os_trouble(e: OSError, folder: Path) -> tuple[str, str]:
    """("full" | "readonly" | "other", detail) for what the system refused."""
    if e.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        return "full", ""
    if e.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return "readonly", str(folder)
    return "other", str(e.strerror or e)
