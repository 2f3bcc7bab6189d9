"""How the engine reads a scenario's arrays: a copy the trace owns, or a view of a read-only array."""
from __future__ import annotations

import dataclasses

import numpy as np
import torch
from engine_helpers import scenario

from attention import Projection, ScenarioError, run


def _frozen(a: np.ndarray) -> np.ndarray:
    a = a.copy()
    a.setflags(write=False)
    return a


def _with_frozen_weights(sc):
    return dataclasses.replace(sc, projections={n: Projection(_frozen(p.weight), _frozen(p.bias))
                                                for n, p in sc.projections.items()})


def test_read_only_weights_give_the_same_trace_and_are_viewed():
    sc = scenario(np.random.default_rng(0), 2, 4, 5, 8, 2, causal=True)
    frozen = _with_frozen_weights(sc)
    a, b = run(sc), run(frozen)
    for sa, sb in zip(a.steps, b.steps):
        assert sa.id == sb.id and torch.equal(sa.tensor, sb.tensor), sa.id
    w = frozen.projections["query"].weight
    assert b.parameters["projection.query.weight"].data_ptr() == w.ctypes.data  # no copy
    assert a.parameters["projection.query.weight"].data_ptr() != sc.projections["query"].weight.ctypes.data


def test_writeable_arrays_are_copied_so_later_edits_leave_the_trace():
    sc = scenario(np.random.default_rng(1), 1, 3, 3, 4, 2)
    base = sc.projections["key"].weight
    view = base.view()
    view.setflags(write=False)  # read-only, but its base can still be written
    sc = dataclasses.replace(sc, projections={**sc.projections, "key": Projection(view, None)})
    tr = run(sc)
    before = tr["projection.key"].tensor.clone()
    base[:] = 0.0
    assert torch.equal(tr["projection.key"].tensor, before)
    assert tr.parameters["projection.key.weight"].abs().sum() > 0


def test_a_float32_run_of_read_only_float64_weights_converts():
    sc = _with_frozen_weights(scenario(np.random.default_rng(2), 1, 3, 3, 4, 2))
    tr = run(sc, dtype="float32")
    assert tr.parameters["projection.out.weight"].dtype == torch.float32


def test_nan_in_a_read_only_weight_is_refused():
    sc = scenario(np.random.default_rng(3), 1, 3, 3, 4, 2)
    w = sc.projections["value"].weight.copy()
    w[1, 2] = np.nan
    w.setflags(write=False)
    sc = dataclasses.replace(sc, projections={**sc.projections, "value": Projection(w, None)})
    try:
        run(sc)
    except ScenarioError as err:
        assert "projections.value.weight" in err.lines[0]
    else:
        raise AssertionError("a NaN weight ran")


def test_a_read_only_weight_found_finite_in_float64_is_still_checked_in_float32():
    sc = scenario(np.random.default_rng(4), 1, 3, 3, 4, 2, projected=False)
    q = sc.queries.copy()
    q[0, 1, 2] = 1e39  # finite in float64, infinity in float32
    q.setflags(write=False)
    sc = dataclasses.replace(sc, queries=q, scoring="dot")
    run(sc, dtype="float64")
    run(sc, dtype="float64")  # the verdict remembered for float64 ...
    try:
        run(sc, dtype="float32")  # ... is not float32's
    except ScenarioError as err:
        assert err.lines[0].startswith("queries:") and "float32" in err.lines[0]
    else:
        raise AssertionError("1e39 ran in float32")


def test_a_remembered_read_only_weight_does_not_hide_a_nan_elsewhere():
    sc = _with_frozen_weights(scenario(np.random.default_rng(5), 1, 3, 3, 4, 2))
    run(sc)
    keys = sc.keys.copy()
    keys[0, 2, 1] = np.inf
    try:
        run(dataclasses.replace(sc, keys=keys))
    except ScenarioError as err:
        assert err.lines[0].startswith("keys")
    else:
        raise AssertionError("an infinite key ran")
