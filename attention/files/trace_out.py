"""What `main.py trace` writes, and how big it would be before writing it.

The engine's own size check (attention.datamodel.scenario.problems) bounds the trace in memory, not its
JSON text: each number becomes about twenty characters, and building the text takes several
times that again in Python objects (a 355-byte scenario whose trace fits in 4 GiB reached 15 GB
while its JSON was being built).  So the CLI counts the numbers it would write, estimates the
text from a sample of them, and refuses above a limit, pointing at the compact form (`.npz`:
eight bytes a number, written straight from the arrays) and at `--steps`.
"""
from __future__ import annotations

import json
import re
from typing import BinaryIO, Iterable, Optional, Sequence

import numpy as np

from attention.compute.trace import Trace
from attention.datamodel.scenario import Scenario

#: JSON text above this many bytes needs --max-json (or --out FILE.npz / --steps).
DEFAULT_MAX_JSON = 256 * 2**20
#: The largest --max-json (1 PiB): beyond any text a machine builds; 0 still means "no limit".
MAX_JSON = 2**50
#: --indent: 0 (newlines only) to this many spaces.  Each number then sits on a line of its own after
#: depth x indent spaces, so the text grows with it (counted in the estimate below).
MAX_INDENT = 16
#: Building the text takes about this many times its length in Python objects (the nested lists of
#: floats, then the string): the memory a text of N bytes needs is about BUILD_FACTOR * N.
BUILD_FACTOR = 4
SAMPLE = 4096  # numbers per tensor sampled to estimate the characters a number takes
_UNITS = {"": 1, "b": 1, "k": 2**10, "kb": 2**10, "kib": 2**10, "m": 2**20, "mb": 2**20, "mib": 2**20,
          "g": 2**30, "gb": 2**30, "gib": 2**30, "t": 2**40, "tb": 2**40, "tib": 2**40}


def parse_size(text: str) -> Optional[int]:
    """'500MB' -> 524288000, '2g' -> 2147483648, '0' -> 0 (no limit); None when not a size.  Exact
    for any length of digits (a 400-digit size is a size, refused by its bound, not an OverflowError)."""
    from decimal import Decimal

    m = re.fullmatch(r"\s*(\d{1,1000}(?:\.\d{1,1000})?)\s*([a-zA-Z]*)\s*", text)
    if not m or m.group(2).lower() not in _UNITS:
        return None
    return int(Decimal(m.group(1)) * _UNITS[m.group(2).lower()])


def human(n: float) -> str:
    """1536 -> '1.5 KiB', 15e9 -> '14.0 GiB'."""
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{int(n)} bytes" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError  # pragma: no cover


def _arrays(trace: Trace, steps: Optional[Sequence[str]]) -> Iterable[np.ndarray]:
    for s in trace.steps:
        if steps is None or s.id in steps:
            yield s.numpy()
    for t in trace.parameters.values():
        yield t.detach().cpu().numpy() if hasattr(t, "detach") else np.asarray(t)


def count_numbers(trace: Trace, steps: Optional[Sequence[str]] = None) -> int:
    """How many numbers the output holds (the chosen steps and every parameter)."""
    return sum(int(a.size) for a in _arrays(trace, steps))


def estimate_json_bytes(trace: Trace, steps: Optional[Sequence[str]] = None, indent: Optional[int] = None) -> int:
    """About how long the JSON text would be: each tensor's numbers times the characters its
    sampled numbers take (with separators), plus the steps' titles and formulas in both languages as JSON
    writes them (a Chinese character takes six) and a couple of KiB of options; with `indent`, each
    number's own line too (a newline and its depth's indentation: `_line_chars`)."""
    total = 2048 + len(json.dumps([[trace[s].title, trace[s].formula] for s in trace.ids]))
    for a in _arrays(trace, steps):
        if a.size == 0:
            continue
        flat = a.reshape(-1)
        idx = np.linspace(0, flat.size - 1, min(flat.size, SAMPLE)).astype(np.int64)
        sample = flat[idx]
        if sample.dtype.kind == "f":
            sample = np.where(np.isfinite(sample), sample, 0.0)
        text = json.dumps(sample.tolist())
        total += int(len(text) / len(sample) * flat.size) + 4 * a.ndim * max(1, flat.size // max(a.shape[-1], 1))
        total += _line_chars(indent, a.ndim) * flat.size
    return total


def _line_chars(indent: Optional[int], ndim: int) -> int:
    """What --indent adds to each number: a newline and the indentation of its depth (the trace
    object, its "steps" list, the step object, then one level per dimension)."""
    return 0 if indent is None else 1 + indent * (3 + ndim)


#: Characters a float takes at the least in the JSON text, with its separator: "0.0, ".
MIN_CHARS = 5


def least_chars(indent: Optional[int] = None) -> int:
    """Characters a number takes at the least, with --indent's newline and indentation (a 1-D tensor's)."""
    return MIN_CHARS + _line_chars(indent, 1)


def least_numbers(sc: Scenario, steps: Optional[Sequence[str]] = None) -> int:
    """A lower bound on the numbers `trace` writes, from the scenario's shapes alone, so that a
    trace far too big for JSON is refused before it is computed (one took 13-17 s and 4-5 GB to
    be refused afterwards): the inputs (always written, as parameters) and the attention weights
    (B, H, L, S), which every scoring has, when they are asked for."""
    n = int(sc.queries.size) + int(sc.keys.size) + int(sc.values.size)
    if steps is None or "attention_weights" in steps:
        n += sc.batch * sc.n_heads * sc.L * sc.S
    return n


def unknown_steps(trace: Trace, steps: Sequence[str]) -> list[str]:
    return [s for s in steps if s not in trace]


def write_npz(trace: Trace, scenario: Optional[Scenario], f: BinaryIO,
              steps: Optional[Sequence[str]] = None) -> None:
    """The trace as one .npz (numpy's zip of .npy arrays, no pickles): `meta` holds the JSON of
    everything but the numbers (format, options, the steps' ids, dims, shapes, titles and
    formulas, the parameters' names, warnings); `step/<id>` and `parameter/<name>` hold the
    arrays, in the run's dtype."""
    from attention.files.trace_json import FORMAT, VERSION, scenario_info

    chosen = [s for s in trace.steps if steps is None or s.id in steps]
    meta = {
        "format": FORMAT, "version": VERSION, "encoding": "npz",
        "scenario": scenario_info(trace, scenario),
        "parameters": list(trace.parameters),
        "steps": [{"id": s.id, "dims": list(s.dims), "shape": list(s.shape), "title": s.title, "formula": s.formula}
                  for s in chosen],
        "warnings": list(trace.warnings),
    }
    arrays = {"meta": np.array(json.dumps(meta, ensure_ascii=False, allow_nan=False))}
    for s in chosen:
        arrays[f"step/{s.id}"] = s.numpy()
    for name, t in trace.parameters.items():
        arrays[f"parameter/{name}"] = t.detach().cpu().numpy() if hasattr(t, "detach") else np.asarray(t)
    np.savez(f, **arrays)
