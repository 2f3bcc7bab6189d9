"""Scenario format 2: key/value heads and the composed scenario's parts in files.

A part is written {"kind": name, field: value, ...} and read back through the kind's own field
records (a test-only position kind here, so the check does not depend on which kinds exist);
every version-1 file still loads unchanged and a scenario without anything new is still
written as version 1."""
from __future__ import annotations

import json

import numpy as np
import pytest

from attention import Scenario
from attention.datamodel.fields import Field
from attention.datamodel.parts import Part
from attention.datamodel.scenario import ScenarioError, same
from attention.files import scenario_io
from attention.registry import kinds
from resources import list_presets


class _Kind:
    name = "test_io_kind"
    fields = (Field("positions.shift", "float", "field.mask.causal", "field.mask.causal.help", default=0.0,
                    minimum=-10, maximum=10, group="positions"),
              Field("positions.table", "matrix", "field.mask.causal", "field.mask.causal.help", nullable=True,
                    group="positions"))

    def records(self):
        return ()


@pytest.fixture
def registered(monkeypatch):
    monkeypatch.setitem(kinds.POSITIONS, _Kind.name, _Kind())


def _scenario(**more) -> Scenario:
    rng = np.random.default_rng(7)
    return Scenario(rng.normal(size=(1, 3, 4)), rng.normal(size=(1, 5, 2)), rng.normal(size=(1, 5, 2)), n_heads=2,
                    n_kv_heads=1, **more)


def test_parts_and_kv_heads_round_trip(registered):
    table = np.array([[1.0, 2.5], [-3.0, 0.125]])
    sc = _scenario(positions=(Part(_Kind.name, {"shift": 1.5, "table": table}),))
    doc = json.loads(scenario_io.dumps(sc))
    assert doc["version"] == 2 and doc["n_kv_heads"] == 1
    assert doc["positions"] == [{"kind": _Kind.name, "shift": 1.5, "table": [[1.0, 2.5], [-3.0, 0.125]]}]
    back = scenario_io.loads(json.dumps(doc))
    assert back.n_kv_heads == 1
    (part,) = back.positions
    assert part.kind == _Kind.name and part.values["shift"] == 1.5
    np.testing.assert_array_equal(part.values["table"], table)
    assert scenario_io.dumps(back) == scenario_io.dumps(sc)


def test_a_whole_number_given_for_a_float_field_reads_as_a_float(registered):
    doc = json.loads(scenario_io.dumps(_scenario(positions=(Part(_Kind.name, {"shift": 1.5}),))))
    doc["positions"][0]["shift"] = 2
    (part,) = scenario_io.loads(json.dumps(doc)).positions
    assert part.values["shift"] == 2.0 and isinstance(part.values["shift"], float)


@pytest.mark.parametrize("value, path, words", [
    (5, "positions", "list of parts"),
    ([3], "positions[0]", "expected an object"),
    ([{"shift": 1.0}], "positions[0].kind", "expected one of"),
    ([{"kind": "nope"}], "positions[0]", "nope"),
    ([{"kind": _Kind.name, "shift": 11.0}], "positions[0].shift", "11"),
    ([{"kind": _Kind.name, "shft": 1.0}], "positions[0].shft", "unknown field"),
    ([{"kind": _Kind.name, "table": "x"}], "positions[0].table", "x"),
])
def test_bad_parts_are_named_by_their_path_in_the_file(registered, value, path, words):
    doc = json.loads(scenario_io.dumps(_scenario()))
    doc["version"], doc["positions"] = 2, value
    with pytest.raises(ScenarioError) as e:
        scenario_io.loads(json.dumps(doc))
    assert any(p.path == path for p in e.value.problems), [p.path for p in e.value.problems]
    line = next(x for x in e.value.lines if x.startswith(path))
    assert words in line


def test_nothing_new_is_still_written_as_version_1():
    rng = np.random.default_rng(1)
    sc = Scenario(rng.normal(size=(1, 2, 4)), rng.normal(size=(1, 3, 4)), rng.normal(size=(1, 3, 4)), n_heads=2)
    doc = json.loads(scenario_io.dumps(sc))
    assert doc["version"] == 1
    assert not {"n_kv_heads", "positions", "modifiers", "masks"} & set(doc)


@pytest.mark.parametrize("path", [p for p, _ in list_presets()], ids=lambda p: p.name)
def test_every_version_1_preset_loads_unchanged(path):
    text = path.read_text(encoding="utf-8")
    doc = json.loads(text)
    if doc["version"] != 1:
        pytest.skip("a version-2 preset")
    sc = scenario_io.loads(text)
    assert same(scenario_io.loads(scenario_io.dumps(sc)), sc)
    assert json.loads(scenario_io.dumps(sc))["version"] == 1
