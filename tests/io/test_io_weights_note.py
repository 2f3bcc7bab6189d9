"""Scenario.weights_note in a scenario file: written only when set (then version 2), read back as it was, checked
like the other texts; a preset without it stays a version-1 file without the key."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from attention.datamodel.scenario import ScenarioError
from attention.files import scenario_io

PRESETS = Path(__file__).parents[2] / "resources" / "scenarios"


def test_weights_note_round_trip_and_version():
    sc = scenario_io.load(next(PRESETS.glob("01_*.json")))
    plain = json.loads(scenario_io.dumps(sc))
    assert "weights_note" not in plain and sc.weights_note == {"en": "", "zh": ""}
    noted = dataclasses.replace(sc, weights_note={"en": "dequantized 4-bit (Q4_1)", "zh": "4 位反量化（Q4_1）"})
    doc = json.loads(scenario_io.dumps(noted))
    assert doc["weights_note"] == {"en": "dequantized 4-bit (Q4_1)", "zh": "4 位反量化（Q4_1）"}
    assert doc["version"] == 2 and list(doc)[:5] == ["format", "version", "title", "notes", "weights_note"]
    assert scenario_io.loads(json.dumps(doc)).weights_note == noted.weights_note


def test_a_bad_weights_note_names_its_field():
    doc = json.loads(scenario_io.dumps(scenario_io.load(next(PRESETS.glob("01_*.json")))))
    doc["version"], doc["weights_note"] = 2, {"en": 4}
    with pytest.raises(ScenarioError) as e:
        scenario_io.loads(json.dumps(doc))
    assert any("weights_note.en" in line for line in e.value.lines)


def test_the_exported_script_says_where_the_weights_came_from():
    from attention.datamodel.scenario import Projection
    from attention.teaching.script_export import python_script

    sc = scenario_io.load(next(PRESETS.glob("06_*.json")))
    eye = Projection(np.eye(sc.d_model), None)
    sc = dataclasses.replace(sc, projections={"query": eye, "key": eye})
    assert "dequantized" not in python_script(sc)
    noted = python_script(dataclasses.replace(sc, weights_note={"en": "dequantized 4-bit (Q4_1)", "zh": "x"}))
    lines = [line for line in noted.splitlines() if "# query projection weight" in line
             or "# key projection weight" in line]
    assert len(lines) == 2 and all(line.endswith("; dequantized 4-bit (Q4_1)") for line in lines)
