"""The plain options' Field records (attention/datamodel/fields.py) agree with the schema, the docs' field
table, the Scenario's defaults and what the loader accepts: the four can never drift apart.

The schema and docs are compared with what the records generate; the defaults, ranges and
choices are also checked against sources written independently of the records (the Scenario
dataclass, scenario_io's limits, the loader's refusals)."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from attention import words
from attention.datamodel import fields, scenario
from attention.datamodel.fields import Field
from attention.files import scenario_io
from attention.registry import kinds
from attention.registry.fields import SCENARIO_FIELDS, field, rewritten
from resources import list_presets, schema_path

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads(schema_path().read_text(encoding="utf-8"))
DOCS = (ROOT / "docs" / "scenario-format.md").read_text(encoding="utf-8")
IDS = [f.key for f in SCENARIO_FIELDS]


def _docs_rows() -> dict[str, list[str]]:
    rows = {}
    for line in DOCS.splitlines():
        cells = fields.docs_cells(line)
        if cells and len(cells) == 4 and cells[0].startswith("`"):
            rows[cells[0].strip("`")] = cells
    return rows


@pytest.mark.parametrize("f", SCENARIO_FIELDS, ids=IDS)
def test_the_schema_node_is_the_records(f: Field):
    node = {k: v for k, v in fields.schema_node(SCHEMA, f).items() if k != "description"}
    assert node == fields.schema_of(f), "run python -m attention.registry.fields --write"


@pytest.mark.parametrize("f", SCENARIO_FIELDS, ids=IDS)
def test_the_docs_row_is_the_records(f: Field):
    row = _docs_rows().get(f.file_path)
    assert row is not None, f"docs/scenario-format.md has no row for `{f.file_path}`"
    assert row[1:3] == [fields.docs_type(f), fields.docs_default(f)], "run python -m attention.registry.fields --write"
    assert row[3], "the meaning is written by hand: it must be there"


def test_the_check_can_fail():
    """A record changed, the schema and docs no longer match it."""
    f = field("factor")
    wider = dataclasses.replace(f, maximum=2**63 - 1)
    assert fields.schema_of(wider) != fields.schema_node(SCHEMA, f)
    assert fields.docs_type(wider) != _docs_rows()[f.file_path][1]
    schema, docs = rewritten(json.loads(json.dumps(SCHEMA)), DOCS)
    assert schema == SCHEMA and docs == DOCS  # rewriting from the records changes nothing


def test_the_records_agree_with_the_scenario_and_the_loader_constants():
    defaults = {k: v.default for k, v in scenario.Scenario.__dataclass_fields__.items()}
    for f in SCENARIO_FIELDS:
        if f.name == "hidden":  # the additive part's: no default, a file must give it
            assert f.required and f.file_path == "additive.hidden"
            continue
        assert defaults[f.name] == f.default, f.name
    assert field("scoring").choices == tuple(kinds.SCORING)
    assert set(field("device").choices) == set(scenario.DEVICES)
    assert set(field("dtype").choices) == set(scenario.DTYPES)
    assert fields.INT_MAX == scenario_io.INT_MAX == 2**31 - 1
    assert [f.file_path for f in SCENARIO_FIELDS if "." in f.file_path] == [
        "additive.hidden", "prob_sparse.factor", "prob_sparse.mix", "mask.causal", "mask.fill_value"]
    for path in (f.file_path for f in SCENARIO_FIELDS):
        part, _, name = path.rpartition(".")
        known = {"": scenario_io.FIELDS, "mask": scenario_io.MASK_FIELDS, "additive": scenario_io.ADDITIVE_FIELDS,
                 "prob_sparse": scenario_io.PROB_SPARSE_FIELDS}[part]
        assert name in known, path


def _nested(path: str, value) -> dict:
    *parts, last = path.split(".")
    out: dict = {last: value}
    for part in reversed(parts):
        out = {part: out}
    return out


@pytest.mark.parametrize("f", [f for f in SCENARIO_FIELDS if f.type == "int"], ids=lambda f: f.key)
def test_the_loader_refuses_exactly_outside_the_records_range(f: Field):
    toy = json.loads(list_presets()[0][0].read_text(encoding="utf-8"))
    base = {**toy, "scoring": "additive", "additive": {"hidden": 2}} if f.name == "hidden" else dict(toy)
    for bad in (f.minimum - 1, f.maximum + 1):
        doc = json.loads(json.dumps(base))
        change = _nested(f.file_path, bad)
        for key, value in change.items():
            doc[key] = {**doc.get(key, {}), **value} if isinstance(value, dict) else value
        with pytest.raises(scenario_io.ScenarioError) as e:
            scenario_io.loads(json.dumps(doc))
        assert f.file_path in [p.path for p in e.value.problems], (bad, e.value.problems)


@pytest.mark.parametrize("f", SCENARIO_FIELDS, ids=IDS)
def test_every_record_has_its_words_in_both_languages(f: Field):
    keys = [f.label, f.help, f.undo or "field.undo", *f.choice_words]
    for lang in ("en", "zh"):
        for key in keys:
            assert words.text(key, lang, label="x", value=1).strip(), (lang, key)
    assert not f.choice_words or len(f.choice_words) == len(f.choices)
