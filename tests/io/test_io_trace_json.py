"""Trace -> JSON: strict JSON, non-finite numbers as strings, types kept."""
from __future__ import annotations

import json

import numpy as np
import torch

from attention import run
from attention.files import scenario_io, trace_json
from resources import list_presets

PRESETS = {p.name: p for p, _ in list_presets()}


def test_to_nested_keeps_types_and_names_non_finite_numbers():
    assert trace_json.to_nested(torch.tensor([[True, False]])) == [[True, False]]
    ints = trace_json.to_nested(torch.tensor([3, 4]))
    assert ints == [3, 4] and all(type(i) is int for i in ints)
    x = trace_json.to_nested(torch.tensor([[1.5, float("nan")], [float("inf"), -float("inf")]], dtype=torch.float32))
    assert x == [[1.5, "NaN"], ["Infinity", "-Infinity"]] and type(x[0][0]) is float
    assert trace_json.to_nested(np.float64(2.0)) == 2.0


def test_prob_sparse_trace_is_strict_json_with_nan_strings():
    sc = scenario_io.load(PRESETS["07_informer_probsparse.json"])
    trace = run(sc)
    text = trace_json.dumps(trace, sc)
    doc = json.loads(text, parse_constant=lambda c: (_ for _ in ()).throw(AssertionError(c)))
    scores = next(s for s in doc["steps"] if s["id"] == "scores")
    flat = np.array(scores["data"], dtype=object).ravel()
    nan_cells = sum(1 for v in flat if v == "NaN")
    expected_nan = int(np.isnan(trace.array("scores")).sum())
    assert nan_cells == expected_nan > 0
    assert doc["scenario"]["n_top"] == trace.options["n_top"]
    selected = next(s for s in doc["steps"] if s["id"] == "extra.selected")
    assert {type(v) for v in np.array(selected["data"]).ravel().tolist()} == {bool}


def test_every_step_and_parameter_is_exported_with_its_shape():
    sc = scenario_io.load(PRESETS["01_tsl_toy.json"])
    trace = run(sc)
    doc = trace_json.trace_to_dict(trace, sc)
    assert [s["id"] for s in doc["steps"]] == list(trace.ids)
    for s, step in zip(doc["steps"], trace.steps):
        assert s["shape"] == list(step.shape) and s["dims"] == list(step.dims)
        assert np.array(s["data"]).shape == step.shape
        assert s["title"] == step.title and s["formula"] == step.formula
    assert set(doc["parameters"]) == set(trace.parameters)
    assert doc["parameters"]["projection.query.weight"] == np.eye(4).tolist()
    assert doc["scenario"]["title"] == sc.title
    minus_inf = trace_json.trace_to_dict(run(scenario_io.loads(scenario_io.dumps(sc).replace("-1000000.0", '"-inf"'))))
    assert minus_inf["scenario"]["fill_value"] == "-Infinity"
