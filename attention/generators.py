"""Seeded generator objects: a scenario matrix written as a recipe instead of inline numbers.

    {"generate": "normal", "shape": [2, 1, 20], "seed": 0, "mean": 0, "std": 1}
    {"generate": "arange", "shape": [1, 10, 4], "repeat": [2, 1, 1]}

Numbers are made in float64 on the CPU with a `torch.Generator` seeded by the spec's own seed, so
a file means the same numbers whatever dtype or device the scenario later runs in.  A spec is
checked completely (kind, fields, sizes) before anything is allocated: a shape of
[100000, 100000, 100000] is refused with one line, never a MemoryError.  Nothing in a spec is
ever executed; it is plain data read field by field.
"""
from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Optional

import numpy as np

from attention.scenario import ScenarioError

if TYPE_CHECKING:
    import torch

#: kind -> the fields it accepts besides "generate", "shape" and "repeat", with their defaults
#: (None = required).
KINDS: dict[str, dict[str, Optional[float]]] = {
    "normal": {"seed": None, "mean": 0.0, "std": 1.0},
    "uniform": {"seed": None, "low": 0.0, "high": 1.0},
    "zeros": {},
    "ones": {},
    "identity": {},
    "arange": {"start": 0.0, "step": 1.0},
}
COMMON = ("generate", "shape", "repeat")
MAX_DIMS = 8
#: At most this many numbers per file from generators (512 MiB of float64); the engine's own
#: memory estimate (attention.scenario.problems) then guards the trace.
MAX_ELEMENTS = 1 << 26
SEED_MAX = (1 << 63) - 1


def is_generator(value) -> bool:
    """A JSON object in a matrix position is a generator spec (a matrix is otherwise a list)."""
    return isinstance(value, dict)


def _is_number(v) -> bool:
    return type(v) in (int, float)


def field_name(key: str) -> str:
    """A key as shown in a message: plain names as they are, anything odd quoted and escaped."""
    if key and len(key) <= 40 and all(c.isascii() and (c.isalnum() or c in "_-") for c in key):
        return key
    shown = json.dumps(key)
    return shown if len(shown) <= 42 else shown[:39] + '..."'


def _whole_list(value, minimum: int) -> Optional[list[int]]:
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_DIMS:
        return None
    if not all(type(v) is int and v >= minimum for v in value):
        return None
    return list(value)


def final_shape(shape: list[int], repeat: Optional[list[int]]) -> list[int]:
    """torch.Tensor.repeat semantics: missing leading dims of `shape` count as 1."""
    if repeat is None:
        return list(shape)
    padded = [1] * (len(repeat) - len(shape)) + list(shape)
    return [a * b for a, b in zip(padded, repeat)]


def check(spec: dict, path: str, max_elements: Optional[int] = None) -> tuple[list[str], Optional[list[int]]]:
    """All problems of `spec` (one line each) and, when there are none, the shape it makes."""
    max_elements = MAX_ELEMENTS if max_elements is None else max_elements
    where = f"{path}." if path else ""
    if not isinstance(spec, dict):
        return [f"{path}: expected a generator object, got {type(spec).__name__}"], None
    kind = spec.get("generate")
    if kind is None:
        return [f"{where}generate: missing; a generator object needs \"generate\": one of {', '.join(KINDS)}"], None
    if not isinstance(kind, str) or kind not in KINDS:
        shown = kind if isinstance(kind, str) else type(kind).__name__
        return [f"{where}generate: unknown generator kind {shown!r}; expected one of {', '.join(KINDS)}"], None
    allowed = COMMON + tuple(KINDS[kind])
    errs = [
        f"{where}{field_name(key)}: unknown field; expected one of {', '.join(allowed)}"
        for key in spec if key not in allowed
    ]
    shape = _whole_list(spec.get("shape"), 1)
    if "shape" not in spec:
        errs.append(f"{where}shape: missing; expected a list of whole numbers >= 1, e.g. [2, 4, 8]")
    elif shape is None:
        errs.append(f"{where}shape: expected a list of 1 to {MAX_DIMS} whole numbers >= 1, e.g. [2, 4, 8], got {spec['shape']!r}")
    elif kind == "identity" and len(shape) < 2:
        errs.append(f"{where}shape: identity needs at least 2 dimensions (rows, columns), got {shape}")
    repeat = None
    if "repeat" in spec and spec["repeat"] is not None:
        repeat = _whole_list(spec["repeat"], 1)
        if repeat is None:
            errs.append(f"{where}repeat: expected a list of whole numbers >= 1 (torch.Tensor.repeat), got {spec['repeat']!r}")
        elif shape is not None and len(repeat) < len(shape):
            errs.append(f"{where}repeat: needs at least as many numbers as shape has dimensions ({len(shape)}), got {len(repeat)}")
            repeat = None
    for key, default in KINDS[kind].items():
        errs += _param_problems(spec, key, default, where, kind)
    if kind == "normal" and _is_number(spec.get("std")) and spec["std"] < 0:
        errs.append(f"{where}std: expected a number >= 0, got {spec['std']!r}")
    if kind == "uniform" and _is_number(spec.get("low", 0.0)) and _is_number(spec.get("high", 1.0)):
        if spec.get("low", 0.0) > spec.get("high", 1.0):
            errs.append(f"{where}high: expected high >= low, got low = {spec.get('low', 0.0)!r}, high = {spec.get('high', 1.0)!r}")
    if errs or shape is None:
        return errs, None
    out = final_shape(shape, repeat)
    for dims in (shape, out):
        n = math.prod(dims)
        if n > max_elements:
            left = "" if max_elements >= MAX_ELEMENTS else f" (what is left of the {MAX_ELEMENTS:,} a file's generators may make)"
            return [
                f"{path}: this generator would make {n:,} numbers (shape {dims}); at most "
                f"{max_elements:,} are allowed{left}"
            ], None
    return [], out


def _param_problems(spec: dict, key: str, default, where: str, kind: str) -> list[str]:
    if key not in spec:
        return [f"{where}{key}: missing; {kind} needs a seed (a whole number from 0 to 2^63-1)"] if default is None else []
    v = spec[key]
    if key == "seed":
        if type(v) is not int or not 0 <= v <= SEED_MAX:
            return [f"{where}seed: expected a whole number from 0 to 2^63-1, got {v!r}"]
        return []
    if not _is_number(v) or not math.isfinite(v) or abs(v) > 1e300:
        return [f"{where}{key}: expected a finite number between -1e300 and 1e300, got {v!r}"]
    return []


def generate(spec: dict, path: str = "", max_elements: Optional[int] = None) -> np.ndarray:
    """The float64 array that `spec` describes; ScenarioError (every problem) if it is invalid."""
    errs, _ = check(spec, path, max_elements)
    if errs:
        raise ScenarioError(errs)
    kind = spec["generate"]
    shape = tuple(spec["shape"])
    p = {key: spec.get(key, default) for key, default in KINDS[kind].items()}
    import torch  # here, not at the top: reading a scenario file must not wait for torch

    f64 = torch.float64
    if kind in ("normal", "uniform"):
        gen = torch.Generator(device="cpu").manual_seed(int(p["seed"]))
        if kind == "normal":
            t = torch.randn(shape, generator=gen, dtype=f64) * float(p["std"]) + float(p["mean"])
        else:
            low, high = float(p["low"]), float(p["high"])
            t = torch.rand(shape, generator=gen, dtype=f64) * (high - low) + low
    elif kind == "zeros":
        t = torch.zeros(shape, dtype=f64)
    elif kind == "ones":
        t = torch.ones(shape, dtype=f64)
    elif kind == "identity":
        t = torch.eye(shape[-2], shape[-1], dtype=f64).expand(shape).clone()  # batched eye
    else:  # arange, row-major over the shape
        t = (torch.arange(math.prod(shape), dtype=f64) * float(p["step"]) + float(p["start"])).reshape(shape)
    if spec.get("repeat") is not None:
        t = t.repeat(*spec["repeat"])
    return t.numpy().copy()


def linear_init(shape: tuple[int, ...], fan_in: int, gen: torch.Generator) -> np.ndarray:
    """nn.Linear's default weight distribution, uniform(-1/sqrt(fan_in), 1/sqrt(fan_in)), in float64."""
    if math.prod(shape) == 0 or fan_in < 1:
        return np.zeros(shape)
    import torch

    bound = 1.0 / math.sqrt(fan_in)
    return (torch.rand(shape, generator=gen, dtype=torch.float64) * (2 * bound) - bound).numpy().copy()
