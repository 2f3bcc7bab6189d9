"""resources/scenario.schema.json describes what the loader accepts."""
from __future__ import annotations

import json

import pytest

from attention.files import scenario_io
from resources import list_presets, schema_path

SCHEMA = json.loads(schema_path().read_text(encoding="utf-8"))


def test_schema_fields_equal_the_loader_fields():
    """Top-level and section field names cannot drift apart from the loader's."""
    props = SCHEMA["properties"]
    assert list(props) == list(scenario_io.FIELDS)
    assert SCHEMA["required"] == list(scenario_io.REQUIRED)
    assert SCHEMA["additionalProperties"] is False
    assert list(props["mask"]["properties"]) == list(scenario_io.MASK_FIELDS)
    assert list(props["prob_sparse"]["properties"]) == list(scenario_io.PROB_SPARSE_FIELDS)
    assert list(props["additive"]["properties"]) == list(scenario_io.ADDITIVE_FIELDS)
    assert list(SCHEMA["$defs"]["projection"]["properties"]) == list(scenario_io.PROJECTION_FIELDS)
    assert list(SCHEMA["$defs"]["text"]["properties"]) == list(scenario_io.TEXT_FIELDS)
    assert props["format"]["const"] == scenario_io.FORMAT
    assert props["version"]["enum"] == list(range(1, scenario_io.VERSION + 1))


def test_schema_integer_limits_equal_the_loaders():
    """What the schema allows, the loader accepts and the window's spin boxes (C int) can show."""
    props = SCHEMA["properties"]
    limits = {name: props[name]["maximum"] for name in ("n_heads", "d_keys", "d_values", "seed")}
    limits["additive.hidden"] = props["additive"]["properties"]["hidden"]["maximum"]
    limits["prob_sparse.factor"] = props["prob_sparse"]["properties"]["factor"]["maximum"]
    assert set(limits.values()) == {scenario_io.INT_MAX} == {2**31 - 1}
    toy = json.loads(list_presets()[0][0].read_text(encoding="utf-8"))
    scenario_io.loads(json.dumps({**toy, "seed": scenario_io.INT_MAX, "prob_sparse": {"factor": scenario_io.INT_MAX}}))
    for field, value in (("seed", {"seed": 2**31}), ("prob_sparse.factor", {"prob_sparse": {"factor": 2**31}}),
                         ("n_heads", {"n_heads": 2**31})):
        with pytest.raises(scenario_io.ScenarioError) as e:
            scenario_io.loads(json.dumps({**toy, **value}))
        assert [p.path for p in e.value.problems] == [field]


def test_schema_generator_kinds_equal_the_generators():
    from attention.files.generators import COMMON, KINDS

    kinds = {g["properties"]["generate"]["const"]: g for g in SCHEMA["$defs"]["generator"]["oneOf"]}
    assert set(kinds) == set(KINDS)
    for kind, g in kinds.items():
        assert set(g["properties"]) == set(COMMON) | set(KINDS[kind])


@pytest.mark.parametrize("path", [p for p, _ in list_presets()], ids=lambda p: p.name)
def test_presets_and_their_saved_form_validate_against_the_schema(path):
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator(SCHEMA)
    validator.check_schema(SCHEMA)
    assert list(validator.iter_errors(json.loads(path.read_text(encoding="utf-8")))) == []
    saved = json.loads(scenario_io.dumps(scenario_io.load(path)))
    assert list(validator.iter_errors(saved)) == []
    saved["mask"]["causl"] = True  # and the schema can say no
    assert list(validator.iter_errors(saved))
