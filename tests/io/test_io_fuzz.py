"""Fuzzing the loader (issue 13, "Keep it that way"): random mutations of every preset at every
field path, and byte-level mutations of the files.  Whatever comes in, the outcome is one of two:
a clean refusal (ScenarioError, every problem naming a field, rendered in both languages, short
lines) within a second and in bounded memory, or a scenario that runs (or that the engine itself
refuses cleanly, e.g. a float32 overflow under a --dtype override).  Nothing else.

The default run is small (the edit loop); `pytest -m slow` runs the long variant."""
from __future__ import annotations

import json
import time
import tracemalloc
from pathlib import Path

import pytest
import torch  # noqa: F401  (imported once up front: a load's time never includes torch's first import)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import attention
import resources
from attention import ScenarioError
from attention.compute.check import estimate_trace_bytes
from attention.datamodel.problem import MAX_LINES
from attention.files import scenario_io

PRESETS = [p for p, _ in resources.list_presets()]
DOCS = {p.name: json.loads(p.read_text(encoding="utf-8")) for p in PRESETS}
#: Run the engine on what loads only when its trace is small (a mutation can make a legal but
#: large scenario; loading it is what is under test here).
RUN_BYTES = 64 << 20
SECONDS = 1.0
PEAK_MB = 200


def _paths(node, prefix=()) -> list[tuple]:
    """Every field path of a document: object keys, and the first, a middle and the last item of lists."""
    out = [prefix] if prefix else []
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, prefix + (k,))
    elif isinstance(node, list) and node:
        for i in sorted({0, len(node) // 2, len(node) - 1}):
            out += _paths(node[i], prefix + (i,))
    return out


PATHS = [(name, path) for name, doc in DOCS.items() for path in _paths(doc)]

hostile_values = st.one_of(
    st.none(), st.booleans(),
    st.integers(-3, 10), st.sampled_from([2**31 - 1, 2**31, 2**53 + 1, 2**63, -(2**63), 10**400, -(10**400), 10**4299]),
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([1e308, -1e308, 5e-324, 1e39, -0.0]),
    st.text(max_size=8), st.sampled_from(["-inf", "inf", "NaN", "\ud800", "x" * 10_000, "additive", "float32"]),
    st.lists(st.integers(-2, 5), max_size=4), st.just([[]]), st.just([[[1]]]), st.just({}),
    st.fixed_dictionaries({"generate": st.sampled_from(["normal", "ones", "identity", "arange", "zeros", "x"]),
                           "shape": st.lists(st.integers(-1, 6), min_size=0, max_size=4)},
                          optional={"seed": st.integers(-1, 3), "repeat": st.lists(st.integers(0, 3), max_size=4)}),
)


def _set(doc, path, value, mode: str):
    node = doc
    for k in path[:-1]:
        node = node[k]
    last = path[-1]
    if mode == "delete":
        del node[last]
    elif mode == "unknown" and isinstance(node, dict):
        node[f"{last}_extra"] = value
    else:
        node[last] = value


def _outcome(load) -> str:
    """'refused' or 'ran' (or 'loaded' for a scenario too big to run here); fails otherwise."""
    tracemalloc.start()
    start = time.perf_counter()
    try:
        try:
            sc = load()
        except ScenarioError as e:
            err = e
            sc = None
        elapsed = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert elapsed < SECONDS, elapsed
    assert peak < PEAK_MB * 2**20, peak / 2**20
    if sc is None:
        assert err.problems and all(p.path for p in err.problems), err.problems
        assert len(err.lines) <= MAX_LINES and all(len(line) < 600 for line in err.lines)
        assert all(p.text("zh") for p in err.problems)
        return "refused"
    need = estimate_trace_bytes(sc.batch, sc.L, sc.S, sc.n_heads, sc.dk, sc.dv, sc.d_model, sc.keys.shape[2],
                                sc.values.shape[2], sc.d_out, sc.additive.hidden if sc.additive else 0)
    if need > RUN_BYTES:
        return "loaded"
    try:
        trace = attention.run(sc)
    except ScenarioError as e:  # e.g. CUDA asked for where there is none
        assert e.problems and all(p.path for p in e.problems)
        return "refused"
    assert all(w.path for w in trace.warnings)
    json.dumps(scenario_io.to_dict(sc))  # whatever loads can be saved
    return "ran"


def _field_case(data) -> None:
    name, path = data.draw(st.sampled_from(PATHS))
    doc = json.loads(json.dumps(DOCS[name]))
    mode = data.draw(st.sampled_from(["set", "set", "set", "delete", "unknown"]))
    value = data.draw(hostile_values)
    _set(doc, path, value, mode)
    text = json.dumps(doc, allow_nan=True)
    _outcome(lambda: scenario_io.loads(text))


def _byte_case(data) -> None:
    name = data.draw(st.sampled_from(sorted(DOCS)))
    raw = bytearray((Path(resources.list_presets()[0][0]).parent / name).read_bytes())
    for _ in range(data.draw(st.integers(1, 8))):
        kind = data.draw(st.sampled_from(["flip", "insert", "delete", "truncate", "digits"]))
        at = data.draw(st.integers(0, max(len(raw) - 1, 0)))
        if kind == "flip" and raw:
            raw[at] = data.draw(st.integers(0, 255))
        elif kind == "insert":
            raw[at:at] = data.draw(st.binary(min_size=1, max_size=8))
        elif kind == "delete":
            del raw[at:at + data.draw(st.integers(1, 16))]
        elif kind == "truncate":
            del raw[at:]
        else:
            raw[at:at] = b"9" * data.draw(st.sampled_from([20, 400, 4301]))
    _outcome(lambda: scenario_io.loads(bytes(raw)))


QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large]
FAST = settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=QUIET)
LONG = settings(max_examples=1500, deadline=None, suppress_health_check=QUIET)


def test_every_preset_path_is_covered():
    assert {name for name, _ in PATHS} == set(DOCS) and len(PATHS) > 100


@FAST
@given(st.data())
def test_field_mutations_are_refused_cleanly_or_run(data):
    _field_case(data)


@FAST
@given(st.data())
def test_byte_mutations_are_refused_cleanly_or_run(data):
    _byte_case(data)


@pytest.mark.slow
@LONG
@given(st.data())
def test_field_mutations_long(data):
    _field_case(data)


@pytest.mark.slow
@LONG
@given(st.data())
def test_byte_mutations_long(data):
    _byte_case(data)
