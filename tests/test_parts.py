"""The composed scenario's generic parts (attention/datamodel/parts.py): a kind registered in the one table
(attention/kinds/) with its fields and its step records is checked, computed and recorded without
any new Scenario attribute, check or engine branch.  The kind here is a test-only position
encoding (every query shifted by a number); expected numbers are worked out in numpy here."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from attention import Scenario, problems, run
from attention.datamodel.fields import Field
from attention.datamodel.parts import Part
from attention.datamodel.step_record import StepRecord
from attention.pipeline import explain as pipeline_explain
from attention.pipeline.records import BASE
from attention.registry import kinds, step_registry
from attention.text import lesson


class _Shift:
    """A position encoding for the test: q + shift, read by the scores in head_split.query's place."""

    name = "test_shift"
    fields = (Field("positions.shift", "float", "field.mask.causal.label", "field.mask.causal.help", default=0.0,
                    minimum=-10, maximum=10, group="positions"),)

    def records(self):
        from attention.datamodel import parts

        return (StepRecord(
            "test_shift.query", ("B", "L", "H", "dk"), "signed", "step.head_split.query.title",
            "step.head_split.query.formula", _shifted, parts.present("positions", self.name),
            pipeline_explain._head_split, lesson._sentences, None, ("head_split.query",), before="scores",
            stands_for="head_split.query"),)


def _shifted(run, step_id):
    from attention.datamodel import parts

    part = parts.find(run.sc, "positions", "test_shift")
    return run.inputs["head_split.query"] + parts.value(part, _Shift.fields[0])


@pytest.fixture
def registered(monkeypatch):
    monkeypatch.setitem(kinds.POSITIONS, "test_shift", _Shift())
    records = BASE + step_registry.kind_records()
    monkeypatch.setattr(step_registry, "RECORDS", records)
    monkeypatch.setattr(step_registry, "BY_ID", {r.id: r for r in records})
    order = step_registry._order()
    monkeypatch.setattr(step_registry, "ORDER", order)
    monkeypatch.setattr(step_registry, "COMPUTE_ORDER", tuple(step_registry.BY_ID[sid] for sid in order))


def _scenario(**more) -> Scenario:
    rng = np.random.default_rng(4)
    return Scenario(rng.normal(size=(1, 3, 4)), rng.normal(size=(1, 5, 4)), rng.normal(size=(1, 5, 4)), n_heads=2,
                    **more)


def test_a_registered_part_is_computed_where_its_record_says(registered):
    sc = _scenario(positions=(Part("test_shift", {"shift": 1.5}),))
    assert problems(sc) == []
    trace = run(sc)
    q = sc.queries.reshape(1, 3, 2, 2)  # identity projections: the head split of the queries
    k = sc.keys.reshape(1, 5, 2, 2)
    np.testing.assert_allclose(trace.array("test_shift.query"), q + 1.5, rtol=0, atol=1e-15)
    want = np.einsum("blhe,bshe->bhls", q + 1.5, k) / np.sqrt(2)
    np.testing.assert_allclose(trace.array("scores"), want, rtol=1e-12, atol=1e-12)
    assert trace.ids.index("test_shift.query") > trace.ids.index("head_split.query")
    assert trace.options["positions"] == [{"kind": "test_shift", "shift": 1.5}]
    plain = run(_scenario())
    assert "test_shift.query" not in plain.ids and "positions" not in plain.options


def test_a_part_left_at_its_default_takes_the_fields_default(registered):
    trace = run(_scenario(positions=(Part("test_shift"),)))
    np.testing.assert_array_equal(trace.array("test_shift.query"), trace.array("head_split.query"))


@pytest.mark.parametrize("part, code, path", [
    (Part("nope"), "expected_choice", "positions[0]"),
    (Part("test_shift", {"shift": 11.0}), "part_range", "positions[0].shift"),
    (Part("test_shift", {"shift": "a"}), "expected_finite", "positions[0].shift"),
    (Part("test_shift", {"shft": 1.0}), "unknown_field", "positions[0].shft"),
])
def test_bad_parts_are_named_by_field(registered, part, code, path):
    (p,) = problems(_scenario(positions=(part,)))
    assert (p.code, p.path) == (code, path)
    assert p.text("en") and p.text("zh")


def test_rules_with_an_attribute_of_their_own_are_not_parts():
    (p,) = problems(_scenario(masks=(Part("causal"),)))
    assert (p.code, p.path) == ("expected_choice", "masks[0]")
    assert problems(dataclasses.replace(_scenario(), causal=True)) == []
