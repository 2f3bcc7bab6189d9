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

from attention.datamodel.problem import Phrase, Problem, count, elide, literal
from attention.datamodel.scenario import ScenarioError

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
#: memory estimate (attention.datamodel.scenario.problems) then guards the trace.
MAX_ELEMENTS = 1 << 26
SEED_MAX = (1 << 63) - 1
#: At most this many unknown fields are named per generator object.
MAX_UNKNOWN = 20


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


def check(spec: dict, path: str, max_elements: Optional[int] = None) -> tuple[list[Problem], Optional[list[int]]]:
    """All problems of `spec` and, when there are none, the shape it makes."""
    max_elements = MAX_ELEMENTS if max_elements is None else max_elements
    where = f"{path}." if path else ""
    if not isinstance(spec, dict):
        return [Problem("generator_expected", path, {"got": Phrase("got_literal", {"v": type(spec).__name__})})], None
    kind = spec.get("generate")
    if kind is None:
        return [Problem("generate_missing", f"{where}generate", {"kinds": ", ".join(KINDS)})], None
    if not isinstance(kind, str) or kind not in KINDS:
        shown = elide(repr(kind)) if isinstance(kind, str) else repr(type(kind).__name__)  # at most MAX_QUOTE
        return [Problem("generate_unknown", f"{where}generate", {"kind": shown, "kinds": ", ".join(KINDS)})], None
    allowed = COMMON + tuple(KINDS[kind])
    errs = [
        Problem("unknown_field", f"{where}{field_name(key)}", {"allowed": ", ".join(allowed)})
        for key in spec if key not in allowed
    ][:MAX_UNKNOWN]
    shape = _whole_list(spec.get("shape"), 1)
    if "shape" not in spec:
        errs.append(Problem("shape_missing", f"{where}shape"))
    elif shape is None:
        errs.append(Problem("shape_bad", f"{where}shape", {"max_dims": MAX_DIMS, "got": _repr(spec["shape"])}))
    elif kind == "identity" and len(shape) < 2:
        errs.append(Problem("identity_dims", f"{where}shape", {"got": literal(shape)}))
    repeat = None
    if "repeat" in spec and spec["repeat"] is not None:
        repeat = _whole_list(spec["repeat"], 1)
        if repeat is None:
            errs.append(Problem("repeat_bad", f"{where}repeat", {"got": _repr(spec["repeat"])}))
        elif shape is not None and len(repeat) < len(shape):
            errs.append(Problem("repeat_short", f"{where}repeat", {"n": len(shape), "got": len(repeat)}))
            repeat = None
    for key, default in KINDS[kind].items():
        errs += _param_problems(spec, key, default, where, kind)
    if kind == "normal" and _is_finite(spec.get("std")) and spec["std"] < 0:
        errs.append(Problem("std_negative", f"{where}std", {"got": _repr(spec["std"])}))
    if kind == "uniform" and _is_finite(spec.get("low", 0.0)) and _is_finite(spec.get("high", 1.0)):
        if spec.get("low", 0.0) > spec.get("high", 1.0):
            errs.append(Problem("high_low", f"{where}high", {"low": _repr(spec.get("low", 0.0)),
                                                              "high": _repr(spec.get("high", 1.0))}))
    if errs or shape is None:
        return errs, None
    out = final_shape(shape, repeat)
    for dims in (shape, out):
        n = math.prod(dims) if all(d <= max_elements for d in dims) else max_elements + 1
        if n > max_elements:
            n = math.prod(dims)
            args = {"n": count(n), "shape": literal(dims), "limit": count(max_elements)}
            if max_elements < MAX_ELEMENTS:
                return [Problem("generator_too_big_left", path, {**args, "total": count(MAX_ELEMENTS)})], None
            return [Problem("generator_too_big", path, args)], None
    return [], out


def _repr(v) -> str:
    """A value quoted as Python writes it, safe for any size (a 4,300-digit int, a 1 MB list)."""
    if isinstance(v, int) and not isinstance(v, bool) and v.bit_length() > 200:
        return count(v)
    if isinstance(v, (list, dict)):
        return literal(v)
    return elide(repr(v))


def _is_finite(v) -> bool:
    """A JSON number that float64 holds (an int with hundreds of digits does not: no OverflowError)."""
    if type(v) is float:
        return math.isfinite(v)
    if type(v) is int:
        return v.bit_length() <= 1023
    return False


def _param_problems(spec: dict, key: str, default, where: str, kind: str) -> list[Problem]:
    if key not in spec:
        return [Problem("seed_missing", f"{where}{key}", {"kind": kind})] if default is None else []
    v = spec[key]
    if key == "seed":
        if type(v) is not int or not 0 <= v <= SEED_MAX:
            return [Problem("seed_bad", f"{where}seed", {"got": _repr(v)})]
        return []
    if not _is_finite(v) or abs(v) > 1e300:
        return [Problem("param_bad", f"{where}{key}", {"got": _repr(v)})]
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
