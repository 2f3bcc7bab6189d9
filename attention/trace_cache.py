"""A finished trace on disk, so the window can draw the engine's numbers before torch loads.

Importing torch takes two seconds or more; the window's first scenario is usually the one it
showed last time.  After the engine has computed that scenario, its step arrays are stored
here (numpy only, no pickle); at the next launch, `load` gives them back as a Trace whose
steps hold numpy arrays, if and only if both the scenario and the engine's source are exactly
the same (the key hashes every field of the scenario and the source of the modules that
compute: `ENGINE_MODULES`).  The fresh trace computed once torch is in replaces it; with
identical numbers nothing is redrawn.

The first preset's trace also ships in resources/ (`resources.startup_trace_path()`), so even
the very first launch on a machine draws at once; `python -m attention.trace_cache` rebuilds it
and tests/io/test_trace_cache.py fails while it is stale.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Optional

import numpy as np

from attention.problem import Problem, as_problems
from attention.scenario import Scenario
from attention.trace import Step, Trace

VERSION = 1
MAX_BYTES = 32 << 20  # bigger traces are not worth a disk round trip at start-up


#: The modules whose code decides a trace's numbers: engine.py and everything of attention/ it
#: imports (tests/io/test_trace_cache.py checks this list against engine.py's real imports).
#: Only these are hashed, so work on the CLI or the explanations keeps kept traces valid.
ENGINE_MODULES = (
    "engine.py", "masks.py", "numbers.py", "prob_sparse.py", "problem.py", "scenario.py", "step_registry.py",
    "steps.py", "trace.py",
)


def engine_fingerprint() -> str:
    """Hash of the engine's source: a cached trace is only valid for the code that made it."""
    h = hashlib.sha256()
    for name in ENGINE_MODULES:
        h.update(name.encode())
        h.update((Path(__file__).parent / name).read_bytes())
    return h.hexdigest()


def key_for(sc: Scenario) -> str:
    """Hash of every field of `sc` (arrays by dtype, shape and raw bytes: no JSON of big matrices
    on the start-up path) and of the engine's source."""
    h = hashlib.sha256(engine_fingerprint().encode())
    _digest(sc, h)
    return h.hexdigest()


def _digest(value, h) -> None:
    if isinstance(value, np.ndarray):
        h.update(f"array {value.dtype} {value.shape}".encode())
        h.update(np.ascontiguousarray(value).tobytes())
    elif dataclasses.is_dataclass(value):
        h.update(type(value).__name__.encode())
        for f in dataclasses.fields(value):
            h.update(f.name.encode())
            _digest(getattr(value, f.name), h)
    elif isinstance(value, dict):
        for k in sorted(value):
            h.update(repr(k).encode())
            _digest(value[k], h)
    elif isinstance(value, (list, tuple)):
        h.update(f"seq {len(value)}".encode())
        for item in value:
            _digest(item, h)
    else:
        h.update(repr(value).encode())


def save(trace: Trace, sc: Scenario, path: Path) -> bool:
    """Store `trace` (computed from `sc`) at `path`, atomically; False when it is too big."""
    arrays = {f"s{i}": step.numpy() for i, step in enumerate(trace.steps)}
    if sum(a.nbytes for a in arrays.values()) > MAX_BYTES:
        return False
    meta = {
        "version": VERSION, "key": key_for(sc),
        "steps": [[step.id, list(step.dims)] for step in trace.steps],
        "options": trace.options, "warnings": [Problem.to_json(w) for w in as_problems(trace.warnings)],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".trace-", suffix=".npz", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, meta=np.array(json.dumps(meta)), **arrays)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return True


def load(sc: Scenario, path: Path) -> Optional[Trace]:
    """The trace stored for exactly `sc` and this engine, or None (missing, stale or unreadable)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            if meta.get("version") != VERSION or meta.get("key") != key_for(sc):
                return None
            scoring = meta["options"].get("scoring")
            steps = tuple(Step(sid, data[f"s{i}"], tuple(dims), scoring) for i, (sid, dims) in enumerate(meta["steps"]))
    except (OSError, ValueError, KeyError, TypeError, json.JSONDecodeError):
        return None
    return Trace(steps, meta["options"], {}, tuple(Problem.from_json(w) for w in meta["warnings"]))


def ship(path: Optional[Path] = None) -> Path:
    """Rebuild the first preset's trace kept in resources/ (the very first launch draws it)."""
    import resources
    from attention import engine, scenario_io

    sc = scenario_io.load(resources.list_presets()[0][0])
    path = path or resources.startup_trace_path()
    save(engine.run(sc), sc, path)
    path.chmod(0o644)  # a file of the repository, not a private cache
    return path


if __name__ == "__main__":
    print(f"wrote {ship()}")
