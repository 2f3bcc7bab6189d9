"""A finished trace on disk, so the window can draw the engine's numbers before torch loads.

Importing torch takes seconds; the window's first scenario is usually the one it showed last
time.  After the engine has computed that scenario, its step arrays are stored here (numpy
only, no pickle); at the next launch, `load` gives them back as a Trace whose steps hold numpy
arrays, if the scenario (every field) and the engine are the same.  The fresh trace computed
once torch is in replaces it on screen (with identical numbers nothing is redrawn), and a kept
trace whose numbers turn out to differ is written anew (app.startup.application).

"The same engine" is judged by what the engine computes, not by its source (a comment or a
refactor keeps every kept trace valid): `engine_fingerprint` is the digest of the canary, the
first preset's trace shipped beside this module (`canary_path()`: package data of the engine, so
that nothing here reads resources/), which also lets the very first launch on a machine draw at
once.  tests/io/test_trace_cache.py fails when the engine's numbers for that preset change and the
canary was not rebuilt (`python -m attention.files.trace_cache resources/scenarios/01_tsl_toy.json`);
rebuilding it changes the fingerprint, so every trace kept by an older engine is then ignored.
The canary itself is keyed on its scenario only.
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

from attention.compute.trace import Step, Trace
from attention.datamodel.problem import Problem, as_problems
from attention.datamodel.scenario import Scenario
from attention.registry import kinds

VERSION = 2
MAX_BYTES = 32 << 20  # bigger traces are not worth a disk round trip at start-up
CANARY = "canary"  # the engine tag of the shipped trace (keyed on its scenario alone)


def canary_path() -> Path:
    """The canary: the first preset's trace as the engine computed it (drawn at the very first
    launch before torch has loaded; its digest keys every kept trace)."""
    return Path(__file__).with_name("startup-trace.npz")


def engine_fingerprint() -> str:
    """What the engine computes, as one hash: the digest of the shipped canary's arrays (see the
    module docstring); "no canary" when it is missing or unreadable."""
    h = hashlib.sha256()
    try:
        with np.load(canary_path(), allow_pickle=False) as data:
            for name in sorted(data.files):
                _digest(data[name], h)
    except (OSError, ValueError):
        return "no canary"
    return h.hexdigest()


def key_for(sc: Scenario, engine: str) -> str:
    """Hash of every field of `sc` (arrays by dtype, shape and raw bytes: no JSON of big matrices
    on the start-up path) and of the engine tag."""
    h = hashlib.sha256(f"{VERSION} {engine}".encode())
    _digest(sc, h)
    return h.hexdigest()


def _digest(value, h) -> None:
    if isinstance(value, np.ndarray):
        h.update(f"array {value.dtype} {value.shape}".encode())
        h.update(np.ascontiguousarray(value).tobytes())
    elif dataclasses.is_dataclass(value):
        h.update(type(value).__name__.encode())
        for f in dataclasses.fields(value):
            if not f.compare:  # how the numbers were written in a file (Scenario.recipes), not what they are
                continue
            v = getattr(value, f.name)
            if v is None or isinstance(v, tuple) and not v or f.name == "weights_note" and not any(v.values()):
                # an option left unset (None, no parts, no weights note) is not hashed, so a new option keeps every
                # kept trace's key; the name goes with each value hashed, so no two scenarios collide
                continue
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


def save(trace: Trace, sc: Scenario, path: Path, engine: Optional[str] = None) -> bool:
    """Store `trace` (computed from `sc`) at `path`, atomically; False when it is too big.
    `engine`: the engine tag of the key (default: this engine's fingerprint)."""
    arrays = {f"s{i}": step.numpy() for i, step in enumerate(trace.steps)}
    if sum(a.nbytes for a in arrays.values()) > MAX_BYTES:
        return False
    meta = {
        "version": VERSION, "key": key_for(sc, engine if engine is not None else engine_fingerprint()),
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


def _formula_rules(options: dict) -> tuple[str, ...]:
    """The trace's mask rules that write the mask's formula their own way (as the engine names them)."""
    return tuple(r.name for r in kinds.MASK_RULES.values()
                 if getattr(r, "formulas", None) and r.applies_to(options))


def load(sc: Scenario, path: Path, engine: Optional[str] = None) -> Optional[Trace]:
    """The trace stored for exactly `sc` and this engine (or the tag `engine`), or None (missing,
    stale or unreadable)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            tag = engine if engine is not None else engine_fingerprint()
            if meta.get("version") != VERSION or meta.get("key") != key_for(sc, tag):
                return None
            scoring = meta["options"].get("scoring")
            mods = tuple(p.get("kind") for p in meta["options"].get("modifiers", ())) + _formula_rules(meta["options"])
            steps = tuple(Step(sid, data[f"s{i}"], tuple(dims), scoring, mods)
                          for i, (sid, dims) in enumerate(meta["steps"]))
    except (OSError, ValueError, KeyError, TypeError, json.JSONDecodeError):
        return None
    return Trace(steps, meta["options"], {}, tuple(Problem.from_json(w) for w in meta["warnings"]))


def load_canary(sc: Scenario) -> Optional[Trace]:
    """The shipped first preset's trace when `sc` is exactly that preset, else None."""
    return load(sc, canary_path(), engine=CANARY)


def same_numbers(a: Trace, b: Trace) -> bool:
    """Whether two traces hold the same steps with the same numbers (NaN equal to NaN)."""
    if a.ids != b.ids:
        return False
    for sid in a.ids:
        x, y = a.array(sid), b.array(sid)
        if x.dtype != y.dtype or x.shape != y.shape:
            return False
        if not np.array_equal(x, y, equal_nan=x.dtype.kind in "fc"):
            return False
    return True


def ship(preset: Path, path: Optional[Path] = None) -> Path:
    """Rebuild the canary from the first preset's file `preset` (the very first launch draws its
    trace; its digest is `engine_fingerprint`)."""
    from attention.compute import engine
    from attention.files import scenario_io

    sc = scenario_io.load(preset)
    path = path or canary_path()
    save(engine.run(sc), sc, path, engine=CANARY)
    path.chmod(0o644)  # a file of the repository, not a private cache
    return path


if __name__ == "__main__":  # python -m attention.files.trace_cache resources/scenarios/01_tsl_toy.json
    import sys

    print(f"wrote {ship(Path(sys.argv[1]))}")
