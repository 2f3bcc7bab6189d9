"""Scenario.time_axis in a scenario file: a start and a TSL frequency that label the steps with their dates where the
file gives no labels (preset 36 does so); written only when set (then version 2); a bad start or frequency is refused
with a line naming the field.  The expected dates are counted here with datetime, apart from
attention.datamodel.time_labels."""
from __future__ import annotations

import dataclasses
import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from attention.datamodel.scenario import ScenarioError
from attention.files import scenario_io

PRESETS = Path(__file__).parents[2] / "resources" / "scenarios"


def _hours(start: datetime, n: int) -> tuple:
    return tuple((start + timedelta(hours=i)).strftime("%Y-%m-%d %H:%M") for i in range(n))


def test_preset_36_labels_its_hours_from_the_time_axis():
    path = next(PRESETS.glob("36_*.json"))
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert "query_tokens" not in doc and doc["time_axis"] == {"start": "2016-07-01 00:00", "freq": "h"}
    sc = scenario_io.load(path)
    assert sc.query_tokens == _hours(datetime(2016, 7, 1), 12) == sc.key_tokens
    assert sc.query_tokens[-1] == "2016-07-01 11:00"


def test_time_axis_round_trip_and_version():
    sc = scenario_io.load(next(PRESETS.glob("01_*.json")))
    assert sc.time_axis is None and "time_axis" not in json.loads(scenario_io.dumps(sc))
    doc = json.loads(scenario_io.dumps(sc))
    doc["version"], doc["time_axis"] = 2, {"start": "2016-07-01 23:00", "freq": "h"}
    doc.pop("query_tokens", None), doc.pop("key_tokens", None)
    dated = scenario_io.loads(json.dumps(doc))
    assert dated.query_tokens == _hours(datetime(2016, 7, 1, 23), dated.queries.shape[1])
    assert dated.key_tokens == _hours(datetime(2016, 7, 1, 23), dated.keys.shape[1])
    again = json.loads(scenario_io.dumps(dated))
    assert again["version"] == 2 and again["time_axis"] == doc["time_axis"] and "query_tokens" not in again
    # labels of the file's own win over the dates, and are kept when saved
    own = dataclasses.replace(dated, query_tokens=tuple(f"q{i}" for i in range(dated.queries.shape[1])))
    back = scenario_io.loads(scenario_io.dumps(own))
    assert back.query_tokens == own.query_tokens and back.key_tokens == dated.key_tokens


@pytest.mark.parametrize("axis, field", [({"start": "2016-13-01", "freq": "h"}, "time_axis.start"),
                                         ({"start": "2016-07-01", "freq": "q"}, "time_axis.freq"),
                                         ({"start": "2016-07-01"}, "time_axis.freq"),
                                         ({"start": 2016, "freq": "h"}, "time_axis.start")])
def test_a_bad_time_axis_names_its_field_in_both_languages(axis, field):
    doc = json.loads(scenario_io.dumps(scenario_io.load(next(PRESETS.glob("01_*.json")))))
    doc["version"], doc["time_axis"] = 2, axis
    with pytest.raises(ScenarioError) as e:
        scenario_io.loads(json.dumps(doc))
    assert any(line.startswith(field) for line in str(e.value).splitlines())
    zh = [p.text("zh") for p in e.value.problems]
    assert any(line.startswith(field) and "应为" in line for line in zh)
