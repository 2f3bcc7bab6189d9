"""save -> load gives back exactly the same scenario: every preset and generated ones."""
from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention import Additive, Projection, Scenario, problems
from attention.datamodel.scenario import same
from attention.files import scenario_io
from resources import list_presets

PRESETS = [p for p, _ in list_presets()]


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float64).view(np.int64)


@pytest.mark.parametrize("path", PRESETS, ids=lambda p: p.name)
def test_every_preset_round_trips_exactly(path, tmp_path):
    sc = scenario_io.load(path)
    text = scenario_io.dumps(sc)
    back = scenario_io.loads(text)
    assert same(sc, back)
    assert np.array_equal(_bits(sc.queries), _bits(back.queries))  # bit for bit, not just ==
    assert scenario_io.dumps(back) == text  # a saved file saves to the same text
    target = tmp_path / path.name
    scenario_io.save(sc, target)
    assert same(sc, scenario_io.load(target))
    assert json.loads(target.read_text(encoding="utf-8"))["format"] == "attention-explorer/scenario"


def test_same_notices_a_changed_number():
    """The round-trip assertions above could fail: one changed cell makes scenarios differ."""
    sc = scenario_io.load(PRESETS[0])
    q = sc.queries.copy()
    q[0, 0, 0] = np.nextafter(q[0, 0, 0], 10)
    assert not same(sc, dataclasses.replace(sc, queries=q))
    assert not same(sc, scenario_io.loads(scenario_io.dumps(dataclasses.replace(sc, queries=q))))


def test_saved_text_is_strict_json_with_inline_numbers():
    """A scenario that remembers no recipes (built in code, or its recipes dropped) is saved with
    the numbers themselves, generated additive weights included; with its recipes, the generator
    objects are written back (tests/io/test_io_recipes.py)."""
    loaded = scenario_io.load(next(p for p in PRESETS if p.name.startswith("04_")))
    sc = dataclasses.replace(loaded, recipes={})
    text = scenario_io.dumps(sc)
    doc = json.loads(text, parse_constant=lambda c: pytest.fail(f"non-standard JSON constant {c}"))
    assert "generate" not in text
    assert np.array_equal(np.array(doc["values"]), sc.values)
    assert np.array_equal(np.array(doc["additive"]["W_q"]), sc.additive.W_q)  # generated weights kept
    kept = json.loads(scenario_io.dumps(loaded), parse_constant=lambda c: pytest.fail(f"non-standard {c}"))
    assert kept["values"]["generate"] == "arange" and "W_q" not in kept["additive"]


def test_minus_infinity_fill_round_trips():
    sc = dataclasses.replace(scenario_io.load(PRESETS[0]), fill_value=-np.inf, valid_lens=np.array([0]))
    text = scenario_io.dumps(sc)
    assert '"fill_value": "-inf"' in text
    assert scenario_io.loads(text).fill_value == -np.inf


FINITE = st.floats(allow_nan=False, allow_infinity=False, width=64)


@st.composite
def scenarios(draw) -> Scenario:
    B, L, S, H = (draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 2)))
    dk, dv = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    scoring = draw(st.sampled_from(["scaled_dot", "dot", "additive", "prob_sparse"]))
    d = H * dk
    mat = lambda *shape: draw(arrays(np.float64, shape, elements=FINITE))  # noqa: E731
    projections = {}
    if draw(st.booleans()):
        projections["query"] = Projection(mat(H * dk, d), draw(st.none() | st.just(mat(H * dk))))
    if draw(st.booleans()):
        projections["out"] = Projection(mat(3, H * dv), mat(3))
    additive = None
    if scoring == "additive":
        n = draw(st.integers(1, 3))
        additive = Additive(n, mat(H, n, dk), mat(H, n, dk), mat(H, n))
    valid = None
    if scoring != "prob_sparse" and draw(st.booleans()):
        valid = np.array(draw(st.lists(st.integers(0, S), min_size=B, max_size=B)))
    causal = draw(st.booleans()) and (scoring != "prob_sparse" or L == S)
    labels = st.none() | st.lists(st.text(max_size=5), min_size=L, max_size=L).map(tuple)
    return Scenario(
        queries=mat(B, L, d), keys=mat(B, S, d), values=mat(B, S, H * dv),
        n_heads=H, d_keys=dk, d_values=dv, projections=projections, scoring=scoring,
        scale=draw(st.none() | FINITE), additive=additive, causal=causal, valid_lens=valid,
        fill_value=draw(st.just(-np.inf) | FINITE), factor=draw(st.integers(1, 6)),
        seed=draw(st.integers(0, scenario_io.INT_MAX)), mix=scoring == "prob_sparse" and draw(st.booleans()),
        dtype=draw(st.sampled_from(["float32", "float64"])),
        title={"en": draw(st.text(max_size=10)), "zh": draw(st.text(max_size=10))},
        notes={"en": draw(st.text(max_size=10)), "zh": ""},
        query_tokens=draw(labels), key_tokens=None,
    )


@pytest.mark.slow
@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_generated_scenarios_round_trip_exactly(sc):
    assume(not problems(sc))
    back = scenario_io.loads(scenario_io.dumps(sc))
    assert same(sc, back)
    for a, b in ((sc.queries, back.queries), (sc.keys, back.keys), (sc.values, back.values)):
        assert np.array_equal(_bits(a), _bits(b))  # -0.0, subnormals and 1e308 included
